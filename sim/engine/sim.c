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
 * It owns the policy's state and per-job slots (sizes from its table),
 * and tells it of every submit, start, preemption and end after the fact
 * (sim_notify: a notification may not act).
 *
 * This file is the loop and the state it moves jobs through: the pending
 * queue, the running set, starts and preemptions.  What a running job
 * has done and how fast it goes is sim_progress.c; GPU sharing and
 * migration sim_share.c; the steps policies share (ranking, head start,
 * the profile) sim_rank.c; read-only queries sim_query.c (sim_impl.h
 * lists them all).
 */
#include "engine/sim_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

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
		j->service = 0;
		j->lost_work = 0;
	}
	s->plc = xcalloc(s->njobs, sizeof(*s->plc));
	s->end_ev = xmalloc((s->njobs ? s->njobs : 1) * sizeof(*s->end_ev));
	s->cluster = cluster_new(cfg->cluster);
	cluster_bind_groups(s->cluster, cfg->workload->groups,
			    cfg->workload->ngroups);
	s->capacity_cpus = cluster_total_cpus(s->cluster);
	s->capacity_gpus = cluster_total_gpus(s->cluster);
	s->profile = profile_new();
	sim_placelog_init(s);
	if (cfg->speed && cluster_total_gpus(s->cluster))
		s->speed = speed_new(cfg->cluster, &cfg->speed->net,
				     cfg->speed->ref_gpu, cfg->speed->thr);
	if (s->speed && cfg->workload->nllm)
		speed_set_llm(s->speed, cfg->workload->llm,
			      cfg->workload->nllm);
	evq_init(&s->q);
	if (cfg->submits_first) {
		static const enum ev_phase order[EV_NPHASES] = {
			EV_SUBMIT, EV_END, EV_NODE, EV_TIMER, EV_SAMPLE,
		};
		evq_set_order(&s->q, order);
	}
	sim_hpo_init(s);
	sim_tenant_init(s);
	sim_slurm_init(s);
	s->max_samples = cfg->max_samples ? cfg->max_samples
					  : SIM_MAX_SAMPLES_DEFAULT;
	if (s->max_samples < 3)
		s->max_samples = 3; /* a first, a middle and a last */
	s->interval = cfg->sample_interval > 0 ? cfg->sample_interval
					       : sim_auto_interval(cfg->workload);
	s->measure = cfg->measure;
	s->win_start = cfg->measure_start != SIM_TIME_NONE ? cfg->measure_start
							   : INT64_MIN;
	s->win_end = cfg->measure_end != SIM_TIME_NONE ? cfg->measure_end
						       : INT64_MAX;
	return s;
}

static void release_run_arrays(struct sim *s)
{
	if (s->plc)
		for (size_t i = 0; i < s->njobs; i++)
			placement_release(&s->plc[i]);
	free(s->plc);
	free(s->end_ev);
	s->plc = NULL;
	s->end_ev = NULL;
}

/* What sim_alloc handed out: freed when the policy stops, and again at
 * sim_free for any made after the run (a caller's own heap, say). */
static void free_allocs(struct sim *s)
{
	for (size_t i = 0; i < s->nallocs; i++)
		free(s->allocs[i]);
	free(s->allocs);
	s->allocs = NULL;
	s->nallocs = s->alloccap = 0;
}

void sim_free(struct sim *s)
{
	if (!s)
		return;
	free_allocs(s);
	free(s->obs_caps.units);
	release_run_arrays(s);
	sim_hpo_release(s);
	sim_tenant_release(s);
	sim_slurm_release(s);
	free(s->prog);
	free(s->resume);
	free(s->promise);
	if (!s->cfg.jobs_in_place)
		free(s->jobs);
	free(s->queue);
	free(s->runbuf);
	free(s->pscratch);
	free(s->gone);
	free(s->rank);
	free(s->rkeys);
	free(s->border);
	free(s->samples);
	sim_placelog_release(s);
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
	if (s->count_zero)
		sim_rank_note_queue(s, j, true);
	if (s->qlen > s->counters.queue_max)
		s->counters.queue_max = (uint32_t)s->qlen;
	if (s->measure && s->now >= s->win_start && s->now <= s->win_end &&
	    s->qlen > s->counters.win_queue_max)
		s->counters.win_queue_max = (uint32_t)s->qlen;
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
	if (s->count_zero)
		sim_rank_note_queue(s, j, false);
}

/* A pending job's request changes (sim_job_resize): it leaves the queue
 * and comes back in its order, its counts with it. */
void sim_queue_reshape(struct sim *s, struct job *j, uint32_t gpus,
		       uint32_t batch)
{
	queue_remove(s, j);
	j->gpus = gpus;
	j->batch = batch;
	queue_insert(s, j);
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
	sim_note_gone(s, &s->running[i]);
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

static void end_job(struct sim *s, struct job *j)
{
	sim_count_held(s, j);
	j->end = s->now;
	if (s->prog) {
		struct progress *pg = &s->prog[j->idx];
		sim_pslow_account(pg, s->now);
		if (s->speed && j->gpus && pg->ran_ideal > 0)
			j->placement_slowdown = pg->ran / pg->ran_ideal;
	}
	j->state = (j->flags & JOB_KILL_AT_ESTIMATE) ? JOB_KILLED
						     : JOB_FINISHED;
	running_remove(s, j);
	sim_leave_resources(s, j);
	s->ended++;
	note_progress(s);
	if (s->ops->job_finished)
		s->ops->job_finished(s, s->pstate, j);
}

static void submit_job(struct sim *s, struct job *j)
{
	SIM_ASSERT(j->idx == s->next_submit);
	s->next_submit++;
	push_submit(s);
	if (!cluster_can_ever_fit(s->cluster, j) ||
	    (s->slurm && sim_slurm_refuse(s, j))) {
		j->state = JOB_REJECTED;
		s->counters.rejected++;
		s->ended++;
		return;
	}
	j->state = JOB_PENDING;
	if (!s->qlen && !s->nrun)
		note_progress(s); /* idle time is no lack of progress */
	queue_insert(s, j);
	if (s->ops->job_submitted)
		s->ops->job_submitted(s, s->pstate, j);
}

static void apply(struct sim *s, enum ev_phase ph, uint32_t payload)
{
	s->counters.events++;
	switch (ph) {
	case EV_END:
		if (!s->hpo || !sim_hpo_at_end(s, &s->jobs[payload]))
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

/* The part of the step from area_t to t inside the measurement window. */
static void advance_window(struct sim *s, sim_time_t t)
{
	sim_time_t a = s->area_t > s->win_start ? s->area_t : s->win_start;
	sim_time_t b = t < s->win_end ? t : s->win_end;
	if (b <= a)
		return;
	double dt = (double)(b - a) / (double)SIM_SEC;
	struct run_counters *c = &s->counters;
	c->win_busy_area += (double)s->busy_cpus * dt;
	c->win_queue_area += (double)s->qlen * dt;
	c->win_gpu_busy_area += (double)s->busy_gpus * dt;
	if (s->qlen > c->win_queue_max)
		c->win_queue_max = (uint32_t)s->qlen;
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
		if (s->measure)
			advance_window(s, t);
	}
	s->area_t = t;
	s->now = t;
}

/* ---- The loop -------------------------------------------------------- */

/* Scheduling rounds (schedule_interval): is now one?  Always without
 * rounds; else the engine wakes itself for the next one, once. */
static bool round_due(struct sim *s)
{
	sim_time_t iv = s->cfg.schedule_interval;
	if (iv <= 0 || s->now % iv == 0)
		return true;
	sim_time_t next = (s->now / iv + 1) * iv;
	if (s->round_at != next && s->ended < s->njobs) {
		evq_push(&s->q, next, EV_TIMER, 0);
		s->round_at = next;
	}
	return false;
}

void sim_notify(struct sim *s,
		void (*cb)(struct sim *, void *, const struct job *),
		const struct job *j)
{
	if (!cb)
		return;
	/* A notification may not act: the checks of sim_job_start and
	 * the others refuse calls made outside schedule(). */
	bool in = s->in_schedule;
	s->in_schedule = false;
	cb(s, s->pstate, j);
	s->in_schedule = in;
}

/* The longest min_run_s, seconds (as long as a lease may be). */
#define SIM_MIN_RUN_MAX_S 1e9

/*
 * The policy's start: its placement and min_run_s parameters, the state and job slots
 * the engine allocates for it (zeroed, sizes from its table), then its
 * init().  0, or -SIM_EINPUT with a message.
 */
static int policy_start(struct sim *s, struct sim_error *err)
{
	struct sim_error perr = { .msg = "" };
	s->placement = PLACE_FIRST_FIT;
	s->rng = s->cfg.seed;
	for (size_t i = 0; i < s->cfg.nparams; i++) {
		const struct pval *p = &s->cfg.params[i];
		if (strcmp(p->name, "placement") == 0 &&
		    place_strategy_parse(p->s, &s->placement, &perr) != 0)
			return err_setc(err, -SIM_EINPUT, "%s", perr.msg);
		cluster_set_shape_blind(s->cluster,
					s->placement == PLACE_SHAPE_BLIND);
		if (strcmp(p->name, "min_run_s") == 0 &&
		    p->type == PARAM_DOUBLE) {
			if (!(p->d >= 0 && p->d <= SIM_MIN_RUN_MAX_S))
				return err_setc(err, -SIM_EINPUT,
						"min_run_s must be 0 .. %g "
						"seconds, got '%g'",
						SIM_MIN_RUN_MAX_S, p->d);
			s->min_run = (sim_time_t)llround(p->d * SIM_SEC);
		}
	}
	if (s->cfg.policy_state)
		s->pstate = s->cfg.policy_state;
	else if (s->ops->state_size)
		s->pstate = s->pstate_own = xcalloc(1, s->ops->state_size);
	if (s->ops->job_state_size)
		s->jstate = xcalloc(s->njobs ? s->njobs : 1,
				    s->ops->job_state_size);
	if (s->ops->init && s->ops->init(s, &s->pstate, &perr) != 0)
		return err_setc(err, -SIM_EINPUT,
				"policy '%s' failed to start: %s", s->ops->name,
				perr.msg[0] ? perr.msg : "no reason given");
	return 0;
}

/* The policy's end, even when its start failed: fini(), then the engine
 * frees what it allocated for the policy. */
static void policy_stop(struct sim *s)
{
	if (s->ops->fini)
		s->ops->fini(s, s->pstate);
	s->pstate = NULL;
	free(s->pstate_own);
	free(s->jstate);
	s->pstate_own = s->jstate = NULL;
	free_allocs(s);
}

void *sim_job_state(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_job_state") || !s->jstate)
		return NULL;
	return s->jstate + (size_t)j->idx * s->ops->job_state_size;
}

void *sim_job_states(const struct sim *s)
{
	return s->jstate;
}

void *sim_alloc(struct sim *s, size_t n, size_t size)
{
	if (!n || !size)
		return NULL;
	xgrow(&s->allocs, &s->alloccap, s->nallocs + 1, sizeof(*s->allocs));
	return s->allocs[s->nallocs++] = xcalloc(n, size);
}

/* A job would end past SIM_TIME_HORIZON: the run stops (exit 2). */
static int horizon_error(const struct sim *s, struct sim_error *err)
{
	const struct job *j = &s->jobs[s->past_horizon - 1];
	char at[32];
	fmt_time(at, s->now);
	return err_setc(err, -SIM_EINPUT, "job %lld would end past the "
			"simulated clock's end (2^62 microseconds, about "
			"146,000 years) at time %s s: its work at the rate its "
			"GPUs and network give, or its restore cost, is "
			"beyond what the clock holds", (long long)j->id, at);
}

/*
 * Applies the current time's due events (ends, node changes, submits,
 * timers) in order; true when schedule() is due now: once they are all
 * applied, or after each with schedule_each_event.  Called again after
 * that schedule() (whose events at the same time come next) until it
 * says false: the time is quiet.
 */
static bool apply_now(struct sim *s)
{
	sim_time_t t;
	enum ev_phase ph;
	uint32_t payload;
	bool fired = false;
	while (evq_peek(&s->q, &t, &ph) && t == s->now && ph < EV_SAMPLE) {
		evq_pop(&s->q, &t, &ph, &payload);
		apply(s, ph, payload);
		fired = true;
		if (s->cfg.schedule_each_event && round_due(s))
			return true;
	}
	return fired && !s->cfg.schedule_each_event && round_due(s);
}

/* Whether nothing will ever happen again but samples: no running job,
 * no submit and no wake-up to come. */
static bool nothing_to_come(const struct sim *s)
{
	return s->nrun == 0 && evq_len(&s->q) <= 1 &&
	       s->next_submit == s->njobs;
}

/* The checks once a time is quiet: the invariants, the progress line,
 * jobs left with nothing to come, and a run without net progress. */
static int time_done(struct sim *s, struct sim_error *err)
{
	if (s->cfg.check) {
		sim_check_invariants(s);
		if (s->broke.job)
			return sim_promise_error(s, err);
	}
	if (s->cfg.progress && s->ended >= s->progress_mark) {
		s->cfg.progress(s->cfg.progress_ctx, s->ended, s->njobs);
		s->progress_mark = s->ended + s->njobs / 100 + 1;
	}
	/* Jobs waiting with nothing left to happen: the policy will never
	 * start them. */
	if (s->qlen && nothing_to_come(s))
		return err_setc(err, -SIM_ESTATE,
				"policy '%s' left %zu jobs pending with "
				"nothing running and no event to come "
				"(first: job %lld)",
				s->ops->name, s->qlen,
				(long long)s->jobs[s->queue[s->qhead]].id);
	if (s->now >= s->progress_due)
		return sim_progress_check(s, err);
	return 0;
}

int sim_run_open(struct sim *s, struct sim_error *err)
{
	int rc = policy_start(s, err);
	if (rc != 0)
		return rc;
	push_submit(s);
	/* An explicit period that the submits alone make too fine. */
	if (s->njobs && s->cfg.sample_interval > 0 &&
	    (uint64_t)(s->jobs[s->njobs - 1].submit - s->jobs[0].submit) /
			    (uint64_t)s->interval >= sim_samples_cap(s))
		return sim_too_many_samples(s, err);
	if (s->njobs) {
		s->now = s->last_sample_t = s->area_t = s->jobs[0].submit;
		evq_push(&s->q, s->now, EV_SAMPLE, 0);
	}
	sim_progress_start(s);
	s->progress_mark = 0;
	s->run_open = true;
	return 0;
}

/* The queue is empty: the last sample and progress line, once. */
static int run_over(struct sim *s)
{
	if (!s->run_open)
		return 0;
	s->run_open = false;
	if (s->nsamples == 0 || s->samples[s->nsamples - 1].t != s->now)
		sim_take_sample(s);
	if (s->cfg.progress)
		s->cfg.progress(s->cfg.progress_ctx, s->ended, s->njobs);
	return 0;
}

int sim_run_next(struct sim *s, struct sim_error *err)
{
	sim_time_t t;
	enum ev_phase ph;
	uint32_t payload;
	int rc;
	s->in_schedule = false;
	for (;;) {
		if (!s->at_time) {
			if (!s->run_open || !evq_peek(&s->q, &t, &ph))
				return run_over(s);
			if (s->past_horizon)
				return horizon_error(s, err);
			advance_to(s, t);
			s->started = true;
			if (ph == EV_SAMPLE) {
				evq_pop(&s->q, &t, &ph, &payload);
				if ((rc = sim_sample_event(s, t, err)) != 0)
					return rc;
				continue;
			}
			s->at_time = true;
		}
		if (apply_now(s)) {
			s->counters.schedule_calls++;
			s->in_schedule = true;
			return 1;
		}
		s->at_time = false;
		if ((rc = time_done(s, err)) != 0)
			return rc;
	}
}

bool sim_run_can_wait(const struct sim *s)
{
	return !nothing_to_come(s);
}

int sim_run_close(struct sim *s, int rc)
{
	s->in_schedule = false;
	s->run_open = false;
	policy_stop(s);
	/* Nothing runs any more: the per-job placements and end events go
	 * now, before the caller computes statistics over the jobs (on a
	 * long trace the statistics are the run's peak of memory). */
	if (rc == 0 && s->nrun == 0)
		release_run_arrays(s);
	return rc;
}

int sim_run(struct sim *s, struct sim_error *err)
{
	int rc = sim_run_open(s, err);
	while (rc == 0 && (rc = sim_run_next(s, err)) > 0) {
		s->ops->schedule(s, s->pstate);
		rc = 0;
	}
	return sim_run_close(s, rc);
}

/* ---- Starts and preemptions ------------------------------------------ */

/* Gives a GPU job of no class one, when the experiment asks for it. */
void sim_draw_class(struct sim *s, struct job *j)
{
	if (s->speed && speed_job_has_class(j) &&
	    j->job_class == JOB_CLASS_NONE && s->cfg.speed->draw_classes)
		j->job_class = (uint16_t)speed_draw_class(s->cfg.seed, j->idx);
}

/* Placement summary in the job record: nodes and GPU type used. */
void sim_note_placement(struct sim *s, struct job *j)
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
void sim_begin_run(struct sim *s, struct job *j)
{
	queue_remove(s, j);
	j->state = JOB_RUNNING;
	if (s->promise)
		s->promise[j->idx] = SIM_TIME_NONE; /* kept */
	bool restart = j->preemptions > 0;
	if (!restart) {
		j->start = s->now;
		j->service = j->run;
	} else
		j->restarts++;
	j->queued += s->now - (restart ? s->resume[j->idx].since : j->submit);
	sim_note_placement(s, j);
	double done = restart ? s->resume[j->idx].kept : 0;
	sim_time_t over = restart ? s->resume[j->idx].overhead
				  : s->cfg.start_overhead;
	if (over > 0)
		sim_ensure_prog(s); /* its restore is counted apart */
	sim_time_t hold = over > 0 ? sim_time_after(s, s->now, (double)over, j)
				   : s->now;
	if (s->prog)
		sim_prog_begin(s, j, done, hold);
	running_insert(s, j); /* after prog: a restart's planned end */
	placelog_open(s, j);
	sim_tenant_start(s, j);
	s->busy_cpus = s->capacity_cpus - cluster_free_cpus(s->cluster);
	s->busy_gpus = s->capacity_gpus - cluster_free_gpus(s->cluster);
	double left = (double)j->run - done;
	s->end_ev[j->idx] = evq_push(&s->q, sim_time_after(s, hold, left, j),
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
	sim_draw_class(s, j);
	int placed = j->gpus
		? cluster_alloc_gpus(s->cluster, j, s->placement, &s->rng, plc)
		: cluster_alloc(s->cluster, j, plc);
	if (placed != 0) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	sim_begin_run(s, j);
	if (s->speed && j->gpus) {
		sim_speed_started(s, j);
		sim_note_service(s, j);
		sim_update_rates(s);
	}
	sim_notify(s, s->ops->job_started, j);
	return 0;
}


int sim_job_preempt(struct sim *s, const struct job *cj)
{
	if (!own_job(s, cj) || cj->state != JOB_RUNNING || !s->in_schedule ||
	    is_pinned(s, cj)) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	struct job *j = &s->jobs[cj->idx];
	sim_ensure_prog(s);
	if (!s->resume)
		s->resume = xcalloc(s->njobs, sizeof(*s->resume));
	struct resume *r = &s->resume[j->idx];
	double done = prog_work(s, j);
	sim_pslow_account(&s->prog[j->idx], s->now);
	/* Out of the running set while its key (from kept work and
	 * preemptions) is still the one it went in with. */
	running_remove(s, j);
	/* Checkpoints every interval of work; while it is still restoring
	 * it has done no more than it kept. */
	double iv = (double)s->cfg.checkpoint_interval;
	double kept = iv > 0 ? floor(done / iv) * iv : done;
	if (kept < r->kept)
		kept = r->kept;
	if (done > kept) {
		s->counters.lost_work += (done - kept) / SIM_SEC;
		j->lost_work += (done - kept) / SIM_SEC;
	}
	if (kept > r->kept)
		note_progress(s);
	r->kept = kept;
	r->since = s->now;
	r->overhead = sim_restore_cost(s, j);
	sim_count_held(s, j);
	j->preemptions++;
	s->counters.preemptions++;

	evq_remove(&s->q, s->end_ev[j->idx]);
	sim_leave_resources(s, j);
	j->state = JOB_PENDING;
	queue_insert(s, j);
	sim_notify(s, s->ops->job_preempted, j);
	return 0;
}


int sim_wakeup_at(struct sim *s, sim_time_t t)
{
	if (t <= s->now || t > SIM_TIME_HORIZON) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	/* Every job has ended: nothing is left to schedule, and a policy
	 * that kept waking itself would keep the run going for ever. */
	if (s->ended == s->njobs)
		return -SIM_ESTATE;
	evq_push(&s->q, t, EV_TIMER, 0);
	return 0;
}

bool sim_job_preemptible(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_job_preemptible"))
		return false;
	return j->state == JOB_RUNNING && !is_pinned(s, j);
}

