/*
 * The engine's insides, shared by its files and by no one else: struct
 * sim (one simulation, all its state), the per-job progress and resume
 * records, the orders the queue and the running set keep, and the calls
 * one engine file makes into another.
 *
 * The files of the engine, each one responsibility:
 *   sim.c           the event loop, the pending queue, the running set,
 *                   starts and preemptions, dispatch to the policy
 *   sim_progress.c  job progress, rates and attained service
 *   sim_share.c     GPU sharing (pairs of jobs) and migration
 *   sim_rank.c      the shared steps of policies: ranking, head start,
 *                   the free-resource profile
 *   sim_backfill.c  starting in an order a policy gives, and EASY
 *                   backfilling around it
 *   sim_query.c     read-only queries, parameters, GPU types
 *   sim_check.c     the invariant checker (--check)
 *   sim_sample.c    the timeline's samples and their thinning
 *   sim_placelog.c  the placement log (allocations.csv), when asked
 *   sim_hpo.c       hyperparameter searches: the rung decisions at
 *                   trials' end events
 *   sim_tenant.c    tenants' quota books: what each holds, guaranteed
 *                   and borrowed GPU-time, reclaims
 * Small calls on hot paths are inline here, so the split costs no calls.
 */
#ifndef CLUSTERSIM_SIM_IMPL_H
#define CLUSTERSIM_SIM_IMPL_H

#include "engine/sim.h"

#include <math.h>
#include <stdio.h>

#include "engine/evq.h"

/* The cluster's sizes a learning agent's observation divides by
 * (sim_observe.c), found at its first call. */
struct sim_obs_caps {
	bool known;      /* found */
	double cpus;     /* the cluster's CPUs */
	double gpus;     /* and GPUs */
	uint32_t ntypes; /* named GPU types (0 without GPUs) */
	double *units;   /* 1 + ntypes: the allocation units, then each
	                    GPU type's GPUs */
};

struct sim {
	sim_time_t round_at; /* the wake-up pushed for the next scheduling
	                        round (schedule_interval); 0 = none */
	struct sim_config cfg;
	const struct policy_ops *ops;
	void *pstate;                 /* the policy's */
	void *pstate_own;             /* the block of ops->state_size the
	                                 engine allocated; NULL = none */
	unsigned char *jstate;        /* per job, ops->job_state_size bytes:
	                                 the policy's slots; NULL = none */
	void **allocs;                /* what sim_alloc gave, freed at the
	                                 end of the run */
	size_t nallocs, alloccap;
	struct job *jobs;             /* this run's copy of the workload */
	size_t njobs;
	struct cluster *cluster;
	struct evq q;
	sim_time_t now;
	size_t next_submit;           /* next job to submit */
	size_t ended;                 /* jobs in an end state */

	/* Pending queue in policy order: queue[qhead .. qhead + qlen). */
	uint32_t *queue;
	size_t qhead, qlen, qcap;
	uint64_t queued_cpus;         /* CPUs the pending jobs ask for */

	/* Running jobs, sorted by (start + estimate, idx); the key is kept
	 * beside the index so searches stay in one array.  running points
	 * into runbuf with room on both sides: an insertion or removal moves
	 * whichever side of it is shorter. */
	struct run_entry *running;
	struct run_entry *runbuf;
	size_t nrun, runcap;
	struct placement *plc;        /* per job; storage kept while running */
	uint32_t *end_ev;             /* per job: its end event while running */
	struct progress *prog;        /* per job, made on the first rate
	                                 change or preemption; NULL while
	                                 every job runs at reference speed */
	struct resume *resume;        /* per job, made on the first
	                                 preemption */
	uint64_t busy_cpus;           /* allocated CPUs (whole nodes when
	                                 nodes are exclusive) */
	size_t npairs;                /* pairs of jobs sharing GPUs */
	struct run_entry *pscratch;   /* sim_profile's running set without
	                                 the first-ending job of each pair */
	size_t pscap;

	struct profile *profile;      /* backfilling scratch */
	struct run_entry *gone;       /* jobs out of the running set since
	                                 the profile was built or kept: the
	                                 room sim_profile_kept gives back */
	size_t ngone, gonecap;
	bool gone_lost;               /* more left than the log keeps */
	bool profile_keepable;        /* that build was single-pool, no pairs */
	bool profile_refuse;          /* sim_profile_kept always says NULL */
	struct speed *speed;          /* GPU job speeds; NULL = reference */
	enum place_strategy placement;/* how GPU jobs are placed */
	uint64_t rng;                 /* placement's random state (seeded) */

	/* Statistics. */
	struct sample *samples;
	size_t nsamples, scap;
	size_t max_samples;           /* the timeline's size limit */
	sim_time_t interval;          /* timeline period */
	int64_t past_horizon;         /* the first job whose end would pass
	                                 SIM_TIME_HORIZON: its index + 1;
	                                 0 = none */
	double area_at_sample;        /* busy_area at the previous sample */
	double gpu_area_at_sample;    /* gpu_busy_area then */
	uint64_t busy_gpus;           /* allocated GPUs */
	uint64_t capacity_gpus;
	sim_time_t last_sample_t;
	sim_time_t area_t;            /* areas integrated up to here */
	bool measure;                 /* a measurement window is set */
	sim_time_t win_start, win_end;/* its bounds (open: the extremes) */
	bool started;                 /* the first event was applied */
	struct run_counters counters;
	char bad_first[160];          /* what the first refused call that
	                                 says why was ("" = none) */
	uint64_t capacity_cpus;
	bool defer_rates;             /* in sim_apply_ranking: sim_update_rates
	                                 waits for its end */
	bool rates_due;               /* an sim_update_rates waited */
	bool in_schedule;             /* schedule() is running: the only
	                                 time a policy may start jobs */
	/* Step-wise running (sim_run_open / sim_run_next). */
	bool at_time;                 /* the current time's events are being
	                                 applied: the next step goes on with
	                                 them */
	bool run_open;                /* sim_run_open succeeded */
	size_t progress_mark;         /* ended count of the next progress
	                                 callback */

	/* The ranking a policy builds with sim_rank_add (sim_rank.c). */
	const struct job **rank;
	size_t nrank, rankcap;
	struct rank_key *rkeys;       /* sim_rank_by's keys */
	size_t rkcap;
	/* The order sim_start_by and sim_backfill_easy walk when the
	 * policy gives none (sim_backfill.c). */
	const struct job **border;
	size_t bordcap;
	uint64_t rank_units;          /* units the list has left to give */
	bool rank_pool;               /* one pool of units (no VCs) */
	bool count_zero;              /* qzero is kept (from the first
	                                 ranking on) */
	size_t qzero;                 /* pending jobs that ask for no units */
	struct sim_heap *qdemand;     /* pending jobs by the units they ask
	                                 for, kept with qzero: the least says
	                                 when none fits what a list has left */

	/* Progress detection (sim_progress.c). */
	sim_time_t progress_span;     /* no net progress this long is an
	                                 error; 0 = off */
	sim_time_t progress_due;      /* when to look for it next */
	bool progress_late;           /* that look was put off once, for
	                                 jobs that started in the span */
	sim_time_t progress_since;    /* the last progress, once put off */
	/* The policy's min_run_s, when it declares one: a job that
	 * (re)started is not preempted before it has run this long. */
	sim_time_t min_run;           /* microseconds; 0 = none */
	sim_time_t pin_wake;          /* the wake-up armed for when a kept
	                                 job may be preempted; 0 = none */

	/* Promised starts (sim_promise.c). */
	sim_time_t *promise;          /* per job, made on the first promise;
	                                 SIM_TIME_NONE = none */
	struct promise_break {        /* the first promise moved later */
		int64_t job;          /* its index + 1; 0 = none */
		sim_time_t was, now_at, at; /* old promise, new one, when */
	} broke;
	struct alloc_log *alog;       /* the placement log (sim_placelog.c);
	                                 NULL = not kept */
	struct hpo_run *hpo;          /* the searches' rung decisions
	                                 (sim_hpo.c); NULL = no searches */
	struct sim_obs_caps obs_caps; /* for learning agents' observations */
	struct tenant_books *tenants; /* quota books (sim_tenant.c); NULL =
	                                 no tenants */
	struct slurm_books *slurm;    /* partitions and QOS (sim_slurm.c);
	                                 NULL = none */
	struct profile **pprof;       /* sim_partition_profiles' profiles */
	unsigned npprof;
	struct run_entry *ppsrc;      /* their running sets, scratch */
	uint64_t *ppheld;             /* and the units each holds there */
	size_t ppcap, pphcap;
};

/* A job and its key in sim_rank_by. */
struct rank_key {
	double key;
	uint32_t idx;
};

/*
 * How far a running job has got, once its speed can differ from the
 * reference: work is run time at reference speed, in microseconds.
 */
struct progress {
	double done;      /* work done up to since, microseconds of work */
	sim_time_t since; /* when done was last brought up to date */
	double rate;      /* work per microsecond now (1 = reference speed) */
	sim_time_t started; /* when its current run started */
	sim_time_t hold;  /* no progress before this: it is restoring a
	                     checkpoint (after a restart or a migration) */
	double factor;    /* share of its speed alone that it gets: 1, or
	                     less while it shares its GPUs */
	uint32_t partner; /* the job sharing its GPUs: its index + 1; 0 */
	bool owner;       /* of a pair, the one holding the resources */
	sim_time_t hsince;/* service counted into attained up to here */
	double weight;    /* share of its resources it is charged for */
	/* Placement slowdown (docs/metrics.md), over all its runs: */
	double ideal;     /* the rate an ideal placement would give now */
	double ran;       /* microseconds run up to since */
	double ran_ideal; /* what the same work takes at the ideal rates */
	double restored;  /* resource-seconds of attained service spent
	                     restoring checkpoints, up to hsince */
};

/* What a preempted job keeps, made on the first preemption. */
struct resume {
	double kept;      /* work it keeps, microseconds */
	sim_time_t since; /* when it last started to wait */
	sim_time_t overhead; /* what its next start spends restoring */
};

/* ---- Ordering ------------------------------------------------------- */

/*
 * When a running job is planned to end by its estimate: start + estimate;
 * for a restarted job, its restart + the restore overhead + the part of
 * the estimate beyond the work it kept.  Fixed while it runs.
 */
/* The timeline (sim_sample.c): a sample now; the sample event at t and
 * the next one's; the error of an explicit period that needs more
 * samples than the limit; the most samples kept before thinning. */
void sim_take_sample(struct sim *s);
int sim_sample_event(struct sim *s, sim_time_t t, struct sim_error *err);
int sim_too_many_samples(const struct sim *s, struct sim_error *err);
size_t sim_samples_cap(const struct sim *s);

/* Notes a job that left the running set, for sim_profile_kept. */
void sim_note_gone(struct sim *s, const struct run_entry *e);

static inline sim_time_t planned_end(const struct sim *s, const struct job *j)
{
	sim_time_t from = j->start, est = j->estimate;
	if (j->preemptions) {
		from = s->prog[j->idx].started;
		double rest = (double)est - s->resume[j->idx].kept;
		est = s->resume[j->idx].overhead +
		      (rest > 0 ? (sim_time_t)ceil(rest) : 0);
	}
	return est > SIM_TIME_MAX - from ? SIM_TIME_MAX : from + est;
}

/*
 * The latest time an event may be set for: half the int64 clock, so that
 * a time plus one more input-sized time cannot wrap.  A job that would
 * end later (its run at a very low rate, a huge restore cost) ends the
 * run with an error (sim_run) instead of overflowing the clock.
 */
#define SIM_TIME_HORIZON (INT64_MAX / 2)

/* t + dt microseconds (dt >= 0, rounded up), or SIM_TIME_HORIZON with
 * job j remembered when that would pass the horizon (or dt is NaN). */
static inline sim_time_t sim_time_after(struct sim *s, sim_time_t t,
					double dt, const struct job *j)
{
	if (dt <= (double)(SIM_TIME_HORIZON - t))
		return t + (sim_time_t)ceil(dt > 0 ? dt : 0);
	if (!s->past_horizon)
		s->past_horizon = (int64_t)j->idx + 1;
	return SIM_TIME_HORIZON;
}

/* Running order: (planned end, idx). */
static inline bool run_before(const struct sim *s, const struct job *a,
			      const struct job *b)
{
	sim_time_t ea = planned_end(s, a), eb = planned_end(s, b);
	return ea < eb || (ea == eb && a->idx < b->idx);
}

/* Queue order: the policy's key, then (submit, id) which idx follows. */
static inline int queue_cmp(const struct sim *s, const struct job *a,
			    const struct job *b)
{
	if (s->ops->order) {
		int c = s->ops->order(s->pstate, a, b);
		if (c)
			return c;
	}
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Work a running job has done by now. */
static inline double prog_work(const struct sim *s, const struct job *j)
{
	if (!s->prog)
		return (double)(s->now - j->start);
	const struct progress *p = &s->prog[j->idx];
	sim_time_t from = p->since > p->hold ? p->since : p->hold;
	return p->done + (s->now > from ? (double)(s->now - from) * p->rate
					: 0);
}

/* Resource-seconds a running job has been charged for since its service
 * was last counted: what it holds, times its share of it. */
static inline double held(const struct sim *s, const struct job *j)
{
	double res = j->gpus ? j->gpus : j->cpus;
	if (!s->prog)
		return res * (double)(s->now - j->start) / SIM_SEC;
	const struct progress *p = &s->prog[j->idx];
	return res * p->weight * (double)(s->now - p->hsince) / SIM_SEC;
}

/* Of held(): the part spent restoring a checkpoint (before p->hold). */
static inline double held_restoring(const struct sim *s, const struct job *j)
{
	if (!s->prog)
		return 0;
	const struct progress *p = &s->prog[j->idx];
	sim_time_t e = p->hold < s->now ? p->hold : s->now;
	if (e <= p->hsince)
		return 0;
	double res = j->gpus ? j->gpus : j->cpus;
	return res * p->weight * (double)(e - p->hsince) / SIM_SEC;
}

/* The job sharing j's GPUs, or NULL. */
static inline struct job *partner_of(const struct sim *s, const struct job *j)
{
	if (!s->prog || !s->prog[j->idx].partner)
		return NULL;
	return &s->jobs[s->prog[j->idx].partner - 1];
}

/* Is j the member of a pair that does not hold the resources? */
static inline bool is_guest(const struct sim *s, const struct job *j)
{
	return partner_of(s, j) && !s->prog[j->idx].owner;
}

/* Is j one of this simulation's jobs: inside the job array and at the
 * start of a record (a pointer into the middle of one is not a job)?
 * Compared as integers, so that a foreign pointer is no undefined
 * behaviour. */
static inline bool own_job(const struct sim *s, const struct job *j)
{
	uintptr_t b = (uintptr_t)s->jobs, p = (uintptr_t)j;
	return p >= b && p - b < (uintptr_t)s->njobs * sizeof(*j) &&
	       (p - b) % sizeof(*j) == 0;
}

/* Counts a refused engine call of the policy, from a query that sees the
 * simulation as const (the object itself never is); the reason (printf
 * style) is kept when it is the first. */
void bad_query(const struct sim *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Is j a job of this run?  If not, a bad call of `call`. */
static inline bool check_job(const struct sim *s, const struct job *j,
			     const char *call)
{
	if (own_job(s, j))
		return true;
	bad_query(s, "called %s with a job that is not one of the run's",
		  call);
	return false;
}
/* Net progress was made now (a job ended or kept new work): the next
 * look is a span away. */
static inline void note_progress(struct sim *s)
{
	if (!s->progress_span)
		return;
	s->progress_due = s->progress_span > SIM_TIME_MAX - s->now
		? SIM_TIME_MAX : s->now + s->progress_span;
	s->progress_late = false;
}

/* Is j a running job that its policy's min_run_s still protects: it
 * (re)started less than min_run ago?  (A guest on another job's GPUs
 * holds nothing of its own and is not protected.) */
static inline bool is_pinned(const struct sim *s, const struct job *j)
{
	if (!s->min_run || j->state != JOB_RUNNING || is_guest(s, j))
		return false;
	sim_time_t from = s->prog ? s->prog[j->idx].started : j->start;
	return s->now - from < s->min_run;
}

/* A job's demand in allocation units, as units_demand() counts it
 * (GPUs on a cluster with GPUs), without the calls: for the ranking. */
static inline uint64_t rank_demand(const struct sim *s, const struct job *j)
{
	return s->capacity_gpus ? j->gpus : cluster_demand(s->cluster, j);
}

/* ---- Calls between the engine's files -------------------------------- */

/* sim.c: a pending job whose placement is in s->plc starts running. */
void sim_begin_run(struct sim *s, struct job *j);
/* sim.c: a placement summary in the job record; a class when drawn. */
void sim_note_placement(struct sim *s, struct job *j);
void sim_draw_class(struct sim *s, struct job *j);

/* sim_progress.c */
void sim_ensure_prog(struct sim *s);
void sim_pslow_account(struct progress *p, sim_time_t now);
void sim_prog_sync(struct sim *s, const struct job *j);
void sim_prog_begin(struct sim *s, const struct job *j, double done,
		    sim_time_t hold);
void sim_count_held(struct sim *s, struct job *j);
void sim_set_weight(struct sim *s, struct job *j, double weight);
void sim_apply_rate(struct sim *s, const struct job *j);
/* A GPU job starts on its placement: it joins the fabric, and a
 * large-model job's ranks are laid on its nodes for the speed model. */
void sim_speed_started(struct sim *s, const struct job *j);
/* A pending job's GPUs and batch change, the queue kept in order
 * (sim.c; sim_job_resize in sim_resize.c checks the call). */
/* sim_rank.c: a pending job joins (in) or leaves the queue counts a
 * ranking reads (qzero, qdemand), once they are kept. */
void sim_rank_note_queue(struct sim *s, const struct job *j, bool in);
void sim_queue_reshape(struct sim *s, struct job *j, uint32_t gpus,
		       uint32_t batch);
sim_time_t sim_restore_cost(const struct sim *s, const struct job *j);
/* At a GPU job's first start, once the fabric has its flow: its service,
 * the time its work takes at its rate there alone (docs/metrics.md). */
void sim_note_service(struct sim *s, struct job *j);
void sim_update_rates(struct sim *s);
void sim_progress_start(struct sim *s);
int sim_progress_check(struct sim *s, struct sim_error *err);

/* sim.c: a notification (job_started, job_preempted) to the policy,
 * which may not start or preempt jobs meanwhile. */
void sim_notify(struct sim *s,
		void (*cb)(struct sim *, void *, const struct job *),
		const struct job *j);

/* sim_share.c: a running job stops and leaves its resources (or its
 * pair). */
void sim_leave_resources(struct sim *s, struct job *j);

/* sim_placelog.c: the placement log, made by init when the config asks
 * for it; open when a job takes its placement in s->plc, close before
 * it leaves it. */
void sim_placelog_init(struct sim *s);
void sim_placelog_release(struct sim *s);
void sim_placelog_open(struct sim *s, const struct job *j);
void sim_placelog_close(struct sim *s, const struct job *j);
static inline void placelog_open(struct sim *s, const struct job *j)
{
	if (s->alog)
		sim_placelog_open(s, j);
}
static inline void placelog_close(struct sim *s, const struct job *j)
{
	if (s->alog)
		sim_placelog_close(s, j);
}

/* sim_hpo.c: the searches' state, made by sim_new when the workload
 * has searches (each trial's work set to its first rung), freed by
 * sim_free; at a trial's end event, true when it goes on running
 * (promoted to its next rung, or waiting at a synchronous one), false
 * when it ends (stopped early, or done). */
/* sim_tenant.c: the tenants' books, made by sim_new when the cluster
 * has tenants; a job's start and stop move them. */
void sim_tenant_init(struct sim *s);
/* sim_slurm.c: each job's partition and QOS, made by sim_new when the
 * cluster has them; sim_slurm_refuse: is a job submitted now larger than
 * its partition, or above its time limit (then counted)? */
void sim_slurm_init(struct sim *s);
void sim_slurm_release(struct sim *s);
bool sim_slurm_refuse(struct sim *s, const struct job *j);
void sim_tenant_release(struct sim *s);
void sim_tenant_start(struct sim *s, const struct job *j);
void sim_tenant_stop(struct sim *s, const struct job *j);
void sim_hpo_init(struct sim *s);
void sim_hpo_release(struct sim *s);
bool sim_hpo_at_end(struct sim *s, struct job *j);

/* sim_check.c: aborts with a message on a broken invariant. */
void sim_check_invariants(struct sim *s);
/* The first broken promise, as the run's error (sim_promise.c). */
int sim_promise_error(const struct sim *s, struct sim_error *err);

#endif
