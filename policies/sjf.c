/*
 * sjf: shortest (estimated) job first.
 *
 * What it does: keeps the pending queue ordered by the user's run-time
 * estimate, shortest first (ties: submit time, then job id), and starts
 * jobs from its head while the head fits.  No backfilling: a head that
 * does not fit blocks the rest, as in fcfs.  Where a trace has no
 * estimates the estimate is the actual run time, which makes this the
 * clairvoyant SJF.
 *
 * Source: the classic list-scheduling rule (Smith, "Various optimizers for
 * single-stage production", 1956); as a batch policy, e.g. Feitelson et
 * al., JSSPP 2004.
 *
 * Parameters: none.
 *
 * Example (4 CPUs): A (0 s, 4 CPUs, 10 s) runs; B (1 s, 1 CPU, estimate
 * 100 s) and C (2 s, 1 CPU, estimate 5 s) wait.  At 10 s C starts first
 * (shorter estimate), then B, since both fit.
 */
#include "clustersim/policy.h"

static int sjf_order(void *state, const struct job *a, const struct job *b)
{
	return (a->estimate > b->estimate) - (a->estimate < b->estimate);
}

static void sjf_schedule(struct sim *sim, void *state)
{
	(void)state;
	sim_start_head(sim);
}

CLUSTERSIM_POLICY(sjf,
	.summary = "shortest estimate first, no backfilling",
	.order = sjf_order,
	.schedule = sjf_schedule);
