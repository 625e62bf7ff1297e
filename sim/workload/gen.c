/*
 * Synthetic workloads: jobs drawn from named distributions (GSL), for
 * experiments that need a controlled load rather than a real trace.
 *
 * Reproducibility is the point: the draws come from Philox keyed by the
 * experiment's whole 64-bit seed (gen_rng.h says why), and each field of
 * each job - interarrival, gpus, runtime, cpus, estimate factor, user -
 * draws from a stream of its own, so the same seed and spec give the same
 * jobs on every machine, and a field's values do not move when another
 * field's distribution changes.  A constant takes no draw; every other
 * distribution takes its draws whether or not the value is later clamped
 * or unused (a GPU job still draws cpus, then takes gpus x cpus_per_gpu
 * CPUs).  The runtime draw comes from the bucket of runtime_by_gpus that
 * holds the job's GPU count, else from runtime, on the runtime stream
 * either way.  With gpus a constant 0 (the default) no GPU draw is taken.
 *
 * GPU jobs get no job class (JOB_CLASS_NONE): like a trace that names no
 * model, the engine draws one when "job_classes" is "draw" (speed.h).
 */
#include "workload/workload.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "workload/gen_impl.h"
#include "workload/gen_rng.h"

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
	[DIST_LOGNORMAL2] = { "p", "mu1", "sigma1", "mu2", "sigma2" },
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
	case DIST_LOGNORMAL2:
		if (d->p[0] < 0 || d->p[0] > 1)
			return dist_fail(err, path, 0,
					 "must be between 0 and 1", d->p[0], d);
		for (int i = 2; i < 5; i += 2)
			if (d->p[i] < 0)
				return dist_fail(err, path, i,
						 "must not be negative",
						 d->p[i], d);
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

void dist_release(struct dist *d)
{
	if (!d)
		return;
	free(d->values);
	free(d->weights);
	d->values = d->weights = NULL;
	d->nvalues = 0;
}

void gen_spec_release(struct gen_spec *g)
{
	if (!g)
		return;
	struct dist *ds[] = { &g->interarrival, &g->runtime, &g->cpus,
			      &g->estimate_factor, &g->gpus };
	for (size_t i = 0; i < ARRAY_SIZE(ds); i++)
		dist_release(ds[i]);
	for (size_t i = 0; i < g->nbuckets; i++)
		dist_release(&g->runtime_by_gpus[i].runtime);
	free(g->runtime_by_gpus);
	g->runtime_by_gpus = NULL;
	g->nbuckets = 0;
	free(g->preset);
	g->preset = NULL;
	gen_large_release(&g->large);
}

/* Bucket b's range: [lo, hi] with hi = UINT32_MAX for no bound. */
static uint32_t bucket_hi(const struct gen_bucket *b)
{
	return b->max_gpus ? b->max_gpus : UINT32_MAX;
}

const struct gen_bucket *gen_bucket_find(const struct gen_spec *g,
					 uint32_t gpus)
{
	for (size_t i = 0; i < g->nbuckets; i++) {
		const struct gen_bucket *b = &g->runtime_by_gpus[i];
		if (gpus >= b->min_gpus && gpus <= bucket_hi(b))
			return b;
	}
	return NULL;
}

int gen_buckets_check(const struct gen_spec *g, const char *json_path,
		      struct sim_error *err)
{
	const char *path = json_path ? json_path : "$";
	for (size_t i = 0; i < g->nbuckets; i++) {
		const struct gen_bucket *b = &g->runtime_by_gpus[i];
		if (b->min_gpus < 1)
			return err_set(err, "%s[%zu].min: must be at least 1, "
				       "got '%" PRIu32 "'", path, i,
				       b->min_gpus);
		if (b->max_gpus && b->max_gpus < b->min_gpus)
			return err_set(err, "%s[%zu].max: must not be less "
				       "than min '%" PRIu32 "', got '%" PRIu32
				       "'", path, i, b->min_gpus, b->max_gpus);
		for (size_t k = 0; k < i; k++) {
			const struct gen_bucket *a = &g->runtime_by_gpus[k];
			if (b->min_gpus <= bucket_hi(a) &&
			    a->min_gpus <= bucket_hi(b))
				return err_set(err, "%s[%zu]: overlaps bucket "
					       "%zu ('%" PRIu32 "' GPUs are in "
					       "both)", path, i, k,
					       b->min_gpus > a->min_gpus ?
					       b->min_gpus : a->min_gpus);
		}
	}
	return 0;
}

void gen_dist_init(struct gen_dist *g, const struct dist *d)
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
	case DIST_LOGNORMAL2:
		if (gsl_rng_uniform(r) < p[0])
			return gsl_ran_lognormal(r, p[1], p[2]);
		return gsl_ran_lognormal(r, p[3], p[4]);
	case DIST_NKINDS:
		break;
	}
	SIM_BUG("bad distribution kind %d", (int)g->d->kind);
}

void gen_dist_free(struct gen_dist *g)
{
	if (g->tab)
		gsl_ran_discrete_free(g->tab);
	g->tab = NULL;
}

double gen_field(const struct gen_dist *g, gsl_rng *r, uint32_t job,
			uint32_t field)
{
	gen_rng_stream(r, job, field);
	return gen_draw(g, r);
}

/* A drawn GPU count: rounded, 0 (a CPU job) below 1 or for NaN. */
static uint32_t gen_gpu_count(double v)
{
	double c = round(v);
	if (!(c >= 1))
		return 0;
	return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

/* The job-wide distributions, in the order they are drawn; each value is
 * also the field of the job's stream it draws from (GD_N: the user). */
enum { GD_GAP, GD_GPUS, GD_RUN, GD_CPUS, GD_FACTOR, GD_N };

static const char *const gd_names[GD_N] = {
	"interarrival", "gpus", "runtime", "cpus", "estimate_factor"
};

/* Checks every distribution of g and its job count. */
static int gen_check(const struct gen_spec *g, const struct dist *const *ds,
		     struct sim_error *err)
{
	char path[64];
	int rc;
	for (size_t i = 0; i < GD_N; i++)
		if ((rc = dist_check(ds[i], gd_names[i], err)) != 0)
			return rc;
	for (size_t i = 0; i < g->nbuckets; i++) {
		snprintf(path, sizeof(path), "runtime_by_gpus[%zu].runtime", i);
		if ((rc = dist_check(&g->runtime_by_gpus[i].runtime, path,
				     err)) != 0)
			return rc;
	}
	if ((rc = gen_buckets_check(g, "runtime_by_gpus", err)) != 0)
		return rc;
	if (g->jobs > UINT32_MAX)
		return err_set(err, "jobs: must be at most %" PRIu32
			       ", got '%" PRIu64 "'", UINT32_MAX, g->jobs);
	return 0;
}

/* The CPUs of a job: the drawn count rounded and clipped, or its GPUs'
 * share when it has GPUs. */
static uint32_t gen_cpu_count(const struct gen_spec *g, double cpus,
			      uint32_t gpus)
{
	double c = round(cpus);
	if (!(c >= 1))
		c = 1; /* also for NaN */
	if (g->max_cpus && c > g->max_cpus)
		c = g->max_cpus;
	if (c > UINT32_MAX)
		c = UINT32_MAX;
	if (gpus) {
		uint64_t gc = (uint64_t)gpus * g->cpus_per_gpu;
		c = gc > UINT32_MAX ? UINT32_MAX : (double)gc;
	}
	return (uint32_t)c;
}

/*
 * Job k (0-based): its draws, each on its own stream (gap, GPUs, run time
 * from its GPU count's bucket or the job-wide one, CPUs, estimate factor,
 * user), then its fields; *t is the previous submit time and becomes its.
 */
static int gen_job(const struct gen_spec *g, struct gen_dist *gd,
		   struct gen_dist *bd, gsl_rng *r, size_t k, sim_time_t *t,
		   struct job *j, struct sim_error *err)
{
	uint32_t job = (uint32_t)k; /* gen_check: at most 2^32 - 1 jobs */
	double gap = gen_field(&gd[GD_GAP], r, job, GD_GAP);
	uint32_t gpus = gen_gpu_count(gen_field(&gd[GD_GPUS], r, job,
						GD_GPUS));
	const struct gen_bucket *b = gpus ? gen_bucket_find(g, gpus) : NULL;
	double run = gen_field(b ? &bd[b - g->runtime_by_gpus] : &gd[GD_RUN],
			       r, job, GD_RUN);
	double cpus = gen_field(&gd[GD_CPUS], r, job, GD_CPUS);
	double factor = gen_field(&gd[GD_FACTOR], r, job, GD_FACTOR);
	int32_t user = -1;
	sim_time_t dt, rt;

	if (g->users) {
		gen_rng_stream(r, job, GD_N);
		user = (int32_t)gsl_rng_uniform_int(r, g->users);
	}

	if (k > 0) {
		if (seconds_to_time(gap > 0 ? gap : 0, &dt) != 0 ||
		    dt > SIM_TIME_INPUT_MAX - *t)
			return err_set(err, "generator: submit time of job %zu "
				       "overflows", k + 1);
		*t += dt;
	}
	if (seconds_to_time(run, &rt) != 0 || rt > SIM_TIME_INPUT_MAX)
		return err_set(err, "generator: run time '%g' of job %zu is "
			       "out of range", run, k + 1);
	if (rt < SIM_SEC)
		rt = SIM_SEC;
	if (!(factor > 1))
		factor = 1; /* also for NaN */
	double est = ceil((double)rt / SIM_SEC * factor);
	if (!(est <= (double)(SIM_TIME_INPUT_MAX / SIM_SEC)))
		return err_set(err, "generator: estimate '%g' of job %zu is "
			       "out of range", est, k + 1);
	j->id = (int64_t)k + 1;
	j->submit = *t;
	j->run = rt;
	j->estimate = (sim_time_t)est * SIM_SEC;
	if (j->estimate < rt)
		j->estimate = rt;
	j->flags = JOB_HAS_ESTIMATE;
	j->cpus = gen_cpu_count(g, cpus, gpus);
	j->gpus = gpus;
	j->job_class = JOB_CLASS_NONE;
	j->user = user;
	j->group = -1;
	j->state = JOB_FUTURE;
	j->start = SIM_TIME_NONE;
	j->end = SIM_TIME_NONE;
	return 0;
}

int gen_workload(const struct gen_spec *g, uint64_t seed,
		 const struct trace_opts *o, struct workload *w,
		 struct sim_error *err)
{
	const struct dist *ds[GD_N] = { &g->interarrival, &g->gpus,
					&g->runtime, &g->cpus,
					&g->estimate_factor };
	struct gen_dist gd[GD_N], *bd = NULL;
	struct trace_opts def;
	gsl_rng *r;
	sim_time_t t = 0;
	int rc = 0;
	size_t i;

	workload_init(w);
	if (!o) {
		trace_opts_default(&def);
		o = &def;
	}
	if ((rc = gen_check(g, ds, err)) != 0)
		return rc;

	r = gen_rng_new(seed);
	for (i = 0; i < GD_N; i++)
		gen_dist_init(&gd[i], ds[i]);
	bd = xcalloc(g->nbuckets ? g->nbuckets : 1, sizeof(*bd));
	for (i = 0; i < g->nbuckets; i++)
		gen_dist_init(&bd[i], &g->runtime_by_gpus[i].runtime);

	w->n = (size_t)g->jobs;
	w->jobs = xcalloc(w->n ? w->n : 1, sizeof(*w->jobs));
	for (size_t k = 0; k < w->n; k++)
		if ((rc = gen_job(g, gd, bd, r, k, &t, &w->jobs[k], err)) != 0)
			goto out_rng;
	if (g->large.on && (rc = gen_large_jobs(g, seed, o, w, err)) != 0)
		goto out_rng;
	if (g->searches.on &&
	    (rc = hpo_gen_trials(&g->searches, seed, g->cpus_per_gpu,
				 g->users, w, err)) != 0)
		goto out_rng;
	w->report.jobs_read = w->n;
	rc = workload_finish(w, o, "generator", err);
out_rng:
	for (i = 0; i < GD_N; i++)
		if (gd[i].tab)
			gsl_ran_discrete_free(gd[i].tab);
	for (i = 0; i < g->nbuckets; i++)
		if (bd[i].tab)
			gsl_ran_discrete_free(bd[i].tab);
	free(bd);
	gsl_rng_free(r);
	if (rc)
		workload_release(w);
	return rc;
}
