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
 * In the event engine (replay), it starts jobs FCFS (frag.h); the score is
 * used by fill experiments.
 */
#include "fill/frag.h"

static double dotprod_score(struct frag_ctx *ctx, size_t n,
			    const struct frag_pod *pod, int *gpu)
{
	const struct frag_cluster *c = ctx->c;
	const struct frag_node *nd = &c->nodes[n];
	double cc = c->max_cpu;
	double gc = (double)(c->max_gpus ? c->max_gpus : 1) * FRAG_MILLI;
	double dot = (pod->cpu / cc) * (nd->cpu_free / cc) +
		     (frag_pod_gpu_milli(pod) / gc) * (nd->gpu_total / gc);
	if (pod->gpus > 0 && pod->milli < FRAG_MILLI)
		*gpu = frag_gpu_bestfit(nd, pod->milli);
	return -dot;
}

CLUSTERSIM_POLICY(dotprod,
	.summary = "GPU-sharing placement: the smallest dot product of "
		   "demand and free resources (score plugin)",
	.schedule = frag_engine_schedule,
	.frag_score = dotprod_score);
