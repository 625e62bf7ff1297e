/*
 * GPU sharing and fragmentation (sim/fill/frag.c, policies/score/{random,
 * dotprod,gpu_clustering,gpu_packing,bestfit,fgd}.c, sim/fill/fill.c,
 * sim/fill/trace_openb.c): fragmentation of hand-built node states against a
 * small pod distribution, each policy's choice on a two-node, four-GPU
 * cluster (worked out in the comments), shares never beyond one GPU under
 * random fills, and the openb readers.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exp/exp.h"
#include "fill/fill.h"
#include "policy/registry.h"
#include "base/util.h"

/* A built-in score plugin (its table is static: it outlives the
 * registry). */
static const struct score_ops *policy_score(const char *name)
{
	struct registry reg;
	registry_init(&reg);
	const struct score_ops *ops = registry_find_score(&reg, name);
	registry_release(&reg);
	cr_assert(ops, "score plugin %s", name);
	return ops;
}

/*
 * Distribution: A = 2 cores + 0.5 GPU (p 0.5), B = 4 cores + 2 whole GPUs
 * (p 0.25), C = 1 core, no GPU (p 0.25: it can use no GPU, so all free
 * share is fragment for it).  Node of 4 GPUs free [1000, 300, 600, 1000]
 * (T = 2900):
 *  - 3 cores free: A runs, GPUs below 500: 300 -> 0.5 x 300 = 150;
 *    B lacks CPU -> 0.25 x 2900 = 725; C -> 725.  F = 1600.
 *  - 8 cores free: A 150; B runs (two whole GPUs), GPUs below 1000:
 *    300 + 600 = 900 -> 225; C 725.  F = 1100.
 * Free [1000, 200, 200, 400], 8 cores: A runs (GPU 0), below 500: 800 ->
 * 400; B lacks a second whole GPU -> 0.25 x 1800 = 450; C 450.  F = 1300.
 * And a model constraint: A restricted to model 1 on a model-0 node
 * counts all 2900: 0.5 x 2900 + 225 + 725 = 2400.
 */
Test(frag, node_fragmentation_by_hand)
{
	struct frag_shape s[] = {
		{ .cpu = 2000, .gpus = 1, .milli = 500, .p = 0.5 },
		{ .cpu = 4000, .gpus = 2, .milli = 1000, .p = 0.25 },
		{ .cpu = 1000, .gpus = 0, .milli = 0, .p = 0.25 },
	};
	struct frag_dist d;
	cr_assert_eq(frag_dist_from_shapes(&d, s, 3), 0);
	uint16_t g1[] = { 1000, 300, 600, 1000 };
	uint16_t g2[] = { 1000, 200, 200, 400 };
	cr_assert_float_eq(frag_node_frag(&d, 0, 3000, 4, g1), 1600, 1e-9);
	cr_assert_float_eq(frag_node_frag(&d, 0, 8000, 4, g1), 1100, 1e-9);
	cr_assert_float_eq(frag_node_frag(&d, 0, 8000, 4, g2), 1300, 1e-9);
	cr_assert_float_eq(frag_node_frag_plain(&d, 0, 3000, 4, g1), 1600,
			   1e-9);
	cr_assert_float_eq(frag_node_frag_plain(&d, 0, 8000, 4, g2), 1300,
			   1e-9);
	/* In integer weights (probability 1 = FRAG_WEIGHT_ONE): exact. */
	cr_assert_eq(frag_node_fragw(&d, 0, 3000, 4, g1),
		     1600 * (int64_t)FRAG_WEIGHT_ONE);
	cr_assert_eq(frag_node_fragw(&d, 0, 8000, 4, g2),
		     1300 * (int64_t)FRAG_WEIGHT_ONE);
	frag_dist_release(&d);
	s[0].models = 1u << 1;
	cr_assert_eq(frag_dist_from_shapes(&d, s, 3), 0);
	cr_assert_float_eq(frag_node_frag(&d, 0, 8000, 4, g1), 2400, 1e-9);
	cr_assert_float_eq(frag_node_frag(&d, 1, 8000, 4, g1), 1100, 1e-9);
	frag_dist_release(&d);
}

/* The grouped computation against the plain definition on random node
 * states and random distributions (a second, simple method). */
Test(frag, grouped_equals_plain)
{
	uint64_t rng = 42;
	for (int t = 0; t < 300; t++) {
		struct frag_shape s[12];
		size_t n = 1 + place_rng_next(&rng) % 12;
		double sum = 0;
		for (size_t i = 0; i < n; i++) {
			uint32_t kind = (uint32_t)(place_rng_next(&rng) % 4);
			s[i] = (struct frag_shape){
				.cpu = (uint32_t)(place_rng_next(&rng) % 5) * 1000,
				.gpus = kind == 0 ? 0 : kind == 1 ? 1 :
					(uint32_t)(1 + place_rng_next(&rng) % 4),
				.models = place_rng_next(&rng) % 3 == 0 ? 2 : 0,
				.p = 1 + (double)(place_rng_next(&rng) % 5),
			};
			s[i].milli = kind == 0 ? 0 : kind == 1 ?
				(uint32_t)(1 + place_rng_next(&rng) % 999) : 1000;
			sum += s[i].p;
		}
		for (size_t i = 0; i < n; i++)
			s[i].p /= sum;
		struct frag_dist d;
		cr_assert_eq(frag_dist_from_shapes(&d, s, n), 0);
		uint16_t g[8];
		uint32_t ng = (uint32_t)(place_rng_next(&rng) % 9);
		for (uint32_t k = 0; k < ng; k++)
			g[k] = (uint16_t)(place_rng_next(&rng) % 3 == 0 ? 1000 :
					  place_rng_next(&rng) % 1001);
		uint32_t cpu = (uint32_t)(place_rng_next(&rng) % 6) * 1000;
		uint32_t model = (uint32_t)(place_rng_next(&rng) % 2);
		cr_assert_float_eq(frag_node_frag(&d, model, cpu, ng, g),
				   frag_node_frag_plain(&d, model, cpu, ng, g),
				   1e-6);
		/* Weights of the rounded p: close, not equal. */
		cr_assert_float_eq((double)frag_node_fragw(&d, model, cpu, ng,
							   g) / (double)d.w_total,
				   frag_node_frag(&d, model, cpu, ng, g), 0.1);
		frag_dist_release(&d);
	}
}

/* Two nodes of 2 GPUs; node 0 has 8 cores, node 1 has cpu1 milli.  Node 0
 * already holds a 1-core, 0.5-GPU pod (kind 0) on GPU 0. */
static void two_nodes(struct frag_cluster *c, struct frag_dist *d,
		      uint32_t cpu1)
{
	/* Target workload: 0.5 GPU (no CPU), 1 GPU with 1.5 cores. */
	struct frag_shape s[] = {
		{ .cpu = 0, .gpus = 1, .milli = 500, .p = 0.5 },
		{ .cpu = 1500, .gpus = 1, .milli = 1000, .p = 0.5 },
	};
	cr_assert_eq(frag_dist_from_shapes(d, s, 2), 0);
	frag_cluster_init(c);
	frag_cluster_add_node(c, 8000, 1000, 2, 0);
	frag_cluster_add_node(c, cpu1, 1000, 2, 0);
	frag_cluster_ready(c, 2, d);
	struct score_pod p0 = { .cpu = 1000, .gpus = 1, .milli = 500 };
	frag_place(c, 0, &p0, 0);
}

/* A node's F_n in integer weights. */
#define FRAGW(c, n) ((c)->fragw[n])

static long pick(struct frag_cluster *c, const char *policy,
		 const struct score_pod *p, int *gpu)
{
	struct score_ctx ctx;
	frag_ctx_init(&ctx, c, 1);
	long n = frag_choose(&ctx, policy_score(policy), p, gpu);
	frag_ctx_release(&ctx);
	return n;
}

/*
 * A whole-GPU pod Y (1 core, 1 GPU, kind 1).  Node 0: 7 cores, free
 * [500, 1000]; node 1: 2 cores, [1000, 1000].  max_cpu 8000, max GPUs 2.
 *  - bestfit, leftover: node 0: 0.5 x 6000/8000 + 0.5 x 500/2000 = 0.5;
 *    node 1: 0.5 x 1000/8000 + 0.5 x 1000/2000 = 0.3125 -> node 1.
 *  - dotprod: node 0: (1/8)(7/8) + (1/2)(1500/2000) = 0.484375;
 *    node 1: (1/8)(2/8) + (1/2)(1) = 0.53125 -> node 0 (smaller).
 *  - gpu_packing: node 0 partly used (tier 2), node 1 idle (tier 1) ->
 *    node 0.
 *  - gpu_clustering: node 0 holds only kind 0 (tier 1), node 1 no GPU pod
 *    (tier 2) -> node 1.
 *  - fgd: node 0 F = 0.5 x 0 + 0.5 x 500 (the half GPU is too small for
 *    the 1-GPU shape) = 250; after Y [500, 0], 6 cores: 0.5-shape 0,
 *    1-GPU shape has no whole GPU: 0.5 x 500 = 250: delta 0.  Node 1: F =
 *    0; after Y [0, 1000] with 1 core the 1-GPU shape (1.5 cores) lacks
 *    CPU: 0.5 x 1000 = 500: delta +500 -> node 0.
 * Whole GPUs go to the lowest fully free GPU: GPU 1 on node 0, GPU 0 on
 * node 1 (the plugin's gpu is -1 for them).
 */
Test(frag, policies_whole_gpu_pod)
{
	static const struct { const char *policy; long node; } want[] = {
		{ "bestfit", 1 }, { "dotprod", 0 }, { "gpu_packing", 0 },
		{ "gpu_clustering", 1 }, { "fgd", 0 },
	};
	struct score_pod y = { .cpu = 1000, .gpus = 1, .milli = 1000,
			      .kind = 1 };
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		struct frag_cluster c;
		struct frag_dist d;
		int gpu = 7;
		two_nodes(&c, &d, 2000);
		long n = pick(&c, want[i].policy, &y, &gpu);
		cr_assert_eq(n, want[i].node, "%s: node %ld", want[i].policy, n);
		cr_assert_eq(gpu, -1);
		frag_place(&c, (size_t)n, &y, gpu);
		cr_assert_eq(c.nodes[n].gpu_free[n == 0 ? 1 : 0], 0);
		frag_cluster_release(&c);
		frag_dist_release(&d);
	}
}

/*
 * A share pod X (1 core, 0.5 GPU, kind 0); node 1 has 8 cores here.
 * Node 0: 7 cores, [500, 1000]; node 1: 8 cores, [1000, 1000].
 *  - bestfit: node 0: 0.5 x 6/8 + 0.5 x 1000/2000 = 0.625; node 1:
 *    0.5 x 7/8 + 0.5 x 1500/2000 = 0.8125 -> node 0, best-fit GPU 0.
 *  - dotprod: node 0: (1/8)(7/8) + (1/4)(3/4) = 0.296875; node 1:
 *    (1/8)(1) + (1/4)(1) = 0.375 -> node 0, GPU 0.
 *  - gpu_packing: GPU 0 of node 0 is partly used and holds it (tier 3).
 *  - gpu_clustering: node 0 holds only kind 0 (tier 4).
 *  - fgd: node 0 F = 250; on GPU 0 -> [0, 1000]: F = 0 (delta -250);
 *    on GPU 1 -> [500, 500]: the 1-GPU shape cannot run: 0.5 x 1000 =
 *    500 (delta +250); node 1 -> [500, 1000]: F = 250 (delta +250):
 *    node 0, GPU 0.
 */
Test(frag, policies_share_pod)
{
	static const char *const pols[] = { "bestfit", "dotprod",
					    "gpu_packing", "gpu_clustering",
					    "fgd" };
	struct score_pod x = { .cpu = 1000, .gpus = 1, .milli = 500 };
	for (size_t i = 0; i < ARRAY_SIZE(pols); i++) {
		struct frag_cluster c;
		struct frag_dist d;
		int gpu = -1;
		two_nodes(&c, &d, 8000);
		cr_assert_float_eq(c.frag[0], 250, 1e-9);
		cr_assert_eq(pick(&c, pols[i], &x, &gpu), 0, "%s", pols[i]);
		cr_assert_eq(gpu, 0, "%s: gpu %d", pols[i], gpu);
		frag_place(&c, 0, &x, gpu);
		cr_assert_eq(c.nodes[0].gpu_free[0], 0);
		cr_assert_float_eq(c.frag[0], 0, 1e-9);
		frag_cluster_release(&c);
		frag_dist_release(&d);
	}
}

/*
 * fgd compares growths exactly: equal growths tie, and the lowest node
 * wins.  Target list: A (2 cores, 0.7 GPU), B (1 core, 2 whole GPUs), C
 * (1 core, 0.2 GPU), a third each.  Two nodes of 4 GPUs and 4 cores:
 *  - node 0 holds a 2-core 0.3-GPU pod on GPU 0: free [700, 1000, 1000,
 *    1000], 2 cores.  F = (0 + 700 + 0) / 3 (only B has GPUs it cannot
 *    use: the 700).  After a 1-core whole-GPU pod (on GPU 1): [700, 0,
 *    1000, 1000], 1 core: A lacks CPU (2700), B leaves 700, C 0: F =
 *    3400 / 3; growth 2700 / 3 = 900.
 *  - node 1 holds a 0.5-GPU pod on GPU 1 and the 2-core 0.3 one on GPU 2:
 *    free [1000, 500, 700, 1000], 2 cores.  F = (500 + 1200 + 0) / 3.
 *    After the pod (on GPU 0): [0, 500, 700, 1000], 1 core: A lacks CPU,
 *    B lacks a second whole GPU (2200 each), C 0: F = 4400 / 3; growth
 *    2700 / 3 = 900 too.
 * A tie: node 0.  (In floating point node 1's growth came out
 * 899.99999999999989, and it won.)
 */
Test(frag, fgd_ties_go_to_the_lowest_node)
{
	struct score_pod list[] = {
		{ .cpu = 2000, .gpus = 1, .milli = 700 },
		{ .cpu = 1000, .gpus = 2, .milli = 1000 },
		{ .cpu = 1000, .gpus = 1, .milli = 200 },
	};
	struct frag_dist d;
	struct frag_cluster c;
	cr_assert_eq(frag_dist_build(&d, list, 3), 0);
	frag_cluster_init(&c);
	frag_cluster_add_node(&c, 4000, 1000, 4, 0);
	frag_cluster_add_node(&c, 4000, 1000, 4, 0);
	frag_cluster_ready(&c, 1, &d);
	struct score_pod big = { .cpu = 2000, .gpus = 1, .milli = 300 };
	struct score_pod half = { .cpu = 0, .gpus = 1, .milli = 500 };
	frag_place(&c, 0, &big, 0);
	frag_place(&c, 1, &half, 1);
	frag_place(&c, 1, &big, 2);
	struct score_pod x = { .cpu = 1000, .gpus = 1, .milli = 1000 };
	cr_assert_eq(frag_afterw(&c, 0, &x, -1) - FRAGW(&c, 0), 2700);
	cr_assert_eq(frag_afterw(&c, 1, &x, -1) - FRAGW(&c, 1), 2700);
	int gpu = 7;
	cr_assert_eq(pick(&c, "fgd", &x, &gpu), 0);
	cr_assert_eq(gpu, -1);
	frag_cluster_release(&c);
	frag_dist_release(&d);
}

/* random: the same seed gives the same node; over seeds both nodes and
 * both GPUs of an idle node come up. */
Test(frag, random_is_seeded)
{
	struct frag_cluster c;
	struct frag_dist d;
	struct score_pod x = { .cpu = 1000, .gpus = 1, .milli = 300 };
	int seen = 0;
	two_nodes(&c, &d, 8000);
	const struct score_ops *f = policy_score("random");
	for (uint64_t seed = 0; seed < 64; seed++) {
		struct score_ctx a, b;
		frag_ctx_init(&a, &c, seed);
		frag_ctx_init(&b, &c, seed);
		int ga, gb;
		long na = frag_choose(&a, f, &x, &ga);
		long nb = frag_choose(&b, f, &x, &gb);
		cr_assert_eq(na, nb);
		cr_assert_eq(ga, gb);
		cr_assert(ga >= 0 && c.nodes[na].gpu_free[ga] >= 300);
		seen |= 1 << (na * 2 + ga);
		frag_ctx_release(&a);
		frag_ctx_release(&b);
	}
	cr_assert_eq(seen, 15, "seen %x", seen);
	frag_cluster_release(&c);
	frag_dist_release(&d);
}

/* Random clusters and pods under every policy: no GPU share above 1000
 * or below 0, allocated share = capacity - free, F_n kept up to date. */
Test(frag, shares_stay_within_one_gpu)
{
	static const char *const pols[] = { "random", "dotprod",
					    "gpu_clustering", "gpu_packing",
					    "bestfit", "fgd" };
	uint64_t rng = 7;
	for (int t = 0; t < 12; t++) {
		struct frag_cluster c;
		struct score_pod pods[60];
		size_t np = 20 + place_rng_next(&rng) % 40;
		frag_cluster_init(&c);
		size_t nn = 1 + place_rng_next(&rng) % 6;
		for (size_t i = 0; i < nn; i++)
			frag_cluster_add_node(&c, 16000, 65536,
				(uint32_t)(1 + place_rng_next(&rng) % 8),
				(uint32_t)frag_model_index(&c, i % 2 ? "a" : "b"));
		for (size_t i = 0; i < np; i++) {
			uint32_t k = (uint32_t)(place_rng_next(&rng) % 3);
			pods[i] = (struct score_pod){
				.cpu = (uint32_t)(place_rng_next(&rng) % 4000),
				.mem = 1024,
				.gpus = k == 0 ? 0 : k == 1 ? 1 :
					(uint32_t)(1 + place_rng_next(&rng) % 3),
				.models = place_rng_next(&rng) % 4 ? 0 : 1,
			};
			pods[i].milli = k == 0 ? 0 : k == 1 ?
				(uint32_t)(10 * (1 + place_rng_next(&rng) % 99)) :
				1000;
			pods[i].kind = k;
		}
		pods[0].gpus = 1;
		pods[0].milli = 250;
		struct frag_dist d;
		cr_assert_eq(frag_dist_build(&d, pods, np), 0);
		frag_cluster_ready(&c, 3, &d);
		for (size_t p = 0; p < ARRAY_SIZE(pols); p++) {
			struct fill_result r;
			cr_assert_eq(fill_run(&c, pods, np, policy_score(pols[p]),
					      1.5, (uint64_t)t, &r), 0);
			uint64_t free_sum = 0;
			for (size_t n = 0; n < c.nnodes; n++) {
				const struct score_node *nd = &c.nodes[n];
				uint32_t tot = 0;
				for (uint32_t g = 0; g < nd->ngpus; g++) {
					cr_assert_leq(nd->gpu_free[g], 1000);
					tot += nd->gpu_free[g];
				}
				cr_assert_eq(tot, nd->gpu_total);
				free_sum += tot;
				cr_assert_float_eq(c.frag[n],
					frag_node_frag_plain(&d, nd->model,
						nd->cpu_free, nd->ngpus,
						nd->gpu_free), 1e-6);
			}
			cr_assert_eq(r.allocated, c.gpu_capacity - free_sum,
				     "%s", pols[p]);
			cr_assert_eq(r.npoints, 150);
			cr_assert_leq(r.points[149].allocated, r.allocated);
			fill_result_release(&r);
		}
		frag_dist_release(&d);
		frag_cluster_release(&c);
	}
}

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/clustersim_openb_XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* Readers: a good pair of lists, then bad rows with FILE:LINE. */
Test(frag, openb_readers)
{
	struct sim_error err;
	struct frag_cluster c;
	struct score_pod *pods;
	size_t n;
	uint32_t nk;
	char *nodes = write_tmp("sn,cpu_milli,memory_mib,gpu,model\n"
				"a,8000,1000,2,V100\nb,4000,500,1,T4\n");
	frag_cluster_init(&c);
	cr_assert_eq(openb_load_nodes(nodes, NULL, NULL, &c, NULL, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(c.nnodes, 2);
	cr_assert_eq(c.gpu_capacity, 3000);
	char *good = write_tmp("name,cpu_milli,memory_mib,num_gpu,gpu_milli,"
			       "gpu_spec\np0,1000,10,1,500,T4\n"
			       "p1,1000,10,2,1000,\np2,500,10,0,0,\n"
			       "p3,500,10,1,500,A100\n");
	cr_assert_eq(openb_load_pods(good, NULL, NULL, &c, &pods, &n, &nk,
				     NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(n, 4);
	cr_assert_eq(nk, 2);
	cr_assert_eq(pods[0].models, 1u << 1);
	cr_assert_eq(pods[1].models, 0);
	cr_assert_eq(pods[3].models, FRAG_MODELS_NONE);
	cr_assert_eq(pods[0].created, -1);
	free(pods);
	static const char *const bad[][2] = {
		{ "p,1000,10,2,500,\n", "gpu_milli '500' is a share of a GPU" },
		{ "p,1000,10,0,300,\n", "gpu_milli '300' is a GPU share for" },
		{ "p,x,10,1,300,\n", "cpu_milli 'x' is not an integer" },
		{ "p,1000,10,1,1300,\n", "gpu_milli '1300' is not an integer" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text = xasprintf("name,cpu_milli,memory_mib,num_gpu,"
				       "gpu_milli,gpu_spec\n%s", bad[i][0]);
		char *p = write_tmp(text);
		cr_assert_neq(openb_load_pods(p, NULL, NULL, &c, &pods, &n,
					      &nk, NULL, &err), 0);
		char *want = xasprintf("%s:2: %s", p, bad[i][1]);
		cr_assert(strstr(err.msg, want), "got '%s', want '%s'",
			  err.msg, want);
		free(want);
		unlink(p);
		free(p);
		free(text);
	}
	frag_cluster_release(&c);
	char *badn = write_tmp("sn,cpu_milli,memory_mib,gpu,model\n"
			       "a,8000,1000,2,\n");
	frag_cluster_init(&c);
	cr_assert_neq(openb_load_nodes(badn, NULL, NULL, &c, NULL, &err), 0);
	cr_assert(strstr(err.msg, ":2: model '' is empty on a node with GPUs"),
		  "%s", err.msg);
	frag_cluster_release(&c);
	unlink(nodes);
	unlink(good);
	unlink(badn);
	free(nodes);
	free(good);
	free(badn);
}

/* The real lists: 1,213 GPU nodes with 6,212 GPUs (README), 8,152 pods
 * of which 1,088 ask no GPU (awk -F, '$4 == 0' | wc -l). */
Test(frag, openb_real)
{
	const char *dir = getenv("CLUSTERSIM_TRACE_DIR");
	char *nodes = xasprintf("%s/gpu/openb/openb_node_list_gpu_node.csv",
				dir ? dir : "../shared/traces");
	char *podf = xasprintf("%s/gpu/openb/openb_pod_list_default.csv",
			       dir ? dir : "../shared/traces");
	if (access(nodes, R_OK) || access(podf, R_OK))
		cr_skip_test("gpu/openb lists not in $CLUSTERSIM_TRACE_DIR");
	struct sim_error err;
	struct frag_cluster c;
	struct score_pod *pods;
	size_t n, cpu_only = 0;
	uint32_t nk;
	frag_cluster_init(&c);
	cr_assert_eq(openb_load_nodes(nodes, NULL, NULL, &c, NULL, &err), 0);
	cr_assert_eq(c.nnodes, 1213);
	cr_assert_eq(c.gpu_capacity, 6212000);
	cr_assert_eq(openb_load_pods(podf, NULL, NULL, &c, &pods, &n, &nk,
				     NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(n, 8152);
	for (size_t i = 0; i < n; i++)
		cpu_only += pods[i].gpus == 0;
	cr_assert_eq(cpu_only, 1088);
	free(pods);
	frag_cluster_release(&c);
	free(nodes);
	free(podf);
}

/* The "fill" key: read with its defaults; "cluster" beside it, a bad
 * target and an empty pod list are errors at their JSON paths. */
Test(frag, experiment_fill_key)
{
	struct experiment e;
	struct sim_error err;
	cr_assert_eq(exp_parse("{\"fill\":{\"nodes\":\"n.csv\",\"pods\":"
			       "\"p.csv\"},\"policies\":[\"fgd\"]}",
			       "d/x.json", &e, &err), 0, "%s", err.msg);
	cr_assert(e.has_fill);
	cr_assert_str_eq(e.fill.nodes, "d/n.csv");
	cr_assert_eq(e.fill.npods, 1);
	cr_assert_float_eq(e.fill.target, 1.3, 1e-12);
	exp_release(&e);
	static const char *const bad[][2] = {
		{ "{\"fill\":{\"nodes\":\"n\",\"pods\":\"p\"},\"cluster\":{},"
		  "\"policies\":[\"fgd\"]}", "x.json: $.cluster: not used by "
		  "a fill experiment" },
		{ "{\"fill\":{\"nodes\":\"n\",\"pods\":\"p\",\"target\":0},"
		  "\"policies\":[\"fgd\"]}", "x.json: $.fill.target: " },
		{ "{\"fill\":{\"nodes\":\"n\",\"pods\":[]},"
		  "\"policies\":[\"fgd\"]}", "x.json: $.fill.pods: " },
		{ "{\"fill\":{\"pods\":\"p\"},\"policies\":[\"fgd\"]}",
		  "x.json: $.fill: missing key 'nodes'" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cr_assert_neq(exp_parse(bad[i][0], "x.json", &e, &err), 0);
		cr_assert(strstr(err.msg, bad[i][1]), "got '%s', want '%s'",
			  err.msg, bad[i][1]);
	}
}
