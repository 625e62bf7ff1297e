/*
 * A decision point as a learning agent sees it (policy.h, "Observation";
 * docs/rl.md, "State and observation" and "Action and mask"): the first K
 * waiting jobs in queue order, which of them fit now, and one float32
 * vector of fixed size, every feature in [0, 1]:
 *
 *   K slots of SIM_OBS_JOB_F: present, wait so far, CPUs asked / the
 *     cluster's, GPUs asked / the cluster's, estimate, GPU type asked,
 *     fits now;
 *   groups of SIM_OBS_GROUP_F: group 0 is the allocation units (GPUs on a
 *     cluster with GPUs, else CPUs, or nodes when nodes are exclusive),
 *     then one group per named GPU type; each: free units, and the units
 *     running jobs hold that their estimates say are free within 10 min,
 *     1 h and 6 h (cumulative), each over the group's units;
 *   SIM_OBS_GLOBAL_F: waiting jobs q / (q + K), running jobs r / (r + K).
 *
 * Times are seconds x turned into x / (x + 1 h): 0 at 0, 1/2 at an hour,
 * towards 1, in order.  The "place" mode's decision point (the GPU types
 * the head job fits on, sim_place_point) is here too.  It lives in the
 * engine, not with the environment, because the environment (sim/rl/)
 * and the policy that runs a trained agent (policies/rl.c) must see
 * exactly the same thing.
 */
#include <string.h>

#include "engine/sim_impl.h"
#include "base/util.h"

/* The time scale of the saturating time features x / (x + T): 1 h. */
#define OBS_TIME_SCALE_S 3600.0

static float sat_time(sim_time_t t)
{
	double x = t > 0 ? (double)t / SIM_SEC : 0;
	return (float)(x / (x + OBS_TIME_SCALE_S));
}

/* The cluster's sizes, found once (they do not change in a run). */
static const struct sim_obs_caps *caps(const struct sim *s)
{
	struct sim_obs_caps *c = &((struct sim *)s)->obs_caps;
	if (c->known)
		return c;
	c->cpus = (double)cluster_total_cpus(s->cluster);
	c->gpus = (double)cluster_total_gpus(s->cluster);
	c->ntypes = c->gpus > 0 ? cluster_gpu_type_count(s->cluster) : 0;
	c->units = xcalloc(1 + (size_t)c->ntypes, sizeof(*c->units));
	c->units[0] = (double)units_capacity(s->cluster);
	for (uint32_t t = 0; t < c->ntypes; t++)
		c->units[1 + t] = (double)cluster_gpu_type_total(s->cluster,
								 t);
	c->known = true;
	return c;
}

size_t sim_observe_dim(const struct sim *s, uint32_t k)
{
	return (size_t)k * SIM_OBS_JOB_F +
	       (size_t)(1 + caps(s)->ntypes) * SIM_OBS_GROUP_F +
	       SIM_OBS_GLOBAL_F;
}

uint32_t sim_observe_mask(const struct sim *s, uint32_t k, uint8_t *mask,
			  uint32_t *nfit)
{
	size_t q = sim_queue_len(s);
	uint32_t n = (uint32_t)(q < k ? q : k), fit = 0;
	memset(mask, 0, (size_t)k + 1);
	for (uint32_t i = 0; i < n; i++)
		if (sim_job_fits(s, sim_queue_at(s, i))) {
			mask[i] = 1;
			fit++;
		}
	/* Waiting is always allowed but when nothing is to come: then the
	 * waiting jobs would wait for ever. */
	mask[k] = sim_run_can_wait(s) || !fit;
	if (nfit)
		*nfit = fit;
	return n;
}

uint32_t sim_place_point(struct sim *s, uint8_t *mask)
{
	unsigned nt = sim_gpu_types(s);
	const struct job *h = NULL;
	while (sim_queue_len(s)) {
		h = sim_queue_at(s, 0);
		if (h->gpus || !sim_job_fits(s, h) || sim_job_start(s, h) != 0)
			break;
		h = NULL;
	}
	uint32_t fit = 0;
	memset(mask, 0, (size_t)nt + 1);
	for (unsigned t = 0; h && h->gpus && t < nt; t++)
		if (sim_job_fits_on(s, h, t)) {
			mask[t] = 1;
			fit++;
		}
	mask[nt] = sim_run_can_wait(s) || !fit;
	return fit;
}

static void observe_jobs(const struct sim *s, uint32_t k, const uint8_t *mask,
			 const struct sim_obs_caps *c, float *o)
{
	sim_time_t now = sim_now(s);
	size_t q = sim_queue_len(s);
	uint32_t n = (uint32_t)(q < k ? q : k);
	for (uint32_t i = 0; i < n; i++, o += SIM_OBS_JOB_F) {
		const struct job *j = sim_queue_at(s, i);
		o[0] = 1;
		o[1] = sat_time(now - j->submit);
		o[2] = c->cpus > 0 ? (float)(j->cpus / c->cpus) : 0;
		if (o[2] > 1)
			o[2] = 1;
		o[3] = c->gpus > 0 ? (float)(j->gpus / c->gpus) : 0;
		if (o[3] > 1)
			o[3] = 1;
		o[4] = sat_time(j->estimate);
		o[5] = c->ntypes ? (float)j->gpu_type / (float)c->ntypes : 0;
		o[6] = mask[i];
	}
	memset(o, 0, (size_t)(k - n) * SIM_OBS_JOB_F * sizeof(*o));
}

static void observe_groups(const struct sim *s, const struct sim_obs_caps *c,
			   float *o)
{
	static const double horizon_s[SIM_OBS_GROUP_F - 1] = { 600, 3600,
							       21600 };
	uint32_t ngroups = 1 + c->ntypes;
	sim_time_t now = sim_now(s);
	memset(o, 0, (size_t)ngroups * SIM_OBS_GROUP_F * sizeof(*o));
	o[0] = (float)sim_free_units(s);
	for (uint32_t t = 0; t < c->ntypes; t++)
		o[(1 + t) * SIM_OBS_GROUP_F] = (float)sim_gpu_type_free(s, t);
	size_t nrun = sim_running_len(s);
	for (size_t i = 0; i < nrun; i++) {
		const struct job *j = sim_running_at(s, i);
		double left = (double)(sim_expected_end(s, j) - now) / SIM_SEC;
		uint32_t t = j->gpu_type_used;
		for (int h = 0; h < SIM_OBS_GROUP_F - 1; h++) {
			if (left > horizon_s[h])
				continue;
			o[1 + h] += (float)sim_demand(s, j);
			if (j->gpus && t && t <= c->ntypes)
				o[t * SIM_OBS_GROUP_F + 1 + h] += (float)j->gpus;
		}
	}
	for (uint32_t g = 0; g < ngroups; g++)
		for (int f = 0; f < SIM_OBS_GROUP_F; f++) {
			float *x = &o[g * SIM_OBS_GROUP_F + f];
			*x = c->units[g] > 0 ? (float)(*x / c->units[g]) : 0;
			if (f > 0 && *x + o[g * SIM_OBS_GROUP_F] > 1)
				*x = 1 - o[g * SIM_OBS_GROUP_F];
		}
}

void sim_observe(const struct sim *s, uint32_t k, const uint8_t *mask,
		 float *obs)
{
	const struct sim_obs_caps *c = caps(s);
	observe_jobs(s, k, mask, c, obs);
	float *g = obs + (size_t)k * SIM_OBS_JOB_F;
	observe_groups(s, c, g);
	float *o = g + (size_t)(1 + c->ntypes) * SIM_OBS_GROUP_F;
	double q = (double)sim_queue_len(s), r = (double)sim_running_len(s);
	o[0] = (float)(q / (q + k));
	o[1] = (float)(r / (r + k));
}
