/*
 * fgd: fragmentation gradient descent, Kubernetes-style GPU-sharing
 * placement that grows the expected GPU fragmentation least.
 *
 * What it does: for each node that passes the filters, and for a share pod
 * each GPU of it with room, computes how much the node's fragmentation
 * F_n (score_frag(): the GPU share that the target workload's pods could not
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
 * The score is the growth, negated, in the exact integer units of
 * score_frag() (thousandths of a GPU times the target list's pod count),
 * so equal growths tie exactly.
 *
 * Integer scores (score_integer, the default), as the FGD paper's
 * simulator scores (hkust-adsl/kubernetes-scheduler-simulator, commit
 * 8f3d641, pkg/simulator/plugin/fgd_score.go
 * calculateGpuShareFragExtendScore): int(sigmoid(-delta / 1000) x 100)
 * with delta the growth in thousandths of a GPU, no normalisation; a
 * share pod takes the first GPU (lowest index) of the highest integer
 * score.  A growth within about +-0.01 GPU of another scores the same, so
 * many nodes tie.  In the example: A's GPU 0 int(sigmoid(0.25) x 100) =
 * 56, A's GPU 1 and B int(sigmoid(-0.25) x 100) = 43: A, GPU 0.
 */
#include <math.h>

#include "clustersim/score.h"

/* The simulator's integer score of a growth d (integer weights). */
static int64_t fgd_int(const struct score_ctx *ctx, int64_t d)
{
	double x = -(double)d / (double)score_frag_weight(ctx) / 1000.0;
	return (int64_t)(1.0 / (1.0 + exp(-x)) * SCORE_MAX_NODE);
}

static int64_t fgd_score(struct score_ctx *ctx, const struct score_pod *pod,
			 size_t n, const struct score_node *nd, int *gpu)
{
	if (!score_has_target(ctx))
		return 0;
	int64_t now = score_frag(ctx, n);
	bool in = score_integer(ctx);
	if (pod->gpus == 0 || pod->milli == SCORE_MILLI) {
		int64_t d = score_frag_after(ctx, n, pod, -1) - now;
		return in ? fgd_int(ctx, d) : -d;
	}
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
		int64_t d = score_frag_after(ctx, n, pod, (int)g) - now;
		if (in)
			d = -fgd_int(ctx, d); /* lower is better below */
		if (best_g < 0 || d < best) {
			best = d;
			best_g = (int)g;
		}
	}
	*gpu = best_g;
	return -best;
}

CLUSTERSIM_SCORE(fgd,
	.summary = "GPU-sharing placement: fragmentation gradient descent, "
		   "the node and GPU that grow expected fragmentation least",
	.score = fgd_score);
