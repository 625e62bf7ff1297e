/*
 * optimus: greedy GPU allocation by the marginal reduction of estimated
 * remaining time (Optimus, with the oracle of the Pollux artifact's
 * Optimus+Oracle baseline).
 *
 * What it does: at every scheduling point every active job of the
 * goodput model (running or waiting; sim_job_resize) is given GPUs
 * afresh, with its batch size kept.  First one GPU each, in submit
 * order, while GPUs last; then, one GPU at a time, to the job whose
 * remaining time drops the most from one GPU more:
 *
 *   gain(j, r) = T_j(r) - T_j(r + 1),
 *
 * T_j(r) its time to target on r GPUs packed into nodes of 4
 * (sim_job_time_to_target: the oracle's remaining work times the
 * measured step time), ties to the earlier submit, until the GPUs run
 * out or no job gains.  A job's GPUs are capped by its application
 * (each GPU at least its smallest measured batch; ncf one GPU, as the
 * artifact caps it).  Then a running job whose count changed is
 * preempted and restarted at its new width (it pays the experiment's
 * restore overhead: the restart cost), jobs given 0 GPUs wait, and the
 * others start, fewest GPUs first.  Jobs without a goodput model (whose
 * width cannot change) keep the GPUs they hold, and wait in the queue
 * for what the adaptive jobs leave, started in queue order wherever
 * they fit.
 *
 * Source: Peng et al., "Optimus: An Efficient Dynamic Resource Scheduler
 * for Deep Learning Clusters", EuroSys'18, section 4 (greedy allocation
 * by marginal gain); the rules as the Pollux artifact applies them
 * (petuum/adaptdl, osdi21-artifact, simulator/optimus.py: min_replicas 1,
 * gain = (step(r) - step(r + 1)) x remaining iterations, placement of the
 * jobs in order of their GPU counts; simulator.py get_optimus_job_info:
 * max_replicas = batch / the smallest local batch, ncf 1).  The artifact's
 * remaining iterations times step time is T(r) here.
 *
 * Parameters: "placement" only, as every policy.
 *
 * Example (4 GPUs, no restart cost): two equal cifar10 jobs of batch
 * 2048 arrive together.  Each gets 1 GPU; the third goes to the first
 * (equal gains: submit order), the fourth to the second, whose gain
 * T(1) - T(2) beats the first's T(2) - T(3).  Both run on 2 GPUs and end
 * together (tests/test_adaptive.c works the figures).
 */
#include <math.h>
#include <stdlib.h>

#include "clustersim/policy.h"

/* Per job: this point's choice. */
struct optimus_job {
	uint32_t gpus;  /* GPUs given this point */
	double gain;    /* time saved by one GPU more; 0 = none */
};

/* The policy's scratch: the active jobs, in submit order. */
struct optimus {
	const struct job **jobs;
	size_t n, cap;
};

/* Collects the active jobs (running, then waiting) by submit order. */
static int by_idx(const void *a, const void *b)
{
	const struct job *x = *(const struct job *const *)a;
	const struct job *y = *(const struct job *const *)b;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static bool collect(struct sim *sim, struct optimus *o)
{
	size_t nr = sim_running_len(sim), nq = sim_queue_len(sim);
	if (!clustersim_grow(&o->jobs, &o->cap, nr + nq, sizeof(*o->jobs)))
		return false;
	o->n = 0;
	for (size_t i = 0; i < nr; i++)
		if (sim_running_at(sim, i)->goodput_app)
			o->jobs[o->n++] = sim_running_at(sim, i);
	for (size_t i = 0; i < nq; i++)
		if (sim_queue_at(sim, i)->goodput_app)
			o->jobs[o->n++] = sim_queue_at(sim, i);
	if (o->n > 1)
		qsort(o->jobs, o->n, sizeof(*o->jobs), by_idx);
	return true;
}

static double gain_of(struct sim *sim, const struct job *j, uint32_t r)
{
	double a = sim_job_time_to_target(sim, j, r, j->batch);
	double b = sim_job_time_to_target(sim, j, r + 1, j->batch);
	return isfinite(a) && isfinite(b) && a > b ? a - b : 0;
}

/* The greedy allocation: every active job's gpus, out of the GPUs that
 * running jobs without a model do not hold. */
static void allocate(struct sim *sim, struct optimus *o)
{
	uint64_t left = sim_capacity_gpus(sim);
	for (size_t i = 0; i < sim_running_len(sim); i++) {
		const struct job *j = sim_running_at(sim, i);
		if (!j->goodput_app)
			left -= j->gpus < left ? j->gpus : left;
	}
	for (size_t i = 0; i < o->n; i++) {
		struct optimus_job *s = sim_job_state(sim, o->jobs[i]);
		s->gpus = left >= 1 ? 1 : 0;
		left -= s->gpus;
		s->gain = s->gpus ? gain_of(sim, o->jobs[i], 1) : 0;
	}
	while (left > 0) {
		struct optimus_job *best = NULL;
		const struct job *bj = NULL;
		for (size_t i = 0; i < o->n; i++) {
			struct optimus_job *s = sim_job_state(sim, o->jobs[i]);
			if (s->gain > 0 && (!best || s->gain > best->gain)) {
				best = s;
				bj = o->jobs[i];
			}
		}
		if (!best)
			break;
		best->gpus++;
		left--;
		best->gain = gain_of(sim, bj, best->gpus);
	}
}

/* Fewest GPUs first, then submit order. */
static int by_gpus(const void *a, const void *b, void *sim)
{
	const struct job *x = *(const struct job *const *)a;
	const struct job *y = *(const struct job *const *)b;
	uint32_t gx = ((struct optimus_job *)sim_job_state(sim, x))->gpus;
	uint32_t gy = ((struct optimus_job *)sim_job_state(sim, y))->gpus;
	if (gx != gy)
		return gx < gy ? -1 : 1;
	return by_idx(a, b);
}

/* An insertion sort by by_gpus (qsort has no context argument in C11). */
static void sort_by_gpus(struct sim *sim, struct optimus *o)
{
	for (size_t i = 1; i < o->n; i++) {
		const struct job *j = o->jobs[i];
		size_t k = i;
		while (k > 0 && by_gpus(&o->jobs[k - 1], &j, sim) > 0) {
			o->jobs[k] = o->jobs[k - 1];
			k--;
		}
		o->jobs[k] = j;
	}
}

static void optimus_schedule(struct sim *sim, void *state)
{
	struct optimus *o = state;
	if (!collect(sim, o)) {
		sim_start_head(sim); /* out of memory: degrade */
		return;
	}
	allocate(sim, o);
	/* Running jobs whose width changed stop first. */
	for (size_t i = 0; i < o->n; i++) {
		const struct job *j = o->jobs[i];
		struct optimus_job *s = sim_job_state(sim, j);
		if (j->state == JOB_RUNNING && s->gpus != j->gpus)
			sim_job_preempt(sim, j);
	}
	sort_by_gpus(sim, o);
	for (size_t i = 0; i < o->n; i++) {
		const struct job *j = o->jobs[i];
		struct optimus_job *s = sim_job_state(sim, j);
		if (j->state != JOB_PENDING || s->gpus == 0)
			continue;
		if (sim_job_resize(sim, j, s->gpus, j->batch) == 0 &&
		    sim_job_fits(sim, j))
			sim_job_start(sim, j);
	}
	/* The others, in queue order, where they fit (the list changes as
	 * jobs start). */
	for (size_t i = 0; i < sim_queue_len(sim);) {
		const struct job *j = sim_queue_at(sim, i);
		if (!j->goodput_app && sim_job_fits(sim, j) &&
		    sim_job_start(sim, j) == 0)
			continue;
		i++;
	}
}

static void optimus_fini(struct sim *sim, void *state)
{
	(void)sim;
	struct optimus *o = state;
	free(o->jobs);
}

CLUSTERSIM_POLICY(optimus,
	.summary = "Optimus with an oracle: GPUs by the marginal reduction "
		   "of remaining time, adaptive jobs resized every round",
	.state_size = sizeof(struct optimus),
	.job_state_size = sizeof(struct optimus_job),
	.fini = optimus_fini,
	.schedule = optimus_schedule);
