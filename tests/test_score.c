/*
 * The score-plugin contract (include/clustersim/score.h, sim/fill/score.c):
 * Kubernetes' min-max normalisation worked out by hand, the engine choosing
 * by normalized scores (and ties after normalisation going to the lowest
 * node), and the built-in plugins' tables passing the loader's checks.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <string.h>

#include "fill/frag.h"
#include "policy/registry.h"
#include "base/util.h"

/*
 * Scores -50, 0, 150, 150, 25: lowest -50, highest 150, a range of 200.
 * (s + 50) x 100 / 200: 0, 25, 100, 100, 37 (37.5 rounded down).  All
 * equal: all 0.  The widest range, INT64_MIN .. INT64_MAX, must not
 * overflow: 0 and 100, and the middle 0 maps to 50 (2^63 x 100 /
 * (2^64 - 1) is a hair above 50).
 */
Test(score, normalize_minmax_by_hand)
{
	int64_t s[] = { -50, 0, 150, 150, 25 };
	score_normalize_minmax(s, ARRAY_SIZE(s));
	static const int64_t want[] = { 0, 25, 100, 100, 37 };
	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		cr_assert_eq(s[i], want[i], "score %zu: %lld", i,
			     (long long)s[i]);
	int64_t same[] = { 7, 7, 7 };
	score_normalize_minmax(same, 3);
	for (size_t i = 0; i < 3; i++)
		cr_assert_eq(same[i], SCORE_MIN_NODE);
	int64_t wide[] = { INT64_MIN, 0, INT64_MAX };
	score_normalize_minmax(wide, 3);
	cr_assert_eq(wide[0], 0);
	cr_assert_eq(wide[1], 50);
	cr_assert_eq(wide[2], 100);
}

/* What the test plugin's normalize() was given, for the test to check. */
static size_t seen_count;
static size_t seen_nodes[8];

/* Score: the node's free GPU share, thousandths. */
static int64_t free_score(struct score_ctx *ctx, const struct score_pod *pod,
			  size_t n, const struct score_node *nd, int *gpu)
{
	return nd->gpu_total;
}

/* Min-max onto 0..100, then reversed: the fullest node scores 100. */
static void fullest_normalize(struct score_ctx *ctx,
			      const struct score_pod *pod,
			      const size_t *nodes, int64_t *scores,
			      size_t count)
{
	seen_count = count;
	for (size_t i = 0; i < count && i < ARRAY_SIZE(seen_nodes); i++)
		seen_nodes[i] = nodes[i];
	score_normalize_minmax(scores, count);
	for (size_t i = 0; i < count; i++)
		scores[i] = SCORE_MAX_NODE - scores[i];
}

static const struct score_ops fullest = {
	.version = CLUSTERSIM_SCORE_VERSION,
	.size = sizeof(struct score_ops),
	.name = "fullest",
	.score = free_score,
	.normalize = fullest_normalize,
};

/* Four nodes of 2 GPUs and 4 cores; node i holds held[i] thousandths of
 * GPU: a whole-GPU pod on GPU 0 when held[i] >= 1000, and the rest as a
 * share on the next GPU. */
static void four_nodes(struct frag_cluster *c, const uint32_t *held)
{
	frag_cluster_init(c);
	for (int i = 0; i < 4; i++)
		frag_cluster_add_node(c, 4000, 1000, 2, 0);
	frag_cluster_ready(c, 1, NULL);
	for (size_t i = 0; i < 4; i++) {
		uint32_t h = held[i];
		int g = 0;
		if (h >= 1000) {
			struct score_pod w = { .gpus = 1, .milli = 1000 };
			frag_place(c, i, &w, -1);
			h -= 1000;
			g = 1;
		}
		if (h) {
			struct score_pod p = { .gpus = 1, .milli = h };
			frag_place(c, i, &p, g);
		}
	}
}

/*
 * A pod of 1 core and 0.2 GPU; the nodes hold 0, 1000, 500 and 1500
 * thousandths: free 2000, 1000, 1500, 500 (node 3's GPU 1 has the 500,
 * room for the pod).  Raw scores 2000, 1000, 1500, 500: the raw best
 * would be node 0.  Normalized (lowest 500, range 1500): 100, 33, 66, 0;
 * reversed: 0, 67, 34, 100: node 3, the fullest, on GPU 1 (the plugin
 * names no GPU: the best-fit one).
 * Then four 1-core pods take node 3's cores: it fails the filter, and
 * normalize() gets nodes 0, 1, 2 alone: free 2000, 1000, 1500 -> 100, 0,
 * 50 -> reversed 0, 100, 50: node 1.
 */
Test(score, normalize_decides)
{
	struct frag_cluster c;
	static const uint32_t held[] = { 0, 1000, 500, 1500 };
	four_nodes(&c, held);
	cr_assert_eq(c.nodes[3].gpu_total, 500);
	struct score_ctx ctx;
	frag_ctx_init(&ctx, &c, 1);
	struct score_pod x = { .cpu = 1000, .gpus = 1, .milli = 200 };
	int gpu = -1;
	cr_assert_eq(frag_choose(&ctx, &fullest, &x, &gpu), 3);
	cr_assert_eq(seen_count, 4);
	cr_assert_eq(gpu, 1);
	struct score_pod core = { .cpu = 1000 };
	for (int k = 0; k < 4; k++)
		frag_place(&c, 3, &core, -1);
	cr_assert_eq(frag_choose(&ctx, &fullest, &x, &gpu), 1);
	cr_assert_eq(seen_count, 3);
	cr_assert(seen_nodes[0] == 0 && seen_nodes[1] == 1 &&
		  seen_nodes[2] == 2);
	frag_ctx_release(&ctx);
	frag_cluster_release(&c);
}

/*
 * Ties after normalisation go to the lowest node: the nodes hold 1000,
 * 0, 1000, 0 (free 1000, 2000, 1000, 2000): normalized 0, 100, 0, 100;
 * reversed 100, 0, 100, 0: nodes 0 and 2 tie, node 0 wins.
 */
Test(score, normalized_ties_go_to_the_lowest_node)
{
	struct frag_cluster c;
	static const uint32_t held[] = { 1000, 0, 1000, 0 };
	four_nodes(&c, held);
	struct score_ctx ctx;
	frag_ctx_init(&ctx, &c, 1);
	struct score_pod x = { .cpu = 0, .gpus = 1, .milli = 1000 };
	int gpu = 7;
	cr_assert_eq(frag_choose(&ctx, &fullest, &x, &gpu), 0);
	cr_assert_eq(gpu, -1);
	frag_ctx_release(&ctx);
	frag_cluster_release(&c);
}

/* Every built-in score plugin passes the loader's checks, and no name is
 * both a job policy and a score plugin. */
Test(score, builtins_pass_the_checks)
{
	struct registry reg;
	registry_init(&reg);
	cr_assert_geq(reg.nscores, 6);
	for (size_t i = 0; i < reg.nscores; i++) {
		struct sim_error err;
		const struct score_ops *ops = reg.scores[i];
		cr_assert_eq(score_ops_check(ops, &err), 0, "%s: %s",
			     ops->name, err.msg);
		cr_assert_eq(ops->size, sizeof(struct score_ops));
		cr_assert_null(registry_find(&reg, ops->name), "%s",
			       ops->name);
	}
	struct score_ops old = fullest;
	struct sim_error err;
	old.version = CLUSTERSIM_SCORE_VERSION + 1;
	cr_assert_neq(score_ops_check(&old, &err), 0);
	cr_assert(strstr(err.msg, "built for score-plugin version"));
	old = fullest;
	old.size = 8;
	cr_assert_neq(score_ops_check(&old, &err), 0);
	cr_assert(strstr(err.msg, "score plugin table of 8 bytes"), "%s",
		  err.msg);
	registry_release(&reg);
}
