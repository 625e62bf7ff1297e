/*
 * fcfs: first come, first served.
 *
 * What it does: starts pending jobs in submit order while the first one
 * fits; the first job that does not fit blocks every job behind it, even
 * ones that would fit now.  The baseline every backfilling paper compares
 * against, and the reference for writing a policy (policies/README.md).
 *
 * Source: the default of every batch system; e.g. Feitelson, Rudolph and
 * Schwiegelshohn, "Parallel job scheduling - a status report", JSSPP 2004.
 *
 * Parameters: none.
 *
 * Example (4 CPUs): A submits at 0 asking 3 CPUs for 10 s, B at 1 asking
 * 2 CPUs, C at 2 asking 1 CPU.  A starts at 0.  B does not fit (1 CPU
 * free) and blocks C, although C would fit.  At 10 A ends, B and C start.
 */
#include "clustersim/policy.h"

static void fcfs_schedule(struct sim *sim, void *state)
{
	(void)state;
	sim_start_head(sim);
}

CLUSTERSIM_POLICY(fcfs,
	.summary = "first come, first served: submit order, the first job "
		   "that does not fit blocks the rest",
	.schedule = fcfs_schedule);
