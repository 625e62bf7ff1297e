/*
 * A policy plug-in named like a built-in policy (fcfs): the loader must
 * refuse it by name, with a message, and without reading the plug-in
 * after it unloads it.
 */
#include "clustersim/policy.h"

static void clash_schedule(struct sim *sim, void *state)
{
	(void)state;
	sim_start_head(sim);
}

CLUSTERSIM_POLICY(fcfs,
	.summary = "a plug-in that takes a built-in's name",
	.schedule = clash_schedule);
