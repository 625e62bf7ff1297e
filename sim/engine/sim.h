/*
 * The engine's own interface (what the runner and tests use; policies use
 * include/clustersim/policy.h).  One struct sim holds everything about one
 * simulation, so any number can run in one process, in any threads.
 */
#ifndef CLUSTERSIM_SIM_H
#define CLUSTERSIM_SIM_H

#include "clustersim/policy.h"
#include "cluster/cluster.h"
#include "speed/speed.h"
#include "workload/workload.h"

/* A point of the timeline, taken in the statistics phase (last at its
 * timestamp). */
struct sample {
	sim_time_t t;
	uint64_t busy_cpus;  /* CPUs allocated at t */
	double util;         /* busy_cpus / capacity at t */
	double util_avg;     /* time-weighted utilization since the previous
	                        sample */
	uint32_t running;    /* running jobs */
	uint32_t queued;     /* pending jobs */
	uint64_t queued_cpus;/* CPUs the pending jobs ask for */
	uint64_t busy_gpus;  /* GPUs allocated at t */
	double gpu_util_avg; /* time-weighted GPU utilization since the
	                        previous sample; NaN without GPUs */
};

/* What the engine measured besides the job records. */
struct run_counters {
	uint64_t events;        /* events applied */
	uint64_t schedule_calls;/* calls of the policy's schedule() */
	uint64_t bad_calls;     /* engine calls of the policy refused */
	uint64_t rejected;      /* jobs that could never fit, or refused by
	                           their partition's time limit */
	uint64_t rejected_max_time; /* of those, refused by the time limit
	                           (a job's estimate above its partition's
	                           max_time_s) */
	double busy_area;       /* integral of allocated CPUs, CPU x seconds */
	double queue_area;      /* integral of queue length, job x seconds */
	double gpu_busy_area;   /* integral of allocated GPUs, GPU x seconds */
	uint64_t preemptions;   /* jobs preempted */
	double lost_work;       /* work lost to preemption, seconds at
	                           reference speed */
	uint64_t migrations;    /* running jobs moved to other GPUs */
	uint64_t shared_starts; /* jobs started on another job's GPUs */
	uint32_t queue_max;     /* longest queue */
	uint64_t promises_broken; /* promised starts still to come moved
	                             later (sim_job_promise) */
	uint64_t promises_missed; /* promised starts that came without the
	                             job starting */
	/* The same integrals over the measurement window only (0 without
	 * one: sim_config's measure). */
	double win_busy_area;   /* allocated CPUs, CPU x seconds */
	double win_queue_area;  /* queue length, job x seconds */
	double win_gpu_busy_area; /* allocated GPUs, GPU x seconds */
	uint32_t win_queue_max; /* longest queue inside it */
};

/* A policy parameter's resolved value. */
struct pval {
	const char *name;            /* the policy's declared name */
	enum policy_param_type type;
	int64_t i;
	double d;
	bool b;
	const char *s;               /* not owned */
	/* PARAM_FILE: the file as read (policy_params_load_files), owned
	 * by the array's owner (policy_params_free); NULL when none. */
	char *path;                  /* joined to the experiment's folder */
	char *data;                  /* its content, NUL-terminated */
	size_t len;                  /* of data, without the NUL */
	char sha256[65];             /* hex digest of the file's bytes */
};

/* The default limit of a run's timeline samples (experiments/README.md,
 * "limits"). */
#define SIM_MAX_SAMPLES_DEFAULT ((size_t)10000000)

struct sim_config {
	const struct workload *workload;    /* read only; outlives the sim */
	/* When set (to workload->jobs), the sim works on the workload's own
	 * job array instead of a copy: for a workload made for this one
	 * run, it saves a copy of every job.  The array must outlive the
	 * sim. */
	struct job *jobs_in_place;
	const struct cluster_spec *cluster;
	const struct policy_ops *policy;
	/* When set, the policy's state from the start (the caller's own,
	 * for a policy table with state_size 0 and no init, as the
	 * reinforcement-learning environment's): its notifications get it. */
	void *policy_state;
	const struct pval *params;          /* every declared parameter */
	size_t nparams;
	uint64_t seed;
	sim_time_t sample_interval;         /* timeline period; 0 = automatic */
	/* The measurement window (docs/metrics.md): with measure, the
	 * counters' win_* integrals run over [measure_start, measure_end]
	 * (SIM_TIME_NONE: open on that side). */
	bool measure;
	sim_time_t measure_start, measure_end;
	/* Most timeline samples (0: SIM_MAX_SAMPLES_DEFAULT).  An automatic
	 * period doubles when they reach it (every other sample kept); an
	 * explicit one that would need more is an error. */
	size_t max_samples;
	bool check;                         /* invariant checker */
	/* Events at the same time (experiments/README.md, "Events at the
	 * same time"): the policy is called once a timestamp's events are
	 * all applied, or after each (schedule_each_event); a job's end
	 * comes before a submission at its time, or after
	 * (submits_first). */
	bool schedule_each_event;
	bool submits_first;
	/* Scheduling rounds (the Pollux artifact's 60 s interval): > 0 =
	 * the policy is called only at multiples of this (events between
	 * are applied as they come; the engine wakes itself for the next
	 * round); 0 = at every timestamp with events. */
	sim_time_t schedule_interval;
	/* GPU job speeds (GPU types, communication): NULL = every job runs
	 * at reference speed.  Only used on a cluster with GPUs. */
	const struct speed_config *speed;
	/* Preemption: a preempted job keeps the work up to its last
	 * checkpoint, taken every checkpoint_interval of work (0: at the
	 * preemption itself, nothing lost), and spends restore_overhead when
	 * it starts again. */
	sim_time_t checkpoint_interval;
	sim_time_t restore_overhead;
	/* The restore overhead grows with the job: restore_per_gpu for each
	 * of its GPUs, and its model state (its class's fp32 parameters)
	 * written at the preemption and read back at the restart at
	 * storage_Bps bytes per second (0: no such cost).  Migrations pay
	 * the same. */
	sim_time_t restore_per_gpu;
	double storage_Bps;
	/* A job's first start costs this before its work begins, as a
	 * restore does (the Pollux artifact's 30 s on every allocation). */
	sim_time_t start_overhead;
	/* Progress detection: a run in which no job makes net progress for
	 * this long (simulated) ends with -SIM_ESTATE (sim_progress.c
	 * says what counts).  0 = SIM_PROGRESS_TIMEOUT, < 0 = off. */
	sim_time_t progress_timeout;
	/* Keep the placement log (sim_allocations): every interval a job
	 * held a placement.  Off, it costs nothing. */
	bool record_allocations;
	/* Called now and then with jobs ended so far (may be NULL). */
	void (*progress)(void *ctx, size_t ended, size_t total);
	void *progress_ctx;
	/* Tenants (docs/tenants.md), when the cluster spec has them: the
	 * job field that names each job's project (enum tenant_from), and
	 * the share of jobs drawn interactive from the seed (0: none; the
	 * trace's kind column sets JOB_INTERACTIVE too). */
	int project_from;
	double interactive_fraction;
};

/* The default span of progress detection: one simulated day. */
#define SIM_PROGRESS_TIMEOUT (86400 * SIM_SEC)

/* A change of what a tenant's running jobs hold (for its plot). */
struct tenant_step {
	sim_time_t t;     /* when */
	uint32_t tenant;  /* which (index in the cluster spec's list); with
	                     quotas per GPU type, n + tenant * ntypes + type
	                     for its holding of one type */
	uint64_t used;    /* milli-GPUs it holds from then on */
};

/* The tenants' books of a run (sim_tenant.c), for the metrics. */
struct tenant_books {
	size_t n;                     /* tenants, the cluster spec's list */
	const struct tenant_spec *spec;
	int32_t *job_tenant;          /* by job idx: its project */
	double *gpu_s_guaranteed;     /* by tenant: GPU-seconds held within
	                                 its quota ... */
	double *gpu_s_borrowed;       /* ... and above it */
	uint64_t *reclaims;           /* its jobs preempted while it held
	                                 more than its quota */
	double *reclaim_lost_gpu_s;   /* GPU-seconds of work they lost (since
	                                 their last checkpoint) */
	struct tenant_step *log;      /* every change, in time order */
	size_t nlog, logcap;
	/* Quotas per GPU type (docs/tenants.md): ntypes = the cluster's
	 * GPU types when the tenants' amounts are per type, else 0 and
	 * these NULL.  Arrays [tenant * ntypes + type]. */
	size_t ntypes;
	const char *const *type_name; /* by type: its name (the cluster's) */
	uint64_t *type_quota, *type_borrow, *type_lend; /* milli-GPUs */
	uint64_t *type_used;          /* what its jobs on the type hold */
	double *type_gpu_s_guaranteed, *type_gpu_s_borrowed;
	uint64_t *type_reclaims;
	int16_t *job_type;            /* by job idx: the type its running
	                                 placement counts on, -1: none */
	/* The engine's own: */
	struct sim_tenant *pub;       /* the policies' view (policy.h) */
	sim_time_t *last;             /* when each integral last moved */
	double *lost_seen;            /* by job: lost_work counted so far */
};
/* NULL for a run without tenants; valid until sim_free(). */
const struct tenant_books *sim_tenant_books(const struct sim *s);

/* Partitions and QOS of a run (sim_slurm.c), for the metrics. */
struct slurm_books {
	const struct cluster_spec *spec;
	int32_t *job_part;       /* by job idx: its partition, -1 none */
	int32_t *job_qos;        /* by job idx: its QOS, -1 none */
	uint64_t *rejected_max_time; /* by partition: jobs refused at
	                            submit for its time limit */
	struct sim_partition *parts; /* the policies' views (policy.h) */
	struct sim_qos *qos;
};
/* NULL for a run without partitions or QOS; valid until sim_free(). */
const struct slurm_books *sim_slurm_books(const struct sim *s);
/* Does job j ask more time than its partition's max_time (so it was
 * refused at submit)? */
bool sim_slurm_over_time(const struct sim *s, const struct job *j);

struct sim *sim_new(const struct sim_config *cfg);
void sim_free(struct sim *s);

/*
 * Runs the simulation to the end.  Returns 0, or a negative code with a
 * message: -SIM_EINPUT when the policy's init() refused its parameters,
 * -SIM_ESTATE when jobs were left pending with no event to come (a policy
 * that never starts them), or when no job made net progress for the
 * config's progress_timeout (a livelock: jobs preempted again and again
 * before they keep any work).  Once every job has ended the run ends:
 * the policy's wake-ups armed before still fire, no new one is armed.
 */
int sim_run(struct sim *s, struct sim_error *err);

/*
 * The same run, step by step, with the caller in the policy's place (the
 * reinforcement-learning environment, sim/rl/): sim_run() is these three
 * with the policy's schedule() at each step.
 *
 * sim_run_open() starts the policy (its init()) and the clock: 0 or a
 * negative code.  sim_run_next() applies every event up to the next point
 * at which schedule() would be called and returns 1 there: until the next
 * sim_run_next() the caller may make the calls schedule() may make
 * (sim_job_start(), ...).  It returns 0 once the run is over (the last
 * sample taken; again 0 when called after that), or a negative code with
 * a message, as sim_run() does.  sim_run_close() ends the run, whatever
 * came before, even a failed open (the policy's fini()), and returns rc.
 * sim_run_can_wait() at a step: whether anything is still to come (a
 * running job's end, a submit, a wake-up); when not, a step that starts
 * nothing leaves the pending jobs for ever (sim_run_next's error).
 */
int sim_run_open(struct sim *s, struct sim_error *err);
int sim_run_next(struct sim *s, struct sim_error *err);
int sim_run_close(struct sim *s, int rc);
bool sim_run_can_wait(const struct sim *s);

/* Results, valid until sim_free(). */
const struct job *sim_jobs(const struct sim *s, size_t *n);
const struct sample *sim_samples(const struct sim *s, size_t *n);
/* Why the first refused engine call that says why was refused ("reads
 * a parameter it does not declare ..."), or NULL. */
const char *sim_bad_call_first(const struct sim *s);
const struct run_counters *sim_counters(const struct sim *s);
/* One interval of the placement log: a job held one placement from
 * start to end (a start or migration, to its end, preemption or next
 * migration). */
struct alloc_interval {
	uint32_t idx;       /* the job */
	sim_time_t start;   /* when it took the placement */
	sim_time_t end;     /* when it left it */
	uint32_t slot0;     /* its extents: slots[slot0 .. slot0 + nslots) */
	uint32_t nslots;    /* of the array sim_allocations() gives */
};
/* The placement log, in the order the intervals began, and the extents
 * they name (valid until sim_free()); NULL and *n = 0 when the run was
 * not asked to keep it (sim_config.record_allocations). */
const struct alloc_interval *sim_allocations(const struct sim *s,
					     size_t *n,
					     const struct place_slot **slots);
/* The simulated cluster (for its GPU type names, ...). */
const struct cluster *sim_cluster(const struct sim *s);

/*
 * Changes a running job's speed to rate (work per unit of time; 1 = the
 * reference speed its run time was measured at): the work it has done so
 * far is kept, and its end event moves to when the rest will be done,
 * rounded up to the microsecond.  For the speed model (GPU types,
 * communication, sharing).  0, or -SIM_ESTATE for a job that is not
 * running or a rate that is not positive and finite.
 */
/* What became of one trial of a hyperparameter search (sim_hpo.c). */
struct hpo_outcome {
	uint32_t job;      /* its job's index + 1; 0 = not in the run */
	uint32_t rungs;    /* rungs it was promoted at */
	uint32_t reported; /* k + 1 for its last report at global rung k
	                      (k = the ladder's K: at max_epochs); 0 = none */
	uint32_t next;     /* global rung it runs to now */
	double loss;       /* its last report */
	bool stopped;      /* stopped early at rung reported - 1 */
	bool completed;    /* reached max_epochs */
};
/* Per trial of the workload's hpo set (n of them); NULL without. */
const struct hpo_outcome *sim_hpo_outcomes(const struct sim *s, size_t *n);

int sim_set_job_rate(struct sim *s, const struct job *j, double rate);
/* A running job's placement (NULL for a job that is not running). */
const struct placement *sim_job_placement(const struct sim *s,
					  const struct job *j);

/* The automatic timeline period for a workload: about 500 samples over
 * its submit span, at least 1 s, rounded up to a whole second.  The run
 * doubles it whenever its samples reach the limit (the span after the
 * last submit is not known in advance). */
sim_time_t sim_auto_interval(const struct workload *w);


/* The free-resource profile (profile.c); the engine owns one. */
struct profile *profile_new(void);
void profile_free(struct profile *p);
/* A running job in the engine's running set: sorted by (end, idx). */
struct run_entry {
	sim_time_t end; /* start + estimate */
	uint32_t idx;   /* the job */
};

/* Resets p to time now: the cluster's free units, plus the running jobs
 * (sorted by start + estimate), folded in lazily. */
void profile_build(struct profile *p, const struct cluster *c,
		   sim_time_t now, const struct job *jobs,
		   const struct run_entry *running, size_t n);
/* The same over a part of the cluster (a partition): free_now units
 * free now of capacity, and running the jobs holding units of that part
 * (their ends as given, sorted, each after now), each giving back
 * held[i] units at its end (held NULL: its whole demand). */
void profile_build_units(struct profile *p, const struct cluster *c,
			 sim_time_t now, const struct job *jobs,
			 const struct run_entry *running,
			 const uint64_t *held, size_t n, int64_t free_now,
			 uint64_t capacity);
/* From the next build on, the steps move from an array into a balanced
 * tree past this many (0: the default, PSTEPS_TREE_AT; 1: always the
 * tree); the answers are the same either way (tests compare them). */
void profile_set_tree_at(struct profile *p, size_t steps);
/* profile_earlier walks the steps at every call (on = true) instead of
 * keeping the runs of room of each demand between calls while the
 * steps stay the same; the answers are the same (tests compare them). */
void profile_set_walk_only(struct profile *p, bool on);
/* sim_profile's profile walks so (profile_set_walk_only). */
void sim_profile_walk_only(struct sim *s);
/* From now on sim_profile_kept() answers NULL: every pass a policy
 * makes is a full one (tests compare the two). */
void sim_refuse_kept_profile(struct sim *s);
/* Moves a single-pool profile on to now (>= its build time) as it is:
 * steps before now are never asked about again (sim_profile_kept). */
void profile_advance(struct profile *p, sim_time_t now);
/* The running job of e left the running set at the profile's now (after
 * profile_advance): its room from now to its expected end is free, as a
 * build now would have it (whether it was folded in, still to fold, or
 * started since the build and reserved from its start). */
void profile_forget(struct profile *p, const struct run_entry *e);
/* The same on a cluster with virtual clusters: one step function per VC
 * and the pool (profile_vc.c); plc is the running jobs' placements, by
 * job idx, kept by the caller while p is in use. */
void profile_build_parts(struct profile *p, const struct cluster *c,
			 sim_time_t now, const struct job *jobs,
			 const struct run_entry *running, size_t n,
			 const struct placement *plc);

#endif
