/*
 * emptiest: an out-of-tree score plugin, built as a shared object the way
 * a user would build one, to test --plugin with score plugins.
 *
 * What it does: places a pod on the node with the most free GPU share
 * (spreading, the opposite of bestfit), its raw score the free share in
 * thousandths, normalised onto 0..100 as Kubernetes' framework does.  A
 * share pod takes the engine's best-fit GPU (it names none).
 *
 * Build: cc -shared -fPIC -DCLUSTERSIM_PLUGIN -I include -o emptiest.so
 * this.c
 */
#include "clustersim/score.h"

static int64_t emptiest_score(struct score_ctx *ctx,
			      const struct score_pod *pod, size_t n,
			      const struct score_node *nd, int *gpu)
{
	(void)ctx;
	(void)pod;
	(void)n;
	(void)gpu;
	return nd->gpu_total;
}

static void emptiest_normalize(struct score_ctx *ctx,
			       const struct score_pod *pod,
			       const size_t *nodes, int64_t *scores,
			       size_t count)
{
	(void)ctx;
	(void)pod;
	(void)nodes;
	score_normalize_minmax(scores, count);
}

CLUSTERSIM_SCORE(emptiest,
	.summary = "the node with the most free GPU share (an example "
		   "plug-in)",
	.score = emptiest_score,
	.normalize = emptiest_normalize);
