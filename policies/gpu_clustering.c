/*
 * gpu_clustering: Kubernetes-style GPU-sharing placement that keeps pods
 * of the same GPU demand together.
 *
 * What it does: a pod's kind is its GPU demand (GPU count and per-GPU
 * share: "0.5 GPU", "1 GPU", "8 GPUs").  Each node that passes the filters
 * is scored in four tiers, higher first:
 *   4. it holds pods of this kind only;
 *   3. it holds pods of this kind and of others;
 *   2. it holds no GPU pod;
 *   1. it holds only pods of other kinds;
 * within a tier, the node with less free GPU share wins (a fraction in
 * [0, 1) added to the tier).  A share pod takes the GPU with the least
 * free share that holds it.  A CPU-only pod scores 0 everywhere and
 * takes the first node that fits.
 *
 * Source: "GPU Clustering" in Weng et al., "Beware of Fragmentation",
 * USENIX ATC 2023, section 6.1.
 *
 * Parameters: none.
 *
 * Example: A holds one 0.5-GPU pod, B one 0.3-GPU pod, C is idle (2 GPUs
 * each).  Another 0.5-GPU pod goes to A (tier 4); a 0.2-GPU pod to C
 * (tier 2, over B's tier 1).
 *
 * In the event engine (replay), it starts jobs FCFS (frag.h); the score is
 * used by fill experiments.
 */
#include "fill/frag.h"

static double gpu_clustering_score(struct frag_ctx *ctx, size_t n,
				   const struct frag_pod *pod, int *gpu)
{
	const struct frag_cluster *c = ctx->c;
	const struct frag_node *nd = &c->nodes[n];
	if (pod->gpus == 0)
		return 0;
	if (pod->milli < FRAG_MILLI)
		*gpu = frag_gpu_bestfit(nd, pod->milli);
	bool have = c->kind_pods && pod->kind < c->nkinds &&
		    c->kind_pods[n * c->nkinds + pod->kind] > 0;
	double tier = have ? (nd->nkinds == 1 ? 4 : 3) : (nd->nkinds ? 1 : 2);
	double cap = (double)(nd->ngpus ? nd->ngpus : 1) * FRAG_MILLI;
	return tier + 0.999 * (1 - nd->gpu_total / cap);
}

CLUSTERSIM_POLICY(gpu_clustering,
	.summary = "GPU-sharing placement: pods of equal GPU demand packed "
		   "together (score plugin)",
	.schedule = frag_engine_schedule,
	.frag_score = gpu_clustering_score);
