/*
 * unicep: Tang et al.'s UNICEP utility, highest first.
 *
 * What it does: at every scheduling pass ranks the waiting jobs by
 *
 *     UNICEP = w / (log2(n) * r)
 *
 * highest first (ties: submit time, then job id), and starts jobs in
 * that order while the first fits; without backfilling a first job that
 * does not fit blocks the rest, as in fcfs.  The wait grows with time,
 * so the order is re-made at each pass (sim_start_by): the wait against
 * the estimate, as WFP3, but small jobs come forward faster.
 *
 * Source: Tang, Lan, Desai, Buettner, "Fault-aware, utility-based job
 * scheduling on Blue Gene/P systems", IEEE Cluster 2009 (UNICEP, the
 * utility tuned for the short, small jobs of the Intrepid log); a
 * baseline of the RL-scheduling papers (Zhang et al., RLScheduler,
 * SC'20; its code, DIR-LAB/deep-batch-scheduler, HPCSimPickJobs.py
 * uni_score, sorts by -(w + 1e-15) / (log2(n + 1e-15) r), lowest first).
 *
 * Variant: w is the wait so far in seconds (now - submit), r the
 * estimate in seconds (the SWF requested time; the run time where a
 * trace has none; 0 or less counts as 0.1 s), n the processors asked
 * (the job's GPUs on a GPU job, else its CPUs; at least 1).  log2(1) is
 * 0, so the paper's formula has no value for a one-processor job; we
 * take RLScheduler's numerics, -(w + 1e-15) / (log2(n + 1e-15) r) lowest
 * first, which gives a one-processor job that has waited at all
 * precedence over every larger job (among themselves, by w / r), and
 * breaks the ties of jobs that have not waited toward small, short ones.
 * The paper's w, not RLScheduler's: there a waiting job's scheduled_time
 * is still -1, so its uni_score computes -1 - submit instead of the
 * wait.  RLScheduler's own backfilling also differs from `backfill`
 * here: candidates in submit order, and only those that end by the
 * shadow time; this is EASY's rule around UNICEP's order.  The order is
 * made only at passes (arrivals and ends), as in RLScheduler.
 *
 * Parameters:
 *   backfill  EASY backfilling around the UNICEP order (default false):
 *             the first job of the order that does not fit gets a
 *             reservation and later jobs, in the order, start now where
 *             they cannot delay it (the engine's sim_backfill_easy;
 *             policies/easy.c's rule).  Refused on a cluster with
 *             virtual clusters.
 *
 * Example (4 CPUs; tests/test_baselines.c): A (submit 10,000 s, 4 CPUs,
 * 100 s) runs; B (10,001 s, 4 CPUs, 500 s), C (10,005 s, 4 CPUs, 20 s),
 * D (10,050 s, 1 CPU, 300 s) and E (10,060 s, 4 CPUs, 10 s) wait.  At
 * 10,100: D (1 CPU, waited 50 s) first; then C 95 / (2 x 20) = 2.375,
 * E 40 / (2 x 10) = 2, B 99 / (2 x 500) = 0.099.  D starts; C (4 CPUs)
 * waits for it.  At 10,400: E 340 / 20 = 17 passes C 395 / 40 = 9.875:
 * E starts, C at 10,410, B at 10,430.
 */
#include <math.h>

#include "clustersim/policy.h"

struct unicep {
	bool backfill; /* EASY around the UNICEP order */
};

/* -UNICEP of a waiting job now, RLScheduler's numerics (above). */
static double unicep_key(struct sim *sim, void *state, const struct job *j)
{
	double w = (double)(sim_now(sim) - j->submit) / SIM_SEC;
	double r = (double)j->estimate / SIM_SEC;
	double n = j->gpus ? j->gpus : j->cpus;
	if (r <= 0)
		r = 0.1;
	if (n < 1)
		n = 1;
	return -(w + 1e-15) / (log2(n + 1e-15) * r);
}

static int unicep_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct unicep *p = *state;
	return sim_backfill_param(sim, &p->backfill, err);
}

static void unicep_schedule(struct sim *sim, void *state)
{
	struct unicep *p = state;
	sim_start_by(sim, unicep_key, p->backfill);
}

static const struct policy_param unicep_params[] = {
	{ "backfill", PARAM_BOOL, "false",
	  "EASY backfilling around the UNICEP order" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(unicep,
	.summary = "Tang et al.'s UNICEP: wait / (log2(size) x estimate), "
		   "highest first, re-ranked each pass; optional EASY "
		   "backfilling",
	.params = unicep_params,
	.state_size = sizeof(struct unicep),
	.init = unicep_init,
	.schedule = unicep_schedule);
