/*
 * The "optimize" section of an experiment file (experiments/README.md):
 * the batch that `clustersim optimize` schedules offline and the methods
 * and budgets it uses.  The command itself is sim/run/optimize.c.
 */
#include <stdlib.h>
#include <string.h>

#include "eval/eval_decode.h"
#include "exp/exp.h"
#include "exp/exp_json.h"

const char *const optimize_methods[4] = { "greedy", "ga", "sa", "ilp" };
const char *const optimize_objectives[EVAL_NOBJECTIVES] = {
	"makespan", "twct", "jct", "mix" };
static const char *const backend_names[] = { "auto", "cpu", "cuda" };

/* "mix": [makespan, twct], two non-negative integer weights. */
static int parse_mix(struct exp_ctx *c, const struct cJSON *v,
		     struct optimize_spec *o)
{
	double *w = NULL;
	size_t n = 0;
	int rc = exp_get_numbers(c, "mix", v, &w, &n);
	if (!rc && (n != 2 || w[0] < 0 || w[1] < 0 ||
		    w[0] != (double)(uint64_t)w[0] ||
		    w[1] != (double)(uint64_t)w[1]))
		rc = exp_fail(c, "mix", "expected two non-negative "
			      "integers [makespan, twct]");
	if (!rc) {
		o->mix_makespan = (uint64_t)w[0];
		o->mix_twct = (uint64_t)w[1];
	}
	free(w);
	return rc;
}

/* "methods": an array of method names, as a bit mask. */
static int parse_methods(struct exp_ctx *c, const struct cJSON *v,
			 struct optimize_spec *o)
{
	size_t n = 0;
	int rc = exp_array(c, v, "an array of method names", true, &n);
	o->methods = 0;
	for (size_t i = 0; !rc && i < n; i++) {
		size_t m = exp_jp_key(c, "methods");
		size_t k = exp_jp_index(c, i);
		int which = 0;
		rc = exp_get_enum(c, NULL, cJSON_GetArrayItem(v, (int)i),
				  optimize_methods, 4, &which);
		o->methods |= 1u << which;
		exp_jp_pop(c, k);
		exp_jp_pop(c, m);
	}
	return rc;
}

int exp_parse_optimize(struct exp_ctx *c, const struct cJSON *v,
		       struct optimize_spec *o)
{
	static const char *const keys[] = {
		"jobs", "releases", "objective", "mix", "methods", "evals",
		"wall_s", "backend", "threads", "node_level", "population",
		"islands", "chains", "ilp_time_limit", "ilp_slots",
	};
	const cJSON *f[ARRAY_SIZE(keys)];
	uint64_t u;
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	memset(o, 0, sizeof(*o));
	o->given = true;
	o->jobs = 100;
	o->objective = EVAL_TWCT;
	o->mix_makespan = 1;
	o->mix_twct = 1;
	o->methods = 0xf;
	o->evals = 200000;
	o->pop = 256;
	o->islands = 4;
	o->chains = 64;
	o->ilp_time_s = 10;
	o->ilp_slots = 64;
	if (!rc)
		rc = exp_get_uint(c, "jobs", f[0], 1, 1000000, &o->jobs);
	if (!rc)
		rc = exp_get_bool(c, "releases", f[1], &o->releases);
	if (!rc)
		rc = exp_get_enum(c, "objective", f[2], optimize_objectives,
				  EVAL_NOBJECTIVES, &o->objective);
	if (!rc && f[3])
		rc = parse_mix(c, f[3], o);
	if (!rc && f[4])
		rc = parse_methods(c, f[4], o);
	if (!rc)
		rc = exp_get_uint(c, "evals", f[5], 1, EXP_INT_MAX, &o->evals);
	if (!rc)
		rc = exp_get_number(c, "wall_s", f[6], 0, false, &o->wall_s);
	if (!rc)
		rc = exp_get_enum(c, "backend", f[7], backend_names, 3,
				  &o->backend);
	u = 0;
	if (!rc)
		rc = exp_get_uint(c, "threads", f[8], 0, 4096,
				  &u);
	if (!rc)
		o->threads = (uint32_t)u;
	if (!rc)
		rc = exp_get_bool(c, "node_level", f[9], &o->nodes);
	u = o->pop;
	if (!rc)
		rc = exp_get_uint(c, "population", f[10], 2, 1u << 24,
				  &u);
	if (!rc)
		o->pop = (uint32_t)u;
	u = o->islands;
	if (!rc)
		rc = exp_get_uint(c, "islands", f[11], 1, 1024,
				  &u);
	if (!rc)
		o->islands = (uint32_t)u;
	if (!rc && o->pop % o->islands)
		rc = exp_fail(c, "islands", "the population (%u) must be a "
			      "multiple of the islands (%u)", o->pop,
			      o->islands);
	u = o->chains;
	if (!rc)
		rc = exp_get_uint(c, "chains", f[12], 1, 1u << 24,
				  &u);
	if (!rc)
		o->chains = (uint32_t)u;
	if (!rc)
		rc = exp_get_number(c, "ilp_time_limit", f[13], 0, true,
				    &o->ilp_time_s);
	u = o->ilp_slots;
	if (!rc)
		rc = exp_get_uint(c, "ilp_slots", f[14], 2, 100000,
				  &u);
	if (!rc)
		o->ilp_slots = (uint32_t)u;
	return rc;
}
