/*
 * The reinforcement-learning environment (include/clustersim/env.h;
 * docs/rl.md is the MDP).  One struct env holds one experiment, its
 * loaded workload and cluster, and the episode in play: a struct sim run
 * step by step (sim_run_open / sim_run_next), the agent in the policy's
 * place.  The agent's policy table has no schedule() and keeps the queue
 * in submit order; its job_finished gives each ended job's share of the
 * reward.
 *
 * A step: the chosen job starts (the decision point stays, with one job
 * fewer waiting), or "wait" hands the clock back to the engine, which
 * applies events up to the next decision point where some job of the
 * first K fits (points where none does are passed over: the only action
 * would be to wait).
 */
#include "rl/rl.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/splitmix.h"
#include "base/util.h"

static void episode_free(struct env *v)
{
	if (v->s) {
		sim_run_close(v->s, 0);
		sim_free(v->s);
	}
	v->s = NULL;
}

void env_free(struct env *v)
{
	if (!v)
		return;
	episode_free(v);
	free(v->ew.jobs);
	if (v->have_w)
		workload_release(&v->w);
	cluster_spec_release(&v->cluster);
	exp_release(&v->e);
	free(v->cand);
	free(v->mask);
	free(v);
}

/* K, the groups and the observation's size, from the cluster. */
static void sizes(struct env *v)
{
	struct cluster *c = cluster_new(&v->cluster);
	v->k = v->rl.k;
	v->cpu_cap = (double)cluster_total_cpus(c);
	v->gpu_cap = (double)cluster_total_gpus(c);
	v->ngroups = 1 + (v->gpu_cap > 0 ? cluster_gpu_type_count(c) : 0);
	cluster_free(c);
	/* What sim_observe_dim() will say of the episodes' engines. */
	v->obs_dim = (size_t)v->k * SIM_OBS_JOB_F +
		     (size_t)v->ngroups * SIM_OBS_GROUP_F + SIM_OBS_GLOBAL_F;
	v->cand = xcalloc(v->k, sizeof(*v->cand));
	v->mask = xcalloc(v->k + 1, 1);
}

static int check_options(struct env *v, const struct env_options *opt,
			 struct sim_error *err)
{
	const char *split = opt && opt->split ? opt->split : "train";
	if (strcmp(split, "train") && strcmp(split, "test"))
		return err_setc(err, -SIM_EINPUT, "env: unknown split '%s' "
				"(expected 'train' or 'test')", split);
	v->test = strcmp(split, "test") == 0;
	if (opt && opt->rl_json && opt->rl_json[0]) {
		int rc = exp_rl_override(opt->rl_json, "env options", &v->rl,
					 err);
		if (rc)
			return rc;
	}
	if (v->rl.backfill)
		return err_setc(err, -SIM_EINPUT, "%s: $.rl.backfill: EASY "
				"backfilling around the agent's choice is not "
				"available yet (it needs the engine's shared "
				"EASY call): set it false", v->e.path);
	if (v->rl.mode == RL_MODE_PLACE)
		return err_setc(err, -SIM_EINPUT, "%s: $.rl.mode: 'place' is "
				"not available yet: use 'select'", v->e.path);
	return 0;
}

struct env *rl_env_new(struct experiment *e, const struct env_options *opt,
		       struct sim_error *err)
{
	struct env *v = xcalloc(1, sizeof(*v));
	v->e = *e;
	memset(e, 0, sizeof(*e));
	v->rl = v->e.rl;
	int rc = v->e.has_fill
		? err_setc(err, -SIM_EINPUT, "%s: a fill experiment has no "
			   "event engine to learn on", v->e.path)
		: check_options(v, opt, err);
	if (!rc)
		rc = rl_load(v, err);
	if (rc) {
		env_free(v);
		return NULL;
	}
	sizes(v);
	v->ops = (struct policy_ops){
		.abi = CLUSTERSIM_ABI_VERSION, .size = sizeof(v->ops),
		.name = "rl-agent", .summary = "the environment's agent",
		.job_finished = rl_job_finished,
	};
	v->done = true;
	return v;
}

struct env *env_new(const char *path, const struct env_options *opt,
		    struct sim_error *err)
{
	struct experiment e;
	if (exp_load(path, &e, err) != 0)
		return NULL;
	return rl_env_new(&e, opt, err);
}

size_t env_obs_dim(const struct env *v) { return v->obs_dim; }
size_t env_actions(const struct env *v) { return (size_t)v->k + 1; }
size_t env_windows(const struct env *v) { return v->nwin; }
bool env_done(const struct env *v) { return v->done; }
double env_return(const struct env *v) { return v->ret; }
uint64_t env_decisions(const struct env *v) { return v->decisions; }

double env_time(const struct env *v)
{
	return v->s ? (double)(sim_now(v->s) - v->t0) / SIM_SEC : 0;
}

size_t env_jobs(const struct env *v, int64_t *ids, double *start,
		double *end)
{
	size_t n;
	const struct job *j = rl_env_jobs(v, &n);
	for (size_t i = 0; i < n; i++) {
		if (ids)
			ids[i] = j[i].id;
		if (start)
			start[i] = j[i].start == SIM_TIME_NONE ? NAN :
				   (double)(j[i].start - v->t0) / SIM_SEC;
		if (end)
			end[i] = j[i].end == SIM_TIME_NONE ? NAN :
				 (double)(j[i].end - v->t0) / SIM_SEC;
	}
	return n;
}

const struct job *rl_env_jobs(const struct env *v, size_t *n)
{
	if (!v->s) {
		*n = 0;
		return NULL;
	}
	return sim_jobs(v->s, n);
}

/* The engine on to the next decision point where some job fits. */
static int advance(struct env *v, struct sim_error *err)
{
	for (;;) {
		if (!v->at_decision) {
			int rc = sim_run_next(v->s, err);
			if (rc < 0) {
				v->done = true;
				return rc;
			}
			if (rc == 0) {
				v->done = true;
				return 0;
			}
			v->at_decision = true;
		}
		rl_candidates(v);
		if (v->nfit)
			return 0;
		v->at_decision = false;
	}
}

/* The reward of the transition just made, and the episode's end. */
static float take_reward(struct env *v)
{
	double r = 0;
	if (v->rl.reward == RL_REWARD_UTILIZATION) {
		double busy = v->gpu_cap > 0 ? sim_counters(v->s)->gpu_busy_area
					     : sim_counters(v->s)->busy_area;
		double d = busy - v->busy_prev;
		v->busy_prev = busy;
		v->job_sum += d;
		if (!v->rl.reward_at_end)
			r = v->util_norm > 0 ? d / v->util_norm : 0;
		else if (v->done) {
			double span = (double)(v->last_end - v->t0) / SIM_SEC;
			double cap = v->gpu_cap > 0 ? v->gpu_cap : v->cpu_cap;
			r = span > 0 ? v->job_sum / (cap * span) : 0;
		}
	} else if (!v->rl.reward_at_end) {
		r = v->pending;
	} else if (v->done) {
		r = v->job_sum;
	}
	v->pending = 0;
	v->ret += r;
	return (float)r;
}

static int start_episode(struct env *v, uint64_t seed, size_t w,
			 struct sim_error *err)
{
	episode_free(v);
	int rc = rl_window(v, w, err);
	if (rc)
		return rc;
	struct sim_config cfg = {
		.workload = &v->ew,
		.jobs_in_place = v->ew.jobs,
		.cluster = &v->cluster,
		.policy = &v->ops,
		.policy_state = v,
		.seed = seed,
		.sample_interval = 0,
		.max_samples = 3,
		.progress_timeout = -1,
	};
	cfg.schedule_each_event = v->e.schedule_each_event;
	cfg.submits_first = v->e.submits_first;
	cfg.schedule_interval = v->e.schedule_interval;
	v->s = sim_new(&cfg);
	v->seed = seed;
	v->at_decision = false;
	v->done = false;
	v->pending = v->busy_prev = v->ret = v->job_sum = 0;
	v->decisions = 0;
	v->t0 = v->last_end = v->ew.n ? v->ew.jobs[0].submit : 0;
	sim_time_t span = v->ew.n ? v->ew.jobs[v->ew.n - 1].submit - v->t0 : 0;
	sim_time_t longest = 0;
	for (size_t i = 0; i < v->ew.n; i++)
		if (v->ew.jobs[i].run > longest)
			longest = v->ew.jobs[i].run;
	v->util_norm = (v->gpu_cap > 0 ? v->gpu_cap : v->cpu_cap) *
		       (double)(span + longest) / SIM_SEC;
	rc = sim_run_open(v->s, err);
	if (!rc)
		rc = advance(v, err);
	if (!rc && v->done)
		(void)take_reward(v);
	return rc;
}

int env_reset(struct env *v, uint64_t seed, int64_t window, float *obs,
	      uint8_t *mask, struct sim_error *err)
{
	if (window >= 0 && (uint64_t)window >= v->nwin)
		return err_setc(err, -SIM_EINPUT, "env: window '%" PRId64 "' "
				"out of range 0 .. %zu of the %s split",
				window, v->nwin - 1, v->test ? "test" : "train");
	size_t w = window >= 0 ? (size_t)window
			       : (size_t)(splitmix64_hash(seed) % v->nwin);
	int rc = start_episode(v, seed, w, err);
	if (rc)
		return rc;
	rl_observe(v, obs);
	if (mask)
		memcpy(mask, v->mask, v->k + 1);
	return 0;
}

/* Whether action a is allowed now; else the reason in err. */
static int check_action(const struct env *v, int64_t a, struct sim_error *err)
{
	if (!v->s || v->done)
		return err_setc(err, -SIM_ESTATE, "env: the episode is over: "
				"reset first");
	if (a < 0 || a > (int64_t)v->k)
		return err_setc(err, -SIM_EINPUT, "env: action '%" PRId64 "' "
				"out of range 0 .. %" PRIu32 " (K = %" PRIu32
				" waits)", a, v->k, v->k);
	if (v->mask[a])
		return 0;
	if (a == (int64_t)v->k)
		return err_setc(err, -SIM_EINPUT, "env: action '%" PRId64 "' "
				"(wait) is masked: nothing is running or to "
				"come, so the jobs would wait for ever", a);
	if ((uint32_t)a >= v->ncand)
		return err_setc(err, -SIM_EINPUT, "env: action '%" PRId64 "' "
				"is masked: only %" PRIu32 " jobs are waiting",
				a, v->ncand);
	return err_setc(err, -SIM_EINPUT, "env: action '%" PRId64 "' is "
			"masked: job %lld does not fit now", a,
			(long long)v->cand[a]->id);
}

/* Applies an allowed action. */
static int apply_action(struct env *v, int64_t a, struct sim_error *err)
{
	v->decisions++;
	if (a == (int64_t)v->k) {
		v->at_decision = false;
	} else if (sim_job_start(v->s, v->cand[a]) != 0) {
		v->done = true;
		return err_setc(err, -SIM_ESTATE, "env: the engine refused to "
				"start job %lld", (long long)v->cand[a]->id);
	}
	return advance(v, err);
}

int env_step(struct env *v, int64_t a, float *obs, uint8_t *mask,
	     float *reward, bool *done, struct sim_error *err)
{
	int rc = check_action(v, a, err);
	if (rc)
		return rc;
	rc = apply_action(v, a, err);
	if (rc)
		return rc;
	float r = take_reward(v);
	if (reward)
		*reward = r;
	if (done)
		*done = v->done;
	rl_observe(v, obs);
	if (mask)
		memcpy(mask, v->mask, v->k + 1);
	return 0;
}

int env_batch_step(struct env *const *envs, size_t n, const int64_t *actions,
		   float *obs, uint8_t *masks, float *rewards, uint8_t *dones,
		   struct sim_error *err)
{
	for (size_t i = 0; i < n; i++) {
		struct sim_error e2;
		if (envs[i]->obs_dim != envs[0]->obs_dim ||
		    envs[i]->k != envs[0]->k)
			return err_setc(err, -SIM_EINPUT, "env %zu: its sizes "
					"differ from env 0's", i);
		int rc = check_action(envs[i], actions[i], &e2);
		if (rc)
			return err_setc(err, rc, "env %zu: %s", i, e2.msg);
	}
	size_t d = envs[0]->obs_dim, na = envs[0]->k + 1;
	for (size_t i = 0; i < n; i++) {
		struct env *v = envs[i];
		bool done = false;
		struct sim_error e2;
		int rc = env_step(v, actions[i], obs + i * d, masks + i * na,
				  rewards + i, &done, &e2);
		if (!rc && done)
			rc = env_reset(v, v->seed + 1, -1, obs + i * d,
				       masks + i * na, &e2);
		if (rc)
			return err_setc(err, rc, "env %zu: %s", i, e2.msg);
		dones[i] = done;
	}
	return 0;
}
