/*
 * gpu_packing: Kubernetes-style GPU-sharing placement that fills partly
 * used GPUs first, then partly used nodes, then idle ones.
 *
 * What it does: scores each node that passes the filters in three tiers,
 * higher first:
 *   3. a share pod fits on a GPU already partly used: the score falls with
 *      that GPU's free share (the fullest such GPU wins);
 *   2. the pod needs fully free GPUs, on a node already partly used: the
 *      score falls with the node's free GPU share in all;
 *   1. the node is idle: the score falls with its GPU count (keep big
 *      idle nodes for big pods).
 * A share pod takes the GPU with the least free share that holds it
 * (partly used ones first, by construction).  A CPU-only pod scores 0
 * everywhere and takes the first node that fits.
 *
 * Source: "GPU Packing" in Weng et al., "Beware of Fragmentation", USENIX
 * ATC 2023, section 6.1.
 *
 * Parameters: none.
 *
 * Example: A (2 GPUs, free 0.3 and 1), B (2 GPUs, free 0.6 and 1), C
 * (2 idle GPUs).  A pod of 0.5 GPU: A's partly used GPU is too small, so
 * A is tier 2; B's GPU 0 holds it: tier 3: B, GPU 0.  A pod of 1 GPU:
 * A and B are tier 2 with 1.3 and 1.6 GPUs free: A (GPU 1).
 *
 * Scores: tier x 1,000,000 less the free share (thousandths) or the GPU
 * count, so each tier's scores stay above the next tier's.
 *
 * Integer scores (score_integer, the default), as the FGD paper's
 * simulator scores (hkust-adsl/kubernetes-scheduler-simulator, commit
 * 8f3d641, pkg/simulator/plugin/gpu_packing_score.go getPackingScore), no
 * normalisation:
 *   idle node:   max(33 - GPUs, GPUs);
 *   the pod needs fully free GPUs (k of them: a whole-GPU pod's count,
 *   1 for a share whose best-fit GPU is idle): max(50 - k, 33);
 *   a share on a partly used GPU of free share f (thousandths):
 *   max(100 - (f x 100 / 1000) / 10, 50), in integers.
 * So within tier 2 the node's free share does not count (every such node
 * of a pod ties, and the node order decides), and in tier 3 only tenths
 * of a GPU do.  In the example, the 0.5-GPU pod: B 100 - 6 = 94, A 49,
 * C 31; the 1-GPU pod: A and B 49, tied.
 */
#include "clustersim/score.h"

/* Larger of two. */
static int64_t packing_max(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* The simulator's integer score. */
static int64_t packing_int(const struct score_pod *pod,
			   const struct score_node *nd, int *gpu)
{
	int g = -1;
	if (pod->milli < SCORE_MILLI)
		*gpu = g = score_gpu_bestfit(nd, pod->milli);
	if (nd->gpu_whole == nd->ngpus)
		return packing_max(SCORE_MAX_NODE / 3 - (int64_t)nd->ngpus,
				   nd->ngpus);
	if (g < 0 || nd->gpu_free[g] == SCORE_MILLI)
		return packing_max(SCORE_MAX_NODE / 2 -
					   (g < 0 ? (int64_t)pod->gpus : 1),
				   SCORE_MAX_NODE / 3);
	int64_t f = (int64_t)nd->gpu_free[g] * 100 / SCORE_MILLI;
	return packing_max(SCORE_MAX_NODE - f / 10, SCORE_MAX_NODE / 2);
}

static int64_t gpu_packing_score(struct score_ctx *ctx,
				 const struct score_pod *pod, size_t n,
				 const struct score_node *nd, int *gpu)
{
	if (pod->gpus == 0)
		return 0;
	if (score_integer(ctx))
		return packing_int(pod, nd, gpu);
	if (pod->milli < SCORE_MILLI) {
		int g = score_gpu_bestfit(nd, pod->milli);
		*gpu = g;
		if (nd->gpu_free[g] < SCORE_MILLI)
			return 3000000 - (int64_t)nd->gpu_free[g];
	}
	if (nd->gpu_whole < nd->ngpus)
		return 2000000 - (int64_t)nd->gpu_total;
	return 1000000 - (int64_t)nd->ngpus;
}

CLUSTERSIM_SCORE(gpu_packing,
	.summary = "GPU-sharing placement: partly used GPUs first, then "
		   "partly used nodes, then idle ones",
	.score = gpu_packing_score);
