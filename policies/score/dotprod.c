/*
 * dotprod: Kubernetes-style GPU-sharing placement by the dot product of
 * the pod's demand and the node's free resources.
 *
 * What it does: among the nodes that pass the filters, picks the one with
 * the smallest dot product of the pod's (CPU, GPU) demand and the node's
 * free (CPU, GPU), each normalised by the largest node of the cluster:
 *   dot = (cpu / max_cpu) (cpu_free / max_cpu)
 *       + (gpu / G) (gpu_free / G),   G = max_gpus x 1000
 * so a pod goes where the resources it asks for are scarcest (the
 * alignment idea of Tetris, turned to packing).  A share pod takes the GPU
 * with the least free share that still holds it (the smallest per-GPU
 * product).
 *
 * Source: "Dot-product" in Weng et al., "Beware of Fragmentation", USENIX
 * ATC 2023, section 6.1; after Grandl et al., "Multi-resource packing for
 * cluster schedulers" (Tetris), SIGCOMM 2014.
 *
 * Parameters: none.
 *
 * Example: max_cpu 8 cores, 2 GPUs per node.  A: 8 cores free, 1.5 GPUs
 * free; B: 4 cores free, 2 GPUs free.  A pod of 2 cores and 0.5 GPU:
 * A: 0.25 x 1 + 0.25 x 0.75 = 0.4375; B: 0.25 x 0.5 + 0.25 x 1 = 0.375:
 * B.
 *
 * The score is the dot product, negated, as an exact integer: multiplied
 * by max_cpu^2 x G^2 it is
 *   cpu x cpu_free x G^2 + gpu x gpu_free x max_cpu^2
 * (milli-cores and thousandths of a GPU).  That is exact while
 * 2 x max_cpu^2 x G^2 < 2^62 (e.g. 128 cores and 16 GPUs on a node); on
 * larger nodes the product is shifted right just enough to fit, which
 * can only make nearly equal nodes tie (then the lowest node wins).
 *
 * Integer scores (score_integer, the default), as the FGD paper's
 * simulator scores with its settings for this policy (dimExtMethod
 * "merge", normMethod "max", gpuSelMethod "best":
 * hkust-adsl/kubernetes-scheduler-simulator, commit 8f3d641,
 * experiments/run_scripts/generate_run_scripts.py, and
 * pkg/simulator/plugin/dot_product_score.go calculateDotProductScore):
 * int(100 x (1 - dot / 2)), in doubles, no normalisation; many nodes tie.
 * In the example: A int(78.125) = 78, B int(81.25) = 81: B.
 */
#include "clustersim/score.h"

/* The simulator's integer score. */
static int64_t dotprod_int(struct score_ctx *ctx, const struct score_pod *pod,
			   const struct score_node *nd)
{
	double cc = score_max_cpu(ctx);
	double gc = (double)score_max_gpus(ctx) * SCORE_MILLI;
	double dot = 0;
	dot += (nd->cpu_free / cc) * (pod->cpu / cc);
	dot += (nd->gpu_total / gc) * (score_pod_gpu_milli(pod) / gc);
	double s = 1 - dot / 2;
	return (int64_t)(SCORE_MAX_NODE * s);
}

/* Bits of x (0 for 0). */
static unsigned dotprod_bits(unsigned __int128 x)
{
	uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
	if (hi)
		return 128u - (unsigned)__builtin_clzll(hi);
	return lo ? 64u - (unsigned)__builtin_clzll(lo) : 0;
}

static int64_t dotprod_score(struct score_ctx *ctx,
			     const struct score_pod *pod, size_t n,
			     const struct score_node *nd, int *gpu)
{
	if (score_integer(ctx)) {
		if (score_pod_is_share(pod))
			*gpu = score_gpu_bestfit(nd, pod->milli);
		return dotprod_int(ctx, pod, nd);
	}
	uint64_t cc = score_max_cpu(ctx);
	uint64_t gc = (uint64_t)score_max_gpus(ctx) * SCORE_MILLI;
	unsigned __int128 cc2 = (unsigned __int128)cc * cc, gc2 = gc * gc;
	unsigned __int128 dot =
		(unsigned __int128)((uint64_t)pod->cpu * nd->cpu_free) * gc2 +
		(unsigned __int128)((uint64_t)score_pod_gpu_milli(pod) *
				    nd->gpu_total) * cc2;
	unsigned bits = dotprod_bits(2 * cc2 * gc2);
	if (bits > 62)
		dot >>= bits - 62;
	if (score_pod_is_share(pod))
		*gpu = score_gpu_bestfit(nd, pod->milli);
	return -(int64_t)dot;
}

CLUSTERSIM_SCORE(dotprod,
	.summary = "GPU-sharing placement: the smallest dot product of "
		   "demand and free resources",
	.score = dotprod_score);
