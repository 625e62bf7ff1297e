/*
 * las: least attained service, discretised in queues, preemptive (the
 * Tiresias 2D-LAS scheduler).
 *
 * What it does: a job's attained service is the resource-time it has
 * received (GPU-seconds; CPU-seconds for a job without GPUs: the "2D" of
 * Tiresias, time x width), not counting the time it spent restoring
 * checkpoints (sim_job_service: with a restore longer than a queue's
 * quantum, a resumed job would be demoted before doing any work).  Thresholds T1 < T2 < ... split jobs into
 * queues: queue 0 holds jobs with service below T1, queue k those between
 * T_k and T_k+1.  Lower queues go first; the ranking goes to the engine's
 * preemptive allocation (sim_apply_ranking), so a new job preempts jobs
 * that have already had much service.
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
 *   (and "placement", as every policy)
 *
 * Cost: the policy keeps each queue's running and waiting jobs in order
 * as they come and go, so a scheduling point lists the running jobs and
 * the waiting ones only down to where the cluster's units run out -
 * those further down could not start.  On the whole Philly summary that
 * is a few dozen waiting jobs per point instead of the ~1,000 that wait.
 * With promotion on, a point also looks at every waiting job below queue
 * 0 (its promotion time is kept).
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
#include <string.h>

#include "clustersim/policy.h"

#define LAS_MAXQ 16

/* Jobs in order. */
struct las_list {
	const struct job **job;
	size_t n, cap;
};

struct las {
	double t[LAS_MAXQ]; /* thresholds, resource-seconds */
	size_t nt;
	double knob;        /* promotion knob; 0 = off */
	struct las_job *jobs; /* per job index, grown on demand */
	size_t cap;
	struct las_list run[LAS_MAXQ];  /* running jobs of each queue */
	struct las_list wait[LAS_MAXQ]; /* its waiting jobs, behind them */
	struct las_list tail[LAS_MAXQ]; /* jobs demoted into it at this
					   point, behind its waiting ones */
	size_t listed[LAS_MAXQ]; /* waiting jobs of each queue ranked */
	struct las_list moved; /* scratch: jobs demoted or promoted now */
	struct las_list pre;   /* scratch: the preempted jobs of a queue */
	size_t nzero;       /* waiting jobs that ask for no units */
	bool broken;        /* out of memory once: fcfs from then on */
	const struct job **ranked; /* scratch: the list for the engine */
	uint8_t *was;       /* scratch: states before the ranking */
	size_t scap;        /* capacity of the scratch arrays */
};

/* What the policy remembers of a job. */
struct las_job {
	double base;        /* service at its last promotion (not counted
			       for the queue) */
	sim_time_t waited;  /* P: time waited since its last promotion
			       while it had run since, up to `stopped` */
	sim_time_t stopped; /* when it last went back to waiting */
	sim_time_t due;     /* while waiting: when it is promoted */
	sim_time_t key;     /* scratch: when it was demoted or promoted */
	uint8_t q;          /* its queue */
};

static int las_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct las *l = calloc(1, sizeof(*l));
	if (!l)
		return -1;
	*state = l;
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

static void las_fini(struct sim *sim, void *state)
{
	struct las *l = state;
	if (!l)
		return;
	for (size_t q = 0; q < LAS_MAXQ; q++) {
		free(l->run[q].job);
		free(l->wait[q].job);
		free(l->tail[q].job);
	}
	free(l->moved.job);
	free(l->pre.job);
	free(l->jobs);
	free(l->ranked);
	free(l->was);
	free(l);
}

/* Makes room for job index idx; false when out of memory. */
static bool room(struct las *l, uint32_t idx)
{
	if (idx < l->cap)
		return true;
	size_t cap = l->cap ? l->cap : 64;
	while (cap <= idx)
		cap *= 2;
	struct las_job *p = realloc(l->jobs, cap * sizeof(*p));
	if (!p)
		return false;
	memset(p + l->cap, 0, (cap - l->cap) * sizeof(*p));
	l->jobs = p;
	l->cap = cap;
	return true;
}

static bool list_push(struct las_list *w, const struct job *j)
{
	if (!clustersim_grow(&w->job, &w->cap, w->n + 1, sizeof(*w->job)))
		return false;
	w->job[w->n++] = j;
	return true;
}

static void list_remove(struct las_list *w, const struct job *j)
{
	for (size_t i = 0; i < w->n; i++) {
		if (w->job[i] == j) {
			memmove(w->job + i, w->job + i + 1,
				(w->n - i - 1) * sizeof(*w->job));
			w->n--;
			return;
		}
	}
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
	return sim_job_service(sim, j) - l->jobs[j->idx].base;
}

/* When a job that stops now is promoted: when P reaches K x E. */
static sim_time_t promote_at(struct sim *sim, const struct las *l,
			     const struct job *j, sim_time_t now)
{
	const struct las_job *lj = &l->jobs[j->idx];
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
	if (l->broken)
		return;
	if (!room(l, j->idx) || !list_push(&l->wait[0], j)) {
		l->broken = true;
		return;
	}
	l->jobs[j->idx] = (struct las_job){ .due = SIM_TIME_MAX };
	l->nzero += sim_demand(sim, j) == 0;
}

/* A running job ended: it leaves its queue. */
static void las_finished(struct sim *sim, void *state, const struct job *j)
{
	struct las *l = state;
	if (l->broken || j->idx >= l->cap)
		return;
	list_remove(&l->run[l->jobs[j->idx].q], j);
}

/* Grows the scratch arrays to n; false when out of memory. */
static bool scratch(struct las *l, size_t n)
{
	if (n <= l->scap)
		return true;
	size_t cap = 2 * n;
	const struct job **k = realloc(l->ranked, cap * sizeof(*k));
	if (k)
		l->ranked = k;
	uint8_t *w = k ? realloc(l->was, cap) : NULL;
	if (w)
		l->was = w;
	if (!w)
		return false;
	l->scap = cap;
	return true;
}

/* Sorts l->moved by when they moved, then index (Tiresias visits its
 * jobs in arrival order): insertion sort, the list is short. */
static void sort_moved(struct las *l)
{
	const struct job **m = l->moved.job;
	for (size_t i = 1; i < l->moved.n; i++) {
		const struct job *j = m[i];
		sim_time_t k = l->jobs[j->idx].key;
		size_t p = i;
		while (p > 0) {
			const struct job *o = m[p - 1];
			sim_time_t ko = l->jobs[o->idx].key;
			if (ko < k || (ko == k && o->idx < j->idx))
				break;
			m[p] = o;
			p--;
		}
		m[p] = j;
	}
}

/*
 * Demotes every running job whose service crossed a threshold since the
 * last point: to the tail of its new queue, in the order they crossed.
 */
static bool demote(struct sim *sim, struct las *l, sim_time_t now)
{
	l->moved.n = 0;
	for (size_t q = 0; q < l->nt; q++) {
		struct las_list *r = &l->run[q];
		size_t keep = 0;
		for (size_t i = 0; i < r->n; i++) {
			const struct job *j = r->job[i];
			double got = served(sim, l, j);
			size_t nq = queue_of(l, got);
			if (nq <= q || !(width(j) > 0)) {
				r->job[keep++] = j;
				continue;
			}
			struct las_job *lj = &l->jobs[j->idx];
			double late = (got - l->t[nq - 1]) / width(j) * 1e6;
			lj->key = now - (sim_time_t)floor(late);
			lj->q = (uint8_t)nq;
			if (!list_push(&l->moved, j))
				return false;
		}
		r->n = keep;
	}
	sort_moved(l);
	for (size_t i = 0; i < l->moved.n; i++) {
		const struct job *j = l->moved.job[i];
		if (!list_push(&l->tail[l->jobs[j->idx].q], j))
			return false;
	}
	return true;
}

/* Promotes the waiting jobs below queue 0 that are due: to the end of
 * queue 0, their service and waits counted from zero again. */
static bool promote(struct sim *sim, struct las *l, sim_time_t now)
{
	l->moved.n = 0;
	for (size_t q = 1; q <= l->nt; q++) {
		struct las_list *w = &l->wait[q];
		size_t keep = 0;
		for (size_t i = 0; i < w->n; i++) {
			const struct job *j = w->job[i];
			struct las_job *lj = &l->jobs[j->idx];
			if (lj->due > now) {
				w->job[keep++] = j;
				continue;
			}
			lj->key = lj->due;
			if (!list_push(&l->moved, j))
				return false;
		}
		w->n = keep;
	}
	sort_moved(l);
	for (size_t i = 0; i < l->moved.n; i++) {
		const struct job *j = l->moved.job[i];
		struct las_job *lj = &l->jobs[j->idx];
		lj->base = sim_job_service(sim, j);
		lj->waited = 0;
		lj->stopped = now;
		lj->due = SIM_TIME_MAX;
		lj->q = 0;
		if (!list_push(&l->wait[0], j))
			return false;
	}
	return true;
}

/* Puts job j in the ranking. */
static void take(struct sim *sim, struct las *l, size_t *k, uint64_t *units,
		 const struct job *j)
{
	uint64_t d = sim_demand(sim, j);
	if (d <= *units)
		*units -= d;
	l->was[*k] = (uint8_t)j->state;
	l->ranked[(*k)++] = j;
}

/*
 * Ranks the jobs queue by queue, each queue in its order (running,
 * waiting, just demoted) into l->ranked; returns how many.  Where the
 * engine counts one pool of units, the list stops taking waiting jobs
 * once the units run out on the way down: none of them could start
 * (every one asks for some), and running jobs further down are still
 * listed, to be preempted.
 */
static size_t rank(struct sim *sim, struct las *l)
{
	uint64_t units = sim_free_units(sim);
	for (size_t q = 0; q <= l->nt; q++) {
		for (size_t i = 0; i < l->run[q].n; i++)
			units += sim_demand(sim, l->run[q].job[i]);
		for (size_t i = 0; i < l->tail[q].n; i++)
			units += sim_demand(sim, l->tail[q].job[i]);
	}
	bool cut = sim_vc_count(sim) == 0 && l->nzero == 0;
	size_t k = 0;
	for (size_t q = 0; q <= l->nt; q++) {
		for (size_t i = 0; i < l->run[q].n; i++)
			take(sim, l, &k, &units, l->run[q].job[i]);
		size_t i = 0;
		for (; i < l->wait[q].n && !(cut && units == 0); i++)
			take(sim, l, &k, &units, l->wait[q].job[i]);
		l->listed[q] = i;
		for (i = 0; i < l->tail[q].n; i++)
			take(sim, l, &k, &units, l->tail[q].job[i]);
	}
	return k;
}

/*
 * After the allocation: the running jobs of each queue (those that ran,
 * those that started, those just demoted, in that order) go ahead of its
 * waiting ones (those preempted, those still waiting, those just demoted
 * and preempted).
 */
static bool reorder(struct las *l)
{
	for (size_t q = 0; q <= l->nt; q++) {
		struct las_list *r = &l->run[q], *w = &l->wait[q];
		struct las_list *t = &l->tail[q];
		l->pre.n = 0;
		size_t keep = 0;
		for (size_t i = 0; i < r->n; i++) {
			if (r->job[i]->state == JOB_RUNNING)
				r->job[keep++] = r->job[i];
			else if (!list_push(&l->pre, r->job[i]))
				return false;
		}
		r->n = keep;
		keep = 0;
		size_t n = l->listed[q];
		for (size_t i = 0; i < n; i++) {
			const struct job *j = w->job[i];
			if (j->state == JOB_PENDING)
				w->job[keep++] = j;
			else if (!list_push(r, j))
				return false;
		}
		if (keep < n) {
			memmove(w->job + keep, w->job + n,
				(w->n - n) * sizeof(*w->job));
			w->n -= n - keep;
		}
		for (size_t i = 0; i < t->n; i++) {
			const struct job *j = t->job[i];
			if (j->state == JOB_RUNNING) {
				if (!list_push(r, j))
					return false;
			} else if (!list_push(&l->pre, j)) {
				return false;
			}
		}
		/* The preempted of the tail were behind every waiting job:
		 * they go last, the others first. */
		size_t front = l->pre.n;
		for (size_t i = 0; i < t->n; i++)
			front -= t->job[i]->state != JOB_RUNNING;
		if (!clustersim_grow(&w->job, &w->cap, w->n + l->pre.n,
				     sizeof(*w->job)))
			return false;
		if (l->pre.n) {
			memmove(w->job + front, w->job,
				w->n * sizeof(*w->job));
			memcpy(w->job, l->pre.job, front * sizeof(*w->job));
			memcpy(w->job + front + w->n, l->pre.job + front,
			       (l->pre.n - front) * sizeof(*w->job));
			w->n += l->pre.n;
		}
		t->n = 0;
	}
	return true;
}

/* Out of memory: fcfs from now on. */
static void las_break(struct sim *sim, struct las *l)
{
	l->broken = true;
	sim_start_head(sim);
}

static void las_schedule(struct sim *sim, void *state)
{
	struct las *l = state;
	size_t nrun = sim_running_len(sim), nq = sim_queue_len(sim);
	sim_time_t now = sim_now(sim);
	if (l->broken) {
		sim_start_head(sim); /* out of memory: degrade to fcfs */
		return;
	}
	/* Nobody waits: the ranking would keep every running job, and a
	 * demotion matters only against a waiting job - whose arrival calls
	 * this again (and then the demotions are made in the order of when
	 * they happened). */
	if (nq == 0)
		return;
	if (!scratch(l, nrun + nq) || !demote(sim, l, now) ||
	    (l->knob > 0 && !promote(sim, l, now))) {
		las_break(sim, l);
		return;
	}
	size_t n = rank(sim, l);
	sim_apply_ranking(sim, l->ranked, n);
	/* Remember runs that started and runs that were cut short. */
	for (size_t i = 0; i < n; i++) {
		const struct job *j = l->ranked[i];
		if (l->was[i] == j->state)
			continue;
		struct las_job *lj = &l->jobs[j->idx];
		bool zero = sim_demand(sim, j) == 0;
		if (j->state == JOB_RUNNING) {
			if (served(sim, l, j) > 0)
				lj->waited += now - lj->stopped;
			lj->due = SIM_TIME_MAX;
			l->nzero -= zero;
		} else if (j->state == JOB_PENDING) {
			lj->stopped = now;
			lj->due = promote_at(sim, l, j, now);
			l->nzero += zero;
		}
	}
	if (!reorder(l)) {
		las_break(sim, l);
		return;
	}

	/* Wake up when a running job crosses a threshold, or a waiting one
	 * is due for promotion. */
	sim_time_t next = SIM_TIME_MAX;
	for (size_t q = 0; q < l->nt; q++) {
		for (size_t i = 0; i < l->run[q].n; i++) {
			const struct job *j = l->run[q].job[i];
			double got = served(sim, l, j);
			if (!(width(j) > 0))
				continue;
			double dt = (l->t[q] - got) / width(j) * 1e6;
			sim_time_t t = now + (sim_time_t)ceil(dt > 1 ? dt : 1);
			if (t < next)
				next = t;
		}
	}
	for (size_t q = 1; l->knob > 0 && q <= l->nt; q++) {
		for (size_t i = 0; i < l->wait[q].n; i++) {
			sim_time_t t = l->jobs[l->wait[q].job[i]->idx].due;
			if (t <= now)
				t = now + 1;
			if (t < next)
				next = t;
		}
	}
	if (next != SIM_TIME_MAX)
		sim_wakeup_at(sim, next);
}

static const struct policy_param las_params[] = {
	{ "thresholds_s", PARAM_STRING, "3600",
	  "queue thresholds, resource-seconds, comma-separated" },
	{ "promote_knob", PARAM_DOUBLE, "0",
	  "promote a waiting job once it has waited this many times as long "
	  "as it ran since its last promotion; 0 = off" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(las,
	.summary = "Tiresias discretised 2D-LAS: queues by attained "
		   "service, preemptive",
	.params = las_params,
	.init = las_init,
	.fini = las_fini,
	.job_submitted = las_submitted,
	.job_finished = las_finished,
	.schedule = las_schedule);
