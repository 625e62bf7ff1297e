/*
 * srtf: shortest remaining time first, preemptive.
 *
 * What it does: at every scheduling point it ranks every job that is
 * running or waiting by its remaining time - its estimate minus the work
 * it has done (or kept, after a preemption) - shortest first, ties by
 * submit time then id.  Walking that ranking it gives each job the
 * resources it asks for while they last (a job that does not fit is
 * skipped, not a barrier).  Running jobs that did not make the cut are
 * preempted; waiting jobs that did are started.  Preemption keeps work up
 * to the last checkpoint and costs a restore on restart, as the
 * experiment's "preemption" settles.  Remaining time is by estimate, so
 * with exact estimates (the GPU traces) this is the clairvoyant SRTF that
 * Tiresias and Gandiva compare against.
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

/* qsort has no context argument: rank entries carry their key. */
struct entry {
	double left;
	const struct job *job;
	size_t i;
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
	char *keep = calloc(n ? n : 1, 1);
	if (!e || !keep) {
		free(e);
		free(keep);
		sim_start_head(sim); /* out of memory: degrade to fcfs */
		return;
	}
	/* Units in all: free now plus what the running jobs hold. */
	uint64_t units = sim_free_units(sim);
	for (size_t i = 0; i < n; i++) {
		const struct job *j = i < nrun ? sim_running_at(sim, i)
					       : sim_queue_at(sim, i - nrun);
		if (i < nrun)
			units += sim_demand(sim, j);
		double left = (double)j->estimate - sim_job_work_done(sim, j);
		e[i] = (struct entry){ left > 0 ? left : 0, j, i };
	}
	qsort(e, n, sizeof(*e), by_left);
	for (size_t k = 0; k < n; k++) {
		uint64_t d = sim_demand(sim, e[k].job);
		if (d <= units) {
			units -= d;
			keep[e[k].i] = 1;
		}
	}
	/* Preempt first, so that the jobs that won find their resources;
	 * the running set and the queue change as we go, so act on the
	 * job pointers gathered above. */
	for (size_t k = 0; k < n; k++)
		if (e[k].i < nrun && !keep[e[k].i])
			sim_job_preempt(sim, e[k].job);
	for (size_t k = 0; k < n; k++)
		if (e[k].i >= nrun && keep[e[k].i] &&
		    sim_job_fits(sim, e[k].job))
			sim_job_start(sim, e[k].job);
	free(e);
	free(keep);
}

CLUSTERSIM_POLICY(srtf,
	.summary = "shortest remaining time first (by estimate), preemptive",
	.schedule = srtf_schedule);
