/*
 * crashfifo: an out-of-tree policy that crashes on purpose, to test that a
 * sweep records a run whose process dies and goes on with the others, and
 * that `run -j N` reports a failed run as one process would.
 *
 * What it does: first come, first served (the queue head while it fits);
 * with "crash": true it aborts at its first decision instead, as a buggy
 * plug-in would; with "idle": true it starts nothing, so the run ends
 * with the engine's error (jobs left pending with nothing to come).
 * Parameters: crash, idle (bool, default false).
 *
 * Build: cc -shared -fPIC -DCLUSTERSIM_PLUGIN -I include -o crash.so this.c
 */
#include <stdlib.h>

#include "clustersim/policy.h"

static const struct policy_param crash_params[] = {
	{ "crash", PARAM_BOOL, "false", "abort at the first decision" },
	{ "idle", PARAM_BOOL, "false", "start no job" },
	{ NULL, PARAM_INT, NULL, NULL },
};

static void crash_schedule(struct sim *sim, void *state)
{
	(void)state;
	if (sim_param_bool(sim, "crash"))
		abort();
	if (!sim_param_bool(sim, "idle"))
		sim_start_head(sim);
}

CLUSTERSIM_POLICY(crashfifo,
	.summary = "first come, first served, or an abort (a test plug-in)",
	.params = crash_params,
	.schedule = crash_schedule);
