/*
 * hpo_rung: search-aware and preemptive; trials of hyperparameter
 * searches that have passed more rungs go first, everything else goes
 * by least attained service.
 *
 * What it does: at every scheduling point where a job waits, it ranks
 * every running and waiting job by two keys, lower first, and hands the
 * ranking to the engine's preemptive allocation (sim_rank_by): resources
 * go down the ranking while they last, running jobs that lose are
 * preempted, waiting ones that win start.
 *   1. the rung reached, highest first: a trial that successive halving
 *      has promoted k times (sim_job_rung) comes before one promoted
 *      fewer times.  A trial that has not reached its first rung, and
 *      every job that is no trial, counts as rung 0.  A promoted trial
 *      is one that beat most of its search at every rung so far, so the
 *      GPUs go to the trials most likely to be the search's best, and
 *      the search's best trial finishes sooner;
 *   2. then LAS: the attained service (sim_job_service, resource-seconds
 *      without restores) in whole quanta of quantum_s, fewest first, so
 *      short ordinary jobs and fresh trials are not stuck behind long
 *      ones (as las, with equal-width queues and no promotion);
 *   ties by submit time, then id.
 * Rungs are read from the engine, never guessed: ASHA's decisions are
 * the engine's (sim/engine/sim_hpo.c).
 *
 * Source: the rung as a priority follows the ASHA paper's own promotion
 * order (Li et al., "A system for massively parallel hyperparameter
 * tuning", MLSys 2020, Algorithm 2: get_job looks at the highest rung
 * first); the second key is least attained service as in Tiresias (Gu et
 * al., NSDI 2019).
 *
 * Parameters:
 *   quantum_s   width of one LAS level, resource-seconds (default 3600)
 *   min_run_s   a job that (re)starts is not preempted before it has run
 *               this long, seconds (the engine keeps it; default 0)
 *   (and "placement", as every policy)
 *
 * Example (one GPU, quantum 100 GPU-s): trial T of a search was promoted
 * at its first rung at t = 300 and runs on.  An ordinary job J arrives
 * at 310 with no service: T is at rung 1, J at rung 0, so T keeps the GPU
 * although it has 300 GPU-s of service; under las J would preempt it.
 */
#include <math.h>
#include <stdio.h>

#include "clustersim/policy.h"

/* Levels of attained service above this share one key (2^40 quanta:
 * beyond any run). */
#define HPO_RUNG_LEVELS 1099511627776.0

/* The policy's state (allocated by the engine). */
struct hpo_rung {
	double quantum;    /* LAS level width, resource-seconds */
};

/* The ranking key, lower first: rungs reached (more first), then LAS
 * level (lower first).  A rung is worth more than every level. */
static double rung_key(struct sim *sim, void *state, const struct job *j)
{
	const struct hpo_rung *st = state;
	int rung = sim_job_rung(sim, j);
	double level = floor(sim_job_service(sim, j) / st->quantum);
	if (level > HPO_RUNG_LEVELS - 1)
		level = HPO_RUNG_LEVELS - 1;
	return -(double)(rung > 0 ? rung : 0) * HPO_RUNG_LEVELS + level;
}

static int hpo_rung_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct hpo_rung *st = *state;
	st->quantum = sim_param_double(sim, "quantum_s");
	if (!(st->quantum > 0) || !isfinite(st->quantum)) {
		snprintf(err->msg, sizeof(err->msg),
			 "quantum_s must be > 0, got '%g'", st->quantum);
		return -1;
	}
	return 0;
}

static void hpo_rung_schedule(struct sim *sim, void *state)
{
	if (sim_queue_len(sim) == 0)
		return; /* nobody waits: nothing to preempt for */
	sim_rank_by(sim, rung_key);
}

static const struct policy_param hpo_rung_params[] = {
	{ "quantum_s", PARAM_DOUBLE, "3600",
	  "width of one least-attained-service level, resource-seconds" },
	{ "min_run_s", PARAM_DOUBLE, "0",
	  "a job that (re)starts is not preempted before it has run this "
	  "long, seconds (the engine keeps it: policy.h)" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(hpo_rung,
	.summary = "search-aware: trials by rung reached (highest first), "
		   "then least attained service, preemptive",
	.params = hpo_rung_params,
	.state_size = sizeof(struct hpo_rung),
	.init = hpo_rung_init,
	.schedule = hpo_rung_schedule);
