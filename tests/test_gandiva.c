/*
 * Gandiva and the engine machinery it uses: GPU sharing (time-slicing and
 * packing at measured pair speeds), migration to grow and to consolidate,
 * and restore overheads by job size.  Every figure is worked out in the
 * comment above its test.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "speed/jobclass.h"
#include "policy/registry.h"
#include "testlib.h"
#include "base/util.h"

/* GPU jobs from a table: tjob.cpus is read as the job's GPUs. */
static void gpu_jobs(struct workload *w, const struct tjob *t, size_t n)
{
	tl_workload(w, t, n);
	for (size_t i = 0; i < w->n; i++) {
		w->jobs[i].gpus = w->jobs[i].cpus;
		w->jobs[i].cpus = 0;
	}
}

/* One group of `nodes` nodes with `gpus` GPUs each (of a type when
 * given). */
static void gpu_group(struct cluster_spec *c, uint32_t nodes, uint32_t gpus,
		      const char *type)
{
	tl_cluster(c, nodes, 8);
	c->groups[0].gpus = gpus;
	if (type)
		c->groups[0].gpu_type = xstrdup(type);
}

static const struct job *job_of(const struct sim *s, int64_t id)
{
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	for (size_t i = 0; i < n; i++)
		if (j[i].id == id)
			return &j[i];
	cr_assert_fail("no job %lld", (long long)id);
	return NULL;
}

static double end_s(const struct sim *s, int64_t id)
{
	return (double)job_of(s, id)->end / SIM_SEC;
}

static struct param_value num_param(const char *key, double v)
{
	return (struct param_value){ .key = (char *)key,
				     .json_path = (char *)"$.params",
				     .type = PV_NUMBER, .num = v };
}

static struct param_value bool_param(const char *key, bool v)
{
	return (struct param_value){ .key = (char *)key,
				     .json_path = (char *)"$.params",
				     .type = PV_BOOL, .b = v };
}

/*
 * The example of gandiva.c: one GPU, time-slicing with no switching cost.
 * A (0 s, 100 s) starts; B (10 s, 100 s) shares its GPU at half speed
 * from 10.  A has 90 s left: it ends at 10 + 180 = 190, when B has done
 * 180 x 0.5 = 90 and finishes the other 10 alone: 200.
 * Service: A 10 + 180 / 2 = 100 GPU-s, B 180 / 2 + 10 = 100; together
 * 200 = the GPU busy 0..200.
 */
Test(gandiva, time_slicing_hand_worked)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 10, 100, 100, 1 } };
	struct workload w;
	struct cluster_spec c;
	gpu_jobs(&w, t, 2);
	gpu_group(&c, 1, 1, NULL);
	struct param_value pv[] = { num_param("suspend_s", 0) };
	struct sim_config cfg = { .workload = &w, .cluster = &c };
	struct sim *s = tl_run_cfg("gandiva", pv, 1, &cfg);
	cr_expect_float_eq(end_s(s, 1), 190, 1e-6);
	cr_expect_float_eq(end_s(s, 2), 200, 1e-6);
	cr_expect_eq(job_of(s, 2)->start, 10 * SIM_SEC);
	cr_expect_float_eq(job_of(s, 1)->attained, 100, 1e-6);
	cr_expect_float_eq(job_of(s, 2)->attained, 100, 1e-6);
	cr_expect_float_eq(sim_counters(s)->gpu_busy_area, 200, 1e-6);
	cr_expect_eq(sim_counters(s)->shared_starts, 1);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Switching costs: quantum 60 s, suspend + resume 1 s, so each job of a
 * time-sliced pair gets (1 - 1/60) / 2 = 59/120 of the GPU.  A's last
 * 90 s take 90 x 120/59 = 183.0508... s: it ends at 193.0508...; B did
 * 90 of work by then and ends 10 s later, at 203.0508...
 */
Test(gandiva, time_slicing_pays_switching)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 10, 100, 100, 1 } };
	struct workload w;
	struct cluster_spec c;
	gpu_jobs(&w, t, 2);
	gpu_group(&c, 1, 1, NULL);
	struct sim_config cfg = { .workload = &w, .cluster = &c };
	struct sim *s = tl_run_cfg("gandiva", NULL, 0, &cfg);
	double a_end = 10 + 90 * 120.0 / 59;
	cr_expect_float_eq(end_s(s, 1), a_end, 2e-6);
	cr_expect_float_eq(end_s(s, 2), a_end + 10, 4e-6);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Packing at Gavel's measured pair speeds, one V100, reference V100.
 * gavel-throughputs.json, v100: ResNet-50 (batch size 64) alone 4.394774823323071
 * steps/s, with ResNet-18 (batch size 16) 4.0687113803879855; ResNet-18
 * (batch size 16) alone 32.353384328946916, with ResNet-50
 * 20.365558661109052.  So A (ResNet-50) keeps 0.92580... of its speed and
 * B (ResNet-18) 0.62947...: together 1.555 > 2 x 59/120, so they pack.
 * A (0 s, 100 s): 10 s alone, 90 left at 0.9258: ends at 10 + 97.2125.
 * B (10 s, 100 s) did 97.2125 x 0.62947 = 61.19 by then; the rest alone.
 */
Test(gandiva, packing_at_measured_pair_speeds)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 10, 100, 100, 1 } };
	struct workload w;
	struct cluster_spec c;
	gpu_jobs(&w, t, 2);
	w.jobs[0].job_class = (uint16_t)jobclass_lookup(
		"ResNet-50 (batch size 64)");
	w.jobs[1].job_class = (uint16_t)jobclass_lookup(
		"ResNet-18 (batch size 16)");
	gpu_group(&c, 1, 1, "v100");
	struct speed_config sp;
	memset(&sp, 0, sizeof(sp));
	net_spec_default(&sp.net);
	sp.ref_gpu = JOBCLASS_GPU_V100;
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .speed = &sp };
	struct sim *s = tl_run_cfg("gandiva", NULL, 0, &cfg);
	double fa = 4.0687113803879855 / 4.394774823323071;
	double fb = 20.365558661109052 / 32.353384328946916;
	double a_end = 10 + 90 / fa;
	double b_done = (a_end - 10) * fb;
	cr_expect_float_eq(end_s(s, 1), a_end, 1e-3);
	cr_expect_float_eq(end_s(s, 2), a_end + (100 - b_done), 1e-3);
	sim_free(s);

	/* Packing off: time-sliced at 59/120 each instead. */
	struct param_value pv[] = { bool_param("packing", false) };
	s = tl_run_cfg("gandiva", pv, 1, &cfg);
	cr_expect_float_eq(end_s(s, 1), 10 + 90 * 120.0 / 59, 1e-5);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Grow: node 0 has 2 GPUs, node 1 one.  A (0 s, 30 s, 2 GPUs) takes
 * node 0, C (0 s, 200 s, 1 GPU) node 1; B (10 s, 100 s, 1 GPU) can only
 * share with C (same GPU count), time-sliced at 1/2.  At 30 A ends: C has
 * done 10 + 10 = 20, B 10.  B moves to node 0 and restores for 5 s: it
 * ends at 35 + 90 = 125; C runs alone from 30 and ends at 30 + 180 = 210.
 * Service: A 60, B 10 + 95 = 105, C 10 + 10 + 180 = 200; 365 GPU-s in
 * all = 2 x 30 + 95 + 210 of busy GPUs.
 */
Test(gandiva, grow_moves_a_shared_job_to_free_gpus)
{
	struct tjob t[] = {
		{ 1, 0, 30, 30, 2 }, { 2, 0, 200, 200, 1 },
		{ 3, 10, 100, 100, 1 },
	};
	struct workload w;
	struct cluster_spec c;
	gpu_jobs(&w, t, 3);
	gpu_group(&c, 1, 2, NULL);
	c.groups = xrealloc(c.groups, 2 * sizeof(*c.groups));
	c.groups[1] = (struct node_group){ .name = xstrdup("small"),
					   .count = 1, .cpus = 8, .gpus = 1 };
	c.ngroups = 2;
	struct param_value pv[] = { num_param("suspend_s", 0) };
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .restore_overhead = 5 * SIM_SEC };
	struct sim *s = tl_run_cfg("gandiva", pv, 1, &cfg);
	cr_expect_float_eq(end_s(s, 3), 125, 1e-6);
	cr_expect_float_eq(end_s(s, 2), 210, 1e-6);
	cr_expect_eq(sim_counters(s)->migrations, 1);
	cr_expect_float_eq(job_of(s, 3)->attained, 105, 1e-6);
	cr_expect_float_eq(job_of(s, 2)->attained, 200, 1e-6);
	cr_expect_float_eq(sim_counters(s)->gpu_busy_area, 365, 1e-6);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Consolidate: three nodes of 2 GPUs, first-fit placement.  X (0 s, 50 s,
 * 2 GPUs) takes node 0, Y (0 s, 1000 s, 1 GPU) node 1's first GPU, and
 * D (0 s, 300 s, 2 GPUs) the next free GPUs, node 1's second and node
 * 2's first: two nodes.  At 50 X ends and node 0 is free: D moves there
 * (one node), restoring for 2 s + 1 s per GPU = 4 s: it ends at 304.
 */
Test(gandiva, migration_consolidates)
{
	struct tjob t[] = {
		{ 1, 0, 50, 50, 2 }, { 2, 0, 1000, 1000, 1 },
		{ 3, 0, 300, 300, 2 },
	};
	struct workload w;
	struct cluster_spec c;
	gpu_jobs(&w, t, 3);
	gpu_group(&c, 3, 2, NULL);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .restore_overhead = 2 * SIM_SEC,
				  .restore_per_gpu = SIM_SEC };
	struct sim *s = tl_run_cfg("gandiva", NULL, 0, &cfg);
	cr_expect_float_eq(end_s(s, 3), 304, 1e-6);
	cr_expect_eq(job_of(s, 3)->nodes_used, 1);
	cr_expect_eq(sim_counters(s)->migrations, 1);
	/* The move restored D from a checkpoint once; nobody was preempted. */
	cr_expect_eq(job_of(s, 3)->restarts, 1);
	cr_expect_eq(job_of(s, 3)->preemptions, 0);
	cr_expect_eq(job_of(s, 1)->restarts, 0);
	sim_free(s);

	/* Without migration D stays on two nodes and ends at 300. */
	struct param_value pv[] = { bool_param("migrate", false) };
	s = tl_run_cfg("gandiva", pv, 1, &cfg);
	cr_expect_float_eq(end_s(s, 3), 300, 1e-6);
	cr_expect_eq(job_of(s, 3)->nodes_used, 2);
	cr_expect_eq(sim_counters(s)->migrations, 0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Restore overhead by size: a preempted ResNet-50 job (25,557,032 fp32
 * parameters: 102,228,128 bytes) with 4 GPUs, restore 10 s + 2 s per GPU
 * + 2 x 102228128 / 1e9 s at 1 GB/s = 18.204456256 s.  srtf on 4 GPUs:
 * A (0 s, 100 s, 4 GPUs), B (10 s, 20 s, 4 GPUs) preempts it (20 left
 * against 90); A restarts at 30 and ends at 30 + 18.204456256 + 90.
 */
Test(gandiva, restore_overhead_grows_with_the_job)
{
	struct tjob t[] = { { 1, 0, 100, 100, 4 }, { 2, 10, 20, 20, 4 } };
	struct workload w;
	struct cluster_spec c;
	gpu_jobs(&w, t, 2);
	w.jobs[0].job_class = (uint16_t)jobclass_lookup(
		"ResNet-50 (batch size 64)");
	gpu_group(&c, 1, 4, NULL);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .restore_overhead = 10 * SIM_SEC,
				  .restore_per_gpu = 2 * SIM_SEC,
				  .storage_Bps = 1e9 };
	struct sim *s = tl_run_cfg("srtf", NULL, 0, &cfg);
	cr_expect_eq(job_of(s, 1)->preemptions, 1);
	/* Rounded up to the microsecond. */
	cr_expect_eq(job_of(s, 1)->end, (30 + 18 + 90) * SIM_SEC + 204457);
	/* GPU-seconds: A held 4 GPUs for 10 + 108.204457 s; B 20 s. */
	cr_expect_float_eq(sim_counters(s)->gpu_busy_area,
			   4 * (10 + 108.204457 + 20), 1e-6);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(gandiva, bad_parameters_are_refused)
{
	struct tjob t[] = { { 1, 0, 10, 10, 1 } };
	struct workload w;
	struct cluster_spec c;
	gpu_jobs(&w, t, 1);
	gpu_group(&c, 1, 1, NULL);
	const struct policy_ops *ops = NULL;
	for (size_t i = 0; policy_builtin[i]; i++)
		if (strcmp(policy_builtin[i]->name, "gandiva") == 0)
			ops = policy_builtin[i];
	cr_assert(ops);
	struct param_value bad[][1] = {
		{ num_param("suspend_s", 60) },
		{ num_param("quantum_s", 0) },
		{ num_param("window", 0) },
	};
	for (size_t k = 0; k < 3; k++) {
		struct pval *params;
		size_t np;
		struct sim_error err;
		cr_assert_eq(policy_params_resolve(ops, bad[k], 1, "", &params,
						   &np, &err), 0);
		struct sim_config cfg = { .workload = &w, .cluster = &c,
					  .policy = ops, .params = params,
					  .nparams = np, .seed = 1 };
		struct sim *s = sim_new(&cfg);
		cr_expect_eq(sim_run(s, &err), -SIM_EINPUT);
		cr_expect(strstr(err.msg, "gandiva") != NULL, "%s", err.msg);
		sim_free(s);
		free(params);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * A job that shares GPUs holds CPUs of its own.  One node of 4 CPUs and
 * 4 GPUs, time-slicing with no switching cost.
 *
 * First case: A (0 s, 100 s, 4 GPUs, 1 CPU) runs; B (10 s, 100 s,
 * 4 GPUs, 3 CPUs) does not fit and shares A's GPUs at half speed each,
 * taking the other 3 CPUs.  C (20 s, 50 s, 2 CPUs, no GPU) finds none
 * free and waits.  A ends at 10 + 90 / 0.5 = 190 and gives its CPU back:
 * 1 free, still too few for C.  B, 90 s of work done, ends alone at 200;
 * C runs 200..250.  CPU-seconds: 1 x 10 + 4 x 180 + 3 x 10 + 2 x 50 =
 * 860 = A 190 + B 3 x 190 + C 100.  (Before, the guest booked no CPU:
 * C started at 20 beside the pair, 6 CPUs in use of 4, and at 190 B was
 * left holding A's one CPU.)
 *
 * Second case, the same with B asking 4 CPUs: only 3 are free beside A,
 * so B cannot share and waits; it runs alone 100..200, and C (here at
 * 195 s) waits for its CPUs until 200: 200..250.
 */
Test(gandiva, a_guest_holds_its_own_cpus)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 4 }, { 2, 10, 100, 100, 4 },
		{ 3, 20, 50, 50, 0 },
	};
	struct workload w;
	struct cluster_spec c;
	gpu_jobs(&w, t, 3);
	w.jobs[0].cpus = 1;
	w.jobs[1].cpus = 3;
	w.jobs[2].cpus = 2;
	gpu_group(&c, 1, 4, NULL);
	c.groups[0].cpus = 4;
	struct param_value pv[] = { num_param("suspend_s", 0) };
	struct sim_config cfg = { .workload = &w, .cluster = &c };
	struct sim *s = tl_run_cfg("gandiva", pv, 1, &cfg);
	cr_expect_eq(sim_counters(s)->shared_starts, 1);
	cr_expect_eq(job_of(s, 2)->start, 10 * SIM_SEC);
	cr_expect_float_eq(end_s(s, 1), 190, 1e-6);
	cr_expect_float_eq(end_s(s, 2), 200, 1e-6);
	cr_expect_float_eq(tl_start(s, 3), 200, 1e-6);
	cr_expect_float_eq(end_s(s, 3), 250, 1e-6);
	cr_expect_float_eq(sim_counters(s)->busy_area, 860, 1e-6);
	cr_expect_eq(sim_counters(s)->bad_calls, 0);
	sim_free(s);

	w.jobs[1].cpus = 4;
	w.jobs[2].submit = 195 * SIM_SEC;
	s = tl_run_cfg("gandiva", pv, 1, &cfg);
	cr_expect_eq(sim_counters(s)->shared_starts, 0);
	cr_expect_float_eq(end_s(s, 1), 100, 1e-6);
	cr_expect_float_eq(tl_start(s, 2), 100, 1e-6);
	cr_expect_float_eq(end_s(s, 2), 200, 1e-6);
	cr_expect_float_eq(tl_start(s, 3), 200, 1e-6);
	cr_expect_eq(sim_counters(s)->bad_calls, 0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* Writes text to dir/name. */
static void put_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
	free(path);
}

/*
 * The case as a user met it, through the command line with --check: one
 * node of 4 CPUs and 4 GPUs; A (0 s, 100 s, 4 GPUs, 1 CPU), B (10 s,
 * 100 s, 4 GPUs, 4 CPUs), C (195 s, 50 s, 3 CPUs).  B used to join A's
 * GPUs with none of its CPUs booked and keep A's one CPU when A ended,
 * so C started beside it (7 CPUs of 4) and the checker aborted ("busy
 * CPUs 1, running jobs hold 4").  Now B waits for its CPUs: A 0..100,
 * B 100..200, C 200..250.
 */
Test(gandiva, cli_check_passes_where_a_guest_needs_cpus)
{
	char bin[512], tmp[256];
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "gandiva");
	tl_cli_need_bin(bin);
	put_file(tmp, "t.csv",
		 "id,submit,run,cpus,estimate,user,group,gpus,nodes\n"
		 "1,0,100,1,,,,4,\n2,10,100,4,,,,4,\n3,195,50,3,,,,,\n");
	put_file(tmp, "e.json",
		 "{ \"name\": \"g\",\n"
		 "  \"cluster\": { \"nodes\": [ { \"count\": 1, "
		 "\"cpus\": 4, \"gpus\": 4 } ] },\n"
		 "  \"workload\": { \"trace\": \"t.csv\", "
		 "\"format\": \"csv\" },\n"
		 "  \"policies\": [ { \"name\": \"gandiva\", "
		 "\"params\": { \"suspend_s\": 0 } } ],\n"
		 "  \"output\": \"out\" }\n");
	char *cmd = xasprintf("cd '%s' && '%s' run e.json --check --no-plots "
			      "--quiet >out.txt 2>&1", tmp, bin);
	int st = system(cmd);
	free(cmd);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit status %d", st);
	char *path = xasprintf("%s/out/gandiva-s1/jobs.csv", tmp);
	FILE *f = fopen(path, "r");
	free(path);
	cr_assert(f);
	char line[512];
	int seen = 0;
	const char *want[] = { "1,0,0,100,", "2,10,100,200,", "3,195,200,250," };
	while (fgets(line, sizeof(line), f))
		for (size_t i = 0; i < 3; i++)
			seen += strncmp(line, want[i], strlen(want[i])) == 0;
	fclose(f);
	cr_expect_eq(seen, 3);
	tl_rmtree(tmp);
}

/*
 * A guest with CPUs moves: the grow case above with CPUs, 8 per node.
 * A (0 s, 30 s, 2 GPUs, 2 CPUs) on node 0, C (0 s, 200 s, 1 GPU, 1 CPU)
 * on node 1; B (10 s, 100 s, 1 GPU, 6 CPUs) shares C's GPU with 6 CPUs
 * of its own there (7 of 8 in use).  At 30 A ends and B moves to node 0,
 * taking 6 CPUs there and giving node 1's back; it restores 5 s and ends
 * at 125, C at 210, as before.  CPUs busy: 3 for 10 s, 9 for 20 s, 7 for
 * 95 s, 1 for 85 s: 960 CPU-seconds.
 */
Test(gandiva, a_moving_guest_takes_its_cpus_along)
{
	struct tjob t[] = {
		{ 1, 0, 30, 30, 2 }, { 2, 0, 200, 200, 1 },
		{ 3, 10, 100, 100, 1 },
	};
	struct workload w;
	struct cluster_spec c;
	gpu_jobs(&w, t, 3);
	w.jobs[0].cpus = 2;
	w.jobs[1].cpus = 1;
	w.jobs[2].cpus = 6;
	gpu_group(&c, 1, 2, NULL);
	c.groups = xrealloc(c.groups, 2 * sizeof(*c.groups));
	c.groups[1] = (struct node_group){ .name = xstrdup("small"),
					   .count = 1, .cpus = 8, .gpus = 1 };
	c.ngroups = 2;
	struct param_value pv[] = { num_param("suspend_s", 0) };
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .restore_overhead = 5 * SIM_SEC };
	struct sim *s = tl_run_cfg("gandiva", pv, 1, &cfg);
	cr_expect_eq(sim_counters(s)->shared_starts, 1);
	cr_expect_eq(sim_counters(s)->migrations, 1);
	cr_expect_float_eq(end_s(s, 3), 125, 1e-6);
	cr_expect_float_eq(end_s(s, 2), 210, 1e-6);
	cr_expect_float_eq(sim_counters(s)->busy_area, 960, 1e-6);
	cr_expect_eq(sim_counters(s)->bad_calls, 0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * The hosts a waiting job may join are walked in running order, and a
 * host that is taken gives its place to the last host of the list (the
 * order the policy has always walked, kept when the hosts are filed by
 * GPU count).  One node, 5 GPUs, time-slicing at no cost, window 1, no
 * migration: A (1 GPU, 100 s), B (2 GPUs, 200 s), C (1, 300 s), D (1,
 * 400 s) fill it at 0, in that running order.  X and Y (1 GPU each)
 * arrive at 10: X joins A, the first; D takes A's place in the list, so
 * Y joins D (not C).  D has 390 s left at half speed: it ends at 10 + 780
 * = 790; C runs alone and ends at 300.
 */
Test(gandiva, a_taken_host_gives_its_place_to_the_last)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 0, 200, 200, 2 },
			    { 3, 0, 300, 300, 1 }, { 4, 0, 400, 400, 1 },
			    { 5, 10, 1000, 1000, 1 }, { 6, 10, 1000, 1000, 1 } };
	struct workload w;
	struct cluster_spec c;
	gpu_jobs(&w, t, 6);
	gpu_group(&c, 1, 5, NULL);
	struct param_value pv[] = { num_param("suspend_s", 0),
				    num_param("window", 1),
				    bool_param("migrate", false) };
	struct sim_config cfg = { .workload = &w, .cluster = &c };
	struct sim *s = tl_run_cfg("gandiva", pv, 3, &cfg);
	cr_expect_float_eq(end_s(s, 3), 300, 1e-6);
	cr_expect_float_eq(end_s(s, 4), 790, 1e-6);
	cr_expect_float_eq(end_s(s, 1), 190, 1e-6);
	cr_expect_eq(job_of(s, 6)->start, 10 * SIM_SEC);
	cr_expect_eq(sim_counters(s)->shared_starts, 2);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * The walk of the queue stops once no job left could fit, but a job of
 * no GPUs behind ones waiting for GPUs is still reached.  One node, one
 * GPU, 8 CPUs, no oversubscription: A (1 GPU, 100 s) runs, B (1 GPU)
 * waits for it, and C (2 CPUs, no GPU, 50 s), behind B, starts at once.
 */
Test(gandiva, a_cpu_job_behind_gpu_waiters_starts)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 5, 100, 100, 1 },
			    { 3, 10, 50, 50, 1 } };
	struct workload w;
	struct cluster_spec c;
	gpu_jobs(&w, t, 3);
	w.jobs[2].gpus = 0;
	w.jobs[2].cpus = 2;
	gpu_group(&c, 1, 1, NULL);
	struct param_value pv[] = { bool_param("packing", false),
				    bool_param("timeslice", false) };
	struct sim_config cfg = { .workload = &w, .cluster = &c };
	struct sim *s = tl_run_cfg("gandiva", pv, 2, &cfg);
	cr_expect_eq(job_of(s, 3)->start, 10 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->start, 100 * SIM_SEC);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}
