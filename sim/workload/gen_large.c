/*
 * Large-model jobs in a generated workload (the generator's "large"
 * section; experiments/README.md, "large"; docs/workloads.md,
 * "Large-model jobs"): a mixed cluster's workload in which jobs of
 * min_gpus GPUs or more hold a given share of the GPU-hours, as the
 * clusters that train large models see.
 *
 * The ordinary jobs are drawn first (gen.c).  Their GPU-seconds split at
 * min_gpus into S (smaller jobs) and B (min_gpus or more); the large jobs
 * must add L with (B + L) / (S + B + L) = share, so
 *
 *   L = (share S - (1 - share) B) / (1 - share),
 *
 * and large jobs are drawn one after another until their GPU-seconds
 * reach L; the last one's run time is cut to meet L (to the microsecond,
 * at least one second), so the share holds on the generated jobs to
 * within that job's GPUs x 1 s.  Each large job draws its GPUs, run time,
 * model, estimate factor, user and submit time (uniform over the ordinary
 * jobs' submits) on streams of its own (fields LG_* of job k, above
 * gen.c's and gen_hpo.c's), so adding the section leaves the ordinary
 * jobs and the searches' draws as they were.  Its shape is chosen as
 * users do: the smallest tp x pp whose memory per GPU fits the GPU type
 * (llm_fit_shape()), dp the rest.
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

/* Fields of the draw streams of large job k. */
enum { LG_SUBMIT = 40, LG_GPUS, LG_RUN, LG_MODEL, LG_FACTOR, LG_USER };

/* The most large jobs one workload may hold. */
#define GEN_LARGE_MAX_JOBS 10000000u

void gen_large_default(struct gen_large *l)
{
	memset(l, 0, sizeof(*l));
	l->share = 0.5;
	l->min_gpus = 256;
	l->gpus.kind = DIST_POW2;
	l->gpus.p[0] = 256;
	l->gpus.p[1] = 1024;
	/* A median of a day: ln(86400) = 11.3667. */
	l->runtime.kind = DIST_LOGNORMAL;
	l->runtime.p[0] = 11.3667;
	l->runtime.p[1] = 1;
}

void gen_large_release(struct gen_large *l)
{
	if (!l)
		return;
	dist_release(&l->gpus);
	dist_release(&l->runtime);
	for (size_t i = 0; i < l->nmodels; i++)
		free(l->models[i]);
	free(l->models);
	free(l->model_weights);
	free(l->gpu_type);
	l->models = NULL;
	l->model_weights = NULL;
	l->gpu_type = NULL;
	l->nmodels = 0;
}

int gen_large_check(const struct gen_large *l, const char *json_path,
		    struct sim_error *err)
{
	const char *p = json_path ? json_path : "$";
	char path[512];
	double sum = 0;
	int rc;
	if (!(l->share >= 0 && l->share < 1))
		return err_set(err, "%s.share: must be at least 0 and below 1, "
			       "got '%g'", p, l->share);
	if (l->min_gpus < 1)
		return err_set(err, "%s.min_gpus: must be at least 1, got "
			       "'%" PRIu32 "'", p, l->min_gpus);
	snprintf(path, sizeof(path), "%s.gpus", p);
	if ((rc = dist_check(&l->gpus, path, err)) != 0)
		return rc;
	snprintf(path, sizeof(path), "%s.runtime", p);
	if ((rc = dist_check(&l->runtime, path, err)) != 0)
		return rc;
	if (!l->nmodels)
		return err_set(err, "%s.model: must name at least one model", p);
	for (size_t i = 0; i < l->nmodels; i++) {
		if (!(l->model_weights[i] >= 0) ||
		    !isfinite(l->model_weights[i]))
			return err_set(err, "%s.model_weights[%zu]: must not be "
				       "negative, got '%g'", p, i,
				       l->model_weights[i]);
		sum += l->model_weights[i];
	}
	if (!(sum > 0) || !isfinite(sum))
		return err_set(err, "%s.model_weights: must have a positive "
			       "sum", p);
	if (l->dp && !(l->tp && l->pp))
		return err_set(err, "%s.dp: fixes the jobs' GPUs (dp x tp x pp) "
			       "only with tp and pp, got dp '%" PRIu32 "' "
			       "alone", p, l->dp);
	return 0;
}

uint64_t gen_large_gpus(const struct gen_large *l, double v)
{
	if (l->dp && l->tp && l->pp)
		return (uint64_t)l->dp * l->tp * l->pp;
	double c = round(v);
	if (!(c >= 1))
		c = 1; /* also for NaN */
	if (c > (double)UINT32_MAX)
		c = (double)UINT32_MAX;
	uint64_t n = (uint64_t)c, k = l->gpu.per_node ? l->gpu.per_node : 1;
	n = (n + k - 1) / k * k;
	if (n < l->min_gpus)
		n = (l->min_gpus + k - 1) / k * k;
	return n;
}

/* The model's interleave, v >= 1. */
static uint32_t llm_v(const struct llm_model *m)
{
	return m->interleave ? m->interleave : 1;
}

/* The shape (tp, pp) on gpus GPUs: its memory in *need; true when it is a
 * shape of the model and fits the GPU. */
static bool shape_try(const struct llm_model *m, const struct llm_gpu *gpu,
		      uint64_t gpus, uint32_t tp, uint32_t pp,
		      struct llm_shape *sh, double *need)
{
	struct llm_memory mem;
	uint64_t q = (uint64_t)tp * pp;
	if (gpus % q || gpus / q > UINT32_MAX || m->layers % pp ||
	    m->hidden % tp || (m->heads && m->heads % tp))
		return false;
	sh->tp = tp;
	sh->pp = pp;
	sh->dp = (uint32_t)(gpus / q);
	sh->microbatches = 4 * pp; /* at least pp: the most in flight */
	sh->interleave = m->layers % (pp * llm_v(m)) ? 1 : llm_v(m);
	llm_memory(m, sh, &mem);
	*need = mem.total;
	return mem.total <= gpu->mem_bytes;
}

/* llm_fit_shape()'s walk with the section's tp or pp held. */
static int shape_held(const struct gen_large *l, const struct llm_model *m,
		      uint64_t gpus, struct llm_shape *sh, const char *prefix,
		      struct sim_error *err)
{
	const struct llm_gpu *gpu = &l->gpu;
	double least = INFINITY, need;
	uint32_t best_tp = 0, best_pp = 0, tmax = l->tp ? l->tp : gpu->per_node;
	uint64_t qmax = (uint64_t)tmax * m->layers;
	for (uint64_t q = 1; q <= qmax && q <= gpus; q++) {
		for (uint32_t tp = tmax; tp >= 1; tp--) {
			if (q % tp || (!l->tp && gpu->per_node % tp) ||
			    (l->tp && tp != l->tp) ||
			    (l->pp && q / tp != l->pp) || q / tp > m->layers)
				continue;
			need = INFINITY;
			if (shape_try(m, gpu, gpus, tp, (uint32_t)(q / tp), sh,
				      &need))
				return 0;
			if (need < least) {
				least = need;
				best_tp = tp;
				best_pp = (uint32_t)(q / tp);
			}
		}
	}
	if (!best_tp)
		return err_set(err, "%s: '%s' has no shape on %" PRIu64
			       " GPUs with%s%.0u%s%.0u (pp must divide its %u "
			       "layers, tp its hidden size and heads)", prefix,
			       m->name ? m->name : "", gpus, l->tp ? " tp " : "",
			       l->tp, l->pp ? " pp " : "", l->pp, m->layers);
	return err_set(err, "%s: '%s' fits no shape on %" PRIu64 " GPUs "
		       "of %s (%.1f GB each) with%s%.0u%s%.0u: the least "
		       "memory, %.1f GB per GPU, is at tp %u x pp %u", prefix,
		       m->name ? m->name : "", gpus,
		       gpu->name ? gpu->name : "the GPU", gpu->mem_bytes / 1e9,
		       l->tp ? " tp " : "", l->tp, l->pp ? " pp " : "", l->pp,
		       least / 1e9, best_tp, best_pp);
}

int gen_large_shape(const struct gen_large *l, const struct llm_model *m,
		    uint64_t gpus, struct llm_shape *sh, const char *prefix,
		    struct sim_error *err)
{
	int rc;
	memset(sh, 0, sizeof(*sh));
	sh->micro_batch = 1;
	sh->interleave = llm_v(m); /* 1 where pp x v does not divide l */
	if (l->tp || l->pp) {
		rc = shape_held(l, m, gpus, sh, prefix, err);
	} else {
		/* A batch whose m is at least pp whatever the shape; the
		 * message, ".model: ...", under the caller's prefix. */
		struct sim_error e2;
		static const char key[] = ".model: ";
		rc = llm_fit_shape(m, &l->gpu, gpus, gpus * m->layers, sh, "",
				   &e2);
		if (rc) {
			const char *msg = e2.msg;
			if (!strncmp(msg, key, sizeof(key) - 1))
				msg += sizeof(key) - 1;
			return err_setc(err, rc, "%s: %s", prefix, msg);
		}
	}
	if (rc)
		return rc;
	sh->microbatches = l->microbatches ? l->microbatches
		: workload_llm_default_microbatches(sh->pp);
	return 0;
}

/* The model called name: the experiment's, else a preset; NULL if none. */
static const struct llm_model *find_model(const struct trace_opts *o,
					  const char *name)
{
	for (size_t i = 0; i < o->nmodels; i++)
		if (o->models[i].name && strcmp(o->models[i].name, name) == 0)
			return &o->models[i];
	return llm_preset_find(name);
}

/* The ordinary jobs' GPU-seconds: below min_gpus in *small, else *big. */
static void gpu_seconds(const struct workload *w, uint32_t min_gpus,
			double *small, double *big)
{
	*small = *big = 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		double s = (double)j->gpus * ((double)j->run / SIM_SEC);
		if (j->gpus >= min_gpus)
			*big += s;
		else
			*small += s;
	}
}

/* What the large jobs draw from. */
struct large_draw {
	struct gen_dist gpus, run, model, factor;
	struct dist model_dist;  /* DIST_DISCRETE over the model indices */
	double target;           /* GPU-seconds the large jobs must add */
	sim_time_t span;         /* submits are uniform in [0, span] */
};

/* Large job k into j: its draws, shape and fields; *acc (GPU-seconds so
 * far) grows by its own. */
static int large_job(const struct gen_spec *g, const struct trace_opts *o,
		     struct large_draw *ld, gsl_rng *r, uint32_t k,
		     struct workload *w, struct job *j, double *acc,
		     struct sim_error *err)
{
	const struct gen_large *l = &g->large;
	double v = gen_field(&ld->gpus, r, k, LG_GPUS);
	double run = gen_field(&ld->run, r, k, LG_RUN);
	size_t mi = (size_t)gen_field(&ld->model, r, k, LG_MODEL);
	double factor = gen_field(&ld->factor, r, k, LG_FACTOR);
	uint64_t gpus = gen_large_gpus(l, v);
	const struct llm_model *m = find_model(o, l->models[mi]);
	char prefix[96];
	struct llm_shape sh;
	sim_time_t rt;
	int rc;

	snprintf(prefix, sizeof(prefix), "generator: large job %" PRIu32
		 " (id %zu, %" PRIu64 " GPUs)", k + 1, w->n + 1, gpus);
	if (!m)
		return err_set(err, "%s: unknown model '%s'", prefix,
			       l->models[mi]);
	if ((rc = gen_large_shape(l, m, gpus, &sh, prefix, err)) != 0)
		return rc;
	if (sh.tp > UINT16_MAX || sh.pp > UINT16_MAX)
		return err_set(err, "%s: tp %u x pp %u beyond %u", prefix,
			       sh.tp, sh.pp, UINT16_MAX);
	if (seconds_to_time(run, &rt) != 0 || rt > SIM_TIME_INPUT_MAX)
		return err_set(err, "%s: run time '%g' is out of range", prefix,
			       run);
	if (rt < SIM_SEC)
		rt = SIM_SEC;
	double left = ld->target - *acc;
	if ((double)gpus * ((double)rt / SIM_SEC) > left) {
		double cut = ceil(left / (double)gpus * SIM_SEC);
		rt = cut < SIM_SEC ? SIM_SEC : (sim_time_t)cut;
	}
	*acc += (double)gpus * ((double)rt / SIM_SEC);
	if (!(factor > 1))
		factor = 1; /* also for NaN */
	double est = ceil((double)rt / SIM_SEC * factor);
	if (!(est <= (double)(SIM_TIME_INPUT_MAX / SIM_SEC)))
		return err_set(err, "%s: estimate '%g' is out of range", prefix,
			       est);

	memset(j, 0, sizeof(*j));
	if ((rc = workload_llm_add(w, o->models, o->nmodels, l->models[mi],
				   sh.microbatches, 1, sh.interleave, prefix,
				   &j->llm, err)) != 0)
		return rc;
	gen_rng_stream(r, k, LG_SUBMIT);
	j->submit = (sim_time_t)floor(gsl_rng_uniform(r) * (double)ld->span);
	gen_rng_stream(r, k, LG_USER);
	j->user = (int32_t)gsl_rng_uniform_int(r, g->users ? g->users : 1);
	j->id = (int64_t)w->n + 1;
	j->run = rt;
	j->estimate = (sim_time_t)est * SIM_SEC;
	if (j->estimate < rt)
		j->estimate = rt;
	j->flags = JOB_HAS_ESTIMATE;
	j->gpus = (uint32_t)gpus;
	uint64_t cpus = gpus * g->cpus_per_gpu;
	j->cpus = cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)cpus;
	j->tp = (uint16_t)sh.tp;
	j->pp = (uint16_t)sh.pp;
	j->job_class = JOB_CLASS_NONE;
	j->group = -1;
	j->state = JOB_FUTURE;
	j->start = SIM_TIME_NONE;
	j->end = SIM_TIME_NONE;
	return 0;
}

/* The GPU-seconds the large jobs must add, or an error. */
static int large_target(const struct gen_large *l, const struct workload *w,
			double *target, struct sim_error *err)
{
	double small, big;
	gpu_seconds(w, l->min_gpus, &small, &big);
	*target = 0;
	if (l->share == 0)
		return 0;
	if (!(small + big > 0))
		return err_set(err, "generator: large.share: the ordinary jobs "
			       "hold no GPU-hours to take a share of (give "
			       "them gpus)");
	*target = (l->share * small - (1 - l->share) * big) / (1 - l->share);
	if (*target < 0)
		return err_set(err, "generator: large.share: the ordinary jobs "
			       "of %" PRIu32 " GPUs or more already hold %.2f%% "
			       "of the GPU-hours, more than share '%g'",
			       l->min_gpus, 100 * big / (small + big),
			       l->share);
	return 0;
}

int gen_large_jobs(const struct gen_spec *g, uint64_t seed,
		   const struct trace_opts *o, struct workload *w,
		   struct sim_error *err)
{
	const struct gen_large *l = &g->large;
	struct large_draw ld = { 0 };
	double acc = 0;
	size_t cap = w->n;
	int rc = large_target(l, w, &ld.target, err);
	if (rc)
		return rc;
	ld.span = w->n ? w->jobs[w->n - 1].submit : 0;
	ld.model_dist.kind = DIST_CONSTANT;
	if (l->nmodels > 1) {
		ld.model_dist.kind = DIST_DISCRETE;
		ld.model_dist.nvalues = l->nmodels;
		ld.model_dist.values = xcalloc(l->nmodels, sizeof(double));
		ld.model_dist.weights = xcalloc(l->nmodels, sizeof(double));
		for (size_t i = 0; i < l->nmodels; i++) {
			ld.model_dist.values[i] = (double)i;
			ld.model_dist.weights[i] = l->model_weights[i];
		}
	}
	gen_dist_init(&ld.gpus, &l->gpus);
	gen_dist_init(&ld.run, &l->runtime);
	gen_dist_init(&ld.model, &ld.model_dist);
	gen_dist_init(&ld.factor, &g->estimate_factor);
	gsl_rng *r = gen_rng_new(seed);
	for (uint32_t k = 0; acc < ld.target && !rc; k++) {
		if (k >= GEN_LARGE_MAX_JOBS || w->n >= UINT32_MAX - 1) {
			rc = err_set(err, "generator: large: more than %u large "
				     "jobs would be needed for share '%g': "
				     "give larger gpus or runtime",
				     GEN_LARGE_MAX_JOBS, l->share);
			break;
		}
		if (w->n == cap) {
			cap = cap ? 2 * cap : 16;
			w->jobs = xrealloc(w->jobs, cap * sizeof(*w->jobs));
		}
		rc = large_job(g, o, &ld, r, k, w, &w->jobs[w->n], &acc, err);
		if (!rc)
			w->n++;
	}
	gsl_rng_free(r);
	gen_dist_free(&ld.gpus);
	gen_dist_free(&ld.run);
	gen_dist_free(&ld.model);
	gen_dist_free(&ld.factor);
	dist_release(&ld.model_dist);
	return rc;
}
