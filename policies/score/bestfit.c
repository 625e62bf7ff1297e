/*
 * bestfit: Kubernetes-style GPU-sharing placement on the node with the
 * least left over.
 *
 * What it does: among the nodes that pass the filters, picks the one whose
 * CPU and GPU left after the pod would be smallest, each normalised by the
 * largest node of the cluster and weighted equally:
 *   leftover = 0.5 (cpu_free - cpu) / max_cpu
 *            + 0.5 (gpu_free - gpu) / (max_gpus x 1000)
 * (gpu_free: the node's free GPU share in all, thousandths; gpu: the pod's
 * GPU demand).  A share pod takes the GPU with the least free share that
 * still holds it.
 *
 * Source: "Best-fit" in Weng et al., "Beware of Fragmentation", USENIX ATC
 * 2023, section 6.1 (after Kubernetes' MostAllocated scoring).
 *
 * Parameters: none.
 *
 * Example: nodes A (8 CPU cores, 2 GPUs, one half used) and B (8 cores,
 * 2 idle GPUs); a pod of 1 core and 0.5 GPU: leftover on A is
 * 0.5 x 7/8 + 0.5 x 1000/2000 = 0.6875, on B 0.5 x 7/8 + 0.5 x 1500/2000
 * = 0.8125: A, on its half-used GPU.
 *
 * The score is the leftover, negated, as an exact integer: multiplied by
 * 2 x max_cpu x G (G = max_gpus x 1000) it is
 *   (cpu_free - cpu) x G + (gpu_free - gpu) x max_cpu
 * (in the example, with max_cpu 8000 and G 2000: A 7000 x 2000 + 1000 x
 * 8000 = 22,000,000, B 7000 x 2000 + 1500 x 8000 = 26,000,000).
 *
 * Integer scores (score_integer, the default), as the FGD paper's
 * simulator scores (hkust-adsl/kubernetes-scheduler-simulator, commit
 * 8f3d641, pkg/simulator/plugin/best_fit_score.go getBestFitScore and
 * NormalizeScore in plugin_utils.go): int((1 - leftover) x 100), in
 * doubles in that file's order, then Kubernetes' min-max normalisation
 * over the nodes that passed (score_normalize_minmax), which can make
 * nodes of different leftovers tie.  In the example: A int(31.25) = 31,
 * B int(18.75) = 18; normalised A 100, B 0.
 */
#include "clustersim/score.h"

/* The simulator's integer score before normalisation. */
static int64_t bestfit_int(struct score_ctx *ctx, const struct score_pod *pod,
			   const struct score_node *nd)
{
	double cpu_cap = score_max_cpu(ctx);
	double gpu_cap = (double)score_max_gpus(ctx) * SCORE_MILLI;
	double s = 0;
	s += ((double)nd->cpu_free - pod->cpu) / cpu_cap * 0.5;
	s += ((double)nd->gpu_total - score_pod_gpu_milli(pod)) / gpu_cap *
	     0.5;
	return (int64_t)((1.0 - s) * SCORE_MAX_NODE);
}

static int64_t bestfit_score(struct score_ctx *ctx,
			     const struct score_pod *pod, size_t n,
			     const struct score_node *nd, int *gpu)
{
	if (score_integer(ctx)) {
		if (score_pod_is_share(pod))
			*gpu = score_gpu_bestfit(nd, pod->milli);
		return bestfit_int(ctx, pod, nd);
	}
	int64_t cpu_cap = score_max_cpu(ctx);
	int64_t gpu_cap = (int64_t)score_max_gpus(ctx) * SCORE_MILLI;
	int64_t left = ((int64_t)nd->cpu_free - pod->cpu) * gpu_cap +
		       ((int64_t)nd->gpu_total - score_pod_gpu_milli(pod)) *
			       cpu_cap;
	if (score_pod_is_share(pod))
		*gpu = score_gpu_bestfit(nd, pod->milli);
	return -left;
}

/* Integer scores only: Kubernetes' min-max normalisation. */
static void bestfit_normalize(struct score_ctx *ctx,
			      const struct score_pod *pod, const size_t *nodes,
			      int64_t *scores, size_t count)
{
	(void)pod;
	(void)nodes;
	if (score_integer(ctx))
		score_normalize_minmax(scores, count);
}

CLUSTERSIM_SCORE(bestfit,
	.summary = "GPU-sharing placement: the node with the least CPU and "
		   "GPU left over, best-fit GPU",
	.score = bestfit_score, .normalize = bestfit_normalize);
