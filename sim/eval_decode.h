/*
 * The batch problem and its decoder, written once for the host compiler
 * and for nvcc (every function is `__host__ __device__` there), so that a
 * candidate scores the same on a CPU core and on a GPU, to the unit.
 *
 * A batch problem: n jobs, each asking for `demand` GPUs (or other units)
 * of one of up to EVAL_MAX_TYPES pooled resource types for a run time that
 * may depend on the type (negative = not allowed there), released at
 * `release`, weighted by `weight`; the capacity of each type; and the
 * running jobs, which hold units until their expected ends.  Time is an
 * integer in the problem's own tick (the builder's choice: seconds for
 * traces), starting at 0 = now.
 *
 * A candidate: a permutation of the jobs plus, optionally, one placement
 * gene per job (the type it runs on).  The decoder is serial list
 * scheduling with non-decreasing starts: job perm[k] starts at the
 * earliest time t >= max(its release, the start of perm[k-1]) at which
 * its demand is free.  Because every job placed before it started at or
 * before t, the units in use can only fall after t, so "free at t" means
 * "free for the whole run" and one queue of end events suffices.  It is
 * an array sorted by end with a cursor (eval_sorted_insert): taking the
 * next end is a step of the cursor, and a new end moves the shorter side
 * of the few events in flight by one slot - cheaper than a binary heap,
 * whose every take costs log n unpredictable branches.  Every schedule can be reached this way (sort
 * any feasible schedule by start time: decoding that order starts every
 * job no later), so for makespan and weighted completion time the best
 * permutation is an optimal schedule.
 *
 * Node-level decoding (eval_decode_nodes) keeps the same rule but places
 * a job on nodes: one node (best fit: least leftover, ties by lowest
 * index) when it fits in one node of its type, else whole idle nodes,
 * lowest index first.  Placement then matters, so it is reported apart.
 *
 * Scores are int64, lower is better: makespan, total weighted completion
 * time, total JCT (mean JCT times n: the same order, exact), or a mix
 * mix_makespan * makespan + mix_twct * twct.  The same code runs on
 * both sides, so scores match exactly.
 */
#ifndef CLUSTERSIM_EVAL_DECODE_H
#define CLUSTERSIM_EVAL_DECODE_H

#include <stdint.h>

#ifdef __CUDACC__
#define EVAL_HD __host__ __device__ __forceinline__
#else
#define EVAL_HD static inline
#endif

#define EVAL_MAX_TYPES 8
/* A duration entry that is not allowed. */
#define EVAL_NOT_ALLOWED (-1)

enum eval_objective {
	EVAL_MAKESPAN = 0, /* the last completion */
	EVAL_TWCT,         /* sum of weight x completion */
	EVAL_JCT,          /* sum of completion - release (mean JCT x n) */
	EVAL_MIX,          /* mix_makespan x makespan + mix_twct x twct */
	EVAL_NOBJECTIVES
};

/* The problem: flat arrays so a copy can live on a device. */
struct eval_problem {
	uint32_t n;          /* jobs */
	uint32_t ntypes;     /* resource types, 1 .. EVAL_MAX_TYPES */
	uint32_t nrun;       /* running jobs */
	int32_t objective;   /* enum eval_objective */
	int64_t mix_makespan;/* weights of EVAL_MIX */
	int64_t mix_twct;
	int64_t cap[EVAL_MAX_TYPES]; /* pooled units of each type */
	const uint32_t *demand;  /* [n] units */
	const int64_t *dur;      /* [n * ntypes] run time on each type,
	                            EVAL_NOT_ALLOWED where it may not run */
	const int64_t *release;  /* [n] earliest start, >= 0 */
	const int64_t *weight;   /* [n] weight (>= 1) */
	const uint8_t *home;     /* [n] type used when there are no genes */
	const uint8_t *run_type; /* [nrun] type a running job holds */
	const uint32_t *run_units; /* [nrun] units it holds */
	const int64_t *run_end;  /* [nrun] expected end, > 0 */
	/* Node level (nnodes = 0: not set up). */
	uint32_t nnodes;         /* nodes */
	const uint32_t *node_cap; /* [nnodes] units per node */
	const uint8_t *node_type; /* [nnodes] type of each node */
	const uint32_t *run_node; /* [nrun] node a running job's units are
	                             on (a multi-node job: one entry each) */
	const uint32_t *node_off; /* [n + 1] offsets of each job's node list
	                             in the decoder's node scratch */
};

/* One end event in the decoder's queue. */
struct eval_ev {
	int64_t end;   /* when the units come back */
	uint32_t units;/* how many (pooled) */
	uint32_t who;  /* type (pooled) or job / n + running index (nodes) */
};

/* Scratch of one decoder call: (n + nrun) events; nodes: nnodes free
 * counts and node_off[n] node slots. */
struct eval_scratch {
	struct eval_ev *heap;    /* the end events (a sorted array) */
	uint32_t *node_free;     /* free units of each node */
	uint32_t *node_list;     /* each job's nodes, from node_off */
};

/*
 * Puts e into the events h[*lo, *hi), sorted by end, after those that end
 * no later.  When e goes into the lower half and a slot below *lo is
 * free, the events before it move down by one; else the events after it
 * move up by one.  Either way at most about half of them move.
 */
EVAL_HD void eval_sorted_insert(struct eval_ev *h, uint32_t *lo,
				uint32_t *hi, struct eval_ev e)
{
	uint32_t i, l = *lo, u = *hi;
	if (l > 0 && u > l && e.end < h[l + (u - l) / 2].end) {
		for (i = l; h[i].end <= e.end; i++)
			h[i - 1] = h[i];
		h[i - 1] = e;
		*lo = l - 1;
		return;
	}
	for (i = u; i > l && h[i - 1].end > e.end; i--)
		h[i] = h[i - 1];
	h[i] = e;
	*hi = u + 1;
}

/* The type job j runs on: its gene when given and allowed, else home. */
EVAL_HD uint32_t eval_job_type(const struct eval_problem *p,
			       const uint8_t *genes, uint32_t j)
{
	uint32_t t = genes ? genes[j] : p->home[j];
	if (t >= p->ntypes || p->dur[(uint64_t)j * p->ntypes + t] < 0)
		t = p->home[j];
	return t;
}

/* Adds job j's completion to the running totals. */
EVAL_HD void eval_account(const struct eval_problem *p, uint32_t j,
			  int64_t end, int64_t *mk, int64_t *twct,
			  int64_t *jct)
{
	if (end > *mk)
		*mk = end;
	*twct += p->weight[j] * end;
	*jct += end - p->release[j];
}

EVAL_HD int64_t eval_score_of(const struct eval_problem *p, int64_t mk,
			      int64_t twct, int64_t jct)
{
	switch (p->objective) {
	case EVAL_MAKESPAN:
		return mk;
	case EVAL_TWCT:
		return twct;
	case EVAL_JCT:
		return jct;
	default:
		return p->mix_makespan * mk + p->mix_twct * twct;
	}
}

/*
 * Pooled decoding of (perm, genes); genes may be NULL.  Writes start
 * times to start[j] (indexed by job) and types to type[j] when not NULL.
 * Returns the score.
 *
 * The end events live in s->heap as an array sorted by end, from a
 * cursor (lo, the next to come back) to hi.  Starts never go back, so an
 * event is only ever taken at the cursor; every event is stored once
 * and takes a slot below lo only when one was freed, so n + nrun slots
 * suffice.  Events that end together are all taken before a job is
 * tried, so their order among themselves changes no start.
 */
EVAL_HD int64_t eval_decode(const struct eval_problem *p,
			    const uint32_t *perm, const uint8_t *genes,
			    struct eval_scratch *s, int64_t *start,
			    uint8_t *type)
{
	int64_t freeu[EVAL_MAX_TYPES];
	struct eval_ev *h = s->heap;
	uint32_t lo = 0, hi = 0;
	int64_t now = 0, mk = 0, twct = 0, jct = 0;
	for (uint32_t t = 0; t < p->ntypes; t++)
		freeu[t] = p->cap[t];
	for (uint32_t r = 0; r < p->nrun; r++) {
		struct eval_ev e = { p->run_end[r], p->run_units[r],
				     p->run_type[r] };
		freeu[e.who] -= e.units;
		eval_sorted_insert(h, &lo, &hi, e);
	}
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = perm[k];
		uint32_t t = eval_job_type(p, genes, j);
		int64_t d = p->dur[(uint64_t)j * p->ntypes + t];
		int64_t need = p->demand[j];
		if (p->release[j] > now)
			now = p->release[j];
		while (lo < hi && h[lo].end <= now) {
			freeu[h[lo].who] += h[lo].units;
			lo++;
		}
		/* lo == hi with too little free: the job exceeds its type's
		 * capacity (the builder refuses such jobs). */
		while (freeu[t] < need && lo < hi) {
			now = h[lo].end;
			do {
				freeu[h[lo].who] += h[lo].units;
				lo++;
			} while (lo < hi && h[lo].end <= now);
		}
		freeu[t] -= need;
		struct eval_ev e = { now + d, (uint32_t)need, t };
		eval_sorted_insert(h, &lo, &hi, e);
		eval_account(p, j, now + d, &mk, &twct, &jct);
		if (start)
			start[j] = now;
		if (type)
			type[j] = (uint8_t)t;
	}
	return eval_score_of(p, mk, twct, jct);
}

/*
 * Node-level: can job j (needing `need` units on type t, whose largest
 * node has big units) be placed now?  Fills its nodes into list and
 * returns how many, or 0.  The best fit is the least (leftover, index)
 * pair, found without a branch per node.
 */
EVAL_HD uint32_t eval_nodes_pick(const struct eval_problem *p, uint32_t t,
				 uint32_t need, uint32_t big,
				 const uint32_t *nfree, uint32_t *list)
{
	if (need <= big) {
		uint64_t best = UINT64_MAX;
		for (uint32_t i = 0; i < p->nnodes; i++) {
			uint32_t f = nfree[i];
			uint64_t key = ((uint64_t)(f - need) << 32) | i;
			int ok = p->node_type[i] == t && f >= need;
			best = ok && key < best ? key : best;
		}
		if (best == UINT64_MAX)
			return 0;
		list[0] = (uint32_t)best;
		return 1;
	}
	/* Whole idle nodes, lowest index first. */
	uint32_t got = 0, cnt = 0;
	for (uint32_t i = 0; i < p->nnodes && got < need; i++) {
		if (p->node_type[i] != t || nfree[i] != p->node_cap[i] ||
		    nfree[i] == 0)
			continue;
		list[cnt++] = i;
		got += nfree[i];
	}
	return got >= need ? cnt : 0;
}

/* Gives back the units of event e (node level). */
EVAL_HD void eval_nodes_release(const struct eval_problem *p,
				const struct eval_scratch *s, uint32_t *nfree,
				struct eval_ev e)
{
	if (e.who >= p->n) {
		nfree[p->run_node[e.who - p->n]] += e.units;
		return;
	}
	const uint32_t *l = s->node_list + p->node_off[e.who];
	if (e.units == 1)
		nfree[l[0]] += p->demand[e.who];
	else
		for (uint32_t q = 0; q < e.units; q++)
			nfree[l[q]] = p->node_cap[l[q]];
}

/*
 * Node-level decoding: as eval_decode, with the units of each job on
 * nodes (see the top of the file), and its end events kept the same way.
 * p->nnodes must be > 0.
 */
EVAL_HD int64_t eval_decode_nodes(const struct eval_problem *p,
				  const uint32_t *perm, const uint8_t *genes,
				  struct eval_scratch *s, int64_t *start)
{
	struct eval_ev *h = s->heap;
	uint32_t *nfree = s->node_free;
	uint32_t lo = 0, hi = 0, big[EVAL_MAX_TYPES];
	int64_t now = 0, mk = 0, twct = 0, jct = 0;
	for (uint32_t t = 0; t < EVAL_MAX_TYPES; t++)
		big[t] = 0;
	for (uint32_t i = 0; i < p->nnodes; i++) {
		uint32_t t = p->node_type[i];
		nfree[i] = p->node_cap[i];
		if (t < EVAL_MAX_TYPES && p->node_cap[i] > big[t])
			big[t] = p->node_cap[i];
	}
	for (uint32_t r = 0; r < p->nrun; r++) {
		struct eval_ev e = { p->run_end[r], p->run_units[r],
				     p->n + r };
		nfree[p->run_node[r]] -= e.units;
		eval_sorted_insert(h, &lo, &hi, e);
	}
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = perm[k];
		uint32_t t = eval_job_type(p, genes, j);
		int64_t d = p->dur[(uint64_t)j * p->ntypes + t];
		uint32_t need = p->demand[j], cnt;
		uint32_t *list = s->node_list + p->node_off[j];
		if (p->release[j] > now)
			now = p->release[j];
		while (lo < hi && h[lo].end <= now)
			eval_nodes_release(p, s, nfree, h[lo++]);
		for (;;) {
			cnt = eval_nodes_pick(p, t, need, big[t], nfree, list);
			if (cnt > 0 || lo == hi)
				break;
			now = h[lo].end;
			do
				eval_nodes_release(p, s, nfree, h[lo++]);
			while (lo < hi && h[lo].end <= now);
		}
		/* A job event's units count its nodes: one node gives back
		 * the job's demand, several are whole nodes. */
		if (cnt == 1)
			nfree[list[0]] -= need;
		for (uint32_t q = 0; cnt > 1 && q < cnt; q++)
			nfree[list[q]] = 0;
		struct eval_ev e = { now + d, cnt, j };
		eval_sorted_insert(h, &lo, &hi, e);
		eval_account(p, j, now + d, &mk, &twct, &jct);
		if (start)
			start[j] = now;
	}
	return eval_score_of(p, mk, twct, jct);
}

#endif
