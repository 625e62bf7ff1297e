/*
 * gittins: the Gittins index policy of Tiresias, preemptive.
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
 * ranking goes to the engine's preemptive allocation (sim_apply_ranking).
 * A job near the end of a likely size keeps running; a job that has
 * outlived the likely sizes falls behind new ones.  With no samples yet
 * every index is 1 and this is FIFO.  A running job's index only rises
 * between sample values and drops when its service passes one, so the
 * policy asks to be woken at those crossings and is exact in between.
 *
 * Cost per schedule call: O(R points) for the R running jobs (each
 * one's service moved, so its index is recomputed; a waiting job's is
 * cached by service and distribution version), plus the waiting jobs
 * walked until the units run out; a waiting job the engine could not
 * start is left out of the list it gets.  An index is a max over the
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

struct gittins {
	double *given;     /* the given samples, sorted; NULL = learn */
	size_t ngiven;
	double *ring;      /* learned samples, in finishing order */
	double *win;       /* the same, sorted */
	size_t ring_n, ring_at, window;
	size_t points;     /* quantiles the distribution is reduced to */
	double *sorted;    /* the samples in use, sorted */
	size_t nsorted;
	double *suffix;    /* suffix[i] = sum of sorted[i..] */
	uint32_t *last;    /* position of the last sample of each run of
			      equal samples, in order */
	uint32_t *run;     /* run[i] = the run sorted[i] is in */
	size_t nruns;
	bool stale;        /* the samples changed since sorted was made */
	uint32_t version;  /* bumped when sorted changes: cached indices of
			      an older version are recomputed */
	struct gittins_job *jobs; /* per job index, grown on demand */
	size_t cap;
	const struct job **pre; /* waiting jobs that have had service */
	size_t npre, precap;
	struct entry *e;   /* scratch: the pre jobs with their keys */
	struct entry *rs;  /* the running jobs, in last ranking's order */
	size_t nrs;
	const struct job **ranked; /* scratch: the list for the engine */
	uint8_t *was;      /* scratch: states before the ranking */
	size_t scap;       /* capacity of the scratch arrays */
	size_t nzero;      /* waiting jobs that ask for no units */
	uint32_t calls;    /* schedule calls so far, to stamp the cache */
	bool broken;       /* out of memory once: fcfs from then on */
};

/* What the policy remembers of a job. */
struct gittins_job {
	double a;          /* service its cached index is for */
	double index;      /* G(a) */
	uint32_t next;     /* position of the first sample above a */
	uint32_t hint;     /* the run of samples that gave index */
	uint32_t version;  /* distribution version of index; 0 = none */
	uint32_t call;     /* schedule call that last asked: a is current */
	uint64_t demand;   /* sim_demand, which does not change */
	bool pre;          /* in the pre list */
	bool inrs;         /* in the rs list */
};

/* A job and its key: higher index first, then index order - the
 * workload is in (submit, id) order. */
struct entry {
	double index;
	uint32_t idx;
	const struct job *job;
};

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

static int gittins_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct gittins *g = calloc(1, sizeof(*g));
	if (!g)
		return -1;
	*state = g;
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
	const char *s = sim_param_str(sim, "distribution_s");
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
		double *n = realloc(g->given, (g->ngiven + 1) * sizeof(*n));
		if (!n)
			return -1;
		g->given = n;
		g->given[g->ngiven++] = v;
		p = *end ? end + 1 : end;
	}
	if (g->ngiven)
		qsort(g->given, g->ngiven, sizeof(*g->given), cmp_double);
	return 0;
}

static void gittins_fini(struct sim *sim, void *state)
{
	struct gittins *g = state;
	if (g) {
		free(g->given);
		free(g->ring);
		free(g->win);
		free(g->sorted);
		free(g->suffix);
		free(g->last);
		free(g->run);
		free(g->jobs);
		free(g->pre);
		free(g->e);
		free(g->rs);
		free(g->ranked);
		free(g->was);
	}
	free(g);
}

/* Position of the first sample in s[0..n) that is not below v. */
static size_t lower(const double *s, size_t n, double v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A finished job's service joins the learned samples, the oldest leaves
 * once there are `window`; g->win keeps them sorted as they come and go. */
static void gittins_finished(struct sim *sim, void *state,
			     const struct job *j)
{
	struct gittins *g = state;
	if (g->given)
		return;
	if (!g->ring) {
		g->ring = malloc(g->window * sizeof(*g->ring));
		g->win = malloc(g->window * sizeof(*g->win));
		if (!g->ring || !g->win) {
			free(g->ring);
			free(g->win);
			g->ring = g->win = NULL;
			return;
		}
	}
	double v = sim_job_service(sim, j);
	if (g->ring_n == g->window) {
		size_t i = lower(g->win, g->ring_n, g->ring[g->ring_at]);
		memmove(g->win + i, g->win + i + 1,
			(g->ring_n - i - 1) * sizeof(*g->win));
		g->ring_n--;
	}
	size_t i = lower(g->win, g->ring_n, v);
	memmove(g->win + i + 1, g->win + i, (g->ring_n - i) * sizeof(*g->win));
	g->win[i] = v;
	g->ring_n++;
	g->ring[g->ring_at] = v;
	g->stale = true;
	g->ring_at = (g->ring_at + 1) % g->window;
}

/* Reduces the samples in use to the sorted points and their suffix sums,
 * and bumps the version when they changed; false when out of memory. */
static bool prepare(struct gittins *g)
{
	if (!g->stale)
		return true;
	const double *src = g->given ? g->given : g->win;
	size_t n = g->given ? g->ngiven : g->ring_n;
	size_t m = n > g->points ? g->points : n;
	double *s = realloc(g->sorted, (m ? m : 1) * sizeof(*s));
	if (s)
		g->sorted = s;
	double *x = s ? realloc(g->suffix, (m + 1) * sizeof(*x)) : NULL;
	if (x)
		g->suffix = x;
	uint32_t *l = x ? realloc(g->last, (m ? m : 1) * sizeof(*l)) : NULL;
	if (l)
		g->last = l;
	uint32_t *r = l ? realloc(g->run, (m ? m : 1) * sizeof(*r)) : NULL;
	if (r)
		g->run = r;
	if (!r)
		return false;
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
	return true;
}

/*
 * G(a) on the sorted samples.  The samples above a are s[k..n); for d =
 * s[m] - a (m >= k): P(S - a <= d | S > a) = (m - k + 1) / (n - k) and
 * E[min(S - a, d) | S > a] = (sum(s[k..m]) - (m - k + 1) a + (n - m - 1)
 * d) / (n - k).  A job past every sample gets the index of a job that
 * will finish at once (it has outlived what we know: 1 / its service).
 * Sets *next to k.
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
		return 1.0 / (a > 0 ? a : 1.0);
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

static int by_index(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	if (a->index != b->index)
		return a->index > b->index ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static double width(const struct job *j)
{
	return j->gpus ? j->gpus : j->cpus;
}

/* Makes room for job index idx; false when out of memory. */
static bool room(struct gittins *g, uint32_t idx)
{
	if (idx < g->cap)
		return true;
	size_t cap = g->cap ? g->cap : 64;
	while (cap <= idx)
		cap *= 2;
	struct gittins_job *p = realloc(g->jobs, cap * sizeof(*p));
	if (!p)
		return false;
	memset(p + g->cap, 0, (cap - g->cap) * sizeof(*p));
	g->jobs = p;
	g->cap = cap;
	return true;
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
		gj->next = (uint32_t)next;
		gj->version = g->version;
	}
	gj->call = g->calls;
	return gj->index;
}

static void gittins_submitted(struct sim *sim, void *state,
			      const struct job *j)
{
	struct gittins *g = state;
	if (!room(g, j->idx)) {
		g->broken = true;
		return;
	}
	g->jobs[j->idx].demand = sim_demand(sim, j);
	g->nzero += g->jobs[j->idx].demand == 0;
}

/* Grows the scratch arrays: n entries, r ranked; false when out of
 * memory. */
static bool scratch(struct gittins *g, size_t n)
{
	if (n <= g->scap)
		return true;
	size_t cap = 2 * n;
	struct entry *e = realloc(g->e, cap * sizeof(*e));
	if (e)
		g->e = e;
	struct entry *rs = e ? realloc(g->rs, cap * sizeof(*rs)) : NULL;
	if (rs)
		g->rs = rs;
	const struct job **k = rs ? realloc(g->ranked, cap * sizeof(*k)) : NULL;
	if (k)
		g->ranked = k;
	uint8_t *w = k ? realloc(g->was, cap) : NULL;
	if (w)
		g->was = w;
	if (!w)
		return false;
	g->scap = cap;
	return true;
}

/* Sorts entries by by_index: insertion sort, for lists that are nearly
 * in order (a total order: the same result as any sort). */
static void sort_entries(struct entry *e, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct entry x = e[i];
		size_t p = i;
		while (p > 0 && by_index(&x, &e[p - 1]) < 0) {
			e[p] = e[p - 1];
			p--;
		}
		e[p] = x;
	}
}

/* Puts job j in the ranking.  With one pool of units the engine keeps
 * the listed jobs greedily as units last, as counted here: a waiting job
 * it would not keep is left out (running ones stay, to be preempted). */
static void take(struct sim *sim, struct gittins *g, size_t *k,
		 uint64_t *units, const struct job *j, bool pool)
{
	uint64_t d = g->jobs[j->idx].demand;
	if (d <= *units)
		*units -= d;
	else if (pool && j->state == JOB_PENDING)
		return;
	g->was[*k] = (uint8_t)j->state;
	g->ranked[(*k)++] = j;
}

/*
 * Ranks the running jobs and the waiting ones into g->ranked; returns how
 * many.  Jobs with service (running, or waiting after a preemption: the
 * pre list) are sorted by index; the jobs that never ran all have the
 * index G(0) and wait in submit order already (the queue's order), so
 * they are merged in rather than sorted.  Where the engine counts one
 * pool of units, the list stops taking waiting jobs once the units run
 * out on the way down: none of them could start (every one asks for
 * some), and running jobs further down are still listed, to be preempted.
 */
static size_t rank(struct sim *sim, struct gittins *g)
{
	size_t nrun = sim_running_len(sim), nq = sim_queue_len(sim);
	uint64_t units = sim_free_units(sim);
	/* The running jobs, in last time's order (then the new ones), and
	 * the pre list, each sorted by insertion: they are mostly in order
	 * already. */
	size_t m = 0;
	for (size_t i = 0; i < g->nrs; i++) {
		const struct job *j = g->rs[i].job;
		if (j->state != JOB_RUNNING) {
			g->jobs[j->idx].inrs = false;
			continue;
		}
		double a = sim_job_service(sim, j);
		g->rs[m++] = (struct entry){ index_for(g, j, a), j->idx, j };
	}
	for (size_t i = 0; i < nrun; i++) {
		const struct job *j = sim_running_at(sim, i);
		units += g->jobs[j->idx].demand;
		if (g->jobs[j->idx].inrs)
			continue;
		g->jobs[j->idx].inrs = true;
		double a = sim_job_service(sim, j);
		g->rs[m++] = (struct entry){ index_for(g, j, a), j->idx, j };
	}
	g->nrs = m;
	sort_entries(g->rs, m);
	size_t np = 0;
	for (size_t i = 0; i < g->npre; i++) {
		const struct job *j = g->pre[i];
		double a = sim_job_service(sim, j);
		g->e[np++] = (struct entry){ index_for(g, j, a), j->idx, j };
	}
	sort_entries(g->e, np);
	for (size_t i = 0; i < np; i++)
		g->pre[i] = g->e[i].job; /* in order for next time */
	size_t next0;
	uint32_t hint0 = 0;
	double g0 = index_of(g, 0, &next0, &hint0);
	bool pool = sim_vc_count(sim) == 0;
	bool cut = pool && g->nzero == 0;
	size_t k = 0, r = 0, i = 0, f = 0;
	for (;;) {
		bool waiting = !(cut && units == 0);
		const struct job *fj = NULL;
		while (waiting && f < nq) {
			fj = sim_queue_at(sim, f);
			if (fj->attained == 0)
				break;
			fj = NULL; /* one of the pre list */
			f++;
		}
		const struct entry *best = r < m ? &g->rs[r] : NULL;
		if (waiting && i < np && (!best || by_index(&g->e[i], best) < 0))
			best = &g->e[i];
		struct entry fe = { g0, fj ? fj->idx : 0, fj };
		if (fj && (!best || by_index(&fe, best) < 0))
			best = &fe;
		if (!best)
			break;
		take(sim, g, &k, &units, best->job, pool);
		if (best == &fe)
			f++;
		else if (best == &g->e[i])
			i++;
		else
			r++;
	}
	return k;
}

static void gittins_schedule(struct sim *sim, void *state)
{
	struct gittins *g = state;
	size_t nrun = sim_running_len(sim), nq = sim_queue_len(sim);
	if (nrun + nq == 0)
		return;
	if (g->broken || !scratch(g, nrun + nq) || !prepare(g)) {
		g->broken = true;
		sim_start_head(sim); /* out of memory: degrade to fcfs */
		return;
	}
	if (++g->calls == 0) {
		/* Wrapped: forget the old stamps, 0 is no call. */
		for (size_t i = 0; i < g->cap; i++)
			g->jobs[i].call = 0;
		g->calls = 1;
	}
	size_t n = rank(sim, g);
	sim_apply_ranking(sim, g->ranked, n);
	/* Keep the pre list: jobs preempted with service join it, jobs
	 * that started leave it. */
	for (size_t i = 0; i < n; i++) {
		const struct job *j = g->ranked[i];
		if (g->was[i] == j->state)
			continue;
		bool zero = g->jobs[j->idx].demand == 0;
		if (j->state == JOB_RUNNING) {
			g->nzero -= zero;
		} else if (j->state == JOB_PENDING) {
			g->nzero += zero;
			if (j->attained > 0 && !g->jobs[j->idx].pre) {
				if (!clustersim_grow(&g->pre, &g->precap,
						     g->npre + 1,
						     sizeof(*g->pre))) {
					g->broken = true;
					return;
				}
				g->pre[g->npre++] = j;
				g->jobs[j->idx].pre = true;
			}
		}
	}
	size_t keep = 0;
	for (size_t i = 0; i < g->npre; i++) {
		const struct job *j = g->pre[i];
		if (j->state == JOB_PENDING)
			g->pre[keep++] = j;
		else
			g->jobs[j->idx].pre = false;
	}
	g->npre = keep;

	/* Wake up when a running job's service passes the next sample.
	 * The jobs that ran before kept their service of this call (the
	 * engine's starts and preemptions change only other jobs' rates),
	 * so their cache holds it with its next sample. */
	sim_time_t now = sim_now(sim), next = SIM_TIME_MAX;
	const double *s = g->sorted;
	for (size_t r = 0; r < sim_running_len(sim); r++) {
		const struct job *j = sim_running_at(sim, r);
		struct gittins_job *gj = &g->jobs[j->idx];
		if (gj->call != g->calls || gj->version != g->version)
			index_for(g, j, sim_job_service(sim, j));
		if (gj->next == g->nsorted || !(width(j) > 0))
			continue;
		double dt = (s[gj->next] - gj->a) / width(j) * 1e6;
		sim_time_t t = now + (sim_time_t)ceil(dt > 1 ? dt : 1);
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
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(gittins,
	.summary = "Tiresias Gittins index over a learned or given service "
		   "distribution, preemptive",
	.params = gittins_params,
	.init = gittins_init,
	.fini = gittins_fini,
	.job_submitted = gittins_submitted,
	.job_finished = gittins_finished,
	.schedule = gittins_schedule);
