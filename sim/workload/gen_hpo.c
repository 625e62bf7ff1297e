/*
 * The generator of hyperparameter searches (workload/hpo.h): searches
 * submitted among the generated ordinary jobs, each a group of trials
 * with drawn learning curves, and the rung ladders and brackets that
 * ASHA and asynchronous Hyperband stop them at.
 *
 * Draws (Philox keyed by the run's seed, gen_rng.h), each on a stream of
 * its own so that none moves when another changes: the gap before
 * search s on (job s, field HPO_F_GAP); trial i's a, b, c and the noise
 * of its reports on (job i, fields HPO_F_CURVE ..), i counted over all
 * searches.  The fields lie above the ordinary jobs' (gen.c uses 0 .. 5),
 * so adding searches leaves every ordinary job as it was.
 */
#include "workload/workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "base/util.h"
#include "workload/gen_rng.h"

/* Fields of the draw streams (above gen.c's). */
enum { HPO_F_GAP = 32, HPO_F_CURVE = 33, HPO_F_NOISE = 34 };

/* The most epochs a trial may have: keeps eta^K and the work far from any
 * overflow. */
#define HPO_MAX_EPOCHS 1000000u

const char *const hpo_mode_names[HPO_NMODES] = {
	[HPO_ASHA] = "asha",
	[HPO_HYPERBAND] = "hyperband",
};
_Static_assert(sizeof(hpo_mode_names) / sizeof(hpo_mode_names[0]) ==
	       HPO_NMODES, "one name per mode");

void hpo_spec_default(struct hpo_spec *h)
{
	memset(h, 0, sizeof(*h));
	h->count = 1;
	h->trials = 27;
	h->gpus = 1;
	h->max_epochs = 27;
	h->min_epochs = 1;
	h->eta = 3;
	h->epoch_s = 600;
	h->interarrival_s = 3600;
	h->mode = HPO_ASHA;
	h->a[0] = 0.05, h->a[1] = 0.35;
	h->b[0] = 0.5, h->b[1] = 1.5;
	h->c[0] = 0.3, h->c[1] = 1.2;
	h->noise = 0.01;
}

/* A [min, max] range: finite, min <= max, min >= lo. */
static int range_check(const double *r, double lo, const char *path,
		       const char *key, struct sim_error *err)
{
	if (!isfinite(r[0]) || !isfinite(r[1]) || r[0] < lo || r[1] < r[0])
		return err_set(err, "%s.%s: must be [min, max] with %g <= min "
			       "<= max, got '[%g, %g]'", path, key, lo, r[0],
			       r[1]);
	return 0;
}

int hpo_spec_check(const struct hpo_spec *h, const char *json_path,
		   struct sim_error *err)
{
	const char *p = json_path ? json_path : "$";
	if (h->eta < 2)
		return err_set(err, "%s.eta: must be >= 2, got '%u'", p,
			       h->eta);
	if (h->max_epochs < 1 || h->max_epochs > HPO_MAX_EPOCHS)
		return err_set(err, "%s.max_epochs: must be 1 .. %u, got '%u'",
			       p, HPO_MAX_EPOCHS, h->max_epochs);
	if (h->min_epochs < 1 || h->min_epochs > h->max_epochs)
		return err_set(err, "%s.min_epochs: must be 1 .. max_epochs "
			       "('%u'), got '%u'", p, h->max_epochs,
			       h->min_epochs);
	if (!(h->epoch_s > 0) || !isfinite(h->epoch_s) ||
	    h->epoch_s * h->max_epochs > 1e9)
		return err_set(err, "%s.epoch_s: must be > 0 with epoch_s x "
			       "max_epochs <= 1e9 s, got '%g'", p, h->epoch_s);
	if (!(h->interarrival_s > 0) || !isfinite(h->interarrival_s) ||
	    h->interarrival_s > 1e9)
		return err_set(err, "%s.interarrival_s: must be > 0 and <= "
			       "1e9, got '%g'", p, h->interarrival_s);
	if (!(h->noise >= 0) || !isfinite(h->noise))
		return err_set(err, "%s.noise: must be >= 0, got '%g'", p,
			       h->noise);
	int rc = range_check(h->a, -INFINITY, p, "a", err);
	if (!rc)
		rc = range_check(h->b, -INFINITY, p, "b", err);
	if (!rc)
		rc = range_check(h->c, 0, p, "c", err);
	if (rc)
		return rc;
	if ((uint64_t)h->count * h->trials > UINT32_MAX / 2)
		return err_set(err, "%s: count x trials must be at most %u, "
			       "got '%llu'", p, UINT32_MAX / 2,
			       (unsigned long long)h->count * h->trials);
	return 0;
}

uint32_t hpo_ladder(const struct hpo_spec *h, uint32_t *rungs)
{
	uint32_t k = 0;
	uint64_t r = h->min_epochs;
	while (r < h->max_epochs && k < HPO_MAX_RUNGS - 1) {
		rungs[k++] = (uint32_t)r;
		r *= h->eta;
	}
	rungs[k] = h->max_epochs;
	return k;
}

uint64_t hpo_bracket_size(const struct hpo_spec *h, uint32_t k, uint32_t b)
{
	uint32_t s = k - b;
	uint64_t p = 1;
	for (uint32_t i = 0; i < s; i++)
		p *= h->eta; /* eta^s < max_epochs (hpo_ladder) */
	return ((uint64_t)(k + 1) * p + s) / (s + 1);
}

uint32_t hpo_trial_bracket(const struct hpo_spec *h, uint32_t t)
{
	if (h->mode != HPO_HYPERBAND)
		return 0;
	uint32_t rungs[HPO_MAX_RUNGS], k = hpo_ladder(h, rungs);
	uint64_t round = 0;
	for (uint32_t b = 0; b <= k; b++)
		round += hpo_bracket_size(h, k, b);
	uint64_t at = t % round;
	for (uint32_t b = 0; b < k; b++) {
		uint64_t n = hpo_bracket_size(h, k, b);
		if (at < n)
			return b;
		at -= n;
	}
	return k;
}

double hpo_curve(const struct hpo_trial *t, double e)
{
	return t->a + t->b * pow(e, -t->c);
}

/* Trial i's curve and reports (global index i, drawn on its streams). */
static void draw_trial(const struct hpo_set *s, gsl_rng *r, uint32_t i,
		       struct hpo_trial *t)
{
	const struct hpo_spec *h = &s->spec;
	gen_rng_stream(r, i, HPO_F_CURVE);
	t->a = h->a[0] + (h->a[1] - h->a[0]) * gsl_rng_uniform(r);
	t->b = h->b[0] + (h->b[1] - h->b[0]) * gsl_rng_uniform(r);
	t->c = h->c[0] + (h->c[1] - h->c[0]) * gsl_rng_uniform(r);
	gen_rng_stream(r, i, HPO_F_NOISE);
	for (uint32_t k = 0; k <= s->nrungs; k++) {
		double z = h->noise > 0 ? gsl_ran_gaussian(r, h->noise) : 0;
		t->loss[k] = hpo_curve(t, s->rungs[k]) + z;
	}
}

/* The job of trial t (global index i) of search se. */
static void trial_job(const struct hpo_set *s, const struct hpo_search *se,
		      uint32_t i, uint32_t cpus_per_gpu, uint32_t users,
		      struct job *j)
{
	const struct hpo_spec *h = &s->spec;
	double work = ceil(h->epoch_s * SIM_SEC) * h->max_epochs;
	uint64_t cpus = (uint64_t)h->gpus * cpus_per_gpu;
	memset(j, 0, sizeof(*j));
	j->id = s->first_id + i;
	j->submit = se->submit;
	j->run = (sim_time_t)work;
	j->estimate = j->run;
	j->flags = JOB_HAS_ESTIMATE;
	j->cpus = cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)cpus;
	j->gpus = h->gpus;
	j->job_class = JOB_CLASS_NONE;
	uint64_t u = (uint64_t)users + s->trials[i].search;
	j->user = u > INT32_MAX ? INT32_MAX : (int32_t)u;
	j->group = -1;
	j->state = JOB_FUTURE;
	j->start = SIM_TIME_NONE;
	j->end = SIM_TIME_NONE;
}

int hpo_gen_trials(const struct hpo_spec *h, uint64_t seed,
		   uint32_t cpus_per_gpu, uint32_t users, struct workload *w,
		   struct sim_error *err)
{
	int rc = hpo_spec_check(h, "$.workload.generate.searches", err);
	if (rc)
		return rc;
	uint64_t n = (uint64_t)h->count * h->trials;
	if (w->n + n > UINT32_MAX)
		return err_set(err, "generator: %zu jobs and %llu trials are "
			       "more than 2^32 - 1 jobs", w->n,
			       (unsigned long long)n);
	struct hpo_set *s = xcalloc(1, sizeof(*s));
	s->spec = *h;
	s->nrungs = hpo_ladder(h, s->rungs);
	s->nsearches = h->count;
	s->ntrials = (uint32_t)n;
	s->searches = xcalloc(h->count ? h->count : 1, sizeof(*s->searches));
	s->trials = xcalloc(n ? n : 1, sizeof(*s->trials));
	s->first_id = (int64_t)w->n + 1;
	gsl_rng *r = gen_rng_new(seed);
	sim_time_t t = 0;
	for (uint32_t k = 0; k < h->count; k++) {
		struct hpo_search *se = &s->searches[k];
		gen_rng_stream(r, k, HPO_F_GAP);
		t += (sim_time_t)llround(gsl_ran_exponential(r,
					 h->interarrival_s) * SIM_SEC);
		se->submit = t;
		se->first = k * h->trials;
		se->ntrials = h->trials;
		for (uint32_t i = 0; i < h->trials; i++) {
			struct hpo_trial *tr = &s->trials[se->first + i];
			tr->search = k;
			tr->trial = i;
			tr->bracket = hpo_trial_bracket(h, i);
			draw_trial(s, r, se->first + i, tr);
		}
	}
	gsl_rng_free(r);
	w->jobs = xrealloc(w->jobs, (w->n + n ? w->n + n : 1) *
			   sizeof(*w->jobs));
	for (uint32_t i = 0; i < n; i++)
		trial_job(s, &s->searches[s->trials[i].search], i,
			  cpus_per_gpu, users, &w->jobs[w->n + i]);
	w->n += n;
	hpo_set_free(w->hpo);
	w->hpo = s;
	return 0;
}

void hpo_set_free(struct hpo_set *s)
{
	if (!s)
		return;
	free(s->searches);
	free(s->trials);
	free(s);
}
