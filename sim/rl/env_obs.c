/*
 * The decision point as the agent sees it: its candidates and mask (in
 * "place" mode the mask is the head's GPU types, sim_place_point), and
 * its observation, both the engine's (sim_observe_mask and sim_observe,
 * sim/engine/sim_observe.c, so that the rl policy sees the same; docs/
 * rl.md gives them exactly); and the reward of job ends
 * (rl_job_finished), which the agent's policy table hears of from the
 * engine.
 */
#include "rl/rl.h"

#include <string.h>

#include "report/stats.h"

void rl_candidates(struct env *v)
{
	if (v->place) /* first: it starts the CPU-only heads that fit */
		v->nplace = sim_place_point(v->s, v->mask);
	v->ncand = sim_observe_mask(v->s, v->k, v->fit, &v->nfit);
	if (v->place) {
		for (uint32_t i = 0; i < v->ncand; i++)
			v->cand[i] = sim_queue_at(v->s, i);
		return;
	}
	memcpy(v->mask, v->fit, (size_t)v->k + 1);
	for (uint32_t i = 0; i < v->ncand; i++) {
		v->cand[i] = sim_queue_at(v->s, i);
		/* With backfill any waiting candidate may be chosen: one that
		 * does not fit is reserved and the others backfilled. */
		if (v->rl.backfill)
			v->mask[i] = 1;
	}
}

void rl_observe(const struct env *v, float *obs)
{
	if (!obs)
		return;
	if (!v->s || v->done || !v->at_decision) {
		memset(obs, 0, v->obs_dim * sizeof(*obs));
		return;
	}
	sim_observe(v->s, v->k, v->fit, obs);
}

void rl_job_finished(struct sim *s, void *state, const struct job *j)
{
	struct env *v = state;
	double x;
	if (j->end > v->last_end)
		v->last_end = j->end;
	switch (v->rl.reward) {
	case RL_REWARD_BSLD:
		x = stats_bounded_slowdown(j, v->e.bsld_tau);
		break;
	case RL_REWARD_WAIT:
		x = (double)(j->start - j->submit) / SIM_SEC;
		break;
	case RL_REWARD_RESPONSE:
		x = (double)(j->end - j->submit) / SIM_SEC;
		break;
	default:
		return; /* utilization: from the busy area */
	}
	double term = -x / (double)v->ew.n;
	v->job_sum += term;
	v->pending += term;
}
