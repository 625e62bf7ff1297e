/*
 * Tests of whole-GPU placement in the cluster model (sim/cluster/cluster_gpu.c,
 * docs/placement.md): every strategy's picks worked out by hand on a
 * 2-rack x 2-node x 4-GPU cluster with some GPUs busy, consolidate against
 * topology where they differ, GPU types on a mixed K80/V100 cluster, jobs
 * that also take CPUs, the spec checks, and a randomised run against a
 * naive per-node model, with GPU types and virtual clusters (partitions
 * and a shared pool): same picks for first_fit and best_fit, and for
 * every strategy the conservation of GPUs and CPUs (taken == requested,
 * nothing double-booked, release restores) and the type and VC rules.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "base/util.h"

/* One group of a test cluster. */
struct cg_group {
	uint32_t count;   /* nodes */
	uint32_t cpus;    /* CPUs per node */
	uint32_t gpus;    /* GPUs per node */
	const char *type; /* GPU type or NULL */
};

/* vc: each group's virtual cluster or NULL (shared pool); NULL: none. */
static void cg_spec(struct cluster_spec *s, size_t n,
		    const struct cg_group *g, const char *const *vc,
		    uint32_t rack_nodes)
{
	memset(s, 0, sizeof(*s));
	s->groups = xcalloc(n, sizeof(*s->groups));
	s->ngroups = n;
	s->rack_nodes = rack_nodes;
	for (size_t i = 0; i < n; i++) {
		s->groups[i].name = xasprintf("g%zu", i);
		s->groups[i].count = g[i].count;
		s->groups[i].cpus = g[i].cpus;
		s->groups[i].gpus = g[i].gpus;
		s->groups[i].gpu_type = g[i].type ? xstrdup(g[i].type) : NULL;
		s->groups[i].vc = vc && vc[i] ? xstrdup(vc[i]) : NULL;
	}
}

static struct cluster *cg_new_vc(size_t n, const struct cg_group *g,
				 const char *const *vc, uint32_t rack_nodes)
{
	struct cluster_spec s;
	struct sim_error err = {{0}};
	struct cluster *c;

	cg_spec(&s, n, g, vc, rack_nodes);
	cr_assert_eq(cluster_spec_check(&s, "x.json: ", &err), 0, "%s",
		     err.msg);
	c = cluster_new(&s);
	cluster_spec_release(&s);
	return c;
}

static struct cluster *cg_new(size_t n, const struct cg_group *g,
			      uint32_t rack_nodes)
{
	return cg_new_vc(n, g, NULL, rack_nodes);
}

static struct job cg_job(uint32_t gpus, uint16_t type, uint32_t cpus)
{
	struct job j;

	memset(&j, 0, sizeof(j));
	j.gpus = gpus;
	j.gpu_type = type;
	j.cpus = cpus;
	return j;
}

static void cg_check(const struct cluster *c)
{
	struct sim_error err = {{0}};

	cr_assert_eq(cluster_check(c, &err), 0, "cluster_check: %s", err.msg);
}

/*
 * Makes node i's free GPUs exactly free[i] (a mask): takes every GPU with
 * one first-fit job, then gives back the GPUs named.  The placement of
 * the big job is dropped (its GPUs are accounted by the give-back).
 */
static void cg_state(struct cluster *c, const uint64_t *free_masks)
{
	struct placement all = { 0 }, back = { 0 };
	uint32_t n = cluster_nodes(c);
	struct job j = cg_job((uint32_t)cluster_free_gpus(c), 0, 0);

	cr_assert_eq(cluster_alloc(c, &j, &all), 0);
	back.slots = xcalloc(n, sizeof(*back.slots));
	for (uint32_t v = 0; v < n; v++) {
		if (!free_masks[v])
			continue;
		back.slots[back.n++] = (struct place_slot){
			.node = v, .count = 1,
			.gpus = (uint32_t)__builtin_popcountll(free_masks[v]),
			.gpu_mask = free_masks[v],
		};
	}
	cluster_release(c, &back);
	for (uint32_t v = 0; v < n; v++)
		cr_assert_eq(cluster_node_free_gpu_mask(c, v), free_masks[v]);
	cg_check(c);
	placement_release(&all);
	placement_release(&back);
}

/* Expects exactly the slots {node, gpus, gpu_mask, cpus} listed. */
static void cg_expect(const struct placement *p, size_t n,
		      const uint64_t (*want)[4], const char *what)
{
	cr_assert_eq(p->n, n, "%s: %u slots, want %zu", what, p->n, n);
	for (size_t i = 0; i < n; i++) {
		const struct place_slot *s = &p->slots[i];

		cr_expect_eq(s->node, want[i][0], "%s: slot %zu node %u", what,
			     i, s->node);
		cr_expect_eq(s->count, 1, "%s: slot %zu count", what, i);
		cr_expect_eq(s->gpus, want[i][1], "%s: slot %zu gpus %u", what,
			     i, s->gpus);
		cr_expect_eq(s->gpu_mask, want[i][2], "%s: slot %zu mask %#lx",
			     what, i, (unsigned long)s->gpu_mask);
		cr_expect_eq(s->cpus, want[i][3], "%s: slot %zu cpus %u", what,
			     i, s->cpus);
	}
}

/* The hand-worked cluster: racks {0, 1} and {2, 3}, 4 GPUs a node.  Free
 * GPUs: node0 {3} (1), node1 {1,2,3} (3), node2 {0,2} (2), node3 all (4);
 * rack 0 has 4 free, rack 1 has 6, 10 in all. */
static const uint64_t cg_free4[4] = { 0x8, 0xe, 0x5, 0xf };

static struct cluster *cg_new4(void)
{
	static const struct cg_group g[] = { { 4, 8, 4, NULL } };
	struct cluster *c = cg_new(1, g, 2);

	cg_state(c, cg_free4);
	cr_assert_eq(cluster_free_gpus(c), 10);
	cr_assert_eq(cluster_rack_free_gpus(c, 0), 4);
	cr_assert_eq(cluster_rack_free_gpus(c, 1), 6);
	return c;
}

/* Places a job of gpus with strategy s, checks the slots, releases it and
 * checks the state is back. */
static void cg_try(struct cluster *c, enum place_strategy s, uint32_t gpus,
		   uint64_t *rng, size_t n, const uint64_t (*want)[4])
{
	struct placement p = { 0 };
	struct job j = cg_job(gpus, 0, 0);
	char what[64];

	snprintf(what, sizeof(what), "%s %u", place_strategy_name(s), gpus);
	cr_assert_eq(cluster_alloc_gpus(c, &j, s, rng, &p), 0, "%s", what);
	cg_expect(&p, n, want, what);
	cr_expect_eq(cluster_free_gpus(c), 10 - gpus);
	cg_check(c);
	cluster_release(c, &p);
	for (uint32_t v = 0; v < 4; v++)
		cr_expect_eq(cluster_node_free_gpu_mask(c, v), cg_free4[v]);
	cg_check(c);
	placement_release(&p);
}

/*
 * first_fit: lowest nodes, min(free, need) each, lowest GPUs of a node.
 *   1: node0 {3}
 *   2: node0 {3}, node1 {1}
 *   3: node0 {3}, node1 {1,2}
 *   5: node0 {3}, node1 {1,2,3}, node2 {0}
 *   8: node0 {3}, node1 {1,2,3}, node2 {0,2}, node3 {0,1}
 */
Test(cluster_gpu, first_fit_hand_worked)
{
	struct cluster *c = cg_new4();
	enum place_strategy s = PLACE_FIRST_FIT;

	cg_try(c, s, 1, NULL, 1, (const uint64_t[][4]){ { 0, 1, 0x8, 0 } });
	cg_try(c, s, 2, NULL, 2, (const uint64_t[][4]){
		{ 0, 1, 0x8, 0 }, { 1, 1, 0x2, 0 } });
	cg_try(c, s, 3, NULL, 2, (const uint64_t[][4]){
		{ 0, 1, 0x8, 0 }, { 1, 2, 0x6, 0 } });
	cg_try(c, s, 5, NULL, 3, (const uint64_t[][4]){
		{ 0, 1, 0x8, 0 }, { 1, 3, 0xe, 0 }, { 2, 1, 0x1, 0 } });
	cg_try(c, s, 8, NULL, 4, (const uint64_t[][4]){
		{ 0, 1, 0x8, 0 }, { 1, 3, 0xe, 0 }, { 2, 2, 0x5, 0 },
		{ 3, 2, 0x3, 0 } });
	cluster_free(c);
}

/*
 * best_fit: the tightest node that holds what is left, else the fullest
 * node whole, again.
 *   1: tightest with >= 1 is node0 (1)                 -> node0 {3}
 *   2: node2 (2)                                       -> node2 {0,2}
 *   3: node1 (3)                                       -> node1 {1,2,3}
 *   5: none holds 5; fullest node3 (4) whole, 1 left: node0 (1)
 *   8: node3 whole (4 left), none of the rest holds 4: node1 whole
 *      (1 left): node0
 */
Test(cluster_gpu, best_fit_hand_worked)
{
	struct cluster *c = cg_new4();
	enum place_strategy s = PLACE_BEST_FIT;

	cg_try(c, s, 1, NULL, 1, (const uint64_t[][4]){ { 0, 1, 0x8, 0 } });
	cg_try(c, s, 2, NULL, 1, (const uint64_t[][4]){ { 2, 2, 0x5, 0 } });
	cg_try(c, s, 3, NULL, 1, (const uint64_t[][4]){ { 1, 3, 0xe, 0 } });
	cg_try(c, s, 5, NULL, 2, (const uint64_t[][4]){
		{ 0, 1, 0x8, 0 }, { 3, 4, 0xf, 0 } });
	cg_try(c, s, 8, NULL, 3, (const uint64_t[][4]){
		{ 0, 1, 0x8, 0 }, { 1, 3, 0xe, 0 }, { 3, 4, 0xf, 0 } });
	cluster_free(c);
}

/*
 * consolidate: 1, 2, 3 as best_fit (one node, the tightest).
 *   5: fewest nodes is 2 (4 + 1); rack 1 (6 free) holds 5 in 2 nodes,
 *      fullest first: node3 whole, node2 {0}
 *   8: fewest nodes is 3 (4 + 3 + 1); no rack holds 8: the fullest nodes
 *      of the cluster: node3 whole, node1 whole, then 1 from node2 (the
 *      2-free node) {0}
 */
Test(cluster_gpu, consolidate_hand_worked)
{
	struct cluster *c = cg_new4();
	enum place_strategy s = PLACE_CONSOLIDATE;

	cg_try(c, s, 1, NULL, 1, (const uint64_t[][4]){ { 0, 1, 0x8, 0 } });
	cg_try(c, s, 2, NULL, 1, (const uint64_t[][4]){ { 2, 2, 0x5, 0 } });
	cg_try(c, s, 3, NULL, 1, (const uint64_t[][4]){ { 1, 3, 0xe, 0 } });
	cg_try(c, s, 5, NULL, 2, (const uint64_t[][4]){
		{ 2, 1, 0x1, 0 }, { 3, 4, 0xf, 0 } });
	cg_try(c, s, 8, NULL, 3, (const uint64_t[][4]){
		{ 1, 3, 0xe, 0 }, { 2, 1, 0x1, 0 }, { 3, 4, 0xf, 0 } });
	cluster_free(c);
}

/*
 * topology: 1, 2, 3, 5 as consolidate.
 *   8: no rack holds 8; racks with the most free first: rack 1 (6) gives
 *      node3 whole and node2 {0,2}, 2 left from rack 0 (4): its fullest
 *      node1 gives {1,2}
 */
Test(cluster_gpu, topology_hand_worked)
{
	struct cluster *c = cg_new4();
	enum place_strategy s = PLACE_TOPOLOGY;

	cg_try(c, s, 1, NULL, 1, (const uint64_t[][4]){ { 0, 1, 0x8, 0 } });
	cg_try(c, s, 2, NULL, 1, (const uint64_t[][4]){ { 2, 2, 0x5, 0 } });
	cg_try(c, s, 3, NULL, 1, (const uint64_t[][4]){ { 1, 3, 0xe, 0 } });
	cg_try(c, s, 5, NULL, 2, (const uint64_t[][4]){
		{ 2, 1, 0x1, 0 }, { 3, 4, 0xf, 0 } });
	cg_try(c, s, 8, NULL, 3, (const uint64_t[][4]){
		{ 1, 2, 0x6, 0 }, { 2, 2, 0x5, 0 }, { 3, 4, 0xf, 0 } });
	cluster_free(c);
}

/*
 * spread: one GPU from each node, fullest first (node3 4, node1 3,
 * node2 2, node0 1), then round again.
 *   1: node3 {0}
 *   2: node3 {0}, node1 {1}
 *   3: node3 {0}, node1 {1}, node2 {0}
 *   5: round 1 takes one from all 4 nodes; round 2 the fullest left
 *      (node3, 3 left): node3 {0,1}, node1 {1}, node2 {0}, node0 {3}
 *   8: rounds 1 and 2 take 4 + 3 (node0 is out after round 1); round 3
 *      one from the fullest left (node3, 2 left): node3 {0,1,2},
 *      node1 {1,2}, node2 {0,2}, node0 {3}
 */
Test(cluster_gpu, spread_hand_worked)
{
	struct cluster *c = cg_new4();
	enum place_strategy s = PLACE_SPREAD;

	cg_try(c, s, 1, NULL, 1, (const uint64_t[][4]){ { 3, 1, 0x1, 0 } });
	cg_try(c, s, 2, NULL, 2, (const uint64_t[][4]){
		{ 1, 1, 0x2, 0 }, { 3, 1, 0x1, 0 } });
	cg_try(c, s, 3, NULL, 3, (const uint64_t[][4]){
		{ 1, 1, 0x2, 0 }, { 2, 1, 0x1, 0 }, { 3, 1, 0x1, 0 } });
	cg_try(c, s, 5, NULL, 4, (const uint64_t[][4]){
		{ 0, 1, 0x8, 0 }, { 1, 1, 0x2, 0 }, { 2, 1, 0x1, 0 },
		{ 3, 2, 0x3, 0 } });
	cg_try(c, s, 8, NULL, 4, (const uint64_t[][4]){
		{ 0, 1, 0x8, 0 }, { 1, 2, 0x6, 0 }, { 2, 2, 0x5, 0 },
		{ 3, 3, 0x7, 0 } });
	cluster_free(c);
}

/*
 * splitmix64 from state 0 (the published reference outputs):
 * 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f.
 * random, state 0, 1 or 2 GPUs: 4 nodes have free GPUs; the draw is
 * floor(x * 4 / 2^64) = the top two bits of 0xe2... = 3: the fourth of
 * them, node3, which holds 1 or 2: node3 {0} or {0,1}.  With 8 GPUs:
 * node3 (4 taken, 4 left); then of node0, node1, node2 the rank
 * floor(0x6e78... * 3 / 2^64) = floor(0.4315 * 3) = 1: node1 (3 taken, 1
 * left); then of node0, node2 rank floor(0x06c4... * 2 / 2^64) =
 * floor(0.0265 * 2) = 0: node0 (1).  No draw is rejected: Lemire's
 * threshold 2^64 mod n is 0 for 4 and 2, 1 for 3.
 */
Test(cluster_gpu, random_hand_worked)
{
	struct cluster *c = cg_new4();
	uint64_t st = 0;

	cr_expect_eq(place_rng_next(&st), UINT64_C(0xe220a8397b1dcdaf));
	cr_expect_eq(place_rng_next(&st), UINT64_C(0x6e789e6aa1b965f4));
	cr_expect_eq(place_rng_next(&st), UINT64_C(0x06c45d188009454f));
	st = 0;
	cg_try(c, PLACE_RANDOM, 1, &st, 1,
	       (const uint64_t[][4]){ { 3, 1, 0x1, 0 } });
	st = 0;
	cg_try(c, PLACE_RANDOM, 2, &st, 1,
	       (const uint64_t[][4]){ { 3, 2, 0x3, 0 } });
	st = 0;
	cg_try(c, PLACE_RANDOM, 8, &st, 3, (const uint64_t[][4]){
		{ 0, 1, 0x8, 0 }, { 1, 3, 0xe, 0 }, { 3, 4, 0xf, 0 } });
	cr_expect_eq(st, 3 * UINT64_C(0x9e3779b97f4a7c15));
	/* No rng: refused, nothing taken. */
	{
		struct placement p = { 0 };
		struct job j = cg_job(1, 0, 0);

		cr_expect_eq(cluster_alloc_gpus(c, &j, PLACE_RANDOM, NULL, &p),
			     -SIM_EINPUT);
		cr_expect_eq(cluster_free_gpus(c), 10);
	}
	cluster_free(c);
}

/*
 * Where consolidate and topology differ: racks {0..3} and {4..7}, free
 * GPUs 2 2 2 0 | 4 1 0 0.  A job of 6: the fewest nodes is 2 (node4's 4 +
 * a 2), across the racks.  Rack 0 holds 6 but in 3 nodes, rack 1 holds
 * only 5.  consolidate: fullest nodes of the cluster: node4 whole, then
 * node0 (the lowest 2-free node) {0,1}.  topology: rack 0, nodes 0, 1, 2
 * {0,1} each.
 */
Test(cluster_gpu, consolidate_vs_topology)
{
	static const struct cg_group g[] = { { 8, 4, 4, NULL } };
	static const uint64_t fr[8] = { 0x3, 0x3, 0x3, 0, 0xf, 0x1, 0, 0 };
	struct cluster *c = cg_new(1, g, 4);
	struct placement p = { 0 };
	struct job j = cg_job(6, 0, 0);

	cg_state(c, fr);
	cr_assert_eq(cluster_alloc_gpus(c, &j, PLACE_CONSOLIDATE, NULL, &p),
		     0);
	cg_expect(&p, 2, (const uint64_t[][4]){
		{ 0, 2, 0x3, 0 }, { 4, 4, 0xf, 0 } }, "consolidate 6");
	cluster_release(c, &p);
	cr_assert_eq(cluster_alloc_gpus(c, &j, PLACE_TOPOLOGY, NULL, &p), 0);
	cg_expect(&p, 3, (const uint64_t[][4]){
		{ 0, 2, 0x3, 0 }, { 1, 2, 0x3, 0 }, { 2, 2, 0x3, 0 } },
		"topology 6");
	cluster_release(c, &p);
	for (uint32_t v = 0; v < 8; v++)
		cr_expect_eq(cluster_node_free_gpu_mask(c, v), fr[v]);
	cg_check(c);
	placement_release(&p);
	cluster_free(c);
}

/*
 * Types.  Nodes 0, 1: 4 K80; node 2: no GPUs; nodes 3, 4: 2 V100; node 5:
 * 4 K80.  K80 is type 0 (gpu_type 1), V100 type 1 (gpu_type 2).
 *   V100 x3 first fit: node3 {0,1}, node4 {0}
 *   K80 x10 first fit: node0 all, node1 all, node5 {0,1} (node 2-4 are
 *     not K80s)
 *   K80 x3: 2 K80s free (node5) -> does not fit, can ever fit
 *   any x3: node4 {1}, node5 {2,3}
 *   type 3 (none), V100 x5 (4 exist): can never fit
 */
Test(cluster_gpu, types)
{
	static const struct cg_group g[] = {
		{ 2, 8, 4, "K80" }, { 1, 8, 0, NULL }, { 2, 8, 2, "V100" },
		{ 1, 8, 4, "K80" },
	};
	struct cluster *c = cg_new(4, g, 0);
	struct placement a = { 0 }, b = { 0 }, d = { 0 };
	struct job j;

	cr_assert_eq(cluster_gpu_type_count(c), 2);
	cr_expect_eq(cluster_gpu_type_index(c, "K80"), 0);
	cr_expect_eq(cluster_gpu_type_index(c, "V100"), 1);
	cr_expect_eq(cluster_gpu_type_index(c, "A100"), -1);
	cr_expect_str_eq(cluster_gpu_type_name(c, 1), "V100");
	cr_expect_eq(cluster_total_gpus(c), 16);
	cr_expect_eq(cluster_racks(c), 1);

	j = cg_job(3, 2, 0);
	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	cg_expect(&a, 2, (const uint64_t[][4]){
		{ 3, 2, 0x3, 0 }, { 4, 1, 0x1, 0 } }, "V100 x3");
	j = cg_job(10, 1, 0);
	cr_assert_eq(cluster_alloc(c, &j, &b), 0);
	cg_expect(&b, 3, (const uint64_t[][4]){
		{ 0, 4, 0xf, 0 }, { 1, 4, 0xf, 0 }, { 5, 2, 0x3, 0 } },
		"K80 x10");
	cg_check(c);

	j = cg_job(3, 1, 0);
	cr_expect_not(cluster_fits(c, &j));
	cr_expect(cluster_can_ever_fit(c, &j));
	cr_expect_eq(cluster_alloc_gpus(c, &j, PLACE_BEST_FIT, NULL, &d),
		     -SIM_ESTATE);
	cr_expect_eq(cluster_free_gpus(c), 3);

	j = cg_job(3, 0, 0);
	cr_assert(cluster_fits(c, &j));
	cr_assert_eq(cluster_alloc(c, &j, &d), 0);
	cg_expect(&d, 2, (const uint64_t[][4]){
		{ 4, 1, 0x2, 0 }, { 5, 2, 0xc, 0 } }, "any x3");
	cr_expect_eq(cluster_free_gpus(c), 0);

	j = cg_job(1, 3, 0);
	cr_expect_not(cluster_can_ever_fit(c, &j));
	j = cg_job(5, 2, 0);
	cr_expect_not(cluster_can_ever_fit(c, &j));
	j = cg_job(16, 0, 0);
	cr_expect(cluster_can_ever_fit(c, &j));
	cr_expect_eq(cluster_demand(c, &j), 16);

	cluster_release(c, &b);
	cluster_release(c, &a);
	cluster_release(c, &d);
	cr_expect_eq(cluster_free_gpus(c), 16);
	cg_check(c);
	/* best_fit among the K80 nodes only: all have 4, the lowest. */
	j = cg_job(4, 1, 0);
	cr_assert_eq(cluster_alloc_gpus(c, &j, PLACE_BEST_FIT, NULL, &a), 0);
	cg_expect(&a, 1, (const uint64_t[][4]){ { 0, 4, 0xf, 0 } }, "K80 x4");
	/* V100 spread: one from each V100 node. */
	j = cg_job(2, 2, 0);
	cr_assert_eq(cluster_alloc_gpus(c, &j, PLACE_SPREAD, NULL, &b), 0);
	cg_expect(&b, 2, (const uint64_t[][4]){
		{ 3, 1, 0x1, 0 }, { 4, 1, 0x1, 0 } }, "V100 spread 2");
	cluster_release(c, &a);
	cluster_release(c, &b);
	cg_check(c);
	placement_release(&a);
	placement_release(&b);
	placement_release(&d);
	cluster_free(c);
}

/*
 * CPUs with GPUs.  2 nodes x 8 CPUs x 4 GPUs.  A CPU job of 6 takes node0's
 * CPUs 6 (2 left there).  GPU job 4 GPUs + 4 CPUs (1 a GPU), first fit:
 * node0 can give min(4, floor(2 * 4 / 4)) = 2 GPUs, node1 4: node0 {0,1}
 * with floor(4 * 2 / 4) = 2 CPUs, node1 {0,1} with 4 - 2 = 2.
 * Then on the empty cluster 3 GPUs + 4 CPUs spread: round 1 one each,
 * round 2 node0: node0 2 GPUs, floor(4 * 2 / 3) = 2 CPUs; node1 1 GPU,
 * 4 - 2 = 2 CPUs (<= ceil(4 * 1 / 3) = 2).
 * A CPU job of 15 leaves node1 1 CPU: 2 GPUs + 2 CPUs can get at most
 * floor(1 * 2 / 2) = 1 GPU there: does not fit.
 */
Test(cluster_gpu, gpus_with_cpus)
{
	static const struct cg_group g[] = { { 2, 8, 4, NULL } };
	struct cluster *c = cg_new(1, g, 0);
	struct placement a = { 0 }, b = { 0 };
	struct job j;

	j = cg_job(0, 0, 6);
	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	cr_assert_eq(cluster_node_free_cpus(c, 0), 2);
	j = cg_job(4, 0, 4);
	cr_assert(cluster_fits(c, &j));
	cr_assert_eq(cluster_alloc(c, &j, &b), 0);
	cg_expect(&b, 2, (const uint64_t[][4]){
		{ 0, 2, 0x3, 2 }, { 1, 2, 0x3, 2 } }, "4 gpus 4 cpus");
	cr_expect_eq(cluster_node_free_cpus(c, 0), 0);
	cr_expect_eq(cluster_node_free_cpus(c, 1), 6);
	cg_check(c);
	cluster_release(c, &b);
	cluster_release(c, &a);
	cr_expect_eq(cluster_free_cpus(c), 16);
	cr_expect_eq(cluster_idle_nodes(c), 2);
	cg_check(c);

	j = cg_job(3, 0, 4);
	cr_assert_eq(cluster_alloc_gpus(c, &j, PLACE_SPREAD, NULL, &b), 0);
	cg_expect(&b, 2, (const uint64_t[][4]){
		{ 0, 2, 0x3, 2 }, { 1, 1, 0x1, 2 } }, "spread 3 gpus 4 cpus");
	cluster_release(c, &b);

	j = cg_job(0, 0, 15);
	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	j = cg_job(2, 0, 2);
	cr_expect_not(cluster_fits(c, &j));
	cr_expect(cluster_can_ever_fit(c, &j));
	cr_expect_eq(cluster_alloc_gpus(c, &j, PLACE_TOPOLOGY, NULL, &b),
		     -SIM_ESTATE);
	j = cg_job(1, 0, 1);
	cr_expect(cluster_fits(c, &j));
	/* 8 GPUs + 17 CPUs: never (16 CPUs). */
	j = cg_job(8, 0, 17);
	cr_expect_not(cluster_can_ever_fit(c, &j));
	cluster_release(c, &a);
	cr_expect_eq(cluster_free_cpus(c), 16);
	cr_expect_eq(cluster_free_gpus(c), 8);
	cg_check(c);
	placement_release(&a);
	placement_release(&b);
	cluster_free(c);
}

Test(cluster_gpu, no_gpus)
{
	static const struct cg_group g[] = { { 3, 4, 0, NULL } };
	struct cluster *c = cg_new(1, g, 0);
	struct job j = cg_job(1, 0, 0);
	struct placement p = { 0 };

	cr_expect_eq(cluster_total_gpus(c), 0);
	cr_expect_eq(cluster_free_gpus(c), 0);
	cr_expect_eq(cluster_gpu_type_count(c), 0);
	cr_expect_not(cluster_can_ever_fit(c, &j));
	cr_expect_not(cluster_fits(c, &j));
	cr_expect_eq(cluster_alloc(c, &j, &p), -SIM_ESTATE);
	cg_check(c);
	cluster_free(c);
}

Test(cluster_gpu, strategy_names)
{
	struct sim_error err = {{0}};
	enum place_strategy s;

	for (unsigned i = 0; i < PLACE_NSTRATEGIES; i++) {
		cr_assert_eq(place_strategy_parse(place_strategy_name(i), &s,
						  &err), 0);
		cr_expect_eq(s, i);
	}
	cr_expect_str_eq(place_strategy_name(PLACE_TOPOLOGY), "topology");
	cr_expect_null(place_strategy_name(PLACE_NSTRATEGIES));
	cr_expect_eq(place_strategy_parse("worst_fit", &s, &err),
		     -SIM_EINPUT);
	cr_expect(strstr(err.msg, "'worst_fit'"), "%s", err.msg);
}

Test(cluster_gpu, spec_checks)
{
	struct cluster_spec s;
	struct sim_error err = {{0}};
	static const struct cg_group big[] = { { 2, 8, 65, NULL } };
	static const struct cg_group typed0[] = { { 2, 8, 0, "K80" } };
	static const struct cg_group empty[] = { { 2, 8, 2, "" } };
	static const struct cg_group ok[] = { { 2, 8, 64, "A100" } };

	cg_spec(&s, 1, big, NULL, 0);
	cr_expect_lt(cluster_spec_check(&s, "x.json: ", &err), 0);
	cr_expect_str_eq(err.msg, "x.json: $.cluster.nodes[0].gpus: at most "
			 "'64' GPUs per node, got '65'");
	cluster_spec_release(&s);
	cg_spec(&s, 1, typed0, NULL, 0);
	cr_expect_lt(cluster_spec_check(&s, "x.json: ", &err), 0);
	cr_expect_str_eq(err.msg, "x.json: $.cluster.nodes[0].gpu_type: a "
			 "group without gpus has no gpu_type, got 'K80'");
	cluster_spec_release(&s);
	cg_spec(&s, 1, empty, NULL, 0);
	cr_expect_lt(cluster_spec_check(&s, "x.json: ", &err), 0);
	cr_expect_str_eq(err.msg, "x.json: $.cluster.nodes[0].gpu_type: must "
			 "not be empty, got ''");
	cluster_spec_release(&s);
	cg_spec(&s, 1, ok, NULL, 0);
	cr_expect_eq(cluster_spec_check(&s, "x.json: ", &err), 0, "%s",
		     err.msg);
	cluster_spec_release(&s);
}

/* A copy owns its strings: the original can go first. */
Test(cluster_gpu, spec_copy)
{
	static const struct cg_group g[] = {
		{ 2, 8, 4, "K80" }, { 1, 4, 0, NULL },
	};
	struct cluster_spec s, d;

	cg_spec(&s, 2, g, NULL, 16);
	cluster_spec_copy(&d, &s);
	cluster_spec_release(&s);
	cr_assert_eq(d.ngroups, 2);
	cr_expect_eq(d.rack_nodes, 16);
	cr_expect_str_eq(d.groups[0].name, "g0");
	cr_expect_str_eq(d.groups[0].gpu_type, "K80");
	cr_expect_null(d.groups[1].gpu_type);
	cr_expect_eq(d.groups[0].gpus, 4);
	cr_expect_eq(d.groups[1].cpus, 4);
	cluster_spec_release(&d);
}

/* 64-GPU nodes: full masks. */
Test(cluster_gpu, sixty_four_gpus)
{
	static const struct cg_group g[] = { { 3, 2, 64, NULL } };
	struct cluster *c = cg_new(1, g, 2);
	struct placement a = { 0 }, b = { 0 };
	struct job j = cg_job(64, 0, 0);

	cr_assert_eq(cluster_alloc_gpus(c, &j, PLACE_BEST_FIT, NULL, &a), 0);
	cg_expect(&a, 1, (const uint64_t[][4]){ { 0, 64, ~UINT64_C(0), 0 } },
		  "64");
	j = cg_job(100, 0, 0);
	/* topology: rack 0 has 64 (node1), rack 1 64 (node2); neither holds
	 * 100: both racks, the lowest first on the tie: node1 all, node2
	 * 36. */
	cr_assert_eq(cluster_alloc_gpus(c, &j, PLACE_TOPOLOGY, NULL, &b), 0);
	cg_expect(&b, 2, (const uint64_t[][4]){
		{ 1, 64, ~UINT64_C(0), 0 },
		{ 2, 36, (UINT64_C(1) << 36) - 1, 0 } }, "100");
	cg_check(c);
	cluster_release(c, &a);
	cluster_release(c, &b);
	cr_expect_eq(cluster_free_gpus(c), 192);
	cg_check(c);
	placement_release(&a);
	placement_release(&b);
	cluster_free(c);
}

/* ---- randomised, against a naive per-node model ----------------------- */

/* The naive model: per node its free-GPU mask, free CPUs, type class. */
struct cg_naive {
	uint32_t n;
	uint64_t *gmask;  /* free GPUs */
	uint32_t *cfree;  /* free CPUs */
	int *type;        /* type index, -1 untyped */
	uint32_t *gcap;   /* GPUs */
	int *vc;          /* VC index, -1 shared pool */
	int gvc[3];       /* VC index of job groups 0 .. 2, -1 none */
};

/* The VC a job of the naive model belongs to. */
static int cg_job_vc(const struct cg_naive *m, const struct job *j)
{
	return j->group >= 0 && j->group < 3 ? m->gvc[j->group] : -1;
}

/* May job j use node v's GPUs: its VC's or the shared pool's? */
static bool cg_vc_ok(const struct cg_naive *m, uint32_t v,
		     const struct job *j)
{
	return m->vc[v] < 0 || m->vc[v] == cg_job_vc(m, j);
}

static uint32_t cg_pop(uint64_t m)
{
	return (uint32_t)__builtin_popcountll(m);
}

/* What node v can give job j (the documented rule, written plainly). */
static uint32_t cg_give(const struct cg_naive *m, uint32_t v,
			const struct job *j)
{
	uint32_t f = cg_pop(m->gmask[v]);

	if (!m->gcap[v])
		return 0;
	if (j->gpu_type && m->type[v] != (int)j->gpu_type - 1)
		return 0;
	if (!cg_vc_ok(m, v, j))
		return 0;
	if (j->cpus) {
		/* the most g with ceil(cpus * g / gpus) <= free CPUs */
		uint32_t g = 0;

		while (g < f && ((uint64_t)j->cpus * (g + 1) + j->gpus - 1) /
				j->gpus <= m->cfree[v])
			g++;
		f = g;
	}
	return f;
}

/* Naive first fit or best fit; counts per node into take[]. */
static bool cg_naive_plan(const struct cg_naive *m, const struct job *j,
			  bool best, uint32_t *take)
{
	uint32_t need = j->gpus;
	uint64_t sum = 0;

	memset(take, 0, m->n * sizeof(*take));
	for (uint32_t v = 0; v < m->n; v++)
		sum += cg_give(m, v, j);
	if (sum < need)
		return false;
	while (need) {
		uint32_t pick = UINT32_MAX, pf = 0;

		for (uint32_t v = 0; v < m->n; v++) {
			uint32_t f = take[v] ? 0 : cg_give(m, v, j);

			if (!f)
				continue;
			if (!best) {
				pick = v;
				pf = f;
				break;
			}
			/* best: the smallest f >= need, else the largest */
			if (pick == UINT32_MAX ||
			    (f >= need && (pf < need || f < pf)) ||
			    (f < need && pf < need && f > pf)) {
				pick = v;
				pf = f;
			}
		}
		cr_assert_neq(pick, UINT32_MAX);
		take[pick] = pf < need ? pf : need;
		need -= take[pick];
	}
	return true;
}

/* Checks a placement against the naive model and applies it there. */
static void cg_naive_take(struct cg_naive *m, const struct job *j,
			  const struct placement *p)
{
	uint64_t g = 0, cp = 0;

	for (uint32_t i = 0; i < p->n; i++) {
		const struct place_slot *s = &p->slots[i];

		cr_assert_eq(s->count, 1);
		cr_assert(i == 0 || p->slots[i - 1].node < s->node);
		cr_assert_eq(cg_pop(s->gpu_mask), s->gpus);
		cr_assert_gt(s->gpus, 0);
		/* not double-booked, of the right type */
		cr_assert_eq(s->gpu_mask & ~m->gmask[s->node], 0,
			     "node %u gpus %#lx taken twice", s->node,
			     (unsigned long)s->gpu_mask);
		cr_assert(!j->gpu_type ||
			  m->type[s->node] == (int)j->gpu_type - 1);
		cr_assert(cg_vc_ok(m, s->node, j), "node %u of vc %d for a "
			  "job of vc %d", s->node, m->vc[s->node],
			  cg_job_vc(m, j));
		cr_assert_leq(s->cpus, m->cfree[s->node]);
		m->gmask[s->node] &= ~s->gpu_mask;
		m->cfree[s->node] -= s->cpus;
		g += s->gpus;
		cp += s->cpus;
	}
	cr_assert_eq(g, j->gpus);
	cr_assert_eq(cp, j->cpus);
}

static void cg_naive_give(struct cg_naive *m, const struct placement *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		const struct place_slot *s = &p->slots[i];

		for (uint32_t k = 0; k < s->count; k++) {
			cr_assert_eq(m->gmask[s->node + k] & s->gpu_mask, 0);
			m->gmask[s->node + k] |= s->gpu_mask;
			m->cfree[s->node + k] += s->cpus;
		}
	}
}

static void cg_naive_compare(const struct cg_naive *m,
			     const struct cluster *c)
{
	uint64_t fg = 0;

	for (uint32_t v = 0; v < m->n; v++) {
		cr_assert_eq(cluster_node_free_gpu_mask(c, v), m->gmask[v],
			     "node %u", v);
		cr_assert_eq(cluster_node_free_cpus(c, v), m->cfree[v]);
		fg += cg_pop(m->gmask[v]);
	}
	cr_assert_eq(cluster_free_gpus(c), fg);
	cg_check(c);
}

/* First fit and best fit: the same nodes, counts and (lowest free)
 * GPUs as the naive plan. */
static void cg_naive_same(const struct cg_naive *m, const struct job *j,
			  enum place_strategy s, uint32_t *take,
			  const struct placement *p)
{
	uint32_t i = 0;

	cg_naive_plan(m, j, s == PLACE_BEST_FIT, take);
	for (uint32_t v = 0; v < m->n; v++) {
		uint64_t fm = m->gmask[v], w = 0;

		if (!take[v])
			continue;
		for (uint32_t t = 0; t < take[v]; t++) {
			w |= fm & -fm;
			fm &= fm - 1;
		}
		cr_assert_lt(i, p->n);
		cr_assert_eq(p->slots[i].node, v, "%s: node %u, naive %u",
			     place_strategy_name(s), p->slots[i].node, v);
		cr_assert_eq(p->slots[i].gpus, take[v]);
		cr_assert_eq(p->slots[i].gpu_mask, w);
		i++;
	}
	cr_assert_eq(i, p->n);
}

Test(cluster_gpu, randomised_against_naive)
{
	static const char *const types[] = { NULL, "A", "B" };
	/* Rounds 0 .. 39 have no vc (all shared pool); then groups of VCs
	 * X and Y or the shared pool.  Jobs are of X, Y, Z (a VC with no
	 * nodes) or no group. */
	static const char *const vcs[] = { NULL, "X", "Y" };
	static char *const jgroups[] = { (char *)"X", (char *)"Y",
					 (char *)"Z" };
	uint64_t seed = 12345;

	for (int round = 0; round < 80; round++) {
		struct cg_group g[4];
		const char *gvc[4];
		size_t ng = 1 + place_rng_next(&seed) % 4;
		uint32_t rack = (uint32_t)(place_rng_next(&seed) % 40);
		struct cluster *c;
		struct cg_naive m = { 0 };
		struct placement live[24] = { { 0 } };
		bool used[24] = { 0 };
		uint32_t *take;
		uint64_t rng = round;

		for (size_t i = 0; i < ng; i++) {
			g[i].count = 1 + (uint32_t)(place_rng_next(&seed) % 90);
			g[i].cpus = 1 + (uint32_t)(place_rng_next(&seed) % 8);
			g[i].gpus = (uint32_t)(place_rng_next(&seed) % 9);
			if (round % 10 == 9)
				g[i].gpus = 64;
			g[i].type = g[i].gpus ?
				    types[place_rng_next(&seed) % 3] : NULL;
			gvc[i] = round >= 40 && g[i].gpus ?
				 vcs[place_rng_next(&seed) % 3] : NULL;
		}
		c = cg_new_vc(ng, g, gvc, rack);
		cluster_bind_groups(c, jgroups, 3);
		for (int k = 0; k < 3; k++) {
			bool named = false;

			for (size_t i = 0; i < ng; i++)
				named |= gvc[i] && !strcmp(gvc[i], jgroups[k]);
			m.gvc[k] = cluster_vc_index(c, jgroups[k]);
			cr_assert_eq(m.gvc[k] >= 0, named);
		}
		m.vc = xcalloc(cluster_nodes(c), sizeof(*m.vc));
		m.n = cluster_nodes(c);
		m.gmask = xcalloc(m.n, sizeof(*m.gmask));
		m.cfree = xcalloc(m.n, sizeof(*m.cfree));
		m.type = xcalloc(m.n, sizeof(*m.type));
		m.gcap = xcalloc(m.n, sizeof(*m.gcap));
		take = xcalloc(m.n, sizeof(*take));
		for (uint32_t v = 0, gi = 0, left = g[0].count; v < m.n; v++) {
			if (!left)
				left = g[++gi].count;
			left--;
			m.gcap[v] = g[gi].gpus;
			m.gmask[v] = g[gi].gpus == 64 ? ~UINT64_C(0) :
				     (UINT64_C(1) << g[gi].gpus) - 1;
			m.cfree[v] = g[gi].cpus;
			m.type[v] = g[gi].type ?
				    cluster_gpu_type_index(c, g[gi].type) : -1;
			m.vc[v] = gvc[gi] ? cluster_vc_index(c, gvc[gi]) : -1;
			cr_assert_eq(cluster_node_vc(c, v), m.vc[v]);
			cr_assert_eq(cluster_node_gpus(c, v), g[gi].gpus);
		}
		for (int step = 0; step < 300; step++) {
			int slot = (int)(place_rng_next(&seed) % 24);
			enum place_strategy s = (enum place_strategy)
				(place_rng_next(&seed) % PLACE_NSTRATEGIES);
			struct job j;
			uint32_t ntypes = cluster_gpu_type_count(c);
			bool fits;
			int rc;

			if (used[slot]) {
				cluster_release(c, &live[slot]);
				cg_naive_give(&m, &live[slot]);
				used[slot] = false;
				cg_naive_compare(&m, c);
				continue;
			}
			if (place_rng_next(&seed) % 5 == 0) {
				/* a CPU job between the GPU ones */
				j = cg_job(0, 0, 1 + (uint32_t)
					   (place_rng_next(&seed) % 20));
				if (cluster_alloc(c, &j, &live[slot]) == 0) {
					for (uint32_t i = 0; i < live[slot].n;
					     i++) {
						const struct place_slot *ps =
							&live[slot].slots[i];

						for (uint32_t k = 0;
						     k < ps->count; k++)
							m.cfree[ps->node + k] -=
								ps->cpus;
					}
					used[slot] = true;
				}
				cg_naive_compare(&m, c);
				continue;
			}
			j = cg_job(1 + (uint32_t)(place_rng_next(&seed) % 24),
				   (uint16_t)(place_rng_next(&seed) %
					      (ntypes + 2)),
				   place_rng_next(&seed) % 4 == 0 ?
				   (uint32_t)(place_rng_next(&seed) % 30) : 0);
			j.group = (int32_t)(place_rng_next(&seed) % 4) - 1;
			cr_assert_eq(cluster_job_vc(c, &j), cg_job_vc(&m, &j));
			fits = cg_naive_plan(&m, &j, false, take);
			cr_assert_eq(cluster_fits(c, &j), fits,
				     "round %d step %d fits", round, step);
			rc = cluster_alloc_gpus(c, &j, s, &rng, &live[slot]);
			cr_assert_eq(rc, fits ? 0 : -SIM_ESTATE);
			if (rc) {
				cg_naive_compare(&m, c);
				continue;
			}
			if (s == PLACE_FIRST_FIT || s == PLACE_BEST_FIT)
				cg_naive_same(&m, &j, s, take, &live[slot]);
			cg_naive_take(&m, &j, &live[slot]);
			used[slot] = true;
			cg_naive_compare(&m, c);
		}
		for (int i = 0; i < 24; i++) {
			if (used[i]) {
				cluster_release(c, &live[i]);
				cg_naive_give(&m, &live[i]);
			}
			placement_release(&live[i]);
		}
		cg_naive_compare(&m, c);
		cr_assert_eq(cluster_free_gpus(c), cluster_total_gpus(c));
		cr_assert_eq(cluster_free_cpus(c), cluster_total_cpus(c));
		free(m.gmask);
		free(m.cfree);
		free(m.type);
		free(m.gcap);
		free(m.vc);
		free(take);
		cluster_free(c);
	}
}
