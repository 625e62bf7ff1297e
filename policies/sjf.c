/*
 * sjf: shortest (estimated) job first.
 *
 * What it does: keeps the pending queue ordered by the user's run-time
 * estimate, shortest first (ties: submit time, then job id), and starts
 * jobs from its head while the head fits.  Without backfilling (the
 * default) a head that does not fit blocks the rest, as in fcfs.  With
 * `backfill` the head gets a reservation and later jobs, in SJF order,
 * start now where they cannot delay it: EASY backfilling around the SJF
 * order (the engine's sim_backfill_easy; the rule is policies/easy.c's).
 * Where a trace has no estimates the estimate is the actual run time,
 * which makes this the clairvoyant SJF.
 *
 * Source: the classic list-scheduling rule (Smith, "Various optimizers for
 * single-stage production", 1956); as a batch policy, e.g. Feitelson et
 * al., JSSPP 2004.  With backfilling it is the SJF baseline of the
 * RL-scheduling papers (Zhang et al., RLScheduler, SC'20).
 *
 * Parameters:
 *   backfill  EASY backfilling around the SJF order (default false).
 *             Refused on a cluster with virtual clusters.
 *
 * Example (4 CPUs): A (0 s, 4 CPUs, 10 s) runs; B (1 s, 1 CPU, estimate
 * 100 s) and C (2 s, 1 CPU, estimate 5 s) wait.  At 10 C starts first
 * (shorter estimate), then B, since both fit.
 *
 * With backfill (10 CPUs, estimates exact; tests/test_baselines.c): A
 * (0 s, 6 CPUs, 100 s) runs; B (1 s, 8 CPUs, 500 s), C (2 s, 10 CPUs,
 * 50 s), D (3 s, 2 CPUs, 150 s), E (4 s, 4 CPUs, 90 s) wait.  At 4 the
 * SJF order is C, E, D, B: C is the head, reserved at 100 with no extra
 * CPUs; E fits (4 free) and ends at 94 <= 100: it starts at 4.  D
 * would end after 100 and no CPU is extra: it waits.  C 100, D and B
 * 150.  Without backfill E waits for C: E and D 150, B 240.
 */

#include "clustersim/policy.h"

struct sjf {
	bool backfill; /* EASY around the SJF order */
};

static int sjf_order(void *state, const struct job *a, const struct job *b)
{
	return (a->estimate > b->estimate) - (a->estimate < b->estimate);
}

static int sjf_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct sjf *p = *state;
	return sim_backfill_param(sim, &p->backfill, err);
}

static void sjf_schedule(struct sim *sim, void *state)
{
	struct sjf *p = state;
	sim_start_queue(sim, p->backfill);
}

static const struct policy_param sjf_params[] = {
	{ "backfill", PARAM_BOOL, "false",
	  "EASY backfilling around the SJF order" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(sjf,
	.summary = "shortest estimate first; optional EASY backfilling",
	.params = sjf_params,
	.state_size = sizeof(struct sjf),
	.order = sjf_order,
	.init = sjf_init,
	.schedule = sjf_schedule);
