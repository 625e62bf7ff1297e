/*
 * A score plugin named like a built-in one (fgd): the loader must refuse
 * it by name, with a message, and without reading the plug-in after it
 * unloads it.
 */
#include "clustersim/score.h"

static int64_t clash_score(struct score_ctx *ctx, const struct score_pod *pod,
			   size_t n, const struct score_node *node, int *gpu)
{
	(void)ctx;
	(void)pod;
	(void)n;
	(void)gpu;
	return node->gpu_total;
}

CLUSTERSIM_SCORE(fgd,
	.summary = "a plug-in that takes a built-in's name",
	.score = clash_score);
