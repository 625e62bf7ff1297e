/*
 * The reinforcement-learning environment's insides (include/clustersim/
 * env.h is its interface; docs/rl.md the MDP).  The wing sits above report
 * (it reads bounded slowdowns the way the metrics do) and below run.
 *
 *   env.c       construction, episodes, steps, the batch step
 *   env_load.c  the experiment's workload and cluster, and the windows
 *   env_obs.c   the decision point's candidates, mask (in "place" mode:
 *               the GPU types the head fits on), observation and the
 *               rewards of job ends
 */
#ifndef CLUSTERSIM_RL_H
#define CLUSTERSIM_RL_H

#include "clustersim/env.h"
#include "engine/sim.h"
#include "exp/exp.h"
#include "exp/exp_inputs.h"


struct env {
	struct experiment e;          /* the experiment, loaded */
	struct rl_spec rl;            /* its "rl", with the options' keys */
	bool test;                    /* the split is the test one */
	struct exp_inputs in;         /* the trace (loaded once), cluster
	                                 and GPU speeds, as a run's */
	struct workload gw;           /* a generated workload's window */
	size_t nwin;                  /* windows of the split */
	size_t win0;                  /* a trace: first window of the split */
	/* The episode. */
	struct workload ew;           /* its window: jobs owned, renumbered;
	                                 groups and models borrowed */
	size_t jobcap;
	struct policy_ops ops;        /* the agent's table: notifications only */
	struct sim *s;                /* NULL before the first reset */
	bool at_decision;             /* sim_run_next() said 1, not passed */
	bool done;                    /* the episode is over */
	uint64_t seed;                /* the reset's seed (the chain's last) */
	sim_time_t t0;                /* the window's first submit */
	sim_time_t last_end;          /* the latest job end so far */
	double pending;               /* reward of job ends not yet given */
	double busy_prev;             /* busy area at the last decision */
	double util_norm;             /* capacity x span for utilization */
	double ret;                   /* rewards given this episode */
	uint64_t decisions;           /* steps taken this episode */
	double job_sum;               /* per-job metric sum so far */
	/* The decision point. */
	uint32_t k, ngroups;          /* K; resource groups (GPU types, or
	                                 one of CPUs) */
	size_t obs_dim;
	const struct job **cand;      /* the first K waiting jobs */
	uint32_t ncand;
	uint32_t ntypes;              /* T: the cluster's named GPU types */
	char **type_names;            /* their names, in the cluster's order */
	bool place;                   /* mode "place": the head's GPU type */
	size_t nact;                  /* actions: K + 1, or T + 1 placing */
	uint8_t *mask;                /* nact: the actions allowed */
	uint8_t *fit;                 /* K + 1: the candidates that fit now
	                                 (the mask without backfill; the
	                                 observation's "fits now") */
	const struct job *head;       /* backfill: the job the agent chose
	                                 that did not fit, reserved until it
	                                 starts (sim_backfill_around) */
	uint32_t nfit;                /* candidates that fit now */
	uint32_t nplace;              /* place: the types the head fits on */
	double cpu_cap, gpu_cap;      /* the cluster's CPUs and GPUs */
};

/* env_load.c: the workload and cluster of v->e, and the split's windows
 * (messages "FILE: $.rl...."); the window w of the split into v->ew. */
int rl_load(struct env *v, struct sim_error *err);
int rl_window(struct env *v, size_t w, struct sim_error *err);
/* The environment of an experiment already loaded (taken over: v owns
 * it from then on, even on an error). */
struct env *rl_env_new(struct experiment *e, const struct env_options *opt,
		       struct sim_error *err);
/* The episode's job records (for tests: starts and ends). */
const struct job *rl_env_jobs(const struct env *v, size_t *n);

/* env_obs.c: the candidates and mask at the decision point (placing:
 * the CPU-only heads started, the head's types in mask); the
 * observation (obs may be NULL); the agent table's job_finished. */
void rl_candidates(struct env *v);
void rl_observe(const struct env *v, float *obs);
void rl_job_finished(struct sim *s, void *state, const struct job *j);

#endif
