/*
 * ga: online re-planning of the pending queue with a genetic algorithm.
 *
 * What it does: at every scheduling point where a job arrived or ended,
 * the first `window` pending jobs (queue order) are planned afresh as a
 * batch problem - time 0 is now, each job's run time its remaining
 * estimate scaled by its speed on each GPU type, the running jobs holding
 * their units until their expected ends - and a genetic algorithm
 * searches job orders (and GPU types) for the plan of least `objective`,
 * scored by serial list scheduling.  The jobs the best plan starts now
 * start now, on the plan's GPU type; the others wait for the next
 * scheduling point, which re-plans.  The machinery (the problem, the
 * seeds, what happens when a planned start does not fit the nodes) is
 * shared with sa and ilp: sim/search/search_online.c.
 *
 * Source: list scheduling (Graham, "Bounds on multiprocessing timing
 * anomalies", SIAM J. Appl. Math. 1969) decodes each candidate; the GA is
 * Holland's ("Adaptation in natural and artificial systems", 1975) with
 * Davis' order crossover and tournament selection (sim/search/search_ga.c),
 * warm-started from the greedy plan (list scheduling in queue order and
 * in Smith's-rule order, the better).
 *
 * Parameters:
 *   window      pending jobs planned, from the head (default 32)
 *   exact_max   batches of at most this many candidates (orders x type
 *               choices) are enumerated instead, which is exact
 *               (default 720)
 *   evals       evaluations per plan (default 2000)
 *   objective   "twct" (default: total completion time; every job has
 *               weight 1 and release now, so this ranks plans as total
 *               JCT does), "jct", or "makespan"
 *   population  GA population (default 32)
 *   threads     evaluator threads, 0 = all cores (default 1); results do
 *               not depend on it
 *   (and "placement", as every policy)
 * The seed of each plan mixes the run's seed with the count of plans.
 *
 * Example (2 CPUs; every job takes both): A runs until 10.  At 1, L (100
 * s), then S1 (30 s), S2 (20 s), S3 (10 s) arrive.  FCFS starts L at 10
 * and the short jobs at 110, 140 and 160.  The plan of least total
 * completion time runs shortest first: S3 at 10, S2 at 20, S1 at 40, L at
 * 70 - its completions add up to 20 + 40 + 70 + 170 = 300 against FCFS'
 * 110 + 140 + 160 + 170 = 580.
 *
 * In an experiment:
 *   { "name": "ga", "params": { "window": 16, "evals": 1000 } }
 */
#include "clustersim/online.h"

static int ga_init(struct sim *sim, void **state, struct sim_error *err)
{
	return online_init(sim, ONLINE_GA, state, err);
}

static const struct policy_param ga_params[] = {
	ONLINE_PARAMS("32", "720"),
	ONLINE_SEARCH_PARAMS,
	{ "population", PARAM_INT, "32", "GA population" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(ga,
	.summary = "re-plans the first pending jobs with a genetic "
		   "algorithm at each arrival or end; starts what the plan "
		   "starts now",
	.params = ga_params,
	.init = ga_init,
	.fini = online_fini,
	.job_submitted = online_submitted,
	.job_finished = online_finished,
	.schedule = online_schedule);
