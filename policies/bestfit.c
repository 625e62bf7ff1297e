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
 * The leftover is compared exactly, in integers: multiplied by
 * 2 x max_cpu x G (G = max_gpus x 1000) it is
 *   (cpu_free - cpu) x G + (gpu_free - gpu) x max_cpu
 * so nodes of equal leftover tie, and the lowest of them wins (in
 * floating point the two terms' rounding could split such a tie either
 * way).
 *
 * In the event engine (replay), it starts jobs FCFS (frag.h); the score is
 * used by fill experiments.
 */
#include "fill/frag.h"

static double bestfit_score(struct frag_ctx *ctx, size_t n,
			    const struct frag_pod *pod, int *gpu)
{
	const struct frag_cluster *c = ctx->c;
	const struct frag_node *nd = &c->nodes[n];
	int64_t cpu_cap = c->max_cpu ? c->max_cpu : 1;
	int64_t gpu_cap = (int64_t)(c->max_gpus ? c->max_gpus : 1) * FRAG_MILLI;
	int64_t left = ((int64_t)nd->cpu_free - pod->cpu) * gpu_cap +
		       ((int64_t)nd->gpu_total - frag_pod_gpu_milli(pod)) *
			       cpu_cap;
	if (pod->gpus > 0 && pod->milli < FRAG_MILLI)
		*gpu = frag_gpu_bestfit(nd, pod->milli);
	return -(double)left; /* exact: |left| < 2^53 */
}

CLUSTERSIM_POLICY(bestfit,
	.summary = "GPU-sharing placement: the node with the least CPU and "
		   "GPU left over, best-fit GPU (score plugin)",
	.schedule = frag_engine_schedule,
	.frag_score = bestfit_score);
