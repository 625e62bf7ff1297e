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
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evq.h"
#include "jobclass.h"
#include "util.h"

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
	bool in_schedule;             /* schedule() is running: the only
	                                 time a policy may start jobs */
};

/*
 * How far a running job has got, once its speed can differ from the
 * reference: work is run time at reference speed, in microseconds.
 */
struct progress {
	double done;      /* work done up to since (microseconds of work;
	                     below the kept work while it restores) */
	sim_time_t since; /* when done was last brought up to date */
	double rate;      /* work per microsecond now (1 = reference speed) */
	sim_time_t started; /* when its current run started */
};

/* What a preempted job keeps, made on the first preemption. */
struct resume {
	double kept;      /* work it keeps, microseconds */
	sim_time_t since; /* when it last started to wait */
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
		est = s->cfg.restore_overhead +
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
		j->attained = 0;
		j->queued = 0;
		j->nodes_used = 0;
		j->gpu_type_used = 0;
	}
	s->plc = xcalloc(s->njobs, sizeof(*s->plc));
	s->end_ev = xmalloc((s->njobs ? s->njobs : 1) * sizeof(*s->end_ev));
	s->cluster = cluster_new(cfg->cluster);
	s->capacity_cpus = cluster_total_cpus(s->cluster);
	s->capacity_gpus = cluster_total_gpus(s->cluster);
	s->profile = profile_new();
	if (cfg->speed && cluster_total_gpus(s->cluster))
		s->speed = speed_new(cfg->cluster, &cfg->speed->net,
				     cfg->speed->ref_gpu);
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
		s->prog[r->idx] = (struct progress){ 0, r->start, 1.0,
						     r->start };
	}
}

/* When a running job's current run started. */
static sim_time_t run_started(const struct sim *s, const struct job *j)
{
	return s->prog ? s->prog[j->idx].started : j->start;
}

/* Resource-seconds of a run from its start to now. */
static double held(const struct sim *s, const struct job *j)
{
	double res = j->gpus ? j->gpus : j->cpus;
	return res * (double)(s->now - run_started(s, j)) / SIM_SEC;
}

/* Gives the jobs whose speed may have changed their new rates. */
static void update_rates(struct sim *s)
{
	const int64_t *ids;
	size_t n = speed_changed(s->speed, &ids);
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &s->jobs[ids[i]];
		if (j->state != JOB_RUNNING)
			continue;
		double r = speed_rate(s->speed, j, &s->plc[j->idx]);
		if (sim_set_job_rate(s, j, r) != 0)
			SIM_BUG("rate %g refused for job %lld", r,
				(long long)j->id);
	}
}

static void end_job(struct sim *s, struct job *j)
{
	j->attained += held(s, j);
	j->end = s->now;
	j->state = (j->flags & JOB_KILL_AT_ESTIMATE) ? JOB_KILLED
						     : JOB_FINISHED;
	running_remove(s, j);
	if (s->speed && j->gpus)
		speed_job_ended(s->speed, j);
	cluster_release(s->cluster, &s->plc[j->idx]);
	s->busy_cpus = s->capacity_cpus - cluster_free_cpus(s->cluster);
	s->busy_gpus = s->capacity_gpus - cluster_free_gpus(s->cluster);
	placement_release(&s->plc[j->idx]);
	s->ended++;
	if (s->speed && j->gpus)
		update_rates(s);
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

int sim_job_start(struct sim *s, const struct job *cj)
{
	if (!own_job(s, cj) || cj->state != JOB_PENDING || !s->in_schedule) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	struct job *j = &s->jobs[cj->idx];
	struct placement *plc = &s->plc[j->idx];
	if (s->speed && j->gpus && j->job_class == JOB_CLASS_NONE &&
	    s->cfg.speed->draw_classes)
		j->job_class = (uint16_t)speed_draw_class(s->cfg.seed, j->idx);
	int placed = j->gpus
		? cluster_alloc_gpus(s->cluster, j, s->placement, &s->rng, plc)
		: cluster_alloc(s->cluster, j, plc);
	if (placed != 0) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	queue_remove(s, j);
	j->state = JOB_RUNNING;
	bool restart = j->preemptions > 0;
	if (!restart)
		j->start = s->now;
	j->queued += s->now - (restart ? s->resume[j->idx].since : j->submit);
	j->nodes_used = 0;
	for (uint32_t i = 0; i < plc->n; i++)
		j->nodes_used += plc->slots[i].count;
	j->gpu_type_used = 0;
	if (j->gpus && plc->n)
		j->gpu_type_used = (uint16_t)(cluster_node_gpu_type(
			s->cluster, plc->slots[0].node) + 1);
	/* A restarted job resumes from its kept work, after restoring. */
	double done = restart ? s->resume[j->idx].kept -
					(double)s->cfg.restore_overhead
			      : 0;
	if (s->prog)
		s->prog[j->idx] = (struct progress){ done, s->now, 1.0,
						     s->now };
	running_insert(s, j); /* after prog: a restart's planned end */
	s->busy_cpus = s->capacity_cpus - cluster_free_cpus(s->cluster);
	s->busy_gpus = s->capacity_gpus - cluster_free_gpus(s->cluster);
	double left = (double)j->run - done;
	s->end_ev[j->idx] = evq_push(&s->q,
				     s->now + (sim_time_t)ceil(left > 0 ? left
									: 0),
				     EV_END, j->idx);
	if (s->speed && j->gpus) {
		speed_job_started(s->speed, j, plc);
		update_rates(s);
	}
	return 0;
}

int sim_set_job_rate(struct sim *s, const struct job *cj, double rate)
{
	if (!own_job(s, cj) || cj->state != JOB_RUNNING || !(rate > 0) ||
	    !isfinite(rate))
		return -SIM_ESTATE;
	ensure_prog(s);
	struct progress *p = &s->prog[cj->idx];
	p->done += (double)(s->now - p->since) * p->rate;
	p->since = s->now;
	p->rate = rate;
	double left = (double)cj->run - p->done;
	/* Whole microseconds, rounded up: a job never ends before its work
	 * is done. */
	sim_time_t dt = left > 0 ? (sim_time_t)ceil(left / rate) : 0;
	evq_move(&s->q, s->end_ev[cj->idx], s->now + dt);
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
	if (!s->prog)
		return (double)(s->now - j->start);
	const struct progress *p = &s->prog[j->idx];
	return p->done + (double)(s->now - p->since) * p->rate;
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
	struct progress *p = &s->prog[j->idx];
	struct resume *r = &s->resume[j->idx];
	double done = p->done + (double)(s->now - p->since) * p->rate;
	/* Out of the running set while its key (from kept work and
	 * preemptions) is still the one it went in with. */
	running_remove(s, j);
	/* Checkpoints every interval of work; while it is still restoring
	 * (done below the kept work) it keeps what it had. */
	double iv = (double)s->cfg.checkpoint_interval;
	double kept = iv > 0 ? floor(done / iv) * iv : done;
	if (kept < r->kept)
		kept = r->kept;
	if (done > kept)
		s->counters.lost_work += (done - kept) / SIM_SEC;
	r->kept = kept;
	r->since = s->now;
	j->attained += held(s, j);
	j->preemptions++;
	s->counters.preemptions++;

	evq_remove(&s->q, s->end_ev[j->idx]);
	if (s->speed && j->gpus)
		speed_job_ended(s->speed, j);
	cluster_release(s->cluster, &s->plc[j->idx]);
	s->busy_cpus = s->capacity_cpus - cluster_free_cpus(s->cluster);
	s->busy_gpus = s->capacity_gpus - cluster_free_gpus(s->cluster);
	placement_release(&s->plc[j->idx]);
	j->state = JOB_PENDING;
	queue_insert(s, j);
	if (s->speed && j->gpus)
		update_rates(s);
	return 0;
}

size_t sim_apply_ranking(struct sim *s, const struct job *const *ranked,
			 size_t n)
{
	/* Units in play: free now plus what the listed running jobs hold. */
	uint64_t units = units_free(s->cluster);
	for (size_t k = 0; k < n; k++)
		if (ranked[k]->state == JOB_RUNNING)
			units += units_demand(s->cluster, ranked[k]);
	bool *keep = xcalloc(n ? n : 1, sizeof(*keep));
	for (size_t k = 0; k < n; k++) {
		uint64_t d = units_demand(s->cluster, ranked[k]);
		if (d <= units) {
			units -= d;
			keep[k] = true;
		}
	}
	/* Preempt first, so that the winners find their resources. */
	for (size_t k = 0; k < n; k++)
		if (!keep[k] && ranked[k]->state == JOB_RUNNING)
			sim_job_preempt(s, ranked[k]);
	size_t started = 0;
	for (size_t k = 0; k < n; k++)
		if (keep[k] && ranked[k]->state == JOB_PENDING &&
		    cluster_fits(s->cluster, ranked[k]) &&
		    sim_job_start(s, ranked[k]) == 0)
			started++;
	free(keep);
	return started;
}

double sim_job_attained(const struct sim *s, const struct job *j)
{
	return j->attained + (j->state == JOB_RUNNING ? held(s, j) : 0);
}

size_t sim_start_head(struct sim *s)
{
	size_t started = 0;
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
	 * (for jobs past their estimate) keeps it sorted. */
	profile_build(s->profile, s->cluster, s->now, s->jobs, s->running,
		      s->nrun);
	return s->profile;
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
	if (cls == JOB_CLASS_NONE || gpu < 0)
		return 1.0;
	double r = jobclass_speed(cls, gpu, s->cfg.speed->ref_gpu, 1, true);
	return r > 0 && isfinite(r) ? r : 1.0; /* speed_rate's fallback */
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
