/*
 * las: least attained service, discretised in queues, preemptive (the
 * Tiresias 2D-LAS scheduler).
 *
 * What it does: a job's attained service is the resource-time it has
 * received (GPU-seconds; CPU-seconds for a job without GPUs: the "2D" of
 * Tiresias, time x width).  Thresholds T1 < T2 < ... split jobs into
 * queues: queue 0 holds jobs with service below T1, queue k those between
 * T_k and T_k+1.  Lower queues go first, FIFO within a queue (by submit
 * time, then id); the ranking goes to the engine's preemptive allocation
 * (sim_apply_ranking), so a new job preempts jobs that have already had
 * much service.  A running job is demoted the moment its service crosses
 * a threshold (the policy asks to be woken then).  Starvation: a
 * preempted job whose wait since it was preempted reaches promote_knob
 * times the length of the run it was preempted from goes back to queue 0
 * - its service is counted from zero again for queueing, as Tiresias
 * resets it.  (A job that never ran has no service: it is in queue 0.)
 *
 * Source: Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep
 * Learning", NSDI 2019, section 4.1 (discretised 2D-LAS, starvation
 * promotion with PROMOTE_KNOB).
 *
 * Parameters:
 *   thresholds_s   queue thresholds in resource-seconds, comma-separated
 *                  and increasing (default "3600": two queues)
 *   promote_knob   promote a waiting job after promote_knob x its last
 *                  run; 0 turns promotion off (default 0)
 *   (and "placement", as every policy)
 *
 * Cost: the policy keeps the waiting jobs of each queue in submit order
 * as they come and go (a waiting job's service does not change), so a
 * scheduling point sorts only the running jobs, merges, and lists the
 * waiting jobs only down to where the cluster's units run out - those
 * further down could not start.  On the whole Philly summary that is a
 * few dozen waiting jobs per point instead of the ~1,000 that wait.
 *
 * Example (one GPU, threshold 100 GPU-s): A (0 s, 300 s) runs in queue 0
 * and is demoted to queue 1 at 100.  B (50 s, 500 s), waiting in queue 0,
 * then preempts it and runs 100..200, when it too is demoted.  Both in
 * queue 1: A (earlier) resumes at 200 and ends at 400; B ends at 800.
 * SRTF would have let A finish at 300.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

#define LAS_MAXQ 16

/* The waiting jobs of one queue, in index order - (submit, id) order. */
struct las_wait {
	const struct job **job;
	size_t n, cap;
};

/* A job and its rank key (entry_key). */
struct entry {
	uint64_t key;
	const struct job *job;
};

struct las {
	double t[LAS_MAXQ]; /* thresholds, resource-seconds */
	size_t nt;
	double knob;        /* promotion knob; 0 = off */
	struct las_job *jobs; /* per job index, grown on demand */
	size_t cap;
	struct las_wait wait[LAS_MAXQ]; /* the waiting jobs by queue */
	size_t nzero;       /* waiting jobs that ask for no units */
	bool broken;        /* out of memory once: fcfs from then on */
	struct entry *run;  /* scratch: the running jobs, ranked */
	const struct job **ranked; /* scratch: the list for the engine */
	uint8_t *was;       /* scratch: states before the ranking */
	size_t scap;        /* capacity of the scratch arrays */
};

/* What the policy remembers of a job. */
struct las_job {
	double base;       /* service not counted for the queue (what it
	                      had when it was last promoted) */
	double at_start;   /* its service when its current run started */
	double ran;        /* length of its last run, seconds */
	sim_time_t stopped;/* when it was last preempted */
	uint8_t q;         /* the queue it waits in */
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
	for (size_t q = 0; q < LAS_MAXQ; q++)
		free(l->wait[q].job);
	free(l->jobs);
	free(l->run);
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

/* Resource width of a job: GPUs, or CPUs for a job without GPUs. */
static double width(const struct job *j)
{
	return j->gpus ? j->gpus : j->cpus;
}

/* A job's rank key: its queue in the high half, its index in the low -
 * the workload is in (submit, id) order, so the index breaks ties as
 * FIFO within a queue asks, and one integer compare ranks. */
static inline uint64_t entry_key(size_t q, const struct job *j)
{
	return (uint64_t)q << 32 | j->idx;
}

static int by_key(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	return (a->key > b->key) - (a->key < b->key);
}

static size_t queue_of(const struct las *l, double service)
{
	size_t q = 0;
	while (q < l->nt && service >= l->t[q])
		q++;
	return q;
}

/* Position of job j in w (or where it would go), by index. */
static size_t wait_find(const struct las_wait *w, const struct job *j)
{
	size_t lo = 0, hi = w->n;
	if (hi && w->job[hi - 1]->idx < j->idx)
		return hi; /* the usual case: a new job goes last */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->job[mid]->idx < j->idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool wait_insert(struct las_wait *w, const struct job *j)
{
	if (!clustersim_grow(&w->job, &w->cap, w->n + 1, sizeof(*w->job)))
		return false;
	size_t i = wait_find(w, j);
	memmove(w->job + i + 1, w->job + i, (w->n - i) * sizeof(*w->job));
	w->job[i] = j;
	w->n++;
	return true;
}

static void wait_remove(struct las_wait *w, const struct job *j)
{
	size_t i = wait_find(w, j);
	if (i < w->n && w->job[i] == j) {
		memmove(w->job + i, w->job + i + 1,
			(w->n - i - 1) * sizeof(*w->job));
		w->n--;
	}
}

/* When a preempted, waiting job is promoted: its stop + knob x its run. */
static sim_time_t promote_at(const struct las *l, const struct las_job *lj)
{
	return lj->stopped + (sim_time_t)ceil(l->knob * lj->ran * 1e6);
}

/* A job the engine just queued: it waits in queue 0. */
static void las_submitted(struct sim *sim, void *state, const struct job *j)
{
	struct las *l = state;
	if (l->broken)
		return;
	if (!room(l, j->idx) || !wait_insert(&l->wait[0], j)) {
		l->broken = true;
		return;
	}
	l->jobs[j->idx].q = 0;
	l->nzero += sim_demand(sim, j) == 0;
}

/* Grows the scratch arrays to n; false when out of memory. */
static bool scratch(struct las *l, size_t n)
{
	if (n <= l->scap)
		return true;
	size_t cap = 2 * n;
	struct entry *r = realloc(l->run, cap * sizeof(*r));
	if (r)
		l->run = r;
	const struct job **k = r ? realloc(l->ranked, cap * sizeof(*k)) : NULL;
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

/* Starving waiting jobs go back to queue 0, their service counted from
 * zero again. */
static bool promote(struct sim *sim, struct las *l, sim_time_t now)
{
	for (size_t q = 0; q <= l->nt; q++) {
		struct las_wait *w = &l->wait[q];
		size_t keep = 0;
		for (size_t i = 0; i < w->n; i++) {
			const struct job *j = w->job[i];
			struct las_job *lj = &l->jobs[j->idx];
			if (!j->preemptions || now < promote_at(l, lj)) {
				w->job[keep++] = j;
				continue;
			}
			lj->base = j->attained;
			if (q == 0) {
				w->job[keep++] = j;
				continue;
			}
			lj->q = 0;
			if (!wait_insert(&l->wait[0], j))
				return false;
		}
		w->n = keep;
	}
	return true;
}

/*
 * Ranks every running job and the waiting jobs that may matter by
 * (queue, submit, id) into l->ranked; returns how many.  Running jobs are
 * few and sorted; the waiting ones are kept by queue in order, so they
 * are merged in.  Where the engine counts one pool of units, the list
 * stops taking waiting jobs once the units run out on the way down: none
 * of them could start (every one asks for some), and running jobs further
 * down are still listed, to be preempted.
 */
static size_t rank(struct sim *sim, struct las *l, size_t nrun)
{
	uint64_t units = sim_free_units(sim);
	for (size_t i = 0; i < nrun; i++) {
		const struct job *j = sim_running_at(sim, i);
		double got = sim_job_attained(sim, j) - l->jobs[j->idx].base;
		l->run[i] = (struct entry){ entry_key(queue_of(l, got), j), j };
		units += sim_demand(sim, j);
	}
	qsort(l->run, nrun, sizeof(*l->run), by_key);
	bool cut = sim_vc_count(sim) == 0 && l->nzero == 0;
	size_t k = 0, r = 0, q = 0, pos = 0;
	for (;;) {
		while (q <= l->nt && pos >= l->wait[q].n) {
			q++;
			pos = 0;
		}
		bool waiting = q <= l->nt && !(cut && units == 0);
		if (!waiting && r == nrun)
			break;
		const struct job *j;
		if (waiting && (r == nrun ||
				entry_key(q, l->wait[q].job[pos]) < l->run[r].key))
			j = l->wait[q].job[pos++];
		else
			j = l->run[r++].job;
		uint64_t d = sim_demand(sim, j);
		if (d <= units)
			units -= d;
		l->was[k] = (uint8_t)j->state;
		l->ranked[k++] = j;
	}
	return k;
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
	 * this again. */
	if (nq == 0)
		return;
	if (!scratch(l, nrun + nq) || (l->knob > 0 && !promote(sim, l, now))) {
		l->broken = true;
		sim_start_head(sim);
		return;
	}
	size_t n = rank(sim, l, nrun);
	sim_apply_ranking(sim, l->ranked, n);
	/* Remember runs that started and runs that were cut short. */
	for (size_t i = 0; i < n; i++) {
		const struct job *j = l->ranked[i];
		if (l->was[i] == j->state)
			continue;
		struct las_job *lj = &l->jobs[j->idx];
		double got = sim_job_attained(sim, j);
		bool zero = sim_demand(sim, j) == 0;
		if (j->state == JOB_RUNNING) {
			lj->at_start = got;
			wait_remove(&l->wait[lj->q], j);
			l->nzero -= zero;
		} else if (j->state == JOB_PENDING) {
			lj->stopped = now;
			lj->ran = (got - lj->at_start) / width(j);
			lj->q = (uint8_t)queue_of(l, got - lj->base);
			if (!wait_insert(&l->wait[lj->q], j)) {
				l->broken = true;
				return;
			}
			l->nzero += zero;
		}
	}

	/* Wake up when a running job crosses a threshold, or a waiting one
	 * is due for promotion. */
	sim_time_t next = SIM_TIME_MAX;
	for (size_t i = 0; i < sim_running_len(sim); i++) {
		const struct job *j = sim_running_at(sim, i);
		double got = sim_job_attained(sim, j) - l->jobs[j->idx].base;
		size_t q = queue_of(l, got);
		if (q >= l->nt || !(width(j) > 0))
			continue;
		double dt = (l->t[q] - got) / width(j) * 1e6;
		sim_time_t t = now + (sim_time_t)ceil(dt > 1 ? dt : 1);
		if (t < next)
			next = t;
	}
	for (size_t i = 0; l->knob > 0 && i < sim_queue_len(sim); i++) {
		const struct job *j = sim_queue_at(sim, i);
		if (!j->preemptions)
			continue;
		sim_time_t t = promote_at(l, &l->jobs[j->idx]);
		if (t > now && t < next)
			next = t;
	}
	if (next != SIM_TIME_MAX)
		sim_wakeup_at(sim, next);
}

static const struct policy_param las_params[] = {
	{ "thresholds_s", PARAM_STRING, "3600",
	  "queue thresholds, resource-seconds, comma-separated" },
	{ "promote_knob", PARAM_DOUBLE, "0",
	  "promote a waiting job after this many times its last run; 0 = off" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(las,
	.summary = "Tiresias discretised 2D-LAS: queues by attained "
		   "service, preemptive",
	.params = las_params,
	.init = las_init,
	.fini = las_fini,
	.job_submitted = las_submitted,
	.schedule = las_schedule);
