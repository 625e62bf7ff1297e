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
 *
 * Mode "place": the action is the GPU type of the head job (the first
 * waiting one), or "wait"; decision points are where the head fits on
 * some type (sim_place_point, which also starts CPU-only heads that fit,
 * without a decision).
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
	exp_inputs_release(&v->in);
	workload_release(&v->gw);
	exp_release(&v->e);
	for (uint32_t t = 0; v->type_names && t < v->ntypes; t++)
		free(v->type_names[t]);
	free(v->type_names);
	free(v->cand);
	free(v->mask);
	free(v->fit);
	free(v);
}

/* K, the groups and the observation's size, from the cluster. */
static void sizes(struct env *v)
{
	struct cluster *c = cluster_new(&v->in.cluster);
	v->k = v->rl.k;
	v->cpu_cap = (double)cluster_total_cpus(c);
	v->gpu_cap = (double)cluster_total_gpus(c);
	v->ntypes = v->gpu_cap > 0 ? cluster_gpu_type_count(c) : 0;
	v->ngroups = 1 + v->ntypes;
	v->type_names = xcalloc(v->ntypes + 1, sizeof(*v->type_names));
	for (uint32_t t = 0; t < v->ntypes; t++)
		v->type_names[t] = xstrdup(cluster_gpu_type_name(c, t));
	cluster_free(c);
	v->nact = v->place ? (size_t)v->ntypes + 1 : (size_t)v->rl.k + 1;
	/* What sim_observe_dim() will say of the episodes' engines. */
	v->obs_dim = (size_t)v->k * SIM_OBS_JOB_F +
		     (size_t)v->ngroups * SIM_OBS_GROUP_F + SIM_OBS_GLOBAL_F;
	v->cand = xcalloc(v->k, sizeof(*v->cand));
	v->mask = xcalloc(v->nact, 1);
	v->fit = xcalloc(v->k + 1, 1);
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
	v->place = v->rl.mode == RL_MODE_PLACE;
	if (v->place && v->rl.backfill)
		return err_setc(err, -SIM_EINPUT, "%s: $.rl.backfill: "
				"backfilling around the agent's choice is for "
				"mode 'select' only (mode 'place' places the "
				"head job)", v->e.path);
	return 0;
}

/* Mode "place" needs GPU types to choose among, and every GPU of one:
 * else a GPU job could fit where no action places it. */
static int check_place(const struct env *v, struct sim_error *err)
{
	const struct node_group *untyped = NULL;
	bool typed = false;
	for (size_t i = 0; i < v->in.cluster.ngroups; i++) {
		const struct node_group *g = &v->in.cluster.groups[i];
		if (g->gpus && g->gpu_type)
			typed = true;
		else if (g->gpus && !untyped)
			untyped = g;
	}
	if (!typed)
		return err_setc(err, -SIM_EINPUT, "%s: $.rl.mode: 'place' "
				"chooses the head job's GPU type, and this "
				"cluster has no GPU types (use 'select')",
				v->e.path);
	if (untyped)
		return err_setc(err, -SIM_EINPUT, "%s: $.rl.mode: 'place' "
				"needs every GPU of the cluster to have a "
				"gpu_type: node group '%s' has GPUs of no type",
				v->e.path, untyped->name);
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
	if (!rc && v->place)
		rc = check_place(v, err);
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
	if (exp_load_base(path, &e, err) != 0)
		return NULL;
	return rl_env_new(&e, opt, err);
}

size_t env_obs_dim(const struct env *v) { return v->obs_dim; }
size_t env_actions(const struct env *v) { return v->nact; }
size_t env_k(const struct env *v) { return v->k; }
const char *env_mode(const struct env *v)
{
	return rl_mode_names[v->rl.mode];
}
size_t env_gpu_types(const struct env *v) { return v->ntypes; }
const char *env_gpu_type_name(const struct env *v, size_t t)
{
	return t < v->ntypes ? v->type_names[t] : NULL;
}
bool env_backfill(const struct env *v) { return v->rl.backfill; }
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

/* The engine on to the next decision point where some job fits (with
 * backfill: where some job waits, once the reserved head has started;
 * until then each point backfills around it). */
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
		if (v->head && !sim_backfill_around(v->s, v->head)) {
			v->at_decision = false;
			continue;
		}
		v->head = NULL;
		rl_candidates(v);
		if (v->place ? v->nplace > 0 :
		    v->rl.backfill ? v->ncand > 0 : v->nfit > 0)
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
		.cluster = &v->in.cluster,
		.policy = &v->ops,
		.policy_state = v,
		.speed = v->in.use_speed ? &v->in.speed : NULL,
		.seed = seed,
		.sample_interval = 0,
		.max_samples = 3,
	};
	/* As a run's (start overhead, checkpoints, tenants), but with no
	 * progress watchdog: an agent's waits are its choice, and wait is
	 * refused when it would stall the episode (docs/rl.md). */
	exp_engine_settings(&v->e, &cfg);
	cfg.progress_timeout = -1;
	v->s = sim_new(&cfg);
	v->seed = seed;
	v->at_decision = false;
	v->head = NULL;
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
		memcpy(mask, v->mask, v->nact);
	return 0;
}

/* Why placing action a is masked: the head's own type, or no room. */
static int place_masked(const struct env *v, int64_t a, struct sim_error *err)
{
	const struct job *h = sim_queue_at(v->s, 0);
	if (h->gpu_type && h->gpu_type != a + 1)
		return err_setc(err, -SIM_EINPUT, "env: action '%" PRId64 "' "
				"is masked: job %lld asks GPU type '%s'", a,
				(long long)h->id,
				v->type_names[h->gpu_type - 1]);
	return err_setc(err, -SIM_EINPUT, "env: action '%" PRId64 "' is "
			"masked: job %lld does not fit on GPU type '%s' now",
			a, (long long)h->id, v->type_names[a]);
}

/* Whether action a is allowed now; else the reason in err. */
static int check_action(const struct env *v, int64_t a, struct sim_error *err)
{
	int64_t wait = (int64_t)v->nact - 1;
	if (!v->s || v->done)
		return err_setc(err, -SIM_ESTATE, "env: the episode is over: "
				"reset first");
	if (a < 0 || a > wait)
		return err_setc(err, -SIM_EINPUT, "env: action '%" PRId64 "' "
				"out of range 0 .. %" PRId64 " (%s = %" PRId64
				" waits)", a, wait, v->place ? "T" : "K", wait);
	if (v->mask[a])
		return 0;
	if (a == wait)
		return err_setc(err, -SIM_EINPUT, "env: action '%" PRId64 "' "
				"(wait) is masked: nothing is running or to "
				"come, so the jobs would wait for ever", a);
	if (v->place)
		return place_masked(v, a, err);
	if ((uint32_t)a >= v->ncand)
		return err_setc(err, -SIM_EINPUT, "env: action '%" PRId64 "' "
				"is masked: only %" PRIu32 " jobs are waiting",
				a, v->ncand);
	return err_setc(err, -SIM_EINPUT, "env: action '%" PRId64 "' is "
			"masked: job %lld does not fit now", a,
			(long long)v->cand[a]->id);
}

/* Applies an allowed action: waits, places the head on GPU type a, or
 * starts candidate a (with backfill: reserves it when it does not fit). */
static int apply_action(struct env *v, int64_t a, struct sim_error *err)
{
	v->decisions++;
	const struct job *j = a + 1 < (int64_t)v->nact ?
			      v->cand[v->place ? 0 : a] : NULL;
	int rc = 0;
	if (!j)
		v->at_decision = false;
	else if (v->place)
		rc = sim_job_start_on(v->s, j, (unsigned)a);
	else if (!v->fit[a]) /* backfill: reserved, the others around */
		v->head = j;
	else
		rc = sim_job_start(v->s, j);
	if (rc) {
		v->done = true;
		return err_setc(err, -SIM_ESTATE, "env: the engine refused to "
				"start job %lld", (long long)j->id);
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
		memcpy(mask, v->mask, v->nact);
	return 0;
}

int env_batch_step(struct env *const *envs, size_t n, const int64_t *actions,
		   float *obs, uint8_t *masks, float *rewards, uint8_t *dones,
		   struct sim_error *err)
{
	for (size_t i = 0; i < n; i++) {
		struct sim_error e2;
		if (envs[i]->obs_dim != envs[0]->obs_dim ||
		    envs[i]->nact != envs[0]->nact)
			return err_setc(err, -SIM_EINPUT, "env %zu: its sizes "
					"differ from env 0's", i);
		int rc = check_action(envs[i], actions[i], &e2);
		if (rc)
			return err_setc(err, rc, "env %zu: %s", i, e2.msg);
	}
	size_t d = envs[0]->obs_dim, na = envs[0]->nact;
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
