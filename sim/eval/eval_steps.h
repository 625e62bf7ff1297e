/*
 * The per-candidate steps of the searches, shared by the CPU and CUDA
 * evaluator backends (like eval_decode.h, compiled by both compilers):
 * breeding one GA child and advancing one annealing chain by one move.
 * Each step draws its random numbers from Philox 4x32-10 (Salmon et al.,
 * "Parallel random numbers: as easy as 1, 2, 3", SC 2011; Debian's
 * Random123 headers), keyed by the seed and counted by (candidate,
 * generation or step, stream), so a candidate's draws do not depend on
 * which thread or device runs it: the same seed gives the same search on
 * 1 thread, N threads and a GPU.
 *
 * Probabilities are 32-bit integer thresholds and the one transcendental
 * function (exp, for Metropolis acceptance) is computed here with + - * /
 * only, so no library or fused multiply-add can make two backends differ
 * (nvcc builds with -fmad=false).
 */
#ifndef CLUSTERSIM_EVAL_STEPS_H
#define CLUSTERSIM_EVAL_STEPS_H

#ifdef __CUDACC__
#define R123_CUDA_DEVICE __host__ __device__
#endif
#include <Random123/philox.h>

#include "eval/eval_pooled.h"

/* A candidate copied rather than bred (eval_ga_params.copy). */
#define EVAL_BREED UINT32_MAX

/* Philox streams: which search drew a number. */
enum { EVAL_STREAM_GA = 1, EVAL_STREAM_SA = 2, EVAL_STREAM_INIT = 3 };

/* Most candidates an island keeps in its list of bests (its elites). */
#define EVAL_MAX_KEEP 32

/* One generation of the GA (the same for every child). */
struct eval_ga_params {
	uint64_t seed;        /* the search's seed */
	uint32_t gen;         /* generation number (counter word) */
	uint32_t pop;         /* population, all islands */
	uint32_t island;      /* candidates per island (divides pop) */
	uint32_t tournament;  /* tournament size, >= 1 */
	uint32_t p_cross;     /* order crossover probability x 2^32 */
	uint32_t p_swap;      /* swap mutation probability x 2^32 */
	uint32_t p_insert;    /* insert mutation probability x 2^32 */
	uint32_t p_gene;      /* placement gene mutation probability x 2^32 */
	uint32_t elite;       /* best candidates of each island copied
	                         unchanged, < island and <= EVAL_MAX_KEEP */
	uint32_t migrate;     /* 1: slot `elite` of each island takes the
	                         best of the previous island (a ring) */
};

/* A candidate among the best of a group: less score, then less index,
 * is better. */
struct eval_top {
	int64_t score;
	uint32_t idx;
};

/* One step of every annealing chain. */
struct eval_sa_params {
	uint64_t seed;        /* the search's seed */
	uint32_t step;        /* step number (counter word) */
	uint32_t chains;      /* chains */
	uint32_t p_gene;      /* probability the move is a gene change */
	double temp;          /* temperature (score units), > 0 */
};

/* A stream of Philox outputs for one (seed, stream, index, step). */
struct eval_rng {
	philox4x32_key_t key; /* the seed */
	philox4x32_ctr_t ctr; /* index, step, stream, block */
	philox4x32_ctr_t buf; /* the current block */
	uint32_t pos;         /* next word of buf; 4 = draw a block */
};

EVAL_HD void eval_rng_init(struct eval_rng *r, uint64_t seed,
			   uint32_t stream, uint32_t index, uint32_t step)
{
	r->key.v[0] = (uint32_t)seed;
	r->key.v[1] = (uint32_t)(seed >> 32);
	r->ctr.v[0] = index;
	r->ctr.v[1] = step;
	r->ctr.v[2] = stream;
	r->ctr.v[3] = 0;
	r->pos = 4;
}

EVAL_HD uint32_t eval_rng_next(struct eval_rng *r)
{
	if (r->pos == 4) {
		r->buf = philox4x32(r->ctr, r->key);
		r->ctr.v[3]++;
		r->pos = 0;
	}
	return r->buf.v[r->pos++];
}

/* Uniform in [0, m), m >= 1 (multiply-shift). */
EVAL_HD uint32_t eval_rng_below(struct eval_rng *r, uint32_t m)
{
	return (uint32_t)(((uint64_t)eval_rng_next(r) * m) >> 32);
}

/* e^x for x <= 0 with basic arithmetic only (bit-identical everywhere):
 * e^(x/1024) by its Taylor series, squared ten times. */
EVAL_HD double eval_exp_neg(double x)
{
	if (x < -60.0)
		return 0.0;
	double y = x / 1024.0, term = 1.0, sum = 1.0;
	for (int i = 1; i <= 8; i++) {
		term = term * y / (double)i;
		sum = sum + term;
	}
	for (int i = 0; i < 10; i++)
		sum = sum * sum;
	return sum;
}

/* A random type job j may run on. */
EVAL_HD uint8_t eval_random_type(const struct eval_problem *p, uint32_t j,
				 struct eval_rng *r)
{
	uint32_t allowed = 0;
	for (uint32_t t = 0; t < p->ntypes; t++)
		allowed += p->dur[(uint64_t)j * p->ntypes + t] >= 0;
	uint32_t k = eval_rng_below(r, allowed ? allowed : 1);
	for (uint32_t t = 0; t < p->ntypes; t++)
		if (p->dur[(uint64_t)j * p->ntypes + t] >= 0 && k-- == 0)
			return (uint8_t)t;
	return p->home[j];
}

/* Tournament within the island starting at base: the best of k draws,
 * ties by lower index. */
EVAL_HD uint32_t eval_tournament(const struct eval_ga_params *g,
				 const int64_t *score, uint32_t base,
				 struct eval_rng *r)
{
	uint32_t best = base + eval_rng_below(r, g->island);
	for (uint32_t i = 1; i < g->tournament; i++) {
		uint32_t c = base + eval_rng_below(r, g->island);
		if (score[c] < score[best] ||
		    (score[c] == score[best] && c < best))
			best = c;
	}
	return best;
}

/* Empties a list of the k best. */
EVAL_HD void eval_top_clear(struct eval_top *t, uint32_t k)
{
	for (uint32_t q = 0; q < k; q++) {
		t[q].score = INT64_MAX;
		t[q].idx = UINT32_MAX;
	}
}

/* Offers candidate i of score s to t[0, k), kept in order. */
EVAL_HD void eval_top_offer(struct eval_top *t, uint32_t k, int64_t s,
			    uint32_t i)
{
	uint32_t q = k;
	while (q > 0 && (s < t[q - 1].score ||
			 (s == t[q - 1].score && i < t[q - 1].idx))) {
		if (q < k)
			t[q] = t[q - 1];
		q--;
	}
	if (q < k) {
		t[q].score = s;
		t[q].idx = i;
	}
}

/* The k best of score[i] for i = lo, lo + stride, ... below hi, into
 * t[0, k): the selection both backends make, in slices on a device. */
EVAL_HD void eval_top_scan(const int64_t *score, uint32_t lo, uint32_t hi,
			   uint32_t stride, struct eval_top *t, uint32_t k)
{
	eval_top_clear(t, k);
	for (uint32_t i = lo; i < hi; i += stride)
		eval_top_offer(t, k, score[i], i);
}

/* Length of each island's list of bests: its elites, and at least its
 * best, which migrates. */
EVAL_HD uint32_t eval_ga_keep(const struct eval_ga_params *g)
{
	return g->elite ? g->elite : 1;
}

/*
 * What slot c of the next generation is, from each island's list of
 * bests (tops: island k's at k x eval_ga_keep(g), in order): its island's
 * r-th best for r < elite, the previous island's best in slot `elite`
 * when migrating, else EVAL_BREED.
 */
EVAL_HD uint32_t eval_ga_source(const struct eval_ga_params *g,
				const struct eval_top *tops, uint32_t c)
{
	uint32_t k = c / g->island, r = c % g->island;
	uint32_t isl = g->pop / g->island, keep = eval_ga_keep(g);
	if (r < g->elite)
		return tops[k * keep + r].idx;
	if (g->migrate && isl > 1 && r == g->elite)
		return tops[(k + isl - 1) % isl * keep].idx;
	return EVAL_BREED;
}

/* Moves the job at position x of perm to position y. */
EVAL_HD void eval_insert_move(uint32_t *perm, uint32_t x, uint32_t y)
{
	uint32_t v = perm[x];
	if (x < y)
		for (uint32_t i = x; i < y; i++)
			perm[i] = perm[i + 1];
	else
		for (uint32_t i = x; i > y; i--)
			perm[i] = perm[i - 1];
	perm[y] = v;
}

/*
 * Breeds child c of a generation from the parents (par: pop x n jobs,
 * pgen: pop x n genes, ps: their scores) into child/cgen: a copy of
 * parent copy_from when that is not EVAL_BREED; else two tournaments in
 * c's island, order crossover (OX1: a slice of the first parent, the rest
 * in the second parent's order from after the slice; genes follow their
 * job's parent) and the mutations.  mark: n bytes of scratch.
 */
EVAL_HD void eval_ga_child(const struct eval_problem *p,
			   const struct eval_ga_params *g,
			   const uint32_t *par, const uint8_t *pgen,
			   const int64_t *ps, uint32_t copy_from, uint32_t c,
			   uint32_t *child, uint8_t *cgen, uint8_t *mark)
{
	uint32_t n = p->n;
	if (copy_from != EVAL_BREED) {
		for (uint32_t i = 0; i < n; i++) {
			child[i] = par[(uint64_t)copy_from * n + i];
			cgen[i] = pgen[(uint64_t)copy_from * n + i];
		}
		return;
	}
	struct eval_rng r;
	eval_rng_init(&r, g->seed, EVAL_STREAM_GA, c, g->gen);
	uint32_t base = c / g->island * g->island;
	uint32_t a = eval_tournament(g, ps, base, &r);
	uint32_t b = eval_tournament(g, ps, base, &r);
	const uint32_t *pa = par + (uint64_t)a * n, *pb = par + (uint64_t)b * n;
	const uint8_t *ga = pgen + (uint64_t)a * n, *gb = pgen + (uint64_t)b * n;
	if (n >= 2 && eval_rng_next(&r) < g->p_cross) {
		uint32_t x = eval_rng_below(&r, n), y = eval_rng_below(&r, n);
		if (x > y) {
			uint32_t t = x;
			x = y;
			y = t;
		}
		for (uint32_t i = 0; i < n; i++)
			mark[i] = 0;
		for (uint32_t i = x; i <= y; i++) {
			child[i] = pa[i];
			mark[pa[i]] = 1;
		}
		uint32_t w = (y + 1) % n;
		for (uint32_t k = 0; k < n; k++) {
			uint32_t v = pb[(y + 1 + k) % n];
			if (mark[v])
				continue;
			child[w] = v;
			w = (w + 1) % n;
		}
		for (uint32_t i = 0; i < n; i++)
			cgen[i] = mark[i] ? ga[i] : gb[i];
	} else {
		for (uint32_t i = 0; i < n; i++) {
			child[i] = pa[i];
			cgen[i] = ga[i];
		}
	}
	if (n >= 2 && eval_rng_next(&r) < g->p_swap) {
		uint32_t x = eval_rng_below(&r, n), y = eval_rng_below(&r, n);
		uint32_t t = child[x];
		child[x] = child[y];
		child[y] = t;
	}
	if (n >= 2 && eval_rng_next(&r) < g->p_insert)
		eval_insert_move(child, eval_rng_below(&r, n),
				 eval_rng_below(&r, n));
	if (p->ntypes > 1 && eval_rng_next(&r) < g->p_gene) {
		uint32_t j = eval_rng_below(&r, n);
		cgen[j] = eval_random_type(p, j, &r);
	}
}

/* A move of an annealing chain, between making it and settling it. */
struct eval_sa_move {
	struct eval_rng r; /* the chain's draws for this step */
	uint32_t kind;     /* 0 swap, 1 insert, 2 placement gene */
	uint32_t x, y;     /* the positions it used */
	uint8_t old;       /* the gene it replaced (kind 2) */
};

/*
 * One Metropolis step of chain c, in two halves around the decoder (the
 * CPU backend decodes with its own): eval_sa_propose makes a random swap,
 * insert or (with probability p_gene) placement change of cur, in place,
 * and returns 0 when there is none to make.  eval_sa_settle, given its
 * score, keeps it when it is no worse or with probability
 * e^(-delta / temp), else undoes it; a kept move that beats the chain's
 * best is copied there.  It returns the chain's current score.
 */
EVAL_HD int eval_sa_propose(const struct eval_problem *p,
			    const struct eval_sa_params *sp, uint32_t c,
			    uint32_t *cur, uint8_t *cgen,
			    struct eval_sa_move *m)
{
	uint32_t n = p->n;
	eval_rng_init(&m->r, sp->seed, EVAL_STREAM_SA, c, sp->step);
	if (n < 2)
		return 0;
	m->x = eval_rng_below(&m->r, n);
	m->y = eval_rng_below(&m->r, n);
	m->old = 0;
	if (p->ntypes > 1 && eval_rng_next(&m->r) < sp->p_gene)
		m->kind = 2;
	else
		m->kind = eval_rng_below(&m->r, 2);
	if (m->kind == 0) {
		uint32_t t = cur[m->x];
		cur[m->x] = cur[m->y];
		cur[m->y] = t;
	} else if (m->kind == 1) {
		eval_insert_move(cur, m->x, m->y);
	} else {
		m->old = cgen[cur[m->x]];
		cgen[cur[m->x]] = eval_random_type(p, cur[m->x], &m->r);
	}
	return 1;
}

EVAL_HD int64_t eval_sa_settle(struct eval_sa_move *m,
			       const struct eval_sa_params *sp, uint32_t n,
			       int64_t sc, uint32_t *cur, uint8_t *cgen,
			       int64_t *cur_score, uint32_t *best,
			       uint8_t *bgen, int64_t *best_score)
{
	int64_t delta = sc - *cur_score;
	double u = (double)eval_rng_next(&m->r) * (1.0 / 4294967296.0);
	if (delta <= 0 || u < eval_exp_neg(-(double)delta / sp->temp)) {
		*cur_score = sc;
		if (sc < *best_score) {
			*best_score = sc;
			for (uint32_t i = 0; i < n; i++) {
				best[i] = cur[i];
				bgen[i] = cgen[i];
			}
		}
		return sc;
	}
	if (m->kind == 0) {
		uint32_t t = cur[m->x];
		cur[m->x] = cur[m->y];
		cur[m->y] = t;
	} else if (m->kind == 1) {
		eval_insert_move(cur, m->y, m->x);
	} else {
		cgen[cur[m->x]] = m->old;
	}
	return *cur_score;
}

/* Both halves with the portable decoder (the CUDA build's). */
EVAL_HD int64_t eval_sa_chain(const struct eval_problem *p,
			      const struct eval_sa_params *sp, uint32_t c,
			      uint32_t *cur, uint8_t *cgen, int64_t *cur_score,
			      uint32_t *best, uint8_t *bgen,
			      int64_t *best_score, struct eval_scratch *s,
			      int nodes)
{
	struct eval_sa_move m;
	if (!eval_sa_propose(p, sp, c, cur, cgen, &m))
		return *cur_score;
	int64_t sc = nodes ? eval_decode_nodes(p, cur, cgen, s, 0) :
			     eval_decode(p, cur, cgen, s, 0, 0);
	return eval_sa_settle(&m, sp, p->n, sc, cur, cgen, cur_score, best,
			      bgen, best_score);
}

#endif
