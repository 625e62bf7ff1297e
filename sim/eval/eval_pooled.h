/*
 * The pooled decoder (eval_decode.h has the problem, the event queue and
 * the node-level decoder), written once for the host compiler and nvcc.
 *
 * A decode is a chain: each job's start depends on the queue that the
 * job before it left, so one decode runs at the latency of that chain
 * (taking events, the insertion's vector operations, the reload of what
 * the insertion stored), with most of a core's units idle.  So the
 * decode is a state advanced one job at a time (eval_pooled_step), and
 * the host's CPU backend advances two candidates' states in one loop
 * (eval_decode2_isa): their chains are independent, so the core runs one
 * while the other waits.  Each candidate's state is the one a decode of
 * it alone goes through, so its score is the same to the unit.
 */
#ifndef CLUSTERSIM_EVAL_POOLED_H
#define CLUSTERSIM_EVAL_POOLED_H

#include "eval/eval_decode.h"

/* The problem's fields a step reads, in locals: the queue's vector
 * stores may alias anything, which would reload every field after each
 * insertion. */
struct eval_pooled_ctx {
	const uint32_t *demand; /* p->demand */
	const int64_t *dur;     /* p->dur */
	const int64_t *release; /* p->release */
	const int64_t *weight;  /* p->weight */
	uint32_t nt;            /* types (1 in the one-type body) */
	uint32_t sh;            /* eval_pooled_shift */
	int64_t umask;          /* the units field of a key */
};

/* One candidate's decode in progress. */
struct eval_pooled {
	int64_t *h;      /* the end events (a sorted array) */
	uint32_t lo, hi; /* the cursor (the next event to end) and the end */
	int64_t now;     /* the last start */
	int64_t fr;      /* free units of the one type (one-type body) */
	int64_t freeu[EVAL_MAX_TYPES]; /* free units of each type (else) */
	int64_t mk, twct, jct; /* makespan, weighted and plain completions */
};

EVAL_HD_ALWAYS void eval_pooled_ctx_init(const struct eval_problem *p,
					 struct eval_pooled_ctx *c, int one)
{
	c->demand = p->demand;
	c->dur = p->dur;
	c->release = p->release;
	c->weight = p->weight;
	c->nt = one ? 1 : p->ntypes;
	c->sh = eval_pooled_shift(p);
	c->umask = ((int64_t)1 << (c->sh - 3)) - 1;
}

/* Starts a decode in s: every unit free but the running jobs'. */
EVAL_HD_ALWAYS void eval_pooled_begin(const struct eval_problem *p,
				      const struct eval_pooled_ctx *c,
				      struct eval_scratch *s,
				      struct eval_pooled *d, int isa)
{
	d->h = eval_queue_start(p, s, isa);
	d->lo = d->hi = 0;
	d->now = d->mk = d->twct = d->jct = 0;
	for (uint32_t t = 0; t < c->nt; t++)
		d->freeu[t] = p->cap[t];
	for (uint32_t r = 0; r < p->nrun; r++) {
		d->freeu[p->run_type[r]] -= p->run_units[r];
		eval_queue_put(d->h, &d->lo, &d->hi,
			       eval_key(p->run_end[r], c->sh,
					(uint64_t)p->run_units[r] << 3 |
						p->run_type[r]),
			       isa);
	}
	d->fr = d->freeu[0];
}

/*
 * Places job j on type t: it starts at the earliest time from the last
 * start and its release when its units are free (see eval_decode.h).
 * Returns its start.  one: the problem has one type (a constant where
 * inlined), so the free units stay in fr and no event's type is read.
 *
 * The end events live in d->h as an array sorted by end, from a cursor
 * (lo, the next to come back) to hi.  Starts never go back, so an event
 * is only ever taken at the cursor; every event is stored once and takes
 * a slot below lo only when one was freed, so n + nrun slots (and the
 * vectors' pad) suffice.  Events that end together are all taken before
 * a job is tried, so their order among themselves changes no start.  The
 * vector forms keep EVAL_KEY_END from hi on, whose end is later than any
 * time the problem reaches (eval_end_limit), so the cursor stops there
 * without a bound check.
 */
EVAL_HD_ALWAYS int64_t eval_pooled_step(const struct eval_pooled_ctx *c,
					struct eval_pooled *d, uint32_t j,
					uint32_t t, int isa, int one)
{
	const uint32_t sh = c->sh;
	const int64_t *h = d->h;
	int64_t dj = c->dur[(uint64_t)j * c->nt + t];
	int64_t need = c->demand[j], rel = c->release[j];
	int64_t *f = one ? &d->fr : &d->freeu[t];
	int64_t now = d->now > rel ? d->now : rel;
	uint32_t lo = d->lo;
	/* Takes every event that has ended by now; then, while too few
	 * units are free, moves now to the next end. */
	for (; isa != EVAL_ISA_PLAIN || lo < d->hi; lo++) {
		int64_t key = h[lo], e = key >> sh;
		if (e > now) {
			/* lo == hi with too little free: the job exceeds its
			 * type's capacity (the builder refuses such jobs). */
			if (*f >= need || lo == d->hi)
				break;
			now = e;
		}
		if (one)
			d->fr += key >> 3 & c->umask;
		else
			d->freeu[key & 7] += key >> 3 & c->umask;
	}
	d->lo = lo;
	*f -= need;
	eval_queue_put(d->h, &d->lo, &d->hi,
		       eval_key(now + dj, sh, (uint64_t)need << 3 | t), isa);
	if (now + dj > d->mk)
		d->mk = now + dj;
	d->twct += c->weight[j] * (now + dj);
	d->jct += now + dj - rel;
	d->now = now;
	return now;
}

#ifdef EVAL_X86
/*
 * Narrow events (eval_decode.h, eval_narrow_fits): the decode of a
 * problem of one type with each event a uint32 and the AVX-512
 * insertion of 16 events a vector; otherwise eval_pooled_step's rule and
 * state.  A step keeps only the totals its objective obj (a constant
 * where inlined) reads: the others cost 5% of a 100-job decode.
 */
struct eval_narrow {
	uint32_t *h;     /* the end events */
	uint32_t lo, hi; /* the cursor and the end */
	uint32_t sh;     /* eval_narrow_shift */
	int64_t now, fr; /* the last start, free units */
	int64_t mk, twct, jct;
};

__attribute__((target("avx512f"), always_inline))
static inline void eval_narrow_begin(const struct eval_problem *p,
				     struct eval_scratch *s,
				     struct eval_narrow *d)
{
	d->h = eval_queue32_start(p, s);
	d->lo = d->hi = 0;
	d->sh = eval_narrow_shift(p);
	d->now = d->mk = d->twct = d->jct = 0;
	d->fr = p->cap[0];
	for (uint32_t r = 0; r < p->nrun; r++) {
		d->fr -= p->run_units[r];
		eval_queue32_put_avx512(d->h, d->lo, &d->hi,
					(uint32_t)((uint64_t)p->run_end[r]
							   << d->sh |
						   p->run_units[r]));
	}
}

__attribute__((target("avx512f"), always_inline))
static inline int64_t eval_narrow_step(const struct eval_pooled_ctx *c,
				       struct eval_narrow *d, uint32_t j,
				       int obj)
{
	const uint32_t sh = d->sh, umask = ((uint32_t)1 << sh) - 1;
	const uint32_t *h = d->h;
	int64_t dj = c->dur[j], need = c->demand[j], rel = c->release[j];
	int64_t now = d->now > rel ? d->now : rel, fr = d->fr;
	uint32_t lo = d->lo;
	for (;; lo++) {
		uint32_t key = h[lo];
		int64_t e = key >> sh;
		if (e > now) {
			if (fr >= need || lo == d->hi)
				break;
			now = e;
		}
		fr += key & umask;
	}
	d->lo = lo;
	d->fr = fr - need;
	eval_queue32_put_avx512(d->h, lo, &d->hi,
				(uint32_t)((uint64_t)(now + dj) << sh |
					   (uint64_t)need));
	if (obj == EVAL_MAKESPAN || obj == EVAL_MIX)
		d->mk = now + dj > d->mk ? now + dj : d->mk;
	if (obj == EVAL_TWCT || obj == EVAL_MIX)
		d->twct += c->weight[j] * (now + dj);
	if (obj == EVAL_JCT)
		d->jct += now + dj - rel;
	d->now = now;
	return now;
}

/* eval_decode_body with narrow events (p fits; its type is 0), for the
 * objective obj. */
__attribute__((target("avx512f"), always_inline))
static inline int64_t eval_narrow_body(const struct eval_problem *p,
				       const uint32_t *perm,
				       struct eval_scratch *s, int64_t *start,
				       uint8_t *type, int obj)
{
	struct eval_pooled_ctx c;
	struct eval_narrow d;
	eval_pooled_ctx_init(p, &c, 1);
	eval_narrow_begin(p, s, &d);
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = perm[k];
		int64_t at = eval_narrow_step(&c, &d, j, obj);
		if (start)
			start[j] = at;
		if (type)
			type[j] = 0;
	}
	return eval_score_of(p, d.mk, d.twct, d.jct);
}

/* eval_decode2_body with narrow events, for the objective obj. */
__attribute__((target("avx512f"), always_inline))
static inline void eval_narrow2_body(const struct eval_problem *p,
				     const uint32_t *pa,
				     struct eval_scratch *sa,
				     const uint32_t *pb,
				     struct eval_scratch *sb, int64_t *sc,
				     int obj)
{
	struct eval_pooled_ctx c;
	struct eval_narrow a, b;
	eval_pooled_ctx_init(p, &c, 1);
	eval_narrow_begin(p, sa, &a);
	eval_narrow_begin(p, sb, &b);
	for (uint32_t k = 0; k < p->n; k++) {
		eval_narrow_step(&c, &a, pa[k], obj);
		eval_narrow_step(&c, &b, pb[k], obj);
	}
	sc[0] = eval_score_of(p, a.mk, a.twct, a.jct);
	sc[1] = eval_score_of(p, b.mk, b.twct, b.jct);
}

/* The narrow decoders: a body for each objective. */
__attribute__((target("avx512f"), always_inline))
static inline int64_t eval_decode_narrow(const struct eval_problem *p,
					 const uint32_t *perm,
					 struct eval_scratch *s,
					 int64_t *start, uint8_t *type)
{
	switch (p->objective) {
	case EVAL_MAKESPAN:
		return eval_narrow_body(p, perm, s, start, type,
					EVAL_MAKESPAN);
	case EVAL_TWCT:
		return eval_narrow_body(p, perm, s, start, type, EVAL_TWCT);
	case EVAL_JCT:
		return eval_narrow_body(p, perm, s, start, type, EVAL_JCT);
	default:
		return eval_narrow_body(p, perm, s, start, type, EVAL_MIX);
	}
}

__attribute__((target("avx512f"), always_inline))
static inline void eval_decode2_narrow(const struct eval_problem *p,
				       const uint32_t *pa,
				       struct eval_scratch *sa,
				       const uint32_t *pb,
				       struct eval_scratch *sb, int64_t *sc)
{
	switch (p->objective) {
	case EVAL_MAKESPAN:
		eval_narrow2_body(p, pa, sa, pb, sb, sc, EVAL_MAKESPAN);
		break;
	case EVAL_TWCT:
		eval_narrow2_body(p, pa, sa, pb, sb, sc, EVAL_TWCT);
		break;
	case EVAL_JCT:
		eval_narrow2_body(p, pa, sa, pb, sb, sc, EVAL_JCT);
		break;
	default:
		eval_narrow2_body(p, pa, sa, pb, sb, sc, EVAL_MIX);
	}
}
#endif

/*
 * Pooled decoding of (perm, genes); genes may be NULL.  Writes start
 * times to start[j] (indexed by job) and types to type[j] when not NULL.
 * Returns the score.  isa picks the queue's insertion (a constant: see
 * eval_decode and eval.c).
 */
EVAL_HD_ALWAYS int64_t eval_decode_body(const struct eval_problem *p,
					const uint32_t *perm,
					const uint8_t *genes,
					struct eval_scratch *s, int64_t *start,
					uint8_t *type, int isa, int one)
{
	struct eval_pooled_ctx c;
	struct eval_pooled d;
	eval_pooled_ctx_init(p, &c, one);
	eval_pooled_begin(p, &c, s, &d, isa);
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = perm[k];
		uint32_t t = one ? 0 : eval_job_type(p, genes, j);
		int64_t at = eval_pooled_step(&c, &d, j, t, isa, one);
		if (start)
			start[j] = at;
		if (type)
			type[j] = (uint8_t)t;
	}
	return eval_score_of(p, d.mk, d.twct, d.jct);
}

/* The decoder body for p's number of types. */
EVAL_HD_ALWAYS int64_t eval_decode_isa(const struct eval_problem *p,
				       const uint32_t *perm,
				       const uint8_t *genes,
				       struct eval_scratch *s, int64_t *start,
				       uint8_t *type, int isa)
{
	if (p->ntypes == 1)
		return eval_decode_body(p, perm, genes, s, start, type, isa,
					1);
	return eval_decode_body(p, perm, genes, s, start, type, isa, 0);
}

/* The portable pooled decoder (the one the CUDA build runs). */
EVAL_HD int64_t eval_decode(const struct eval_problem *p,
			    const uint32_t *perm, const uint8_t *genes,
			    struct eval_scratch *s, int64_t *start,
			    uint8_t *type)
{
	return eval_decode_isa(p, perm, genes, s, start, type,
			       EVAL_ISA_PLAIN);
}

/* Two candidates (a and b, each with its genes, which may be NULL, and
 * its scratch) decoded in one loop, a job of each at a time: their
 * scores into sc[0] and sc[1]. */
EVAL_HD_ALWAYS void eval_decode2_body(const struct eval_problem *p,
				      const uint32_t *pa, const uint8_t *ga,
				      struct eval_scratch *sa,
				      const uint32_t *pb, const uint8_t *gb,
				      struct eval_scratch *sb, int64_t *sc,
				      int isa, int one)
{
	struct eval_pooled_ctx c;
	struct eval_pooled a, b;
	eval_pooled_ctx_init(p, &c, one);
	eval_pooled_begin(p, &c, sa, &a, isa);
	eval_pooled_begin(p, &c, sb, &b, isa);
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t ja = pa[k], jb = pb[k];
		eval_pooled_step(&c, &a, ja, one ? 0 : eval_job_type(p, ga, ja),
				 isa, one);
		eval_pooled_step(&c, &b, jb, one ? 0 : eval_job_type(p, gb, jb),
				 isa, one);
	}
	sc[0] = eval_score_of(p, a.mk, a.twct, a.jct);
	sc[1] = eval_score_of(p, b.mk, b.twct, b.jct);
}

EVAL_HD_ALWAYS void eval_decode2_isa(const struct eval_problem *p,
				     const uint32_t *pa, const uint8_t *ga,
				     struct eval_scratch *sa,
				     const uint32_t *pb, const uint8_t *gb,
				     struct eval_scratch *sb, int64_t *sc,
				     int isa)
{
	if (p->ntypes == 1)
		eval_decode2_body(p, pa, ga, sa, pb, gb, sb, sc, isa, 1);
	else
		eval_decode2_body(p, pa, ga, sa, pb, gb, sb, sc, isa, 0);
}

#endif
