/*
 * Partitions as node sets (sim/cluster/cluster_part.c): the entries of a
 * partition's "nodes" to node ranges, and the free units each partition
 * keeps from the placements taken and given back, worked by hand on
 * small clusters, CPU shared and exclusive.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "base/util.h"

/* group0: 4 nodes x 2 CPUs (nodes 0-3), group1: 3 nodes x 4 CPUs (nodes
 * 4-6); the partitions' entries as given, NULL-terminated lists. */
static void cp_spec(struct cluster_spec *s, bool exclusive,
		    const char *const *const *parts, size_t nparts)
{
	memset(s, 0, sizeof(*s));
	s->groups = xcalloc(2, sizeof(*s->groups));
	s->ngroups = 2;
	s->exclusive = exclusive;
	for (int g = 0; g < 2; g++) {
		s->groups[g].name = xasprintf("group%d", g);
		s->groups[g].count = g ? 3 : 4;
		s->groups[g].cpus = exclusive ? 2 : g ? 4 : 2;
	}
	s->parts = xcalloc(nparts, sizeof(*s->parts));
	s->nparts = nparts;
	for (size_t p = 0; p < nparts; p++) {
		struct part_spec *ps = &s->parts[p];
		size_t n = 0;
		while (parts[p][n])
			n++;
		ps->name = xasprintf("p%zu", p);
		ps->groups = xcalloc(n, sizeof(*ps->groups));
		ps->ngroups = n;
		ps->trace_id = -1;
		for (size_t k = 0; k < n; k++)
			ps->groups[k] = xstrdup(parts[p][k]);
	}
}

Test(cluster_part, entries_merge_into_node_ranges)
{
	/* group0[2-3] is nodes 2-3, group0[3,1] nodes 3 and 1, group1 nodes
	 * 4-6: merged, one range [1, 7).  Its units: 3 x 2 + 3 x 4 = 18
	 * CPUs.  A second partition group0[0],group1[2]: nodes 0 and 6, two
	 * ranges, 2 + 4 = 6 CPUs. */
	static const char *const a[] = { "group1", "group0[2-3]",
					 "group0[3,1]", NULL };
	static const char *const b[] = { "group0[0]", "group1[2]", NULL };
	static const char *const *const parts[] = { a, b };
	struct cluster_spec s;
	struct sim_error err = {{0}};
	uint32_t *r;
	size_t n;
	cp_spec(&s, false, parts, 2);
	cr_assert_eq(cluster_slurm_check(&s, "x.json: ", &err), 0, "%s",
		     err.msg);
	cr_assert_eq(cluster_spec_part_nodes(&s, 0, "", &r, &n, &err), 0);
	cr_expect_eq(n, 1u);
	cr_expect(r[0] == 1 && r[1] == 7, "[%u, %u)", r[0], r[1]);
	free(r);
	cr_assert_eq(cluster_spec_part_nodes(&s, 1, "", &r, &n, &err), 0);
	cr_expect_eq(n, 2u);
	cr_expect(r[0] == 0 && r[1] == 1 && r[2] == 6 && r[3] == 7,
		  "%u %u %u %u", r[0], r[1], r[2], r[3]);
	free(r);
	cr_expect_eq(cluster_spec_part_units(&s, 0), 18u);
	cr_expect_eq(cluster_spec_part_units(&s, 1), 6u);
	/* group1[3]: past its 3 nodes. */
	free(s.parts[1].groups[1]);
	s.parts[1].groups[1] = xstrdup("group1[3]");
	cr_expect_neq(cluster_slurm_check(&s, "x.json: ", &err), 0);
	cr_expect(strstr(err.msg, "x.json: $.cluster.partitions[1].nodes[1]: "
			 "'group1[3]': node '3' is past group 'group1''s 3 "
			 "nodes"), "%s", err.msg);
	cluster_spec_release(&s);
}

Test(cluster_part, shared_nodes_count_in_both_partitions)
{
	/* A = group0[0-1] (nodes 0-1, 4 CPUs), B = group0[1-3] (nodes 1-3,
	 * 6 CPUs).  Job 0 (A, 3 CPUs): node 0 (2) and node 1 (1): A has 1
	 * free, B 6 - 1 = 5.  Released: 4 and 6.  Job 1 (no partition, 5
	 * CPUs): first fit on the whole cluster, nodes 0, 1 and 1 CPU of
	 * node 2: A 0, B 6 - 2 - 1 = 3.  Job 2 (B, 4 CPUs) does not fit
	 * then (3 < 4), and fits once job 1 is gone. */
	static const char *const a[] = { "group0[0-1]", NULL };
	static const char *const b[] = { "group0[1-3]", NULL };
	static const char *const *const parts[] = { a, b };
	static const int32_t part[] = { 0, -1, 1 };
	struct cluster_spec s;
	struct placement p0 = { 0 }, p1 = { 0 };
	cp_spec(&s, false, parts, 2);
	struct cluster *c = cluster_new(&s);
	cluster_bind_parts(c, &s, part, 3);
	cr_expect_eq(cluster_part_total(c, 0), 4u);
	cr_expect_eq(cluster_part_total(c, 1), 6u);
	struct job j[3];
	memset(j, 0, sizeof(j));
	for (uint32_t i = 0; i < 3; i++)
		j[i].idx = i;
	j[0].cpus = 3;
	j[1].cpus = 5;
	j[2].cpus = 4;
	cr_assert_eq(cluster_alloc(c, &j[0], &p0), 0);
	cr_expect(p0.n == 2 && p0.slots[0].node == 0 &&
		  p0.slots[0].cpus == 2 && p0.slots[1].node == 1 &&
		  p0.slots[1].cpus == 1, "%u slots", p0.n);
	cr_expect_eq(cluster_part_free(c, 0), 1u);
	cr_expect_eq(cluster_part_free(c, 1), 5u);
	cr_expect_eq(cluster_placement_units_in(c, &p0, 1), 1u);
	cluster_release(c, &p0);
	cr_expect_eq(cluster_part_free(c, 0), 4u);
	cr_expect_eq(cluster_part_free(c, 1), 6u);
	cr_assert_eq(cluster_alloc(c, &j[1], &p1), 0);
	cr_expect_eq(cluster_part_free(c, 0), 0u);
	cr_expect_eq(cluster_part_free(c, 1), 3u);
	cr_expect(!cluster_fits(c, &j[2]));
	cr_expect(cluster_can_ever_fit(c, &j[2]));
	cluster_release(c, &p1);
	cr_expect(cluster_fits(c, &j[2]));
	placement_release(&p0);
	placement_release(&p1);
	cluster_free(c);
	cluster_spec_release(&s);
}

Test(cluster_part, exclusive_partitions_count_idle_nodes)
{
	/* Exclusive, 2-CPU nodes: A = group0[0-1], B = group0[1-3] + group1
	 * (nodes 1-6).  A job of A asking 3 CPUs takes 2 whole nodes, 0-1:
	 * A 0 idle, B 6 - 1 = 5.  A second such job does not fit A although
	 * 5 nodes are idle. */
	static const char *const a[] = { "group0[0-1]", NULL };
	static const char *const b[] = { "group0[1-3]", "group1", NULL };
	static const char *const *const parts[] = { a, b };
	static const int32_t part[] = { 0, 0 };
	struct cluster_spec s;
	struct placement p0 = { 0 };
	cp_spec(&s, true, parts, 2);
	struct cluster *c = cluster_new(&s);
	cluster_bind_parts(c, &s, part, 2);
	struct job j[2];
	memset(j, 0, sizeof(j));
	j[0].cpus = j[1].cpus = 3;
	j[1].idx = 1;
	cr_assert_eq(cluster_alloc(c, &j[0], &p0), 0);
	cr_expect(p0.n == 1 && p0.slots[0].node == 0 &&
		  p0.slots[0].count == 2, "%u slots", p0.n);
	cr_expect_eq(cluster_part_free(c, 0), 0u);
	cr_expect_eq(cluster_part_free(c, 1), 5u);
	cr_expect(!cluster_fits(c, &j[1]));
	cr_expect_eq(cluster_free_units(c), 5u);
	cluster_release(c, &p0);
	cr_expect_eq(cluster_part_free(c, 0), 2u);
	cr_expect_eq(cluster_part_free(c, 1), 6u);
	placement_release(&p0);
	cluster_free(c);
	cluster_spec_release(&s);
}
