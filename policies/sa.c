/*
 * sa: online re-planning of the pending queue with simulated annealing.
 *
 * What it does: as ga (policies/ga.c) - at every scheduling point where a
 * job arrived or ended, the first `window` pending jobs are planned afresh
 * (time 0 = now, remaining estimates scaled by each GPU type's speed, the
 * running jobs holding their units until their expected ends) and the
 * jobs the best plan starts now start now, on its GPU type - but the
 * plan is searched by simulated annealing: `chains` chains, half from the
 * greedy plan and half random, each moving by a swap, an insertion or a
 * change of GPU type and accepting a worse plan with the Metropolis
 * probability, the temperature falling geometrically over the budget
 * (sim/search/search_sa.c).  Shared machinery: sim/search/search_online.c.
 *
 * Source: Kirkpatrick, Gelatt and Vecchi, "Optimization by simulated
 * annealing", Science 1983; candidates decoded by list scheduling
 * (Graham 1969) and warm-started from the greedy plan.
 *
 * Parameters:
 *   window      pending jobs planned, from the head (default 32)
 *   exact_max   batches of at most this many candidates (orders x type
 *               choices) are enumerated instead, which is exact
 *               (default 720)
 *   evals       evaluations per plan (default 2000)
 *   objective   "twct" (default; with weight 1 and release now it ranks
 *               plans as total JCT does), "jct", or "makespan"
 *   chains      annealing chains (default 8)
 *   threads     evaluator threads, 0 = all cores (default 1); results do
 *               not depend on it
 *   (and "placement", as every policy)
 *
 * Example: ga's (2 CPUs, L of 100 s queued before S1, S2, S3 of 30, 20
 * and 10 s behind a job running until 10): S3 starts at 10, S2 at 20, S1
 * at 40 and L at 70, where FCFS starts L first.
 *
 * In an experiment:
 *   { "name": "sa", "params": { "evals": 1000, "chains": 4 } }
 */
#include "clustersim/online.h"

static int sa_init(struct sim *sim, void **state, struct sim_error *err)
{
	return online_init(sim, ONLINE_SA, state, err);
}

static const struct policy_param sa_params[] = {
	ONLINE_PARAMS("32", "720"),
	ONLINE_SEARCH_PARAMS,
	{ "chains", PARAM_INT, "8", "annealing chains" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(sa,
	.summary = "re-plans the first pending jobs with simulated "
		   "annealing at each arrival or end; starts what the plan "
		   "starts now",
	.params = sa_params,
	.init = sa_init,
	.fini = online_fini,
	.job_submitted = online_submitted,
	.job_finished = online_finished,
	.schedule = online_schedule);
