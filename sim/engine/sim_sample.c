/*
 * The engine's timeline: a sample of the cluster's state at every period
 * and at the run's end (struct sample), in the statistics phase, last at
 * its timestamp.  The timeline keeps under its size limit by thinning:
 * an automatic period doubles, an explicit one that needs more samples is
 * an error.  Moved out of sim.c, whose loop calls it.
 */
#include "engine/sim_impl.h"

#include <math.h>

#include "base/util.h"

void sim_take_sample(struct sim *s)
{
	xgrow(&s->samples, &s->scap, s->nsamples + 1, sizeof(*s->samples));
	struct sample *x = &s->samples[s->nsamples++];
	double cap = (double)s->capacity_cpus;
	double dt = (double)(s->now - s->last_sample_t) / (double)SIM_SEC;
	x->t = s->now;
	x->busy_cpus = s->busy_cpus;
	x->util = (double)s->busy_cpus / cap;
	x->util_avg = dt > 0 ? (s->counters.busy_area - s->area_at_sample) /
				       (cap * dt)
			     : x->util;
	x->running = (uint32_t)s->nrun;
	x->queued = (uint32_t)s->qlen;
	x->queued_cpus = s->queued_cpus;
	x->busy_gpus = s->busy_gpus;
	x->gpu_util_avg = !s->capacity_gpus ? NAN
		: dt > 0 ? (s->counters.gpu_busy_area - s->gpu_area_at_sample) /
				   ((double)s->capacity_gpus * dt)
			 : (double)s->busy_gpus / (double)s->capacity_gpus;
	s->area_at_sample = s->counters.busy_area;
	s->gpu_area_at_sample = s->counters.gpu_busy_area;
	s->last_sample_t = s->now;
}


/* Merges sample b's time-weighted averages into a's (a later one) over
 * both their spans. */
static void sample_merge(struct sample *a, const struct sample *b,
			 sim_time_t prev_t)
{
	double da = (double)(a->t - b->t), db = (double)(b->t - prev_t);
	if (da + db <= 0)
		return;
	a->util_avg = (a->util_avg * da + b->util_avg * db) / (da + db);
	a->gpu_util_avg = (a->gpu_util_avg * da + b->gpu_util_avg * db) /
			  (da + db);
}

/*
 * The timeline is full (an odd count, every sample on the grid t0 + k
 * period): keep every other one, from the first, each kept one averaging
 * over the one dropped before it, and double the period.  The last
 * sample has an even index, so the new grid goes on from it.
 */
static void samples_thin(struct sim *s)
{
	size_t n = s->nsamples, k = 1;
	for (size_t i = 2; i < n; i += 2, k++) {
		struct sample x = s->samples[i];
		sample_merge(&x, &s->samples[i - 1], s->samples[i - 2].t);
		s->samples[k] = x;
	}
	s->nsamples = k;
	s->interval *= 2;
}

/* An explicit period needs more samples than the limit. */
int sim_too_many_samples(const struct sim *s, struct sim_error *err)
{
	char iv[32];
	fmt_time(iv, s->interval);
	return err_setc(err, -SIM_EINPUT, "$.timeline_interval: '%s' s needs "
			"more than %zu timeline samples (the limit) over the "
			"simulated span: give a longer interval, 0 (automatic), "
			"or raise $.limits.timeline_samples", iv,
			s->max_samples);
}

/* The most samples the timeline holds before it is thinned: odd (see
 * samples_thin), so that the last sample of the run fits too. */
size_t sim_samples_cap(const struct sim *s)
{
	return s->max_samples & 1 ? s->max_samples : s->max_samples - 1;
}

/*
 * A timeline sample at t, and the next one's event while jobs are left.
 * Keeps the count below the limit: an automatic period doubles, an
 * explicit one that needs more samples is an error.
 */
int sim_sample_event(struct sim *s, sim_time_t t, struct sim_error *err)
{
	sim_take_sample(s);
	if (s->ended >= s->njobs)
		return 0;
	if (s->nsamples >= sim_samples_cap(s)) {
		if (s->cfg.sample_interval > 0)
			return sim_too_many_samples(s, err);
		samples_thin(s);
	}
	if (s->interval <= SIM_TIME_HORIZON - t)
		evq_push(&s->q, t + s->interval, EV_SAMPLE, 0);
	return 0;
}
