/*
 * fgd: fragmentation gradient descent, Kubernetes-style GPU-sharing
 * placement that grows the expected GPU fragmentation least.
 *
 * What it does: for each node that passes the filters, and for a share pod
 * each GPU of it with room, computes how much the node's fragmentation
 * F_n (frag.h: the GPU share that the target workload's pods could not
 * use, in expectation over the workload's pod shapes) would grow if the
 * pod went there; the node and GPU with the least growth win (ties: the
 * lowest node, then the lowest GPU).  Whole-GPU pods take fully free GPUs
 * (which ones does not change F_n).  The target workload is the trace's
 * pod list, each pod one draw.
 *
 * Source: Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing
 * Workloads with Fragmentation Gradient Descent", USENIX ATC 2023,
 * sections 3-4.
 *
 * Parameters: none.
 *
 * Example: target workload half 0.5-GPU pods, half 1-GPU pods (CPU
 * ignored); nodes A (2 GPUs, free 0.5 and 1) and B (2 idle GPUs); a
 * 0.5-GPU pod.  F_A now: 0.5-pods can use both GPUs (0), 1-pods not the
 * half-used one (0.5): F_A = 0.25.  On A's GPU 0, A is left with 0 and 1:
 * F = 0 (delta -0.25); on A's GPU 1, with 0.5 and 0.5: F = 0.5 x 0 + 0.5
 * x 1 = 0.5 (delta +0.25); on B, B is left with 0.5 and 1: F = 0.25
 * (delta +0.25).  FGD picks A, GPU 0.
 *
 * The growth is compared exactly, in integer weights (frag_afterw():
 * thousandths of a GPU times the list's pods of each shape), so equal
 * growths tie and the lowest node wins; in floating point the same sum
 * taken in another order could split such a tie by its last bit.
 *
 * In the event engine (replay), it starts jobs FCFS (frag.h); the score is
 * used by fill experiments.
 */
#include "fill/frag.h"

static double fgd_score(struct frag_ctx *ctx, size_t n,
			const struct frag_pod *pod, int *gpu)
{
	const struct frag_cluster *c = ctx->c;
	const struct frag_node *nd = &c->nodes[n];
	if (!c->dist)
		return 0;
	if (pod->gpus == 0 || pod->milli == FRAG_MILLI)
		return -(double)(frag_afterw(c, n, pod, -1) - nd->fragw);
	/* A share: each GPU with room, once per distinct free share (two
	 * GPUs with the same free share leave the same node state). */
	int64_t best = 0;
	int best_g = -1;
	for (uint32_t g = 0; g < nd->ngpus; g++) {
		uint16_t f = nd->gpu_free[g];
		if (f < pod->milli)
			continue;
		bool seen = false;
		for (uint32_t k = 0; k < g && !seen; k++)
			seen = nd->gpu_free[k] == f;
		if (seen)
			continue;
		int64_t d = frag_afterw(c, n, pod, (int)g) - nd->fragw;
		if (best_g < 0 || d < best) {
			best = d;
			best_g = (int)g;
		}
	}
	*gpu = best_g;
	return -(double)best; /* exact: |best| < 2^53 */
}

CLUSTERSIM_POLICY(fgd,
	.summary = "GPU-sharing placement: fragmentation gradient descent, "
		   "the node and GPU that grow expected fragmentation least "
		   "(score plugin)",
	.schedule = frag_engine_schedule,
	.frag_score = fgd_score);
