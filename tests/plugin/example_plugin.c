/*
 * lifo: an out-of-tree policy, built as a shared object the way a user
 * would build one, to test --plugin and the "plugins" key.
 *
 * What it does: starts the most recently submitted job first (the queue is
 * ordered by submit time, latest first), while it fits.  Not a good policy;
 * its order is easy to tell apart from every built-in one.
 *
 * Build: cc -shared -fPIC -DCLUSTERSIM_PLUGIN -I include -o lifo.so this.c
 */
#include "clustersim/policy.h"

static int lifo_order(void *state, const struct job *a, const struct job *b)
{
	(void)state;
	if (a->submit != b->submit)
		return a->submit > b->submit ? -1 : 1;
	return (a->id < b->id) - (a->id > b->id);
}

static void lifo_schedule(struct sim *sim, void *state)
{
	(void)state;
	sim_start_head(sim);
}

CLUSTERSIM_POLICY(lifo,
	.summary = "last in, first out (an example plug-in)",
	.order = lifo_order,
	.schedule = lifo_schedule);
