/*
 * The reinforcement-learning environment: the event engine with an agent
 * in the scheduler's place (docs/rl.md gives the MDP exactly: state,
 * action, mask, transition, reward, episode).
 *
 * An environment is built from an experiment file whose "rl" section
 * (experiments/README.md) sets the action mode, K, the episode windows and
 * their train/test split, and the reward.  Each episode is one window of
 * the workload run on an empty cluster; between two decisions the engine
 * applies every event up to the next point where a policy's schedule()
 * would be called.  Mode "select": action a in 0 .. K-1 starts the a-th
 * waiting job (in submit order); K waits (starts nothing until the next
 * event).  Points where no job of the first K fits are passed over (the
 * only action would be to wait).  Mode "place" (GPU clusters): action t
 * in 0 .. T-1 starts the head job (the first waiting one) on the
 * cluster's GPU type t; T waits; points where the head fits on no type
 * are passed over.
 *
 * Arrays: observations are float32 of env_obs_dim(); masks are uint8 of
 * env_actions() (1 = allowed).  Every call that takes arrays writes into
 * the caller's, so that Python hands numpy arrays without a copy.
 * Library calls never print or exit: they return a negative code and fill
 * err.  A refused action (out of range or masked) changes nothing.  The
 * same seed and actions give the same episode, byte for byte.
 */
#ifndef CLUSTERSIM_ENV_H
#define CLUSTERSIM_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clustersim.h"

struct env;

/* Options of env_new(); zeroed = the file's "rl" section, the train split. */
struct env_options {
	/* A JSON object of "rl" keys that replace the file's ("{\"k\": 64}");
	 * NULL or "" = none.  Checked as the file's are. */
	const char *rl_json;
	/* Which windows reset() draws from: "train" (NULL) or "test". */
	const char *split;
};

/* The environment of the experiment file at path; NULL with err filled
 * (the file's messages, exit-2 style: "FILE: $.rl.k: ...").  Loads the
 * trace once. */
struct env *env_new(const char *path, const struct env_options *opt,
		    struct sim_error *err);
void env_free(struct env *env);

/* Sizes: the observation's floats; the actions (K + 1, or T + 1 in mode
 * "place"); K, the waiting jobs the observation shows. */
size_t env_obs_dim(const struct env *env);
size_t env_actions(const struct env *env);
size_t env_k(const struct env *env);
/* The action mode: "select" or "place". */
const char *env_mode(const struct env *env);
/* T, the cluster's named GPU types (the observation's groups 1 .. T; the
 * actions of mode "place"), and the name of type t (NULL when t >= T). */
size_t env_gpu_types(const struct env *env);
const char *env_gpu_type_name(const struct env *env, size_t t);
/* Whether the agent's choice is backfilled around (the "rl" key
 * backfill; docs/rl.md, "Backfilling"). */
bool env_backfill(const struct env *env);
/* Windows of the env's split, which reset() draws from. */
size_t env_windows(const struct env *env);

/*
 * A new episode: the window drawn by seed (splitmix64 of it, modulo
 * env_windows()) when window < 0, else window number `window` of the
 * split (0 .. env_windows() - 1).  Writes the first observation and mask
 * (either may be NULL).  0, or a negative code.  An episode with no
 * decision at all is done at once (env_done()).
 */
int env_reset(struct env *env, uint64_t seed, int64_t window, float *obs,
	      uint8_t *mask, struct sim_error *err);
/*
 * One decision.  Writes the next observation and mask (NULL: not
 * wanted), the reward of the transition and whether the episode is over.
 * 0; -SIM_EINPUT for an action out of range or masked, -SIM_ESTATE after
 * the episode's end (reset first) or when the engine stops with an error;
 * a refused action changes nothing.
 */
int env_step(struct env *env, int64_t action, float *obs, uint8_t *mask,
	     float *reward, bool *done, struct sim_error *err);
bool env_done(const struct env *env);

/*
 * Steps n environments (one action each) and writes row i of obs (n x
 * obs_dim), masks (n x actions), rewards and dones.  Every environment
 * must have the same sizes.  An environment whose episode ends is reset
 * at once with the next seed of its chain (its reset seed + 1, + 2, ...):
 * its row then holds the new episode's first observation, its done flag
 * is 1 and its reward the last one of the old episode.  Every action is
 * checked before any environment steps: a bad one refuses the whole call,
 * its err naming "env i: ...".
 */
int env_batch_step(struct env *const *envs, size_t n, const int64_t *actions,
		   float *obs, uint8_t *masks, float *rewards, uint8_t *dones,
		   struct sim_error *err);

/* The last episode's outcome: the sum of its rewards, decisions made,
 * and the simulated time (seconds) since its first submit. */
double env_return(const struct env *env);
uint64_t env_decisions(const struct env *env);
double env_time(const struct env *env);

/* The current (or last) episode's jobs, in its window's order: their
 * trace ids, and start and end times in seconds since the window's first
 * submit (NaN while a job has not started or ended), into arrays of
 * env_jobs(env, NULL, NULL, NULL) entries (any may be NULL).  Returns the
 * number of jobs; 0 before the first reset.  For evaluating an agent's
 * schedule job by job. */
size_t env_jobs(const struct env *env, int64_t *ids, double *start,
		double *end);

#endif
