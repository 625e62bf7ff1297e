/*
 * The online search policies ga, sa and ilp (sim/search/search_online.c) on
 * hand-worked cases: a queue whose FCFS order is poor for total
 * completion time, two GPU types where the plan waits for the fast one,
 * reproducibility (twice, and 1 vs 2 threads); and the offline builder's
 * per-type run times (sim/run/optimize.c) on a two-type batch.  The
 * conformance suite runs the three policies too (every registered one).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "speed/jobclass.h"
#include "run/optimize.h"
#include "policy/registry.h"
#include "search/search_online.h"
#include "testlib.h"

static const char *const online_policies[] = { "ga", "sa", "ilp" };

static const struct policy_ops *online_ops(const char *name)
{
	for (size_t p = 0; policy_builtin[p]; p++)
		if (!strcmp(policy_builtin[p]->name, name))
			return policy_builtin[p];
	cr_assert_fail("no policy '%s'", name);
	return NULL;
}

static struct param_value online_pv(const char *key, double num,
				    const char *str)
{
	struct param_value pv = {
		.key = (char *)key,
		.json_path = (char *)"$.policies[0].params",
		.type = str ? PV_STRING : PV_NUMBER,
		.num = num,
		.str = (char *)str,
	};
	return pv;
}

/* ---- the run time of work at a speed ---------------------------------- */

Test(search_online, run_secs)
{
	/* 100 s of work: 100 s at speed 1, 400 s at 0.25, 250 s at 0.4 */
	cr_expect_eq(online_run_secs(100 * SIM_SEC, 1.0), 100);
	cr_expect_eq(online_run_secs(100 * SIM_SEC, 0.25), 400);
	cr_expect_eq(online_run_secs(100 * SIM_SEC, 0.4), 250);
	/* rounded up, at least 1; a bad rate counts as 1 */
	cr_expect_eq(online_run_secs(100 * SIM_SEC + 1, 1.0), 101);
	cr_expect_eq(online_run_secs(0, 1.0), 1);
	cr_expect_eq(online_run_secs(10 * SIM_SEC, 0), 10);
	cr_expect_eq(online_run_secs(10 * SIM_SEC, NAN), 10);
	/* 10 s at 3: 3.33 s -> 4 */
	cr_expect_eq(online_run_secs(10 * SIM_SEC, 3.0), 4);
}

/* ---- FCFS order is poor: the short jobs go first ----------------------- */

/*
 * 2 CPUs, every job takes both.  A (id 1) runs 0-10.  At 1 arrive, in
 * this order, L (id 2, 200 s) and S1..S6 (ids 3-8: 60, 50, 40, 30, 20,
 * 10 s).  On one machine, total completion time is least in shortest-
 * first order, the only best order when run times differ (swap any two
 * neighbours out of that order and the sum falls).
 *   twct plan: S6 10-20, S5 20-40, S4 40-70, S3 70-110, S2 110-160,
 *              S1 160-220, L 220-420: completions add up to 1040;
 *   FCFS:      L 10-210, S1 210-270, S2 270-320, S3 320-360,
 *              S4 360-390, S5 390-410, S6 410-420: 2380.
 * The plan at 10 has 7 jobs (5040 orders): the search makes it; later
 * plans (6 jobs or fewer) are enumerated.
 */
static const struct tjob online_queue[] = {
	{ 1, 0, 10, -1, 2 },  { 2, 1, 200, -1, 2 }, { 3, 1, 60, -1, 2 },
	{ 4, 1, 50, -1, 2 },  { 5, 1, 40, -1, 2 },  { 6, 1, 30, -1, 2 },
	{ 7, 1, 20, -1, 2 },  { 8, 1, 10, -1, 2 },
};

Test(search_online, short_jobs_first)
{
	static const double plan[] = { 0, 220, 160, 110, 70, 40, 20, 10 };
	static const double fcfs[] = { 0, 10, 210, 270, 320, 360, 390, 410 };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, online_queue, 8);
	tl_cluster(&c, 1, 2);
	struct sim *f = tl_run("fcfs", &w, &c);
	for (int64_t id = 1; id <= 8; id++)
		cr_expect_eq(tl_start(f, id), fcfs[id - 1], "fcfs: job %lld "
			     "at %g", (long long)id, tl_start(f, id));
	sim_free(f);
	for (size_t k = 0; k < 6; k++) {
		/* exact_max 0: the search itself plans; then the defaults,
		 * under which ilp enumerates this 7-job batch instead */
		size_t p = k % 3;
		struct param_value pv[2] = { online_pv("objective", 0, "twct"),
					     online_pv("exact_max", 0, NULL) };
		struct sim *s = tl_run_with(online_ops(online_policies[p]),
					    pv, k < 3 ? 2 : 1, &w, &c);
		double sum = 0;
		size_t n;
		const struct job *j = sim_jobs(s, &n);
		for (int64_t id = 1; id <= 8; id++)
			cr_expect_eq(tl_start(s, id), plan[id - 1],
				     "%s: job %lld at %g, want %g",
				     online_policies[p], (long long)id,
				     tl_start(s, id), plan[id - 1]);
		for (size_t i = 0; i < n; i++)
			if (j[i].id != 1) /* A's end is the same in both */
				sum += (double)j[i].end / SIM_SEC;
		cr_expect_eq(sum, 1040, "%s: %g", online_policies[p], sum);
		cr_expect_eq(sim_counters(s)->bad_calls, 0);
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- two GPU types: wait for the fast one ------------------------------ */

/*
 * One K80 (type 0) and one V100 (type 1), ResNet-50 jobs of one GPU with
 * throughputs overridden to 1 step/s on the K80 and 6 on the V100 (the
 * reference): a job runs 6 times as long on the K80.  Five jobs arrive at
 * 0 with 5, 4, 3, 2 and 1 s of V100 work (ids 1-5).  On the V100 alone,
 * shortest first, they end at 1, 3, 6, 10, 15: 35 in all.  Moving any
 * job to the K80 costs more than it saves: a job there ends at 6x its
 * work at the earliest, and on the V100 it adds at most 5x its work (it
 * delays at most the 4 others and itself), so the K80 stays idle.  (FCFS
 * and greedy list scheduling put a job on the idle K80 at 0.)  The first
 * plan has 5 jobs (120 orders x 32 type choices): the search makes it.
 */
Test(search_online, waits_for_the_faster_type)
{
	static const struct tjob t[] = {
		{ 1, 0, 5, -1, 0 }, { 2, 0, 4, -1, 0 }, { 3, 0, 3, -1, 0 },
		{ 4, 0, 2, -1, 0 }, { 5, 0, 1, -1, 0 },
	};
	static const uint32_t gpus[] = { 1, 1, 1, 1, 1 };
	static const double want[] = { 10, 6, 3, 1, 0 };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	struct jobclass_override ov = { .grad_bytes = -1 };
	tl_r50_jobs(&w, t, 5, gpus);
	tl_gpu_cluster(&c, 1, 1, "k80", 0);
	c.groups = xrealloc(c.groups, 2 * sizeof(*c.groups));
	c.groups[1] = c.groups[0];
	c.groups[1].name = xstrdup("v100");
	c.groups[1].gpu_type = xstrdup("v100");
	c.ngroups = 2;
	tl_speed_config(&sc);
	ov.cls = w.jobs[0].job_class;
	for (int g = 0; g < JOBCLASS_GPU_MAX; g++)
		ov.thr[g] = NAN;
	ov.thr[JOBCLASS_GPU_K80] = 1;
	ov.thr[JOBCLASS_GPU_V100] = 6;
	struct jobclass_overrides ovs = { .v = &ov, .n = 1 };
	sc.thr = &ovs;
	struct sim_config base = { .workload = &w, .cluster = &c,
				   .speed = &sc };
	for (size_t p = 0; p < 3; p++) {
		/* ilp: 100 one-second slots hold the horizon: exact */
		struct param_value pv[3] = { online_pv("objective", 0, "twct"),
					     online_pv("exact_max", 0, NULL),
					     online_pv("slots", 100, NULL) };
		struct sim *s = tl_run_cfg(online_policies[p], pv, p == 2 ? 3 : 2,
					   &base);
		size_t n;
		const struct job *j = sim_jobs(s, &n);
		for (size_t i = 0; i < n; i++) {
			cr_expect_eq(tl_start(s, j[i].id), want[j[i].id - 1],
				     "%s: job %lld at %g", online_policies[p],
				     (long long)j[i].id, tl_start(s, j[i].id));
			cr_expect_eq(j[i].gpu_type_used, 2, "%s: job %lld on "
				     "type %u", online_policies[p],
				     (long long)j[i].id, j[i].gpu_type_used);
			cr_expect_eq(j[i].end - j[i].start, j[i].run);
		}
		cr_expect_eq(sim_counters(s)->bad_calls, 0);
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- reproducibility ---------------------------------------------------- */

static void online_same(const struct sim *a, const struct sim *b,
			const char *what)
{
	size_t na, nb;
	const struct job *ja = sim_jobs(a, &na);
	const struct job *jb = sim_jobs(b, &nb);
	cr_assert_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		cr_assert_eq(ja[i].start, jb[i].start, "%s: job %lld", what,
			     (long long)ja[i].id);
		cr_assert_eq(ja[i].end, jb[i].end);
	}
	cr_assert_eq(memcmp(ja, jb, na * sizeof(*ja)), 0, "%s", what);
}

Test(search_online, reproducible_and_thread_independent)
{
	struct workload w;
	struct cluster_spec c;
	tl_random_workload(&w, 300, 8, 11);
	tl_cluster(&c, 4, 2);
	const char *pols[] = { "ga", "sa" };
	for (int p = 0; p < 2; p++) {
		struct param_value one = online_pv("threads", 1, NULL);
		struct param_value two = online_pv("threads", 2, NULL);
		const struct policy_ops *ops = online_ops(pols[p]);
		struct sim *a = tl_run_with(ops, &one, 1, &w, &c);
		struct sim *b = tl_run_with(ops, &one, 1, &w, &c);
		struct sim *d = tl_run_with(ops, &two, 1, &w, &c);
		online_same(a, b, "twice");
		online_same(a, d, "1 vs 2 threads");
		/* and the plans changed something: not FCFS */
		struct sim *f = tl_run("fcfs", &w, &c);
		size_t n;
		const struct job *ja = sim_jobs(a, &n);
		const struct job *jf = sim_jobs(f, &n);
		size_t differ = 0;
		for (size_t i = 0; i < n; i++)
			differ += ja[i].start != jf[i].start;
		cr_expect_gt(differ, 0, "%s: same as fcfs", pols[p]);
		sim_free(a);
		sim_free(b);
		sim_free(d);
		sim_free(f);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(search_online, bad_parameters)
{
	struct workload w;
	struct cluster_spec c;
	struct sim_error err;
	struct pval *params;
	size_t np;
	tl_workload(&w, online_queue, 2);
	tl_cluster(&c, 1, 2);
	struct param_value pv = online_pv("objective", 0, "fastest");
	const struct policy_ops *ops = online_ops("ga");
	cr_assert_eq(policy_params_resolve(ops, &pv, 1, "", &params, &np,
					   &err), 0, "%s", err.msg);
	struct sim_config cfg = { .workload = &w, .cluster = &c, .policy = ops,
				  .params = params, .nparams = np, .seed = 1 };
	struct sim *s = sim_new(&cfg);
	cr_expect_neq(sim_run(s, &err), 0);
	cr_expect(strstr(err.msg, "'fastest'"), "%s", err.msg);
	sim_free(s);
	free(params);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- the offline builder: run times per GPU type ----------------------- */

static char *online_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s", path);
	char *buf = calloc(1, 4096);
	size_t n = fread(buf, 1, 4095, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * One V100 and one K80 GPU; ResNet-50 at 4 steps/s on the V100 (the
 * reference) and 1 on the K80, so a job takes 4 times as long there.
 * Jobs (estimate = run): A 100 s, B 30 s of V100 work, both released at 0.
 *   greedy, in index order: A on the V100 0-100 (both types free at 0,
 *     the lower index), B on the K80, free first: 0-120 (4 x 30), total
 *     completion 220; in Smith's order B on the V100 0-30 and A on the
 *     K80 0-400: 430.  Greedy keeps 220.
 *   The optimum: B then A, both on the V100: 30 + 130 = 160 (A or B on
 *     the K80 ends at 400 or 120 at best: 220 or more).
 * Without per-type speeds (every type as fast as the V100) the optimum
 * would be 130 (A and B side by side), with B on the K80.
 */
Test(search_online, offline_types_have_their_speeds)
{
	char dir[] = "/tmp/clustersim-online-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char *trace = xasprintf("%s/t.csv", dir);
	char *exp = xasprintf("%s/e.json", dir);
	FILE *f = fopen(trace, "w");
	cr_assert_not_null(f);
	fprintf(f, "job_id,num_gpu,submit_time,iterations,model_name,"
		"duration,interval\n1,1,0,1,resnet50,100,0\n"
		"2,1,0,1,resnet50,30,0\n");
	fclose(f);
	f = fopen(exp, "w");
	cr_assert_not_null(f);
	fprintf(f, "{\"cluster\": {\"nodes\": ["
		"{\"count\": 1, \"cpus\": 8, \"gpus\": 1, \"gpu_type\": \"v100\"},"
		"{\"count\": 1, \"cpus\": 8, \"gpus\": 1, \"gpu_type\": \"k80\"}]},"
		"\"workload\": {\"trace\": \"t.csv\", \"format\": \"tiresias\"},"
		"\"policies\": [\"fcfs\"],"
		"\"throughputs\": {\"resnet50_bs64\": {\"v100\": 4, \"k80\": 1}},"
		"\"optimize\": {\"jobs\": 2, \"methods\": [\"greedy\", \"ga\"],"
		" \"evals\": 2000, \"backend\": \"cpu\", \"threads\": 1,"
		" \"population\": 16, \"islands\": 1},"
		"\"output\": \"out\"}\n");
	fclose(f);
	struct sim_error err;
	FILE *null = fopen("/dev/null", "w");
	cr_assert_eq(optimize_main(exp, NULL, true, true, null, &err), 0,
		     "%s", err.msg);
	fclose(null);
	char *p = xasprintf("%s/out/optimize/schedule-greedy.csv", dir);
	char *g = online_slurp(p);
	cr_expect_str_eq(g, "job_id,position,type,units,release_s,start_s,"
			 "end_s\n1,0,v100,1,0,0,100\n2,1,k80,1,0,0,120\n");
	free(p);
	p = xasprintf("%s/out/optimize/schedule-ga.csv", dir);
	char *a = online_slurp(p);
	cr_expect_str_eq(a, "job_id,position,type,units,release_s,start_s,"
			 "end_s\n2,0,v100,1,0,0,30\n1,1,v100,1,0,30,130\n");
	free(p);
	free(g);
	free(a);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
	free(cmd);
	free(trace);
	free(exp);
}
