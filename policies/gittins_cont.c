/*
 * gittins_cont: a continuous Gittins index over a learned or given
 * service distribution, preemptive (the discretised form of Tiresias is
 * `gittins`, in las.c).
 *
 * What it does: a job's service S (resource-time: GPU-seconds, or
 * CPU-seconds for a job without GPUs; time spent restoring checkpoints
 * is not service, sim_job_service) is unknown, but its distribution is
 * known - given as samples, or learned from the jobs that have finished
 * so far.  A job that has received a of service gets the Gittins index
 *
 *   G(a) = max over d > 0 of  P(S - a <= d | S > a) / E[min(S - a, d) | S > a]
 *
 * (the chance to finish within d more, per unit of service spent trying),
 * computed on the empirical distribution with d running over the sample
 * values above a.  Higher index first (ties: submit time, then id); the
 * ranking goes to the engine's preemptive allocation (sim_rank_apply).
 * A job near the end of a likely size keeps running; a job that has
 * outlived the likely sizes falls behind new ones.  With no samples yet
 * every index is 1 and this is FIFO.  Jobs that have outlived every
 * sample come last, in submit order.  A running job's index only rises
 * between sample values and drops when its service passes one, so the
 * policy asks to be woken at those crossings and is exact in between.
 *
 * Cost per schedule call: O(R points) for the R running jobs (each
 * one's service moved, so its index is recomputed; a waiting job's is
 * cached by service and distribution version), plus the waiting jobs
 * walked until the units run out (sim_rank_full; a waiting job the
 * engine could not start is left out of the list).  The running jobs and
 * the preempted ones are lists linked through the engine's per-job
 * slots, kept as the engine reports starts and preemptions
 * (gittins_started, gittins_preempted), so the policy allocates nothing
 * per job.  An index is a max over the
 * runs of equal samples; a ratio that cannot beat the best so far (the
 * job's last winner is tried first) is bounded, not divided.  On the
 * Philly summary most of the time is the engine's (every preemption and
 * restart recomputes the fabric's rates), not the policy's.
 *
 * Source: Gittins, "Bandit processes and dynamic allocation indices",
 * JRSS B 1979; as a GPU-cluster scheduler, Gu et al., "Tiresias", NSDI
 * 2019, section 4.2.
 *
 * Parameters:
 *   distribution_s  service samples, resource-seconds, comma-separated;
 *                   "" (default) = learn from finished jobs
 *   window          finished jobs the learned distribution keeps, the
 *                   latest (default 1000)
 *   points          the distribution is discretised to this many
 *                   equally likely sizes (its quantiles), which bounds
 *                   the work per job and the wake-ups (default 32)
 *   min_run_s       a job that (re)starts is not preempted again before
 *                   it has run this long (the engine keeps it, policy.h);
 *                   the cure for a preemption livelock (default 0: off)
 *   (and "placement", as every policy)
 *
 * Example (one GPU, distribution {100, 1000} GPU-s): A (0 s, 1000 s) has
 * 950 s of service when B (950 s, 100 s) arrives.  A: S = 1000 for sure,
 * G = 1 / 50.  B: d = 100 gives 0.5 / 100, d = 1000 gives 1 / 550: G =
 * 0.005 < 0.02, so A finishes at 1000 and B runs 1000..1100.  (las with a
 * 100 GPU-s threshold would let B preempt A at 950.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

/* Jobs in order: their slots, linked. */
struct gittins_list {
	struct gittins_job *head, *tail;
};

/* The policy's state (allocated by the engine, as are its arrays). */
struct gittins {
	double *given;     /* the given samples, sorted; NULL = learn */
	size_t ngiven;
	struct sim_window *learned; /* the learned samples, sorted */
	size_t window;
	size_t points;     /* quantiles the distribution is reduced to */
	double *sorted;    /* the samples in use, sorted (room: points) */
	size_t nsorted;
	double *suffix;    /* suffix[i] = sum of sorted[i..] */
	uint32_t *last;    /* position of the last sample of each run of
			      equal samples, in order */
	uint32_t *run;     /* run[i] = the run sorted[i] is in */
	size_t nruns;
	bool stale;        /* the samples changed since sorted was made */
	uint32_t version;  /* bumped when sorted changes: cached indices of
			      an older version are recomputed */
	struct gittins_job *jobs; /* the engine's slots, by job idx */
	struct gittins_list running; /* running jobs, in last ranking's
					order (started ones at the end) */
	struct gittins_list pre; /* waiting jobs that have had service, in
				    last ranking's order */
	uint64_t calls;    /* schedule calls so far, to stamp the cache */
};

/* What the policy remembers of a job: its slot. */
struct gittins_job {
	struct gittins_job *prev, *next; /* in running or pre */
	const struct job *job;
	uint32_t idx;      /* job->idx, the tie-break, kept at hand */
	double a;          /* service its cached index is for */
	double index;      /* G(a) */
	uint32_t next_sample; /* position of the first sample above a */
	uint32_t hint;     /* the run of samples that gave index */
	uint32_t version;  /* distribution version of index; 0 = none */
	uint64_t call;     /* schedule call that last asked: a is current */
	bool pre;          /* in the pre list */
};

static void list_push(struct gittins_list *ls, struct gittins_job *s)
{
	CLUSTERSIM_LIST_PUSH(ls, s);
}

static void list_remove(struct gittins_list *ls, struct gittins_job *s)
{
	CLUSTERSIM_LIST_REMOVE(ls, s);
}

/* Ranking order: higher index first, then job index - the workload is
 * in (submit, id) order. */
static bool ahead(double ia, uint32_t a, double ib, uint32_t b)
{
	return ia > ib || (ia == ib && a < b);
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

/* Reads distribution_s into g->given, sorted; -1 on a bad list. */
static int read_given(struct sim *sim, struct gittins *g,
		      struct sim_error *err)
{
	const char *s = sim_param_str(sim, "distribution_s");
	size_t n = *s != '\0';
	for (const char *p = s; *p; p++)
		n += *p == ',';
	g->given = sim_alloc(sim, n, sizeof(*g->given));
	for (const char *p = s; *p;) {
		char *end;
		double v = strtod(p, &end);
		if (end == p || !(v > 0) || !isfinite(v) ||
		    (*end && *end != ',')) {
			snprintf(err->msg, sizeof(err->msg),
				 "distribution_s must be positive numbers "
				 "separated by commas, got '%s'", s);
			return -1;
		}
		g->given[g->ngiven++] = v;
		p = *end ? end + 1 : end;
	}
	if (g->ngiven)
		qsort(g->given, g->ngiven, sizeof(*g->given), cmp_double);
	return 0;
}

static int gittins_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct gittins *g = *state;
	g->jobs = sim_job_states(sim);
	int64_t window = sim_param_int(sim, "window");
	if (window < 1 || window > 10000000) {
		snprintf(err->msg, sizeof(err->msg),
			 "window must be 1 .. 10000000, got '%lld'",
			 (long long)window);
		return -1;
	}
	g->window = (size_t)window;
	int64_t points = sim_param_int(sim, "points");
	if (points < 1 || points > 100000) {
		snprintf(err->msg, sizeof(err->msg),
			 "points must be 1 .. 100000, got '%lld'",
			 (long long)points);
		return -1;
	}
	g->points = (size_t)points;
	g->stale = true;
	if (read_given(sim, g, err) != 0)
		return -1;
	if (!g->ngiven) {
		g->given = NULL;
		g->learned = sim_window_new(sim, g->window);
	}
	g->sorted = sim_alloc(sim, g->points, sizeof(*g->sorted));
	g->suffix = sim_alloc(sim, g->points + 1, sizeof(*g->suffix));
	g->last = sim_alloc(sim, g->points, sizeof(*g->last));
	g->run = sim_alloc(sim, g->points, sizeof(*g->run));
	return 0;
}

/* A finished job leaves the running jobs, and its service joins the
 * learned samples, the oldest leaving once there are `window` (the
 * engine's window keeps them sorted as they come and go). */
static void gittins_finished(struct sim *sim, void *state,
			     const struct job *j)
{
	struct gittins *g = state;
	list_remove(&g->running, &g->jobs[j->idx]);
	if (g->given)
		return;
	sim_window_add(g->learned, sim_job_service(sim, j));
	g->stale = true;
}

/* Reduces the samples in use to the sorted points and their suffix sums,
 * and bumps the version when they changed. */
static void prepare(struct gittins *g)
{
	if (!g->stale)
		return;
	size_t n = g->ngiven;
	const double *src = g->given ? g->given
				     : sim_window_sorted(g->learned, &n);
	size_t m = n > g->points ? g->points : n;
	double *s = g->sorted, *x = g->suffix;
	uint32_t *l = g->last, *r = g->run;
	bool same = m == g->nsorted && g->version;
	for (size_t i = 0; i < m; i++) {
		/* The quantiles at the middle of points equal slices. */
		double v = n > g->points
			? src[(size_t)(((double)i + 0.5) * (double)n /
				       (double)g->points)]
			: src[i];
		same = same && s[i] == v;
		s[i] = v;
	}
	x[m] = 0;
	for (size_t i = m; i-- > 0;)
		x[i] = x[i + 1] + s[i];
	g->nruns = 0;
	for (size_t i = 0; i < m; i++) {
		r[i] = (uint32_t)g->nruns;
		if (i + 1 == m || s[i + 1] != s[i])
			l[g->nruns++] = (uint32_t)i;
	}
	g->nsorted = m;
	g->stale = false;
	if (!same)
		g->version++;
}

/*
 * G(a) on the sorted samples.  The samples above a are s[k..n); for d =
 * s[m] - a (m >= k): P(S - a <= d | S > a) = (m - k + 1) / (n - k) and
 * E[min(S - a, d) | S > a] = (sum(s[k..m]) - (m - k + 1) a + (n - m - 1)
 * d) / (n - k).  A job past every sample has outlived what we know: it
 * gets 1 / the largest sample, below any job still inside the
 * distribution, and the same for every such job, so that they run in
 * submit order among themselves (the last queue of Tiresias' discretised
 * scheme is FIFO too).  With 1 / its own service, two such jobs took
 * turns at every scheduling point, each preemption paying a restore (on
 * Philly some long jobs were preempted 12,000 times).  Sets *next to k.
 *
 * d runs over the last of each run of equal samples only (the same
 * chance, a longer try).  A ratio that cannot beat the best so far is
 * not divided out: done <= best * spent * PRUNE means done / spent <
 * best exactly (the two roundings lose less than PRUNE takes off), so
 * its quotient would not be above best either, and the result is the
 * same bits as dividing every one.
 */
#define PRUNE (1.0 - 0x1p-50)
static double ratio(const struct gittins *g, double a, size_t k, size_t m)
{
	size_t n = g->nsorted;
	double d = g->sorted[m] - a;
	double done = (double)(m - k + 1);
	double spent = (g->suffix[k] - g->suffix[m + 1]) - done * a +
		       (double)(n - m - 1) * d;
	return done / spent;
}

static double index_of(const struct gittins *g, double a, size_t *next,
		       uint32_t *hint)
{
	size_t n = g->nsorted, k = 0;
	*next = 0;
	if (n == 0)
		return 1.0;
	const double *s = g->sorted;
	size_t lo = 0, hi = n; /* first sample > a */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	k = lo;
	*next = k;
	if (k == n)
		return 1.0 / s[n - 1];
	double best = 0, sk = g->suffix[k];
	size_t h = *hint, first = g->run[k];
	if (h >= first && h < g->nruns) {
		double v = ratio(g, a, k, g->last[h]);
		if (v > best)
			best = v;
	} else {
		h = SIZE_MAX;
	}
	for (size_t t = g->nruns; t-- > first;) {
		if (t == h)
			continue;
		size_t m = g->last[t];
		double d = s[m] - a;
		double done = (double)(m - k + 1);
		double spent = (sk - g->suffix[m + 1]) - done * a +
			       (double)(n - m - 1) * d;
		if (spent > 0 && done <= best * spent * PRUNE)
			continue;
		double v = done / spent;
		if (v > best) {
			best = v;
			*hint = (uint32_t)t;
		}
	}
	return best;
}

static double width(const struct job *j)
{
	return j->gpus ? j->gpus : j->cpus;
}

/* G(a) of job j, from its cache when a and the distribution are those
 * it was computed for (a waiting job's service does not change); stamps
 * the cache as current for this schedule call. */
static double index_for(struct gittins *g, const struct job *j, double a)
{
	struct gittins_job *gj = &g->jobs[j->idx];
	if (gj->version != g->version || gj->a != a) {
		size_t next;
		gj->a = a;
		gj->index = index_of(g, a, &next, &gj->hint);
		gj->next_sample = (uint32_t)next;
		gj->version = g->version;
	}
	gj->call = g->calls;
	return gj->index;
}

/* A job's service, for its index.  While it restores a checkpoint its
 * service does not grow, and the one it had when it restarted (cached
 * while it waited) is kept: the engine's held time minus restore time
 * moves in the last bits meanwhile, and a job that stopped right at a
 * sample would cross it back and forth. */
static double service_of(struct sim *sim, const struct gittins_job *gj)
{
	if (gj->version && sim_job_restored_at(sim, gj->job) > sim_now(sim))
		return gj->a;
	return sim_job_service(sim, gj->job);
}

/* Brings the indices of a list's jobs up to date and sorts it by them:
 * one walk, an insertion sort, for lists that are nearly in order (a
 * total order: the same result as any sort). */
static void list_sort(struct sim *sim, struct gittins *g,
		      struct gittins_list *ls)
{
	struct gittins_job *s = ls->head;
	while (s) {
		struct gittins_job *next = s->next, *o = s->prev;
		index_for(g, s->job, service_of(sim, s));
		if (o && ahead(s->index, s->idx, o->index, o->idx)) {
			list_remove(ls, s);
			while (o->prev &&
			       ahead(s->index, s->idx, o->prev->index,
				     o->prev->idx))
				o = o->prev;
			s->prev = o->prev;
			s->next = o;
			if (o->prev)
				o->prev->next = s;
			else
				ls->head = s;
			o->prev = s;
		}
		s = next;
	}
}

static void gittins_submitted(struct sim *sim, void *state,
			      const struct job *j)
{
	struct gittins *g = state;
	g->jobs[j->idx].job = j;
	g->jobs[j->idx].idx = j->idx;
}

/* A started job joins the running jobs (and leaves the pre list). */
static void gittins_started(struct sim *sim, void *state,
			    const struct job *j)
{
	struct gittins *g = state;
	struct gittins_job *gj = &g->jobs[j->idx];
	if (gj->pre) {
		list_remove(&g->pre, gj);
		gj->pre = false;
	}
	list_push(&g->running, gj);
}

/* A preempted job leaves the running jobs; with service, it joins the
 * pre list (a job that never ran waits in the queue's order). */
static void gittins_preempted(struct sim *sim, void *state,
			      const struct job *j)
{
	struct gittins *g = state;
	struct gittins_job *gj = &g->jobs[j->idx];
	list_remove(&g->running, gj);
	if (j->attained > 0) {
		list_push(&g->pre, gj);
		gj->pre = true;
	}
}

/*
 * Ranks the running jobs and the waiting ones, highest index first.
 * Jobs with service (running, or waiting after a preemption: the pre
 * list) are sorted by index, each list from last time's order; the jobs
 * that never ran all have the index G(0) and wait in submit order already
 * (the queue's order), so they are merged in rather than sorted.  Waiting
 * jobs are listed only while one could still start (sim_rank_full); every
 * running job is listed, to be kept or preempted.
 */
static void rank(struct sim *sim, struct gittins *g)
{
	list_sort(sim, g, &g->running);
	list_sort(sim, g, &g->pre);
	size_t next0, f = 0, nq = sim_queue_len(sim);
	uint32_t hint0 = 0;
	double g0 = index_of(g, 0, &next0, &hint0);
	struct gittins_job *r = g->running.head, *p = g->pre.head;
	sim_rank_begin(sim);
	for (;;) {
		bool waiting = !sim_rank_full(sim);
		const struct job *fj = NULL, *best = NULL;
		while (waiting && f < nq) {
			fj = sim_queue_at(sim, f);
			if (fj->attained == 0)
				break;
			fj = NULL; /* one of the pre list */
			f++;
		}
		double bi = 0;
		uint32_t bx = 0;
		if (r) {
			best = r->job;
			bi = r->index;
			bx = r->idx;
		}
		if (waiting && p && (!best || ahead(p->index, p->idx, bi, bx))) {
			best = p->job;
			bi = p->index;
			bx = p->idx;
		}
		if (fj && (!best || ahead(g0, fj->idx, bi, bx)))
			best = fj;
		if (!best)
			break;
		sim_rank_add(sim, best);
		if (best == fj)
			f++;
		else if (p && best == p->job)
			p = p->next;
		else
			r = r->next;
	}
}

static void gittins_schedule(struct sim *sim, void *state)
{
	struct gittins *g = state;
	if (sim_running_len(sim) + sim_queue_len(sim) == 0)
		return;
	prepare(g);
	g->calls++;
	rank(sim, g);
	sim_rank_apply(sim); /* gittins_started, gittins_preempted */

	/* Wake up when a running job's service passes the next sample,
	 * counted from the end of its restore (before it, its service does
	 * not grow: counted from now, the wake-up would come again every
	 * microsecond of a restore).  The jobs that ran before kept their
	 * service of this call (the engine's starts and preemptions change
	 * only other jobs' rates), so their cache holds it with its next
	 * sample. */
	sim_time_t next = SIM_TIME_MAX;
	const double *s = g->sorted;
	for (struct gittins_job *gj = g->running.head; gj; gj = gj->next) {
		const struct job *j = gj->job;
		if (gj->call != g->calls || gj->version != g->version)
			index_for(g, j, service_of(sim, gj));
		if (gj->next_sample == g->nsorted || !(width(j) > 0))
			continue;
		double dt = (s[gj->next_sample] - gj->a) / width(j) * 1e6;
		sim_time_t from = sim_job_restored_at(sim, j);
		if (!(dt < (double)(SIM_TIME_MAX - from) * 0.5))
			continue; /* a sample the clock never reaches */
		sim_time_t t = from + (sim_time_t)ceil(dt > 1 ? dt : 1);
		if (t < next)
			next = t;
	}
	if (next != SIM_TIME_MAX)
		sim_wakeup_at(sim, next);
}

static const struct policy_param gittins_params[] = {
	{ "distribution_s", PARAM_STRING, "",
	  "service samples, resource-seconds, comma-separated; "
	  "empty = learn from finished jobs" },
	{ "window", PARAM_INT, "1000",
	  "finished jobs the learned distribution keeps" },
	{ "points", PARAM_INT, "32",
	  "equally likely sizes the distribution is reduced to" },
	{ "min_run_s", PARAM_DOUBLE, "0",
	  "a job that (re)starts is not preempted before it has run this "
	  "long, seconds (the engine keeps it: policy.h)" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(gittins_cont,
	.summary = "Tiresias Gittins index over a learned or given service "
		   "distribution, preemptive",
	.params = gittins_params,
	.state_size = sizeof(struct gittins),
	.job_state_size = sizeof(struct gittins_job),
	.init = gittins_init,
	.job_submitted = gittins_submitted,
	.job_finished = gittins_finished,
	.job_started = gittins_started,
	.job_preempted = gittins_preempted,
	.schedule = gittins_schedule);
