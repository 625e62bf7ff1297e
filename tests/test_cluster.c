/*
 * Tests of the cluster model (sim/cluster/cluster.c): first-fit placements worked
 * out by hand, extent merging, groups of different node sizes, exclusive
 * mode, the edges of the 64-node blocks of the placement index (block and
 * group boundaries, a short last block, a three-level summary), the spec
 * checks and trace-header sizing, and a randomised run against a naive
 * per-node-array model of the same first fit, releasing placements whole
 * or in pieces.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "base/util.h"

/* A spec of up to 8 groups given as (count, cpus) pairs. */
static void ct_spec(struct cluster_spec *s, bool exclusive, size_t ngroups,
		    const uint32_t (*g)[2])
{
	memset(s, 0, sizeof(*s));
	s->groups = xcalloc(ngroups, sizeof(*s->groups));
	s->ngroups = ngroups;
	s->exclusive = exclusive;
	for (size_t i = 0; i < ngroups; i++) {
		s->groups[i].name = xasprintf("group%zu", i);
		s->groups[i].count = g[i][0];
		s->groups[i].cpus = g[i][1];
	}
}

static struct cluster *ct_new(bool exclusive, size_t ngroups,
			      const uint32_t (*g)[2])
{
	struct cluster_spec s;
	struct sim_error err = {{0}};
	struct cluster *c;

	ct_spec(&s, exclusive, ngroups, g);
	cr_assert_eq(cluster_spec_check(&s, "x.json: ", &err), 0, "%s",
		     err.msg);
	c = cluster_new(&s);
	/* The cluster must not keep pointers into the spec. */
	cluster_spec_release(&s);
	return c;
}

static struct job ct_job(uint32_t cpus)
{
	struct job j;

	memset(&j, 0, sizeof(j));
	j.cpus = cpus;
	return j;
}

static void ct_check(const struct cluster *c)
{
	struct sim_error err = {{0}};

	cr_assert_eq(cluster_check(c, &err), 0, "cluster_check: %s", err.msg);
}

/* Expects exactly the slots {node, count, cpus} listed. */
static void ct_expect_slots(const struct placement *p, size_t n,
			    const uint32_t (*want)[3])
{
	cr_assert_eq(p->n, n, "slots: got %u, want %zu", p->n, n);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(p->slots[i].node, want[i][0], "slot %zu node", i);
		cr_expect_eq(p->slots[i].count, want[i][1], "slot %zu count",
			     i);
		cr_expect_eq(p->slots[i].cpus, want[i][2], "slot %zu cpus", i);
		cr_expect_eq(p->slots[i].gpus, 0);
	}
}

static void ct_expect_free(const struct cluster *c, size_t n,
			   const uint32_t *want)
{
	cr_assert_eq(cluster_nodes(c), n);
	for (uint32_t i = 0; i < n; i++)
		cr_expect_eq(cluster_node_free_cpus(c, i), want[i],
			     "node %u: free %u, want %u", i,
			     cluster_node_free_cpus(c, i), want[i]);
	ct_check(c);
}

/*
 * 4 nodes x 4 CPUs, shared.
 *   alloc A=3: node0 gives 3            -> {0,1,3}        free 1 4 4 4
 *   alloc B=6: node0 1, node1 4, node2 1 -> {0,1,1} {1,1,4} {2,1,1}
 *                                                         free 0 0 3 4
 *   release A: node0 +3                                   free 3 0 3 4
 *   alloc C=5: node0 3, node1 full, node2 2 -> {0,1,3} {2,1,2}
 *                                                         free 0 0 1 4
 *   release B: node0 +1, node1 +4, node2 +1               free 1 4 2 4
 *   release C: all idle.
 */
Test(cluster_alloc, hand_worked_4x4)
{
	static const uint32_t g[][2] = { { 4, 4 } };
	struct cluster *c = ct_new(false, 1, g);
	struct placement a = { 0 }, b = { 0 }, cc = { 0 };
	struct job j;

	cr_assert_eq(cluster_total_cpus(c), 16);
	cr_assert_eq(cluster_capacity(c), 16);
	j = ct_job(3);
	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	ct_expect_slots(&a, 1, (const uint32_t[][3]){ { 0, 1, 3 } });
	ct_expect_free(c, 4, (const uint32_t[]){ 1, 4, 4, 4 });
	cr_expect_eq(cluster_idle_nodes(c), 3);

	j = ct_job(6);
	cr_assert_eq(cluster_alloc(c, &j, &b), 0);
	ct_expect_slots(&b, 3, (const uint32_t[][3]){
		{ 0, 1, 1 }, { 1, 1, 4 }, { 2, 1, 1 } });
	ct_expect_free(c, 4, (const uint32_t[]){ 0, 0, 3, 4 });
	cr_expect_eq(cluster_free_cpus(c), 7);
	cr_expect_eq(cluster_free_units(c), 7);
	cr_expect_eq(cluster_idle_nodes(c), 1);

	cluster_release(c, &a);
	ct_expect_free(c, 4, (const uint32_t[]){ 3, 0, 3, 4 });

	j = ct_job(5);
	cr_assert_eq(cluster_alloc(c, &j, &cc), 0);
	ct_expect_slots(&cc, 2, (const uint32_t[][3]){
		{ 0, 1, 3 }, { 2, 1, 2 } });
	ct_expect_free(c, 4, (const uint32_t[]){ 0, 0, 1, 4 });

	/* 5 CPUs free: 6 does not fit and changes nothing. */
	j = ct_job(6);
	cr_expect_not(cluster_fits(c, &j));
	cr_expect(cluster_can_ever_fit(c, &j));
	cr_expect_eq(cluster_alloc(c, &j, &a), -SIM_ESTATE);
	ct_expect_free(c, 4, (const uint32_t[]){ 0, 0, 1, 4 });

	cluster_release(c, &b);
	ct_expect_free(c, 4, (const uint32_t[]){ 1, 4, 2, 4 });
	cluster_release(c, &cc);
	ct_expect_free(c, 4, (const uint32_t[]){ 4, 4, 4, 4 });
	cr_expect_eq(cluster_idle_nodes(c), 4);

	placement_release(&a);
	placement_release(&b);
	placement_release(&cc);
	cluster_free(c);
}

/*
 * 8 nodes x 2 CPUs.  alloc 1 -> {0,1,1}; alloc 11: node0 gives its last 1,
 * nodes 1..5 give 2 each (10) -> {0,1,1} {1,5,2}: the partial take of
 * node 0 and the run of five whole nodes are separate steps, yet the
 * whole nodes merge into one extent.  Free: 0 0 0 0 0 0 2 2.
 */
Test(cluster_alloc, merges_extents)
{
	static const uint32_t g[][2] = { { 8, 2 } };
	struct cluster *c = ct_new(false, 1, g);
	struct placement a = { 0 }, b = { 0 };
	struct job j = ct_job(1);

	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	ct_expect_slots(&a, 1, (const uint32_t[][3]){ { 0, 1, 1 } });
	j = ct_job(11);
	cr_assert_eq(cluster_alloc(c, &j, &b), 0);
	ct_expect_slots(&b, 2, (const uint32_t[][3]){
		{ 0, 1, 1 }, { 1, 5, 2 } });
	ct_expect_free(c, 8, (const uint32_t[]){ 0, 0, 0, 0, 0, 0, 2, 2 });
	cluster_release(c, &a);
	ct_expect_free(c, 8, (const uint32_t[]){ 1, 0, 0, 0, 0, 0, 2, 2 });
	cluster_release(c, &b);
	ct_expect_free(c, 8, (const uint32_t[]){ 2, 2, 2, 2, 2, 2, 2, 2 });
	placement_release(&a);
	placement_release(&b);
	cluster_free(c);
}

/*
 * Groups 2 x 4 CPUs then 3 x 2 CPUs: nodes 0,1 have 4, nodes 2,3,4 have 2
 * (14 CPUs), one block of mixed node sizes.  alloc 12: nodes 0..3 (12
 * CPUs, all idle) are taken whole across the group boundary: {0,2,4}
 * {2,2,2}.  Free: 0 0 0 0 2.  alloc 3 does not fit (2 free).
 */
Test(cluster_alloc, heterogeneous_groups)
{
	static const uint32_t g[][2] = { { 2, 4 }, { 3, 2 } };
	struct cluster *c = ct_new(false, 2, g);
	struct placement a = { 0 }, b = { 0 };
	struct job j = ct_job(12);

	cr_assert_eq(cluster_total_cpus(c), 14);
	cr_expect_eq(cluster_node_cpus(c, 1), 4);
	cr_expect_eq(cluster_node_cpus(c, 2), 2);
	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	ct_expect_slots(&a, 2, (const uint32_t[][3]){
		{ 0, 2, 4 }, { 2, 2, 2 } });
	ct_expect_free(c, 5, (const uint32_t[]){ 0, 0, 0, 0, 2 });
	j = ct_job(3);
	cr_expect_eq(cluster_alloc(c, &j, &b), -SIM_ESTATE);
	j = ct_job(1);
	cr_assert_eq(cluster_alloc(c, &j, &b), 0);
	ct_expect_slots(&b, 1, (const uint32_t[][3]){ { 4, 1, 1 } });
	cluster_release(c, &a);
	ct_expect_free(c, 5, (const uint32_t[]){ 4, 4, 2, 2, 1 });
	cluster_release(c, &b);
	ct_expect_free(c, 5, (const uint32_t[]){ 4, 4, 2, 2, 2 });
	placement_release(&a);
	placement_release(&b);
	cluster_free(c);
}

/*
 * Two groups of equal node size merge across the boundary: 2 x 4 + 2 x 4,
 * alloc 16 -> {0,4,4}.
 *
 * A slot that is partial on one node and whole on the next: groups 1 x 8
 * then 2 x 4.  alloc X=4 -> {0,1,4} (node0 free 4); alloc Y=8: node0 gives
 * its 4 (partial: capacity 8), node1 gives 4 (whole) -> one slot {0,2,4}.
 * Release Y: node0 back to 4, node1 idle; release X: all idle.
 */
Test(cluster_alloc, merges_across_groups)
{
	static const uint32_t g1[][2] = { { 2, 4 }, { 2, 4 } };
	static const uint32_t g2[][2] = { { 1, 8 }, { 2, 4 } };
	struct cluster *c = ct_new(false, 2, g1);
	struct placement x = { 0 }, y = { 0 };
	struct job j = ct_job(16);

	cr_assert_eq(cluster_alloc(c, &j, &x), 0);
	ct_expect_slots(&x, 1, (const uint32_t[][3]){ { 0, 4, 4 } });
	ct_expect_free(c, 4, (const uint32_t[]){ 0, 0, 0, 0 });
	cluster_release(c, &x);
	ct_expect_free(c, 4, (const uint32_t[]){ 4, 4, 4, 4 });
	cluster_free(c);

	c = ct_new(false, 2, g2);
	j = ct_job(4);
	cr_assert_eq(cluster_alloc(c, &j, &x), 0);
	ct_expect_slots(&x, 1, (const uint32_t[][3]){ { 0, 1, 4 } });
	j = ct_job(8);
	cr_assert_eq(cluster_alloc(c, &j, &y), 0);
	ct_expect_slots(&y, 1, (const uint32_t[][3]){ { 0, 2, 4 } });
	ct_expect_free(c, 3, (const uint32_t[]){ 0, 0, 4 });
	cluster_release(c, &y);
	ct_expect_free(c, 3, (const uint32_t[]){ 4, 4, 4 });
	cluster_release(c, &x);
	ct_expect_free(c, 3, (const uint32_t[]){ 8, 4, 4 });
	cr_expect_eq(cluster_idle_nodes(c), 3);
	placement_release(&x);
	placement_release(&y);
	cluster_free(c);
}

/*
 * 93,312 one-CPU nodes (Curie): an 80,000-CPU job is one extent
 * {0,80000,1}; then 13,312 more fill it; release the first.
 */
Test(cluster_alloc, big_one_cpu_cluster)
{
	static const uint32_t g[][2] = { { 93312, 1 } };
	struct cluster *c = ct_new(false, 1, g);
	struct placement a = { 0 }, b = { 0 };
	struct job j = ct_job(80000);

	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	ct_expect_slots(&a, 1, (const uint32_t[][3]){ { 0, 80000, 1 } });
	cr_expect_eq(cluster_free_cpus(c), 13312);
	cr_expect_eq(cluster_node_free_cpus(c, 79999), 0);
	cr_expect_eq(cluster_node_free_cpus(c, 80000), 1);
	j = ct_job(13313);
	cr_expect_not(cluster_fits(c, &j));
	j = ct_job(13312);
	cr_assert_eq(cluster_alloc(c, &j, &b), 0);
	ct_expect_slots(&b, 1, (const uint32_t[][3]){ { 80000, 13312, 1 } });
	cr_expect_eq(cluster_free_cpus(c), 0);
	ct_check(c);
	cluster_release(c, &a);
	cr_expect_eq(cluster_free_cpus(c), 80000);
	cr_expect_eq(cluster_idle_nodes(c), 80000);
	cr_expect_eq(cluster_node_free_cpus(c, 0), 1);
	cr_expect_eq(cluster_node_free_cpus(c, 93311), 0);
	ct_check(c);
	cluster_reset(c);
	cr_expect_eq(cluster_free_cpus(c), 93312);
	cr_expect_eq(cluster_node_free_cpus(c, 93311), 1);
	ct_check(c);
	placement_release(&a);
	placement_release(&b);
	cluster_free(c);
}

/*
 * Exclusive, 4 nodes x 4 CPUs; the unit is the node.
 *   A=5 CPUs -> 2 nodes {0,2,4}; B=1 CPU -> 1 node {2,1,4}; 1 node idle.
 *   C=8 CPUs (2 nodes) does not fit now but could ever; 17 CPUs (5 nodes)
 *   never.  Release A; C -> {0,2,4}.
 */
Test(cluster_alloc, exclusive)
{
	static const uint32_t g[][2] = { { 4, 4 } };
	struct cluster *c = ct_new(true, 1, g);
	struct placement a = { 0 }, b = { 0 }, cc = { 0 };
	struct job j = ct_job(5);

	cr_assert(cluster_exclusive(c));
	cr_expect_eq(cluster_capacity(c), 4);
	cr_expect_eq(cluster_demand(c, &j), 2);
	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	ct_expect_slots(&a, 1, (const uint32_t[][3]){ { 0, 2, 4 } });
	j = ct_job(1);
	cr_expect_eq(cluster_demand(c, &j), 1);
	cr_assert_eq(cluster_alloc(c, &j, &b), 0);
	ct_expect_slots(&b, 1, (const uint32_t[][3]){ { 2, 1, 4 } });
	ct_expect_free(c, 4, (const uint32_t[]){ 0, 0, 0, 4 });
	cr_expect_eq(cluster_free_units(c), 1);
	cr_expect_eq(cluster_free_cpus(c), 4);

	j = ct_job(8);
	cr_expect_not(cluster_fits(c, &j));
	cr_expect(cluster_can_ever_fit(c, &j));
	cr_expect_eq(cluster_alloc(c, &j, &cc), -SIM_ESTATE);
	j = ct_job(16);
	cr_expect(cluster_can_ever_fit(c, &j));
	j = ct_job(17);
	cr_expect_eq(cluster_demand(c, &j), 5);
	cr_expect_not(cluster_can_ever_fit(c, &j));

	cluster_release(c, &a);
	j = ct_job(8);
	cr_assert_eq(cluster_alloc(c, &j, &cc), 0);
	ct_expect_slots(&cc, 1, (const uint32_t[][3]){ { 0, 2, 4 } });
	cluster_release(c, &b);
	/* Node 3 idle and node 2 idle again: a 2-node job gets {2,2,4}. */
	j = ct_job(7);
	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	ct_expect_slots(&a, 1, (const uint32_t[][3]){ { 2, 2, 4 } });
	cluster_release(c, &a);
	cluster_release(c, &cc);
	ct_expect_free(c, 4, (const uint32_t[]){ 4, 4, 4, 4 });
	placement_release(&a);
	placement_release(&b);
	placement_release(&cc);
	cluster_free(c);
}

/*
 * Release of hand-made placements: in any order, with empty slots, and
 * with slots that cross a group boundary and give back part of a node.
 * Groups: nodes 0-1 of 4 CPUs, nodes 2-4 of 2 (14 CPUs).
 *   alloc 14 -> {0,2,4} {2,3,2}                           free 0 0 0 0 0
 *   release {3,2,1} {1,2,2} {0,0,4} {0,1,4} (out of order, one empty):
 *     node3 +1, node4 +1, node1 +2, node2 +2, node0 +4     free 4 2 2 1 1
 *   release {1,1,2} {3,2,1} (in order)                     free 4 4 2 2 2
 *   alloc 14 again -> the same two slots                   free 0 0 0 0 0
 *   release {0,1,4} {1,2,2} {3,2,1} (in order)             free 4 2 2 1 1
 *   release {1,1,2} {3,2,1}                                free 4 4 2 2 2
 */
Test(cluster_alloc, release_hand_made)
{
	static const uint32_t g[][2] = { { 2, 4 }, { 3, 2 } };
	static struct place_slot p1[] = {
		{ 3, 2, 1, 0, 0 }, { 1, 2, 2, 0, 0 }, { 0, 0, 4, 0, 0 },
		{ 0, 1, 4, 0, 0 },
	};
	static struct place_slot p2[] = {
		{ 1, 1, 2, 0, 0 }, { 3, 2, 1, 0, 0 },
	};
	static struct place_slot p3[] = {
		{ 0, 1, 4, 0, 0 }, { 1, 2, 2, 0, 0 }, { 3, 2, 1, 0, 0 },
	};
	struct placement r1 = { p1, 4, 4 }, r2 = { p2, 2, 2 };
	struct placement r3 = { p3, 3, 3 }, a = { 0 };
	struct cluster *c = ct_new(false, 2, g);
	struct job j = ct_job(14);

	for (int round = 0; round < 2; round++) {
		cr_assert_eq(cluster_alloc(c, &j, &a), 0);
		ct_expect_slots(&a, 2, (const uint32_t[][3]){ { 0, 2, 4 },
							      { 2, 3, 2 } });
		ct_expect_free(c, 5, (const uint32_t[]){ 0, 0, 0, 0, 0 });
		cluster_release(c, round ? &r3 : &r1);
		ct_expect_free(c, 5, (const uint32_t[]){ 4, 2, 2, 1, 1 });
		cr_expect_eq(cluster_free_cpus(c), 10);
		cr_expect_eq(cluster_idle_nodes(c), 2); /* nodes 0 and 2 */
		cluster_release(c, &r2);
		ct_expect_free(c, 5, (const uint32_t[]){ 4, 4, 2, 2, 2 });
		cr_expect_eq(cluster_idle_nodes(c), 5);
	}
	placement_release(&a);
	cluster_free(c);
}

Test(cluster_alloc, fits_and_zero_job)
{
	static const uint32_t g[][2] = { { 3, 2 } };
	struct cluster *c = ct_new(false, 1, g);
	struct placement p = { 0 };
	struct job j = ct_job(6);

	cr_expect(cluster_fits(c, &j));
	cr_expect(cluster_can_ever_fit(c, &j));
	cr_expect_eq(cluster_demand(c, &j), 6);
	j = ct_job(7);
	cr_expect_not(cluster_fits(c, &j));
	cr_expect_not(cluster_can_ever_fit(c, &j));
	cr_expect_eq(cluster_alloc(c, &j, &p), -SIM_ESTATE);
	j = ct_job(0);
	cr_expect(cluster_fits(c, &j));
	cr_assert_eq(cluster_alloc(c, &j, &p), 0);
	cr_expect_eq(p.n, 0);
	cluster_release(c, &p);
	cr_expect_eq(cluster_free_cpus(c), 6);
	ct_check(c);
	placement_release(&p);
	placement_release(&p);
	cluster_free(c);
	cluster_free(NULL);
}

/*
 * Block boundaries (the index keeps nodes in blocks of 64): 130 one-CPU
 * nodes are blocks [0,63] [64,127] [128,129].
 *   alloc 63 -> {0,63,1}
 *   alloc 3  -> {63,3,1}: node 63 ends block 0, 64 and 65 start block 1,
 *               one extent
 *   alloc 64 -> {66,64,1}: the 62 rest of block 1 and the short last
 *               block                                       free 0
 *   release the 3 -> nodes 63..65 free; alloc 2 -> {63,2,1}; 1 free (65)
 *   alloc 2 does not fit; release all -> 130 idle.
 */
Test(cluster_alloc, block_boundaries)
{
	static const uint32_t g[][2] = { { 130, 1 } };
	struct cluster *c = ct_new(false, 1, g);
	struct placement a = { 0 }, b = { 0 }, d = { 0 }, e = { 0 };
	struct job j = ct_job(63);

	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	ct_expect_slots(&a, 1, (const uint32_t[][3]){ { 0, 63, 1 } });
	j = ct_job(3);
	cr_assert_eq(cluster_alloc(c, &j, &b), 0);
	ct_expect_slots(&b, 1, (const uint32_t[][3]){ { 63, 3, 1 } });
	j = ct_job(64);
	cr_assert_eq(cluster_alloc(c, &j, &d), 0);
	ct_expect_slots(&d, 1, (const uint32_t[][3]){ { 66, 64, 1 } });
	cr_expect_eq(cluster_free_cpus(c), 0);
	cr_expect_eq(cluster_idle_nodes(c), 0);
	ct_check(c);
	cluster_release(c, &b);
	cr_expect_eq(cluster_node_free_cpus(c, 62), 0);
	cr_expect_eq(cluster_node_free_cpus(c, 63), 1);
	cr_expect_eq(cluster_node_free_cpus(c, 65), 1);
	cr_expect_eq(cluster_node_free_cpus(c, 66), 0);
	j = ct_job(2);
	cr_assert_eq(cluster_alloc(c, &j, &e), 0);
	ct_expect_slots(&e, 1, (const uint32_t[][3]){ { 63, 2, 1 } });
	cr_expect_eq(cluster_free_cpus(c), 1);
	cr_expect_eq(cluster_node_free_cpus(c, 65), 1);
	cr_expect_eq(cluster_alloc(c, &j, &b), -SIM_ESTATE);
	ct_check(c);
	cluster_release(c, &d);
	cluster_release(c, &a);
	cluster_release(c, &e);
	cr_expect_eq(cluster_idle_nodes(c), 130);
	cr_expect_eq(cluster_free_cpus(c), 130);
	ct_check(c);
	placement_release(&a);
	placement_release(&b);
	placement_release(&d);
	placement_release(&e);
	cluster_free(c);
}

/*
 * A group boundary inside a block: 60 nodes of 2 CPUs then 10 of 4, so
 * block 0 mixes sizes (nodes 0..59 of 2, 60..63 of 4) and block 1 (64..69)
 * does not.  alloc 130: nodes 0..59 give 120, node 60 and 61 give 4 each
 * (128), node 62 gives 2 -> {0,60,2} {60,2,4} {62,1,2}; node 62 keeps 2.
 * Release {0,60,2}; alloc 3: node 0 gives 2, node 1 gives 1 -> {0,1,2}
 * {1,1,1}.  alloc 35: node 1 its last 1, nodes 2..18 give 2 each (34)
 * -> {1,1,1} {2,17,2}; node 19 is the first idle one left.
 */
Test(cluster_alloc, group_boundary_inside_block)
{
	static const uint32_t g[][2] = { { 60, 2 }, { 10, 4 } };
	struct cluster *c = ct_new(false, 2, g);
	struct placement a = { 0 }, b = { 0 }, d = { 0 };
	static struct place_slot p0[] = { { 0, 60, 2, 0, 0 } };
	struct placement r0 = { p0, 1, 1 };
	struct job j = ct_job(130);

	cr_assert_eq(cluster_total_cpus(c), 160);
	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	ct_expect_slots(&a, 3, (const uint32_t[][3]){
		{ 0, 60, 2 }, { 60, 2, 4 }, { 62, 1, 2 } });
	cr_expect_eq(cluster_node_free_cpus(c, 62), 2);
	cr_expect_eq(cluster_node_free_cpus(c, 63), 4);
	cr_expect_eq(cluster_node_free_cpus(c, 64), 4);
	cr_expect_eq(cluster_free_cpus(c), 30);
	cr_expect_eq(cluster_idle_nodes(c), 7);
	ct_check(c);
	cluster_release(c, &r0);
	cr_expect_eq(cluster_free_cpus(c), 150);
	cr_expect_eq(cluster_idle_nodes(c), 67);
	j = ct_job(3);
	cr_assert_eq(cluster_alloc(c, &j, &b), 0);
	ct_expect_slots(&b, 2, (const uint32_t[][3]){ { 0, 1, 2 },
						      { 1, 1, 1 } });
	j = ct_job(35);
	cr_assert_eq(cluster_alloc(c, &j, &d), 0);
	ct_expect_slots(&d, 2, (const uint32_t[][3]){ { 1, 1, 1 },
						      { 2, 17, 2 } });
	cr_expect_eq(cluster_node_free_cpus(c, 18), 0);
	cr_expect_eq(cluster_node_free_cpus(c, 19), 2);
	ct_check(c);
	placement_release(&a);
	placement_release(&b);
	placement_release(&d);
	cluster_free(c);
}

/*
 * Exclusive over several blocks: 200 nodes of 2 CPUs.  A = 140 CPUs -> 70
 * nodes {0,70,2}; B = 1 CPU -> {70,1,2}.  Release A: idle are 0..69 and
 * 71..199 (199 nodes).  C = 258 CPUs -> 129 nodes: 0..69 (70) then 71..129
 * (59) -> {0,70,2} {71,59,2}; 70 idle left (130..199).
 */
Test(cluster_alloc, exclusive_blocks)
{
	static const uint32_t g[][2] = { { 150, 2 }, { 50, 2 } };
	struct cluster *c = ct_new(true, 2, g);
	struct placement a = { 0 }, b = { 0 }, d = { 0 };
	struct job j = ct_job(140);

	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	ct_expect_slots(&a, 1, (const uint32_t[][3]){ { 0, 70, 2 } });
	j = ct_job(1);
	cr_assert_eq(cluster_alloc(c, &j, &b), 0);
	ct_expect_slots(&b, 1, (const uint32_t[][3]){ { 70, 1, 2 } });
	cluster_release(c, &a);
	cr_expect_eq(cluster_free_units(c), 199);
	j = ct_job(258);
	cr_assert_eq(cluster_alloc(c, &j, &d), 0);
	ct_expect_slots(&d, 2, (const uint32_t[][3]){ { 0, 70, 2 },
						      { 71, 59, 2 } });
	cr_expect_eq(cluster_free_units(c), 70);
	cr_expect_eq(cluster_node_free_cpus(c, 129), 0);
	cr_expect_eq(cluster_node_free_cpus(c, 130), 2);
	ct_check(c);
	/* 141 CPUs are 71 nodes: one too many. */
	j = ct_job(141);
	cr_expect_eq(cluster_alloc(c, &j, &a), -SIM_ESTATE);
	j = ct_job(140);
	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	ct_expect_slots(&a, 1, (const uint32_t[][3]){ { 130, 70, 2 } });
	cr_expect_eq(cluster_free_units(c), 0);
	ct_check(c);
	placement_release(&a);
	placement_release(&b);
	placement_release(&d);
	cluster_free(c);
}

/*
 * Far-apart free nodes on a cluster large enough for a three-level
 * summary: 300,000 one-CPU nodes are 4,688 blocks, 74 words of level 0, 2
 * of level 1, 1 of level 2.  Fill it, give back nodes 5, 250001, 250002
 * and 299999 (blocks 0, 3906 and 4687: level-0 words 0, 61 and 73, so the
 * last one is found through the second level-1 word); alloc 4 finds them
 * in order -> {5,1,1} {250001,2,1} {299999,1,1}, and go back.
 */
Test(cluster_alloc, sparse_large_cluster)
{
	static const uint32_t g[][2] = { { 300000, 1 } };
	static struct place_slot back[] = {
		{ 299999, 1, 1, 0, 0 }, { 5, 1, 1, 0, 0 },
		{ 250001, 2, 1, 0, 0 },
	};
	struct placement r = { back, 3, 3 };
	struct cluster *c = ct_new(false, 1, g);
	struct placement a = { 0 }, b = { 0 };
	struct job j = ct_job(300000);

	cr_assert_eq(cluster_alloc(c, &j, &a), 0);
	ct_expect_slots(&a, 1, (const uint32_t[][3]){ { 0, 300000, 1 } });
	cluster_release(c, &r);
	cr_expect_eq(cluster_free_cpus(c), 4);
	ct_check(c);
	j = ct_job(5);
	cr_expect_eq(cluster_alloc(c, &j, &b), -SIM_ESTATE);
	j = ct_job(4);
	cr_assert_eq(cluster_alloc(c, &j, &b), 0);
	ct_expect_slots(&b, 3, (const uint32_t[][3]){
		{ 5, 1, 1 }, { 250001, 2, 1 }, { 299999, 1, 1 } });
	cr_expect_eq(cluster_free_cpus(c), 0);
	ct_check(c);
	/* The four go back again; the rest of a stays taken. */
	cluster_release(c, &b);
	cr_expect_eq(cluster_free_cpus(c), 4);
	cr_expect_eq(cluster_idle_nodes(c), 4);
	cr_expect_eq(cluster_node_free_cpus(c, 250002), 1);
	cr_expect_eq(cluster_node_free_cpus(c, 250003), 0);
	ct_check(c);
	placement_release(&a);
	placement_release(&b);
	cluster_free(c);
}

/* ---- specs ------------------------------------------------------------ */

static void ct_expect_spec_err(bool exclusive, size_t n,
			       const uint32_t (*g)[2], const char *want)
{
	struct cluster_spec s;
	struct sim_error err = {{0}};

	ct_spec(&s, exclusive, n, g);
	cr_expect_eq(cluster_spec_check(&s, "e.json: ", &err), -SIM_EINPUT);
	cr_expect_str_eq(err.msg, want);
	cluster_spec_release(&s);
}

Test(cluster_spec, check_messages)
{
	struct cluster_spec s;
	struct sim_error err = {{0}};

	memset(&s, 0, sizeof(s));
	cr_expect_eq(cluster_spec_check(&s, "e.json: ", &err), -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "e.json: $.cluster.nodes: must have at "
			 "least one node group");
	cluster_spec_release(&s);

	ct_expect_spec_err(false, 2, (const uint32_t[][2]){ { 1, 4 }, { 0, 4 } },
			   "e.json: $.cluster.nodes[1].count: must be "
			   "positive, got '0'");
	ct_expect_spec_err(false, 1, (const uint32_t[][2]){ { 3, 0 } },
			   "e.json: $.cluster.nodes[0].cpus: must be "
			   "positive, got '0'");
	ct_expect_spec_err(true, 2, (const uint32_t[][2]){ { 2, 4 }, { 2, 8 } },
			   "e.json: $.cluster.exclusive: exclusive nodes "
			   "need equal cpus in every group ('4' vs '8')");
	/* 2^31 nodes: one too many. */
	ct_expect_spec_err(false, 2,
			   (const uint32_t[][2]){ { 1u << 30, 1 },
						  { 1u << 30, 1 } },
			   "e.json: $.cluster.nodes: too many nodes in total, "
			   "got '2147483648' (at most '2147483647')");
	/* CPUs: 2^32 - 1 + 1 = 4294967296, one too many. */
	ct_expect_spec_err(false, 2,
			   (const uint32_t[][2]){ { 1, UINT32_MAX },
						  { 1, 1 } },
			   "e.json: $.cluster.nodes: too many CPUs in total, "
			   "got '4294967296' (at most '4294967295')");
	/* 2 x (2^32 - 1) = 8589934590: the sum is checked after each
	 * group. */
	ct_expect_spec_err(false, 1, (const uint32_t[][2]){ { 2, UINT32_MAX } },
			   "e.json: $.cluster.nodes: too many CPUs in total, "
			   "got '8589934590' (at most '4294967295')");

	/* Mixed sizes are fine when shared; exclusive with equal sizes too. */
	ct_spec(&s, false, 2, (const uint32_t[][2]){ { 2, 4 }, { 2, 8 } });
	cr_expect_eq(cluster_spec_check(&s, "e.json: ", &err), 0);
	s.groups[1].cpus = 4;
	s.exclusive = true;
	cr_expect_eq(cluster_spec_check(&s, "e.json: ", &err), 0);
	cluster_spec_release(&s);
	cr_expect_null(s.groups);
	cluster_spec_release(&s);
}

/*
 * The largest valid clusters: 2^31 - 1 nodes (of one CPU: 2^31 - 1 CPUs),
 * and 2^32 - 1 CPUs in all (the placement index counts in 32 bits):
 * 2^31 nodes of 2 CPUs would be 2^32, so 2^31 - 1 of 2 plus one of 1.
 */
Test(cluster_spec, largest_valid)
{
	struct cluster_spec s;
	struct sim_error err = {{0}};

	ct_spec(&s, false, 2, (const uint32_t[][2]){
		{ 1u << 30, 1 }, { (1u << 30) - 1, 1 } });
	cr_expect_eq(cluster_spec_check(&s, NULL, &err), 0, "%s", err.msg);
	cluster_spec_release(&s);
	ct_spec(&s, false, 1, (const uint32_t[][2]){ { 1, UINT32_MAX } });
	cr_expect_eq(cluster_spec_check(&s, NULL, &err), 0, "%s", err.msg);
	cluster_spec_release(&s);
	ct_spec(&s, false, 2, (const uint32_t[][2]){
		{ (1u << 31) - 2, 2 }, { 1, 1 } });
	cr_expect_eq(cluster_spec_check(&s, NULL, &err), 0, "%s", err.msg);
	cluster_spec_release(&s);
}

static void ct_expect_header(int64_t procs, int64_t nodes, uint32_t count,
			     uint32_t cpus)
{
	struct cluster_spec s;
	struct sim_error err = {{0}};

	cr_assert_eq(cluster_spec_from_header(&s, procs, nodes, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(s.ngroups, 1);
	cr_expect_str_eq(s.groups[0].name, "trace");
	cr_expect_eq(s.groups[0].count, count, "%lld/%lld: count %u",
		     (long long)procs, (long long)nodes, s.groups[0].count);
	cr_expect_eq(s.groups[0].cpus, cpus);
	cr_expect_eq(s.groups[0].gpus, 0);
	cr_expect_not(s.exclusive);
	cr_expect_eq(cluster_spec_check(&s, "t: ", &err), 0);
	cluster_spec_release(&s);
}

Test(cluster_spec, from_header)
{
	struct cluster_spec s;
	struct sim_error err = {{0}};

	/* KTH SP2: 100 procs on 100 nodes -> 100 x 1. */
	ct_expect_header(100, 100, 100, 1);
	/* Curie: 93312 / 5544 = 16 rest 4608 -> 93312 one-CPU nodes. */
	ct_expect_header(93312, 5544, 93312, 1);
	/* 128 on 64 nodes -> 64 x 2. */
	ct_expect_header(128, 64, 64, 2);
	/* No MaxNodes -> one-CPU nodes. */
	ct_expect_header(128, -1, 128, 1);
	ct_expect_header(128, 0, 128, 1);

	cr_expect_eq(cluster_spec_from_header(&s, 0, 10, &err), -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "trace has no MaxProcs header: give "
			 "$.cluster.nodes");
	cluster_spec_release(&s);
	cr_expect_eq(cluster_spec_from_header(&s, -1, -1, &err), -SIM_EINPUT);
	cluster_spec_release(&s);
	cr_expect_eq(cluster_spec_from_header(&s, INT64_MAX, -1, &err),
		     -SIM_EINPUT);
	cluster_spec_release(&s);
	/* 2^32 CPUs on 2 nodes: few nodes, but too many CPUs in all. */
	cr_expect_eq(cluster_spec_from_header(&s, INT64_C(1) << 32, 2, &err),
		     -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "trace header MaxProcs '4294967296' with "
			 "MaxNodes '2' is too large for a cluster: give "
			 "$.cluster.nodes");
	cluster_spec_release(&s);
	/* 2^32 - 1 on 3 nodes is the most: 3 x 1431655765. */
	ct_expect_header(UINT32_MAX, 3, 3, 1431655765u);
}

/* ---- randomised comparison with a naive model ------------------------- */

/* splitmix64: a fixed, self-contained generator. */
static uint64_t ct_rand(uint64_t *st)
{
	uint64_t z = (*st += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static uint32_t ct_below(uint64_t *st, uint32_t n)
{
	return (uint32_t)(ct_rand(st) % n);
}

/* The naive model: plain per-node arrays, the same first fit. */
struct ct_ref {
	uint32_t n;     /* nodes */
	uint32_t *cap;  /* CPUs per node */
	uint32_t *fr;   /* free CPUs per node */
	bool exclusive; /* whole nodes */
};

static void ct_ref_emit(struct placement *p, uint32_t node, uint32_t cpus)
{
	if (p->n && p->slots[p->n - 1].node + p->slots[p->n - 1].count ==
			    node && p->slots[p->n - 1].cpus == cpus) {
		p->slots[p->n - 1].count++;
		return;
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		p->slots = xrealloc(p->slots, p->cap * sizeof(*p->slots));
	}
	p->slots[p->n++] = (struct place_slot){ node, 1, cpus, 0, 0 };
}

static bool ct_ref_alloc(struct ct_ref *r, uint32_t cpus,
			 struct placement *p)
{
	uint64_t have = 0, need;

	p->n = 0;
	if (r->exclusive) {
		need = (cpus + (uint64_t)r->cap[0] - 1) / r->cap[0];
		for (uint32_t i = 0; i < r->n; i++)
			have += r->fr[i] == r->cap[i];
		if (have < need)
			return false;
		for (uint32_t i = 0; i < r->n && need; i++) {
			if (r->fr[i] == r->cap[i]) {
				ct_ref_emit(p, i, r->cap[i]);
				r->fr[i] = 0;
				need--;
			}
		}
		return true;
	}
	need = cpus;
	for (uint32_t i = 0; i < r->n; i++)
		have += r->fr[i];
	if (have < need)
		return false;
	for (uint32_t i = 0; i < r->n && need; i++) {
		uint32_t t = r->fr[i] < need ? r->fr[i] : (uint32_t)need;

		if (t) {
			ct_ref_emit(p, i, t);
			r->fr[i] -= t;
			need -= t;
		}
	}
	return true;
}

static void ct_ref_release(struct ct_ref *r, const struct placement *p)
{
	for (uint32_t i = 0; i < p->n; i++)
		for (uint32_t k = 0; k < p->slots[i].count; k++)
			r->fr[p->slots[i].node + k] += p->slots[i].cpus;
}

/*
 * Gives a placement back in pieces, as no allocation would cut it: each
 * slot split at a random node and its CPUs split in two (pieces of 0 nodes
 * or 0 CPUs included, which release skips), the pieces of a slot in a
 * shuffled order and the slots last to first.  Every node gets back the
 * same CPUs as from one release of p.
 */
static void ct_release_pieces(struct cluster *c, const struct placement *p,
			      uint64_t *st)
{
	for (uint32_t i = p->n; i-- > 0;) {
		const struct place_slot *s = &p->slots[i];
		uint32_t at = ct_below(st, s->count + 1);
		uint32_t part = ct_below(st, s->cpus + 1);
		uint32_t first = ct_below(st, 4);
		struct place_slot pc[4] = {
			{ s->node, at, part, 0, 0 },
			{ s->node + at, s->count - at, part, 0, 0 },
			{ s->node, at, s->cpus - part, 0, 0 },
			{ s->node + at, s->count - at, s->cpus - part, 0, 0 },
		};
		struct place_slot order[4];
		struct placement q = { order, 4, 4 };

		for (uint32_t k = 0; k < 4; k++)
			order[k] = pc[(first + k * 3) % 4];
		cluster_release(c, &q);
	}
}

static void ct_compare(const struct cluster *c, const struct ct_ref *r)
{
	uint64_t fr = 0;
	uint32_t idle = 0;

	for (uint32_t i = 0; i < r->n; i++) {
		cr_assert_eq(cluster_node_free_cpus(c, i), r->fr[i],
			     "node %u: free %u, model %u", i,
			     cluster_node_free_cpus(c, i), r->fr[i]);
		cr_assert_eq(cluster_node_cpus(c, i), r->cap[i]);
		fr += r->fr[i];
		idle += r->fr[i] == r->cap[i];
	}
	cr_assert_eq(cluster_free_cpus(c), fr);
	cr_assert_eq(cluster_idle_nodes(c), idle);
	ct_check(c);
}

/*
 * nshapes random clusters, 400 operations each, against the model.  With
 * blocks, the clusters are tens of whole blocks of 64 equal nodes (and
 * maybe a short one) and most jobs a few whole blocks give or take a
 * few nodes: the whole-block path of take and release, mixed with the
 * node path at the ends of each run.
 */
static void ct_random(uint64_t st, int nshapes, bool blocks, long *allocs,
		      long *refusals)
{
	long ops = 0;

	for (int shape = 0; shape < nshapes; shape++) {
		uint32_t g[4][2];
		size_t ng = 1 + ct_below(&st, 4);
		bool excl = ct_below(&st, 4) == 0;
		/* Nodes per group: mostly under a block of 64, some up to
		 * several blocks, a few up to 188 blocks (a two-level
		 * summary). */
		uint32_t size_kind = ct_below(&st, 10);
		uint32_t most = size_kind == 0 ? 3000 : size_kind < 3 ? 300 :
				20;
		struct cluster *c;
		struct ct_ref r;
		struct placement live[64], want = { 0 };
		uint32_t nlive = 0;
		uint64_t total = 0;

		for (size_t i = 0; i < ng; i++) {
			g[i][0] = 1 + ct_below(&st, most);
			g[i][1] = 1 + ct_below(&st, ct_below(&st, 3) ? 8 : 2);
			if (blocks) {
				g[i][0] = 64 * (1 + ct_below(&st, 40)) +
					  (i + 1 == ng) * ct_below(&st, 64);
				g[i][1] = 1 + ct_below(&st, 2);
			}
			if (excl)
				g[i][1] = g[0][1];
		}
		c = ct_new(excl, ng, (const uint32_t(*)[2])g);
		memset(&r, 0, sizeof(r));
		r.n = cluster_nodes(c);
		r.exclusive = excl;
		r.cap = xcalloc(r.n, sizeof(*r.cap));
		r.fr = xcalloc(r.n, sizeof(*r.fr));
		for (size_t i = 0, k = 0; i < ng; i++)
			for (uint32_t m = 0; m < g[i][0]; m++, k++) {
				r.cap[k] = r.fr[k] = g[i][1];
				total += g[i][1];
			}
		cr_assert_eq(cluster_total_cpus(c), total);
		memset(live, 0, sizeof(live));

		for (int op = 0; op < 400; op++, ops++) {
			uint32_t kind = ct_below(&st, 100);

			if (kind < 2) {
				/* Occasionally wipe everything. */
				cluster_reset(c);
				memcpy(r.fr, r.cap, r.n * sizeof(*r.fr));
				nlive = 0;
			} else if (nlive == ARRAY_SIZE(live) ||
				   (nlive && kind < 45)) {
				uint32_t k = ct_below(&st, nlive);
				struct placement tmp;

				if (ct_below(&st, 4))
					cluster_release(c, &live[k]);
				else
					ct_release_pieces(c, &live[k], &st);
				ct_ref_release(&r, &live[k]);
				tmp = live[k];
				live[k] = live[nlive - 1];
				live[nlive - 1] = tmp;
				nlive--;
			} else {
				/* Mostly small jobs, some up to the whole
				 * cluster and a little past it. */
				uint32_t size;
				struct job j;
				bool ok_ref;
				int rc;

				if (blocks && ct_below(&st, 2)) {
					/* 64 m .. 64 m + 128 nodes' worth,
					 * maybe a few CPUs short. */
					uint32_t nodes = 64 * ct_below(&st, 8) +
							 ct_below(&st, 129);
					size = g[0][1] * nodes -
					       ct_below(&st, g[0][1]);
					size = size ? size : 1;
				} else if (ct_below(&st, 4))
					size = 1 + ct_below(&st, 1 + (uint32_t)
							    (total / 4));
				else
					size = ct_below(&st, (uint32_t)total
							+ 3);
				j = ct_job(size);
				ok_ref = ct_ref_alloc(&r, size, &want);
				cr_assert_eq(cluster_fits(c, &j), ok_ref);
				rc = cluster_alloc(c, &j, &live[nlive]);
				cr_assert_eq(rc, ok_ref ? 0 : -SIM_ESTATE,
					     "shape %d op %d size %u", shape,
					     op, size);
				if (ok_ref) {
					struct placement *p = &live[nlive];

					cr_assert_eq(p->n, want.n,
						     "shape %d op %d: %u slots,"
						     " model %u", shape, op,
						     p->n, want.n);
					for (uint32_t i = 0; i < p->n; i++) {
						cr_assert_eq(p->slots[i].node,
							     want.slots[i].node);
						cr_assert_eq(p->slots[i].count,
							     want.slots[i].count);
						cr_assert_eq(p->slots[i].cpus,
							     want.slots[i].cpus);
					}
					nlive++;
					(*allocs)++;
				} else {
					(*refusals)++;
				}
			}
			ct_compare(c, &r);
		}
		for (uint32_t i = 0; i < ARRAY_SIZE(live); i++)
			placement_release(&live[i]);
		placement_release(&want);
		free(r.cap);
		free(r.fr);
		cluster_free(c);
	}
	cr_expect_eq(ops, nshapes * 400);
}

Test(cluster_random, against_naive_model)
{
	long allocs = 0, refusals = 0;

	ct_random(20240611, 60, false, &allocs, &refusals);
	/* The run exercised both outcomes. */
	cr_expect_geq(allocs, 5000);
	cr_expect_geq(refusals, 100);
}

Test(cluster_random, whole_blocks_against_naive_model)
{
	long allocs = 0, refusals = 0;

	ct_random(20261202, 40, true, &allocs, &refusals);
	cr_expect_geq(allocs, 3000);
	cr_expect_geq(refusals, 100);
}
