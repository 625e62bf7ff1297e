/*
 * A score plugin built for another version of score.h, as one built
 * against an old or future include/clustersim would be: the loader must
 * refuse it before calling any of its code.
 */
#include "clustersim/score.h"

static int64_t never_score(struct score_ctx *ctx, const struct score_pod *pod,
			   size_t n, const struct score_node *nd, int *gpu)
{
	(void)ctx;
	(void)pod;
	(void)n;
	(void)nd;
	(void)gpu;
	__builtin_trap(); /* must never run */
}

__attribute__((visibility("default")))
const struct score_ops clustersim_score = {
	.version = CLUSTERSIM_SCORE_VERSION + 1,
	.size = sizeof(struct score_ops),
	.name = "from_the_future",
	.score = never_score,
};
