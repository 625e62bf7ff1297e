/*
 * Virtual clusters (sim/cluster/cluster_vc.c, docs/philly.md): GPU jobs of a VC
 * are placed on their VC's node groups and the shared pool only, the
 * engine's FCFS head-of-line is per VC, and a workload with a VC that
 * has no nodes (and no shared pool to fall back on) is refused with the
 * JSON path.  Every expected value is worked out by hand in a comment.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "testlib.h"
#include "base/util.h"

/* Groups of 1 node x 4 GPUs (8 CPUs); vc[i] NULL = shared pool. */
static void vc_spec(struct cluster_spec *s, size_t n, const char *const *vc)
{
	memset(s, 0, sizeof(*s));
	s->groups = xcalloc(n, sizeof(*s->groups));
	s->ngroups = n;
	for (size_t i = 0; i < n; i++) {
		s->groups[i].name = xasprintf("g%zu", i);
		s->groups[i].count = 1;
		s->groups[i].cpus = 8;
		s->groups[i].gpus = 4;
		s->groups[i].gpu_type = xstrdup("p100");
		s->groups[i].vc = vc[i] ? xstrdup(vc[i]) : NULL;
	}
}

static struct cluster *vc_cluster(size_t n, const char *const *vc)
{
	struct cluster_spec s;
	struct sim_error err = {{0}};
	struct cluster *c;

	vc_spec(&s, n, vc);
	cr_assert_eq(cluster_spec_check(&s, "x.json: ", &err), 0, "%s",
		     err.msg);
	c = cluster_new(&s);
	cluster_spec_release(&s);
	return c;
}

static char *vc_names[] = { (char *)"A", (char *)"B", (char *)"C" };

static struct job vc_job(uint32_t gpus, int32_t group)
{
	struct job j;

	memset(&j, 0, sizeof(j));
	j.gpus = gpus;
	j.group = group;
	return j;
}

/*
 * Nodes: 0 = VC B, 1 = VC A.  A job of A (group 0) goes to node 1 with
 * every strategy, though node 0 comes first and is idle; a second A job
 * of 4 GPUs then does not fit (A is full) while B's 4 GPUs are free; a
 * job of C (no VC, no shared pool) never fits.
 */
Test(cluster_vc, jobs_stay_in_their_vc)
{
	static const char *const vc[] = { "B", "A" };

	for (int st = 0; st < PLACE_NSTRATEGIES; st++) {
		struct cluster *c = vc_cluster(2, vc);
		struct placement p = { 0 }, q = { 0 };
		struct job a = vc_job(2, 0), a4 = vc_job(4, 0);
		struct job cj = vc_job(1, 2);
		uint64_t rng = 1;

		cluster_bind_groups(c, vc_names, 3);
		cr_assert_eq(cluster_job_vc(c, &a), 1);
		cr_assert_eq(cluster_job_vc(c, &cj), -1);
		cr_assert_eq(cluster_vc_gpus(c, 1), 4);
		cr_assert_eq(cluster_vc_gpus(c, -1), 0);
		cr_assert(cluster_can_ever_fit(c, &a4));
		cr_assert_not(cluster_can_ever_fit(c, &cj));
		cr_assert_eq(cluster_alloc_gpus(c, &a, (enum place_strategy)st,
						&rng, &p), 0);
		cr_assert_eq(p.n, 1);
		cr_assert_eq(p.slots[0].node, 1, "%s",
			     place_strategy_name((enum place_strategy)st));
		cr_assert_eq(cluster_vc_free_gpus(c, 1), 2);
		cr_assert_eq(cluster_vc_free_gpus(c, 0), 4);
		cr_assert_not(cluster_fits(c, &a4));
		cr_assert_eq(cluster_alloc_gpus(c, &a4, (enum place_strategy)st,
						&rng, &q), -SIM_ESTATE);
		cluster_release(c, &p);
		cr_assert(cluster_fits(c, &a4));
		placement_release(&p);
		placement_release(&q);
		cluster_free(c);
	}
}

/*
 * Shared pool: node 0 = VC A, node 1 = no vc.  An A job of 8 GPUs takes
 * both nodes (4 + 4); a job of C (not a VC of the cluster) may use the
 * pool only: with A's job running, 0 GPUs for it; alone, node 1, even
 * under first fit (node 0 is A's).  A job of B likewise.
 */
Test(cluster_vc, shared_pool)
{
	static const char *const vc[] = { "A", NULL };
	struct cluster *c = vc_cluster(2, vc);
	struct placement p = { 0 };
	struct job a8 = vc_job(8, 0), cj = vc_job(1, 2), b4 = vc_job(4, 1);

	cluster_bind_groups(c, vc_names, 3);
	cr_assert_eq(cluster_vc_gpus(c, -1), 4);
	cr_assert_not(cluster_can_ever_fit(c, &(struct job){ .gpus = 5,
							    .group = 1 }));
	cr_assert_eq(cluster_alloc_gpus(c, &a8, PLACE_FIRST_FIT, NULL, &p), 0);
	cr_assert_eq(p.n, 2);
	cr_assert_eq(p.slots[0].node, 0);
	cr_assert_eq(p.slots[1].node, 1);
	cr_assert_not(cluster_fits(c, &cj));
	cluster_release(c, &p);
	cr_assert_eq(cluster_alloc_gpus(c, &cj, PLACE_FIRST_FIT, NULL, &p), 0);
	cr_assert_eq(p.n, 1);
	cr_assert_eq(p.slots[0].node, 1);
	cluster_release(c, &p);
	cr_assert_eq(cluster_alloc_gpus(c, &b4, PLACE_BEST_FIT, NULL, &p), 0);
	cr_assert_eq(p.slots[0].node, 1);
	cluster_release(c, &p);
	placement_release(&p);
	cluster_free(c);
}

/* A workload of GPU jobs with groups "A", "B" (names owned by w). */
static void vc_workload(struct workload *w, const struct tjob *t,
			const int32_t *group, size_t n)
{
	tl_workload(w, t, n);
	for (size_t i = 0; i < w->n; i++) {
		struct job *j = &w->jobs[i];

		j->gpus = j->cpus;
		j->cpus = 0;
		j->group = group[j->id - 1];
	}
	w->groups = xcalloc(2, sizeof(*w->groups));
	w->groups[0] = xstrdup("A");
	w->groups[1] = xstrdup("B");
	w->ngroups = 2;
}

/*
 * FCFS on VC A (node 0, 4 GPUs) and VC B (node 1, 4 GPUs):
 *   1: A, submit 0, 4 GPUs, 100 s -> starts 0 (A idle)
 *   2: A, submit 1, 2 GPUs, 50 s  -> A is full and B's node idle, but it
 *      may not go there: waits for job 1, starts 100
 *   3: B, submit 2, 1 GPU, 10 s   -> behind job 2 in the queue, but A's
 *      waiting job blocks only A's queue: starts 2
 *   4: A, submit 3, 8 GPUs, 10 s  -> more than A has: rejected
 *   5: B, submit 4, 4 GPUs, 20 s  -> B has 3 free until job 3 ends at
 *      12: starts 12
 * Without the VCs, job 2 would start at 1 on node 1, and job 4 at 100.
 */
Test(cluster_vc, fcfs_per_vc)
{
	static const char *const vc[] = { "A", "B" };
	struct tjob t[] = {
		{ 1, 0, 100, -1, 4 }, { 2, 1, 50, -1, 2 }, { 3, 2, 10, -1, 1 },
		{ 4, 3, 10, -1, 8 }, { 5, 4, 20, -1, 4 },
	};
	static const int32_t group[] = { 0, 0, 1, 0, 1 };
	struct workload w;
	struct cluster_spec c;
	size_t n;

	vc_workload(&w, t, group, 5);
	vc_spec(&c, 2, vc);
	struct sim *s = tl_run("fcfs", &w, &c);
	const struct job *jobs = sim_jobs(s, &n);
	cr_expect_eq(tl_start(s, 1), 0.0);
	cr_expect_eq(tl_start(s, 2), 100.0);
	cr_expect_eq(tl_start(s, 3), 2.0);
	cr_expect_eq(tl_start(s, 5), 12.0);
	for (size_t i = 0; i < n; i++)
		if (jobs[i].id == 4)
			cr_expect_eq(jobs[i].state, JOB_REJECTED);
	sim_free(s);
	cluster_spec_release(&c);

	/* The same jobs on one shared node group of 2 x 4 GPUs. */
	static const char *const none[] = { NULL, NULL };
	vc_spec(&c, 2, none);
	s = tl_run("fcfs", &w, &c);
	cr_expect_eq(tl_start(s, 2), 1.0);
	cr_expect_eq(tl_start(s, 4), 100.0);
	sim_free(s);
	cluster_spec_release(&c);
	workload_release(&w);
}

/* The load-time check: B's jobs have no node group and there is no
 * shared pool; with a pool, or with a group for B, it passes. */
Test(cluster_vc, vc_without_nodes)
{
	static const char *const only_a[] = { "A" };
	static const char *const pool[] = { "A", NULL };
	static const char *const both[] = { "A", "B" };
	struct tjob t[] = { { 1, 0, 10, -1, 1 }, { 2, 0, 10, -1, 1 },
			    { 3, 0, 10, -1, 1 } };
	static const int32_t group[] = { 0, 1, 1 };
	struct workload w;
	struct cluster_spec c;
	struct sim_error err = {{0}};

	vc_workload(&w, t, group, 3);
	vc_spec(&c, 1, only_a);
	cr_assert_eq(cluster_spec_check_vcs(&c, "x.json: ", w.jobs, w.n,
					    w.groups, w.ngroups, &err),
		     -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "x.json: $.cluster.nodes: no node group for "
			 "virtual cluster 'B' of '2' jobs ('1' virtual "
			 "clusters lack one) and no shared pool: give a group "
			 "\"vc\": \"B\", or a gpu group without \"vc\"");
	cluster_spec_release(&c);
	vc_spec(&c, 2, pool);
	cr_expect_eq(cluster_spec_check_vcs(&c, "x.json: ", w.jobs, w.n,
					    w.groups, w.ngroups, &err), 0);
	cluster_spec_release(&c);
	vc_spec(&c, 2, both);
	cr_expect_eq(cluster_spec_check_vcs(&c, "x.json: ", w.jobs, w.n,
					    w.groups, w.ngroups, &err), 0);
	cluster_spec_release(&c);
	/* Jobs of no group at all, no pool. */
	for (size_t i = 0; i < w.n; i++)
		w.jobs[i].group = -1;
	vc_spec(&c, 1, only_a);
	cr_assert_eq(cluster_spec_check_vcs(&c, "x.json: ", w.jobs, w.n,
					    w.groups, w.ngroups, &err),
		     -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "x.json: $.cluster.nodes: '3' gpu jobs "
			 "belong to no named group, so to no virtual cluster, "
			 "and there is no shared pool: give a gpu group "
			 "without \"vc\"");
	cluster_spec_release(&c);
	workload_release(&w);
}

/* A vc on a group without GPUs, or an empty one, is refused. */
Test(cluster_vc, spec_checks)
{
	static const char *const vc[] = { "A" };
	struct cluster_spec c;
	struct sim_error err = {{0}};

	vc_spec(&c, 1, vc);
	c.groups[0].gpus = 0;
	free(c.groups[0].gpu_type);
	c.groups[0].gpu_type = NULL;
	cr_assert_eq(cluster_spec_check(&c, "x.json: ", &err), -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "x.json: $.cluster.nodes[0].vc: virtual "
			 "clusters partition gpu nodes only, the group has no "
			 "gpus (vc 'A')");
	c.groups[0].gpus = 4;
	c.groups[0].vc[0] = '\0';
	cr_assert_eq(cluster_spec_check(&c, "x.json: ", &err), -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "x.json: $.cluster.nodes[0].vc: must not be "
			 "empty, got ''");
	cluster_spec_release(&c);
}
