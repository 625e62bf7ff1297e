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
 * "free for the whole run" and one min-heap of end events suffices:
 * O(n log n) a candidate.  Every schedule can be reached this way (sort
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
 * mix_makespan * makespan + mix_twct * twct.  Heap ties are broken by
 * the same code on both sides, so scores match exactly.
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

/* One end event in the decoder's heap. */
struct eval_ev {
	int64_t end;   /* when the units come back */
	uint32_t units;/* how many (pooled) */
	uint32_t who;  /* type (pooled) or job / n + running index (nodes) */
};

/* Scratch of one decoder call: (n + nrun) events; nodes: nnodes free
 * counts and node_off[n] node slots. */
struct eval_scratch {
	struct eval_ev *heap;
	uint32_t *node_free;
	uint32_t *node_list;
};

EVAL_HD void eval_heap_push(struct eval_ev *h, uint32_t *len,
			    struct eval_ev e)
{
	uint32_t i = (*len)++;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (h[p].end <= e.end)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

EVAL_HD struct eval_ev eval_heap_pop(struct eval_ev *h, uint32_t *len)
{
	struct eval_ev top = h[0], last = h[--*len];
	uint32_t i = 0, m = *len;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= m)
			break;
		if (c + 1 < m && h[c + 1].end < h[c].end)
			c++;
		if (h[c].end >= last.end)
			break;
		h[i] = h[c];
		i = c;
	}
	if (m > 0)
		h[i] = last;
	return top;
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
 */
EVAL_HD int64_t eval_decode(const struct eval_problem *p,
			    const uint32_t *perm, const uint8_t *genes,
			    struct eval_scratch *s, int64_t *start,
			    uint8_t *type)
{
	int64_t freeu[EVAL_MAX_TYPES];
	struct eval_ev *h = s->heap;
	uint32_t len = 0;
	int64_t now = 0, mk = 0, twct = 0, jct = 0;
	for (uint32_t t = 0; t < p->ntypes; t++)
		freeu[t] = p->cap[t];
	for (uint32_t r = 0; r < p->nrun; r++) {
		struct eval_ev e = { p->run_end[r], p->run_units[r],
				     p->run_type[r] };
		freeu[e.who] -= e.units;
		eval_heap_push(h, &len, e);
	}
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = perm[k];
		uint32_t t = eval_job_type(p, genes, j);
		int64_t d = p->dur[(uint64_t)j * p->ntypes + t];
		int64_t need = p->demand[j];
		if (p->release[j] > now)
			now = p->release[j];
		for (;;) {
			while (len > 0 && h[0].end <= now) {
				struct eval_ev e = eval_heap_pop(h, &len);
				freeu[e.who] += e.units;
			}
			if (freeu[t] >= need || len == 0)
				break;
			now = h[0].end;
		}
		/* len == 0 with too little free: the job exceeds its type's
		 * capacity (the builder refuses such jobs). */
		freeu[t] -= need;
		struct eval_ev e = { now + d, (uint32_t)need, t };
		eval_heap_push(h, &len, e);
		eval_account(p, j, now + d, &mk, &twct, &jct);
		if (start)
			start[j] = now;
		if (type)
			type[j] = (uint8_t)t;
	}
	return eval_score_of(p, mk, twct, jct);
}

/* Node-level: can job j (needing `need` units on type t) be placed now?
 * Fills its nodes into list and returns how many, or 0. */
EVAL_HD uint32_t eval_nodes_pick(const struct eval_problem *p, uint32_t t,
				 uint32_t need, const uint32_t *nfree,
				 uint32_t *list)
{
	uint32_t best = UINT32_MAX, bestleft = UINT32_MAX, big = 0;
	for (uint32_t i = 0; i < p->nnodes; i++) {
		if (p->node_type[i] != t)
			continue;
		if (p->node_cap[i] > big)
			big = p->node_cap[i];
		if (nfree[i] >= need && nfree[i] - need < bestleft) {
			bestleft = nfree[i] - need;
			best = i;
		}
	}
	if (need <= big) {
		if (best == UINT32_MAX)
			return 0;
		list[0] = best;
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

/*
 * Node-level decoding: as eval_decode, with the units of each job on
 * nodes (see the top of the file).  p->nnodes must be > 0.
 */
EVAL_HD int64_t eval_decode_nodes(const struct eval_problem *p,
				  const uint32_t *perm, const uint8_t *genes,
				  struct eval_scratch *s, int64_t *start)
{
	struct eval_ev *h = s->heap;
	uint32_t *nfree = s->node_free;
	uint32_t len = 0;
	int64_t now = 0, mk = 0, twct = 0, jct = 0;
	for (uint32_t i = 0; i < p->nnodes; i++)
		nfree[i] = p->node_cap[i];
	for (uint32_t r = 0; r < p->nrun; r++) {
		struct eval_ev e = { p->run_end[r], p->run_units[r],
				     p->n + r };
		nfree[p->run_node[r]] -= e.units;
		eval_heap_push(h, &len, e);
	}
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = perm[k];
		uint32_t t = eval_job_type(p, genes, j);
		int64_t d = p->dur[(uint64_t)j * p->ntypes + t];
		uint32_t need = p->demand[j], cnt;
		uint32_t *list = s->node_list + p->node_off[j];
		if (p->release[j] > now)
			now = p->release[j];
		for (;;) {
			while (len > 0 && h[0].end <= now) {
				struct eval_ev e = eval_heap_pop(h, &len);
				if (e.who >= p->n) {
					nfree[p->run_node[e.who - p->n]] +=
						e.units;
					continue;
				}
				uint32_t *l = s->node_list +
					      p->node_off[e.who];
				if (e.units == 1)
					nfree[l[0]] += p->demand[e.who];
				else
					for (uint32_t q = 0; q < e.units; q++)
						nfree[l[q]] = p->node_cap[l[q]];
			}
			cnt = eval_nodes_pick(p, t, need, nfree, list);
			if (cnt > 0 || len == 0)
				break;
			now = h[0].end;
		}
		/* A job event's units count its nodes: one node gives back
		 * the job's demand, several are whole nodes. */
		if (cnt == 1)
			nfree[list[0]] -= need;
		for (uint32_t q = 0; cnt > 1 && q < cnt; q++)
			nfree[list[q]] = 0;
		struct eval_ev e = { now + d, cnt, j };
		eval_heap_push(h, &len, e);
		eval_account(p, j, now + d, &mk, &twct, &jct);
		if (start)
			start[j] = now;
	}
	return eval_score_of(p, mk, twct, jct);
}

#endif
