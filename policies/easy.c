/*
 * easy: EASY backfilling (the Extensible Argonne Scheduling sYstem).
 *
 * What it does: jobs start in queue order while the head fits.  When the
 * head does not fit, it gets a reservation at the earliest time enough
 * resources will be free by the running jobs' estimates (the "shadow
 * time").  A later job may then start now if it fits now and does not
 * delay that reservation: either it ends (by its estimate) by the shadow
 * time, or it uses only resources that the head will not need at the
 * shadow time (the "extra" resources).  Only the head is protected; other
 * waiting jobs may be delayed.  A running job already past its estimate
 * is expected to end at the next microsecond.  Each pass plans the shadow
 * time from the running jobs' expected ends at that pass, so while the
 * head waits on jobs past their estimates it moves on with every pass
 * (an earlier pass's is kept only while it gives the same: below).
 *
 * The shadow time and the extra resources come from the engine's
 * free-resource profile (the running jobs' expected ends).  The test on a
 * candidate is then O(1), and it is the same as asking the profile whether
 * the candidate fits during [now, now + estimate) beside the head's
 * reservation: before the shadow time free resources only grow as jobs
 * end, so fitting now is enough; from the shadow time on the least free
 * is at the shadow time itself, the extra resources.
 *
 * On a cluster partitioned into virtual clusters (docs/philly.md) each
 * VC's jobs, and the jobs of no VC, are a queue of their own (as in
 * sim_start_head), so there is one head per queue.  The O(1) rule above
 * assumes one pool: there a job of one VC may take pool GPUs that the
 * head of another needs, and GPUs of other VCs are no help.  So on such
 * a cluster EASY asks the engine's per-partition profile instead: in
 * queue order, each queue's first waiting job starts if the profile says
 * it may start now beside the heads reserved before it, else it is
 * reserved at its earliest time; then every other job starts now if it
 * fits during [now, now + estimate) beside all the heads' reservations.
 * With one partition that is the rule above.  The first step is not
 * sim_start_head, which would start a later head of one VC on pool GPUs
 * that an earlier head of another was promised.
 *
 * The waiting jobs are indexed (queue order only): in buckets of demands
 * within a factor of two, each in idx order, which is queue order since
 * EASY keeps submit order and idx is dense in (submit, id) order, with a
 * segment tree of each bucket's least demands and estimates.  A pass
 * descends the buckets to the next job in queue order that may pass the
 * test above (demand within the free units, and within the extra units
 * or an estimate within the shadow time), so a job that cannot start now
 * is skipped without a visit, where the scan of every waiting job made
 * EASY quadratic under overload.  The candidates tried, in their order,
 * and so every decision, are those of the scan.  backfill_order "sjf",
 * clusters with VCs and passes over at most IX_SCAN jobs keep the scan.
 *
 * Source: Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995; Mu'alem
 * and Feitelson, "Utilization, predictability, workloads, and user runtime
 * estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 2001.
 * backfill_order "sjf" is EASY-SJBF (shortest job backfilled first),
 * Tsafrir, Etsion and Feitelson, IEEE TPDS 2007.
 *
 * Parameters:
 *   backfill_order  "queue" (default): candidates in queue order;
 *                   "sjf": shortest estimate first.
 *
 * Example (10 CPUs, estimates exact): A runs on 6 CPUs until 100.  Queue:
 * B asks 8 CPUs (50 s), C 4 CPUs (200 s), D 2 CPUs (20 s), in that order.
 * B does not fit: shadow time 100, extra = 10 - 8 = 2 CPUs.  C fits now
 * (4 free) but would end at 200 > 100 and needs 4 > 2 extra: not started.
 * D fits and ends at 20 <= 100: starts now.  At 100 A ends and B starts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

/*
 * The waiting jobs, indexed.  Jobs are split into buckets by demand
 * (bucket 0 demand 0, bucket k >= 1 demands [2^(k-1), 2^k)), so that a
 * bucket's demands differ by less than a factor of two (by none with
 * demands that are powers of two).  A bucket lists its jobs in idx order,
 * which is queue order (EASY keeps submit order; idx is dense in (submit,
 * id) order), waiting or not, and a segment tree over blocks of IX_BLOCK
 * entries holds the least demand and estimate of each block's waiting
 * jobs (node 1 is the root, node k has children 2k and 2k + 1, block b is
 * node cap + b; a block with no waiting job holds UINT64_MAX and
 * INT64_MAX).  Blocks keep the trees at about a byte a job.
 */
#define IX_BLOCK 32
#define IX_BUCKETS 65
#define IX_NONE SIZE_MAX
#define IX_SCAN 64 /* a pass over fewer jobs scans them instead */

struct ix_node {
	uint64_t dem;   /* least demand of the waiting jobs below */
	sim_time_t est; /* least estimate of the waiting jobs below */
};

struct ix_entry {
	const struct job *job; /* the job */
	uint64_t dem;          /* its demand */
	uint32_t idx;          /* its idx */
	bool wait;             /* it is waiting */
};

struct ix_bucket {
	struct ix_entry *e; /* the bucket's jobs, in idx order */
	size_t n, ecap;     /* entries, and their capacity */
	size_t nwait;       /* entries waiting */
	struct ix_node *t;  /* the tree, 2 * cap nodes */
	size_t cap;         /* blocks, a power of two (0: none yet) */
};

struct easy_index {
	struct ix_bucket b[IX_BUCKETS];
	/* In a pass: each bucket's first job that passed the tests from the
	 * last search on, and whether the bucket may still hold one. */
	const struct job *hit[IX_BUCKETS];
	bool open[IX_BUCKETS];
	bool broken; /* out of memory, or a job out of idx order: the scan */
};

/* What a pass asks of a candidate (try_backfill's first two tests). */
struct ix_query {
	uint64_t avail;     /* units free now, less the candidates started */
	uint64_t extra;     /* the head's extra units left */
	sim_time_t horizon; /* an estimate within it ends by the shadow time */
};

/* The head's reservation as the backfilling rule needs it. */
struct shadow {
	sim_time_t t;   /* the head's start by the running jobs' estimates */
	uint64_t extra; /* units free at t beside the head, not yet promised */
};

struct easy {
	bool sjf;                /* backfill shortest estimate first */
	const struct job **cand; /* candidates, for the sjf order */
	size_t cap;
	/*
	 * Incremental passes.  After a pass every job behind the head has
	 * been found unable to start.  Until a job ends (the only event that
	 * frees resources), that stays true while the shadow time is ahead:
	 * the head, its shadow time and the extra resources are unchanged
	 * and, as time goes on, "ends by the shadow time" only gets harder.
	 * Once the shadow time is not ahead, the running jobs it waited on
	 * are past their estimates, now expected at the next microsecond:
	 * the pass plans the shadow time again, and the jobs left waiting
	 * still cannot start unless the extra units or the horizon grew
	 * beyond those they were refused with.  After a job ends it still
	 * holds while fewer units are free than the smallest of those jobs
	 * asks for, since none of them fits now.  Either way the next pass
	 * need only look at jobs submitted since.
	 */
	bool clean;              /* no job ended since the last pass */
	int64_t head_id;         /* the head at the last pass */
	size_t scanned;          /* queue length after the last pass */
	uint64_t min_wait;       /* smallest demand of the jobs the last pass
	                            left waiting behind the head (0: unknown) */
	sim_time_t min_h;        /* least horizon they were refused with */
	struct shadow sh;        /* the head's reservation then */
	struct easy_index ix;    /* the waiting jobs, for the queue order */
	bool *blocked;           /* VC clusters: queue v has a head waiting */
	bool *seen;              /* VC clusters: queue v's head passed */
	uint32_t nq;             /* entries in blocked and seen */
};

static int easy_init(struct sim *sim, void **state, struct sim_error *err)
{
	const char *order = sim_param_str(sim, "backfill_order");
	struct easy *e = calloc(1, sizeof(*e));
	if (!e)
		return -1;
	*state = e;
	if (strcmp(order, "sjf") == 0) {
		e->sjf = true;
	} else if (strcmp(order, "queue") != 0) {
		snprintf(err->msg, sizeof(err->msg),
			 "backfill_order must be 'queue' or 'sjf', got '%s'",
			 order);
		return -1;
	}
	return 0;
}

static void easy_fini(struct sim *sim, void *state)
{
	struct easy *e = state;
	if (e) {
		free(e->cand);
		for (unsigned k = 0; k < IX_BUCKETS; k++) {
			free(e->ix.b[k].e);
			free(e->ix.b[k].t);
		}
		free(e->blocked);
		free(e->seen);
	}
	free(e);
}

static int by_estimate(const void *pa, const void *pb)
{
	const struct job *a = *(const struct job *const *)pa;
	const struct job *b = *(const struct job *const *)pb;
	if (a->estimate != b->estimate)
		return a->estimate < b->estimate ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/*
 * Starts j now if that cannot delay the head: it fits now, and it ends by
 * the shadow time or uses only extra units (which it then consumes).
 * The units are GPUs on a cluster with GPUs, which say nothing of the
 * CPUs a job may also need: every start here is asked only of a job that
 * fits (else the engine would refuse it as a bad call).
 */
static bool try_backfill(struct sim *sim, struct easy *e,
			 const struct job *j, sim_time_t horizon,
			 uint64_t *avail)
{
	bool ends_first = j->estimate <= horizon;
	uint64_t d = sim_demand(sim, j);
	if (d > *avail || (!ends_first && d > e->sh.extra) ||
	    !sim_job_fits(sim, j) || sim_job_start(sim, j) != 0) {
		if (d < e->min_wait)
			e->min_wait = d;
		return false;
	}
	*avail -= d;
	if (!ends_first)
		e->sh.extra -= d;
	return true;
}

/* Could some job under node n pass q's tests? */
static bool ix_node_ok(const struct ix_node *n, const struct ix_query *q)
{
	return n->dem <= q->avail && (n->dem <= q->extra || n->est <= q->horizon);
}

static unsigned ix_bucket_of(uint64_t d)
{
	return d ? 64 - (unsigned)__builtin_clzll(d) : 0;
}

/* Recomputes block b's node from its waiting jobs, then those above. */
static void ix_block(struct ix_bucket *bk, size_t b)
{
	struct ix_node n = { UINT64_MAX, INT64_MAX };
	size_t end = (b + 1) * IX_BLOCK < bk->n ? (b + 1) * IX_BLOCK : bk->n;
	for (size_t i = b * IX_BLOCK; i < end; i++) {
		const struct ix_entry *x = &bk->e[i];
		if (!x->wait)
			continue;
		if (x->dem < n.dem)
			n.dem = x->dem;
		if (x->job->estimate < n.est)
			n.est = x->job->estimate;
	}
	size_t k = bk->cap + b;
	bk->t[k] = n;
	for (k >>= 1; k; k >>= 1) {
		const struct ix_node *l = &bk->t[2 * k], *r = &bk->t[2 * k + 1];
		bk->t[k].dem = l->dem < r->dem ? l->dem : r->dem;
		bk->t[k].est = l->est < r->est ? l->est : r->est;
	}
}

/* Every node again, after entries moved: a tree of at least n / IX_BLOCK
 * blocks (cap 0: as it is); false when out of memory. */
static bool ix_rebuild(struct sim *sim, struct ix_bucket *bk, size_t cap)
{
	if (cap) {
		struct ix_node *t = malloc(2 * cap * sizeof(*t));
		if (!t)
			return false;
		free(bk->t);
		bk->t = t;
		bk->cap = cap;
	}
	for (size_t k = 0; k < 2 * bk->cap; k++)
		bk->t[k] = (struct ix_node){ UINT64_MAX, INT64_MAX };
	for (size_t b = 0; b * IX_BLOCK < bk->n; b++)
		ix_block(bk, b);
	return true;
}

/* Appends j (not waiting yet), growing the tree when its blocks run out;
 * false when out of memory. */
static bool ix_append(struct sim *sim, struct ix_bucket *bk,
		      const struct job *j)
{
	if (!clustersim_grow(&bk->e, &bk->ecap, bk->n + 1, sizeof(*bk->e)))
		return false;
	bk->e[bk->n++] = (struct ix_entry){ j, sim_demand(sim, j), j->idx,
					    false };
	if ((bk->n - 1) / IX_BLOCK < bk->cap)
		return true;
	return ix_rebuild(sim, bk, bk->cap ? 2 * bk->cap : 16);
}

/* Drops the entries of jobs no longer waiting once they are most of the
 * bucket, so that it holds O(jobs waiting) (a job that no longer waits
 * is not submitted again: EASY preempts none). */
static bool ix_compact(struct sim *sim, struct ix_bucket *bk)
{
	if (bk->n < 4 * IX_BLOCK || 4 * bk->nwait > bk->n)
		return false;
	size_t k = 0;
	for (size_t i = 0; i < bk->n; i++)
		if (bk->e[i].wait)
			bk->e[k++] = bk->e[i];
	bk->n = k;
	ix_rebuild(sim, bk, 0);
	return true;
}

/* Entry p now waits: the nodes above it take in its demand and estimate
 * (they only fall). */
static void ix_lower(struct ix_bucket *bk, size_t p)
{
	const struct ix_entry *x = &bk->e[p];
	for (size_t k = bk->cap + p / IX_BLOCK; k; k >>= 1) {
		struct ix_node *n = &bk->t[k];
		if (n->dem <= x->dem && n->est <= x->job->estimate)
			break;
		if (x->dem < n->dem)
			n->dem = x->dem;
		if (x->job->estimate < n->est)
			n->est = x->job->estimate;
	}
}

/* Entry p no longer waits: its block again, unless it held neither of
 * the block's least values. */
static void ix_raise(struct ix_bucket *bk, size_t p)
{
	const struct ix_node *n = &bk->t[bk->cap + p / IX_BLOCK];
	if (bk->e[p].dem == n->dem || bk->e[p].job->estimate == n->est)
		ix_block(bk, p / IX_BLOCK);
}

/* The first entry of bk whose idx is at least idx (bk->n if none). */
static size_t ix_pos(const struct ix_bucket *bk, size_t idx)
{
	size_t l = 0, r = bk->n;
	while (l < r) {
		size_t m = l + (r - l) / 2;
		if (bk->e[m].idx < idx)
			l = m + 1;
		else
			r = m;
	}
	return l;
}

/* Job j waits (or no longer does): its entry and the nodes above it. */
static void ix_set(struct sim *sim, struct easy *e, const struct job *j,
		   bool waiting)
{
	struct easy_index *x = &e->ix;
	if (e->sjf || x->broken || sim_vc_count(sim))
		return;
	struct ix_bucket *bk = &x->b[ix_bucket_of(sim_demand(sim, j))];
	size_t p = ix_pos(bk, j->idx);
	if (p == bk->n && !ix_append(sim, bk, j))
		x->broken = true;
	else if (bk->e[p].job != j)
		x->broken = true; /* not in idx order after all */
	if (x->broken || bk->e[p].wait == waiting)
		return;
	bk->e[p].wait = waiting;
	bk->nwait += waiting ? 1 : (size_t)-1;
	if (waiting)
		ix_lower(bk, p);
	else if (!ix_compact(sim, bk))
		ix_raise(bk, p);
}

/* The first block from `from` on, below node k (blocks [l, r)), that may
 * hold a job passing q's tests; IX_NONE if none. */
static size_t ix_next(const struct ix_bucket *bk, size_t k, size_t l,
		      size_t r, size_t from, const struct ix_query *q)
{
	if (r <= from || !ix_node_ok(&bk->t[k], q))
		return IX_NONE;
	if (r - l == 1)
		return l;
	size_t m = l + (r - l) / 2;
	size_t b = ix_next(bk, 2 * k, l, m, from, q);
	return b != IX_NONE ? b : ix_next(bk, 2 * k + 1, m, r, from, q);
}

/* The first waiting job of bk from idx lo on that passes q's tests. */
static const struct job *ix_find_in(struct sim *sim,
				    const struct ix_bucket *bk, size_t lo,
				    const struct ix_query *q)
{
	for (size_t i = ix_pos(bk, lo); i < bk->n;) {
		size_t b = i / IX_BLOCK;
		for (; i < bk->n && i < (b + 1) * IX_BLOCK; i++) {
			const struct ix_entry *x = &bk->e[i];
			if (x->wait && x->dem <= q->avail &&
			    (x->dem <= q->extra ||
			     x->job->estimate <= q->horizon))
				return x->job;
		}
		b = ix_next(bk, 1, 0, bk->cap, b + 1, q);
		if (b == IX_NONE)
			break;
		i = b * IX_BLOCK;
	}
	return NULL;
}

/* The first waiting job in queue order from idx lo on that passes q's
 * tests (try_backfill's first two), or NULL. */
/*
 * Within a pass lo only grows and the tests only tighten (fewer units
 * free, fewer extra), so a bucket's hit that still passes is still its
 * first from lo on, one that no longer does is searched on from, and a
 * bucket with none has none for the rest of the pass.
 */
static const struct job *ix_find(struct sim *sim, struct easy_index *x,
				 size_t lo, const struct ix_query *q)
{
	const struct job *best = NULL;
	for (unsigned k = 0; k < IX_BUCKETS; k++) {
		if (k && (1ull << (k - 1)) > q->avail)
			break; /* this bucket's and the later ones' too big */
		if (!x->open[k])
			continue;
		const struct job *j = x->hit[k];
		size_t from = lo;
		if (j && j->idx >= lo) {
			uint64_t d = sim_demand(sim, j);
			if (d <= q->avail &&
			    (d <= q->extra || j->estimate <= q->horizon))
				from = SIZE_MAX; /* still the first */
			else
				from = j->idx + 1;
		}
		if (from != SIZE_MAX) {
			j = ix_find_in(sim, &x->b[k], from, q);
			x->hit[k] = j;
			x->open[k] = j != NULL;
		}
		if (j && (!best || j->idx < best->idx))
			best = j;
	}
	return best;
}

/* The least demand of the waiting jobs of bk from idx lo on. */
static uint64_t ix_min_in(struct sim *sim, const struct ix_bucket *bk,
			  size_t lo)
{
	uint64_t m = UINT64_MAX;
	size_t i = ix_pos(bk, lo), b = i / IX_BLOCK;
	if (i >= bk->n)
		return m;
	for (; i < bk->n && i < (b + 1) * IX_BLOCK; i++)
		if (bk->e[i].wait && bk->e[i].dem < m)
			m = bk->e[i].dem;
	/* Blocks [b + 1, cap): bottom up over the half-open range. */
	for (size_t l = bk->cap + b + 1, r = 2 * bk->cap; l < r;
	     l >>= 1, r >>= 1) {
		if ((l & 1) && bk->t[l++].dem < m)
			m = bk->t[l - 1].dem;
		if ((r & 1) && bk->t[--r].dem < m)
			m = bk->t[r].dem;
	}
	return m;
}

/* The least demand of the waiting jobs from idx lo on: the first bucket
 * that has one holds it. */
static uint64_t ix_min_from(struct sim *sim, const struct easy_index *x,
			    size_t lo)
{
	for (unsigned k = 0; k < IX_BUCKETS; k++) {
		uint64_t m = ix_min_in(sim, &x->b[k], lo);
		if (m != UINT64_MAX)
			return m;
	}
	return UINT64_MAX;
}

/*
 * The queue-order backfill over the index, jobs from queue position
 * `from` on: the candidates the scan would try, in its order, each tried
 * by try_backfill.  Then min_wait takes in every job left waiting there,
 * visited or skipped.
 */
static void backfill_indexed(struct sim *sim, struct easy *e, size_t from,
			     sim_time_t horizon, uint64_t *avail)
{
	if (from >= sim_queue_len(sim))
		return;
	size_t lo = sim_queue_at(sim, from)->idx;
	struct ix_query q = { 0, 0, horizon };
	for (unsigned k = 0; k < IX_BUCKETS; k++) {
		e->ix.hit[k] = NULL;
		e->ix.open[k] = e->ix.b[k].nwait > 0;
	}
	for (size_t i = lo; *avail > 0;) {
		q.avail = *avail;
		q.extra = e->sh.extra;
		const struct job *j = ix_find(sim, &e->ix, i, &q);
		if (!j)
			break;
		i = j->idx + 1;
		try_backfill(sim, e, j, horizon, avail);
	}
	uint64_t m = ix_min_from(sim, &e->ix, lo);
	if (m < e->min_wait)
		e->min_wait = m;
}

/* Makes room for n candidates; false when out of memory. */
static bool grow_cand(struct easy *e, size_t n)
{
	if (n <= e->cap)
		return true;
	free(e->cand);
	e->cap = 2 * n;
	e->cand = malloc(e->cap * sizeof(*e->cand));
	if (!e->cand)
		e->cap = 0;
	return e->cand != NULL;
}

/* The queue of a job on a cluster with VCs: its VC, or nq - 1. */
static uint32_t queue_of(struct sim *sim, const struct easy *e,
			 const struct job *j)
{
	int v = sim_job_vc(sim, j);
	return v < 0 ? e->nq - 1 : (uint32_t)v;
}

/* The pass on a cluster with virtual clusters (top of file). */
static void easy_schedule_vcs(struct sim *sim, struct easy *e)
{
	uint32_t nq = sim_vc_count(sim) + 1;
	if (nq != e->nq) {
		free(e->blocked);
		free(e->seen);
		e->blocked = calloc(nq, sizeof(*e->blocked));
		e->seen = calloc(nq, sizeof(*e->seen));
		e->nq = e->blocked && e->seen ? nq : 0;
		if (!e->nq)
			return;
	}
	memset(e->blocked, 0, nq * sizeof(*e->blocked));
	memset(e->seen, 0, nq * sizeof(*e->seen));
	sim_time_t now = sim_now(sim);
	struct profile *p = sim_profile(sim);
	/* The heads: start now or get a reservation. */
	for (size_t i = 0; i < sim_queue_len(sim);) {
		const struct job *j = sim_queue_at(sim, i);
		uint32_t q = queue_of(sim, e, j);
		if (e->blocked[q]) {
			i++;
			continue;
		}
		sim_time_t t = profile_earliest(p, j, j->estimate);
		if (t == now && sim_job_fits(sim, j) &&
		    sim_job_start(sim, j) == 0) {
			profile_reserve(p, j, now, j->estimate);
			continue; /* j left the queue: i names the next */
		}
		profile_reserve(p, j, t, j->estimate);
		e->blocked[q] = true;
		i++;
	}
	/* The others, in queue order or shortest first. */
	size_t n = 0;
	if (!grow_cand(e, sim_queue_len(sim)))
		return;
	for (size_t i = 0; i < sim_queue_len(sim); i++) {
		const struct job *j = sim_queue_at(sim, i);
		uint32_t q = queue_of(sim, e, j);
		if (!e->seen[q])
			e->seen[q] = true; /* the head: reserved above */
		else
			e->cand[n++] = j;
	}
	if (e->sjf && n > 1) /* qsort of NULL is undefined, even for 0 */
		qsort(e->cand, n, sizeof(*e->cand), by_estimate);
	for (size_t i = 0; i < n && sim_free_units(sim); i++) {
		const struct job *j = e->cand[i];
		if (profile_fits(p, j, now, j->estimate) &&
		    sim_job_fits(sim, j) && sim_job_start(sim, j) == 0)
			profile_reserve(p, j, now, j->estimate);
	}
}

static void easy_finished(struct sim *sim, void *state, const struct job *j)
{
	((struct easy *)state)->clean = false;
}

static void easy_submitted(struct sim *sim, void *state, const struct job *j)
{
	ix_set(sim, state, j, true);
}

static void easy_started(struct sim *sim, void *state, const struct job *j)
{
	ix_set(sim, state, j, false);
}

/*
 * The head's reservation for this pass (e->sh), and the queue position
 * the pass starts at: past the jobs the last passes left waiting when
 * they still cannot start (the incremental passes above), else 1.  The
 * shadow time is kept while no job ended and it is ahead: the running
 * jobs' expected ends up to it are then those it was planned with.  Once
 * it is not ahead it is planned again, as every pass plans it afresh
 * from the running jobs' expected ends: those it waited on are past
 * their estimates, expected at the next microsecond.
 */
static size_t plan_pass(struct sim *sim, struct easy *e,
			const struct job *head, bool same_head)
{
	sim_time_t now = sim_now(sim);
	struct shadow old = e->sh;
	bool keep = same_head && e->clean && e->sh.t > now;
	if (!keep) {
		struct profile *p = sim_profile(sim);
		e->sh.t = profile_earliest(p, head, head->estimate);
		e->sh.extra = profile_free_at(p, e->sh.t) - sim_demand(sim, head);
		/* A shaped head needs whole tp slots, not GPUs alone. */
		sim_shape_shadow(sim, p, head, &e->sh.t, &e->sh.extra);
	}
	sim_time_t horizon = e->sh.t - now;
	/* No job ended, or none of those jobs fits now; or no job ended and
	 * the tests they failed are no easier. */
	bool still = same_head &&
		     (keep || sim_free_units(sim) < e->min_wait ||
		      (e->clean && e->sh.extra <= old.extra &&
		       horizon <= e->min_h));
	if (!still) {
		e->min_wait = UINT64_MAX;
		e->min_h = horizon;
		return 1;
	}
	if (horizon < e->min_h)
		e->min_h = horizon;
	return e->scanned;
}

static void easy_schedule(struct sim *sim, void *state)
{
	struct easy *e = state;
	if (sim_vc_count(sim)) {
		easy_schedule_vcs(sim, e);
		return;
	}
	size_t started = sim_start_head(sim);
	if (sim_queue_len(sim) < 2) {
		e->clean = false;
		return;
	}
	const struct job *head = sim_queue_at(sim, 0);
	bool same_head = started == 0 && head->id == e->head_id &&
			 e->scanned <= sim_queue_len(sim);
	size_t from = plan_pass(sim, e, head, same_head);

	/* A candidate ends by the shadow time if its estimate is within
	 * horizon; avail counts the units left as candidates start. */
	sim_time_t horizon = e->sh.t - sim_now(sim);
	uint64_t avail = sim_free_units(sim);
	if (!e->sjf && !e->ix.broken && sim_queue_len(sim) - from > IX_SCAN) {
		backfill_indexed(sim, e, from, horizon, &avail);
	} else if (!e->sjf) {
		for (size_t i = from; i < sim_queue_len(sim);) {
			if (avail == 0) {
				e->min_wait = 0; /* the rest were not looked at */
				break;
			}
			/* A started job leaves the queue: i then names the
			 * next one. */
			if (!try_backfill(sim, e, sim_queue_at(sim, i), horizon,
					  &avail))
				i++;
		}
	} else if (sim_queue_len(sim) > from) {
		size_t n = sim_queue_len(sim) - from;
		if (n > e->cap) {
			free(e->cand);
			e->cap = 2 * n;
			e->cand = malloc(e->cap * sizeof(*e->cand));
			if (!e->cand) {
				e->cap = 0;
				e->clean = false;
				e->scanned = SIZE_MAX; /* forget the pass */
				return;
			}
		}
		for (size_t i = 0; i < n; i++)
			e->cand[i] = sim_queue_at(sim, from + i);
		qsort(e->cand, n, sizeof(*e->cand), by_estimate);
		for (size_t i = 0; i < n; i++) {
			if (avail == 0) {
				e->min_wait = 0;
				break;
			}
			try_backfill(sim, e, e->cand[i], horizon, &avail);
		}
	}
	e->clean = true;
	e->head_id = head->id;
	e->scanned = sim_queue_len(sim);
}

static const struct policy_param easy_params[] = {
	{ "backfill_order", PARAM_STRING, "queue",
	  "order of backfill candidates: \"queue\" or \"sjf\"" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(easy,
	.summary = "EASY backfilling: the queue head gets a reservation; "
		   "later jobs start early if they do not delay it",
	.params = easy_params,
	.init = easy_init,
	.fini = easy_fini,
	.job_submitted = easy_submitted,
	.job_finished = easy_finished,
	.job_started = easy_started,
	.job_preempted = easy_submitted,
	.schedule = easy_schedule);
