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
 * "free for the whole run" and one queue of end events suffices.  Every
 * schedule can be reached this way (sort any feasible schedule by start
 * time: decoding that order starts every job no later), so for makespan
 * and weighted completion time the best permutation is an optimal
 * schedule.
 *
 * The queue is an array sorted by end with a cursor: taking the next end
 * is a step of the cursor, and a new end is inserted by moving events -
 * cheaper than a binary heap, whose every take costs log n unpredictable
 * branches.  Each event is one int64 key, the end above a small payload,
 * so an insertion moves 8 bytes an event (4 for a problem of one type
 * whose ends fit in 32 bits: narrow events, below).  The insertion comes in a
 * portable form (move the shorter side by one slot) and, for x86-64
 * hosts, in AVX2 and AVX-512 forms that rewrite every event in flight
 * with no branch on where the new one goes; eval.c runs the best the CPU
 * has, the CUDA build the portable one.  The packing bounds the ends:
 * eval_inst_finish refuses a problem whose latest possible end does not
 * fit (about 2^47 ticks, millions of years in seconds, with up to 8,191
 * units of a type and 65,535 jobs).
 *
 * The pooled decoder itself, a step per job, is in eval_pooled.h.
 *
 * Node-level decoding (eval_decode_nodes) keeps the same rule but places
 * a job on nodes: one node (best fit: least leftover, ties by lowest
 * index) when it fits in one node of its type, else whole idle nodes,
 * lowest index first.  Placement then matters, so it is reported apart.
 * A job that has to wait tries again at every end until it fits, so the
 * nodes are kept in an index - per type, bitsets of the nodes by free
 * units and of the idle ones - that answers a try with a few word
 * operations instead of a pass over every node.
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
#define EVAL_HD_ALWAYS EVAL_HD
#else
#define EVAL_HD static inline
/* Inlined even into the callers compiled for other instruction sets, so
 * that each gets its own copy of the decoder. */
#define EVAL_HD_ALWAYS static inline __attribute__((always_inline))
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

/*
 * The instruction sets the event queue's insertion is written for.  Every
 * one leaves the same sorted run of keys from the cursor on, so the
 * scores do not depend on which runs.  The vector ones exist on x86-64
 * host compilers only; eval.c picks the best the CPU has.
 */
enum eval_isa {
	EVAL_ISA_PLAIN = 0, /* portable C, the CUDA build's */
	EVAL_ISA_AVX2,      /* 4 events a vector */
	EVAL_ISA_AVX512,    /* 8 events a vector (AVX-512F) */
	EVAL_ISA_AVX512_32, /* 16 narrow events a vector where they fit
	                       (eval_narrow_fits), else as EVAL_ISA_AVX512 */
	EVAL_NISAS
};

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#define EVAL_X86 1
#include <immintrin.h>
#include <string.h>
#endif

/* Slots of the event queue past one per job and running job: room to
 * align it for the vector insertions and to let them run past its end. */
#define EVAL_QUEUE_PAD 32
/* The key that sorts after every event. */
#define EVAL_KEY_END INT64_C(0x7f7f7f7f7f7f7f7f)

/* Scratch of one decoder call, its arrays as long as
 * eval_scratch_size_of() says. */
struct eval_scratch {
	int64_t *ev;             /* the end events (a sorted array) */
	uint32_t *node_free;     /* free units of each node */
	uint32_t *node_list;     /* each job's nodes, from node_off */
	uint64_t *node_bits;     /* the node index (struct eval_ntype) */
};

/* The events a decoder call's scratch holds. */
EVAL_HD uint64_t eval_queue_slots(const struct eval_problem *p)
{
	return (uint64_t)p->n + p->nrun + EVAL_QUEUE_PAD;
}

/* Bits needed to write v. */
EVAL_HD uint32_t eval_bits(uint64_t v)
{
#if defined(__CUDA_ARCH__)
	return 64 - (uint32_t)__clzll((long long)v);
#elif defined(__GNUC__)
	return v ? 64 - (uint32_t)__builtin_clzll(v) : 0;
#else
	uint32_t b = 0;
	for (; v; v >>= 1)
		b++;
	return b;
#endif
}

/*
 * An end event is one int64 key, end << shift | payload, so that keys
 * sort by end and an insertion moves 8 bytes an event.  Pooled, the
 * payload is units << 3 | type, and no job or running job holds more
 * units than its type has; on nodes it is who (a job, or n + a running
 * job).
 */
EVAL_HD uint32_t eval_pooled_shift(const struct eval_problem *p)
{
	int64_t most = 1;
	for (uint32_t t = 0; t < p->ntypes; t++)
		most = p->cap[t] > most ? p->cap[t] : most;
	return 3 + eval_bits(most < UINT32_MAX ? (uint64_t)most : UINT32_MAX);
}

EVAL_HD uint32_t eval_nodes_shift(const struct eval_problem *p)
{
	return eval_bits((uint64_t)p->n + p->nrun);
}

/*
 * The ends the packing can hold: every end must stay below this (and so
 * every key below EVAL_KEY_END), which eval_inst_finish checks once per
 * problem against the latest end any candidate can reach.
 */
EVAL_HD int64_t eval_end_limit(const struct eval_problem *p)
{
	uint32_t a = eval_pooled_shift(p), b = eval_nodes_shift(p);
	return EVAL_KEY_END >> (a > b ? a : b);
}

/*
 * A bound on every end any candidate of p can reach, capped at
 * eval_end_limit(p): a job starts by the latest release or running end
 * plus the runs placed before it, so that plus every job's longest
 * allowed run bounds them.  A problem whose bound reaches the limit
 * cannot be decoded (eval_inst_finish and eval_new refuse it).
 */
EVAL_HD int64_t eval_latest_end(const struct eval_problem *p)
{
	int64_t last = 0, lim = eval_end_limit(p);
	for (uint32_t r = 0; r < p->nrun; r++)
		last = p->run_end[r] > last ? p->run_end[r] : last;
	for (uint32_t j = 0; j < p->n; j++)
		last = p->release[j] > last ? p->release[j] : last;
	for (uint32_t j = 0; j < p->n && last < lim; j++) {
		int64_t most = 0;
		for (uint32_t t = 0; t < p->ntypes; t++) {
			int64_t d = p->dur[(uint64_t)j * p->ntypes + t];
			most = d > most ? d : most;
		}
		last = most < lim - last ? last + most : lim;
	}
	return last < lim ? last : lim;
}

EVAL_HD int64_t eval_key(int64_t end, uint32_t shift, uint64_t payload)
{
	return (int64_t)((uint64_t)end << shift | payload);
}

/*
 * Puts key into the events q[*lo, *hi), sorted, after those that are no
 * greater.  When it goes into the lower half and a slot below *lo is
 * free, the events before it move down by one; else the events after it
 * move up by one.  Either way at most about half of them move.
 */
EVAL_HD void eval_queue_put_plain(int64_t *q, uint32_t *lo, uint32_t *hi,
				  int64_t key)
{
	uint32_t i, l = *lo, u = *hi;
	if (l > 0 && u > l && key < q[l + (u - l) / 2]) {
		for (i = l; q[i] <= key; i++)
			q[i - 1] = q[i];
		q[i - 1] = key;
		*lo = l - 1;
		return;
	}
	for (i = u; i > l && q[i - 1] > key; i--)
		q[i] = q[i - 1];
	q[i] = key;
	*hi = u + 1;
}

/*
 * The vector insertions leave the taken slots alone and rewrite every
 * event in flight instead of moving some: slot i gets the old event i
 * when that is no greater than key, else the old event i - 1 when that
 * is greater, else key.  No branch depends on where key goes, and an
 * insertion is a few vector operations per 4 or 8 events - cheaper than
 * the mispredicted exits of a moving loop for the tens of events a batch
 * keeps in flight.  The vectors are aligned, so each reloads what the
 * last insertion stored at the same address, and lanes below lo (taken
 * events, which may equal key when a run takes no time) never move up.
 * The queue holds EVAL_KEY_END from hi to past the last vector.
 */
#ifdef EVAL_X86
__attribute__((target("avx2")))
static inline void eval_queue_put_avx2(int64_t *q, uint32_t lo,
				       uint32_t *hi, int64_t key)
{
	const __m256i k = _mm256_set1_epi64x(key);
	const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
	const __m256i below = _mm256_set1_epi64x(lo & 7);
	/* Which lanes of the first two vectors may take their left
	 * neighbour: those above lo. */
	__m256i ok0 = _mm256_cmpgt_epi64(lane, below);
	__m256i ok1 = _mm256_cmpgt_epi64(
		_mm256_add_epi64(lane, _mm256_set1_epi64x(4)), below);
	__m256i prev = _mm256_set1_epi64x(INT64_MIN);
	uint32_t top = *hi;
	for (uint32_t i = lo & ~7u; i <= top; i += 8) {
		__m256i *v = (__m256i *)(q + i);
		__m256i a = _mm256_load_si256(v), b = _mm256_load_si256(v + 1);
		/* Each vector shifted up one lane, the lane below filling in. */
		__m256i as = _mm256_alignr_epi8(a,
			_mm256_permute2x128_si256(prev, a, 0x21), 8);
		__m256i bs = _mm256_alignr_epi8(b,
			_mm256_permute2x128_si256(a, b, 0x21), 8);
		__m256i am = _mm256_and_si256(_mm256_cmpgt_epi64(as, k), ok0);
		__m256i bm = _mm256_and_si256(_mm256_cmpgt_epi64(bs, k), ok1);
		__m256i an = _mm256_blendv_epi8(k, as, am);
		__m256i bn = _mm256_blendv_epi8(k, bs, bm);
		_mm256_store_si256(v, _mm256_blendv_epi8(
			a, an, _mm256_cmpgt_epi64(a, k)));
		_mm256_store_si256(v + 1, _mm256_blendv_epi8(
			b, bn, _mm256_cmpgt_epi64(b, k)));
		prev = b;
		ok0 = ok1 = _mm256_set1_epi64x(-1);
	}
	*hi = top + 1;
}

__attribute__((target("avx512f")))
static inline void eval_queue_put_avx512(int64_t *q, uint32_t lo,
					 uint32_t *hi, int64_t key)
{
	const __m512i k = _mm512_set1_epi64(key);
	/* Lanes of the first vector that may take their left neighbour. */
	const __mmask8 ok = (__mmask8)(0xfe << (lo & 7));
	uint32_t top = *hi, i = lo & ~7u;
	/* The first 16 events, whose first vector holds the cursor: the
	 * rule above is min(a, max(as, key)), sorted as they are, and a
	 * lane that may not move up takes min(a, key). */
	__m512i a = _mm512_load_si512(q + i);
	__m512i b = _mm512_load_si512(q + i + 8);
	__m512i as = _mm512_alignr_epi64(a, a, 7);
	__m512i bs = _mm512_alignr_epi64(b, a, 7);
	_mm512_store_si512(q + i, _mm512_min_epi64(
		a, _mm512_mask_max_epi64(k, ok, as, k)));
	_mm512_store_si512(q + i + 8,
			   _mm512_min_epi64(b, _mm512_max_epi64(bs, k)));
	for (i += 16; i <= top; i += 16) {
		__m512i prev = b;
		a = _mm512_load_si512(q + i);
		b = _mm512_load_si512(q + i + 8);
		as = _mm512_alignr_epi64(a, prev, 7);
		bs = _mm512_alignr_epi64(b, a, 7);
		_mm512_store_si512(q + i,
				   _mm512_min_epi64(a, _mm512_max_epi64(as, k)));
		_mm512_store_si512(q + i + 8,
				   _mm512_min_epi64(b, _mm512_max_epi64(bs, k)));
	}
	*hi = top + 1;
}
#endif

/*
 * Narrow events: a pooled problem of one type whose every end fits in 32
 * bits beside the units (eval_narrow_fits) keeps each event as one
 * uint32, end << shift | units (its only type needs no bits), so that a
 * vector holds 16 and an insertion touches half the vectors: a 100-job
 * batch's 40 to 60 events in flight are then the two vectors the
 * insertion rewrites before its loop, which rarely runs.  The key that
 * sorts after every event is UINT32_MAX, whose end is past every end the
 * problem reaches.  AVX-512 only; other hosts and larger problems keep
 * the int64 events.
 */
EVAL_HD uint32_t eval_narrow_shift(const struct eval_problem *p)
{
	return eval_bits(p->cap[0] > 0 && p->cap[0] < UINT32_MAX ?
				 (uint64_t)p->cap[0] : UINT32_MAX);
}

/* Can p's pooled events be narrow?  O(n): callers check once a problem. */
EVAL_HD int eval_narrow_fits(const struct eval_problem *p)
{
	uint32_t sh = eval_narrow_shift(p);
	return p->ntypes == 1 && sh < 32 &&
	       eval_latest_end(p) < ((int64_t)1 << (32 - sh)) - 1;
}

#ifdef EVAL_X86
/* eval_queue_put_avx512 for narrow events: the same rule, 16 a vector,
 * the first 32 (whose first vector holds the cursor) peeled off. */
__attribute__((target("avx512f")))
static inline void eval_queue32_put_avx512(uint32_t *q, uint32_t lo,
					   uint32_t *hi, uint32_t key)
{
	const __m512i k = _mm512_set1_epi32((int)key);
	const __mmask16 ok = (__mmask16)(0xfffe << (lo & 15));
	uint32_t top = *hi, i = lo & ~15u;
	__m512i a = _mm512_load_si512(q + i);
	__m512i b = _mm512_load_si512(q + i + 16);
	__m512i as = _mm512_alignr_epi32(a, a, 15);
	__m512i bs = _mm512_alignr_epi32(b, a, 15);
	_mm512_store_si512(q + i, _mm512_min_epu32(
		a, _mm512_mask_max_epu32(k, ok, as, k)));
	_mm512_store_si512(q + i + 16,
			   _mm512_min_epu32(b, _mm512_max_epu32(bs, k)));
	for (i += 32; i <= top; i += 32) {
		__m512i prev = b;
		a = _mm512_load_si512(q + i);
		b = _mm512_load_si512(q + i + 16);
		as = _mm512_alignr_epi32(a, prev, 15);
		bs = _mm512_alignr_epi32(b, a, 15);
		_mm512_store_si512(q + i,
				   _mm512_min_epu32(a, _mm512_max_epu32(as, k)));
		_mm512_store_si512(q + i + 16,
				   _mm512_min_epu32(b, _mm512_max_epu32(bs, k)));
	}
	*hi = top + 1;
}

/* The narrow queue in s: aligned, UINT32_MAX up to past the last vector
 * an insertion reaches (within the int64 slots eval_queue_slots counts). */
static inline uint32_t *eval_queue32_start(const struct eval_problem *p,
					   struct eval_scratch *s)
{
	uint32_t *q = (uint32_t *)(((uintptr_t)s->ev + 63) & ~(uintptr_t)63);
	memset(q, 0xff, ((size_t)p->n + p->nrun + 32) * sizeof(*q));
	return q;
}
#endif

/* Sets up the queue in s for isa: returns it, aligned for the vectors,
 * which also need every slot they may reach to hold EVAL_KEY_END (a byte
 * pattern, so that memset fills it). */
EVAL_HD int64_t *eval_queue_start(const struct eval_problem *p,
				  struct eval_scratch *s, int isa)
{
#ifdef EVAL_X86
	if (isa != EVAL_ISA_PLAIN) {
		int64_t *q = (int64_t *)(((uintptr_t)s->ev + 63) &
					 ~(uintptr_t)63);
		memset(q, 0x7f, ((size_t)p->n + p->nrun + 16) * sizeof(*q));
		return q;
	}
#endif
	(void)p;
	(void)isa;
	return s->ev;
}

/* Puts key into the queue q[*lo, *hi) with the insertion of isa, which
 * is a constant wherever this is inlined. */
EVAL_HD void eval_queue_put(int64_t *q, uint32_t *lo, uint32_t *hi,
			    int64_t key, int isa)
{
#ifdef EVAL_X86
	if (isa == EVAL_ISA_AVX512) {
		eval_queue_put_avx512(q, *lo, hi, key);
		return;
	}
	if (isa == EVAL_ISA_AVX2) {
		eval_queue_put_avx2(q, *lo, hi, key);
		return;
	}
#endif
	(void)isa;
	eval_queue_put_plain(q, lo, hi, key);
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
 * The node index of node-level decoding.  Best fit asks for the node of
 * a type with the least leftover and, among those, the lowest index;
 * scanning every node for it, several times a job when it has to wait,
 * was most of a decode.  So each type keeps its nodes in buckets by free
 * units, one bitset of nodes each, and a mask of the buckets that hold a
 * node: the best fit is then in the first nonempty bucket from the job's
 * demand up, at its lowest set bit, and a change of a node's free units
 * moves one bit.  Whole idle nodes (free == cap > 0) have a bitset of
 * their own and the sum of their units, which tells a job that must wait
 * for them so without looking at a node.
 *
 * A type has a bucket per unit count while its largest node has fewer
 * than EVAL_NODES_BUCKETS units, as GPU nodes do.  Larger nodes (CPU
 * cores) share buckets: bucket f >> shift, so that the lowest one may
 * also hold nodes with less than the demand, and the best fit is found
 * among the nodes of the first one or two buckets that hold any - still
 * exact.  A type's bitsets span the words
 * from its lowest node to its highest: (buckets + 1) bits a node when
 * each type's nodes are together (1,000 nodes of 8 GPUs: 1.3 KB a
 * scratch), at most that for every type when types interleave.
 */
#define EVAL_NODES_BUCKETS 64

/* One type's part of the index: its bitsets are in the scratch, this in
 * the decoder call's frame. */
struct eval_ntype {
	uint64_t *row;   /* bitset of each bucket, then of the idle nodes */
	uint64_t full;   /* bit b: bucket b may hold a node (a bucket found
	                    empty is cleared by the pick that finds it) */
	uint64_t idle;   /* units of the idle nodes */
	uint32_t w0;     /* word of the type's lowest node; bit i of the
	                    type's bitsets is bit i - 64 w0 of row */
	uint32_t words;  /* words of a bitset */
	uint32_t shift;  /* a node with f free units is in f >> shift */
	uint32_t nb;     /* buckets (0: the type has no nodes) */
	uint32_t big;    /* units of its largest node */
};

/* The trailing zero bits of v != 0. */
EVAL_HD uint32_t eval_ctz(uint64_t v)
{
#if defined(__CUDA_ARCH__)
	return (uint32_t)__ffsll((long long)v) - 1;
#elif defined(__GNUC__)
	return (uint32_t)__builtin_ctzll(v);
#else
	uint32_t b = 0;
	for (; !(v & 1); v >>= 1)
		b++;
	return b;
#endif
}

/*
 * Lays out the index of p in bits (NULL: only measures it) and returns
 * its words.  Nodes of types past ntypes are left out: no job runs there.
 * The masks and sums start empty; eval_decode_nodes_isa fills them.
 */
EVAL_HD uint64_t eval_nodes_layout(const struct eval_problem *p,
				   struct eval_ntype *ty, uint64_t *bits)
{
	uint32_t lo[EVAL_MAX_TYPES], hi[EVAL_MAX_TYPES];
	uint64_t at = 0;
	for (uint32_t t = 0; t < p->ntypes; t++) {
		lo[t] = UINT32_MAX;
		hi[t] = 0;
		ty[t].big = 0;
	}
	for (uint32_t i = 0; i < p->nnodes; i++) {
		uint32_t t = p->node_type[i];
		if (t >= p->ntypes)
			continue;
		lo[t] = i < lo[t] ? i : lo[t];
		hi[t] = i;
		if (p->node_cap[i] > ty[t].big)
			ty[t].big = p->node_cap[i];
	}
	for (uint32_t t = 0; t < p->ntypes; t++) {
		struct eval_ntype *y = &ty[t];
		y->shift = 0;
		while (y->big >> y->shift >= EVAL_NODES_BUCKETS)
			y->shift++;
		y->nb = lo[t] == UINT32_MAX ? 0 : (y->big >> y->shift) + 1;
		y->w0 = lo[t] == UINT32_MAX ? 0 : lo[t] >> 6;
		y->words = lo[t] == UINT32_MAX ? 0 : (hi[t] >> 6) - y->w0 + 1;
		y->row = bits ? bits + at : 0;
		at += (uint64_t)(y->nb + 1) * y->words;
		y->full = 0;
		y->idle = 0;
	}
	return at;
}

/* How many elements each array of a decoder call's scratch needs (what
 * eval.c, the CUDA backend and gpu_check allocate). */
struct eval_scratch_size {
	uint64_t ev;        /* events */
	uint64_t node_free; /* node level: a count per node */
	uint64_t node_list; /* each job's node slots */
	uint64_t node_bits; /* the node index */
};

EVAL_HD struct eval_scratch_size eval_scratch_size_of(
	const struct eval_problem *p)
{
	struct eval_ntype ty[EVAL_MAX_TYPES];
	struct eval_scratch_size z;
	z.ev = eval_queue_slots(p);
	z.node_free = (uint64_t)p->nnodes + 1;
	z.node_list = (uint64_t)(p->node_off ? p->node_off[p->n] : 0) + 1;
	z.node_bits = eval_nodes_layout(p, ty, 0) + 1;
	return z;
}

/* The bucket of a node with f free units.  No node has more than big;
 * the bound keeps a problem that breaks that (running jobs over a node's
 * units, which eval_inst_finish refuses) inside the index. */
EVAL_HD_ALWAYS uint32_t eval_nodes_bucket(const struct eval_ntype *y,
					  uint32_t f)
{
	uint32_t b = f >> y->shift;
	return b < y->nb ? b : y->nb - 1;
}

/*
 * Node i of cap units, of y's type, goes from f to g free units.  No
 * branch: which way a node moves depends on the jobs, so it would be
 * mispredicted often.  A bucket left empty keeps its bit in full until a
 * pick looks there (counting the nodes of each bucket instead costs more
 * than those looks).  A node of no units keeps 0 free units, so it
 * never enters the idle set.
 */
EVAL_HD_ALWAYS void eval_nodes_move(struct eval_ntype *y, uint32_t i,
				    uint32_t cap, uint32_t f, uint32_t g)
{
	uint64_t *w = y->row + ((i >> 6) - y->w0);
	uint64_t bit = (uint64_t)1 << (i & 63);
	uint32_t a = eval_nodes_bucket(y, f), b = eval_nodes_bucket(y, g);
	uint64_t was = f == cap, is = g == cap, flip = was ^ is;
	w[(uint64_t)a * y->words] &= ~bit;
	w[(uint64_t)b * y->words] |= bit;
	y->full |= (uint64_t)1 << b;
	w[(uint64_t)y->nb * y->words] ^= bit & (0 - flip);
	y->idle = y->idle + (uint64_t)cap * (is & flip) -
		  (uint64_t)cap * (was & flip);
}

/*
 * The best fit for need units in bucket b of y: the node with the least
 * (free units, index) among those with at least need, or UINT32_MAX;
 * *any tells whether the bucket holds a node at all.  With a bucket per
 * unit count every node there has the same free units, at least need, so
 * the first is the one.
 */
EVAL_HD_ALWAYS uint32_t eval_nodes_fit(const struct eval_ntype *y,
				       uint32_t b, uint32_t need,
				       const uint32_t *nfree, int *any)
{
	const uint64_t *row = y->row + (uint64_t)b * y->words;
	uint64_t best = UINT64_MAX;
	*any = 0;
	for (uint32_t w = 0; w < y->words; w++) {
		for (uint64_t x = row[w]; x; x &= x - 1) {
			uint32_t i = (y->w0 + w) * 64 + eval_ctz(x);
			uint32_t f = nfree[i];
			uint64_t key = ((uint64_t)(f - need) << 32) | i;
			*any = 1;
			if (y->shift == 0)
				return i;
			best = f >= need && key < best ? key : best;
		}
	}
	return best == UINT64_MAX ? UINT32_MAX : (uint32_t)best;
}

/*
 * Node-level: can a job needing `need` units of the type y indexes be
 * placed now?  Fills its nodes into list and returns how many, or 0.
 * One node when it fits in the largest, by best fit (least leftover,
 * ties by lowest index), else whole idle nodes, lowest index first.
 */
EVAL_HD_ALWAYS uint32_t eval_nodes_pick(const struct eval_problem *p,
					struct eval_ntype *y, uint32_t need,
					const uint32_t *nfree, uint32_t *list)
{
	if (need <= y->big) {
		/* need >> shift < nb <= EVAL_NODES_BUCKETS, or the type
		 * has no nodes and full is 0. */
		uint32_t b0 = need >> y->shift;
		for (uint64_t m = y->full >> b0; m; m &= m - 1) {
			uint32_t b = b0 + eval_ctz(m);
			int any;
			uint32_t i = eval_nodes_fit(y, b, need, nfree, &any);
			if (i != UINT32_MAX) {
				list[0] = i;
				return 1;
			}
			if (!any)
				y->full &= ~((uint64_t)1 << b);
		}
		return 0;
	}
	if (y->idle < need)
		return 0;
	const uint64_t *row = y->row + (uint64_t)y->nb * y->words;
	uint64_t got = 0;
	uint32_t cnt = 0;
	for (uint32_t w = 0; w < y->words && got < need; w++) {
		for (uint64_t x = row[w]; x && got < need; x &= x - 1) {
			uint32_t i = (y->w0 + w) * 64 + eval_ctz(x);
			list[cnt++] = i;
			got += p->node_cap[i];
		}
	}
	return cnt;
}

/* Node i now has g free units: sets them and moves it in the index. */
EVAL_HD_ALWAYS void eval_nodes_set(const struct eval_problem *p,
				   struct eval_ntype *ty, uint32_t *nfree,
				   uint32_t i, uint32_t g)
{
	uint32_t t = p->node_type[i], f = nfree[i];
	nfree[i] = g;
	if (t < p->ntypes)
		eval_nodes_move(&ty[t], i, p->node_cap[i], f, g);
}

/*
 * Gives back the units of event who (node level): a running job's, a
 * job's on one node, or a job's whole nodes - as many of its list as
 * made up its demand when they were picked.  A job on one node never
 * needs more than the node has, a job on several more than any node of
 * its type has, so the first node tells which.  A job that fit nowhere
 * (who past every job and running job) holds nothing.
 */
EVAL_HD_ALWAYS void eval_nodes_release(const struct eval_problem *p,
				       const struct eval_scratch *s,
				       struct eval_ntype *ty, uint32_t *nfree,
				       uint64_t who)
{
	if (who >= p->n) {
		if (who < (uint64_t)p->n + p->nrun) {
			uint32_t i = p->run_node[who - p->n];
			eval_nodes_set(p, ty, nfree, i,
				       nfree[i] + p->run_units[who - p->n]);
		}
		return;
	}
	const uint32_t *l = s->node_list + p->node_off[who];
	uint32_t need = p->demand[who];
	if (need <= p->node_cap[l[0]]) {
		eval_nodes_set(p, ty, nfree, l[0], nfree[l[0]] + need);
		return;
	}
	for (uint64_t got = 0; got < need; l++) {
		eval_nodes_set(p, ty, nfree, l[0], p->node_cap[l[0]]);
		got += p->node_cap[l[0]];
	}
}

/*
 * Node-level decoding: as eval_decode_isa, with the units of each job on
 * nodes (see the top of the file), and its end events kept the same way.
 * p->nnodes must be > 0.  The node index is rebuilt at each call, in
 * time linear in the nodes and its words.
 */
EVAL_HD_ALWAYS int64_t eval_decode_nodes_isa(const struct eval_problem *p,
					     const uint32_t *perm,
					     const uint8_t *genes,
					     struct eval_scratch *s,
					     int64_t *start, int isa)
{
	int64_t *h = eval_queue_start(p, s, isa);
	const uint32_t sh = eval_nodes_shift(p);
	const int64_t wmask = ((int64_t)1 << sh) - 1;
	uint32_t *nfree = s->node_free;
	struct eval_ntype ty[EVAL_MAX_TYPES];
	uint32_t lo = 0, hi = 0;
	int64_t now = 0, mk = 0, twct = 0, jct = 0;
	uint64_t words = eval_nodes_layout(p, ty, s->node_bits);
	for (uint64_t w = 0; w < words; w++)
		s->node_bits[w] = 0;
	for (uint32_t i = 0; i < p->nnodes; i++) {
		uint32_t t = p->node_type[i], c = p->node_cap[i];
		nfree[i] = c;
		if (t >= p->ntypes)
			continue;
		struct eval_ntype *y = &ty[t];
		uint32_t b = eval_nodes_bucket(y, c);
		y->row[(uint64_t)b * y->words + (i >> 6) - y->w0] |=
			(uint64_t)1 << (i & 63);
		y->full |= (uint64_t)1 << b;
		if (c > 0) {
			y->row[(uint64_t)y->nb * y->words + (i >> 6) -
			       y->w0] |= (uint64_t)1 << (i & 63);
			y->idle += c;
		}
	}
	for (uint32_t r = 0; r < p->nrun; r++) {
		uint32_t i = p->run_node[r];
		eval_nodes_set(p, ty, nfree, i, nfree[i] - p->run_units[r]);
		eval_queue_put(h, &lo, &hi,
			       eval_key(p->run_end[r], sh,
					(uint64_t)p->n + r),
			       isa);
	}
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = perm[k];
		uint32_t t = eval_job_type(p, genes, j);
		int64_t d = p->dur[(uint64_t)j * p->ntypes + t];
		uint32_t need = p->demand[j], cnt;
		uint32_t *list = s->node_list + p->node_off[j];
		if (p->release[j] > now)
			now = p->release[j];
		while (lo < hi && h[lo] >> sh <= now)
			eval_nodes_release(p, s, ty, nfree, h[lo++] & wmask);
		for (;;) {
			cnt = eval_nodes_pick(p, &ty[t], need, nfree, list);
			if (cnt > 0 || lo == hi)
				break;
			now = h[lo] >> sh;
			do
				eval_nodes_release(p, s, ty, nfree,
						   h[lo++] & wmask);
			while (lo < hi && h[lo] >> sh <= now);
		}
		if (cnt == 1)
			eval_nodes_set(p, ty, nfree, list[0],
				       nfree[list[0]] - need);
		for (uint32_t q = 0; cnt > 1 && q < cnt; q++)
			eval_nodes_set(p, ty, nfree, list[q], 0);
		eval_queue_put(h, &lo, &hi,
			       eval_key(now + d, sh,
					cnt ? j : (uint64_t)p->n + p->nrun),
			       isa);
		eval_account(p, j, now + d, &mk, &twct, &jct);
		if (start)
			start[j] = now;
	}
	return eval_score_of(p, mk, twct, jct);
}

/* The portable node-level decoder. */
EVAL_HD int64_t eval_decode_nodes(const struct eval_problem *p,
				  const uint32_t *perm, const uint8_t *genes,
				  struct eval_scratch *s, int64_t *start)
{
	return eval_decode_nodes_isa(p, perm, genes, s, start,
				     EVAL_ISA_PLAIN);
}

#endif
