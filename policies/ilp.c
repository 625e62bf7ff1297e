/*
 * ilp: online re-planning of the pending queue with a time-indexed ILP.
 *
 * What it does: as ga (policies/ga.c) - at every scheduling point where a
 * job arrived or ended, the first `window` pending jobs are planned afresh
 * (time 0 = now, remaining estimates scaled by each GPU type's speed, the
 * running jobs holding their units until their expected ends) and the
 * jobs the best plan starts now start now, on its GPU type - but the
 * plan comes from a time-indexed integer program solved by COIN-OR CBC
 * (sim/search/search_ilp.c): x[j,t,s] = 1 when job j starts on type t in time
 * slot s, each job starting once, each slot's demand within the units
 * the running jobs leave.  Time is cut into at most `slots` slots (one
 * second each when the horizon fits, which makes the model exact; else
 * longer, run times rounded up to whole slots).  The solution's order by
 * start is decoded exactly and kept only when it beats the greedy plan,
 * which also warm-starts CBC.  A model of more than `max_vars` variables
 * is not built: that plan is the greedy one, and the run goes on.
 * Shared machinery: sim/search/search_online.c.
 *
 * Source: the time-indexed formulation of Sousa and Wolsey ("A time
 * indexed formulation of non-preemptive single machine scheduling
 * problems", Math. Programming 1992) and Dyer and Wolsey (Discrete Appl.
 * Math. 1990), with one capacity row per slot and type for parallel jobs.
 *
 * Parameters:
 *   window        pending jobs planned, from the head (default 7: CBC
 *                 takes tens of milliseconds a plan even so)
 *   exact_max     batches of at most this many candidates (orders x type
 *                 choices) are enumerated instead, which is exact and,
 *                 up to 5,040 (the default: 7 jobs on one type), cheaper
 *                 than one CBC solve; CBC plans larger windows and
 *                 several GPU types (7 jobs on 2 types: 645,120)
 *   objective     "twct" (default; with weight 1 and release now it ranks
 *                 plans as total JCT does), "jct", or "makespan"
 *   slots         time slots of the model (default 16)
 *   time_limit_s  CBC's limit per plan, wall-clock seconds (default 1;
 *                 a plan stopped by it is not reproducible - models this
 *                 small are proven optimal well before)
 *   max_nodes     CBC's branch-and-bound node limit per plan, 0 = none
 *                 (default 0; deterministic, unlike the time limit)
 *   max_vars      largest model built (default 20000 variables)
 *   (and "placement", as every policy)
 *
 * Example: ga's (2 CPUs, L of 100 s queued before S1, S2, S3 of 30, 20
 * and 10 s behind a job running until 10): S3 starts at 10, S2 at 20, S1
 * at 40 and L at 70, where FCFS starts L first.
 *
 * In an experiment:
 *   { "name": "ilp", "params": { "window": 8, "slots": 24 } }
 */
#include "clustersim/online.h"

static int ilp_init(struct sim *sim, void **state, struct sim_error *err)
{
	return online_init(sim, ONLINE_ILP, state, err);
}

static const struct policy_param ilp_params[] = {
	ONLINE_PARAMS("7", "5040"),
	{ "slots", PARAM_INT, "16", "time slots of the model" },
	{ "time_limit_s", PARAM_DOUBLE, "1", "CBC's limit per plan, seconds" },
	{ "max_vars", PARAM_INT, "20000", "largest model built, variables" },
	{ "max_nodes", PARAM_INT, "0", "CBC's node limit per plan, 0 = none" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(ilp,
	.summary = "re-plans the first pending jobs with a time-indexed "
		   "ILP (CBC) at each arrival or end; starts what the plan "
		   "starts now",
	.params = ilp_params,
	.init = ilp_init,
	.fini = online_fini,
	.job_submitted = online_submitted,
	.job_finished = online_finished,
	.schedule = online_schedule);
