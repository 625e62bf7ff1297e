/*
 * f3: the F3 score of Carastan-Santos and de Camargo, lowest first.
 *
 * What it does: orders the pending queue by
 *
 *     F3 = r * n + 6860000 * log10(s)
 *
 * lowest first (ties: submit time, then job id), and starts jobs from
 * the head while the head fits; without backfilling a head that does not
 * fit blocks the rest, as in fcfs.
 *
 * Source: Carastan-Santos and de Camargo, "Obtaining dynamic scheduling
 * policies with simulation and machine learning", SC'17, which fitted
 * F1-F4 to the outcomes of simulated queues by non-linear regression; the
 * RL-scheduling papers use them as baselines (Zhang et al., RLScheduler,
 * SC'20; its code, DIR-LAB/deep-batch-scheduler, HPCSimPickJobs.py, has
 * all four, and this file checks against it).
 *
 * Variant: r is the estimate in seconds (the SWF requested time; the run
 * time where a trace has none), n the processors asked (the job's GPUs
 * on a GPU job, else its CPUs; at least 1), s the submit time in seconds
 * as the run sees it (an SWF trace's own clock, which starts at 0).  As
 * in RLScheduler's f1 an r or s of 0 or less counts as 0.1 s, here in
 * all four scores (RLScheduler's f2-f4 would take log10(0) = -infinity
 * and put a job submitted at 0 first).  The key depends on the job
 * alone, so it is the queue's order() and needs no re-ranking.
 * RLScheduler's own backfilling differs from `backfill` here: it tries
 * candidates in submit order and only those that end by the shadow time;
 * this is EASY's rule, extra processors included, around the score's
 * own order.
 *
 * Parameters:
 *   backfill  EASY backfilling around the F3 order (default false): the
 *             first job of the order that does not fit gets a reservation
 *             and later jobs, in the order, start now where they cannot
 *             delay it (the engine's sim_backfill_easy; policies/easy.c's
 *             rule).  Refused on a cluster with virtual clusters.
 *
 * Example (4 CPUs; tests/test_baselines.c): A (submit 10,000 s, 4 CPUs,
 * 100 s) runs; B (10,001 s, 4 CPUs, 500 s), C (10,005 s, 4 CPUs, 20 s),
 * D (10,050 s, 1 CPU, 300 s) and E (10,060 s, 4 CPUs, 10 s) wait.  F3
 * (less 27,440,000): C 1,569, B 2,298, D 15,159, E 17,862: the submit
 * term, 6.86e6 log10(s), weighs 50 s of submit more than the area r n.
 * At 10,100 C starts, 10,120 B, 10,620 D, 10,920 E.
 */
#include <math.h>

#include "clustersim/policy.h"

struct f3 {
	bool backfill; /* EASY around the F3 order */
};

/* F3 of a job, from its record alone (the variant above). */
static double f3_score(const struct job *j)
{
	double r = (double)j->estimate / SIM_SEC;
	double s = (double)j->submit / SIM_SEC;
	double n = j->gpus ? j->gpus : j->cpus;
	if (r <= 0)
		r = 0.1;
	if (s <= 0)
		s = 0.1;
	if (n < 1)
		n = 1;
	return r * n + 6860000 * log10(s);
}

static int f3_order(void *state, const struct job *a, const struct job *b)
{
	double ka = f3_score(a), kb = f3_score(b);
	return (ka > kb) - (ka < kb);
}

static int f3_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct f3 *p = *state;
	return sim_backfill_param(sim, &p->backfill, err);
}

static void f3_schedule(struct sim *sim, void *state)
{
	struct f3 *p = state;
	sim_start_queue(sim, p->backfill);
}

static const struct policy_param f3_params[] = {
	{ "backfill", PARAM_BOOL, "false",
	  "EASY backfilling around the F3 order" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(f3,
	.summary = "Carastan-Santos' F3: r n + 6.86e6 log10(s), lowest first; optional EASY "
		   "backfilling",
	.params = f3_params,
	.state_size = sizeof(struct f3),
	.order = f3_order,
	.init = f3_init,
	.schedule = f3_schedule);
