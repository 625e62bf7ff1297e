/*
 * The experiment schema's names (exp_schema.h): the one spelling of each
 * enumerated value, read by the loader (exp.c) and written back by the
 * printer of the resolved configuration (exp_resolved.c).
 */
#include <assert.h>

#include "exp/exp_schema.h"
#include "base/util.h"

const char *const exp_procs_names[] = {
	[PROCS_ALLOCATED] = "allocated",
	[PROCS_REQUESTED] = "requested",
};
static_assert(ARRAY_SIZE(exp_procs_names) == PROCS_REQUESTED + 1,
	      "procs names");

const char *const exp_overrun_names[] = {
	[OVERRUN_CLIP] = "clip",
	[OVERRUN_KILL] = "kill",
	[OVERRUN_ALLOW] = "allow",
};
static_assert(ARRAY_SIZE(exp_overrun_names) == OVERRUN_ALLOW + 1,
	      "overrun names");

const struct exp_dist_desc exp_dist_descs[] = {
	[DIST_CONSTANT] = { "constant", { "value" }, 1 },
	[DIST_UNIFORM] = { "uniform", { "min", "max" }, 2 },
	[DIST_EXPONENTIAL] = { "exponential", { "mean" }, 1 },
	[DIST_LOGNORMAL] = { "lognormal", { "mu", "sigma" }, 2 },
	[DIST_WEIBULL] = { "weibull", { "shape", "scale" }, 2 },
	[DIST_GAMMA] = { "gamma", { "shape", "scale" }, 2 },
	[DIST_HYPERGAMMA] = { "hypergamma",
			      { "p", "shape1", "scale1", "shape2", "scale2" },
			      5 },
	[DIST_POW2] = { "pow2", { "min", "max" }, 2 },
	[DIST_DISCRETE] = { "discrete", { "values", "weights" }, 0 },
	[DIST_LOGNORMAL2] = { "lognormal2",
			      { "p", "mu1", "sigma1", "mu2", "sigma2" }, 5 },
};
static_assert(ARRAY_SIZE(exp_dist_descs) == DIST_NKINDS, "dist table");
