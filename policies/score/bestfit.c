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
 */
#include "clustersim/score.h"

static int64_t bestfit_score(struct score_ctx *ctx,
			     const struct score_pod *pod, size_t n,
			     const struct score_node *nd, int *gpu)
{
	int64_t cpu_cap = score_max_cpu(ctx);
	int64_t gpu_cap = (int64_t)score_max_gpus(ctx) * SCORE_MILLI;
	int64_t left = ((int64_t)nd->cpu_free - pod->cpu) * gpu_cap +
		       ((int64_t)nd->gpu_total - score_pod_gpu_milli(pod)) *
			       cpu_cap;
	if (score_pod_is_share(pod))
		*gpu = score_gpu_bestfit(nd, pod->milli);
	return -left;
}

CLUSTERSIM_SCORE(bestfit,
	.summary = "GPU-sharing placement: the node with the least CPU and "
		   "GPU left over, best-fit GPU",
	.score = bestfit_score);
