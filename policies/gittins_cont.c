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
 * Cost per call: a running job's index is a lower bound of it until
 * its next crossing, so only the running jobs whose bound a waiting job
 * could pass are brought up to date and ranked (an engine heap of the
 * bounds; the others keep their units unlisted, sim_rank_begin_with),
 * and only those near the next crossing are timed (a heap of crossings).
 * A waiting job's service is read once (it does not change), and its
 * index is cached by service and distribution version and survives a
 * change that left the samples above its service alone (G reads only
 * those: the same bits), as do a running job's keys, which a job that
 * stays in play keeps until it crosses a sample;
 * waiting jobs are walked until the units run out (sim_rank_full).  An
 * index is a max over the runs of equal samples; a ratio that cannot
 * beat the best so far (the last winner is tried first) is not divided.
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
 *   incremental     rank only the running jobs a waiting job could pass
 *                   (default true; false: all, every call - the same
 *                   decisions, slower)
 *   reuse           keep a job's index and keys across a change of the
 *                   distribution when the samples above its service
 *                   are the same (default true; false: recompute them -
 *                   the same decisions, slower)
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

/* A growing array of slots. */
struct gittins_vec {
	struct gittins_job **a; /* the slots */
	size_t n, cap;          /* how many, and room for */
};

/* Which of the policy's lists holds a job. */
enum gittins_where { IN_NONE, IN_RUNNING, IN_PRE, IN_FRESH };

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
	double *prev;      /* the sorted samples of the version before */
	size_t nprev;
	size_t tail;       /* how many last samples the two versions share */
	uint32_t run_shift; /* runs now less runs then (mod 2^32) */
	bool reuse;        /* carry indices and keys over a change where
			      the samples above them are shared */
	uint32_t version;  /* bumped when sorted changes: cached indices of
			      an older version are recomputed */
	struct gittins_job *jobs; /* the engine's slots, by job idx */
	struct gittins_list running; /* running jobs */
	struct gittins_list pre; /* waiting jobs that have had service, in
				    last ranking's order */
	struct gittins_list fresh; /* waiting jobs that never had service,
				      in the queue's (submit, id) order */
	uint64_t calls;    /* schedule calls so far, to stamp the cache */
	bool incremental;  /* rank only the running jobs a waiting one
			      could pass (off: every job, every call) */
	struct gittins_vec joined; /* jobs that joined pre since it was
				      last sorted, at its tail */
	struct sim_heap *bound; /* running jobs by lower bound, ties
				   by index downwards */
	struct sim_heap *cross; /* running jobs by earliest crossing */
	struct gittins_vec inplay; /* running jobs a waiting one may pass */
	struct gittins_vec started; /* jobs started by this call */
	struct gittins_vec order; /* the jobs in play at the last call, in
				     ranking order */
	struct gittins_vec sorting, redo, tmp; /* a list being sorted: its
					    jobs still in order, the others,
					    and the merge's room */
	const struct job **in; /* inplay's jobs, for the engine */
	size_t incap;
	double slack_max;  /* the largest crossing slack, microseconds */
	double g0;         /* G(0), every fresh job's index, of ... */
	uint32_t g0_version; /* ... this version (0: none yet) */
};

/* What the policy remembers of a job: its slot. */
struct gittins_job {
	struct gittins_job *prev, *next; /* in running, pre or fresh */
	const struct job *job;
	uint32_t idx;      /* job->idx, the tie-break, kept at hand */
	double a;          /* service its cached index is for */
	double index;      /* G(a) */
	uint32_t next_sample; /* position of the first sample above a */
	uint32_t hint;     /* the run of samples that gave index */
	uint32_t version;  /* distribution version of index; 0 = none */
	uint32_t keyed;    /* version whose positions next_sample and hint
			      are in (version == keyed: index is exact) */
	double cross_key;  /* its key in the crossing heap (INFINITY: out) */
	uint64_t call;     /* schedule call that last asked: a is current */
	uint8_t where;     /* enum gittins_where */
	bool settled;      /* waiting, and a is its service (it does not
			      change while the job waits) */
	uint64_t mark;     /* 2 x the call that put it in play (+1: placed
			      in order) */
};

static void list_remove(struct gittins_list *ls, struct gittins_job *s)
{
	CLUSTERSIM_LIST_REMOVE(ls, s);
}

/* Links s in just before o (NULL: at the tail). */
static void list_insert(struct gittins_list *ls, struct gittins_job *s,
			struct gittins_job *o)
{
	s->next = o;
	s->prev = o ? o->prev : ls->tail;
	if (s->prev)
		s->prev->next = s;
	else
		ls->head = s;
	if (o)
		o->prev = s;
	else
		ls->tail = s;
}

/* The first of the n ascending samples s that is above a. */
static size_t first_above(const double *s, size_t n, double a)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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
	g->incremental = sim_param_bool(sim, "incremental");
	g->reuse = sim_param_bool(sim, "reuse");
	g->bound = sim_heap_new(sim, true);
	g->cross = sim_heap_new(sim, false);
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
	g->prev = sim_alloc(sim, g->points, sizeof(*g->prev));
	g->suffix = sim_alloc(sim, g->points + 1, sizeof(*g->suffix));
	g->last = sim_alloc(sim, g->points, sizeof(*g->last));
	g->run = sim_alloc(sim, g->points, sizeof(*g->run));
	return 0;
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
	size_t oldruns = g->nruns;
	memcpy(g->prev, s, (g->nprev = g->nsorted) * sizeof(*s));
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
	if (same)
		return;
	g->version++;
	size_t t = 0;
	while (t < m && t < g->nprev && s[m - 1 - t] == g->prev[g->nprev - 1 - t])
		t++;
	g->tail = t;
	g->run_shift = (uint32_t)(g->nruns - oldruns);
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
	k = first_above(s, n, a);
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

/*
 * Carries a job's cache over the last change of the distribution, when
 * the samples above its service (a) are in the tail both versions share:
 * G(a), and within that run of samples the bound and crossing its keys
 * were made from, read only that tail, in the same order, so they are
 * the same bits.  Its positions move to this version's (the runs from
 * next_sample on are the same, counted from the end).  An exact index
 * stays exact.  false (nothing changed) when the tail does not cover it.
 */
static bool carry(struct gittins *g, struct gittins_job *gj)
{
	if (!g->reuse || !gj->keyed || gj->keyed + 1 != g->version ||
	    gj->next_sample > g->nprev)
		return false;
	size_t above = g->nprev - gj->next_sample;
	if (above >= g->tail)
		return false;
	bool exact = gj->version == gj->keyed;
	gj->next_sample = (uint32_t)(g->nsorted - above);
	gj->hint += g->run_shift;
	gj->keyed = g->version;
	gj->version = exact ? g->version
			    : g->version > 1 ? g->version - 1 : UINT32_MAX;
	return true;
}

/* G(a) of job j, from its cache when a and the distribution are those
 * it was computed for (a waiting job's service does not change); stamps
 * the cache as current for this schedule call. */
static double index_for(struct gittins *g, const struct job *j, double a)
{
	struct gittins_job *gj = &g->jobs[j->idx];
	if ((gj->version != g->version || gj->a != a) &&
	    !(gj->a == a && gj->version == gj->keyed && carry(g, gj))) {
		size_t next;
		gj->a = a;
		gj->index = index_of(g, a, &next, &gj->hint);
		gj->next_sample = (uint32_t)next;
		gj->version = gj->keyed = g->version;
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
	if (gj->settled)
		return gj->a;
	if (gj->version && sim_job_restored_at(sim, gj->job) > sim_now(sim))
		return gj->a;
	return sim_job_service(sim, gj->job);
}

/* Sorts n slots into ranking order (a total order: the same result as
 * any sort), with room for n in tmp: by insertion when short, else the
 * two halves merged. */
static void slots_sort(struct gittins_job **a, size_t n,
		       struct gittins_job **tmp)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			struct gittins_job *x = a[i];
			size_t k = i;
			for (; k > 0 && ahead(x->index, x->idx, a[k - 1]->index,
					      a[k - 1]->idx); k--)
				a[k] = a[k - 1];
			a[k] = x;
		}
		return;
	}
	size_t h = n / 2, i = 0, j = h, k = 0;
	slots_sort(a, h, tmp);
	slots_sort(a + h, n - h, tmp);
	memcpy(tmp, a, h * sizeof(*a));
	while (i < h && j < n)
		a[k++] = ahead(a[j]->index, a[j]->idx, tmp[i]->index,
			       tmp[i]->idx) ? a[j++] : tmp[i++];
	while (i < h)
		a[k++] = tmp[i++];
}

/* Room for want items in *pp (capacity *cap): the policy cannot rank
 * without it, so running out of memory stops the run, as it does in the
 * engine's own tables. */
static void grow(void *pp, size_t *cap, size_t want, size_t sz)
{
	if (!clustersim_grow(pp, cap, want, sz))
		abort();
}

static void vec_push(struct gittins_vec *v, struct gittins_job *s)
{
	grow(&v->a, &v->cap, v->n + 1, sizeof(*v->a));
	v->a[v->n++] = s;
}

/* Brings the indices of a list's jobs up to date and sorts it by them
 * (after the distribution changed): the jobs whose index did not move
 * and that were in order stay so; the others are sorted and merged in. */
static void list_sort(struct sim *sim, struct gittins *g,
		      struct gittins_list *ls)
{
	struct gittins_vec *kept = &g->sorting, *redo = &g->redo;
	kept->n = redo->n = 0;
	for (struct gittins_job *s = ls->head; s; s = s->next) {
		double was = s->index;
		index_for(g, s->job, service_of(sim, s));
		s->settled = true;
		struct gittins_job *o = kept->n ? kept->a[kept->n - 1] : NULL;
		if (s->index == was &&
		    (!o || ahead(o->index, o->idx, s->index, s->idx)))
			vec_push(kept, s);
		else
			vec_push(redo, s);
	}
	grow(&g->tmp.a, &g->tmp.cap, redo->n, sizeof(*g->tmp.a));
	slots_sort(redo->a, redo->n, g->tmp.a);
	ls->head = ls->tail = NULL;
	for (size_t i = 0, j = 0; i < kept->n || j < redo->n;) {
		bool k = j == redo->n ||
			 (i < kept->n &&
			  ahead(kept->a[i]->index, kept->a[i]->idx,
				redo->a[j]->index, redo->a[j]->idx));
		list_insert(ls, k ? kept->a[i++] : redo->a[j++], NULL);
	}
}

/* The slots of the jobs sim_heap_upto() lists, into v. */
static void upto(struct gittins *g, const struct sim_heap *h, double key,
		 uint32_t idx, struct gittins_vec *v)
{
	size_t n;
	const uint32_t *a = sim_heap_upto(h, key, idx, &n);
	v->n = 0;
	for (size_t i = 0; i < n; i++)
		vec_push(v, &g->jobs[a[i]]);
}

/* Takes a job out of whichever list holds it. */
static void unlist(struct gittins *g, struct gittins_job *gj)
{
	if (gj->where == IN_RUNNING)
		list_remove(&g->running, gj);
	else if (gj->where == IN_PRE)
		list_remove(&g->pre, gj);
	else if (gj->where == IN_FRESH)
		list_remove(&g->fresh, gj);
	gj->where = IN_NONE;
	gj->settled = false;
	sim_heap_remove(g->bound, gj->idx);
	sim_heap_remove(g->cross, gj->idx);
	gj->cross_key = -INFINITY; /* no keys to carry over */
}

/* A job that never had service joins the fresh list in queue order (a
 * new one at the end; one preempted before it had any, in its place). */
static void fresh_insert(struct gittins *g, struct gittins_job *gj)
{
	struct gittins_job *o = g->fresh.tail;
	while (o && o->idx > gj->idx)
		o = o->prev;
	list_insert(&g->fresh, gj, o ? o->next : g->fresh.head);
	gj->where = IN_FRESH;
}

static void gittins_submitted(struct sim *sim, void *state,
			      const struct job *j)
{
	struct gittins *g = state;
	struct gittins_job *gj = &g->jobs[j->idx];
	gj->job = j;
	gj->idx = j->idx;
	fresh_insert(g, gj);
}

/* A started job joins the running jobs (and leaves the pre or fresh
 * list). */
static void gittins_started(struct sim *sim, void *state,
			    const struct job *j)
{
	struct gittins *g = state;
	struct gittins_job *gj = &g->jobs[j->idx];
	unlist(g, gj);
	CLUSTERSIM_LIST_PUSH(&g->running, gj);
	gj->where = IN_RUNNING;
	vec_push(&g->started, gj);
}

/* A preempted job leaves the running jobs; with service, it joins the
 * pre list (a job that never ran waits in the queue's order). */
static void gittins_preempted(struct sim *sim, void *state,
			      const struct job *j)
{
	struct gittins *g = state;
	struct gittins_job *gj = &g->jobs[j->idx];
	unlist(g, gj);
	if (j->attained > 0) {
		CLUSTERSIM_LIST_PUSH(&g->pre, gj);
		gj->where = IN_PRE;
		vec_push(&g->joined, gj);
	} else {
		fresh_insert(g, gj);
	}
}

/* A finished job leaves the running jobs, and its service joins the
 * learned samples, the oldest leaving once there are `window` (the
 * engine's window keeps them sorted as they come and go). */
static void gittins_finished(struct sim *sim, void *state,
			     const struct job *j)
{
	struct gittins *g = state;
	unlist(g, &g->jobs[j->idx]);
	if (g->given)
		return;
	sim_window_add(g->learned, sim_job_service(sim, j));
	g->stale = true;
}

static void gittins_fini(struct sim *sim, void *state)
{
	struct gittins *g = state;
	free(g->inplay.a);
	free(g->started.a);
	free(g->joined.a);
	free(g->order.a);
	free(g->sorting.a);
	free(g->redo.a);
	free(g->tmp.a);
	free(g->in);
}

/* When a running job's service passes its next sample, counted from the
 * end of its restore (before it, its service does not grow: counted from
 * now, the wake-up would come again every microsecond of a restore), from
 * its cached service and next sample; SIM_TIME_MAX when never. */
static sim_time_t crossing(struct sim *sim, const struct gittins *g,
			   const struct gittins_job *gj)
{
	const struct job *j = gj->job;
	if (gj->next_sample == g->nsorted || !(width(j) > 0))
		return SIM_TIME_MAX;
	double dt = (g->sorted[gj->next_sample] - gj->a) / width(j) * 1e6;
	sim_time_t from = sim_job_restored_at(sim, j);
	if (!(dt < (double)(SIM_TIME_MAX - from) * 0.5))
		return SIM_TIME_MAX; /* a sample the clock never reaches */
	return from + (sim_time_t)ceil(dt > 1 ? dt : 1);
}

/*
 * The two keys of a running job whose index, service and next sample
 * are current.  Within one run of the distribution (no sample crossed)
 * every ratio of the index is done / (B - (n - k) a), which grows with
 * a: the index now bounds it from below until the next crossing.  The
 * bound is lowered by what rounding may take off the ratio that won
 * (the sums' errors, E, twice; the quotient's), so that it holds for
 * the computed index, not only the exact one.  The crossing time is
 * lowered by a slack for the rounding of the service: a later call
 * computes the same time from its own service within that slack.
 */
static void set_keys(struct sim *sim, struct gittins *g,
		     struct gittins_job *gj, double lb, uint32_t h)
{
	size_t n = g->nsorted, k = gj->next_sample;
	if (n && k < n && h < g->nruns) {
		double done = (double)(g->last[h] - k + 1);
		double e = 0x1p-40 * (g->suffix[0] + (double)n *
				      (g->sorted[n - 1] + fabs(gj->a)));
		lb = done / (done / lb * (1 + 0x1p-50) + 2 * e) *
		     (1 - 0x1p-50);
	}
	sim_heap_set(g->bound, gj->idx, lb);
	sim_time_t t = crossing(sim, g, gj);
	if (t == SIM_TIME_MAX) {
		sim_heap_remove(g->cross, gj->idx);
		gj->cross_key = INFINITY;
		return;
	}
	double slack = 4 + (g->sorted[k] + fabs(gj->a)) / width(gj->job) *
			   1e-6;
	if (slack > g->slack_max)
		g->slack_max = slack;
	gj->cross_key = (double)t - slack;
	sim_heap_set(g->cross, gj->idx, gj->cross_key);
}

/* Brings a running job's index up to this call and sets its keys. */
static void refresh(struct sim *sim, struct gittins *g,
		    struct gittins_job *gj)
{
	index_for(g, gj->job, service_of(sim, gj));
	set_keys(sim, g, gj, gj->index, gj->hint);
}

/* After the distribution changed: a running job's keys from the ratio
 * its last index won with (a lower bound on the max), not the index,
 * computed only if a waiting job may pass the bound; its cache keeps an
 * old version, with the service and next sample of the keys. */
static void rebound(struct sim *sim, struct gittins *g,
		    struct gittins_job *gj)
{
	size_t n = g->nsorted;
	double a = service_of(sim, gj);
	size_t k = first_above(g->sorted, n, a);
	uint32_t h = gj->hint;
	if (k == n || h < g->run[k] || h >= g->nruns) {
		refresh(sim, g, gj);
		return;
	}
	gj->a = a;
	gj->next_sample = (uint32_t)k;
	gj->keyed = g->version;
	/* not this version's index (0 would mean no cache at all) */
	gj->version = g->version > 1 ? g->version - 1 : UINT32_MAX;
	set_keys(sim, g, gj, ratio(g, a, k, g->last[h]), h);
}

/* A running job's keys still hold after the change (carry), when it has
 * not reached its next sample (its crossing key is still ahead; one
 * that never crosses has none). */
static bool keys_hold(struct sim *sim, struct gittins *g,
		      struct gittins_job *gj)
{
	if (!(gj->cross_key > (double)sim_now(sim)))
		return false;
	return carry(g, gj);
}

/* Sorts the jobs in play into ranking order (a total order): those in
 * play last call from last call's order, which mostly holds, by
 * insertion; the new ones by slots_sort; the two merged from the back. */
static void sort_inplay(struct gittins *g)
{
	struct gittins_vec *v = &g->inplay, *o = &g->order;
	uint64_t in = 2 * g->calls, taken = in + 1;
	size_t m = 0, nv = 0;
	if (v->n == 0) {
		/* Nothing in play: an empty order (and no NULL array handed
		 * to memcpy below). */
		o->n = 0;
		return;
	}
	for (size_t i = 0; i < v->n; i++)
		v->a[i]->mark = in;
	for (size_t i = 0; i < o->n; i++)
		if (o->a[i]->mark == in)
			(o->a[m++] = o->a[i])->mark = taken;
	for (size_t i = 0; i < v->n; i++)
		if (v->a[i]->mark == in)
			v->a[nv++] = v->a[i];
	struct gittins_job **a = o->a;
	for (size_t i = 1; i < m; i++) {
		struct gittins_job *x = a[i];
		size_t k = i;
		for (; k > 0 && ahead(x->index, x->idx, a[k - 1]->index,
				      a[k - 1]->idx); k--)
			a[k] = a[k - 1];
		a[k] = x;
	}
	grow(&g->tmp.a, &g->tmp.cap, nv, sizeof(*g->tmp.a));
	slots_sort(v->a, nv, g->tmp.a);
	grow(&o->a, &o->cap, m + nv + 1, sizeof(*o->a));
	a = o->a;
	for (size_t k = m + nv, i = m, j = nv; j > 0; k--)
		a[k - 1] = i > 0 && ahead(v->a[j - 1]->index, v->a[j - 1]->idx,
					  a[i - 1]->index, a[i - 1]->idx)
				   ? a[--i] : v->a[--j];
	o->n = m + nv;
	grow(&v->a, &v->cap, o->n, sizeof(*v->a));
	memcpy(v->a, a, (v->n = o->n) * sizeof(*a));
}

/* Puts a job that joined the pre list at its tail into its place, its
 * index brought up to date (the others' are current), looking from the
 * head: a job just preempted was running, and mostly ranks high. */
static void pre_place(struct sim *sim, struct gittins *g,
		      struct gittins_job *s)
{
	index_for(g, s->job, service_of(sim, s));
	s->settled = true;
	struct gittins_job *o = s->prev;
	if (!o || !ahead(s->index, s->idx, o->index, o->idx))
		return;
	list_remove(&g->pre, s);
	o = g->pre.head;
	while (!ahead(s->index, s->idx, o->index, o->idx))
		o = o->next; /* stops: s is ahead of its old prev */
	list_insert(&g->pre, s, o);
}

/*
 * The running jobs that a waiting job may pass, into inplay, up to date
 * and in ranking order: those whose bound is not ahead of the best
 * waiting job (wi, wx), after the keys of those that may have crossed a
 * sample were set again (of every one, from a bound, when the
 * distribution changed).  The others rank ahead of every waiting job,
 * whatever their order: they keep their units (sim_rank_begin_with).
 */
static void pick_inplay(struct sim *sim, struct gittins *g, bool changed,
			bool any, double wi, uint32_t wx)
{
	struct gittins_job *r;
	if (changed) {
		for (r = g->running.head; r; r = r->next)
			if (!keys_hold(sim, g, r))
				rebound(sim, g, r);
	} else {
		upto(g, g->cross, (double)sim_now(sim), UINT32_MAX,
		     &g->inplay);
		for (size_t i = 0; i < g->inplay.n; i++)
			refresh(sim, g, g->inplay.a[i]);
	}
	g->inplay.n = 0;
	if (any)
		upto(g, g->bound, wi, wx, &g->inplay);
	/* Up to date, those still ahead of the best waiting job drop out
	 * (with keys from their index now, out of the bound's reach).  One
	 * that stays keeps its keys while its next sample is the same: the
	 * index only rises until then, so the bound still holds, and so
	 * does the crossing key (within its slack). */
	size_t m = 0;
	for (size_t i = 0; i < g->inplay.n; i++) {
		r = g->inplay.a[i];
		uint32_t next = r->next_sample, keyed = r->keyed;
		index_for(g, r->job, service_of(sim, r));
		bool stays = !ahead(r->index, r->idx, wi, wx);
		if (!stays || r->keyed != keyed || r->next_sample != next)
			set_keys(sim, g, r, r->index, r->hint);
		if (stays)
			g->inplay.a[m++] = r;
	}
	g->inplay.n = m;
	sort_inplay(g);
}

/* inplay's jobs, for the engine. */
static const struct job **inplay_jobs(struct gittins *g)
{
	grow(&g->in, &g->incap, g->inplay.n, sizeof(*g->in));
	for (size_t i = 0; i < g->inplay.n; i++)
		g->in[i] = g->inplay.a[i]->job;
	return g->in;
}

/*
 * Ranks the running jobs in play and the waiting ones, highest index
 * first.  Jobs with service (running, or waiting after a preemption: the
 * pre list) are in index order; the jobs that never ran all have the
 * index G(0) = g0 and wait in submit order already (the fresh list), so
 * they are merged in rather than sorted.  Waiting jobs are listed only
 * while one could still start (sim_rank_full); every running job in play
 * is listed, to be kept or preempted.
 */
static void merge(struct sim *sim, struct gittins *g, double g0)
{
	struct gittins_job *p = g->pre.head, *f = g->fresh.head;
	size_t ri = 0, nr = g->inplay.n;
	for (;;) {
		bool waiting = !sim_rank_full(sim);
		const struct job *best = NULL;
		const struct job *fj = waiting && f ? f->job : NULL;
		double bi = 0;
		uint32_t bx = 0;
		if (ri < nr) {
			best = g->inplay.a[ri]->job;
			bi = g->inplay.a[ri]->index;
			bx = g->inplay.a[ri]->idx;
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
			f = f->next;
		else if (p && best == p->job)
			p = p->next;
		else
			ri++;
	}
}

/* The index of a running job as the wake-up reads it: as ranked this
 * call, else from its service now; with the heaps, its keys set. */
static void current(struct sim *sim, struct gittins *g,
		    struct gittins_job *gj)
{
	if (gj->call != g->calls || gj->version != g->version)
		index_for(g, gj->job, service_of(sim, gj));
	if (g->incremental)
		set_keys(sim, g, gj, gj->index, gj->hint);
}

/* The next crossing of the jobs in inplay. */
static sim_time_t next_crossing(struct sim *sim, struct gittins *g)
{
	sim_time_t next = SIM_TIME_MAX;
	for (size_t i = 0; i < g->inplay.n; i++) {
		current(sim, g, g->inplay.a[i]);
		sim_time_t t = crossing(sim, g, g->inplay.a[i]);
		next = t < next ? t : next;
	}
	return next;
}

/*
 * Wakes the policy at the next crossing of the running jobs: of all of
 * them, or with the heaps of those whose keys allow a crossing before
 * the least possible one (the jobs started by this call keyed first).
 * The jobs that ran before kept their service of this call (the
 * engine's starts and preemptions change only other jobs' rates), so
 * their cache holds it with its next sample.
 */
static void wake(struct sim *sim, struct gittins *g)
{
	uint32_t first;
	double least, lim = 0;
	g->inplay.n = 0;
	for (size_t i = 0; g->incremental && i < g->started.n; i++)
		if (g->started.a[i]->where == IN_RUNNING)
			current(sim, g, g->started.a[i]);
	g->started.n = 0;
	if (!g->incremental)
		for (struct gittins_job *r = g->running.head; r; r = r->next)
			vec_push(&g->inplay, r);
	else if (sim_heap_top(g->cross, &first, &least))
		upto(g, g->cross, lim = least + 2 * g->slack_max, UINT32_MAX,
		     &g->inplay);
	sim_time_t next = next_crossing(sim, g);
	if (g->incremental && next != SIM_TIME_MAX && (double)next > lim) {
		/* A guard: past the limit, again up to the time found. */
		upto(g, g->cross, (double)next, UINT32_MAX, &g->inplay);
		next = next_crossing(sim, g);
	}
	if (next != SIM_TIME_MAX)
		sim_wakeup_at(sim, next);
}

static void gittins_schedule(struct sim *sim, void *state)
{
	struct gittins *g = state;
	if (sim_running_len(sim) + sim_queue_len(sim) == 0)
		return;
	uint32_t version = g->version;
	prepare(g);
	g->calls++;
	bool changed = version != g->version;
	if (changed) {
		list_sort(sim, g, &g->pre);
	} else {
		for (size_t i = 0; i < g->joined.n; i++)
			if (g->joined.a[i]->where == IN_PRE)
				pre_place(sim, g, g->joined.a[i]);
	}
	g->joined.n = 0;
	size_t next0;
	uint32_t hint0 = 0;
	if (g->g0_version != g->version)
		g->g0 = index_of(g, 0, &next0, &hint0);
	double g0 = g->g0;
	g->g0_version = g->version;
	/* The best waiting job: every other waits behind it. */
	struct gittins_job *p = g->pre.head, *f = g->fresh.head;
	double wi = p ? p->index : -1;
	uint32_t wx = p ? p->idx : 0;
	if (f && (!p || ahead(g0, f->idx, wi, wx))) {
		wi = g0;
		wx = f->idx;
	}
	if (g->incremental) {
		pick_inplay(sim, g, changed, p || f, wi, wx);
		if (!sim_rank_begin_with(sim, inplay_jobs(g), g->inplay.n))
			g->incremental = false; /* for good: see why there */
	}
	if (!g->incremental) {
		/* Every running job in play. */
		g->inplay.n = 0;
		for (struct gittins_job *r = g->running.head; r; r = r->next) {
			index_for(g, r->job, service_of(sim, r));
			vec_push(&g->inplay, r);
		}
		sort_inplay(g);
		sim_rank_begin(sim);
	}
	merge(sim, g, g0);
	sim_rank_apply(sim); /* gittins_started, gittins_preempted */
	wake(sim, g);
}

static const struct policy_param gittins_params[] = {
	{ "distribution_s", PARAM_STRING, "",
	  "service samples, resource-seconds, comma-separated; "
	  "empty = learn from finished jobs" },
	{ "window", PARAM_INT, "1000",
	  "finished jobs the learned distribution keeps" },
	{ "points", PARAM_INT, "32",
	  "equally likely sizes the distribution is reduced to" },
	{ "incremental", PARAM_BOOL, "true",
	  "rank only the running jobs a waiting one could pass (false: "
	  "every job at every call; the same decisions, slower)" },
	{ "reuse", PARAM_BOOL, "true",
	  "keep an index and keys across a change of the distribution that "
	  "left the samples above its service alone (false: recompute; the "
	  "same decisions, slower)" },
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
	.fini = gittins_fini,
	.job_started = gittins_started,
	.job_preempted = gittins_preempted,
	.schedule = gittins_schedule);
