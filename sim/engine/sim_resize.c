/*
 * Adaptive jobs: the engine calls that change a Pollux-style job's GPUs
 * and batch size (sim_job_resize) and tell a policy what a configuration
 * would take (sim_job_time_to_target), over the goodput model of
 * sim/speed/goodput.h.  A job's work is counted once, in its reference
 * configuration (the trace's); a resized job runs at the model's rate of
 * its new one (speed.c), and a running job changes only through a
 * preemption, so the restart cost is the experiment's restore overhead,
 * as in the Pollux artifact's simulator (its 30 s at every
 * reallocation).
 */
#include "engine/sim_impl.h"

#include <math.h>

#include "speed/goodput.h"
#include "base/util.h"

/* Is (gpus, batch) a configuration the job may take?  Its batch rule
 * in b. */
static bool shape_ok(const struct sim *s, const struct job *j,
		     uint32_t gpus, uint32_t batch, struct goodput_batch *b)
{
	if (!j->goodput_app || gpus == 0 || gpus > sim_capacity_gpus(s) ||
	    gpus > goodput_max_gpus(j->goodput_app, batch))
		return false;
	return goodput_batch(j->goodput_app, batch, gpus, b, NULL) == 0;
}

int sim_job_resize(struct sim *s, const struct job *cj, uint32_t gpus,
		   uint32_t batch)
{
	struct goodput_batch b;
	if (!own_job(s, cj) || cj->state != JOB_PENDING || !s->in_schedule ||
	    !shape_ok(s, cj, gpus, batch, &b)) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	if (cj->gpus != gpus || cj->batch != batch)
		sim_queue_reshape(s, &s->jobs[cj->idx], gpus, batch);
	return 0;
}

double sim_job_time_to_target(const struct sim *s, const struct job *j,
			      uint32_t gpus, uint32_t batch)
{
	struct goodput_batch b, ref;
	if (!check_job(s, j, "sim_job_time_to_target") ||
	    !shape_ok(s, j, gpus, batch, &b) ||
	    goodput_batch(j->goodput_app, j->ref_batch, j->ref_gpus, &ref,
			  NULL) != 0 || j->run <= 0)
		return NAN;
	double left = 1.0 - sim_job_work_done(s, j) / (double)j->run;
	if (left < 0)
		left = 0;
	/* Its work left, at the rate of cur packed against ref. */
	uint32_t g[64];
	size_t n = 0;
	for (uint32_t r = gpus; r && n < 64; n++) {
		g[n] = r < GOODPUT_NODE_GPUS ? r : GOODPUT_NODE_GPUS;
		r -= g[n];
	}
	double rate = goodput_rate_adapted(j->goodput_app, &ref, j->ref_gpus,
					   &b, g, n);
	return left * (double)j->run / SIM_SEC / rate;
}
