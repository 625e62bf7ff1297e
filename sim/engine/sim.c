/*
 * The engine: one discrete-event loop over a priority queue.
 *
 * Same-timestamp rules (each pinned by a test in tests/test_sim.c):
 *  1. Events are applied in (time, phase, insertion) order; the phases at
 *     one time are job end, node change, job submit, policy timer, sample.
 *  2. When every end, node, submit and timer event of the current time has
 *     been applied, the policy's schedule() runs once (if any fired).
 *  3. Events that schedule() creates at the same time (a zero-length job
 *     ends at once) are applied next, then schedule() runs again, until
 *     the time is quiet.
 *  4. The statistics sample of that time is taken last.
 * Pending jobs are kept in the policy's order (submit order by default),
 * every tie broken by (submit, job id).  Only the next submit of the
 * workload is in the queue at any time.
 *
 * The engine validates every call a policy makes; a refused call is
 * counted and returns a negative code (the sched_ext way), never aborts.
 */
#include "engine/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/evq.h"
#include "speed/jobclass.h"
#include "base/util.h"

struct sim {
	struct sim_config cfg;
	const struct policy_ops *ops;
	void *pstate;                 /* the policy's */
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
	struct speed *speed;          /* GPU job speeds; NULL = reference */
	enum place_strategy placement;/* how GPU jobs are placed */
	uint64_t rng;                 /* placement's random state (seeded) */

	/* Statistics. */
	struct sample *samples;
	size_t nsamples, scap;
	sim_time_t interval;          /* timeline period */
	double area_at_sample;        /* busy_area at the previous sample */
	double gpu_area_at_sample;    /* gpu_busy_area then */
	uint64_t busy_gpus;           /* allocated GPUs */
	uint64_t capacity_gpus;
	sim_time_t last_sample_t;
	sim_time_t area_t;            /* areas integrated up to here */
	bool started;                 /* the first event was applied */
	struct run_counters counters;
	uint64_t capacity_cpus;
	bool defer_rates;             /* in sim_apply_ranking: update_rates
	                                 waits for its end */
	bool rates_due;               /* an update_rates waited */
	bool in_schedule;             /* schedule() is running: the only
	                                 time a policy may start jobs */
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
		int c = s->ops->order(a, b);
		if (c)
			return c;
	}
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* ---- Construction --------------------------------------------------- */

sim_time_t sim_auto_interval(const struct workload *w)
{
	if (w->n < 2)
		return SIM_SEC;
	sim_time_t span = w->jobs[w->n - 1].submit - w->jobs[0].submit;
	sim_time_t iv = span / 500;
	iv = (iv + SIM_SEC - 1) / SIM_SEC * SIM_SEC;
	return iv < SIM_SEC ? SIM_SEC : iv;
}

struct sim *sim_new(const struct sim_config *cfg)
{
	struct sim *s = xcalloc(1, sizeof(*s));
	s->cfg = *cfg;
	s->ops = cfg->policy;
	s->njobs = cfg->workload->n;
	if (cfg->jobs_in_place) {
		SIM_ASSERT(cfg->jobs_in_place == cfg->workload->jobs);
		s->jobs = cfg->jobs_in_place;
	} else {
		s->jobs = xmalloc(s->njobs * sizeof(*s->jobs));
		if (s->njobs)
			memcpy(s->jobs, cfg->workload->jobs,
			       s->njobs * sizeof(*s->jobs));
	}
	for (size_t i = 0; i < s->njobs; i++) {
		struct job *j = &s->jobs[i];
		j->state = JOB_FUTURE;
		j->start = j->end = SIM_TIME_NONE;
		j->preemptions = 0;
		j->restarts = 0;
		j->attained = 0;
		j->queued = 0;
		j->nodes_used = 0;
		j->gpu_type_used = 0;
		j->placement_slowdown = 0;
	}
	s->plc = xcalloc(s->njobs, sizeof(*s->plc));
	s->end_ev = xmalloc((s->njobs ? s->njobs : 1) * sizeof(*s->end_ev));
	s->cluster = cluster_new(cfg->cluster);
	cluster_bind_groups(s->cluster, cfg->workload->groups,
			    cfg->workload->ngroups);
	s->capacity_cpus = cluster_total_cpus(s->cluster);
	s->capacity_gpus = cluster_total_gpus(s->cluster);
	s->profile = profile_new();
	if (cfg->speed && cluster_total_gpus(s->cluster))
		s->speed = speed_new(cfg->cluster, &cfg->speed->net,
				     cfg->speed->ref_gpu, cfg->speed->thr);
	evq_init(&s->q);
	s->interval = cfg->sample_interval > 0 ? cfg->sample_interval
					       : sim_auto_interval(cfg->workload);
	return s;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->njobs; i++)
		placement_release(&s->plc[i]);
	free(s->plc);
	free(s->end_ev);
	free(s->prog);
	free(s->resume);
	if (!s->cfg.jobs_in_place)
		free(s->jobs);
	free(s->queue);
	free(s->runbuf);
	free(s->pscratch);
	free(s->samples);
	profile_free(s->profile);
	speed_free(s->speed);
	cluster_free(s->cluster);
	evq_release(&s->q);
	free(s);
}

/* ---- Queue and running set ------------------------------------------ */

static void queue_insert(struct sim *s, struct job *j)
{
	/* Make room at the tail, compacting when the head has drifted. */
	if (s->qhead + s->qlen + 1 > s->qcap && s->qhead > 0) {
		memmove(s->queue, s->queue + s->qhead,
			s->qlen * sizeof(*s->queue));
		s->qhead = 0;
	}
	xgrow(&s->queue, &s->qcap, s->qhead + s->qlen + 1, sizeof(*s->queue));
	uint32_t *q = s->queue + s->qhead;
	/* Upper bound: after every job that goes before or ties. */
	size_t lo = 0, hi = s->qlen;
	if (s->ops->order || (hi && j->idx < q[hi - 1])) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (queue_cmp(s, &s->jobs[q[mid]], j) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	} else {
		lo = hi; /* submit order: appends */
	}
	memmove(q + lo + 1, q + lo, (s->qlen - lo) * sizeof(*q));
	q[lo] = j->idx;
	s->qlen++;
	s->queued_cpus += j->cpus;
	if (s->qlen > s->counters.queue_max)
		s->counters.queue_max = (uint32_t)s->qlen;
}

/* Position of a pending job in the queue (it is there). */
static size_t queue_find(const struct sim *s, const struct job *j)
{
	const uint32_t *q = s->queue + s->qhead;
	if (s->qlen && q[0] == j->idx)
		return 0;
	size_t lo = 0, hi = s->qlen;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (queue_cmp(s, &s->jobs[q[mid]], j) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	SIM_ASSERT(lo < s->qlen && q[lo] == j->idx);
	return lo;
}

static void queue_remove(struct sim *s, const struct job *j)
{
	size_t i = queue_find(s, j);
	uint32_t *q = s->queue + s->qhead;
	/* Close the gap from the shorter side. */
	if (i < s->qlen / 2) {
		memmove(q + 1, q, i * sizeof(*q));
		s->qhead++;
	} else {
		memmove(q + i, q + i + 1, (s->qlen - i - 1) * sizeof(*q));
	}
	s->qlen--;
	if (!s->qlen)
		s->qhead = 0;
	s->queued_cpus -= j->cpus;
}

static inline bool entry_before(const struct run_entry *a, sim_time_t end,
				uint32_t idx)
{
	return a->end < end || (a->end == end && a->idx < idx);
}

static size_t running_lower_bound(const struct sim *s, const struct job *j)
{
	sim_time_t end = planned_end(s, j);
	size_t lo = 0, hi = s->nrun;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (entry_before(&s->running[mid], end, j->idx))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Makes room for one more entry on side `front` (true) or at the back,
 * recentring or growing the buffer when that side is full. */
static void running_room(struct sim *s, bool front)
{
	size_t head = (size_t)(s->running - s->runbuf);
	if (front ? head > 0 : head + s->nrun < s->runcap)
		return;
	size_t cap = s->runcap;
	if (2 * (s->nrun + 1) > cap)
		cap = cap ? 2 * cap : 64;
	struct run_entry *buf = xmalloc(cap * sizeof(*buf));
	size_t nhead = (cap - s->nrun) / 2;
	if (s->nrun)
		memcpy(buf + nhead, s->running, s->nrun * sizeof(*buf));
	free(s->runbuf);
	s->runbuf = buf;
	s->runcap = cap;
	s->running = buf + nhead;
}

static void running_insert(struct sim *s, const struct job *j)
{
	size_t i = running_lower_bound(s, j);
	bool front = i < s->nrun / 2;
	running_room(s, front);
	if (front) {
		s->running--;
		memmove(s->running, s->running + 1, i * sizeof(*s->running));
	} else {
		memmove(s->running + i + 1, s->running + i,
			(s->nrun - i) * sizeof(*s->running));
	}
	s->running[i] = (struct run_entry){ planned_end(s, j), j->idx };
	s->nrun++;
}

static void running_remove(struct sim *s, const struct job *j)
{
	size_t i = running_lower_bound(s, j);
	SIM_ASSERT(i < s->nrun && s->running[i].idx == j->idx);
	if (i < s->nrun / 2) {
		memmove(s->running + 1, s->running, i * sizeof(*s->running));
		s->running++;
	} else {
		memmove(s->running + i, s->running + i + 1,
			(s->nrun - i - 1) * sizeof(*s->running));
	}
	s->nrun--;
}

/* ---- Events ---------------------------------------------------------- */

static void push_submit(struct sim *s)
{
	if (s->next_submit < s->njobs) {
		const struct job *j = &s->jobs[s->next_submit];
		evq_push(&s->q, j->submit, EV_SUBMIT, j->idx);
	}
}

/* From now on, track progress per job: every running job has run at
 * reference speed since it started. */
static void ensure_prog(struct sim *s)
{
	if (s->prog)
		return;
	s->prog = xmalloc(s->njobs * sizeof(*s->prog));
	for (size_t i = 0; i < s->nrun; i++) {
		const struct job *r = &s->jobs[s->running[i].idx];
		s->prog[r->idx] = (struct progress){
			.since = r->start, .rate = 1.0, .started = r->start,
			.hold = r->start, .factor = 1.0, .hsince = r->start,
			.weight = 1.0, .ideal = 1.0,
		};
	}
}

/* Brings a running job's placement-slowdown sums up to now (before its
 * rate or ideal rate changes, or it stops).  Time spent restoring, and
 * the slowing of sharing GPUs, are not its placement's doing. */
static void pslow_account(struct progress *p, sim_time_t now)
{
	sim_time_t from = p->since > p->hold ? p->since : p->hold;
	if (now <= from)
		return;
	double dt = (double)(now - from);
	p->ran += dt;
	p->ran_ideal += dt * (p->rate / p->factor / p->ideal);
}

static double prog_work(const struct sim *s, const struct job *j);

/* Brings a running job's progress up to now, before its rate, share or
 * hold changes. */
static void prog_sync(struct sim *s, const struct job *j)
{
	struct progress *p = &s->prog[j->idx];
	p->done = prog_work(s, j);
	pslow_account(p, s->now);
	p->since = s->now;
}

/* A new run's progress: work done from `done` on, after `hold`. */
static void prog_begin(struct sim *s, const struct job *j, double done,
		       sim_time_t hold)
{
	/* A restart keeps its placement-slowdown sums. */
	struct progress *p = &s->prog[j->idx];
	bool restart = j->preemptions > 0;
	double ran = restart ? p->ran : 0;
	double ran_ideal = restart ? p->ran_ideal : 0;
	double restored = restart ? p->restored : 0;
	*p = (struct progress){
		.done = done, .since = s->now, .rate = 1.0, .started = s->now,
		.hold = hold, .factor = 1.0, .hsince = s->now, .weight = 1.0,
		.ideal = 1.0, .ran = ran, .ran_ideal = ran_ideal,
		.restored = restored,
	};
}

/* Work a running job has done by now. */
static double prog_work(const struct sim *s, const struct job *j)
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
static double held(const struct sim *s, const struct job *j)
{
	double res = j->gpus ? j->gpus : j->cpus;
	if (!s->prog)
		return res * (double)(s->now - j->start) / SIM_SEC;
	const struct progress *p = &s->prog[j->idx];
	return res * p->weight * (double)(s->now - p->hsince) / SIM_SEC;
}

/* Of held(): the part spent restoring a checkpoint (before p->hold). */
static double held_restoring(const struct sim *s, const struct job *j)
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

/* Counts a running job's service so far into attained (and the part of
 * it spent restoring). */
static void count_held(struct sim *s, struct job *j)
{
	if (s->prog)
		s->prog[j->idx].restored += held_restoring(s, j);
	j->attained += held(s, j);
}

/* Counts a running job's service so far and charges it `weight` of its
 * resources from now on. */
static void set_weight(struct sim *s, struct job *j, double weight)
{
	count_held(s, j);
	s->prog[j->idx].hsince = s->now;
	s->prog[j->idx].weight = weight;
}

/* The rate a running job should have: its speed on its placement (speed
 * model) times its share when it shares its GPUs. */
static double job_rate(struct sim *s, const struct job *j)
{
	double r = s->speed && j->gpus
		? speed_rate(s->speed, j, &s->plc[j->idx]) : 1.0;
	return s->prog ? r * s->prog[j->idx].factor : r;
}

static void apply_rate(struct sim *s, const struct job *j)
{
	double r = job_rate(s, j);
	if (sim_set_job_rate(s, j, r) != 0)
		SIM_BUG("rate %g refused for job %lld", r, (long long)j->id);
	if (s->speed && j->gpus)
		s->prog[j->idx].ideal = speed_rate_ideal(s->speed, j,
							 &s->plc[j->idx]);
}

/* What restoring a job's checkpoint costs (restart or migration):
 * fixed, per GPU, and its model state written and read back at the
 * storage bandwidth. */
static sim_time_t restore_cost(const struct sim *s, const struct job *j)
{
	double t = (double)s->cfg.restore_overhead +
		   (double)s->cfg.restore_per_gpu * j->gpus;
	if (s->cfg.storage_Bps > 0 && j->job_class != JOB_CLASS_NONE)
		t += 2.0 * (double)jobclass_grad_bytes(j->job_class) /
		     s->cfg.storage_Bps * SIM_SEC;
	return (sim_time_t)ceil(t);
}

/* Gives the jobs whose speed may have changed their new rates. */
static void update_rates(struct sim *s)
{
	if (s->defer_rates) {
		s->rates_due = true;
		return;
	}
	const int64_t *ids;
	size_t n = speed_changed(s->speed, &ids);
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &s->jobs[ids[i]];
		if (j->state == JOB_RUNNING)
			apply_rate(s, j);
	}
}

/* The job sharing j's GPUs, or NULL. */
static struct job *partner_of(const struct sim *s, const struct job *j)
{
	if (!s->prog || !s->prog[j->idx].partner)
		return NULL;
	return &s->jobs[s->prog[j->idx].partner - 1];
}

/* Is j the member of a pair that does not hold the resources? */
static bool is_guest(const struct sim *s, const struct job *j)
{
	return partner_of(s, j) && !s->prog[j->idx].owner;
}

/* A running job stops (it ends, or is preempted): its fabric flow goes,
 * and its resources go back to the cluster - or, when it shares its GPUs,
 * stay with the other job of the pair, which runs alone again. */
static void leave_resources(struct sim *s, struct job *j)
{
	struct job *q = partner_of(s, j);
	if (s->speed && j->gpus)
		speed_job_ended(s->speed, j);
	if (q) {
		struct progress *pq = &s->prog[q->idx];
		prog_sync(s, q);
		if (s->prog[j->idx].owner)
			pq->owner = true;
		pq->partner = 0;
		pq->factor = 1.0;
		set_weight(s, q, 1.0);
		s->prog[j->idx].partner = 0;
		s->prog[j->idx].owner = false;
		s->npairs--;
	} else {
		cluster_release(s->cluster, &s->plc[j->idx]);
	}
	s->busy_cpus = s->capacity_cpus - cluster_free_cpus(s->cluster);
	s->busy_gpus = s->capacity_gpus - cluster_free_gpus(s->cluster);
	placement_release(&s->plc[j->idx]);
	if (s->speed && j->gpus)
		update_rates(s);
	if (q)
		apply_rate(s, q);
}

static void end_job(struct sim *s, struct job *j)
{
	count_held(s, j);
	j->end = s->now;
	if (s->prog) {
		struct progress *pg = &s->prog[j->idx];
		pslow_account(pg, s->now);
		if (s->speed && j->gpus && pg->ran_ideal > 0)
			j->placement_slowdown = pg->ran / pg->ran_ideal;
	}
	j->state = (j->flags & JOB_KILL_AT_ESTIMATE) ? JOB_KILLED
						     : JOB_FINISHED;
	running_remove(s, j);
	leave_resources(s, j);
	s->ended++;
	if (s->ops->job_finished) {
		s->ops->job_finished(s, s->pstate, j);
	}
}

static void submit_job(struct sim *s, struct job *j)
{
	SIM_ASSERT(j->idx == s->next_submit);
	s->next_submit++;
	push_submit(s);
	if (!cluster_can_ever_fit(s->cluster, j)) {
		j->state = JOB_REJECTED;
		s->counters.rejected++;
		s->ended++;
		return;
	}
	j->state = JOB_PENDING;
	queue_insert(s, j);
	if (s->ops->job_submitted) {
		s->ops->job_submitted(s, s->pstate, j);
	}
}

static void apply(struct sim *s, enum ev_phase ph, uint32_t payload)
{
	s->counters.events++;
	switch (ph) {
	case EV_END:
		end_job(s, &s->jobs[payload]);
		break;
	case EV_SUBMIT:
		submit_job(s, &s->jobs[payload]);
		break;
	case EV_TIMER:
		break;
	case EV_NODE:
	case EV_SAMPLE:
	case EV_NPHASES:
		SIM_BUG("unexpected event phase %d", (int)ph);
	}
}

/* Integrates the busy and queue step functions up to t. */
static void advance_to(struct sim *s, sim_time_t t)
{
	SIM_ASSERT(t >= s->now);
	if (s->started) {
		double dt = (double)(t - s->area_t) / (double)SIM_SEC;
		s->counters.busy_area += (double)s->busy_cpus * dt;
		s->counters.queue_area += (double)s->qlen * dt;
		s->counters.gpu_busy_area += (double)s->busy_gpus * dt;
	}
	s->area_t = t;
	s->now = t;
}

static void take_sample(struct sim *s)
{
	xgrow(&s->samples, &s->scap, s->nsamples + 1, sizeof(*s->samples));
	struct sample *x = &s->samples[s->nsamples++];
	double cap = (double)s->capacity_cpus;
	double dt = (double)(s->now - s->last_sample_t) / (double)SIM_SEC;
	x->t = s->now;
	x->busy_cpus = s->busy_cpus;
	x->util = (double)s->busy_cpus / cap;
	x->util_avg = dt > 0 ? (s->counters.busy_area - s->area_at_sample) /
				       (cap * dt)
			     : x->util;
	x->running = (uint32_t)s->nrun;
	x->queued = (uint32_t)s->qlen;
	x->queued_cpus = s->queued_cpus;
	x->busy_gpus = s->busy_gpus;
	x->gpu_util_avg = !s->capacity_gpus ? NAN
		: dt > 0 ? (s->counters.gpu_busy_area - s->gpu_area_at_sample) /
				   ((double)s->capacity_gpus * dt)
			 : (double)s->busy_gpus / (double)s->capacity_gpus;
	s->area_at_sample = s->counters.busy_area;
	s->gpu_area_at_sample = s->counters.gpu_busy_area;
	s->last_sample_t = s->now;
}

/* ---- Invariants ----------------------------------------------------- */

static void check_invariants(struct sim *s)
{
	struct sim_error e;
	if (evq_check(&s->q) != 0)
		SIM_BUG("event queue is not a heap at t=%lld", (long long)s->now);
	if (cluster_check(s->cluster, &e) != 0)
		SIM_BUG("cluster: %s", e.msg);
	uint64_t busy = 0;
	for (size_t i = 0; i < s->nrun; i++) {
		const struct job *j = &s->jobs[s->running[i].idx];
		if (s->running[i].end != planned_end(s, j))
			SIM_BUG("running set key out of date");
		if (j->state != JOB_RUNNING)
			SIM_BUG("job %lld in the running set is in state %d",
				(long long)j->id, j->state);
		if (i && !run_before(s, &s->jobs[s->running[i - 1].idx], j))
			SIM_BUG("running set out of order");
		const struct job *q = partner_of(s, j);
		if (q && (partner_of(s, q) != j || q->state != JOB_RUNNING ||
			  s->prog[q->idx].owner == s->prog[j->idx].owner))
			SIM_BUG("job %lld's GPU sharing is not mutual",
				(long long)j->id);
		if (!is_guest(s, j))
			busy += j->cpus;
	}
	if (!cluster_exclusive(s->cluster) && busy != s->busy_cpus)
		SIM_BUG("busy CPUs %llu, running jobs hold %llu",
			(unsigned long long)s->busy_cpus,
			(unsigned long long)busy);
	if (units_free(s->cluster) > units_capacity(s->cluster))
		SIM_BUG("more free units than capacity");
	uint64_t qcpus = 0;
	const uint32_t *q = s->queue + s->qhead;
	for (size_t i = 0; i < s->qlen; i++) {
		const struct job *j = &s->jobs[q[i]];
		if (j->state != JOB_PENDING)
			SIM_BUG("job %lld in the queue is in state %d",
				(long long)j->id, j->state);
		if (i && queue_cmp(s, &s->jobs[q[i - 1]], j) >= 0)
			SIM_BUG("pending queue out of order");
		qcpus += j->cpus;
	}
	if (qcpus != s->queued_cpus)
		SIM_BUG("queued CPUs do not add up");
	/* Every submitted job is in exactly one state. */
	if (s->next_submit != s->qlen + s->nrun + s->ended)
		SIM_BUG("%zu jobs submitted but %zu pending + %zu running + "
			"%zu ended", s->next_submit, s->qlen, s->nrun, s->ended);
}

/* ---- The loop -------------------------------------------------------- */

static void call_schedule(struct sim *s)
{
	s->counters.schedule_calls++;
	s->in_schedule = true;
	s->ops->schedule(s, s->pstate);
	s->in_schedule = false;
}

int sim_run(struct sim *s, struct sim_error *err)
{
	struct sim_error perr = { .msg = "" };
	int rc = 0;
	s->placement = PLACE_FIRST_FIT;
	s->rng = s->cfg.seed;
	for (size_t i = 0; i < s->cfg.nparams; i++) {
		const struct pval *p = &s->cfg.params[i];
		if (strcmp(p->name, "placement") == 0 &&
		    place_strategy_parse(p->s, &s->placement, &perr) != 0) {
			rc = err_setc(err, -SIM_EINPUT, "%s", perr.msg);
			goto fini;
		}
	}
	if (s->ops->init && s->ops->init(s, &s->pstate, &perr) != 0) {
		rc = err_setc(err, -SIM_EINPUT, "policy '%s' failed to start: %s",
			      s->ops->name, perr.msg[0] ? perr.msg : "no reason given");
		goto fini;
	}
	push_submit(s);
	if (s->njobs) {
		s->now = s->last_sample_t = s->area_t = s->jobs[0].submit;
		evq_push(&s->q, s->now, EV_SAMPLE, 0);
	}
	size_t progress_mark = 0;
	sim_time_t t;
	enum ev_phase ph;
	uint32_t payload;
	while (evq_peek(&s->q, &t, &ph)) {
		advance_to(s, t);
		s->started = true;
		if (ph == EV_SAMPLE) {
			evq_pop(&s->q, &t, &ph, &payload);
			take_sample(s);
			if (s->ended < s->njobs)
				evq_push(&s->q, t + s->interval, EV_SAMPLE, 0);
			continue;
		}
		for (;;) {
			bool fired = false;
			while (evq_peek(&s->q, &t, &ph) && t == s->now &&
			       ph < EV_SAMPLE) {
				evq_pop(&s->q, &t, &ph, &payload);
				apply(s, ph, payload);
				fired = true;
			}
			if (!fired)
				break;
			call_schedule(s);
		}
		if (s->cfg.check)
			check_invariants(s);
		if (s->cfg.progress && s->ended >= progress_mark) {
			s->cfg.progress(s->cfg.progress_ctx, s->ended, s->njobs);
			progress_mark = s->ended + s->njobs / 100 + 1;
		}
		/* Jobs waiting with nothing left to happen: the policy will
		 * never start them. */
		if (s->qlen && s->nrun == 0 && evq_len(&s->q) <= 1 &&
		    s->next_submit == s->njobs) {
			rc = err_setc(err, -SIM_ESTATE,
				      "policy '%s' left %zu jobs pending with "
				      "nothing running and no event to come "
				      "(first: job %lld)",
				      s->ops->name, s->qlen,
				      (long long)s->jobs[s->queue[s->qhead]].id);
			goto fini;
		}
	}
	if (s->nsamples == 0 || s->samples[s->nsamples - 1].t != s->now)
		take_sample(s);
	if (s->cfg.progress)
		s->cfg.progress(s->cfg.progress_ctx, s->ended, s->njobs);
fini:
	if (s->ops->fini)
		s->ops->fini(s, s->pstate);
	s->pstate = NULL;
	return rc;
}

const struct job *sim_jobs(const struct sim *s, size_t *n)
{
	*n = s->njobs;
	return s->jobs;
}

const struct sample *sim_samples(const struct sim *s, size_t *n)
{
	*n = s->nsamples;
	return s->samples;
}

const struct run_counters *sim_counters(const struct sim *s)
{
	return &s->counters;
}

uint64_t sim_capacity_cpus(const struct sim *s)
{
	return s->capacity_cpus;
}

const struct cluster *sim_cluster(const struct sim *s)
{
	return s->cluster;
}

uint64_t sim_capacity_gpus(const struct sim *s)
{
	return cluster_total_gpus(s->cluster);
}

/* ---- Calls a policy makes -------------------------------------------- */

sim_time_t sim_now(const struct sim *s)
{
	return s->now;
}

uint64_t sim_seed(const struct sim *s)
{
	return s->cfg.seed;
}

size_t sim_queue_len(const struct sim *s)
{
	return s->qlen;
}

const struct job *sim_queue_at(const struct sim *s, size_t i)
{
	SIM_ASSERT(i < s->qlen);
	return &s->jobs[s->queue[s->qhead + i]];
}

size_t sim_running_len(const struct sim *s)
{
	return s->nrun;
}

const struct job *sim_running_at(const struct sim *s, size_t i)
{
	SIM_ASSERT(i < s->nrun);
	return &s->jobs[s->running[i].idx];
}

sim_time_t sim_expected_end(const struct sim *s, const struct job *j)
{
	sim_time_t e = planned_end(s, j);
	return e > s->now ? e : s->now + 1;
}

/* Is j one of this simulation's jobs? */
static bool own_job(const struct sim *s, const struct job *j)
{
	return j >= s->jobs && j < s->jobs + s->njobs;
}

uint64_t sim_free_units(const struct sim *s)
{
	return units_free(s->cluster);
}

uint64_t sim_demand(const struct sim *s, const struct job *j)
{
	return units_demand(s->cluster, j);
}

bool sim_job_fits(const struct sim *s, const struct job *j)
{
	return cluster_fits(s->cluster, j);
}

/* Gives a GPU job of no class one, when the experiment asks for it. */
static void draw_class(struct sim *s, struct job *j)
{
	if (s->speed && j->gpus && j->job_class == JOB_CLASS_NONE &&
	    s->cfg.speed->draw_classes)
		j->job_class = (uint16_t)speed_draw_class(s->cfg.seed, j->idx);
}

/* Placement summary in the job record: nodes and GPU type used. */
static void note_placement(struct sim *s, struct job *j)
{
	const struct placement *plc = &s->plc[j->idx];
	j->nodes_used = 0;
	for (uint32_t i = 0; i < plc->n; i++)
		j->nodes_used += plc->slots[i].count;
	j->gpu_type_used = 0;
	if (j->gpus && plc->n)
		j->gpu_type_used = (uint16_t)(cluster_node_gpu_type(
			s->cluster, plc->slots[0].node) + 1);
}

/*
 * A pending job whose placement is in s->plc starts running now: it
 * leaves the queue, a restart resumes from its kept work after its
 * restore overhead, and its end event is set.  The caller then sets
 * rates.
 */
static void begin_run(struct sim *s, struct job *j)
{
	queue_remove(s, j);
	j->state = JOB_RUNNING;
	bool restart = j->preemptions > 0;
	if (!restart)
		j->start = s->now;
	else
		j->restarts++;
	j->queued += s->now - (restart ? s->resume[j->idx].since : j->submit);
	note_placement(s, j);
	double done = restart ? s->resume[j->idx].kept : 0;
	sim_time_t hold = s->now + (restart ? s->resume[j->idx].overhead : 0);
	if (s->prog)
		prog_begin(s, j, done, hold);
	running_insert(s, j); /* after prog: a restart's planned end */
	s->busy_cpus = s->capacity_cpus - cluster_free_cpus(s->cluster);
	s->busy_gpus = s->capacity_gpus - cluster_free_gpus(s->cluster);
	double left = (double)j->run - done;
	s->end_ev[j->idx] = evq_push(&s->q,
				     hold + (sim_time_t)ceil(left > 0 ? left
								     : 0),
				     EV_END, j->idx);
}

int sim_job_start(struct sim *s, const struct job *cj)
{
	if (!own_job(s, cj) || cj->state != JOB_PENDING || !s->in_schedule) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	struct job *j = &s->jobs[cj->idx];
	struct placement *plc = &s->plc[j->idx];
	draw_class(s, j);
	int placed = j->gpus
		? cluster_alloc_gpus(s->cluster, j, s->placement, &s->rng, plc)
		: cluster_alloc(s->cluster, j, plc);
	if (placed != 0) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	begin_run(s, j);
	if (s->speed && j->gpus) {
		speed_job_started(s->speed, j, plc);
		update_rates(s);
	}
	return 0;
}

int sim_job_start_shared(struct sim *s, const struct job *cj,
			 const struct job *chost, double factor,
			 double host_factor)
{
	if (!own_job(s, cj) || !own_job(s, chost) || !s->in_schedule ||
	    cj->state != JOB_PENDING || chost->state != JOB_RUNNING ||
	    !cj->gpus || cj->gpus != chost->gpus ||
	    (cj->gpu_type && cj->gpu_type != chost->gpu_type_used) ||
	    !(factor > 0 && factor <= 1) ||
	    !(host_factor > 0 && host_factor <= 1) ||
	    partner_of(s, chost)) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	struct job *j = &s->jobs[cj->idx], *h = &s->jobs[chost->idx];
	ensure_prog(s);
	draw_class(s, j);
	/* The guest's own copy of the host's placement: it keeps it when
	 * the host goes first. */
	const struct placement *hp = &s->plc[h->idx];
	struct placement *jp = &s->plc[j->idx];
	if (jp->cap < hp->n) {
		jp->slots = xrealloc(jp->slots, hp->n * sizeof(*jp->slots));
		jp->cap = hp->n;
	}
	memcpy(jp->slots, hp->slots, hp->n * sizeof(*jp->slots));
	jp->n = hp->n;
	begin_run(s, j);
	struct progress *pj = &s->prog[j->idx], *ph = &s->prog[h->idx];
	prog_sync(s, h);
	pj->partner = h->idx + 1;
	ph->partner = j->idx + 1;
	pj->owner = false;
	ph->owner = true;
	pj->factor = factor;
	ph->factor = host_factor;
	set_weight(s, j, 0.5);
	set_weight(s, h, 0.5);
	s->npairs++;
	s->counters.shared_starts++;
	if (s->speed) {
		speed_job_started(s->speed, j, jp);
		update_rates(s);
	}
	apply_rate(s, j);
	apply_rate(s, h);
	return 0;
}

int sim_set_job_rate(struct sim *s, const struct job *cj, double rate)
{
	if (!own_job(s, cj) || cj->state != JOB_RUNNING || !(rate > 0) ||
	    !isfinite(rate))
		return -SIM_ESTATE;
	ensure_prog(s);
	struct progress *p = &s->prog[cj->idx];
	prog_sync(s, cj);
	p->rate = rate;
	double left = (double)cj->run - p->done;
	/* Whole microseconds, rounded up: a job never ends before its work
	 * is done. */
	sim_time_t dt = left > 0 ? (sim_time_t)ceil(left / rate) : 0;
	evq_move(&s->q, s->end_ev[cj->idx],
		 (p->hold > s->now ? p->hold : s->now) + dt);
	return 0;
}

const struct placement *sim_job_placement(const struct sim *s,
					  const struct job *j)
{
	return j->state == JOB_RUNNING ? &s->plc[j->idx] : NULL;
}

double sim_job_work_done(const struct sim *s, const struct job *j)
{
	if (j->state == JOB_PENDING && s->resume)
		return s->resume[j->idx].kept;
	if (j->state != JOB_RUNNING)
		return j->state == JOB_FINISHED || j->state == JOB_KILLED
			       ? (double)j->run
			       : 0;
	return prog_work(s, j);
}

const struct job *sim_job_partner(const struct sim *s, const struct job *j)
{
	return own_job(s, j) && j->state == JOB_RUNNING ? partner_of(s, j)
							 : NULL;
}

int sim_job_preempt(struct sim *s, const struct job *cj)
{
	if (!own_job(s, cj) || cj->state != JOB_RUNNING || !s->in_schedule) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	struct job *j = &s->jobs[cj->idx];
	ensure_prog(s);
	if (!s->resume)
		s->resume = xcalloc(s->njobs, sizeof(*s->resume));
	struct resume *r = &s->resume[j->idx];
	double done = prog_work(s, j);
	pslow_account(&s->prog[j->idx], s->now);
	/* Out of the running set while its key (from kept work and
	 * preemptions) is still the one it went in with. */
	running_remove(s, j);
	/* Checkpoints every interval of work; while it is still restoring
	 * it has done no more than it kept. */
	double iv = (double)s->cfg.checkpoint_interval;
	double kept = iv > 0 ? floor(done / iv) * iv : done;
	if (kept < r->kept)
		kept = r->kept;
	if (done > kept)
		s->counters.lost_work += (done - kept) / SIM_SEC;
	r->kept = kept;
	r->since = s->now;
	r->overhead = restore_cost(s, j);
	count_held(s, j);
	j->preemptions++;
	s->counters.preemptions++;

	evq_remove(&s->q, s->end_ev[j->idx]);
	leave_resources(s, j);
	j->state = JOB_PENDING;
	queue_insert(s, j);
	return 0;
}

/* Nodes a placement spans. */
static uint32_t placement_nodes(const struct placement *p)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->n; i++)
		n += p->slots[i].count;
	return n;
}

int sim_job_migrate(struct sim *s, const struct job *cj)
{
	if (!own_job(s, cj) || cj->state != JOB_RUNNING || !s->in_schedule ||
	    !cj->gpus) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	struct job *j = &s->jobs[cj->idx];
	struct job *q = partner_of(s, j);
	struct placement to = { 0 };
	if (!cluster_fits(s->cluster, j) ||
	    cluster_alloc_gpus(s->cluster, j, PLACE_CONSOLIDATE, &s->rng,
			       &to) != 0) {
		placement_release(&to);
		return 0;
	}
	if (!q && placement_nodes(&to) >= placement_nodes(&s->plc[j->idx])) {
		cluster_release(s->cluster, &to); /* an exact undo */
		placement_release(&to);
		return 0;
	}
	ensure_prog(s);
	struct progress *p = &s->prog[j->idx];
	/* It checkpoints where it is (nothing lost) and restores there. */
	prog_sync(s, j);
	/* Service up to now was work, not restoring: count it first. */
	set_weight(s, j, p->weight);
	p->hold = s->now + restore_cost(s, j);
	if (s->speed)
		speed_job_ended(s->speed, j);
	if (q) {
		/* It leaves the pair: both run alone from now on, the other
		 * on the GPUs they shared. */
		struct progress *pq = &s->prog[q->idx];
		prog_sync(s, q);
		pq->owner = true;
		pq->partner = p->partner = 0;
		pq->factor = p->factor = 1.0;
		p->owner = false;
		set_weight(s, q, 1.0);
		set_weight(s, j, 1.0);
		s->npairs--;
	} else {
		cluster_release(s->cluster, &s->plc[j->idx]);
	}
	placement_release(&s->plc[j->idx]);
	s->plc[j->idx] = to;
	note_placement(s, j);
	s->busy_cpus = s->capacity_cpus - cluster_free_cpus(s->cluster);
	s->busy_gpus = s->capacity_gpus - cluster_free_gpus(s->cluster);
	s->counters.migrations++;
	j->restarts++;
	if (s->speed) {
		speed_job_started(s->speed, j, &s->plc[j->idx]);
		update_rates(s);
	}
	apply_rate(s, j);
	if (q)
		apply_rate(s, q);
	return 1;
}

double sim_coloc_speed(const struct sim *s, const struct job *a,
		       const struct job *b)
{
	if (!own_job(s, a) || !own_job(s, b))
		return NAN;
	const struct job *host = b->state == JOB_RUNNING ? b : a;
	if (host->state != JOB_RUNNING || !host->gpu_type_used)
		return NAN;
	const char *type = cluster_gpu_type_name(s->cluster,
						 host->gpu_type_used - 1u);
	int g = type ? jobclass_gpu_lookup(type, NULL) : -1;
	if (g < 0)
		return NAN;
	unsigned ca = a->job_class, cb = b->job_class;
	if (s->speed && s->cfg.speed->draw_classes) {
		/* A pending job's class is drawn when it starts. */
		if (ca == JOB_CLASS_NONE && a->gpus)
			ca = speed_draw_class(s->cfg.seed, a->idx);
		if (cb == JOB_CLASS_NONE && b->gpus)
			cb = speed_draw_class(s->cfg.seed, b->idx);
	}
	return jobclass_coloc_speed(ca, cb, g, a->gpus);
}

/*
 * On a cluster with virtual clusters (cluster.h): which ranked jobs keep
 * or get their GPUs, counted per VC.  Units in play per VC (the last
 * slot: the shared pool) are its free GPUs plus what the listed running
 * jobs hold there; a job takes from its own VC first, then from the
 * pool.
 */
static void rank_keep_vcs(struct sim *s, const struct job *const *ranked,
			  size_t n, bool *keep)
{
	const struct cluster *c = s->cluster;
	uint32_t nvc = cluster_vc_count(c);
	uint64_t *units = xcalloc(nvc + 1, sizeof(*units));
	for (uint32_t v = 0; v <= nvc; v++)
		units[v] = cluster_vc_free_gpus(c, v < nvc ? (int)v : -1);
	for (size_t k = 0; k < n; k++) {
		const struct placement *p = &s->plc[ranked[k]->idx];
		if (ranked[k]->state != JOB_RUNNING || is_guest(s, ranked[k]))
			continue;
		for (uint32_t i = 0; i < p->n; i++) {
			int v = cluster_node_vc(c, p->slots[i].node);
			units[v < 0 ? nvc : (uint32_t)v] +=
				(uint64_t)p->slots[i].gpus * p->slots[i].count;
		}
	}
	for (size_t k = 0; k < n; k++) {
		int v = cluster_job_vc(c, ranked[k]);
		uint64_t d = ranked[k]->gpus, own = v < 0 ? 0 : units[v];
		if (d > own + units[nvc])
			continue;
		if (v >= 0)
			units[v] -= d < own ? d : own;
		units[nvc] -= d < own ? 0 : d - own;
		keep[k] = true;
	}
	free(units);
}

size_t sim_apply_ranking(struct sim *s, const struct job *const *ranked,
			 size_t n)
{
	/* Units in play: free now plus what the listed running jobs hold. */
	uint64_t units = units_free(s->cluster);
	for (size_t k = 0; k < n; k++)
		if (ranked[k]->state == JOB_RUNNING &&
		    !is_guest(s, ranked[k]))
			units += units_demand(s->cluster, ranked[k]);
	bool *keep = xcalloc(n ? n : 1, sizeof(*keep));
	if (cluster_vc_count(s->cluster)) {
		rank_keep_vcs(s, ranked, n, keep);
	} else {
		for (size_t k = 0; k < n; k++) {
			uint64_t d = units_demand(s->cluster, ranked[k]);
			if (d <= units) {
				units -= d;
				keep[k] = true;
			}
		}
	}
	/* Preempt first, so that the winners find their resources.  The
	 * fabric's rates are recomputed once, for the final set of jobs,
	 * not after every stop and start: nothing happens in between. */
	s->defer_rates = true;
	for (size_t k = 0; k < n; k++)
		if (!keep[k] && ranked[k]->state == JOB_RUNNING)
			sim_job_preempt(s, ranked[k]);
	size_t started = 0;
	for (size_t k = 0; k < n; k++)
		if (keep[k] && ranked[k]->state == JOB_PENDING &&
		    cluster_fits(s->cluster, ranked[k]) &&
		    sim_job_start(s, ranked[k]) == 0)
			started++;
	s->defer_rates = false;
	if (s->rates_due) {
		s->rates_due = false;
		update_rates(s);
	}
	free(keep);
	return started;
}

double sim_job_attained(const struct sim *s, const struct job *j)
{
	return j->attained + (j->state == JOB_RUNNING ? held(s, j) : 0);
}

double sim_job_service(const struct sim *s, const struct job *j)
{
	double a = sim_job_attained(s, j);
	if (!s->prog)
		return a;
	a -= s->prog[j->idx].restored;
	if (j->state == JOB_RUNNING)
		a -= held_restoring(s, j);
	return a > 0 ? a : 0;
}

/*
 * sim_start_head on a cluster with virtual clusters: each VC (and the
 * shared pool, for jobs of no VC) is its own FCFS queue, so a job that
 * waits for its VC blocks the later jobs of its VC only.
 */
static size_t start_head_vcs(struct sim *s)
{
	uint32_t nvc = cluster_vc_count(s->cluster), nblocked = 0;
	bool *blocked = xcalloc(nvc + 1, sizeof(*blocked));
	size_t started = 0, i = 0;
	while (i < s->qlen && nblocked <= nvc) {
		const struct job *j = sim_queue_at(s, i);
		int v = cluster_job_vc(s->cluster, j);
		uint32_t k = v < 0 ? nvc : (uint32_t)v;
		if (blocked[k]) {
			i++;
		} else if (!cluster_fits(s->cluster, j) ||
			   sim_job_start(s, j)) {
			blocked[k] = true;
			nblocked++;
			i++;
		} else {
			started++; /* it left the queue: i names the next */
		}
	}
	free(blocked);
	return started;
}

size_t sim_start_head(struct sim *s)
{
	size_t started = 0;
	if (cluster_vc_count(s->cluster))
		return start_head_vcs(s);
	while (s->qlen) {
		const struct job *head = sim_queue_at(s, 0);
		if (!cluster_fits(s->cluster, head) || sim_job_start(s, head))
			break;
		started++;
	}
	return started;
}

int sim_wakeup_at(struct sim *s, sim_time_t t)
{
	if (t <= s->now) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	evq_push(&s->q, t, EV_TIMER, 0);
	return 0;
}

static const struct pval *param(const struct sim *s, const char *name,
				enum policy_param_type type)
{
	for (size_t i = 0; i < s->cfg.nparams; i++) {
		const struct pval *p = &s->cfg.params[i];
		if (strcmp(p->name, name) == 0) {
			if (p->type != type)
				SIM_BUG("policy '%s' reads parameter '%s' with "
					"the wrong type", s->ops->name, name);
			return p;
		}
	}
	SIM_BUG("policy '%s' reads undeclared parameter '%s'", s->ops->name,
		name);
}

int64_t sim_param_int(const struct sim *s, const char *name)
{
	return param(s, name, PARAM_INT)->i;
}

double sim_param_double(const struct sim *s, const char *name)
{
	return param(s, name, PARAM_DOUBLE)->d;
}

bool sim_param_bool(const struct sim *s, const char *name)
{
	return param(s, name, PARAM_BOOL)->b;
}

const char *sim_param_str(const struct sim *s, const char *name)
{
	return param(s, name, PARAM_STRING)->s;
}

struct profile *sim_profile(struct sim *s)
{
	/* The running set is sorted by start + estimate; clamping to now + 1
	 * (for jobs past their estimate) keeps it sorted.  Of two jobs
	 * sharing GPUs, the resources come back when the second ends: the
	 * first is left out. */
	const struct run_entry *run = s->running;
	size_t n = s->nrun;
	if (s->npairs) {
		xgrow(&s->pscratch, &s->pscap, s->nrun, sizeof(*s->pscratch));
		n = 0;
		for (size_t i = 0; i < s->nrun; i++) {
			const struct job *j = &s->jobs[s->running[i].idx];
			const struct job *q = partner_of(s, j);
			if (q && run_before(s, j, q))
				continue;
			s->pscratch[n++] = s->running[i];
		}
		run = s->pscratch;
	}
	if (cluster_vc_count(s->cluster))
		profile_build_parts(s->profile, s->cluster, s->now, s->jobs,
				    run, n, s->plc);
	else
		profile_build(s->profile, s->cluster, s->now, s->jobs, run, n);
	return s->profile;
}

unsigned sim_vc_count(const struct sim *s)
{
	return cluster_vc_count(s->cluster);
}

int sim_job_vc(const struct sim *s, const struct job *j)
{
	return cluster_job_vc(s->cluster, j);
}

/* ---- GPU types (policy.h): heterogeneity-aware policies --------------- */

unsigned sim_gpu_types(const struct sim *s)
{
	return cluster_gpu_type_count(s->cluster);
}

const char *sim_gpu_type_name(const struct sim *s, unsigned t)
{
	return t < sim_gpu_types(s) ? cluster_gpu_type_name(s->cluster, t)
				    : NULL;
}

uint64_t sim_gpu_type_capacity(const struct sim *s, unsigned t)
{
	return t < sim_gpu_types(s) ? cluster_gpu_type_total(s->cluster, t)
				    : 0;
}

uint64_t sim_gpu_type_free(const struct sim *s, unsigned t)
{
	return t < sim_gpu_types(s) ? cluster_gpu_type_free(s->cluster, t) : 0;
}

double sim_job_type_rate(const struct sim *s, const struct job *j,
			 unsigned t)
{
	if (t >= sim_gpu_types(s))
		return 0;
	if (!s->speed || !j->gpus)
		return 1.0;
	unsigned cls = j->job_class;
	if (cls == JOB_CLASS_NONE && s->cfg.speed->draw_classes)
		cls = speed_draw_class(s->cfg.seed, j->idx); /* as at start */
	int gpu = jobclass_gpu_lookup(cluster_gpu_type_name(s->cluster, t),
				      NULL);
	/* with the experiment's throughput overrides, as speed_rate */
	return speed_class_rate(cls, gpu, s->cfg.speed->ref_gpu,
				s->cfg.speed->thr);
}

bool sim_job_fits_on(const struct sim *s, const struct job *j, unsigned t)
{
	if (!j->gpus || t >= sim_gpu_types(s) ||
	    (j->gpu_type && j->gpu_type != t + 1))
		return false;
	struct job only = *j;
	only.gpu_type = (uint16_t)(t + 1);
	return cluster_fits(s->cluster, &only);
}

int sim_job_start_on(struct sim *s, const struct job *cj, unsigned t)
{
	if (!own_job(s, cj) || cj->state != JOB_PENDING || !cj->gpus ||
	    t >= sim_gpu_types(s) || (cj->gpu_type && cj->gpu_type != t + 1)) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	/* The constraint narrowed to t for the placement, then restored. */
	struct job *j = &s->jobs[cj->idx];
	uint16_t own = j->gpu_type;
	j->gpu_type = (uint16_t)(t + 1);
	int rc = sim_job_start(s, j);
	j->gpu_type = own;
	return rc;
}
