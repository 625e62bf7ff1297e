/*
 * Gavel's other LP objectives (gavel_lp.h): min_total_duration and
 * finish_time_fairness, on small programs whose optimum is worked out by
 * hand, and the gavel policy's "objective" parameter on a two-job run.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/gavel_lp.h"
#include "policy/registry.h"
#include "testlib.h"
#include "base/util.h"

extern const struct policy_ops clustersim_policy_gavel;

/* Solves n single-GPU jobs on T types of the given capacities. */
static void go_solve(enum gavel_objective obj, size_t n, size_t T,
		     const double *rate, const uint64_t *cap,
		     const double *rem, const double *ela,
		     const double *iso, bool throughput, double *x,
		     double *z, double *share)
{
	uint32_t gpus[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	struct gavel_problem p = {
		.jobs = n, .types = T, .rate = rate, .gpus = gpus,
		.cap = cap, .throughput = throughput, .objective = obj,
		.remaining = rem, .elapsed = ela, .iso_done = iso,
		.share = share,
	};
	struct gavel_lp *lp = gavel_lp_new();
	struct sim_error err;
	cr_assert_eq(gavel_lp_solve(lp, &p, x, z, &err), 0, "%s", err.msg);
	gavel_lp_free(lp);
}

/*
 * min_total_duration, one type of 2 GPUs, rate 1: A 100 s left, B 300,
 * C 200.  Every job finishes by T iff x_m >= rem_m / T with x_m <= 1 and
 * sum x <= 2: T >= (100 + 300 + 200) / 2 = 300 and T >= 300 / 1, so
 * T* = 300, and then x = (1/3, 1, 2/3), which fills both GPUs: the only
 * allocation, with or without the second stage.
 */
Test(gavel_objectives, min_total_duration_one_type)
{
	double rate[] = { 1, 1, 1 }, rem[] = { 100, 300, 200 }, x[3], z;
	uint64_t cap[] = { 2 };
	for (int st = 0; st < 2; st++) {
		go_solve(GAVEL_MIN_TOTAL_DURATION, 3, 1, rate, cap, rem, NULL,
			 NULL, st, x, &z, NULL);
		cr_expect(fabs(z - 300) < 1e-3, "T %.9f", z);
		cr_expect(fabs(x[0] - 1.0 / 3) < 2e-6, "x_A %.9f", x[0]);
		cr_expect(fabs(x[1] - 1) < 2e-6, "x_B %.9f", x[1]);
		cr_expect(fabs(x[2] - 2.0 / 3) < 2e-6, "x_C %.9f", x[2]);
	}
}

/*
 * min_total_duration on a V100 and a K80 (one GPU each), two jobs of 100
 * s left that run at half speed on the K80.  The most work per second
 * the cluster gives is 1 + 1/2, shared equally (both need 100): 0.75
 * each, T* = 100 / 0.75 = 133.33 s.  Both types busy, each job busy all
 * the time: x_V = a, x_K = 1 - a for A and the rest for B, and
 * a + (1 - a) / 2 = 0.75 gives a = 1/2: every X is 1/2.
 */
Test(gavel_objectives, min_total_duration_two_types)
{
	double rate[] = { 1, 0.5, 1, 0.5 }, rem[] = { 100, 100 }, x[4], z;
	uint64_t cap[] = { 1, 1 };
	go_solve(GAVEL_MIN_TOTAL_DURATION, 2, 2, rate, cap, rem, NULL, NULL,
		 true, x, &z, NULL);
	cr_expect(fabs(z - 400.0 / 3) < 1e-3, "T %.9f", z);
	for (int i = 0; i < 4; i++)
		cr_expect(fabs(x[i] - 0.5) < 2e-6, "x[%d] %.9f", i, x[i]);
}

/*
 * finish_time_fairness, one GPU, two jobs at rate 1: the equal share is
 * 1/2 each (1 GPU / 2 jobs), so the isolated time of d seconds of work
 * is 2d.  A: 10 s left, 10 s since its submit, no isolated time yet:
 * rho_A = (10 + 10 / y_A) / 20 = 1/2 + 1 / (2 y_A).  B: 30 s left, just
 * submitted: rho_B = (30 / y_B) / 60 = 1 / (2 y_B).  With y_A + y_B = 1
 * the largest is smallest where they meet:
 *   1/2 + 1 / (2 y) = 1 / (2 (1 - y))  ->  y^2 + y - 1 = 0,
 *   y_A = (sqrt 5 - 1) / 2 = 0.618034, y_B = 0.381966,
 *   R = 1 / (2 y_B) = 1.309017 (= phi^2 / 2).
 * Both just submitted instead (elapsed 0): y = 1/2 each and R = 1, the
 * equal share; the share out is 1/2 for each.
 */
Test(gavel_objectives, finish_time_fairness_one_gpu)
{
	double rate[] = { 1, 1 }, rem[] = { 10, 30 }, ela[] = { 10, 0 };
	double iso[] = { 0, 0 }, x[2], z, share[2];
	uint64_t cap[] = { 1 };
	double y = (sqrt(5) - 1) / 2;
	go_solve(GAVEL_FINISH_TIME_FAIRNESS, 2, 1, rate, cap, rem, ela, iso,
		 true, x, &z, share);
	cr_expect(fabs(z - 1 / (2 * (1 - y))) < 1e-5, "R %.9f", z);
	cr_expect(fabs(x[0] - y) < 1e-5, "x_A %.9f", x[0]);
	cr_expect(fabs(x[1] - (1 - y)) < 1e-5, "x_B %.9f", x[1]);
	cr_expect(share[0] == 0.5 && share[1] == 0.5, "%g %g", share[0],
		  share[1]);
	ela[0] = 0;
	go_solve(GAVEL_FINISH_TIME_FAIRNESS, 2, 1, rate, cap, rem, ela, iso,
		 true, x, &z, NULL);
	cr_expect(fabs(z - 1) < 1e-5, "R %.9f", z);
	cr_expect(fabs(x[0] - 0.5) < 1e-5 && fabs(x[1] - 0.5) < 1e-5,
		  "x %.9f %.9f", x[0], x[1]);
}

/*
 * finish_time_fairness counts the isolated time already done: A has 10
 * s left and already 20 s of isolated time, 30 s since its submit; B as
 * above.  rho_A = (30 + 10 / y_A) / (20 + 20) = 3/4 + 1 / (4 y_A),
 * rho_B = 1 / (2 y_B).  Equal where 3/4 + 1 / (4 y) = 1 / (2 (1 - y)),
 * times 4y (1 - y): 3y (1 - y) + (1 - y) = 2y, so 3y^2 = 1 and
 * y_A = 1 / sqrt 3 = 0.57735,
 * R = 1 / (2 (1 - 0.57735)) = 1.183013.
 */
Test(gavel_objectives, finish_time_fairness_counts_isolated_time)
{
	double rate[] = { 1, 1 }, rem[] = { 10, 30 }, ela[] = { 30, 0 };
	double iso[] = { 20, 0 }, x[2], z;
	uint64_t cap[] = { 1 };
	double y = 1 / sqrt(3);
	go_solve(GAVEL_FINISH_TIME_FAIRNESS, 2, 1, rate, cap, rem, ela, iso,
		 false, x, &z, NULL);
	cr_expect(fabs(z - 1 / (2 * (1 - y))) < 1e-5, "R %.9f", z);
	cr_expect(fabs(x[0] - y) < 1e-5, "x_A %.9f", x[0]);
}

/* End of job id, seconds. */
static double go_end(const struct sim *s, int64_t id)
{
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	for (size_t i = 0; i < n; i++)
		if (j[i].id == id)
			return (double)j[i].end / SIM_SEC;
	cr_assert_fail("no job %lld", (long long)id);
	return -1;
}

static struct sim *run_objective(const char *obj, const struct workload *w,
				 const struct cluster_spec *c)
{
	struct param_value pv = {
		.key = xstrdup("objective"),
		.json_path = xstrdup("$.objective"),
		.type = PV_STRING, .str = xstrdup(obj),
	};
	struct sim *s = tl_run_with(&clustersim_policy_gavel, &pv, 1, w, c);
	free(pv.key);
	free(pv.json_path);
	free(pv.str);
	return s;
}

/*
 * One V100; A (100 s of work) and B (300 s), both at 0, 360 s rounds.
 * max_min_fairness: X = 1/2 each; round 0 has a tie (no one has run),
 * broken by id: A runs 0-100, B 100-400.  min_total_duration: T* = 400
 * with X_A = 1/4, X_B = 3/4; round 0 takes B first (priority 0.75 /
 * 1e-9 against 0.25 / 1e-9): B runs 0-300, then A 300-400.
 * finish_time_fairness: rho_A = 0.5 / y_A, rho_B = 0.5 / y_B (isolated
 * times 200 and 600 s), X = 1/2 each: as max-min, A first.
 */
Test(gavel_objectives, the_policy_takes_the_objective)
{
	struct tjob t[] = { { 1, 0, 100, -1, 0 }, { 2, 0, 300, -1, 0 } };
	uint32_t gpus[] = { 1, 1 };
	struct workload w;
	struct cluster_spec c;
	tl_r50_jobs(&w, t, 2, gpus);
	tl_gpu_cluster(&c, 1, 1, "v100", 0);
	static const struct {
		const char *obj;
		double a, b;
	} want[] = {
		{ "max_min_fairness", 100, 400 },
		{ "min_total_duration", 400, 300 },
		{ "finish_time_fairness", 100, 400 },
	};
	for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
		struct sim *s = run_objective(want[k].obj, &w, &c);
		cr_expect(fabs(go_end(s, 1) - want[k].a) < 1e-6,
			  "%s: A ends %.6f", want[k].obj, go_end(s, 1));
		cr_expect(fabs(go_end(s, 2) - want[k].b) < 1e-6,
			  "%s: B ends %.6f", want[k].obj, go_end(s, 2));
		cr_expect_eq(sim_counters(s)->bad_calls, 0);
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

/* A name that is not an objective is refused, naming it. */
Test(gavel_objectives, unknown_objective_is_refused)
{
	struct tjob t[] = { { 1, 0, 10, -1, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 1);
	tl_cluster(&c, 1, 1);
	struct param_value pv = {
		.key = (char *)"objective", .json_path = (char *)"$.objective",
		.type = PV_STRING, .str = (char *)"max_sum_throughput",
	};
	struct pval *params;
	size_t np;
	struct sim_error err;
	cr_assert_eq(policy_params_resolve(&clustersim_policy_gavel, &pv, 1,
					   "", &params, &np, &err), 0, "%s",
		     err.msg);
	struct sim_config cfg = {
		.workload = &w, .cluster = &c,
		.policy = &clustersim_policy_gavel, .params = params,
		.nparams = np, .seed = 1,
	};
	struct sim *s = sim_new(&cfg);
	cr_expect_eq(sim_run(s, &err), -SIM_EINPUT);
	cr_expect(strstr(err.msg, "objective must be") &&
		  strstr(err.msg, "'max_sum_throughput'"), "%s", err.msg);
	sim_free(s);
	free(params);
	workload_release(&w);
	cluster_spec_release(&c);
}
