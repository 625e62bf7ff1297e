/*
 * f1: the F1 score of Carastan-Santos and de Camargo, lowest first.
 *
 * What it does: orders the pending queue by
 *
 *     F1 = log10(r) * n + 870 * log10(s)
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
 *   backfill  EASY backfilling around the F1 order (default false): the
 *             first job of the order that does not fit gets a reservation
 *             and later jobs, in the order, start now where they cannot
 *             delay it (the engine's sim_backfill_easy; policies/easy.c's
 *             rule).  Refused on a cluster with virtual clusters.
 *
 * Example (4 CPUs; tests/test_baselines.c): A (submit 10,000 s, 4 CPUs,
 * 100 s) runs; B (10,001 s, 4 CPUs, 500 s), C (10,005 s, 4 CPUs, 20 s),
 * D (10,050 s, 1 CPU, 300 s) and E (10,060 s, 4 CPUs, 10 s) wait.  F1:
 * D 3484.36, C 3485.39, E 3486.26, B 3490.83 (the submit term is
 * 3480.0 to 3482.3 here; D's log10(300) x 1 = 2.5 against C's log10(20)
 * x 4 = 5.2 outweighs D's later submit).  At 10,100 D starts; C (4 CPUs)
 * waits for it, 10,400, then E 10,420, B 10,430.
 * fcfs runs B at 10,100 and D only at 10,620.
 */
#include <math.h>

#include "clustersim/policy.h"

struct f1 {
	bool backfill; /* EASY around the F1 order */
};

/* F1 of a job, from its record alone (the variant above). */
static double f1_score(const struct job *j)
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
	return log10(r) * n + 870 * log10(s);
}

static int f1_order(void *state, const struct job *a, const struct job *b)
{
	double ka = f1_score(a), kb = f1_score(b);
	return (ka > kb) - (ka < kb);
}

static int f1_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct f1 *p = *state;
	return sim_backfill_param(sim, &p->backfill, err);
}

static void f1_schedule(struct sim *sim, void *state)
{
	struct f1 *p = state;
	sim_start_queue(sim, p->backfill);
}

static const struct policy_param f1_params[] = {
	{ "backfill", PARAM_BOOL, "false",
	  "EASY backfilling around the F1 order" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(f1,
	.summary = "Carastan-Santos' F1: log10(r) n + 870 log10(s), lowest first; optional EASY "
		   "backfilling",
	.params = f1_params,
	.state_size = sizeof(struct f1),
	.order = f1_order,
	.init = f1_init,
	.schedule = f1_schedule);
