/*
 * las: least attained service, discretised in queues, preemptive (the
 * Tiresias 2D-LAS scheduler).
 *
 * What it does: a job's attained service is the resource-time it has
 * received (GPU-seconds; CPU-seconds for a job without GPUs: the "2D" of
 * Tiresias, time x width), not counting the time it spent restoring
 * checkpoints (sim_job_service: with a restore longer than a queue's
 * quantum, a resumed job would be demoted before doing any work).
 * Thresholds T1 < T2 < ... split jobs into queues: queue 0 holds jobs
 * with service below T1, queue k those between T_k and T_k+1.  Lower
 * queues go first; the ranking goes to the engine's preemptive allocation
 * (sim_rank_apply), so a new job preempts jobs that have already had much
 * service.
 *
 * Each scheduling point is the loop of Tiresias' scheduler, in its order
 * (las_schedule): demote the running jobs that crossed a threshold,
 * promote the starved waiting ones, rank the queues, let the engine
 * allocate, then put each queue's running jobs ahead of its waiting ones.
 * The engine says which jobs it started and preempted (las_started,
 * las_preempted), which is when a job's wait for promotion starts and
 * stops counting.
 *
 * Order inside a queue, as Tiresias keeps it: a job joins the end of a
 * queue when it arrives (queue 0), is demoted (the moment its service
 * crosses a threshold: the policy asks to be woken then) or is promoted;
 * after every scheduling point the running jobs of each queue move ahead
 * of its waiting ones, both keeping their order.  So a waiting job never
 * preempts a running job of its own queue, a preempted job waits at the
 * head of its queue's waiting jobs, and a job demoted into a queue comes
 * behind the jobs that already wait there.
 *
 * Starvation promotion (promote_knob K > 0), the rule of Tiresias's
 * simulator: a job keeps E, the time it has run since it was last
 * promoted (since it arrived, before that), and P, the time it has
 * waited since then while E > 0.  A waiting job in queue 1 or below with
 * P >= K x E is promoted: E and P restart from 0 (its service counts
 * from 0 again for queueing, so it is in queue 0), and it joins the end
 * of queue 0.  Both E and P add up over every run and wait since the
 * promotion, not just the last: a job in queue k has run at least
 * T_k / width since, so it waits at least K x T_k / width before its
 * next promotion.  Once started, a promoted job is not preempted before
 * it is demoted again (it runs ahead of the waiting jobs of queue 0).
 * (Measuring only the last run, as this policy did before, let a job cut
 * short after a moment be promoted at once and preempt others, which
 * thrashed on loaded clusters.)
 *
 * Source: Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep
 * Learning", NSDI 2019, section 4.1 (discretised 2D-LAS, starvation
 * promotion with PROMOTE_KNOB); the rule above as their simulator applies
 * it (github.com/SymbioticLab/Tiresias, simulator/run_sim.py,
 * dlas_sim_jobs: executed_time, last_pending_time, solve_starvation).
 *
 * Parameters:
 *   thresholds_s   queue thresholds in resource-seconds, comma-separated
 *                  and increasing (default "3600": two queues)
 *   promote_knob   K above; 0 turns promotion off (default 0)
 *   min_run_s      a job that (re)starts is not preempted again before
 *                  it has run this long (the engine keeps it, policy.h);
 *                  the cure for a preemption livelock (default 0: off)
 *   (and "placement", as every policy)
 *
 * Cost: each queue keeps its running and waiting jobs in order as they
 * come and go (lists linked through the engine's per-job slots, so the
 * policy allocates nothing), and a scheduling point hands the engine the
 * running jobs and the waiting ones only down to where the cluster's
 * units run out (sim_rank_full) - those further down could not start.
 * On the whole Philly summary that is a few dozen waiting jobs per point
 * instead of the ~1,000 that wait.  With promotion on, a point also
 * looks at every waiting job below queue 0 (its promotion time is kept).
 *
 * Example (one GPU, threshold 100 GPU-s): A (0 s, 300 s) runs in queue 0
 * and is demoted to queue 1 at 100.  B (50 s, 500 s), waiting in queue 0,
 * then preempts it and runs 100..200, when it too is demoted, behind A.
 * A resumes at 200 and ends at 400; B ends at 800.  SRTF would have let A
 * finish at 300.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clustersim/policy.h"

#define LAS_MAXQ 16

/* Jobs in order: their slots, linked. */
struct las_list {
	struct las_job *head, *tail;
};

/* The policy's state (allocated by the engine). */
struct las {
	double t[LAS_MAXQ]; /* thresholds, resource-seconds */
	size_t nt;
	double knob;        /* promotion knob; 0 = off */
	struct las_list run[LAS_MAXQ];  /* running jobs of each queue */
	struct las_list wait[LAS_MAXQ]; /* its waiting jobs, behind them */
	struct las_list tail[LAS_MAXQ]; /* jobs demoted into it at this
					   point, behind its waiting ones */
	/* While the engine applies a ranking, what it did to each queue: */
	struct las_list started[LAS_MAXQ]; /* waiting jobs it started */
	struct las_list cut[LAS_MAXQ];  /* running jobs it preempted */
	struct las_list cut_tail[LAS_MAXQ]; /* demoted jobs it preempted */
	struct las_list moved;          /* jobs promoted at this point */
	struct las_job *jobs;           /* the engine's slots, by job idx */
};

/* What the policy remembers of a job: its slot. */
struct las_job {
	struct las_job *prev, *next; /* in its queue's list */
	const struct job *job;
	double base;        /* service at its last promotion (not counted
			       for the queue) */
	sim_time_t waited;  /* P: time waited since its last promotion
			       while it had run since, up to `stopped` */
	sim_time_t stopped; /* when it last went back to waiting */
	sim_time_t due;     /* while waiting: when it is promoted */
	sim_time_t key;     /* when it was demoted or promoted */
	uint8_t q;          /* its queue */
	bool demoted;       /* in its queue's tail at this point */
};

static struct las_job *slot(const struct las *l, const struct job *j)
{
	return &l->jobs[j->idx];
}

static void list_push(struct las_list *ls, struct las_job *s)
{
	CLUSTERSIM_LIST_PUSH(ls, s);
}

static void list_remove(struct las_list *ls, struct las_job *s)
{
	CLUSTERSIM_LIST_REMOVE(ls, s);
}

/* Appends b to a; b is left empty. */
static void list_join(struct las_list *a, struct las_list *b)
{
	if (!b->head)
		return;
	if (a->tail) {
		a->tail->next = b->head;
		b->head->prev = a->tail;
	} else {
		a->head = b->head;
	}
	a->tail = b->tail;
	b->head = b->tail = NULL;
}

/* Puts s in ls in order of (key, job index): Tiresias visits its jobs in
 * arrival order.  From the back: the lists are short. */
static void list_insert_by_key(struct las_list *ls, struct las_job *s)
{
	struct las_job *o = ls->tail;
	while (o && !(o->key < s->key ||
		      (o->key == s->key && o->job->idx < s->job->idx)))
		o = o->prev;
	struct las_job *after = o ? o->next : ls->head;
	s->prev = o;
	s->next = after;
	if (o)
		o->next = s;
	else
		ls->head = s;
	if (after)
		after->prev = s;
	else
		ls->tail = s;
}

static int las_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct las *l = *state;
	l->jobs = sim_job_states(sim);
	const char *s = sim_param_str(sim, "thresholds_s");
	char *end;
	for (const char *p = s; *p;) {
		double v = strtod(p, &end);
		if (end == p || !(v > 0) || !isfinite(v) || l->nt == LAS_MAXQ - 1 ||
		    (l->nt && v <= l->t[l->nt - 1]) || (*end && *end != ',')) {
			snprintf(err->msg, sizeof(err->msg),
				 "thresholds_s must be increasing positive "
				 "numbers separated by commas (at most %d), "
				 "got '%s'", LAS_MAXQ - 1, s);
			return -1;
		}
		l->t[l->nt++] = v;
		p = *end ? end + 1 : end;
	}
	l->knob = sim_param_double(sim, "promote_knob");
	if (!(l->knob >= 0) || !isfinite(l->knob)) {
		snprintf(err->msg, sizeof(err->msg),
			 "promote_knob must be >= 0, got '%g'", l->knob);
		return -1;
	}
	return 0;
}

/* Resource width of a job: GPUs, or CPUs for a job without GPUs. */
static double width(const struct job *j)
{
	return j->gpus ? j->gpus : j->cpus;
}

static size_t queue_of(const struct las *l, double service)
{
	size_t q = 0;
	while (q < l->nt && service >= l->t[q])
		q++;
	return q;
}

/* Service counted for the queue: since the last promotion. */
static double served(struct sim *sim, const struct las *l,
		     const struct job *j)
{
	return sim_job_service(sim, j) - slot(l, j)->base;
}

/* When a job that stops now is promoted: when P reaches K x E. */
static sim_time_t promote_at(struct sim *sim, const struct las *l,
			     const struct job *j, sim_time_t now)
{
	const struct las_job *lj = slot(l, j);
	double e = served(sim, l, j);
	if (!(l->knob > 0) || lj->q == 0 || !(e > 0) || !(width(j) > 0))
		return SIM_TIME_MAX;
	double need = ceil(l->knob * e / width(j) * 1e6);
	if (!(need < 9e18))
		return SIM_TIME_MAX;
	sim_time_t left = (sim_time_t)need - lj->waited;
	return now + (left > 0 ? left : 0);
}

/* A job the engine just queued: it joins the end of queue 0. */
static void las_submitted(struct sim *sim, void *state, const struct job *j)
{
	struct las *l = state;
	struct las_job *s = slot(l, j);
	s->job = j;
	s->due = SIM_TIME_MAX;
	list_push(&l->wait[0], s);
}

/* A running job ended: it leaves its queue. */
static void las_finished(struct sim *sim, void *state, const struct job *j)
{
	struct las *l = state;
	struct las_job *s = slot(l, j);
	list_remove(&l->run[s->q], s);
}

/* The ranking started a waiting job: its wait since it last stopped
 * counts toward promotion once it has run since the last one. */
static void las_started(struct sim *sim, void *state, const struct job *j)
{
	struct las *l = state;
	struct las_job *s = slot(l, j);
	if (served(sim, l, j) > 0)
		s->waited += sim_now(sim) - s->stopped;
	s->due = SIM_TIME_MAX;
	list_remove(&l->wait[s->q], s);
	list_push(&l->started[s->q], s);
}

/* The ranking preempted a running job: it waits, due for promotion when
 * it has waited K times what it ran since the last one. */
static void las_preempted(struct sim *sim, void *state, const struct job *j)
{
	struct las *l = state;
	struct las_job *s = slot(l, j);
	sim_time_t now = sim_now(sim);
	s->stopped = now;
	s->due = promote_at(sim, l, j, now);
	if (s->demoted) {
		list_remove(&l->tail[s->q], s);
		list_push(&l->cut_tail[s->q], s);
	} else {
		list_remove(&l->run[s->q], s);
		list_push(&l->cut[s->q], s);
	}
}

/*
 * Demotes every running job whose service crossed a threshold since the
 * last point: to the tail of its new queue, in the order they crossed.
 */
static void demote(struct sim *sim, struct las *l, sim_time_t now)
{
	for (size_t q = 0; q < l->nt; q++) {
		struct las_job *s = l->run[q].head, *next;
		for (; s; s = next) {
			next = s->next;
			const struct job *j = s->job;
			double got = served(sim, l, j);
			size_t nq = queue_of(l, got);
			if (nq <= q || !(width(j) > 0))
				continue;
			double late = (got - l->t[nq - 1]) / width(j) * 1e6;
			list_remove(&l->run[q], s);
			s->key = now - (sim_time_t)floor(late);
			s->q = (uint8_t)nq;
			s->demoted = true;
			list_insert_by_key(&l->tail[nq], s);
		}
	}
}

/* Promotes the waiting jobs below queue 0 that are due: to the end of
 * queue 0, in the order they fell due, their service and waits counted
 * from zero again. */
static void promote(struct sim *sim, struct las *l, sim_time_t now)
{
	for (size_t q = 1; q <= l->nt; q++) {
		struct las_job *s = l->wait[q].head, *next;
		for (; s; s = next) {
			next = s->next;
			if (s->due > now)
				continue;
			list_remove(&l->wait[q], s);
			s->key = s->due;
			list_insert_by_key(&l->moved, s);
		}
	}
	for (struct las_job *s = l->moved.head; s; s = s->next) {
		s->base = sim_job_service(sim, s->job);
		s->waited = 0;
		s->stopped = now;
		s->due = SIM_TIME_MAX;
		s->q = 0;
	}
	list_join(&l->wait[0], &l->moved);
}

/*
 * Ranks the jobs queue by queue, each queue in its order (running,
 * waiting, just demoted).  Waiting jobs are listed only while one could
 * still start; every running job is listed, to be kept or preempted.
 */
static void rank(struct sim *sim, struct las *l)
{
	sim_rank_begin(sim);
	for (size_t q = 0; q <= l->nt; q++) {
		struct las_job *s;
		for (s = l->run[q].head; s; s = s->next)
			sim_rank_add(sim, s->job);
		for (s = l->wait[q].head; s && !sim_rank_full(sim); s = s->next)
			sim_rank_add(sim, s->job);
		for (s = l->tail[q].head; s; s = s->next)
			sim_rank_add(sim, s->job);
	}
}

/*
 * After the allocation: the running jobs of each queue (those that ran,
 * those that started, those just demoted, in that order) go ahead of its
 * waiting ones (those preempted, those still waiting, those just demoted
 * and preempted).
 */
static void reorder(struct las *l)
{
	for (size_t q = 0; q <= l->nt; q++) {
		struct las_job *s;
		for (s = l->tail[q].head; s; s = s->next)
			s->demoted = false;
		for (s = l->cut_tail[q].head; s; s = s->next)
			s->demoted = false;
		list_join(&l->run[q], &l->started[q]);
		list_join(&l->run[q], &l->tail[q]);
		list_join(&l->cut[q], &l->wait[q]);
		list_join(&l->cut[q], &l->cut_tail[q]);
		l->wait[q] = l->cut[q];
		l->cut[q] = (struct las_list){ NULL, NULL };
	}
}

/* Wakes up when a running job crosses a threshold, or a waiting one is
 * due for promotion. */
static void wake(struct sim *sim, struct las *l, sim_time_t now)
{
	sim_time_t next = SIM_TIME_MAX;
	for (size_t q = 0; q < l->nt; q++) {
		for (struct las_job *s = l->run[q].head; s; s = s->next) {
			const struct job *j = s->job;
			double got = served(sim, l, j);
			if (!(width(j) > 0))
				continue;
			double dt = (l->t[q] - got) / width(j) * 1e6;
			if (!(dt < (double)(SIM_TIME_MAX - now) * 0.5))
				continue; /* a threshold the clock never
				             reaches */
			sim_time_t t = now + (sim_time_t)ceil(dt > 1 ? dt : 1);
			if (t < next)
				next = t;
		}
	}
	for (size_t q = 1; l->knob > 0 && q <= l->nt; q++) {
		for (struct las_job *s = l->wait[q].head; s; s = s->next) {
			sim_time_t t = s->due <= now ? now + 1 : s->due;
			if (t < next)
				next = t;
		}
	}
	if (next != SIM_TIME_MAX)
		sim_wakeup_at(sim, next);
}

static void las_schedule(struct sim *sim, void *state)
{
	struct las *l = state;
	sim_time_t now = sim_now(sim);
	/* Nobody waits: the ranking would keep every running job, and a
	 * demotion matters only against a waiting job - whose arrival calls
	 * this again (and then the demotions are made in the order of when
	 * they happened). */
	if (sim_queue_len(sim) == 0)
		return;
	demote(sim, l, now);
	if (l->knob > 0)
		promote(sim, l, now);
	rank(sim, l);
	sim_rank_apply(sim); /* las_started, las_preempted: what it did */
	reorder(l);
	wake(sim, l, now);
}

static const struct policy_param las_params[] = {
	{ "thresholds_s", PARAM_STRING, "3600",
	  "queue thresholds, resource-seconds, comma-separated" },
	{ "promote_knob", PARAM_DOUBLE, "0",
	  "promote a waiting job once it has waited this many times as long "
	  "as it ran since its last promotion; 0 = off" },
	{ "min_run_s", PARAM_DOUBLE, "0",
	  "a job that (re)starts is not preempted before it has run this "
	  "long, seconds (the engine keeps it: policy.h)" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(las,
	.summary = "Tiresias discretised 2D-LAS: queues by attained "
		   "service, preemptive",
	.params = las_params,
	.state_size = sizeof(struct las),
	.job_state_size = sizeof(struct las_job),
	.init = las_init,
	.job_submitted = las_submitted,
	.job_finished = las_finished,
	.job_started = las_started,
	.job_preempted = las_preempted,
	.schedule = las_schedule);
