/*
 * The gavel policy (policies/gavel.c), its program (sim/search/gavel_lp.c) and
 * the engine's GPU-type calls (policy.h), against values worked out by
 * hand from Gavel's published one-GPU throughputs, quoted here from
 * gavel-throughputs.json (steps/s), not read from the project's table:
 *   ResNet-50 (batch size 64)          k80 0.6190282202246573  v100 4.394774823323071
 *   Transformer (batch size 16)        k80 5.467379291465242   v100 11.06408721300405
 *   Recommendation (batch size 512)    k80 32.859303327562166  v100 23.317634950657975
 *   ResNet-18 (batch size 128)         k80 1.8065297880422846  v100 17.994906225052176
 * Run times are on the reference type, V100, so a job's speed on a K80
 * is k80 / v100 of its class: R50 0.14086, TR 0.49415, REC 1.40920,
 * R18 0.10039.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clustersim/gavel_lp.h"
#include "speed/jobclass.h"
#include "policy/registry.h"
#include "testlib.h"
#include "base/util.h"

#define R50 (0.6190282202246573 / 4.394774823323071)
#define TR (5.467379291465242 / 11.06408721300405)
#define REC (32.859303327562166 / 23.317634950657975)
#define R18 (1.8065297880422846 / 17.994906225052176)

extern const struct policy_ops clustersim_policy_gavel;

/* ---- the program alone -------------------------------------------- */

/* Solves jobs x 2 types (v100, k80), one GPU of each, single-GPU jobs. */
static void solve2(size_t n, const double *rate, const uint32_t *count,
		   bool throughput, double *x, double *z)
{
	uint32_t gpus[4] = { 1, 1, 1, 1 };
	uint64_t cap[2] = { 1, 1 };
	struct gavel_problem p = { .jobs = n, .types = 2, .rate = rate,
				   .gpus = gpus, .count = count, .cap = cap,
				   .throughput = throughput };
	struct gavel_lp *lp = gavel_lp_new();
	struct sim_error err;
	cr_assert_eq(gavel_lp_solve(lp, &p, x, z, &err), 0, "%s", err.msg);
	gavel_lp_free(lp);
}

/*
 * One V100, one K80; A (ResNet-50, K80 speed a = 0.14086) and B
 * (Transformer, b = 0.49415), single-GPU.  N = 2, so the equal share is
 * half of each type: eq_A = (1 + a) / 2, eq_B = (1 + b) / 2.  Any
 * allocation can be improved until both GPUs and both jobs are busy all
 * the time: x_A + x_B = 1, y_A + y_B = 1, x + y = 1 for each, which
 * leaves one degree of freedom s = x_B (A: x_A = 1 - s, y_A = s; B:
 * x_B = s, y_B = 1 - s).  Normalised throughputs:
 *   n_A = (1 - s + a s) / eq_A      falls with s (a < 1)
 *   n_B = (s + b (1 - s)) / eq_B    rises with s (b < 1)
 * They meet where (1 - s(1 - a))(1 + b) = (b + s(1 - b))(1 + a):
 * s (2 - 2ab) = 1 - ab, s = 1/2, whatever a and b; there n_A = n_B = 1.
 * So X = 1/2 everywhere and z = 1, with or without the second stage
 * (no other allocation keeps both at 1).
 */
Test(gavel_lp, both_prefer_the_v100_equal_halves)
{
	double rate[] = { 1, R50, 1, TR }, x[4], z;
	for (int stage2 = 0; stage2 < 2; stage2++) {
		solve2(2, rate, NULL, stage2, x, &z);
		for (int i = 0; i < 4; i++)
			cr_expect_eq(x[i], 0.5, "stage2 %d x[%d] = %.9f",
				     stage2, i, x[i]);
		cr_expect(fabs(z - 1) < 1e-6, "z %.9f", z);
	}
}

/*
 * A = Recommendation (K80 speed 1.40920: faster than on the V100), B =
 * ResNet-18 (0.10039).  A's best is the K80 all the time:
 * n_A = 2 x 1.40920 / 2.40920 = 1.16985 at most (its own time is 1), so
 * z <= 1.16985, and it is reached with A on the K80 (y_A = 1, x_A = 0)
 * and B anywhere with n_B >= z: B on the V100 all the time gives
 * n_B = 2 / 1.10039 = 1.81754.  The second stage (most throughput) picks
 * x_B = 1: X = (0, 1; 1, 0).
 */
Test(gavel_lp, opposite_preferences_split_the_types)
{
	double rate[] = { 1, REC, 1, R18 }, x[4], z;
	solve2(2, rate, NULL, true, x, &z);
	double want[] = { 0, 1, 1, 0 };
	for (int i = 0; i < 4; i++)
		cr_expect_eq(x[i], want[i], "x[%d] = %.9f", i, x[i]);
	cr_expect(fabs(z - 2 * REC / (1 + REC)) < 1e-6, "z %.9f", z);
}

/*
 * Left out: C cannot run anywhere (rate 0 on both types) and D needs 2
 * GPUs where each type has 1.  They get X = 0 and do not count in N, so
 * A and B get the halves of the first case.
 */
Test(gavel_lp, jobs_that_cannot_run_are_left_out)
{
	double rate[] = { 1, R50, 1, TR, 0, 0, 1, 1 }, x[8], z;
	uint32_t gpus[] = { 1, 1, 1, 2 };
	uint64_t cap[] = { 1, 1 };
	struct gavel_problem p = { .jobs = 4, .types = 2, .rate = rate,
				   .gpus = gpus, .cap = cap,
				   .throughput = true };
	struct gavel_lp *lp = gavel_lp_new();
	struct sim_error err;
	cr_assert_eq(gavel_lp_solve(lp, &p, x, &z, &err), 0, "%s", err.msg);
	for (int i = 0; i < 4; i++)
		cr_expect_eq(x[i], 0.5, "x[%d] = %.9f", i, x[i]);
	for (int i = 4; i < 8; i++)
		cr_expect_eq(x[i], 0, "x[%d] = %.9f", i, x[i]);
	cr_expect(fabs(z - 1) < 1e-6);
	gavel_lp_free(lp);
}

/*
 * Equal jobs: three rows {A, A, B} and two rows {A x 2, B} (count) are
 * the same program (N = 3 both ways), and the solver merges equal rows
 * itself, so both give the two A's one X.  Checked against each other
 * (a second method), with the capacity rows by hand: 2 x_A + x_B <= 1
 * on each type.
 */
Test(gavel_lp, equal_jobs_share_one_row)
{
	double rate3[] = { 1, R50, 1, R50, 1, TR }, x3[6], z3;
	double rate2[] = { 1, R50, 1, TR }, x2[4], z2;
	uint32_t count[] = { 2, 1 };
	solve2(3, rate3, NULL, true, x3, &z3);
	solve2(2, rate2, count, true, x2, &z2);
	cr_expect(fabs(z3 - z2) < 1e-6, "z %.9f vs %.9f", z3, z2);
	for (int t = 0; t < 2; t++) {
		cr_expect(fabs(x3[t] - x2[t]) < 1e-5);
		cr_expect(fabs(x3[2 + t] - x2[t]) < 1e-5);
		cr_expect(fabs(x3[4 + t] - x2[2 + t]) < 1e-5);
		cr_expect_leq(2 * x2[t] + x2[2 + t], 1 + 1e-6);
	}
}

/* ---- the engine's GPU-type calls ----------------------------------- */

/* One group of count nodes x gpus GPUs of a type, appended to c. */
static void add_group(struct cluster_spec *c, const char *type,
		      uint32_t count, uint32_t gpus)
{
	c->groups = xrealloc(c->groups, (c->ngroups + 1) * sizeof(*c->groups));
	c->groups[c->ngroups++] = (struct node_group){
		.name = xstrdup(type), .count = count, .cpus = 8,
		.gpus = gpus, .gpu_type = xstrdup(type),
	};
}

/* 100 Gb/s NICs, 300 GB/s NVLink, reference V100 (as test_speed.c). */
static void speed_cfg(struct speed_config *s)
{
	memset(s, 0, sizeof(*s));
	net_spec_default(&s->net);
	s->ref_gpu = JOBCLASS_GPU_V100;
}

/* GPU jobs of the given classes, one GPU each unless gpus says. */
static void class_jobs(struct workload *w, const struct tjob *t, size_t n,
		       const char *const *cls, const uint32_t *gpus)
{
	tl_workload(w, t, n);
	for (size_t i = 0; i < n; i++) {
		struct job *j = &w->jobs[i];
		int k = jobclass_lookup(cls[j->id - 1]);
		cr_assert_gt(k, 0, "%s", cls[j->id - 1]);
		j->job_class = (uint16_t)k;
		j->gpus = gpus ? gpus[j->id - 1] : 1;
		j->cpus = 0;
	}
}

/* What the probe policy saw at its first call. */
struct probe {
	unsigned types;
	char names[2][8];
	uint64_t cap[2], free_before[2], free_after[2];
	double rate[2];
	int rc_ok, rc_big, rc_constrained, rc_range;
};

static __thread struct probe seen;

/* First call: jobs 1 (R50, 2 GPUs), 2 (R50, 4 GPUs), 3 (1 GPU, must be
 * on the v100).  Starts 1 on the k80s, tries 2 on the v100s (2 GPUs:
 * does not fit), 3 on the k80s (its constraint forbids), 3 on type 7. */
static void probe_schedule(struct sim *sim, void *state)
{
	(void)state;
	if (sim_now(sim) != 0) {
		sim_start_head(sim);
		return;
	}
	const struct job *j1 = sim_queue_at(sim, 0);
	const struct job *j2 = sim_queue_at(sim, 1);
	const struct job *j3 = sim_queue_at(sim, 2);
	seen.types = sim_gpu_types(sim);
	for (unsigned t = 0; t < 2; t++) {
		snprintf(seen.names[t], sizeof(seen.names[t]), "%s",
			 sim_gpu_type_name(sim, t));
		seen.cap[t] = sim_gpu_type_capacity(sim, t);
		seen.free_before[t] = sim_gpu_type_free(sim, t);
		seen.rate[t] = sim_job_type_rate(sim, j1, t);
	}
	seen.rc_ok = sim_job_start_on(sim, j1, 1);
	seen.rc_big = sim_job_start_on(sim, j2, 0);
	seen.rc_constrained = sim_job_start_on(sim, j3, 1);
	seen.rc_range = sim_job_start_on(sim, j3, 7);
	for (unsigned t = 0; t < 2; t++)
		seen.free_after[t] = sim_gpu_type_free(sim, t);
	/* Then run the rest anywhere, so that the run ends. */
	sim_start_head(sim);
}

static const struct policy_ops probe_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "probe",
	.schedule = probe_schedule,
};

/*
 * Cluster: v100 (1 node x 2 GPUs), k80 (1 node x 4).  Types in group
 * order: 0 = v100 (2 GPUs), 1 = k80 (4).  Job 1's rates: 1 on the v100
 * (the reference), R50 on the k80.  Starting job 1 on the k80s leaves 2
 * of them free and puts it on type 1 (gpu_type_used 2); the three
 * refused calls are counted as bad calls.
 */
Test(gavel_api, gpu_types_and_start_on)
{
	struct tjob t[] = { { 1, 0, 100, -1, 0 }, { 2, 0, 100, -1, 0 },
			    { 3, 0, 100, -1, 0 } };
	const char *cls[] = { "ResNet-50 (batch size 64)",
			      "ResNet-50 (batch size 64)",
			      "ResNet-50 (batch size 64)" };
	uint32_t gpus[] = { 2, 4, 1 };
	struct workload w;
	struct cluster_spec c = { 0 };
	struct speed_config sc;
	class_jobs(&w, t, 3, cls, gpus);
	w.jobs[2].gpu_type = 1; /* v100 only */
	add_group(&c, "v100", 1, 2);
	add_group(&c, "k80", 1, 4);
	speed_cfg(&sc);
	memset(&seen, 0, sizeof(seen));
	struct pval none[1];
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .policy = &probe_ops, .params = none,
				  .seed = 1, .check = true, .speed = &sc };
	struct sim *s = sim_new(&cfg);
	struct sim_error err;
	cr_assert_eq(sim_run(s, &err), 0, "%s", err.msg);
	cr_expect_eq(seen.types, 2);
	cr_expect_str_eq(seen.names[0], "v100");
	cr_expect_str_eq(seen.names[1], "k80");
	cr_expect_eq(seen.cap[0], 2);
	cr_expect_eq(seen.cap[1], 4);
	cr_expect_eq(seen.free_before[1], 4);
	cr_expect_eq(seen.rate[0], 1.0);
	cr_expect(fabs(seen.rate[1] - R50) < 1e-12, "%.15f", seen.rate[1]);
	cr_expect_eq(seen.rc_ok, 0);
	cr_expect_lt(seen.rc_big, 0);
	cr_expect_lt(seen.rc_constrained, 0);
	cr_expect_lt(seen.rc_range, 0);
	cr_expect_eq(seen.free_after[0], 2);
	cr_expect_eq(seen.free_after[1], 2);
	cr_expect_eq(sim_counters(s)->bad_calls, 3);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	cr_expect_eq(j[0].gpu_type_used, 2);
	cr_expect_eq(j[2].gpu_type, 1, "the constraint is restored");
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- the policy ------------------------------------------------------ */

static const struct job *job_by_id(const struct sim *s, int64_t id)
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
	return (double)job_by_id(s, id)->end / SIM_SEC;
}

/*
 * A second method for the first policy case: work done round by round.
 * A job that runs at speed r_k in round k (360 s each, from 0) with work
 * W ends in the first round where the sum reaches W.
 */
static double end_by_rounds(double work, const double *speed, size_t n)
{
	double done = 0;
	for (size_t k = 0; k < n; k++) {
		if (done + 360 * speed[k] >= work)
			return 360.0 * (double)k + (work - done) / speed[k];
		done += 360 * speed[k];
	}
	cr_assert_fail("not done in %zu rounds", n);
	return -1;
}

/*
 * One V100 node and one K80 node of one GPU each; A (ResNet-50, 1000 s
 * of V100 work) and B (Transformer, 2000 s), both at 0.  The program
 * gives each half of each type (gavel_lp.both_prefer_the_v100...).
 * Rounds of 360 s, priority X / share of time on the type so far:
 *   round 0: no one has run: all four pairs X / 1e-9, ties by id then
 *            type: A on the v100 (type 0), B on the k80.
 *   round 1: A's v100 share 1 (priority 0.5), its k80 share 0 (huge);
 *            B the other way: A moves to the k80, B to the v100.
 *   round 2: every share 1/2, every priority 1: ties as in round 0.
 *   round 3: A: v100 2/3 (0.75), k80 1/3 (1.5); B the other way: A k80.
 * So A runs v100, k80, v100, k80, v100 ... and B the opposite.  A's work:
 * 360 + 360 R50 + 360 + 360 R50 = 821.42 s after 4 rounds; the rest,
 * 178.58 s, on the v100 in round 4: A ends at 1440 + 178.58 = 1618.58.
 * B then runs alone: the program gives it the v100 (X = 1, 0), but
 * between rounds nobody is preempted, so B stays on the k80 until the
 * round at 1800 moves it (its v100 priority 1 / (720 / 1800) = 2.5, the
 * k80's 0).  B's work by 1800: 2 x 360 + 3 x 360 TR = 1253.69; the rest,
 * 746.31 s on the v100: B ends at 2546.31.  Preemptions: A 4 (at 360,
 * 720, 1080, 1440), B 5 (the same and 1800).
 */
Test(gavel_policy, alternating_halves_hand_schedule)
{
	struct tjob t[] = { { 1, 0, 1000, -1, 0 }, { 2, 0, 2000, -1, 0 } };
	const char *cls[] = { "ResNet-50 (batch size 64)",
			      "Transformer (batch size 16)" };
	struct workload w;
	struct cluster_spec c = { 0 };
	struct speed_config sc;
	class_jobs(&w, t, 2, cls, NULL);
	add_group(&c, "v100", 1, 1);
	add_group(&c, "k80", 1, 1);
	speed_cfg(&sc);
	struct sim *s = tl_run_speed("gavel", "first_fit", &w, &c, &sc);

	double a_speed[] = { 1, R50, 1, R50, 1 };
	double b_speed[] = { TR, 1, TR, 1, TR, 1, 1, 1 };
	double a_end = end_by_rounds(1000, a_speed, 5);
	double b_end = end_by_rounds(2000, b_speed, 8);
	cr_expect(fabs(a_end - (1440 + (1000 - 720 - 720 * R50))) < 1e-9);
	cr_expect(fabs(end_s(s, 1) - a_end) < 1e-3, "A ends %.6f, want %.6f",
		  end_s(s, 1), a_end);
	cr_expect(fabs(end_s(s, 2) - b_end) < 1e-3, "B ends %.6f, want %.6f",
		  end_s(s, 2), b_end);
	cr_expect_eq(job_by_id(s, 1)->preemptions, 4);
	cr_expect_eq(job_by_id(s, 2)->preemptions, 5);
	cr_expect_eq(job_by_id(s, 2)->gpu_type_used, 1, "B ends on the v100");
	cr_expect_eq(sim_counters(s)->bad_calls, 0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Heterogeneity-awareness against a heterogeneity-agnostic scheduler:
 * A (Recommendation, 1000 s; faster on the K80) and B (ResNet-18,
 * 1000 s; 10x slower on the K80), one V100 and one K80.  gavel: the
 * program puts A on the K80 and B on the V100 for good
 * (gavel_lp.opposite_preferences...), so A ends at 1000 / REC = 709.62
 * and B at 1000, with no preemption.  fcfs with first fit puts A (first)
 * on the first node, the V100: A ends at 1000, B on the K80 at
 * 1000 / R18 = 9961.08.  Both jobs finish sooner under gavel.
 */
Test(gavel_policy, the_job_that_gains_more_gets_the_v100)
{
	struct tjob t[] = { { 1, 0, 1000, -1, 0 }, { 2, 0, 1000, -1, 0 } };
	const char *cls[] = { "Recommendation (batch size 512)",
			      "ResNet-18 (batch size 128)" };
	struct workload w;
	struct cluster_spec c = { 0 };
	struct speed_config sc;
	class_jobs(&w, t, 2, cls, NULL);
	add_group(&c, "v100", 1, 1);
	add_group(&c, "k80", 1, 1);
	speed_cfg(&sc);
	struct sim *g = tl_run_speed("gavel", "first_fit", &w, &c, &sc);
	struct sim *f = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	cr_expect(fabs(end_s(g, 1) - 1000 / REC) < 1e-5, "%.6f", end_s(g, 1));
	cr_expect(fabs(end_s(g, 2) - 1000) < 1e-5, "%.6f", end_s(g, 2));
	cr_expect(fabs(end_s(f, 1) - 1000) < 1e-5, "%.6f", end_s(f, 1));
	cr_expect(fabs(end_s(f, 2) - 1000 / R18) < 1e-5, "%.6f", end_s(f, 2));
	cr_expect_eq(job_by_id(g, 1)->gpu_type_used, 2, "A on the k80");
	cr_expect_eq(job_by_id(g, 2)->gpu_type_used, 1, "B on the v100");
	cr_expect_eq(job_by_id(g, 1)->preemptions, 0);
	cr_expect_eq(job_by_id(g, 2)->preemptions, 0);
	sim_free(g);
	sim_free(f);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * No GPU types (a CPU cluster of 1 CPU): the CPU pool is one type.  A
 * and B, 500 s each at 0: N = 2, X = 1/2 each.  Round 0: tie, A (id 1)
 * runs.  360: A's share 1 (priority 0.5), B has not run (huge): B runs,
 * A is preempted.  720: both shares 1/2 (priority 1): tie, A; B is
 * preempted.  A needs 140 s more: ends at 860.  Between rounds B fills
 * the free CPU at once and ends at 860 + 140 = 1000.
 */
Test(gavel_policy, cpu_pool_time_shares)
{
	struct tjob t[] = { { 1, 0, 500, -1, 1 }, { 2, 0, 500, -1, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct sim *s = tl_run("gavel", &w, &c);
	cr_expect_eq(end_s(s, 1), 860.0);
	cr_expect_eq(end_s(s, 2), 1000.0);
	cr_expect_eq(job_by_id(s, 1)->preemptions, 1);
	cr_expect_eq(job_by_id(s, 2)->preemptions, 1);
	cr_expect_eq(sim_counters(s)->bad_calls, 0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* round_s must give at least a microsecond and at most 1e12 s; the
 * message names the value. */
Test(gavel_policy, round_length_is_checked)
{
	const double bad[] = { 0, -360, 1e-7, 1e13 };
	struct tjob t[] = { { 1, 0, 10, -1, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 1);
	tl_cluster(&c, 1, 1);
	for (size_t k = 0; k < ARRAY_SIZE(bad); k++) {
		struct param_value pv = {
			.key = (char *)"round_s",
			.json_path = (char *)"$.policies[0].params.round_s",
			.type = PV_NUMBER, .num = bad[k],
		};
		struct pval *params;
		size_t np;
		struct sim_error err;
		cr_assert_eq(policy_params_resolve(&clustersim_policy_gavel,
						   &pv, 1, "", &params, &np,
						   &err), 0, "%s", err.msg);
		struct sim_config cfg = {
			.workload = &w, .cluster = &c,
			.policy = &clustersim_policy_gavel, .params = params,
			.nparams = np, .seed = 1,
		};
		struct sim *s = sim_new(&cfg);
		cr_expect_eq(sim_run(s, &err), -SIM_EINPUT, "round_s %g",
			     bad[k]);
		cr_expect(strstr(err.msg, "round_s must be") != NULL, "%s",
			  err.msg);
		sim_free(s);
		free(params);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Gavel's own trace (gpu/gavel/max_min_fairness.trace, 96 jobs) on the
 * cluster of experiments/gavel-hetero.json, checker on: every job ends,
 * the policy makes no refused call, no job ends sooner than its work at
 * its fastest type's speed (the table's ratio, computed here), and the
 * mean completion time is below fcfs's.
 */
Test(gavel_policy, gavel_trace_on_the_hetero_cluster)
{
	const char *dir = getenv("CLUSTERSIM_TRACE_DIR");
	char *path = xasprintf("%s/gpu/gavel/max_min_fairness.trace",
			       dir && *dir ? dir : "../shared/traces");
	if (access(path, R_OK) != 0) {
		free(path);
		cr_skip_test("gpu/gavel/max_min_fairness.trace not in "
			     "$CLUSTERSIM_TRACE_DIR");
	}
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	trace_opts_default(&o);
	o.format = TRACE_GAVEL;
	cr_assert_eq(trace_load(path, &o, &w, &err), 0, "%s", err.msg);
	free(path);
	struct cluster_spec c = { 0 };
	add_group(&c, "v100", 2, 4);
	add_group(&c, "p100", 4, 4);
	add_group(&c, "k80", 6, 4);
	c.rack_nodes = 4;
	struct speed_config sc;
	speed_cfg(&sc);
	struct sim *g = tl_run_speed("gavel", "first_fit", &w, &c, &sc);
	struct sim *f = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	cr_expect_eq(sim_counters(g)->bad_calls, 0);
	size_t n;
	const struct job *jg = sim_jobs(g, &n);
	const struct job *jf = sim_jobs(f, &n);
	double mean_g = 0, mean_f = 0;
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(jg[i].state, JOB_FINISHED, "job %lld",
			     (long long)jg[i].id);
		double best = 0;
		for (int t = 0; t < JOBCLASS_NGPU; t++) {
			double v = jobclass_throughput(jg[i].job_class, t, 1,
						       true) /
				   jobclass_throughput(jg[i].job_class,
						       JOBCLASS_GPU_V100, 1,
						       true);
			if (v > best)
				best = v;
		}
		cr_expect_geq((double)(jg[i].end - jg[i].start) + 1,
			      (double)jg[i].run / best, "job %lld",
			      (long long)jg[i].id);
		mean_g += (double)(jg[i].end - jg[i].submit) / (double)n;
		mean_f += (double)(jf[i].end - jf[i].submit) / (double)n;
	}
	cr_expect_lt(mean_g, mean_f, "gavel %.0f, fcfs %.0f", mean_g / 1e6,
		     mean_f / 1e6);
	sim_free(g);
	sim_free(f);
	workload_release(&w);
	cluster_spec_release(&c);
}
