/*
 * srtf: shortest remaining time first, preemptive.
 *
 * What it does: at every scheduling point it ranks every job that is
 * running or waiting by its remaining time - its estimate minus the work
 * it has done (or kept, after a preemption) - shortest first, ties by
 * submit time then id, and hands the ranking to the engine's preemptive
 * allocation (sim_apply_ranking): resources go down the ranking while
 * they last, running jobs that lose are preempted, waiting ones that win
 * start.  Preemption keeps work up to the last checkpoint and costs a
 * restore on restart, as the experiment's "preemption" settles.
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
#include <stdlib.h>

#include "clustersim/policy.h"

/* A job and its key: qsort has no context argument. */
struct entry {
	double left;           /* remaining time by estimate, microseconds */
	const struct job *job;
};

static int by_left(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	if (a->left != b->left)
		return a->left < b->left ? -1 : 1;
	if (a->job->submit != b->job->submit)
		return a->job->submit < b->job->submit ? -1 : 1;
	return (a->job->id > b->job->id) - (a->job->id < b->job->id);
}

static void srtf_schedule(struct sim *sim, void *state)
{
	(void)state;
	size_t nrun = sim_running_len(sim), nq = sim_queue_len(sim);
	size_t n = nrun + nq;
	if (nq == 0)
		return;
	struct entry *e = malloc(n * sizeof(*e));
	const struct job **ranked = malloc(n * sizeof(*ranked));
	if (!e || !ranked) {
		free(e);
		free(ranked);
		sim_start_head(sim); /* out of memory: degrade to fcfs */
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct job *j = i < nrun ? sim_running_at(sim, i)
					       : sim_queue_at(sim, i - nrun);
		double left = (double)j->estimate - sim_job_work_done(sim, j);
		e[i] = (struct entry){ left > 0 ? left : 0, j };
	}
	qsort(e, n, sizeof(*e), by_left);
	for (size_t i = 0; i < n; i++)
		ranked[i] = e[i].job;
	sim_apply_ranking(sim, ranked, n);
	free(e);
	free(ranked);
}

CLUSTERSIM_POLICY(srtf,
	.summary = "shortest remaining time first (by estimate), preemptive",
	.schedule = srtf_schedule);
