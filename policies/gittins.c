/*
 * gittins: the Gittins index policy of Tiresias, preemptive.
 *
 * What it does: a job's service S (resource-time: GPU-seconds, or
 * CPU-seconds for a job without GPUs) is unknown, but its distribution is
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
	size_t ring_n, ring_at, window;
	size_t points;     /* quantiles the distribution is reduced to */
	double *sorted;    /* the samples in use, sorted */
	size_t nsorted;
	double *suffix;    /* suffix[i] = sum of sorted[i..] */
	bool stale;        /* the samples changed since sorted was made */
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
		free(g->sorted);
		free(g->suffix);
	}
	free(g);
}

static void gittins_finished(struct sim *sim, void *state,
			     const struct job *j)
{
	struct gittins *g = state;
	if (g->given)
		return;
	if (!g->ring) {
		g->ring = malloc(g->window * sizeof(*g->ring));
		if (!g->ring)
			return;
	}
	g->ring[g->ring_at] = j->attained;
	g->stale = true;
	g->ring_at = (g->ring_at + 1) % g->window;
	if (g->ring_n < g->window)
		g->ring_n++;
}

/* Sorts the samples in use and their suffix sums; false when out of
 * memory. */
static bool prepare(struct gittins *g)
{
	if (!g->stale)
		return true;
	const double *src = g->given ? g->given : g->ring;
	size_t n = g->given ? g->ngiven : g->ring_n;
	double *s = realloc(g->sorted, (n ? n : 1) * sizeof(*s));
	if (s)
		g->sorted = s;
	double *x = s ? realloc(g->suffix, (n + 1) * sizeof(*x)) : NULL;
	if (x)
		g->suffix = x;
	if (!s || !x)
		return false;
	if (n)
		memcpy(s, src, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	if (n > g->points) {
		/* The quantiles at the middle of points equal slices. */
		for (size_t i = 0; i < g->points; i++)
			s[i] = s[(size_t)(((double)i + 0.5) * (double)n /
					  (double)g->points)];
		n = g->points;
	}
	x[n] = 0;
	for (size_t i = n; i-- > 0;)
		x[i] = x[i + 1] + s[i];
	g->nsorted = n;
	g->stale = false;
	return true;
}

/*
 * G(a) on the sorted samples.  The samples above a are s[k..n); for d =
 * s[m] - a (m >= k): P(S - a <= d | S > a) = (m - k + 1) / (n - k) and
 * E[min(S - a, d) | S > a] = (sum(s[k..m]) - (m - k + 1) a + (n - m - 1)
 * d) / (n - k).  A job past every sample gets the index of a job that
 * will finish at once (it has outlived what we know: 1 / its service).
 */
static double index_of(const struct gittins *g, double a)
{
	size_t n = g->nsorted, k = 0;
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
	if (k == n)
		return 1.0 / (a > 0 ? a : 1.0);
	double best = 0;
	for (size_t m = k; m < n; m++) {
		if (m + 1 < n && s[m + 1] == s[m])
			continue; /* the last of equal samples */
		double d = s[m] - a;
		double done = (double)(m - k + 1);
		double spent = (g->suffix[k] - g->suffix[m + 1]) - done * a +
			       (double)(n - m - 1) * d;
		double v = done / spent;
		if (v > best)
			best = v;
	}
	return best;
}

/* A job and its key; qsort has no context argument. */
struct entry {
	double index;
	const struct job *job;
};

static int by_index(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	if (a->index != b->index)
		return a->index > b->index ? -1 : 1;
	if (a->job->submit != b->job->submit)
		return a->job->submit < b->job->submit ? -1 : 1;
	return (a->job->id > b->job->id) - (a->job->id < b->job->id);
}

static double width(const struct job *j)
{
	return j->gpus ? j->gpus : j->cpus;
}

static void gittins_schedule(struct sim *sim, void *state)
{
	struct gittins *g = state;
	size_t nrun = sim_running_len(sim), nq = sim_queue_len(sim);
	size_t n = nrun + nq;
	if (n == 0)
		return;
	struct entry *e = malloc(n * sizeof(*e));
	const struct job **ranked = malloc(n * sizeof(*ranked));
	if (!e || !ranked || !prepare(g)) {
		free(e);
		free(ranked);
		sim_start_head(sim); /* out of memory: degrade to fcfs */
		return;
	}
	/*
	 * Jobs with service are sorted; the jobs that never ran all have the
	 * index G(0) and wait in submit order already (the queue's order),
	 * so they are merged in rather than sorted: a long queue of new jobs
	 * costs one pass.
	 */
	double g0 = index_of(g, 0);
	size_t m = 0, nf = 0;
	const struct job **fresh = malloc((nq ? nq : 1) * sizeof(*fresh));
	if (!fresh) {
		free(e);
		free(ranked);
		sim_start_head(sim);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct job *j = i < nrun ? sim_running_at(sim, i)
					       : sim_queue_at(sim, i - nrun);
		double a = sim_job_attained(sim, j);
		if (i >= nrun && a == 0)
			fresh[nf++] = j;
		else
			e[m++] = (struct entry){ index_of(g, a), j };
	}
	qsort(e, m, sizeof(*e), by_index);
	size_t k = 0, i = 0, f = 0;
	while (i < m || f < nf) {
		struct entry fe = { g0, f < nf ? fresh[f] : NULL };
		if (f < nf && (i == m || by_index(&fe, &e[i]) < 0))
			ranked[k++] = fresh[f++];
		else
			ranked[k++] = e[i++].job;
	}
	free(fresh);
	sim_apply_ranking(sim, ranked, n);
	free(e);
	free(ranked);

	/* Wake up when a running job's service passes the next sample. */
	sim_time_t now = sim_now(sim), next = SIM_TIME_MAX;
	for (size_t r = 0; r < sim_running_len(sim); r++) {
		const struct job *j = sim_running_at(sim, r);
		double a = sim_job_attained(sim, j);
		const double *s = g->sorted;
		size_t lo = 0, hi = g->nsorted;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s[mid] <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == g->nsorted || !(width(j) > 0))
			continue;
		double dt = (s[lo] - a) / width(j) * 1e6;
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
	.job_finished = gittins_finished,
	.schedule = gittins_schedule);
