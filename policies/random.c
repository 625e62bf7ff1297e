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
 * In the event engine (replay), it starts jobs FCFS (frag.h); the score is
 * used by fill experiments.
 */
#include "cluster/cluster.h"
#include "fill/frag.h"

static double random_score(struct frag_ctx *ctx, size_t n,
			   const struct frag_pod *pod, int *gpu)
{
	double s = (double)(place_rng_next(&ctx->rng) >> 11);
	const struct frag_node *nd = &ctx->c->nodes[n];
	if (pod->gpus > 0 && pod->milli < FRAG_MILLI) {
		unsigned k = frag_gpus_with(nd, pod->milli);
		unsigned pick = (unsigned)(place_rng_next(&ctx->rng) % k);
		for (uint32_t g = 0; g < nd->ngpus; g++) {
			if (nd->gpu_free[g] >= pod->milli && pick-- == 0) {
				*gpu = (int)g;
				break;
			}
		}
	}
	return s;
}

CLUSTERSIM_POLICY(random,
	.summary = "GPU-sharing placement: a random node that fits, a "
		   "random GPU with room (score plugin)",
	.schedule = frag_engine_schedule,
	.frag_score = random_score);
