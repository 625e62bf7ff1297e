/*
 * A plug-in whose table is shorter than today's struct policy_ops, as one
 * built before fields were appended (same ABI version) would be: its size
 * stops before job_started.  The loader must read no byte past that
 * size, so the fields it lacks read as NULL although this object has
 * something there (a trap: calling it would fail the run).
 *
 * What it does: fcfs, and counts its own calls of schedule() in nothing -
 * it only has to run.
 */
#include <stddef.h>

#include "clustersim/policy.h"

static void trap_notify(struct sim *sim, void *state, const struct job *j)
{
	(void)sim;
	(void)state;
	(void)j;
	__builtin_trap(); /* past its size: must never be read */
}

static void short_schedule(struct sim *sim, void *state)
{
	(void)state;
	sim_start_head(sim);
}

__attribute__((visibility("default")))
const struct policy_ops clustersim_policy = {
	.abi = CLUSTERSIM_ABI_VERSION,
	.size = offsetof(struct policy_ops, job_started),
	.name = "short_table",
	.summary = "fcfs with a table from before job_started",
	.schedule = short_schedule,
	.job_started = trap_notify,
	.job_preempted = trap_notify,
};
