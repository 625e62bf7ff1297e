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

struct las {
	double t[LAS_MAXQ]; /* thresholds, resource-seconds */
	size_t nt;
	double knob;        /* promotion knob; 0 = off */
	struct las_job *jobs; /* per job index, grown on demand */
	size_t cap;
};

/* What the policy remembers of a job. */
struct las_job {
	double base;       /* service not counted for the queue (what it
	                      had when it was last promoted) */
	double at_start;   /* its service when its current run started */
	double ran;        /* length of its last run, seconds */
	sim_time_t stopped;/* when it was last preempted */
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
	if (l)
		free(l->jobs);
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

/*
 * A job and its rank key: its queue in the high half, its index in the
 * low - the workload is in (submit, id) order, so the index breaks ties
 * as FIFO within a queue asks, and one integer compare ranks.
 */
struct entry {
	uint64_t key;
	const struct job *job;
};

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

/*
 * Ranks e[0 .. n) by (queue, submit, id) into ranked.  The running jobs
 * e[0 .. nrun) are few and sorted; the waiting ones, e[nrun .. n), are
 * already in submit order (the engine's queue), so a stable pass by
 * queue orders them, and a merge joins the two: O(n + r log r) rather
 * than a sort of the whole, often long, queue.
 */
static void rank(struct entry *e, size_t nrun, size_t n,
		 const struct job **ranked, size_t nqueues)
{
	qsort(e, nrun, sizeof(*e), by_key);
	size_t start[LAS_MAXQ + 1] = { 0 };
	for (size_t i = nrun; i < n; i++)
		start[(e[i].key >> 32) + 1]++;
	for (size_t q = 0; q < nqueues; q++)
		start[q + 1] += start[q];
	/* The waiting entries by queue, stably, through ranked's tail
	 * (scratch here) back into e[nrun ..). */
	struct entry *w = e + nrun;
	const struct job **tmp = ranked + nrun;
	size_t nw = n - nrun;
	for (size_t i = 0; i < nw; i++)
		tmp[start[w[i].key >> 32]++] = w[i].job;
	size_t q = 0;
	for (size_t i = 0; i < nw; i++) {
		while (i >= start[q])
			q++;
		w[i] = (struct entry){ entry_key(q, tmp[i]), tmp[i] };
	}
	size_t r = 0, k = 0, wi = 0;
	while (r < nrun || wi < nw) {
		if (wi == nw || (r < nrun && e[r].key < w[wi].key))
			ranked[k++] = e[r++].job;
		else
			ranked[k++] = w[wi++].job;
	}
}

/* When a preempted, waiting job is promoted: its stop + knob x its run. */
static sim_time_t promote_at(const struct las *l, const struct las_job *lj)
{
	return lj->stopped + (sim_time_t)ceil(l->knob * lj->ran * 1e6);
}

static void las_schedule(struct sim *sim, void *state)
{
	struct las *l = state;
	size_t nrun = sim_running_len(sim), nq = sim_queue_len(sim);
	size_t n = nrun + nq;
	sim_time_t now = sim_now(sim);
	/* Nobody waits: the ranking would keep every running job, and a
	 * demotion matters only against a waiting job - whose arrival calls
	 * this again. */
	if (nq == 0)
		return;
	struct entry *e = malloc(n * sizeof(*e));
	const struct job **ranked = malloc(n * sizeof(*ranked));
	uint8_t *was = malloc(n);
	bool ok = e && ranked && was;
	for (size_t i = 0; i < n && ok; i++) {
		const struct job *j = i < nrun ? sim_running_at(sim, i)
					       : sim_queue_at(sim, i - nrun);
		ok = room(l, j->idx);
		if (!ok)
			break;
		struct las_job *lj = &l->jobs[j->idx];
		/* A waiting job's service is its record's. */
		double got = j->state == JOB_PENDING ? j->attained
						     : sim_job_attained(sim, j);
		if (j->state == JOB_PENDING && j->preemptions && l->knob > 0 &&
		    now >= promote_at(l, lj))
			lj->base = got; /* starving: back to queue 0 */
		e[i] = (struct entry){ entry_key(queue_of(l, got - lj->base), j),
				       j };
	}
	if (!ok) {
		free(e);
		free(ranked);
		free(was);
		sim_start_head(sim); /* out of memory: degrade to fcfs */
		return;
	}
	rank(e, nrun, n, ranked, l->nt + 1);
	for (size_t i = 0; i < n; i++)
		was[i] = ranked[i]->state;
	sim_apply_ranking(sim, ranked, n);
	/* Remember runs that started and runs that were cut short. */
	for (size_t i = 0; i < n; i++) {
		const struct job *j = ranked[i];
		if (was[i] == j->state)
			continue;
		struct las_job *lj = &l->jobs[j->idx];
		double got = sim_job_attained(sim, j);
		if (was[i] == JOB_PENDING && j->state == JOB_RUNNING) {
			lj->at_start = got;
		} else if (was[i] == JOB_RUNNING && j->state == JOB_PENDING) {
			lj->stopped = now;
			lj->ran = (got - lj->at_start) / width(j);
		}
	}
	free(e);
	free(ranked);
	free(was);

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
	.schedule = las_schedule);
