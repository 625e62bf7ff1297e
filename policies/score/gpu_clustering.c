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
 * As an integer: tier x (S + 1) + the used share of the node's GPUs as a
 * fraction of S = 720,720,000 (1000 x lcm(1..16), so the fraction is
 * exact for every GPU count up to SCORE_MAX_GPUS).
 *
 * Integer scores (score_integer, the default), as the FGD paper's
 * simulator scores (hkust-adsl/kubernetes-scheduler-simulator, commit
 * 8f3d641, pkg/simulator/plugin/gpu_clustering_score.go): tier t (3 to 0
 * for tiers 4 to 1 above) gives 25 x (G - free) / G + 25 t in integers
 * (G: the most GPUs on a node x 1000, the simulator's MaxSpecGpu 8000 on
 * openb; free: the node's free GPU share in all), no normalisation.
 * There a pod's kind (pkg/type/open-gpu-share/utils/pod.go
 * GetGpuAffinityFromPodAnnotation) is "share-gpu" for every share pod and
 * "<n>-gpu" for n whole GPUs: the fill runner numbers kinds so
 * (fill_kinds_share_gpu) when it scores in integers.  In the example (G
 * 2000), the 0.5-GPU pod and the 0.2-GPU one alike (one share-gpu kind):
 * A 25 x 500 / 2000 + 75 = 81, B 25 x 300 / 2000 + 75 = 78, C 25: A; a
 * 1-GPU pod: A 6, B 3 (other kinds only), C 25: C.
 */
#include "clustersim/score.h"

/* 1000 x lcm(1, .., SCORE_MAX_GPUS): the integer scale of the share of a
 * node's GPUs in use. */
#define CLUSTERING_SCALE (720720ll * SCORE_MILLI)

static int64_t gpu_clustering_score(struct score_ctx *ctx,
				    const struct score_pod *pod, size_t n,
				    const struct score_node *nd, int *gpu)
{
	if (pod->gpus == 0)
		return 0;
	if (pod->milli < SCORE_MILLI)
		*gpu = score_gpu_bestfit(nd, pod->milli);
	bool have = score_kind_pods(ctx, n, pod->kind) > 0;
	if (score_integer(ctx)) {
		int64_t g = (int64_t)score_max_gpus(ctx) * SCORE_MILLI;
		int64_t t = have ? (nd->nkinds == 1 ? 3 : 2) : (nd->nkinds ? 0 : 1);
		int64_t q = SCORE_MAX_NODE / 4;
		return q * (g - nd->gpu_total) / g + q * t;
	}
	int64_t tier = have ? (nd->nkinds == 1 ? 4 : 3) : (nd->nkinds ? 1 : 2);
	int64_t ngpus = nd->ngpus ? nd->ngpus : 1;
	int64_t used = ngpus * SCORE_MILLI - nd->gpu_total;
	return tier * (CLUSTERING_SCALE + 1) +
	       used * (CLUSTERING_SCALE / SCORE_MILLI / ngpus);
}

CLUSTERSIM_SCORE(gpu_clustering,
	.summary = "GPU-sharing placement: pods of equal GPU demand packed "
		   "together",
	.score = gpu_clustering_score);
