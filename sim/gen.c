/*
 * Synthetic workloads: jobs drawn from named distributions (GSL), for
 * experiments that need a controlled load rather than a real trace.
 *
 * Reproducibility is the point: one gsl_rng_mt19937 seeded with the
 * experiment's seed, and for every job the draws are taken in a fixed
 * order - interarrival, runtime, cpus, estimate factor, user - so the same
 * seed and spec give the same jobs on every machine.  A constant takes no
 * draw; every other distribution takes its draws whether or not the value
 * is later clamped.
 */
#include "workload.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "util.h"

/* Names of each kind's parameters p[i], as experiment files spell them. */
static const char *const dist_param[DIST_NKINDS][5] = {
	[DIST_CONSTANT] = { "value" },
	[DIST_UNIFORM] = { "min", "max" },
	[DIST_EXPONENTIAL] = { "mean" },
	[DIST_LOGNORMAL] = { "mu", "sigma" },
	[DIST_WEIBULL] = { "shape", "scale" },
	[DIST_GAMMA] = { "shape", "scale" },
	[DIST_HYPERGAMMA] = { "p", "shape1", "scale1", "shape2", "scale2" },
	[DIST_POW2] = { "min", "max" },
	[DIST_DISCRETE] = { NULL },
};
_Static_assert(sizeof(dist_param) / sizeof(dist_param[0]) == DIST_NKINDS,
	       "one row per distribution kind");

static int dist_fail(struct sim_error *err, const char *path, int i,
		     const char *what, double v, const struct dist *d)
{
	return err_set(err, "%s.%s: %s, got '%g'", path, dist_param[d->kind][i],
		       what, v);
}

static bool dist_is_pow2(double v)
{
	int e;
	return v > 0 && isfinite(v) && frexp(v, &e) == 0.5;
}

int dist_check(const struct dist *d, const char *json_path,
	       struct sim_error *err)
{
	const char *path = json_path ? json_path : "$";
	double sum = 0;
	int np = 0;

	if ((unsigned)d->kind >= DIST_NKINDS)
		return err_set(err, "%s: unknown distribution '%d'", path,
			       (int)d->kind);
	while (np < 5 && dist_param[d->kind][np])
		np++;
	for (int i = 0; i < np; i++)
		if (!isfinite(d->p[i]))
			return dist_fail(err, path, i, "must be a finite number",
					 d->p[i], d);

	switch (d->kind) {
	case DIST_CONSTANT:
		break;
	case DIST_UNIFORM:
		if (d->p[1] < d->p[0])
			return err_set(err, "%s.max: must not be less than min "
				       "'%g', got '%g'", path, d->p[0], d->p[1]);
		break;
	case DIST_EXPONENTIAL:
		if (!(d->p[0] > 0))
			return dist_fail(err, path, 0, "must be positive",
					 d->p[0], d);
		break;
	case DIST_LOGNORMAL:
		if (d->p[1] < 0)
			return dist_fail(err, path, 1, "must not be negative",
					 d->p[1], d);
		break;
	case DIST_WEIBULL:
	case DIST_GAMMA:
		for (int i = 0; i < 2; i++)
			if (!(d->p[i] > 0))
				return dist_fail(err, path, i,
						 "must be positive", d->p[i],
						 d);
		break;
	case DIST_HYPERGAMMA:
		if (d->p[0] < 0 || d->p[0] > 1)
			return dist_fail(err, path, 0,
					 "must be between 0 and 1", d->p[0], d);
		for (int i = 1; i < 5; i++)
			if (!(d->p[i] > 0))
				return dist_fail(err, path, i,
						 "must be positive", d->p[i],
						 d);
		break;
	case DIST_POW2:
		for (int i = 0; i < 2; i++)
			if (!dist_is_pow2(d->p[i]))
				return dist_fail(err, path, i,
						 "must be a power of two",
						 d->p[i], d);
		if (d->p[1] < d->p[0])
			return err_set(err, "%s.max: must not be less than min "
				       "'%g', got '%g'", path, d->p[0], d->p[1]);
		break;
	case DIST_DISCRETE:
		if (!d->nvalues || !d->values || !d->weights)
			return err_set(err, "%s.values: must not be empty",
				       path);
		for (size_t i = 0; i < d->nvalues; i++) {
			if (!isfinite(d->values[i]))
				return err_set(err, "%s.values[%zu]: must be a "
					       "finite number, got '%g'", path,
					       i, d->values[i]);
			if (!isfinite(d->weights[i]) || d->weights[i] < 0)
				return err_set(err, "%s.weights[%zu]: must not "
					       "be negative, got '%g'", path, i,
					       d->weights[i]);
			sum += d->weights[i];
		}
		if (!(sum > 0) || !isfinite(sum))
			return err_set(err, "%s.weights: must have a positive "
				       "sum", path);
		break;
	case DIST_NKINDS:
		break;
	}
	return 0;
}

void gen_spec_release(struct gen_spec *g)
{
	if (!g)
		return;
	struct dist *ds[] = { &g->interarrival, &g->runtime, &g->cpus,
			      &g->estimate_factor };
	for (size_t i = 0; i < ARRAY_SIZE(ds); i++) {
		free(ds[i]->values);
		free(ds[i]->weights);
		ds[i]->values = ds[i]->weights = NULL;
		ds[i]->nvalues = 0;
	}
}

/* A distribution ready to draw from. */
struct gen_dist {
	const struct dist *d;     /* the spec */
	gsl_ran_discrete_t *tab;  /* DIST_DISCRETE: GSL's lookup table */
	int lo, hi;               /* DIST_POW2: exponent range */
};

static void gen_dist_init(struct gen_dist *g, const struct dist *d)
{
	int e;
	g->d = d;
	g->tab = NULL;
	g->lo = g->hi = 0;
	if (d->kind == DIST_DISCRETE)
		g->tab = gsl_ran_discrete_preproc(d->nvalues, d->weights);
	if (d->kind == DIST_POW2) {
		frexp(d->p[0], &e);
		g->lo = e - 1;
		frexp(d->p[1], &e);
		g->hi = e - 1;
	}
}

static double gen_draw(const struct gen_dist *g, gsl_rng *r)
{
	const double *p = g->d->p;

	switch (g->d->kind) {
	case DIST_CONSTANT:
		return p[0];
	case DIST_UNIFORM:
		return gsl_ran_flat(r, p[0], p[1]);
	case DIST_EXPONENTIAL:
		return gsl_ran_exponential(r, p[0]);
	case DIST_LOGNORMAL:
		return gsl_ran_lognormal(r, p[0], p[1]);
	case DIST_WEIBULL:
		return gsl_ran_weibull(r, p[1], p[0]); /* GSL: (scale, shape) */
	case DIST_GAMMA:
		return gsl_ran_gamma(r, p[0], p[1]);
	case DIST_HYPERGAMMA:
		if (gsl_rng_uniform(r) < p[0])
			return gsl_ran_gamma(r, p[1], p[2]);
		return gsl_ran_gamma(r, p[3], p[4]);
	case DIST_POW2: {
		unsigned long k = gsl_rng_uniform_int(
			r, (unsigned long)(g->hi - g->lo) + 1);
		return ldexp(1.0, g->lo + (int)k);
	}
	case DIST_DISCRETE:
		return g->d->values[gsl_ran_discrete(r, g->tab)];
	case DIST_NKINDS:
		break;
	}
	SIM_BUG("bad distribution kind %d", (int)g->d->kind);
}

int gen_workload(const struct gen_spec *g, uint64_t seed,
		 const struct trace_opts *o, struct workload *w,
		 struct sim_error *err)
{
	static const char *const names[4] = { "interarrival", "runtime",
					      "cpus", "estimate_factor" };
	const struct dist *ds[4] = { &g->interarrival, &g->runtime, &g->cpus,
				     &g->estimate_factor };
	struct gen_dist gd[4];
	struct trace_opts def;
	gsl_rng *r;
	sim_time_t t = 0;
	int rc = 0, i;

	workload_init(w);
	if (!o) {
		trace_opts_default(&def);
		o = &def;
	}
	for (i = 0; i < 4; i++)
		if ((rc = dist_check(ds[i], names[i], err)) != 0)
			return rc;
	if (g->jobs > UINT32_MAX)
		return err_set(err, "jobs: must be at most %" PRIu32
			       ", got '%" PRIu64 "'", UINT32_MAX, g->jobs);

	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r)
		SIM_BUG("gsl_rng_alloc failed");
	/* mt19937 takes 32 bits: fold the high half in rather than drop it. */
	gsl_rng_set(r, (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu));
	for (i = 0; i < 4; i++)
		gen_dist_init(&gd[i], ds[i]);

	w->n = (size_t)g->jobs;
	w->jobs = xcalloc(w->n ? w->n : 1, sizeof(*w->jobs));
	for (size_t k = 0; k < w->n; k++) {
		struct job *j = &w->jobs[k];
		double gap = gen_draw(&gd[0], r);
		double run = gen_draw(&gd[1], r);
		double cpus = gen_draw(&gd[2], r);
		double factor = gen_draw(&gd[3], r);
		int32_t user = g->users ?
			(int32_t)gsl_rng_uniform_int(r, g->users) : -1;
		sim_time_t dt, rt;

		if (k > 0) {
			if (seconds_to_time(gap > 0 ? gap : 0, &dt) != 0 ||
			    dt > INT64_MAX / 2 - t) {
				rc = err_set(err, "generator: submit time of "
					     "job %zu overflows", k + 1);
				goto out_rng;
			}
			t += dt;
		}
		if (seconds_to_time(run, &rt) != 0 || rt > INT64_MAX / 4) {
			rc = err_set(err, "generator: run time '%g' of job %zu "
				     "is out of range", run, k + 1);
			goto out_rng;
		}
		if (rt < SIM_SEC)
			rt = SIM_SEC;
		if (!(factor > 1))
			factor = 1; /* also for NaN */
		double est = ceil((double)rt / SIM_SEC * factor);
		if (!(est < 9.2e12)) {
			rc = err_set(err, "generator: estimate '%g' of job %zu "
				     "is out of range", est, k + 1);
			goto out_rng;
		}
		double c = round(cpus);
		if (!(c >= 1))
			c = 1; /* also for NaN */
		if (g->max_cpus && c > g->max_cpus)
			c = g->max_cpus;
		if (c > UINT32_MAX)
			c = UINT32_MAX;

		j->id = (int64_t)k + 1;
		j->submit = t;
		j->run = rt;
		j->estimate = (sim_time_t)est * SIM_SEC;
		if (j->estimate < rt)
			j->estimate = rt;
		j->flags = JOB_HAS_ESTIMATE;
		j->cpus = (uint32_t)c;
		j->user = user;
		j->group = -1;
		j->state = JOB_FUTURE;
		j->start = SIM_TIME_NONE;
		j->end = SIM_TIME_NONE;
	}
	w->report.jobs_read = w->n;
	rc = workload_finish(w, o, "generator", err);
out_rng:
	for (i = 0; i < 4; i++)
		if (gd[i].tab)
			gsl_ran_discrete_free(gd[i].tab);
	gsl_rng_free(r);
	if (rc)
		workload_release(w);
	return rc;
}
