/*
 * srtf: shortest remaining time first, preemptive.
 *
 * What it does: at every scheduling point where a job waits, it ranks
 * every job that is running or waiting by its remaining time - its
 * estimate minus the work it has done (or kept, after a preemption) -
 * shortest first, ties by submit time then id (sim_rank_by, the engine's
 * preemptive allocation): resources go down the ranking while they last,
 * running jobs that lose are preempted, waiting ones that win start.
 * Preemption keeps work up to the last checkpoint and costs a restore on
 * restart, as the experiment's "preemption" settles.
 * Remaining time is by estimate, so with exact estimates (the GPU traces)
 * this is the clairvoyant SRTF that Tiresias and Gandiva compare against.
 *
 * Source: Schrage, "A proof of the optimality of the shortest remaining
 * processing time discipline", Operations Research 1968; as the
 * clairvoyant baseline of GPU-cluster schedulers, Gu et al., "Tiresias",
 * NSDI 2019, section 6.
 *
 * Parameters: none (and "placement", as every policy).
 *
 * Example (one GPU): A (0 s, 100 s) runs.  B (10 s, 20 s) arrives: A has
 * 90 s left, B 20 s: B preempts A and runs 10..30; A resumes at 30 and,
 * with no checkpoint loss or restore cost, ends at 120.
 */
#include "clustersim/policy.h"

/* Remaining time by estimate, microseconds: the ranking's key. */
static double remaining(struct sim *sim, void *state, const struct job *j)
{
	(void)state;
	double left = (double)j->estimate - sim_job_work_done(sim, j);
	return left > 0 ? left : 0;
}

static void srtf_schedule(struct sim *sim, void *state)
{
	(void)state;
	if (sim_queue_len(sim) == 0)
		return; /* nobody waits: nothing to preempt for */
	sim_rank_by(sim, remaining);
}

CLUSTERSIM_POLICY(srtf,
	.summary = "shortest remaining time first (by estimate), preemptive",
	.schedule = srtf_schedule);
