/*
 * The decision point as the agent sees it (docs/rl.md, "State" and
 * "Mask"): the first K waiting jobs in submit order, which of them fit
 * now, and one float32 vector of fixed size, every feature in [0, 1]:
 *
 *   K slots of RL_JOB_F: present, wait so far, CPUs asked / the cluster's,
 *     GPUs asked / the cluster's, estimate, GPU type asked, fits now;
 *   groups of RL_GROUP_F: group 0 is the allocation units (GPUs on a
 *     cluster with GPUs, else CPUs, or nodes when nodes are exclusive),
 *     then one group per named GPU type; each: free units, and the units
 *     running jobs hold that their estimates say are free within 10 min,
 *     1 h and 6 h (cumulative), each over the group's units;
 *   RL_GLOBAL_F: waiting jobs q / (q + K), running jobs r / (r + K).
 *
 * Times are seconds x turned into x / (x + 1 h): 0 at 0, 1/2 at an hour,
 * towards 1, in order.  And the reward of job ends (rl_job_finished),
 * which the agent's policy table hears of from the engine.
 */
#include "rl/rl.h"

#include <string.h>

#include "report/stats.h"

static float sat_time(sim_time_t t)
{
	double x = t > 0 ? (double)t / SIM_SEC : 0;
	return (float)(x / (x + RL_TIME_SCALE_S));
}

void rl_candidates(struct env *v)
{
	const struct sim *s = v->s;
	size_t q = sim_queue_len(s);
	v->ncand = (uint32_t)(q < v->k ? q : v->k);
	v->nfit = 0;
	memset(v->mask, 0, v->k + 1);
	for (uint32_t i = 0; i < v->ncand; i++) {
		const struct job *j = sim_queue_at(s, i);
		v->cand[i] = j;
		if (sim_job_fits(s, j)) {
			v->mask[i] = 1;
			v->nfit++;
		}
	}
	/* Waiting is always allowed but when nothing is to come: then the
	 * pending jobs would wait for ever. */
	v->mask[v->k] = sim_run_can_wait(s) || !v->nfit;
}

static void observe_jobs(const struct env *v, float *o)
{
	sim_time_t now = sim_now(v->s);
	for (uint32_t i = 0; i < v->ncand; i++, o += RL_JOB_F) {
		const struct job *j = v->cand[i];
		o[0] = 1;
		o[1] = sat_time(now - j->submit);
		o[2] = v->cpu_cap > 0 ? (float)(j->cpus / v->cpu_cap) : 0;
		if (o[2] > 1)
			o[2] = 1;
		o[3] = v->gpu_cap > 0 ? (float)(j->gpus / v->gpu_cap) : 0;
		if (o[3] > 1)
			o[3] = 1;
		o[4] = sat_time(j->estimate);
		o[5] = v->ntypes ? (float)j->gpu_type / (float)v->ntypes : 0;
		o[6] = v->mask[i];
	}
	memset(o, 0, (size_t)(v->k - v->ncand) * RL_JOB_F * sizeof(*o));
}

static void observe_groups(const struct env *v, float *o)
{
	static const double horizon_s[RL_GROUP_F - 1] = { 600, 3600, 21600 };
	const struct sim *s = v->s;
	sim_time_t now = sim_now(s);
	memset(o, 0, (size_t)v->ngroups * RL_GROUP_F * sizeof(*o));
	o[0] = (float)sim_free_units(s);
	for (uint32_t t = 0; t < v->ntypes; t++)
		o[(1 + t) * RL_GROUP_F] = (float)sim_gpu_type_free(s, t);
	size_t nrun = sim_running_len(s);
	for (size_t i = 0; i < nrun; i++) {
		const struct job *j = sim_running_at(s, i);
		double left = (double)(sim_expected_end(s, j) - now) / SIM_SEC;
		uint32_t t = j->gpu_type_used;
		for (int h = 0; h < RL_GROUP_F - 1; h++) {
			if (left > horizon_s[h])
				continue;
			o[1 + h] += (float)sim_demand(s, j);
			if (j->gpus && t && t <= v->ntypes)
				o[t * RL_GROUP_F + 1 + h] += (float)j->gpus;
		}
	}
	for (uint32_t g = 0; g < v->ngroups; g++)
		for (int f = 0; f < RL_GROUP_F; f++) {
			float *x = &o[g * RL_GROUP_F + f];
			*x = v->gcap[g] > 0 ? (float)(*x / v->gcap[g]) : 0;
			if (f > 0 && *x + o[g * RL_GROUP_F] > 1)
				*x = 1 - o[g * RL_GROUP_F];
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
	observe_jobs(v, obs);
	float *g = obs + (size_t)v->k * RL_JOB_F;
	observe_groups(v, g);
	float *o = g + (size_t)v->ngroups * RL_GROUP_F;
	double q = (double)sim_queue_len(v->s), r = sim_running_len(v->s);
	o[0] = (float)(q / (q + v->k));
	o[1] = (float)(r / (r + v->k));
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
