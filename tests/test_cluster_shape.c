/*
 * Tests of the shaped placement of large-model jobs (sim/cluster/
 * cluster_shape.c, docs/placement.md "Shaped jobs"): the slots and ranks
 * of hand-worked cases on 2 racks x 2 nodes x 8 GPUs, the refusals (a
 * shape that is not the job's GPUs, tp wider than any node), the ranks of
 * a shape-blind placement, and a randomised run against a brute-force
 * count of slots: the fit test agrees with it, every tp group lies in one
 * node, the GPUs per node are what the ranks say, a job whose pipelines
 * can each lie in one node does so on the fewest nodes (counted by
 * sorting), and release restores the cluster.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/splitmix.h"
#include "base/util.h"
#include "cluster/cluster.h"

/* nodes x 8 CPUs x gpus GPUs, racks of rack_nodes. */
static struct cluster *cs_new(uint32_t nodes, uint32_t gpus,
			      uint32_t rack_nodes)
{
	struct cluster_spec s;
	struct sim_error err = {{0}};
	struct cluster *c;

	memset(&s, 0, sizeof(s));
	s.groups = xcalloc(1, sizeof(*s.groups));
	s.ngroups = 1;
	s.rack_nodes = rack_nodes;
	s.groups[0].name = xstrdup("g");
	s.groups[0].count = nodes;
	s.groups[0].cpus = 8;
	s.groups[0].gpus = gpus;
	cr_assert_eq(cluster_spec_check(&s, "x.json: ", &err), 0, "%s",
		     err.msg);
	c = cluster_new(&s);
	cluster_spec_release(&s);
	return c;
}

static struct job cs_job(uint32_t gpus)
{
	struct job j;

	memset(&j, 0, sizeof(j));
	j.gpus = gpus;
	return j;
}

/* Makes node v's free GPUs the mask free_masks[v]: one job takes every
 * GPU, then the named ones go back (its placement is dropped). */
static void cs_state(struct cluster *c, const uint64_t *free_masks)
{
	struct placement all = { 0 }, back = { 0 };
	uint32_t n = cluster_nodes(c);
	struct job j = cs_job((uint32_t)cluster_free_gpus(c));

	cr_assert_eq(cluster_alloc(c, &j, &all), 0);
	back.slots = xcalloc(n, sizeof(*back.slots));
	for (uint32_t v = 0; v < n; v++)
		if (free_masks[v])
			back.slots[back.n++] = (struct place_slot){
				.node = v, .count = 1,
				.gpus = (uint32_t)__builtin_popcountll(
					free_masks[v]),
				.gpu_mask = free_masks[v],
			};
	cluster_release(c, &back);
	placement_release(&all);
	placement_release(&back);
}

/* Places tp x pp x dp, expects rank_node == want (and the GPUs per node
 * that it implies), releases and checks nothing is left taken. */
static void cs_try(struct cluster *c, uint32_t tp, uint32_t pp, uint32_t dp,
		   const uint32_t *want)
{
	struct place_shape s = { tp, pp, dp };
	uint32_t g = tp * pp * dp, n = cluster_nodes(c);
	uint32_t *rank = xcalloc(g, sizeof(*rank));
	uint32_t *per = xcalloc(n, sizeof(*per));
	uint64_t before = cluster_free_gpus(c);
	struct job j = cs_job(g);
	struct placement p = { 0 };
	struct sim_error err = {{0}};

	cr_assert(cluster_fits_shape(c, &j, &s, true));
	cr_assert_eq(cluster_alloc_shape(c, &j, &s, &p, rank), 0);
	for (uint32_t r = 0; r < g; r++) {
		cr_expect_eq(rank[r], want[r], "%ux%ux%u rank %u: node %u, "
			     "want %u", tp, pp, dp, r, rank[r], want[r]);
		per[want[r]]++;
	}
	for (uint32_t i = 0; i < p.n; i++)
		cr_expect_eq(p.slots[i].gpus, per[p.slots[i].node]);
	cr_expect_eq(cluster_free_gpus(c), before - g);
	cr_assert_eq(cluster_check(c, &err), 0, "%s", err.msg);
	cluster_release(c, &p);
	cr_expect_eq(cluster_free_gpus(c), before);
	placement_release(&p);
	free(per);
	free(rank);
}

/*
 * Racks {0, 1} {2, 3}; free GPUs 8, 4, 8, 6.  Ranks: t + tp (d + dp s).
 *
 * tp 4, pp 2, dp 2: slots (4 GPUs of one node) 2, 1, 2, 1.  Pipeline 0:
 * the tightest node with 2 slots, node 0 (node 2 ties, higher); pipeline
 * 1: node 2.  Stage 0 of d 0 = ranks 0-3 and of d 1 = ranks 4-7; stage 1:
 * ranks 8-11 (d 0) and 12-15 (d 1).
 *
 * tp 4, pp 3, dp 1: no node has 3 slots; racks hold 3 and 3: rack 0 (the
 * lower), its nodes most slots first: node 0 twice, node 1 once; stages
 * in node order 0, 0, 1.
 *
 * tp 2, pp 4, dp 1: slots 4, 2, 4, 3: the tightest node with 4 is node 0.
 */
Test(cluster_shape, hand_worked_pipelines)
{
	static const uint64_t free_masks[4] = { 0xff, 0xf0, 0xff, 0x3f };
	static const uint32_t a[16] = { 0, 0, 0, 0, 2, 2, 2, 2,
					0, 0, 0, 0, 2, 2, 2, 2 };
	static const uint32_t b[12] = { 0, 0, 0, 0, 0, 0, 0, 0,
					1, 1, 1, 1 };
	static const uint32_t d[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
	struct cluster *c = cs_new(4, 8, 2);

	cs_state(c, free_masks);
	cs_try(c, 4, 2, 2, a);
	cs_try(c, 4, 3, 1, b);
	cs_try(c, 2, 4, 1, d);
	cluster_free(c);
}

/*
 * An empty cluster, tp 8 (a whole node), pp 3: one slot a node, two a
 * rack; no rack holds 3, so racks with the most slots first: rack 0
 * (nodes 0, 1), then rack 1 (node 2).  Ranks 0-7 on node 0, 8-15 on 1,
 * 16-23 on 2.  Then tp 2, pp 2, dp 2 fits one node: node 0 (4 slots).
 */
Test(cluster_shape, pipeline_across_racks)
{
	uint32_t want[24], w2[8] = { 0 };
	struct cluster *c = cs_new(4, 8, 2);

	for (uint32_t r = 0; r < 24; r++)
		want[r] = r / 8;
	cs_try(c, 8, 3, 1, want);
	cs_try(c, 2, 2, 2, w2);
	cluster_free(c);
}

/*
 * As few nodes as can hold the job (racks {0, 1} {2, 3}).
 *
 * Free GPUs 2, 2, 8, 8; tp 1, pp 2, dp 4 (8 GPUs).  Whole pipelines per
 * node: 1, 1, 4, 4.  The old rule gave each pipeline the tightest node
 * holding it: node 0, node 1, then node 2 twice (8 then 6 free): 3 nodes
 * on 2 racks.  Now rack 1 holds all 4 on one node, the tightest that
 * does, node 2 (node 3 ties, higher): every rank on node 2.
 *
 * Free GPUs 8, 6, 6, 4; tp 2, pp 2, dp 3 (12 GPUs): slots 4, 3, 3, 2,
 * whole pipelines 2, 1, 1, 1.  The old rule: node 3 (2 slots, the
 * tightest), node 1 (3; node 2 ties, higher), node 2: 3 nodes on 2
 * racks.  Now rack 0 holds 3 (2 + 1) on 2 nodes, rack 1 only 2: node 0
 * (the most) takes 2, node 1 (the fewest that holds the 1 left) 1.
 * Pipelines 0 and 1 on node 0, 2 on node 1; rank t + 2 (d + 3 s): ranks
 * 0-3 and 6-9 on node 0, 4-5 and 10-11 on node 1.
 */
Test(cluster_shape, fewest_nodes)
{
	static const uint64_t fa[4] = { 0x3, 0x3, 0xff, 0xff };
	static const uint64_t fb[4] = { 0xff, 0x3f, 0x3f, 0x0f };
	static const uint32_t a[8] = { 2, 2, 2, 2, 2, 2, 2, 2 };
	static const uint32_t b[12] = { 0, 0, 0, 0, 1, 1,
					0, 0, 0, 0, 1, 1 };
	struct cluster *c = cs_new(4, 8, 2);

	cs_state(c, fa);
	cs_try(c, 1, 2, 4, a);
	cluster_free(c);
	c = cs_new(4, 8, 2);
	cs_state(c, fb);
	cs_try(c, 2, 2, 3, b);
	cluster_free(c);
}

Test(cluster_shape, refusals)
{
	struct cluster *c = cs_new(4, 8, 2);
	struct job j = cs_job(16);
	struct place_shape wrong = { 4, 2, 1 }, wide = { 16, 1, 1 };
	struct placement p = { 0 };
	uint32_t rank[16];

	cr_expect_eq(cluster_alloc_shape(c, &j, &wrong, &p, rank),
		     -SIM_EINPUT);
	cr_expect(!cluster_fits_shape(c, &j, &wide, false));
	cr_expect_eq(cluster_alloc_shape(c, &j, &wide, &p, rank),
		     -SIM_ESTATE);
	cr_expect_eq(cluster_free_gpus(c), 32);
	cluster_free(c);
}

/* A shape-blind placement numbers its GPUs in node order: first fit of
 * 12 GPUs on free 8, 4, 8, 6 takes node 0 (8) and node 1 (4). */
Test(cluster_shape, blind_ranks_in_node_order)
{
	static const uint64_t free_masks[4] = { 0xff, 0xf0, 0xff, 0x3f };
	struct cluster *c = cs_new(4, 8, 2);
	struct job j = cs_job(12);
	struct placement p = { 0 };
	uint32_t rank[12];

	cs_state(c, free_masks);
	cr_assert_eq(cluster_alloc_gpus(c, &j, PLACE_FIRST_FIT, NULL, &p), 0);
	place_shape_ranks(&p, rank);
	for (uint32_t r = 0; r < 12; r++)
		cr_expect_eq(rank[r], r < 8 ? 0u : 1u, "rank %u", r);
	placement_release(&p);
	cluster_free(c);
}

static int cs_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x > y ? -1 : x < y;
}

/* The fewest of nodes first .. end - 1 whose whole pipelines q[] add up
 * to want (sorted, the largest first), or UINT32_MAX. */
static uint32_t cs_fewest(const uint32_t *q, uint32_t first, uint32_t end,
			  uint32_t want)
{
	uint32_t n = end - first, k = 0, sum = 0;
	uint32_t *s = xcalloc(n ? n : 1, sizeof(*s));

	memcpy(s, q + first, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cs_desc);
	while (k < n && sum < want)
		sum += s[k++];
	free(s);
	return sum >= want ? k : UINT32_MAX;
}

/* When the nodes hold dp whole pipelines: every pipeline inside one
 * node, and the job on the fewest nodes of one rack if a rack holds
 * them, else of the cluster. */
static void cs_check_fewest(const uint64_t *fm, uint32_t nodes,
			    uint32_t rack, const struct place_shape *s,
			    const uint32_t *rank, const struct placement *p)
{
	uint32_t *q = xcalloc(nodes, sizeof(*q)), used = 0;
	uint32_t best = UINT32_MAX, total = 0, rn = rack ? rack : nodes;

	for (uint32_t v = 0; v < nodes; v++) {
		q[v] = (uint32_t)__builtin_popcountll(fm[v]) / s->tp / s->pp;
		total += q[v];
	}
	if (total >= s->dp) {
		for (uint32_t f = 0; f < nodes; f += rn) {
			uint32_t k = cs_fewest(q, f, f + rn < nodes ? f + rn :
					       nodes, s->dp);
			best = k < best ? k : best;
		}
		if (best == UINT32_MAX)
			best = cs_fewest(q, 0, nodes, s->dp);
		for (uint32_t i = 0; i < p->n; i++)
			used += p->slots[i].count;
		cr_assert_eq(used, best, "%u nodes, the fewest %u", used,
			     best);
		for (uint32_t d = 0; d < s->dp; d++)
			for (uint32_t st = 1; st < s->pp; st++)
				cr_assert_eq(rank[s->tp * (d + s->dp * st)],
					     rank[s->tp * d],
					     "a pipeline in two nodes");
	}
	free(q);
}

/* Random clusters, free states and shapes against a brute-force count. */
Test(cluster_shape, randomised_against_slot_count)
{
	uint64_t rng = 7;

	for (int it = 0; it < 400; it++) {
		uint32_t gpus = 1u << splitmix64_next(&rng) % 4; /* 1..8 */
		uint32_t nodes = 1 + (uint32_t)(splitmix64_next(&rng) % 12);
		uint32_t rack = (uint32_t)(splitmix64_next(&rng) % 4);
		struct cluster *c = cs_new(nodes, gpus, rack);
		uint64_t *fm = xcalloc(nodes, sizeof(*fm));
		struct place_shape s;
		uint64_t slots = 0;
		struct job j;

		for (uint32_t v = 0; v < nodes; v++)
			fm[v] = splitmix64_next(&rng) & ((1u << gpus) - 1);
		cs_state(c, fm);
		s.tp = 1u << splitmix64_next(&rng) % 4;
		s.pp = 1 + (uint32_t)(splitmix64_next(&rng) % 4);
		s.dp = 1 + (uint32_t)(splitmix64_next(&rng) % 3);
		for (uint32_t v = 0; v < nodes; v++)
			slots += (uint32_t)__builtin_popcountll(fm[v]) / s.tp;
		j = cs_job(s.tp * s.pp * s.dp);
		cr_assert_eq(cluster_fits_shape(c, &j, &s, true),
			     slots >= (uint64_t)s.pp * s.dp, "iteration %d", it);
		if (slots >= (uint64_t)s.pp * s.dp) {
			uint32_t *rank = xcalloc(j.gpus, sizeof(*rank));
			uint32_t *per = xcalloc(nodes > j.gpus ? nodes : j.gpus,
						sizeof(*per));
			struct placement p = { 0 };
			struct sim_error err = {{0}};

			cr_assert_eq(cluster_alloc_shape(c, &j, &s, &p, rank),
				     0);
			for (uint32_t r = 0; r < j.gpus; r++) {
				cr_assert_eq(rank[r], rank[r - r % s.tp],
					     "a tp group in two nodes");
				per[rank[r]]++;
			}
			for (uint32_t i = 0; i < p.n; i++) {
				cr_assert_eq(p.slots[i].gpus,
					     per[p.slots[i].node]);
				cr_assert_eq(p.slots[i].gpus % s.tp, 0);
			}
			cr_assert_eq(cluster_check(c, &err), 0, "%s", err.msg);
			cs_check_fewest(fm, nodes, rack, &s, rank, &p);
			cluster_shape_ranks(c, &p, &s, per);
			cr_assert_eq(memcmp(per, rank, j.gpus * sizeof(*rank)), 0,
				     "ranks found again differ");
			cluster_release(c, &p);
			for (uint32_t v = 0; v < nodes; v++)
				cr_assert_eq(cluster_node_free_gpu_mask(c, v),
					     fm[v]);
			placement_release(&p);
			free(per);
			free(rank);
		}
		free(fm);
		cluster_free(c);
	}
}
