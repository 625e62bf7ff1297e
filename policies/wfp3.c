/*
 * wfp3: Tang et al.'s WFP3 utility, highest first.
 *
 * What it does: at every scheduling pass ranks the waiting jobs by
 *
 *     WFP3 = (w / r)^3 * n
 *
 * highest first (ties: submit time, then job id), and starts jobs in
 * that order while the first fits; without backfilling a first job that
 * does not fit blocks the rest, as in fcfs.  The wait grows with time,
 * so the order is re-made at each pass (sim_start_by): a job that has
 * waited long against its estimate comes forward, large jobs faster.
 *
 * Source: Tang, Lan, Desai, Buettner, "Fault-aware, utility-based job
 * scheduling on Blue Gene/P systems", IEEE Cluster 2009, where WFP3 is
 * the utility function the Intrepid machine at Argonne used; a baseline
 * of the RL-scheduling papers (Zhang et al., RLScheduler, SC'20; its
 * code, DIR-LAB/deep-batch-scheduler, HPCSimPickJobs.py wfp_score, sorts
 * by -(w / r)^3 n, lowest first, the same order).
 *
 * Variant: w is the wait so far in seconds (now - submit), r the
 * estimate in seconds (the SWF requested time; the run time where a
 * trace has none; 0 or less counts as 0.1 s), n the processors asked
 * (the job's GPUs on a GPU job, else its CPUs; at least 1).  The paper's
 * w, not RLScheduler's: there a waiting job's scheduled_time is still -1,
 * so its wfp_score computes -1 - submit instead of the wait, which ranks
 * by submit time, not by the wait.  RLScheduler's own backfilling also
 * differs from `backfill` here: candidates in submit order, and only
 * those that end by the shadow time; this is EASY's rule around WFP3's
 * order.  The order is made only at passes (arrivals and ends), as in
 * RLScheduler: a wait that grows between them moves nothing until then.
 *
 * Parameters:
 *   backfill  EASY backfilling around the WFP3 order (default false): the
 *             first job of the order that does not fit gets a reservation
 *             and later jobs, in the order, start now where they cannot
 *             delay it (the engine's sim_backfill_easy; policies/easy.c's
 *             rule).  Refused on a cluster with virtual clusters.
 *
 * Example (4 CPUs; tests/test_baselines.c): A (submit 10,000 s, 4 CPUs,
 * 100 s) runs; B (10,001 s, 4 CPUs, 500 s), C (10,005 s, 4 CPUs, 20 s),
 * D (10,050 s, 1 CPU, 300 s) and E (10,060 s, 4 CPUs, 10 s) wait.  At
 * 10,100: C (95 / 20)^3 x 4 = 428.7, E (40 / 10)^3 x 4 = 256, B (99 /
 * 500)^3 x 4 = 0.031, D (50 / 300)^3 = 0.0046: C starts.  At 10,120 E
 * (864) starts; at 10,130 B (0.069) before D (0.019); D at 10,630.
 */
#include <math.h>

#include "clustersim/policy.h"

struct wfp3 {
	bool backfill; /* EASY around the WFP3 order */
};

/* -WFP3 of a waiting job now: the engine ranks lowest first. */
static double wfp3_key(struct sim *sim, void *state, const struct job *j)
{
	double w = (double)(sim_now(sim) - j->submit) / SIM_SEC;
	double r = (double)j->estimate / SIM_SEC;
	double n = j->gpus ? j->gpus : j->cpus;
	if (r <= 0)
		r = 0.1;
	if (n < 1)
		n = 1;
	return -pow(w / r, 3) * n;
}

static int wfp3_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct wfp3 *p = *state;
	return sim_backfill_param(sim, &p->backfill, err);
}

static void wfp3_schedule(struct sim *sim, void *state)
{
	struct wfp3 *p = state;
	sim_start_by(sim, wfp3_key, p->backfill);
}

static const struct policy_param wfp3_params[] = {
	{ "backfill", PARAM_BOOL, "false",
	  "EASY backfilling around the WFP3 order" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(wfp3,
	.summary = "Tang et al.'s WFP3: (wait / estimate)^3 x size, highest "
		   "first, re-ranked each pass; optional EASY backfilling",
	.params = wfp3_params,
	.state_size = sizeof(struct wfp3),
	.init = wfp3_init,
	.schedule = wfp3_schedule);
