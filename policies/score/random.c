/*
 * random: Kubernetes-style GPU-sharing placement at random.
 *
 * What it does: every node that passes the filters (GPU model, CPU,
 * memory, GPU room) gets a random score, so the pod lands on a node drawn
 * uniformly among them; a pod asking a share of one GPU takes one of that
 * node's GPUs with room, drawn uniformly too.  The baseline of the paper's
 * comparison.  Draws come from the run's seed (splitmix64), one per node
 * that passes and one for the GPU, so a seed gives one placement.
 *
 * Source: "Random" in Weng et al., "Beware of Fragmentation: Scheduling
 * GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC
 * 2023, section 6.1.
 *
 * Parameters: none.
 *
 * Example: two idle nodes of 2 GPUs; a pod asking 0.5 GPU goes to either
 * node with probability 1/2 and, there, to either GPU with probability
 * 1/2.
 *
 * The score is the draw's top 53 bits.
 */
#include "clustersim/score.h"

static int64_t random_score(struct score_ctx *ctx, const struct score_pod *pod,
			    size_t n, const struct score_node *nd, int *gpu)
{
	int64_t s = (int64_t)(score_random(ctx) >> 11);
	if (score_pod_is_share(pod)) {
		unsigned k = score_gpus_with(nd, pod->milli);
		unsigned pick = (unsigned)(score_random(ctx) % k);
		for (uint32_t g = 0; g < nd->ngpus; g++) {
			if (nd->gpu_free[g] >= pod->milli && pick-- == 0) {
				*gpu = (int)g;
				break;
			}
		}
	}
	return s;
}

CLUSTERSIM_SCORE(random,
	.summary = "GPU-sharing placement: a random node that fits, a "
		   "random GPU with room",
	.score = random_score);
