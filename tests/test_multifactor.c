/*
 * Slurm's multifactor priority and backfill limits (policies/multifactor.c,
 * include/clustersim/multifactor.h, docs/tenants.md "Partitions and
 * QOS"): each factor and the decay of usage worked by hand; the policy's
 * order, partitions, QOS limit and each backfill limit on small cases
 * whose schedule is worked out in the comments; the experiment file's
 * errors through the command line.
 *
 * Jobs run at reference speed: a job of run R ends R s after it starts.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "clustersim/multifactor.h"
#include "policy/registry.h"
#include "testlib.h"

/* ---- the factors ------------------------------------------------------ */

Test(multifactor, age_factor_is_whole_seconds_over_max_age_capped_at_1)
{
	/* 250 s of 1000: 0.25; past the cap: 1; none: 0. */
	cr_expect_float_eq(mf_age_factor(250, 1000), 0.25, 1e-15);
	cr_expect_float_eq(mf_age_factor(1500, 1000), 1.0, 1e-15);
	cr_expect_float_eq(mf_age_factor(0, 1000), 0.0, 1e-15);
}

Test(multifactor, size_factor_favours_large_or_small_jobs)
{
	/* 4 nodes x 8 CPUs; a job of 1 node and 8 CPUs.  Large: (1/4 +
	 * 8/32) / 2 = 0.25.  Small: ((4 - 1)/4 + (32 - 8)/32) / 2 = 0.75. */
	cr_expect_float_eq(mf_size_factor(1, 8, 4, 32, false), 0.25, 1e-15);
	cr_expect_float_eq(mf_size_factor(1, 8, 4, 32, true), 0.75, 1e-15);
	/* The whole cluster: 1 when large is favoured, 0 when small. */
	cr_expect_float_eq(mf_size_factor(4, 32, 4, 32, false), 1.0, 1e-15);
	cr_expect_float_eq(mf_size_factor(4, 32, 4, 32, true), 0.0, 1e-15);
}

Test(multifactor, partition_and_qos_factors_are_over_the_largest)
{
	/* PriorityJobFactor 5 of a largest 20: 0.25. */
	cr_expect_float_eq(mf_norm(5, 20), 0.25, 1e-15);
	cr_expect_float_eq(mf_norm(3, 0), 0.0, 1e-15);
}

Test(multifactor, classic_fairshare_is_two_to_minus_usage_over_shares)
{
	/* Half the usage on a quarter of the shares: 2^-2 = 0.25; no
	 * usage: 1; no shares: 0. */
	cr_expect_float_eq(mf_fairshare(0.5, 0.25), 0.25, 1e-15);
	cr_expect_float_eq(mf_fairshare(0, 0.25), 1.0, 1e-15);
	cr_expect_float_eq(mf_fairshare(0.5, 0), 0.0, 1e-15);
}

Test(multifactor, usage_decays_to_a_quarter_over_two_half_lives)
{
	/* 100 units of usage, nothing running, two half-lives of 100 s:
	 * 100 / 4 = 25; the same in two steps of one half-life. */
	cr_expect_float_eq(mf_decay(100, 0, 200, 100), 25.0, 1e-12);
	cr_expect_float_eq(mf_decay(mf_decay(100, 0, 100, 100), 0, 100, 100),
			   25.0, 1e-12);
	/* A rate of 1 unit for 200 s: the closed form against a sum of
	 * 200,000 slices of 1 ms, each decayed for the time after it. */
	double sum = 0;
	for (int i = 0; i < 200000; i++)
		sum += 0.001 * exp2(-(200.0 - (i + 0.5) * 0.001) / 100);
	cr_expect_float_eq(mf_decay(0, 1, 200, 100), sum, 1e-6);
	/* No half-life: no decay. */
	cr_expect_float_eq(mf_decay(10, 2, 5, 0), 20.0, 1e-12);
}

Test(multifactor, the_priority_is_truncated_and_at_least_one)
{
	/* 1000 x 1/3 + 1000 x 0.25 = 583.33: 583.  All factors 0: 1. */
	struct mf_weights w = { 1000, 1000, 0, 0, 0 };
	struct mf_factors f = { 1.0 / 3, 0.25, 0, 0, 0 };
	cr_expect_eq(mf_priority(&w, &f), 583u);
	struct mf_factors z = { 0, 0, 0, 0, 0 };
	cr_expect_eq(mf_priority(&w, &z), 1u);
}

/* ---- the trace's queue and partition fields ---------------------------- */

Test(multifactor, swf_queue_and_partition_fields_follow_their_jobs)
{
	/* Three jobs out of submit order, with a window that drops the
	 * first by submit (job 9 at 1) and a load scale: each kept job's
	 * (queue, partition) must stay its own after the sort, the window
	 * and the resort: job 7 (submit 5) (1, 3), job 8 (submit 3) (2, 4),
	 * so idx 0 = job 8, idx 1 = job 7. */
	char path[] = "/tmp/clustersim-qp-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("7 5 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 3 -1 -1\n"
	      "8 3 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 2 4 -1 -1\n"
	      "9 1 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 5 6 -1 -1\n", f);
	fclose(f);
	struct trace_opts o;
	trace_opts_default(&o);
	o.keep_qp = true;
	o.window_start = 2 * SIM_SEC;
	o.load_scale = 2;
	struct workload w;
	struct sim_error err;
	cr_assert_eq(trace_load_swf(path, &o, &w, &err), 0, "%s", err.msg);
	unlink(path);
	cr_assert_eq(w.n, 2u);
	cr_assert(w.qp);
	cr_expect_eq(w.jobs[0].id, 8);
	cr_expect(w.qp[0] == 2 && w.qp[1] == 4, "%d %d", w.qp[0], w.qp[1]);
	cr_expect_eq(w.jobs[1].id, 7);
	cr_expect(w.qp[2] == 1 && w.qp[3] == 3, "%d %d", w.qp[2], w.qp[3]);
	workload_release(&w);
	/* Without keep_qp nothing is kept. */
	cr_assert_eq(trace_load_swf("traces/sample.swf", NULL,
				    &w, &err), 0, "%s", err.msg);
	cr_expect_null(w.qp);
	workload_release(&w);
}

/* ---- the policy on small cases ---------------------------------------- */

struct mt {
	struct workload w;
	struct cluster_spec c;
	struct sim *s;
};

/* One node of `cpus` CPUs, the jobs of a table. */
static void mt_setup(struct mt *m, uint32_t cpus, const struct tjob *t,
		     size_t n)
{
	memset(m, 0, sizeof(*m));
	tl_cluster(&m->c, 1, cpus);
	tl_workload(&m->w, t, n);
}

/* Runs multifactor with numeric parameters "key=value" and bf_reserve. */
static void mt_run(struct mt *m, const char *const *keys, const double *vals,
		   size_t n, const char *reserve)
{
	struct param_value pv[16];
	size_t k = 0;
	for (size_t i = 0; i < n; i++, k++)
		pv[k] = (struct param_value){ .key = (char *)keys[i],
			.json_path = (char *)"$.p", .type = PV_NUMBER,
			.num = vals[i] };
	if (reserve)
		pv[k++] = (struct param_value){ .key = (char *)"bf_reserve",
			.json_path = (char *)"$.p", .type = PV_STRING,
			.str = (char *)reserve };
	struct sim_config base = { .workload = &m->w, .cluster = &m->c };
	m->s = tl_run_cfg("multifactor", pv, k, &base);
}

static void mt_free(struct mt *m)
{
	sim_free(m->s);
	workload_release(&m->w);
	cluster_spec_release(&m->c);
}

Test(multifactor, all_weights_zero_is_fcfs_with_backfill)
{
	/* 4 CPUs.  A (4 CPUs, 0-100).  B (4 CPUs, t=1) waits for A.  C (2
	 * CPUs, t=2) is behind B: FCFS order, so C starts with nobody's
	 * priority above B's, at 200 after B (100-200): C cannot end before
	 * B's reservation at 100 (est 150). */
	static const struct tjob t[] = {
		{ 1, 0, 100, 100, 4 }, { 2, 1, 100, 100, 4 },
		{ 3, 2, 150, 150, 2 },
	};
	struct mt m;
	mt_setup(&m, 4, t, 3);
	mt_run(&m, NULL, NULL, 0, NULL);
	cr_expect_float_eq(tl_start(m.s, 2), 100, 1e-9);
	cr_expect_float_eq(tl_start(m.s, 3), 200, 1e-9);
	mt_free(&m);
}

Test(multifactor, size_weight_orders_the_large_job_first)
{
	/* 8 CPUs.  A (8 CPUs, 0-100).  B (2 CPUs, t=1) and C (6 CPUs, t=2)
	 * wait.  At 100, weight_size 1000, max_age large: B's priority is
	 * 1000 (1/1 + 2/8)/2 = 625, C's 1000 (1 + 6/8)/2 = 875 (age adds at
	 * most 1000 x 99/1e6 < 1): C first, then B fits beside it: both at
	 * 100.  Then with favor_small and a 7-CPU C, C's 1000 (0 + 1/8)/2 =
	 * 62 is below B's 1000 (0 + 6/8)/2 = 375: B starts at 100, C (7) no
	 * longer fits beside it and starts when B ends at 150. */
	static const struct tjob t[] = {
		{ 1, 0, 100, 100, 8 }, { 2, 1, 50, 50, 2 },
		{ 3, 2, 100, 100, 6 },
	};
	static const char *const k[] = { "weight_size", "max_age_s" };
	static const double v[] = { 1000, 1e6 };
	struct mt m;
	mt_setup(&m, 8, t, 3);
	mt_run(&m, k, v, 2, NULL);
	cr_expect_float_eq(tl_start(m.s, 3), 100, 1e-9);
	cr_expect_float_eq(tl_start(m.s, 2), 100, 1e-9);
	mt_free(&m);

	static const struct tjob t2[] = {
		{ 1, 0, 100, 100, 8 }, { 2, 1, 50, 50, 2 },
		{ 3, 2, 100, 100, 7 },
	};
	static const char *const k2[] = { "weight_size", "max_age_s",
					  "favor_small" };
	static const double v2[] = { 1000, 1e6, 1 };
	struct param_value pv[3];
	for (int i = 0; i < 2; i++)
		pv[i] = (struct param_value){ .key = (char *)k2[i],
			.json_path = (char *)"$.p", .type = PV_NUMBER,
			.num = v2[i] };
	pv[2] = (struct param_value){ .key = (char *)"favor_small",
		.json_path = (char *)"$.p", .type = PV_BOOL, .b = true };
	mt_setup(&m, 8, t2, 3);
	struct sim_config base = { .workload = &m.w, .cluster = &m.c };
	m.s = tl_run_cfg("multifactor", pv, 3, &base);
	cr_expect_float_eq(tl_start(m.s, 2), 100, 1e-9);
	cr_expect_float_eq(tl_start(m.s, 3), 150, 1e-9);
	mt_free(&m);
}

Test(multifactor, fairshare_puts_the_light_user_first)
{
	/* 4 CPUs.  User 1's A (4 CPUs, 0-100) leaves user 1 all the usage.
	 * At 100 user 1's B (t=1) and user 2's C (t=2) wait, 4 CPUs each.
	 * Shares 1/2 each; usage: user 1 all, so B's fair-share factor is
	 * 2^(-1/0.5) = 0.25 and C's 2^0 = 1: with weight_fairshare 1000, C
	 * (1000) goes before B (250) although B is older. */
	static const struct tjob t[] = {
		{ 1, 0, 100, 100, 4 }, { 2, 1, 100, 100, 4 },
		{ 3, 2, 100, 100, 4 },
	};
	static const char *const k[] = { "weight_fairshare" };
	static const double v[] = { 1000 };
	struct mt m;
	mt_setup(&m, 4, t, 3);
	m.w.jobs[0].user = 1;
	m.w.jobs[1].user = 1;
	m.w.jobs[2].user = 2;
	mt_run(&m, k, v, 1, NULL);
	cr_expect_float_eq(tl_start(m.s, 3), 100, 1e-9);
	cr_expect_float_eq(tl_start(m.s, 2), 200, 1e-9);
	mt_free(&m);
}

Test(multifactor, a_qos_usage_factor_of_0_charges_no_usage)
{
	/* The case above with every job in a QOS of usage_factor 0: job A
	 * charges user 1 nothing, both fair-share factors are 2^0 = 1, and
	 * B (older) goes first at 100, C at 200. */
	static const struct tjob t[] = {
		{ 1, 0, 100, 100, 4 }, { 2, 1, 100, 100, 4 },
		{ 3, 2, 100, 100, 4 },
	};
	static const char *const k[] = { "weight_fairshare" };
	static const double v[] = { 1000 };
	struct mt m;
	mt_setup(&m, 4, t, 3);
	m.w.jobs[0].user = 1;
	m.w.jobs[1].user = 1;
	m.w.jobs[2].user = 2;
	m.c.qos = xcalloc(1, sizeof(*m.c.qos));
	m.c.qos[0] = (struct qos_spec){
		.name = xstrdup("free"), .trace_id = -1, .usage_factor = 0,
		.max_jobs_per_user = QOS_NO_LIMIT,
		.max_jobs_per_group = QOS_NO_LIMIT,
		.max_units_per_user = QOS_NO_LIMIT,
	};
	m.c.nqos = 1;
	m.c.qos_from = SLURM_FROM_NONE;
	mt_run(&m, k, v, 1, NULL);
	cr_expect_float_eq(tl_start(m.s, 2), 100, 1e-9);
	cr_expect_float_eq(tl_start(m.s, 3), 200, 1e-9);
	mt_free(&m);
}

Test(multifactor, a_qos_preempts_the_qos_it_names_and_requeues_them)
{
	/* 4 CPUs.  A (QOS low, user 1, 4 CPUs, 0-100) runs; B (QOS high,
	 * user 2, 4 CPUs, 50 s) comes at 10.  high may preempt low: A is
	 * requeued at 10 (a checkpoint at the preemption: nothing lost), B
	 * runs 10-60, A starts again at 60 with 90 s of work left and ends
	 * at 150.  Without the preempt list A runs to 100 and B waits for
	 * it: 100-150. */
	static const struct tjob t[] = {
		{ 1, 0, 100, 100, 4 }, { 2, 10, 50, 50, 4 },
	};
	for (int pre = 1; pre >= 0; pre--) {
		struct mt m;
		mt_setup(&m, 4, t, 2);
		m.w.jobs[0].user = 1;
		m.w.jobs[1].user = 2;
		m.c.qos = xcalloc(2, sizeof(*m.c.qos));
		for (int q = 0; q < 2; q++)
			m.c.qos[q] = (struct qos_spec){
				.name = xstrdup(q ? "high" : "low"),
				.trace_id = q + 1, .usage_factor = 1,
				.max_jobs_per_user = QOS_NO_LIMIT,
				.max_jobs_per_group = QOS_NO_LIMIT,
				.max_units_per_user = QOS_NO_LIMIT,
				.preempt = q && pre ? 1 : 0,
			};
		m.c.nqos = 2;
		m.c.qos_from = SLURM_FROM_USER;
		mt_run(&m, NULL, NULL, 0, NULL);
		size_t n;
		const struct job *j = sim_jobs(m.s, &n);
		cr_expect_float_eq(tl_start(m.s, 2), pre ? 10 : 100, 1e-9);
		cr_expect_float_eq((double)j[0].end / SIM_SEC, pre ? 150 : 100,
				   1e-9);
		cr_expect_eq(j[0].preemptions, pre ? 1u : 0u);
		mt_free(&m);
	}
}

Test(multifactor, max_units_per_user_holds_a_job_past_the_users_units)
{
	/* 8 CPUs; QOS by user: user 1's "capped" (max_units_per_user 4),
	 * user 2's "free".  A (user 1, 3 CPUs, 0-100) runs.  B (user 1, 2
	 * CPUs, t=1, 50 s): 3 + 2 = 5 > 4, held although 5 CPUs are free.
	 * C (user 2, 2 CPUs, t=2, 10 s) is not blocked by the held B: 2-12.
	 * D (user 1, 1 CPU, t=3, 50 s): 3 + 1 = 4 <= 4, starts at 3 (3-53).
	 * At 53 D ends: user 1 holds 3, B still 5 > 4.  At 100 A ends: B
	 * (2 <= 4) starts at 100.  With the limit lifted B starts at 1. */
	static const struct tjob t[] = {
		{ 1, 0, 100, 100, 3 }, { 2, 1, 50, 50, 2 },
		{ 3, 2, 10, 10, 2 }, { 4, 3, 50, 50, 1 },
	};
	static const int user[] = { 1, 1, 2, 1 };
	for (int lim = 1; lim >= 0; lim--) {
		struct mt m;
		mt_setup(&m, 8, t, 4);
		for (int i = 0; i < 4; i++)
			m.w.jobs[i].user = user[i];
		m.c.qos = xcalloc(2, sizeof(*m.c.qos));
		for (int q = 0; q < 2; q++)
			m.c.qos[q] = (struct qos_spec){
				.name = xstrdup(q ? "free" : "capped"),
				.trace_id = q + 1, .usage_factor = 1,
				.max_jobs_per_user = QOS_NO_LIMIT,
				.max_jobs_per_group = QOS_NO_LIMIT,
				.max_units_per_user = !q && lim ? 4
							       : QOS_NO_LIMIT,
			};
		m.c.nqos = 2;
		m.c.qos_from = SLURM_FROM_USER;
		mt_run(&m, NULL, NULL, 0, NULL);
		cr_expect_float_eq(tl_start(m.s, 2), lim ? 100 : 1, 1e-9);
		cr_expect_float_eq(tl_start(m.s, 3), 2, 1e-9);
		cr_expect_float_eq(tl_start(m.s, 4), 3, 1e-9);
		mt_free(&m);
	}
}

/* The backfill cases: 4 CPUs; A (2 CPUs, 0-100); B (4 CPUs, t=1, run
 * 100) is blocked and reserved at 100; C (2 CPUs, t=2) is a candidate. */
static void bf_case(struct mt *m, double c_run, const char *const *k,
		    const double *v, size_t n, int c_user)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 2 }, { 2, 1, 100, 100, 4 },
		{ 3, 2, c_run, c_run, 2 },
	};
	mt_setup(m, 4, t, 3);
	m->w.jobs[1].user = 1;
	m->w.jobs[2].user = c_user;
	mt_run(m, k, v, n, NULL);
}

Test(multifactor, bf_max_job_test_stops_the_pass)
{
	/* C (est 50) ends by B's reservation at 100: backfilled at 2.  With
	 * bf_max_job_test 1 the pass tests B alone: C waits for B (100-200)
	 * and starts at 200. */
	struct mt m;
	bf_case(&m, 50, NULL, NULL, 0, 2);
	cr_expect_float_eq(tl_start(m.s, 3), 2, 1e-9);
	mt_free(&m);
	static const char *const k[] = { "bf_max_job_test" };
	static const double v[] = { 1 };
	bf_case(&m, 50, k, v, 1, 2);
	cr_expect_float_eq(tl_start(m.s, 3), 200, 1e-9);
	mt_free(&m);
}

Test(multifactor, bf_max_job_user_skips_a_users_later_jobs)
{
	/* bf_max_job_user 1: C of B's user is not tested (starts at 200);
	 * C of another user is (backfilled at 2). */
	static const char *const k[] = { "bf_max_job_user" };
	static const double v[] = { 1 };
	struct mt m;
	bf_case(&m, 50, k, v, 1, 1);
	cr_expect_float_eq(tl_start(m.s, 3), 200, 1e-9);
	mt_free(&m);
	bf_case(&m, 50, k, v, 1, 2);
	cr_expect_float_eq(tl_start(m.s, 3), 2, 1e-9);
	mt_free(&m);
}

Test(multifactor, bf_window_bounds_the_reservations)
{
	/* C (est 200) would run past B's reservation at 100: it waits, and
	 * starts at 200 after B.  With bf_window_s 50 B's start (99 s away)
	 * is beyond the window: no reservation, so C starts at 2 and B
	 * waits until both A (100) and C (202) are done: 202. */
	struct mt m;
	bf_case(&m, 200, NULL, NULL, 0, 2);
	cr_expect_float_eq(tl_start(m.s, 3), 200, 1e-9);
	mt_free(&m);
	static const char *const k[] = { "bf_window_s", "bf_resolution_s" };
	static const double v[] = { 50, 1 };
	bf_case(&m, 200, k, v, 2, 2);
	cr_expect_float_eq(tl_start(m.s, 3), 2, 1e-9);
	cr_expect_float_eq(tl_start(m.s, 2), 202, 1e-9);
	mt_free(&m);
}

Test(multifactor, bf_resolution_rounds_the_profile)
{
	/* C est 100 from t=2 ends at 102, past B's reservation at 100 with
	 * resolution 1 s: it waits for B, starting at 200.  With 60 s, A's
	 * end rounds to 2 + 120 = 122 and so does B's reservation, and C's
	 * 100 s to 120: C ends by 122 and starts at 2; B then starts when
	 * C ends, at 102. */
	static const char *const k[] = { "bf_resolution_s" };
	static const double one[] = { 1 }, sixty[] = { 60 };
	struct mt m;
	bf_case(&m, 100, k, one, 1, 2);
	cr_expect_float_eq(tl_start(m.s, 3), 200, 1e-9);
	mt_free(&m);
	bf_case(&m, 100, k, sixty, 1, 2);
	cr_expect_float_eq(tl_start(m.s, 3), 2, 1e-9);
	cr_expect_float_eq(tl_start(m.s, 2), 102, 1e-9);
	mt_free(&m);
}

Test(multifactor, bf_reserve_all_protects_every_waiting_job)
{
	/* 8 CPUs.  A (6 CPUs, 0-100); B (4, t=1, 100 s), D (8, t=2, 100 s),
	 * E (2, t=3, 250 s).  easy: only B is reserved ([100, 200)), so E
	 * fits now beside it (2 free until 100, 4 in [100, 200)): E at 3, B
	 * at 100, D once E ends at 253.  all: D is reserved too, at
	 * [200, 300), which E would overlap: E waits; B 100, D 200, E 300. */
	static const struct tjob t[] = {
		{ 1, 0, 100, 100, 6 }, { 2, 1, 100, 100, 4 },
		{ 3, 2, 100, 100, 8 }, { 4, 3, 250, 250, 2 },
	};
	static const char *const k[] = { "bf_resolution_s" };
	static const double v[] = { 1 };
	struct mt m;
	mt_setup(&m, 8, t, 4);
	mt_run(&m, k, v, 1, "easy");
	cr_expect_float_eq(tl_start(m.s, 4), 3, 1e-9);
	cr_expect_float_eq(tl_start(m.s, 2), 100, 1e-9);
	cr_expect_float_eq(tl_start(m.s, 3), 253, 1e-9);
	mt_free(&m);
	mt_setup(&m, 8, t, 4);
	mt_run(&m, k, v, 1, "all");
	cr_expect_float_eq(tl_start(m.s, 2), 100, 1e-9);
	cr_expect_float_eq(tl_start(m.s, 3), 200, 1e-9);
	cr_expect_float_eq(tl_start(m.s, 4), 300, 1e-9);
	mt_free(&m);
}

/* ---- partitions and QOS, through the command line --------------------- */

static char tmp[256], bin[512];

static void cli_setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "multifactor");
	tl_cli_need_bin(bin);
}

static void cli_teardown(void)
{
	tl_rmtree(tmp);
}

/* Fields: id submit wait run alloc cpu mem req_procs req_time mem status
 * user group exe queue partition prev think.  Jobs 1-2 in partition 1
 * (batch), 3-5 in partition 2 (debug); job 5 asks 1000 s, above debug's
 * 500; job 6 has no partition (-1); job 7 asks 6 CPUs of debug's 4. */
static const char swf[] =
	"; MaxProcs: 8\n"
	"1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 1 -1 -1\n"
	"2 1 -1 50 4 -1 -1 4 50 -1 1 2 1 -1 1 1 -1 -1\n"
	"3 2 -1 10 2 -1 -1 2 10 -1 1 3 1 -1 2 2 -1 -1\n"
	"4 3 -1 10 2 -1 -1 2 10 -1 1 3 1 -1 2 2 -1 -1\n"
	"5 4 -1 10 2 -1 -1 2 1000 -1 1 3 1 -1 2 2 -1 -1\n"
	"6 5 -1 10 1 -1 -1 1 10 -1 1 4 1 -1 -1 -1 -1 -1\n"
	"7 6 -1 10 6 -1 -1 6 10 -1 1 5 1 -1 2 2 -1 -1\n";

/* Two groups of one 4-CPU node; partitions as given; the root's qos. */
static void exp_with(const char *name, const char *parts, const char *qos,
		     const char *from)
{
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"name\": \"a\", \"count\": 1, "
		"\"cpus\": 4 }, { \"name\": \"b\", \"count\": 1, \"cpus\": 4 } ],"
		"\n \"partitions\": %s },\n %s%s%s"
		"  \"workload\": { \"trace\": \"t.swf\" %s },\n"
		"  \"policies\": [ \"multifactor\" ], \"output\": \"out\" }\n",
		parts, qos ? "\"qos\": " : "", qos ? qos : "", qos ? ",\n" : "",
		from ? from : "");
	tl_put(tmp, name, text);
	free(text);
}

static const char two_parts[] =
	"[ { \"name\": \"batch\", \"nodes\": [\"a\"], \"trace_id\": 1, "
	"\"default\": true },\n"
	"  { \"name\": \"debug\", \"nodes\": [\"b\"], \"trace_id\": 2, "
	"\"max_time_s\": 500 } ]";

static void expect_exit(const char *file, int code, const char *needle)
{
	int rc = tl_sh(tmp, "'%s' run %s -q", bin, file);
	char *err = tl_slurp(tmp, "err.txt");
	cr_expect_eq(rc, code, "%s: exit %d, want %d: %s", file, rc, code,
		     err);
	cr_expect(err && strstr(err, needle), "%s: lacks '%s': %s", file,
		  needle, err);
	free(err);
}

TestSuite(multifactor_cli, .init = cli_setup, .fini = cli_teardown);

/* The row of job id in jobs.csv (its first columns: id, submit, start). */
static bool has_row(const char *csv, const char *row)
{
	char *want = xasprintf("\n%s", row);
	bool ok = csv && strstr(csv, want);
	free(want);
	return ok;
}

Test(multifactor_cli, jobs_run_on_their_partition_within_its_time_limit)
{
	/* batch (node a, 4 CPUs): job 1 0-100, job 2 waits for it although
	 * node b has room: starts at 100.  debug (node b): job 3 2-12, job 4
	 * beside it at 3.  Job 5 asks 1000 s > 500: refused at submit.  Job
	 * 6 (no partition) goes to the default, batch, which jobs 1 and 2
	 * fill until 150: it starts at 150, with node b idle. */
	tl_put(tmp, "t.swf", swf);
	exp_with("p.json", two_parts, NULL, NULL);
	cr_assert_eq(tl_sh(tmp, "'%s' run p.json -q", bin), 0);
	char *csv = tl_slurp(tmp, "out/multifactor-s1/jobs.csv");
	cr_expect(has_row(csv, "2,1,100,"), "%s", csv);
	cr_expect(has_row(csv, "3,2,2,"), "%s", csv);
	cr_expect(has_row(csv, "4,3,3,"), "%s", csv);
	cr_expect(has_row(csv, "5,4,,"), "%s", csv);
	cr_expect(strstr(csv ? csv : "", "\n5,4,,,,,,,,2,1000,3,1,rejected"),
		  "%s", csv);
	cr_expect(has_row(csv, "6,5,150,"), "%s", csv);
	cr_expect(strstr(csv ? csv : "", "\n7,6,,,,,,,,6,10,5,1,rejected"),
		  "%s", csv);
	/* partitions.csv: batch's jobs 1, 2, 6 waited 0, 99 and 145 s: mean
	 * 81.33, over the run's span 0-160 (job 6 ends at 160): 244 / 160 =
	 * 1.525 waiting on average, 2 at most (jobs 2 and 6 in 5-100).
	 * debug: jobs 3, 4 waited 0, 0 (jobs 5 and 7 refused, one for its
	 * time): 0, 0, 0. */
	char *parts = tl_slurp(tmp, "out/multifactor-s1/partitions.csv");
	cr_expect(parts && !strcmp(parts, "partition,units,max_time_s,"
		  "priority_tier,priority_job_factor,jobs,rejected_max_time,"
		  "wait_mean_s,queue_mean,queue_max\n"
		  "batch,4,0,0,1,3,0,81.333333,1.525,2\n"
		  "debug,4,500,0,1,4,1,0,0,0\n"), "%s", parts);
	free(parts);
	char *err = tl_slurp(tmp, "err.txt");
	cr_expect(err && strstr(err, "1 jobs ask more time than their "
				"partition's max_time_s"), "%s", err);
	cr_expect(err && strstr(err, "1 jobs can never fit on the cluster "
				"(or their partition)"), "%s", err);
	free(err);
	free(csv);
}

Test(multifactor_cli, a_qos_limit_holds_a_users_second_job)
{
	/* One partition of both nodes (8 CPUs); QOS by the queue field
	 * (jobs 1-2 queue 1 = "capped", max 1 job per user; jobs 3-5 queue
	 * 2 = "normal", job 6 no queue: the default, "normal").  Jobs 1 and
	 * 2 (users 1, 2, 4 CPUs each) fill the 8 CPUs at 0 and 1; job 2 ends
	 * at 51.  Then user 3's job 3 starts (2 CPUs) and so does user 4's
	 * job 6, but user 3's job 4 is held by max_jobs_per_user 1 although
	 * 4 CPUs are free: it starts when job 3 ends, at 61, and job 5 at
	 * 71. */
	tl_put(tmp, "t.swf", swf);
	exp_with("q.json", "[ { \"name\": \"all\", \"nodes\": [\"a\", \"b\"], "
		 "\"default\": true } ]",
		 "[ { \"name\": \"normal\", \"default\": true, "
		 "\"trace_id\": 2, \"max_jobs_per_user\": 1 },"
		 " { \"name\": \"capped\", \"trace_id\": 1, "
		 "\"max_jobs_per_user\": 1 } ]",
		 ", \"partition_from\": \"none\", \"qos_from\": \"queue\"");
	cr_assert_eq(tl_sh(tmp, "'%s' run q.json -q", bin), 0);
	char *csv = tl_slurp(tmp, "out/multifactor-s1/jobs.csv");
	cr_expect(has_row(csv, "1,0,0,"), "%s", csv);
	cr_expect(has_row(csv, "2,1,1,"), "%s", csv);
	cr_expect(has_row(csv, "3,2,51,"), "%s", csv);
	cr_expect(has_row(csv, "6,5,51,"), "%s", csv);
	cr_expect(has_row(csv, "4,3,61,"), "%s", csv);
	cr_expect(has_row(csv, "5,4,71,"), "%s", csv);
	free(csv);
}

Test(multifactor_cli, a_csv_partition_column_names_the_partition)
{
	/* The same partitions, the jobs' partition from a CSV column: job 2
	 * (partition 2, debug) starts at 1 beside job 1 (batch, 4 CPUs
	 * until 100), job 3 (batch) waits for job 1. */
	tl_put(tmp, "t.csv", "id,submit,run,cpus,estimate,user,partition\n"
	       "1,0,100,4,100,1,1\n2,1,10,4,10,2,2\n3,2,10,4,10,3,1\n");
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"name\": \"a\", "
		"\"count\": 1, \"cpus\": 4 }, { \"name\": \"b\", "
		"\"count\": 1, \"cpus\": 4 } ],\n \"partitions\": %s },\n"
		"  \"workload\": { \"trace\": \"t.csv\" },\n"
		"  \"policies\": [ \"multifactor\" ], \"output\": \"out\" }\n",
		two_parts);
	tl_put(tmp, "c.json", text);
	free(text);
	cr_assert_eq(tl_sh(tmp, "'%s' run c.json -q", bin), 0, "%s",
		     tl_slurp(tmp, "err.txt"));
	char *csv = tl_slurp(tmp, "out/multifactor-s1/jobs.csv");
	cr_expect(has_row(csv, "2,1,1,"), "%s", csv);
	cr_expect(has_row(csv, "3,2,100,"), "%s", csv);
	free(csv);
}

Test(multifactor_cli, an_unknown_partition_names_its_trace_line)
{
	/* The jobs out of submit order, so that sorting moves them: job 9
	 * (line 2, submit 9, partition 1), job 8 (line 3, submit 1,
	 * partition 7: no such partition), job 7 (line 4, submit 0,
	 * partition 1).  Sorted: 7, 8, 9; the error names job 8 at line 3.
	 * With "skip": 1 job 7 is dropped first and job 8 is the first job
	 * left: still line 3.  The same rows as CSV (a header line, then
	 * lines 2-4): line 3 again.  And by QOS: job 8's queue 5 names no
	 * QOS (none default): line 3. */
	tl_put(tmp, "t.swf",
	       "; MaxProcs: 8\n"
	       "9 9 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n"
	       "8 1 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 5 7 -1 -1\n"
	       "7 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n");
	static const char parts[] =
		"[ { \"name\": \"batch\", \"nodes\": [\"a\"], "
		"\"trace_id\": 1 } ]";
	exp_with("u.json", parts, NULL, NULL);
	expect_exit("u.json", 2, "t.swf:3: job '8' has partition '7', which "
		    "names no partition of u.json: $.cluster.partitions (and "
		    "none is the default)");
	exp_with("s.json", parts, NULL, ", \"skip\": 1");
	expect_exit("s.json", 2, "t.swf:3: job '8' has partition '7'");
	exp_with("q.json", "[ { \"name\": \"all\", \"nodes\": [\"a\"], "
		 "\"default\": true } ]", "[ { \"name\": \"n\", "
		 "\"trace_id\": 1 } ]", ", \"qos_from\": \"queue\"");
	expect_exit("q.json", 2, "t.swf:3: job '8' has queue '5', which names "
		    "no QOS of q.json: $.qos");
	tl_put(tmp, "t.csv", "id,submit,run,cpus,estimate,partition\n"
	       "9,9,10,1,10,1\n8,1,10,1,10,7\n7,0,10,1,10,1\n");
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"name\": \"a\", "
		"\"count\": 1, \"cpus\": 4 } ],\n \"partitions\": %s },\n"
		"  \"workload\": { \"trace\": \"t.csv\" },\n"
		"  \"policies\": [ \"multifactor\" ], \"output\": \"out\" }\n",
		parts);
	tl_put(tmp, "c.json", text);
	free(text);
	expect_exit("c.json", 2, "t.csv:3: job '8' has partition '7'");
}

/* The overlap cases: one group "n" of 4 nodes x 2 CPUs; "low" is nodes
 * 0-2, "high" nodes 1-3 (both 6 CPUs; nodes 1 and 2 shared). */
static void overlap_exp(const char *name, const char *low, const char *high)
{
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"name\": \"n\", "
		"\"count\": 4, \"cpus\": 2 } ],\n \"partitions\": [\n"
		"  { \"name\": \"low\", \"nodes\": %s, \"trace_id\": 1 },\n"
		"  { \"name\": \"high\", \"nodes\": %s, \"trace_id\": 2 } ] },\n"
		"  \"workload\": { \"trace\": \"o.swf\" },\n"
		"  \"check\": true, \"allocations\": true,\n"
		"  \"policies\": [ \"multifactor\" ], \"output\": \"out\" }\n",
		low, high);
	tl_put(tmp, name, text);
	free(text);
}

Test(multifactor_cli, overlapping_partitions_share_their_nodes)
{
	/* J1 (low, 4 CPUs, 0-100) goes first fit on low's nodes: 0-1.  J2
	 * (high, 4 CPUs, t=1, 50 s): high's free nodes are 2-3 (node 1 is
	 * J1's): 1-51 there.  Now low's nodes 0-2 are all busy, node 2 by
	 * a job of high: J3 (low, 2 CPUs, t=2, 10 s) waits for J2's end,
	 * and so does J4 (high, 2 CPUs, t=3, 10 s; node 1 is J1's).  At 51
	 * J3 (first by submit) takes node 2, J4 node 3: both 51-61.  With
	 * "low" as "n[0]" and "n[1-2]" and high as "n[1-3]" written
	 * "n[1,2-3]": the same sets, the same schedule.  Disjoint ("n[0-1]"
	 * and "n[2-3]"): J3 no longer waits for J2, only for J1 (low is
	 * nodes 0-1, both J1's): it starts at 100; J4 on node 2 or 3 once
	 * J2 ends: 51. */
	tl_put(tmp, "o.swf",
	       "1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 1 1 -1 -1\n"
	       "2 1 -1 50 4 -1 -1 4 50 -1 1 2 1 -1 2 2 -1 -1\n"
	       "3 2 -1 10 2 -1 -1 2 10 -1 1 3 1 -1 1 1 -1 -1\n"
	       "4 3 -1 10 2 -1 -1 2 10 -1 1 4 1 -1 2 2 -1 -1\n");
	static const char *const low[] = { "[\"n[0-2]\"]",
					   "[\"n[0]\", \"n[1-2]\"]",
					   "[\"n[0-1]\"]" };
	static const char *const high[] = { "[\"n[1-3]\"]",
					    "[\"n[1,2-3]\"]",
					    "[\"n[2-3]\"]" };
	for (int k = 0; k < 3; k++) {
		overlap_exp("o.json", low[k], high[k]);
		cr_assert_eq(tl_sh(tmp, "rm -rf out; '%s' run o.json -q", bin),
			     0, "%s", tl_slurp(tmp, "err.txt"));
		char *csv = tl_slurp(tmp, "out/multifactor-s1/jobs.csv");
		cr_expect(has_row(csv, "1,0,0,"), "%d: %s", k, csv);
		cr_expect(has_row(csv, "2,1,1,"), "%d: %s", k, csv);
		cr_expect(has_row(csv, k < 2 ? "3,2,51," : "3,2,100,"),
			  "%d: %s", k, csv);
		cr_expect(has_row(csv, "4,3,51,"), "%d: %s", k, csv);
		free(csv);
		char *al = tl_slurp(tmp, "out/multifactor-s1/allocations.csv");
		cr_expect(al && strstr(al, "\n1,0,100,0-1,"), "%d: %s", k, al);
		cr_expect(al && strstr(al, "\n2,1,51,2-3,"), "%d: %s", k, al);
		if (k < 2) {
			cr_expect(al && strstr(al, "\n3,51,61,2,"), "%s", al);
			cr_expect(al && strstr(al, "\n4,51,61,3,"), "%s", al);
		} else {
			cr_expect(al && strstr(al, "\n3,100,110,0,"), "%s", al);
		}
		free(al);
		/* partitions.csv: 6 CPUs each overlapping, 4 disjoint. */
		char *parts = tl_slurp(tmp, "out/multifactor-s1/partitions.csv");
		cr_expect(parts && strstr(parts, k < 2 ? "\nlow,6," : "\nlow,4,"),
			  "%s", parts);
		cr_expect(parts && strstr(parts, k < 2 ? "\nhigh,6," : "\nhigh,4,"),
			  "%s", parts);
		free(parts);
	}
}

/* Partitions "low" (n[0-2]) and "high" (n[1-3]) of the overlap cases
 * with their extra keys, and the root's extra keys. */
static void tier_exp(const char *low, const char *high, const char *root)
{
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"name\": \"n\", "
		"\"count\": 4, \"cpus\": 2 } ],\n \"partitions\": [\n"
		"  { \"name\": \"low\", \"nodes\": [\"n[0-2]\"], "
		"\"trace_id\": 1 %s },\n"
		"  { \"name\": \"high\", \"nodes\": [\"n[1-3]\"], "
		"\"trace_id\": 2 %s } ] },\n"
		"  \"workload\": { \"trace\": \"t.swf\" },\n"
		"  \"check\": true, \"allocations\": true %s,\n"
		"  \"policies\": [ \"multifactor\" ], \"output\": \"out\" }\n",
		low, high, root);
	tl_put(tmp, "t.json", text);
	free(text);
}

Test(multifactor_cli, a_backfilled_job_counts_at_once_in_the_sharing_partition)
{
	/* low n[0-2], high n[1-3], 2 CPUs a node; bf_reserve all, 1 s
	 * resolution.  At 0 R0 (low, 2 CPUs, 0-100) takes node 0, R (high,
	 * 2 CPUs, 0-100) node 1.  At 1: L1 (low, 6) and H1 (high, 6) are
	 * blocked and reserved at 100.  L2 (low, 2 CPUs, 50 s) backfills
	 * on node 2, which high shares: high now has 2 CPUs free until 51.
	 * H2 (high, 4, 30 s) is reserved at 51 ([51, 81), before H1 at
	 * 100).  H3 (high, 2, 40 s) fits the 2 free CPUs in [1, 41): it
	 * starts at 1, on node 3.  Had high's profile not seen L2, it
	 * would have had 4 CPUs free at 1, reserved H2 at 2 (L2 holds node
	 * 2, so not placeable at 1) and left H3 no room at 1 (it then
	 * starts at 100).  H2 starts at 51 once L2 is gone (nodes 2-3). */
	tl_put(tmp, "b.swf",
	       "1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 1 -1 -1\n"
	       "2 0 -1 100 2 -1 -1 2 100 -1 1 2 1 -1 2 2 -1 -1\n"
	       "3 1 -1 100 6 -1 -1 6 100 -1 1 3 1 -1 1 1 -1 -1\n"
	       "4 1 -1 100 6 -1 -1 6 100 -1 1 4 1 -1 2 2 -1 -1\n"
	       "5 1 -1 50 2 -1 -1 2 50 -1 1 5 1 -1 1 1 -1 -1\n"
	       "6 1 -1 30 4 -1 -1 4 30 -1 1 6 1 -1 2 2 -1 -1\n"
	       "7 1 -1 40 2 -1 -1 2 40 -1 1 7 1 -1 2 2 -1 -1\n");
	tl_put(tmp, "b.json",
	       "{ \"cluster\": { \"nodes\": [ { \"name\": \"n\", "
	       "\"count\": 4, \"cpus\": 2 } ],\n \"partitions\": [\n"
	       "  { \"name\": \"low\", \"nodes\": [\"n[0-2]\"], "
	       "\"trace_id\": 1 },\n"
	       "  { \"name\": \"high\", \"nodes\": [\"n[1-3]\"], "
	       "\"trace_id\": 2 } ] },\n"
	       "  \"workload\": { \"trace\": \"b.swf\" },\n"
	       "  \"check\": true, \"allocations\": true,\n"
	       "  \"policies\": [ { \"name\": \"multifactor\", \"params\": "
	       "{ \"bf_reserve\": \"all\", \"bf_resolution_s\": 1 } } ],"
	       " \"output\": \"out\" }\n");
	cr_assert_eq(tl_sh(tmp, "'%s' run b.json -q", bin), 0, "%s",
		     tl_slurp(tmp, "err.txt"));
	char *al = tl_slurp(tmp, "out/multifactor-s1/allocations.csv");
	cr_expect(al && strstr(al, "\n5,1,51,2,"), "%s", al);
	cr_expect(al && strstr(al, "\n7,1,41,3,"), "%s", al);
	cr_expect(al && strstr(al, "\n6,51,81,2-3,"), "%s", al);
	free(al);
}

Test(multifactor_cli, a_higher_tier_partition_preempts_a_lower_one)
{
	/* J1 (low, 6 CPUs, 0-100) takes nodes 0-2.  J2 (high, 4 CPUs, 50 s)
	 * comes at 10: high's free nodes hold 2 CPUs (node 3).  low has
	 * tier 1 and preempt "requeue", high tier 2: J1 holds 4 CPUs on
	 * high's nodes (1-2), 2 + 4 >= 4, so J1 is requeued at 10 (a
	 * checkpoint then: 10 s of work kept) and J2 runs 10-60 on nodes
	 * 1-2.  J1 needs all of low's 6 CPUs again: it restarts at 60 with
	 * 90 s left, ending at 150; with a restore_overhead of 5 s, at 155.
	 * With preempt "off", or both partitions of tier 1, J1 runs 0-100
	 * and J2 waits for it: 100-150 (first fit: nodes 1-2). */
	tl_put(tmp, "t.swf",
	       "1 0 -1 100 6 -1 -1 6 100 -1 1 1 1 -1 1 1 -1 -1\n"
	       "2 10 -1 50 4 -1 -1 4 50 -1 1 2 1 -1 2 2 -1 -1\n");
	static const char *const low[] = {
		", \"priority_tier\": 1, \"preempt\": \"requeue\"",
		", \"priority_tier\": 1, \"preempt\": \"requeue\"",
		", \"priority_tier\": 1, \"preempt\": \"off\"",
		", \"priority_tier\": 1, \"preempt\": \"requeue\"" };
	static const char *const high[] = {
		", \"priority_tier\": 2", ", \"priority_tier\": 2",
		", \"priority_tier\": 2", ", \"priority_tier\": 1" };
	static const char *const root[] = {
		"", ", \"preemption\": { \"restore_overhead\": 5 }", "", "" };
	for (int k = 0; k < 4; k++) {
		tier_exp(low[k], high[k], root[k]);
		cr_assert_eq(tl_sh(tmp, "rm -rf out; '%s' run t.json -q", bin),
			     0, "%s", tl_slurp(tmp, "err.txt"));
		char *al = tl_slurp(tmp, "out/multifactor-s1/allocations.csv");
		if (k < 2) {
			cr_expect(al && strstr(al, "\n1,0,10,0-2,"), "%s", al);
			cr_expect(al && strstr(al, "\n2,10,60,1-2,"), "%s", al);
			cr_expect(al && strstr(al, k ? "\n1,60,155,0-2,"
						    : "\n1,60,150,0-2,"),
				  "%d: %s", k, al);
		} else {
			cr_expect(al && strstr(al, "\n1,0,100,0-2,"), "%s", al);
			cr_expect(al && strstr(al, "\n2,100,150,1-2,"), "%s",
				  al);
		}
		free(al);
	}
	tier_exp(", \"preempt\": \"suspend\"", "", "");
	expect_exit("t.json", 2, "t.json: $.cluster.partitions[0].preempt:");
}

Test(multifactor_cli, a_gpu_job_runs_on_its_partitions_nodes)
{
	/* Group "g": 2 nodes x 4 GPUs; "one" is g[0], "two" g[1].  J1 (one,
	 * 2 GPUs, 0-100).  J2 (one, 4 GPUs, t=1): node 1 has 4 free GPUs,
	 * but it is two's: J2 waits for J1, 100-110 on node 0.  J3 (two, 4
	 * GPUs, t=2): node 1, 2-12.  Without partitions J2 would start at 1
	 * on node 1 (first fit). */
	tl_put(tmp, "g.csv", "id,submit,run,cpus,gpus,estimate,user,"
	       "partition\n1,0,100,0,2,100,1,1\n2,1,10,0,4,10,2,1\n"
	       "3,2,10,0,4,10,3,2\n");
	tl_put(tmp, "g.json",
	       "{ \"cluster\": { \"nodes\": [ { \"name\": \"g\", "
	       "\"count\": 2, \"cpus\": 8, \"gpus\": 4 } ],\n"
	       " \"partitions\": [ { \"name\": \"one\", \"nodes\": [\"g[0]\"], "
	       "\"trace_id\": 1 }, { \"name\": \"two\", \"nodes\": [\"g[1]\"],"
	       " \"trace_id\": 2 } ] },\n"
	       "  \"workload\": { \"trace\": \"g.csv\" }, \"check\": true,\n"
	       "  \"allocations\": true,\n"
	       "  \"policies\": [ \"multifactor\" ], \"output\": \"out\" }\n");
	cr_assert_eq(tl_sh(tmp, "'%s' run g.json -q", bin), 0, "%s",
		     tl_slurp(tmp, "err.txt"));
	char *csv = tl_slurp(tmp, "out/multifactor-s1/jobs.csv");
	cr_expect(has_row(csv, "2,1,100,"), "%s", csv);
	cr_expect(has_row(csv, "3,2,2,"), "%s", csv);
	free(csv);
	char *al = tl_slurp(tmp, "out/multifactor-s1/allocations.csv");
	cr_expect(al && strstr(al, "\n2,100,110,0,"), "%s", al);
	cr_expect(al && strstr(al, "\n3,2,12,1,"), "%s", al);
	free(al);
}

Test(multifactor_cli, bad_input_exits_2_with_the_path)
{
	tl_put(tmp, "t.swf", swf);
	exp_with("none.json", "[ { \"name\": \"x\", \"nodes\": [] } ]", NULL,
		 NULL);
	expect_exit("none.json", 2, "none.json: $.cluster.partitions[0].nodes:"
		    " partition 'x' names no nodes");
	exp_with("unknown.json", "[ { \"name\": \"batch\", \"nodes\": [\"a\"], "
		 "\"trace_id\": 1 } ]", NULL, NULL);
	/* Job 3 is the trace's line 4 (the header is line 1). */
	expect_exit("unknown.json", 2, "t.swf:4: job '3' has partition '2', "
		    "which names no partition of unknown.json: "
		    "$.cluster.partitions");
	exp_with("group.json", "[ { \"name\": \"x\", \"nodes\": [\"c\"] } ]",
		 NULL, NULL);
	expect_exit("group.json", 2, "$.cluster.partitions[0].nodes[0]: no "
		    "node group 'c'");
	exp_with("range.json", "[ { \"name\": \"x\", \"nodes\": [\"a[0-1]\"],"
		 " \"default\": true } ]", NULL, NULL);
	expect_exit("range.json", 2, "range.json: $.cluster.partitions[0]."
		    "nodes[0]: 'a[0-1]': node '1' is past group 'a''s 1 nodes");
	exp_with("form.json", "[ { \"name\": \"x\", \"nodes\": [\"a[0-]\"],"
		 " \"default\": true } ]", NULL, NULL);
	expect_exit("form.json", 2, "form.json: $.cluster.partitions[0]."
		    "nodes[0]: 'a[0-]' is not GROUP[a-b,c,...]");
	exp_with("limits.json", two_parts, "[ { \"name\": \"n\", "
		 "\"max_jobs_per_user\": 4, \"max_jobs_per_group\": 2 } ]", NULL);
	expect_exit("limits.json", 2, "limits.json: $.qos[0].max_jobs_per_group:"
		    " '2' is below max_jobs_per_user '4'");
	exp_with("pre.json", two_parts, "[ { \"name\": \"n\", \"preempt\": "
		 "[\"x\"] } ]", NULL);
	expect_exit("pre.json", 2, "pre.json: $.qos[0].preempt[0]: no QOS 'x' "
		    "in $.qos");
	exp_with("from.json", two_parts, NULL, ", \"partition_from\": \"vc\"");
	expect_exit("from.json", 2, "$.workload.partition_from:");
}
