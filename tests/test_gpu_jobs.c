/*
 * GPU jobs through the engine: backfilling plans in GPUs on a cluster
 * with GPUs, and the "placement" parameter every policy takes decides
 * where a GPU job's GPUs come from.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/registry.h"
#include "testlib.h"
#include "base/util.h"

extern const struct policy_ops clustersim_policy_easy;
extern const struct policy_ops clustersim_policy_fcfs;

/* nodes x gpus GPU nodes (8 CPUs each), racks of rack_nodes. */
static void gpu_cluster(struct cluster_spec *c, uint32_t nodes,
			uint32_t gpus, uint32_t rack_nodes)
{
	tl_cluster(c, nodes, 8);
	c->groups[0].gpus = gpus;
	c->groups[0].gpu_type = xstrdup("v100");
	c->rack_nodes = rack_nodes;
}

/* Turns each job's cpus into that many GPUs and no CPUs. */
static void as_gpu_jobs(struct workload *w)
{
	for (size_t i = 0; i < w->n; i++) {
		w->jobs[i].gpus = w->jobs[i].cpus;
		w->jobs[i].cpus = 0;
	}
}

/*
 * The first EASY case of test_backfill.c in GPUs: one node of 10 GPUs;
 * A (0 s, 6 GPUs, 100 s), B (1 s, 8 GPUs, 50 s), C (2 s, 4 GPUs, 200 s),
 * D (3 s, 2 GPUs, 20 s).  B's shadow time is 100 with 2 extra GPUs; C
 * must not backfill (4 > 2, ends after 100), D must (ends at 23).  Were
 * the profile counting CPUs (8, all free), C and D would both start now.
 */
Test(gpu_jobs, easy_plans_in_gpus)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 6 }, { 2, 1, 50, 50, 8 },
		{ 3, 2, 200, 200, 4 }, { 4, 3, 20, 20, 2 },
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 4);
	as_gpu_jobs(&w);
	gpu_cluster(&c, 1, 10, 0);
	struct sim *s = tl_run("easy", &w, &c);
	cr_expect_eq(tl_start(s, 1), 0.0);
	cr_expect_eq(tl_start(s, 2), 100.0);
	cr_expect_eq(tl_start(s, 3), 150.0);
	cr_expect_eq(tl_start(s, 4), 3.0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* Records where job 3's GPUs came from when it starts. */
struct where {
	uint32_t nodes;      /* nodes of the placement */
	uint32_t gpus_first; /* GPUs on its first node */
};

static __thread struct where seen;

static void record_schedule(struct sim *sim, void *state)
{
	sim_start_head(sim);
	for (size_t i = 0; i < sim_running_len(sim); i++) {
		const struct job *j = sim_running_at(sim, i);
		if (j->id != 3 || j->start != sim_now(sim))
			continue;
		const struct placement *p = sim_job_placement(sim, j);
		seen.nodes = 0;
		for (uint32_t k = 0; k < p->n; k++)
			seen.nodes += p->slots[k].count;
		seen.gpus_first = p->slots[0].gpus;
	}
}

static const struct policy_ops record_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "record",
	.schedule = record_schedule,
};

/*
 * 4 nodes x 4 GPUs in racks of 2.  Jobs 1 (1 GPU) and 2 (1 GPU) start
 * first, first fit on node 0 (whatever the strategy: every strategy puts
 * a 1-GPU job on one node, and the cluster is idle).  Then job 3 asks 4
 * GPUs:
 *   first_fit: node 0's 2 free GPUs, then 2 of node 1: 2 nodes, 2 first.
 *   consolidate / topology / best_fit: one whole idle node: 1 node, 4.
 *   spread: one GPU on each of 4 nodes (fullest first): 4 nodes, 1 each.
 */
Test(gpu_jobs, placement_parameter_chooses_the_strategy)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 1 }, { 2, 0, 100, 100, 1 },
		{ 3, 1, 100, 100, 4 },
	};
	struct { const char *name; uint32_t nodes, first; } want[] = {
		{ "first_fit", 2, 2 }, { "best_fit", 1, 4 },
		{ "consolidate", 1, 4 }, { "topology", 1, 4 },
		{ "spread", 4, 1 },
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	as_gpu_jobs(&w);
	gpu_cluster(&c, 4, 4, 2);
	for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
		struct param_value pv = {
			.key = (char *)"placement",
			.json_path = (char *)"$.policies[0].params.placement",
			.type = PV_STRING, .str = (char *)want[k].name,
		};
		memset(&seen, 0, sizeof(seen));
		struct sim *s = tl_run_with(&record_ops, &pv, 1, &w, &c);
		cr_expect_eq(seen.nodes, want[k].nodes, "%s: %u nodes",
			     want[k].name, seen.nodes);
		cr_expect_eq(seen.gpus_first, want[k].first, "%s: %u first",
			     want[k].name, seen.gpus_first);
		/* What jobs.csv reports: nodes and the GPU type used. */
		size_t n;
		const struct job *j = sim_jobs(s, &n);
		for (size_t i = 0; i < n; i++) {
			if (j[i].id != 3)
				continue;
			cr_expect_eq(j[i].nodes_used, want[k].nodes);
			cr_expect_eq(j[i].gpu_type_used, 1); /* "v100" */
		}
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(gpu_jobs, unknown_placement_is_refused_before_the_run)
{
	struct param_value pv = {
		.key = (char *)"placement",
		.json_path = (char *)"$.policies[0].params.placement",
		.type = PV_STRING, .str = (char *)"scatter",
	};
	struct pval *params;
	size_t np;
	struct sim_error err;
	cr_assert_eq(policy_params_resolve(&clustersim_policy_fcfs, &pv, 1, "",
					   &params, &np, &err), 0);
	struct workload w = { 0 };
	struct cluster_spec c;
	gpu_cluster(&c, 1, 4, 0);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .policy = &clustersim_policy_fcfs,
				  .params = params, .nparams = np };
	struct sim *s = sim_new(&cfg);
	cr_assert_eq(sim_run(s, &err), -SIM_EINPUT);
	cr_expect(strstr(err.msg, "'scatter'"), "%s", err.msg);
	sim_free(s);
	free(params);
	cluster_spec_release(&c);
}

/* The timeline counts GPUs: one job on 2 of 4 GPUs for 100 s; the first
 * sample (at 0, after schedule) sees 2 busy GPUs, the last (at 100, after
 * the end) 0, with 0.5 busy on average over the second before it. */
Test(gpu_jobs, timeline_counts_gpus)
{
	struct tjob t[] = { { 1, 0, 100, 100, 2 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 1);
	as_gpu_jobs(&w);
	gpu_cluster(&c, 1, 4, 0);
	struct sim *s = tl_run("fcfs", &w, &c);
	size_t n;
	const struct sample *x = sim_samples(s, &n);
	cr_assert_geq(n, 2);
	cr_expect_eq(x[0].busy_gpus, 2);
	cr_expect_eq(x[0].busy_cpus, 0);
	cr_expect_eq(x[n - 1].busy_gpus, 0);
	cr_expect_float_eq(x[n - 1].gpu_util_avg, 0.5, 1e-12);
	cr_expect_float_eq(sim_counters(s)->gpu_busy_area, 200.0, 1e-9);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}
