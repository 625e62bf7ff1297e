/*
 * The engine's side of the score-plugin contract (clustersim/score.h):
 * the placement step every score plugin shares - filter, score, optional
 * normalisation, pick - and the calls through which a plugin sees the
 * rest of the cluster.  The fill and replay runs (fill.c, fill_replay.c)
 * place every pod through frag_choose().
 *
 * Ties: with exact scores (c->integer false) the lowest node index wins.
 * With Kubernetes' integer scores the FGD paper's simulator's rule holds
 * (hkust-adsl/kubernetes-scheduler-simulator, commit 8f3d641,
 * vendor/k8s.io/kubernetes/pkg/scheduler/core/generic_scheduler.go
 * selectHost: the lowest node name among the highest scores, where
 * upstream Kubernetes draws one at random); its nodes are named after a
 * random permutation of their sorted names (pkg/simulator/simulator.go,
 * syncClusterResourceList: "%04d-" + rand.Perm), so the tie goes to the
 * node lowest in a random node order drawn once per run (rank[]).
 *
 * Speed: frag_choose() runs for every pod on every node.  Without a
 * normalize() it keeps only the best so far; with one it first collects
 * every feasible node's score in the context's scratch arrays, which grow
 * once and are reused from pod to pod.
 */
#include "fill/frag.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cluster/cluster.h"

void frag_ctx_init(struct score_ctx *ctx, const struct frag_cluster *c,
		   uint64_t rng)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->c = c;
	ctx->rng = rng;
	if (!c->integer || c->nnodes == 0)
		return;
	/* The run's node order: Fisher-Yates on a stream of its own, so
	 * the plugins' draws are those of a run with exact scores. */
	uint64_t s = rng ^ 0x6e6f64655f6f7264ull; /* "node_ord" */
	ctx->rank = xmalloc(c->nnodes * sizeof(*ctx->rank));
	for (size_t i = 0; i < c->nnodes; i++)
		ctx->rank[i] = (uint32_t)i;
	for (size_t i = c->nnodes; i > 1; i--) {
		size_t j = (size_t)(place_rng_next(&s) % i);
		uint32_t t = ctx->rank[i - 1];
		ctx->rank[i - 1] = ctx->rank[j];
		ctx->rank[j] = t;
	}
}

/* Does node n, scored s, beat node best, scored bs?  Higher wins; a tie
 * goes to the lower rank (integer scores) or is kept (the lower index,
 * as nodes come in index order). */
static bool beats(const struct score_ctx *ctx, size_t n, int64_t s,
		  size_t best, int64_t bs)
{
	if (s != bs)
		return s > bs;
	return ctx->rank && ctx->rank[n] < ctx->rank[best];
}

void frag_ctx_release(struct score_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->nodes);
	free(ctx->scores);
	free(ctx->gpus);
	free(ctx->rank);
	ctx->rank = NULL;
	ctx->nodes = NULL;
	ctx->scores = NULL;
	ctx->gpus = NULL;
	ctx->cap = 0;
}

/* The GPU a share pod takes on node n: the plugin's when it has room,
 * else the best-fit one (the engine never over-commits a GPU); -1 for
 * other pods. */
static int share_gpu(const struct frag_cluster *c, size_t n,
		     const struct score_pod *pod, int gpu)
{
	if (!score_pod_is_share(pod))
		return -1;
	const struct score_node *nd = &c->nodes[n];
	if (gpu < 0 || (uint32_t)gpu >= nd->ngpus ||
	    nd->gpu_free[gpu] < pod->milli)
		return score_gpu_bestfit(nd, pod->milli);
	return gpu;
}

/* frag_choose() for a plugin with normalize(): every feasible node's
 * score first. */
static long choose_normalized(struct score_ctx *ctx,
			      const struct score_ops *ops,
			      const struct score_pod *pod, int *gpu)
{
	const struct frag_cluster *c = ctx->c;
	size_t k = 0;
	for (size_t n = 0; n < c->nnodes; n++) {
		if (!frag_fits(c, n, pod))
			continue;
		if (k == ctx->cap) {
			size_t cap = ctx->cap ? 2 * ctx->cap : 64;
			ctx->nodes = xrealloc(ctx->nodes,
					      cap * sizeof(*ctx->nodes));
			ctx->scores = xrealloc(ctx->scores,
					       cap * sizeof(*ctx->scores));
			ctx->gpus = xrealloc(ctx->gpus,
					     cap * sizeof(*ctx->gpus));
			ctx->cap = cap;
		}
		int g = -1;
		ctx->nodes[k] = n;
		ctx->scores[k] = ops->score(ctx, pod, n, &c->nodes[n], &g);
		ctx->gpus[k] = g;
		k++;
	}
	if (k == 0) {
		*gpu = -1;
		return -1;
	}
	ops->normalize(ctx, pod, ctx->nodes, ctx->scores, k);
	size_t best = 0;
	for (size_t i = 1; i < k; i++)
		if (beats(ctx, ctx->nodes[i], ctx->scores[i],
			  ctx->nodes[best], ctx->scores[best]))
			best = i;
	*gpu = share_gpu(c, ctx->nodes[best], pod, ctx->gpus[best]);
	return (long)ctx->nodes[best];
}

long frag_choose(struct score_ctx *ctx, const struct score_ops *ops,
		 const struct score_pod *pod, int *gpu)
{
	if (ops->normalize)
		return choose_normalized(ctx, ops, pod, gpu);
	const struct frag_cluster *c = ctx->c;
	long best = -1;
	int64_t best_score = 0;
	int best_gpu = -1;
	for (size_t n = 0; n < c->nnodes; n++) {
		if (!frag_fits(c, n, pod))
			continue;
		int g = -1;
		int64_t s = ops->score(ctx, pod, n, &c->nodes[n], &g);
		if (best < 0 || beats(ctx, n, s, (size_t)best, best_score)) {
			best = (long)n;
			best_score = s;
			best_gpu = g;
		}
	}
	*gpu = best >= 0 ? share_gpu(c, (size_t)best, pod, best_gpu) : -1;
	return best;
}

/* ---- what a plugin sees ------------------------------------------------- */

uint32_t score_max_cpu(const struct score_ctx *ctx)
{
	return ctx->c->max_cpu ? ctx->c->max_cpu : 1;
}

uint32_t score_max_gpus(const struct score_ctx *ctx)
{
	return ctx->c->max_gpus ? ctx->c->max_gpus : 1;
}

uint32_t score_kind_pods(const struct score_ctx *ctx, size_t n,
			 uint32_t kind)
{
	const struct frag_cluster *c = ctx->c;
	if (!c->kind_pods || kind >= c->nkinds || n >= c->nnodes)
		return 0;
	return c->kind_pods[n * c->nkinds + kind];
}

bool score_has_target(const struct score_ctx *ctx)
{
	return ctx->c->dist != NULL;
}

int64_t score_frag(const struct score_ctx *ctx, size_t n)
{
	return ctx->c->dist ? ctx->c->fragw[n] : 0;
}

int64_t score_frag_after(const struct score_ctx *ctx, size_t n,
			 const struct score_pod *pod, int gpu)
{
	return ctx->c->dist ? frag_afterw(ctx->c, n, pod, gpu) : 0;
}

bool score_integer(const struct score_ctx *ctx)
{
	return ctx->c->integer;
}

uint64_t score_frag_weight(const struct score_ctx *ctx)
{
	return ctx->c->dist && ctx->c->dist->w_total ? ctx->c->dist->w_total
						     : 1;
}

uint64_t score_random(struct score_ctx *ctx)
{
	return place_rng_next(&ctx->rng);
}
