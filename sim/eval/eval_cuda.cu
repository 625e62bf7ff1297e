/*
 * The CUDA evaluator backend: the decoder (eval_decode.h) and the search
 * steps (eval_steps.h), compiled for the device, one thread per candidate
 * in grid-stride loops.  The problem is copied once; the population, its
 * scores, the annealing chains' bests and each island's list of bests
 * (its elites, chosen here: eval_top_scan in slices, then a merge) stay
 * on the device between generations.  Only those short lists of bests
 * come back each generation, and a candidate when the host asks for it.
 * Built with -fmad=false so floating point matches the host.  Its calls
 * are the table eval_cuda_ops (eval_backend.h), the only name it exports;
 * each returns 0, or -1 with what failed in why (cuda_fail).
 */
#ifdef EVAL_CUDA_HOST
/* The test suite's host build (tests/cuda_host.h). */
#include "cuda_host.h"
#else
#include <cuda_runtime.h>
#define CUDA_LAUNCH(kernel, grid, block, ...)                                 \
	kernel<<<(grid), (block)>>>(__VA_ARGS__)
#endif

#include <stdio.h>
#include <string.h>

#include "eval/eval_backend.h"

/* 0 when e is success, else -1 with what failed and why in why. */
static int cuda_fail(cudaError_t e, const char *what, char *why, size_t why_n)
{
	if (e == cudaSuccess)
		return 0;
	snprintf(why, why_n, "%s: %s", what, cudaGetErrorString(e));
	return -1;
}

/* Threads with their own decoder scratch; a launch runs this many, and
 * each takes every EVAL_CUDA_THREADS-th candidate. */
#ifndef EVAL_CUDA_THREADS
#define EVAL_CUDA_THREADS 32768
#endif

struct eval_cuda {
	struct eval_problem p;   /* with device pointers */
	int nodes;               /* node-level decoding */
	void *arrays[16];        /* device copies of the problem's arrays */
	int narrays;
	size_t threads;          /* threads with scratch */
	int64_t *ev;             /* scratch, per thread */
	uint32_t *nfree;
	uint32_t *nlist;
	uint64_t *nbits;
	uint8_t *mark;
	struct eval_scratch_size z; /* strides of the scratch arrays */
	size_t pop;              /* resident candidates */
	uint32_t *perm[2];
	uint8_t *gene[2];
	int64_t *score[2];
	uint32_t *best;
	uint8_t *bgene;
	int64_t *bscore;
	struct eval_top *tops;   /* each group's bests (eval_cuda_tops) */
	uint32_t tops_groups;    /* groups and length of each list in tops, */
	uint32_t tops_keep;      /* of the current scores (0: none) */
	struct eval_top *part;   /* the slices' bests, before the merge */
	size_t part_cap;         /* entries of part */
	/* staging for eval_cuda_score */
	uint32_t *in_perm;
	uint8_t *in_gene;
	int64_t *out;
	size_t in_cap;
};

__device__ static struct eval_scratch scratch_of(const struct eval_cuda *c,
						 size_t tid)
{
	struct eval_scratch s;
	s.ev = c->ev + tid * c->z.ev;
	s.node_free = c->nfree + tid * c->z.node_free;
	s.node_list = c->nlist + tid * c->z.node_list;
	s.node_bits = c->nbits + tid * c->z.node_bits;
	return s;
}

__device__ static int64_t dev_decode(const struct eval_cuda *c,
				     const uint32_t *perm, const uint8_t *g,
				     struct eval_scratch *s)
{
	return c->nodes ? eval_decode_nodes(&c->p, perm, g, s, 0) :
			  eval_decode(&c->p, perm, g, s, 0, 0);
}

__global__ static void k_score(struct eval_cuda c, const uint32_t *perms,
			       const uint8_t *genes, size_t count,
			       int64_t *out)
{
	size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (tid >= c.threads)
		return;
	struct eval_scratch s = scratch_of(&c, tid);
	size_t n = c.p.n;
	for (size_t i = tid; i < count; i += c.threads)
		out[i] = dev_decode(&c, perms + i * n,
				    genes ? genes + i * n : 0, &s);
}

__global__ static void k_ga(struct eval_cuda c, struct eval_ga_params g,
			    const uint32_t *par, const uint8_t *pgen,
			    const int64_t *ps, uint32_t *child, uint8_t *cgen,
			    int64_t *cs)
{
	size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (tid >= c.threads)
		return;
	struct eval_scratch s = scratch_of(&c, tid);
	size_t n = c.p.n;
	for (size_t i = tid; i < g.pop; i += c.threads) {
		eval_ga_child(&c.p, &g, par, pgen, ps,
			      eval_ga_source(&g, c.tops, (uint32_t)i), (uint32_t)i,
			      child + i * n, cgen + i * n,
			      c.mark + tid * (n + 1));
		cs[i] = dev_decode(&c, child + i * n, cgen + i * n, &s);
	}
}

__global__ static void k_sa(struct eval_cuda c, struct eval_sa_params sp)
{
	size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (tid >= c.threads)
		return;
	struct eval_scratch s = scratch_of(&c, tid);
	size_t n = c.p.n;
	for (size_t i = tid; i < sp.chains; i += c.threads)
		eval_sa_chain(&c.p, &sp, (uint32_t)i, c.perm[0] + i * n,
			      c.gene[0] + i * n, &c.score[0][i],
			      c.best + i * n, c.bgene + i * n, &c.bscore[i],
			      &s, c.nodes);
}

__global__ static void k_reset(struct eval_cuda c, uint32_t from)
{
	size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t n = c.p.n;
	if (tid >= c.threads)
		return;
	for (size_t i = tid; i < c.pop; i += c.threads) {
		for (size_t k = 0; k < n; k++) {
			c.perm[0][i * n + k] = c.best[from * n + k];
			c.gene[0][i * n + k] = c.bgene[from * n + k];
		}
		c.score[0][i] = c.bscore[from];
	}
}

/* Slices of each group whose bests are found apart, then merged. */
static const uint32_t TOP_SLICES = 256;

/* Thread (group k, slice q): the keep best of every slices-th score of
 * group k from its q-th, into part. */
__global__ static void k_top_part(const int64_t *score, uint32_t groups,
				  uint32_t per, uint32_t slices,
				  uint32_t keep, struct eval_top *part)
{
	size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (tid >= (size_t)groups * slices)
		return;
	uint32_t k = (uint32_t)(tid / slices), q = (uint32_t)(tid % slices);
	eval_top_scan(score, k * per + q, (k + 1) * per, slices,
		      part + tid * keep, keep);
}

/* Thread k: group k's keep best, from its slices' lists. */
__global__ static void k_top_merge(const struct eval_top *part,
				   uint32_t groups, uint32_t slices,
				   uint32_t keep, struct eval_top *tops)
{
	size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (k >= groups)
		return;
	struct eval_top *t = tops + k * keep;
	const struct eval_top *p = part + k * slices * keep;
	eval_top_clear(t, keep);
	for (size_t q = 0; q < (size_t)slices * keep; q++)
		eval_top_offer(t, keep, p[q].score, p[q].idx);
}

/* Every candidate's genes are the home types. */
__global__ static void k_home(struct eval_cuda c, uint8_t *genes,
			      size_t count)
{
	size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t n = c.p.n;
	if (tid >= c.threads)
		return;
	for (size_t i = tid; i < count; i += c.threads)
		for (size_t k = 0; k < n; k++)
			genes[i * n + k] = c.p.home[k];
}

/* ---- the backend's calls (eval_backend.h) ----------------------------- */

static int eval_cuda_probe(char *why, size_t why_n)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess) {
		snprintf(why, why_n, "no cuda device (%s)",
			 cudaGetErrorString(e));
		return 0;
	}
	if (count == 0) {
		snprintf(why, why_n, "no cuda device");
		return 0;
	}
	return 1;
}

/* Copies bytes to a new device array kept in c->arrays (*dst NULL when
 * src is). */
static cudaError_t upload(struct eval_cuda *c, const void *src, size_t bytes,
			  void **dst)
{
	*dst = 0;
	if (!src)
		return cudaSuccess;
	cudaError_t e = cudaMalloc(dst, bytes ? bytes : 1);
	if (e != cudaSuccess)
		return e;
	c->arrays[c->narrays++] = *dst;
	return cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice);
}

static const unsigned BLOCK = 128;

static unsigned blocks_for(const struct eval_cuda *c)
{
	return (unsigned)((c->threads + BLOCK - 1) / BLOCK);
}

/* The problem's arrays on the device, in c->p. */
static cudaError_t upload_problem(struct eval_cuda *c,
				  const struct eval_problem *p)
{
	size_t n = p->n, T = p->ntypes, r = p->nrun;
	cudaError_t e = cudaSuccess;
	/* Each field of c->p becomes its device copy (NULL once one failed,
	 * so that nothing of the host's is freed as the device's). */
#define UP(field, bytes)                                                     \
	do {                                                                 \
		void *d_ = 0;                                                \
		if (e == cudaSuccess)                                        \
			e = upload(c, p->field, bytes, &d_);                 \
		c->p.field = (decltype(c->p.field))d_;                       \
	} while (0)
	UP(demand, n * 4);
	UP(dur, n * T * 8);
	UP(release, n * 8);
	UP(weight, n * 8);
	UP(home, n);
	UP(run_type, r);
	UP(run_units, r * 4);
	UP(run_end, r * 8);
	UP(run_node, r * 4);
	UP(node_cap, p->nnodes * 4);
	UP(node_type, p->nnodes);
	UP(node_off, (n + 1) * 4);
#undef UP
	return e;
}

/* Every thread's decoder scratch. */
static cudaError_t alloc_scratch(struct eval_cuda *c)
{
	size_t T = c->threads;
	cudaError_t e = cudaMalloc(&c->ev, T * c->z.ev * sizeof(*c->ev));
	if (e == cudaSuccess)
		e = cudaMalloc(&c->nfree, T * c->z.node_free *
					  sizeof(*c->nfree));
	if (e == cudaSuccess)
		e = cudaMalloc(&c->nlist, T * c->z.node_list *
					  sizeof(*c->nlist));
	if (e == cudaSuccess)
		e = cudaMalloc(&c->nbits, T * c->z.node_bits *
					  sizeof(*c->nbits));
	if (e == cudaSuccess)
		e = cudaMalloc(&c->mark, T * (c->p.n + 1));
	return e;
}

static void eval_cuda_close(void *b);

static void *eval_cuda_open(const struct eval_problem *p, int nodes,
			    unsigned threads, char *why, size_t why_n)
{
	struct eval_cuda *c = (struct eval_cuda *)calloc(1, sizeof(*c));
	(void)threads;
	c->p = *p;
	c->nodes = nodes;
	c->threads = EVAL_CUDA_THREADS;
	c->z = eval_scratch_size_of(p);
	if (cuda_fail(upload_problem(c, p), "problem", why, why_n) ||
	    cuda_fail(alloc_scratch(c), "scratch", why, why_n)) {
		eval_cuda_close(c);
		return 0;
	}
	return c;
}

static void free_pop(struct eval_cuda *c)
{
	for (int k = 0; k < 2; k++) {
		cudaFree(c->perm[k]);
		cudaFree(c->gene[k]);
		cudaFree(c->score[k]);
		c->perm[k] = 0;
		c->gene[k] = 0;
		c->score[k] = 0;
	}
	cudaFree(c->best);
	cudaFree(c->bgene);
	cudaFree(c->bscore);
	cudaFree(c->tops);
	cudaFree(c->part);
	c->best = 0;
	c->bgene = 0;
	c->bscore = 0;
	c->tops = 0;
	c->part = 0;
	c->part_cap = 0;
	c->pop = 0;
}

static void eval_cuda_close(void *b)
{
	struct eval_cuda *c = (struct eval_cuda *)b;
	if (!c)
		return;
	for (int i = 0; i < c->narrays; i++)
		cudaFree(c->arrays[i]);
	cudaFree(c->ev);
	cudaFree(c->nfree);
	cudaFree(c->nlist);
	cudaFree(c->nbits);
	cudaFree(c->mark);
	cudaFree(c->in_perm);
	cudaFree(c->in_gene);
	cudaFree(c->out);
	free_pop(c);
	free(c);
}

static unsigned eval_cuda_threads(const void *b)
{
	(void)b;
	return 0;
}

static int eval_cuda_score(void *b, const uint32_t *perms,
			   const uint8_t *genes, size_t count,
			   int64_t *scores, char *why, size_t why_n)
{
	struct eval_cuda *c = (struct eval_cuda *)b;
	size_t n = c->p.n;
	cudaError_t e = cudaSuccess;
	if (count > c->in_cap) {
		cudaFree(c->in_perm);
		cudaFree(c->in_gene);
		cudaFree(c->out);
		c->in_perm = 0;
		c->in_gene = 0;
		c->out = 0;
		c->in_cap = 0;
		e = cudaMalloc(&c->in_perm, count * n * 4 + 4);
		if (e == cudaSuccess)
			e = cudaMalloc(&c->in_gene, count * n + 1);
		if (e == cudaSuccess)
			e = cudaMalloc(&c->out, count * 8);
		if (e == cudaSuccess)
			c->in_cap = count;
	}
	if (e == cudaSuccess)
		e = cudaMemcpy(c->in_perm, perms, count * n * 4,
			       cudaMemcpyHostToDevice);
	if (e == cudaSuccess && genes)
		e = cudaMemcpy(c->in_gene, genes, count * n,
			       cudaMemcpyHostToDevice);
	if (e == cudaSuccess) {
		CUDA_LAUNCH(k_score, blocks_for(c), BLOCK, *c, c->in_perm,
			    genes ? c->in_gene : 0, count, c->out);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess)
		e = cudaMemcpy(scores, c->out, count * 8,
			       cudaMemcpyDeviceToHost);
	return cuda_fail(e, "score", why, why_n);
}

/* Room for a population of count (nothing changes when it has it). */
static cudaError_t alloc_pop(struct eval_cuda *c, size_t count)
{
	size_t cells = count * c->p.n;
	cudaError_t e = cudaSuccess;
	if (count == c->pop)
		return e;
	free_pop(c);
	for (int k = 0; k < 2 && e == cudaSuccess; k++) {
		e = cudaMalloc(&c->perm[k], cells * 4 + 4);
		if (e == cudaSuccess)
			e = cudaMalloc(&c->gene[k], cells + 1);
		if (e == cudaSuccess)
			e = cudaMalloc(&c->score[k], count * 8 + 8);
	}
	if (e == cudaSuccess)
		e = cudaMalloc(&c->best, cells * 4 + 4);
	if (e == cudaSuccess)
		e = cudaMalloc(&c->bgene, cells + 1);
	if (e == cudaSuccess)
		e = cudaMalloc(&c->bscore, count * 8 + 8);
	if (e == cudaSuccess)
		e = cudaMalloc(&c->tops, count * sizeof(*c->tops));
	if (e == cudaSuccess)
		c->pop = count;
	return e;
}

static int eval_cuda_pop_set(void *b, const uint32_t *perms,
			     const uint8_t *genes, size_t count, char *why,
			     size_t why_n)
{
	struct eval_cuda *c = (struct eval_cuda *)b;
	size_t cells = count * c->p.n;
	cudaError_t e = alloc_pop(c, count);
	c->tops_groups = 0;
	if (e == cudaSuccess)
		e = cudaMemcpy(c->perm[0], perms, cells * 4,
			       cudaMemcpyHostToDevice);
	if (e == cudaSuccess && genes) {
		e = cudaMemcpy(c->gene[0], genes, cells,
			       cudaMemcpyHostToDevice);
	} else if (e == cudaSuccess) {
		CUDA_LAUNCH(k_home, blocks_for(c), BLOCK, *c, c->gene[0],
			    count);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess) {
		CUDA_LAUNCH(k_score, blocks_for(c), BLOCK, *c, c->perm[0],
			    c->gene[0], count, c->score[0]);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess)
		e = cudaMemcpy(c->best, c->perm[0], cells * 4,
			       cudaMemcpyDeviceToDevice);
	if (e == cudaSuccess)
		e = cudaMemcpy(c->bgene, c->gene[0], cells,
			       cudaMemcpyDeviceToDevice);
	if (e == cudaSuccess)
		e = cudaMemcpy(c->bscore, c->score[0], count * 8,
			       cudaMemcpyDeviceToDevice);
	return cuda_fail(e, "population", why, why_n);
}

static int eval_cuda_ga_step(void *b, const struct eval_ga_params *g,
			     char *why, size_t why_n)
{
	struct eval_cuda *c = (struct eval_cuda *)b;
	if (g->pop != c->pop || g->island == 0 || g->pop % g->island) {
		snprintf(why, why_n, "ga step: population %u, %zu loaded",
			 g->pop, c->pop);
		return -1;
	}
	if (c->tops_groups != g->pop / g->island ||
	    c->tops_keep != eval_ga_keep(g)) {
		snprintf(why, why_n, "ga step: the island bests on the device "
			 "are not the parents'");
		return -1;
	}
	c->tops_groups = 0;
	CUDA_LAUNCH(k_ga, blocks_for(c), BLOCK, *c, *g, c->perm[0], c->gene[0],
		    c->score[0], c->perm[1], c->gene[1], c->score[1]);
	cudaError_t e = cudaGetLastError();
	if (e == cudaSuccess) {
		uint32_t *tp = c->perm[0];
		uint8_t *tg = c->gene[0];
		int64_t *ts = c->score[0];
		c->perm[0] = c->perm[1];
		c->gene[0] = c->gene[1];
		c->score[0] = c->score[1];
		c->perm[1] = tp;
		c->gene[1] = tg;
		c->score[1] = ts;
	}
	return cuda_fail(e, "ga step", why, why_n);
}

static int eval_cuda_sa_step(void *b, const struct eval_sa_params *sp,
			     char *why, size_t why_n)
{
	struct eval_cuda *c = (struct eval_cuda *)b;
	if (sp->chains != c->pop) {
		snprintf(why, why_n, "sa step: %u chains, %zu loaded",
			 sp->chains, c->pop);
		return -1;
	}
	c->tops_groups = 0;
	CUDA_LAUNCH(k_sa, blocks_for(c), BLOCK, *c, *sp);
	return cuda_fail(cudaGetLastError(), "sa step", why, why_n);
}

static int eval_cuda_tops(void *b, int of_best, uint32_t groups,
			  uint32_t keep, struct eval_top *tops, char *why,
			  size_t why_n)
{
	struct eval_cuda *c = (struct eval_cuda *)b;
	if (groups == 0 || c->pop % groups || keep == 0 ||
	    (size_t)groups * keep > c->pop) {
		snprintf(why, why_n, "tops: %u groups of %u in %zu", groups,
			 keep, c->pop);
		return -1;
	}
	uint32_t per = (uint32_t)(c->pop / groups);
	uint32_t slices = per < TOP_SLICES ? per : TOP_SLICES;
	size_t threads = (size_t)groups * slices, need = threads * keep;
	cudaError_t e = cudaSuccess;
	if (need > c->part_cap) {
		cudaFree(c->part);
		c->part = 0;
		c->part_cap = 0;
		e = cudaMalloc(&c->part, need * sizeof(*c->part));
		if (e == cudaSuccess)
			c->part_cap = need;
	}
	if (e == cudaSuccess) {
		CUDA_LAUNCH(k_top_part,
			    (unsigned)((threads + BLOCK - 1) / BLOCK), BLOCK,
			    of_best ? c->bscore : c->score[0], groups, per,
			    slices, keep, c->part);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess) {
		CUDA_LAUNCH(k_top_merge, (groups + BLOCK - 1) / BLOCK, BLOCK,
			    c->part, groups, slices, keep, c->tops);
		e = cudaGetLastError();
	}
	if (e == cudaSuccess) {
		c->tops_groups = of_best ? 0 : groups;
		c->tops_keep = keep;
		e = cudaMemcpy(tops, c->tops,
			       (size_t)groups * keep * sizeof(*tops),
			       cudaMemcpyDeviceToHost);
	}
	return cuda_fail(e, "tops", why, why_n);
}

static int eval_cuda_pop_scores(void *b, int64_t *cur, int64_t *best,
				char *why, size_t why_n)
{
	struct eval_cuda *c = (struct eval_cuda *)b;
	cudaError_t e = cudaSuccess;
	if (cur)
		e = cudaMemcpy(cur, c->score[0], c->pop * 8,
			       cudaMemcpyDeviceToHost);
	if (e == cudaSuccess && best)
		e = cudaMemcpy(best, c->bscore, c->pop * 8,
			       cudaMemcpyDeviceToHost);
	return cuda_fail(e, "scores", why, why_n);
}

static int eval_cuda_sa_reset(void *b, uint32_t from, char *why,
			      size_t why_n)
{
	struct eval_cuda *c = (struct eval_cuda *)b;
	if (from >= c->pop) {
		snprintf(why, why_n, "sa reset: no chain %u", from);
		return -1;
	}
	c->tops_groups = 0;
	CUDA_LAUNCH(k_reset, blocks_for(c), BLOCK, *c, from);
	return cuda_fail(cudaGetLastError(), "sa reset", why, why_n);
}

static int eval_cuda_pop_get(void *b, size_t idx, int best, uint32_t *perm,
			     uint8_t *genes, char *why, size_t why_n)
{
	struct eval_cuda *c = (struct eval_cuda *)b;
	size_t n = c->p.n;
	if (idx >= c->pop) {
		snprintf(why, why_n, "no candidate %zu of %zu", idx, c->pop);
		return -1;
	}
	cudaError_t e = cudaMemcpy(perm, (best ? c->best : c->perm[0]) +
				   idx * n, n * 4, cudaMemcpyDeviceToHost);
	if (e == cudaSuccess && genes)
		e = cudaMemcpy(genes, (best ? c->bgene : c->gene[0]) + idx * n,
			       n, cudaMemcpyDeviceToHost);
	return cuda_fail(e, "candidate", why, why_n);
}

extern "C" const struct eval_backend_ops eval_cuda_ops = {
	.name = "cuda",
	.probe = eval_cuda_probe,
	.open = eval_cuda_open,
	.close = eval_cuda_close,
	.threads = eval_cuda_threads,
	.score = eval_cuda_score,
	.pop_set = eval_cuda_pop_set,
	.tops = eval_cuda_tops,
	.ga_step = eval_cuda_ga_step,
	.sa_step = eval_cuda_sa_step,
	.sa_reset = eval_cuda_sa_reset,
	.pop_get = eval_cuda_pop_get,
	.pop_scores = eval_cuda_pop_scores,
};
