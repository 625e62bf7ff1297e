/*
 * themis (finish-time fairness with leases, Mahajan et al. NSDI 2020) on
 * small GPU cases worked out by hand: rho = T_shared / T_isolated with
 * T_shared = (now - submit) + remaining work and T_isolated = run x
 * max(1, N x GPUs / C); at each lease boundary the worst ceil((1 - f) N)
 * jobs by rho are offered the GPUs first, then running jobs keep theirs,
 * then waiting jobs get the leftovers; in between, free GPUs go to
 * waiting jobs by rho without preempting.  One node, reference speed,
 * nothing lost at a preemption and no restore cost (the testlib runs).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/registry.h"
#include "testlib.h"
#include "base/util.h"

extern const struct policy_ops clustersim_policy_themis;

/* One node of 8 CPUs and gpus GPUs. */
static void th_cluster(struct cluster_spec *c, uint32_t gpus)
{
	tl_cluster(c, 1, 8);
	c->groups[0].gpus = gpus;
	c->groups[0].gpu_type = xstrdup("v100");
}

/* The workload of a table whose cpus column is the jobs' GPUs. */
static void th_workload(struct workload *w, const struct tjob *t, size_t n)
{
	tl_workload(w, t, n);
	for (size_t i = 0; i < w->n; i++) {
		w->jobs[i].gpus = w->jobs[i].cpus;
		w->jobs[i].cpus = 0;
	}
}

static struct param_value th_num(const char *key, double v)
{
	return (struct param_value){ .key = (char *)key,
				     .json_path = (char *)"$.policies[0].params.x",
				     .type = PV_NUMBER, .num = v };
}

static const struct job *th_job(const struct sim *s, int64_t id)
{
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	for (size_t i = 0; i < n; i++)
		if (j[i].id == id)
			return &j[i];
	cr_assert_fail("no job %lld", (long long)id);
	return NULL;
}

/* What a test expects of one job: first start, end (seconds), and how
 * many times it was preempted. */
struct th_want {
	int64_t id;
	double start, end;
	uint32_t preemptions;
};

/* Runs themis with lease_s and fairness_knob, checks every job. */
static void th_expect(const struct workload *w, const struct cluster_spec *c,
		      double lease_s, double knob, const struct th_want *want,
		      size_t n)
{
	struct param_value pv[] = { th_num("lease_s", lease_s),
				    th_num("fairness_knob", knob) };
	struct sim *s = tl_run_with(&clustersim_policy_themis, pv, 2, w, c);
	for (size_t i = 0; i < n; i++) {
		const struct job *j = th_job(s, want[i].id);
		cr_expect_eq(j->state, JOB_FINISHED);
		cr_expect_eq(j->start, (sim_time_t)(want[i].start * SIM_SEC),
			     "f %g: job %lld starts at %g, expected %g", knob,
			     (long long)want[i].id, tl_start(s, want[i].id),
			     want[i].start);
		cr_expect_eq(j->end, (sim_time_t)(want[i].end * SIM_SEC),
			     "f %g: job %lld ends at %g, expected %g", knob,
			     (long long)want[i].id, (double)j->end / SIM_SEC,
			     want[i].end);
		cr_expect_eq(j->preemptions, want[i].preemptions,
			     "f %g: job %lld preempted %u times, expected %u",
			     knob, (long long)want[i].id, j->preemptions,
			     want[i].preemptions);
	}
	cr_expect_eq(sim_counters(s)->bad_calls, 0);
	sim_free(s);
}

/*
 * Leases: one node of 2 GPUs, lease 100 s, f = 0.8.  A (0 s, 2 GPUs,
 * 300 s) starts at 0.  B (10 s, 1 GPU, 100 s) and C (20 s, 1 GPU, 100 s)
 * wait for the lease to end: between boundaries nothing is preempted.
 * At 100, N = 3, C = 2 GPUs:
 *   A: T_shared = 100 + 200 = 300, T_isolated = 300 x 3x2/2 = 900: 0.333
 *   B: 90 + 100 = 190 over 100 x 1.5 = 150: 1.267
 *   C: 80 + 100 = 180 over 150: 1.2
 * k = ceil(0.2 x 3) = 1 offers B; then running A (2 GPUs, 1 left: A
 * loses its lease and is preempted), then waiting C (fits).  B and C run
 * 100..200; at 200 A, alone, resumes with 200 s left: ends at 400.
 * With lease 50 the same happens at 50 (A 300/900, B 140/150, C 130/150):
 * B and C run 50..150.  At 100 (N = 3) A waits with 350/900 = 0.389 below
 * B (0.933), the one offered, and C, running: nothing changes; at 150 A
 * resumes (free GPUs, between boundaries) and ends at 400.
 */
Test(themis, lease_end_preempts_the_wide_job)
{
	struct tjob t[] = {
		{ 1, 0, 300, 300, 2 }, { 2, 10, 100, 100, 1 },
		{ 3, 20, 100, 100, 1 },
	};
	struct workload w;
	struct cluster_spec c;
	th_workload(&w, t, 3);
	th_cluster(&c, 2);
	const struct th_want lease100[] = {
		{ 1, 0, 400, 1 }, { 2, 100, 200, 0 }, { 3, 100, 200, 0 },
	};
	th_expect(&w, &c, 100, 0.8, lease100, 3);
	const struct th_want lease50[] = {
		{ 1, 0, 400, 1 }, { 2, 50, 150, 0 }, { 3, 50, 150, 0 },
	};
	th_expect(&w, &c, 50, 0.8, lease50, 3);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * The fairness knob.  One node of 2 GPUs, lease 100 s.  P (0 s, 2 GPUs,
 * 50 s) runs 0..50.  Y (1 s, 1 GPU, 200 s) waits and starts at 50; W
 * (60 s, 1 GPU, 300 s) starts at 60 (a free GPU); Z (70 s, 1 GPU, 200 s)
 * waits.  At 100, N = 3, so T_isolated = 1.5 x run:
 *   Y: 99 + 150 = 249 over 300: 0.83;  Z: 30 + 200 = 230 over 300: 0.767
 *   W: 40 + 260 = 300 over 450: 0.667          order Y, Z, W
 *
 * f = 0.8 (and f = 2/3: (1 - f) x 3 = 1): k = 1 offers Y; W, running,
 * keeps its GPU; Z waits.  At 200: Y 249/300 = 0.83, W 300/450 = 0.667,
 * Z 130 + 200 = 330 over 300 = 1.1: k = 1 offers Z, then Y keeps its GPU
 * and W (lowest) is preempted with 160 s left.  Y ends at 250; W, waiting
 * alone, resumes at once.  At 300, N = 2 (factor 1): Z 230 + 100 = 330
 * over 200 = 1.65, W 240 + 110 = 350 over 300 = 1.17: both fit, nothing
 * changes.  Z ends at 400, W at 410.
 *
 * f = 0 (and f = 0.5: k = ceil(1.5) = 2 offers Y and Z): at 100 W loses
 * its GPU to Z (40 s done, 260 left).  At 200: Y 0.83, Z 130 + 100 = 230
 * over 300 = 0.767, W 140 + 260 = 400 over 450 = 0.889: order W, Y, Z,
 * all offered (f = 0.5: W and Y, Z the rest): Z is preempted with 100 s
 * left and W resumes.  Y ends at 250; Z resumes then.  At 300 (N = 2):
 * W 240 + 160 = 400 over 300 = 1.33, Z 230 + 50 = 280 over 200 = 1.4:
 * both fit.  Z ends at 350, W at 200 + 260 = 460.
 */
Test(themis, fairness_knob_decides_who_is_offered)
{
	struct tjob t[] = {
		{ 1, 0, 50, 50, 2 }, { 2, 1, 200, 200, 1 },
		{ 3, 60, 300, 300, 1 }, { 4, 70, 200, 200, 1 },
	};
	struct workload w;
	struct cluster_spec c;
	th_workload(&w, t, 4);
	th_cluster(&c, 2);
	const struct th_want sticky[] = {
		{ 1, 0, 50, 0 }, { 2, 50, 250, 0 },
		{ 3, 60, 410, 1 }, { 4, 200, 400, 0 },
	};
	th_expect(&w, &c, 100, 0.8, sticky, 4);
	th_expect(&w, &c, 100, 2.0 / 3.0, sticky, 4);
	const struct th_want strict[] = {
		{ 1, 0, 50, 0 }, { 2, 50, 250, 0 },
		{ 3, 60, 460, 1 }, { 4, 100, 350, 1 },
	};
	th_expect(&w, &c, 100, 0, strict, 4);
	th_expect(&w, &c, 100, 0.5, strict, 4);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * The 1/N share: a job wider than its share is owed less.  One node of 4
 * GPUs, lease 100 s, f = 0.8.  B1 (0 s, 2 GPUs, 1000 s) and B2 (0 s,
 * 2 GPUs, 50 s) start at 0 (N = 2: 2 GPUs each is the share).  X (1 s,
 * 2 GPUs, 100 s) and V (2 s, 1 GPU, 100 s) wait.  B2 ends at 50, freeing
 * 2 GPUs; N = 3, a share is 4/3 GPUs:
 *   X: 49 + 100 = 149 over 100 x 3x2/4 = 150: 0.993
 *   V: 48 + 100 = 148 over 100 (1 GPU is within its share): 1.48
 * V starts at 50 and X (2 GPUs, 1 free) does not fit.  (Without the
 * share factor X, 1.49, would have gone first.)  At 100: V 1.48, X 199/150
 * = 1.33, B1 1000/1500 = 0.667: V is offered, B1 keeps its 2 GPUs, X does
 * not fit.  V ends at 150 and X starts (N = 2: 249/100); it ends at 250,
 * B1 at 1000.  Nothing is preempted.
 */
Test(themis, wide_jobs_have_a_larger_isolated_time)
{
	struct tjob t[] = {
		{ 1, 0, 1000, 1000, 2 }, { 2, 0, 50, 50, 2 },
		{ 3, 1, 100, 100, 2 }, { 4, 2, 100, 100, 1 },
	};
	struct workload w;
	struct cluster_spec c;
	th_workload(&w, t, 4);
	th_cluster(&c, 4);
	const struct th_want want[] = {
		{ 1, 0, 1000, 0 }, { 2, 0, 50, 0 },
		{ 3, 150, 250, 0 }, { 4, 50, 150, 0 },
	};
	th_expect(&w, &c, 100, 0.8, want, 4);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* Runs expecting init() to refuse one parameter value; returns the
 * message. */
static void th_refused(const char *key, double v, struct sim_error *err)
{
	struct tjob t[] = { { 1, 0, 10, 10, 1 } };
	struct workload w;
	struct cluster_spec c;
	struct pval *params;
	size_t np;
	struct param_value pv = th_num(key, v);
	th_workload(&w, t, 1);
	th_cluster(&c, 2);
	cr_assert_eq(policy_params_resolve(&clustersim_policy_themis, &pv, 1,
					   "", &params, &np, err), 0,
		     "%s", err->msg);
	struct sim_config cfg = {
		.workload = &w, .cluster = &c,
		.policy = &clustersim_policy_themis, .params = params,
		.nparams = np, .seed = 1, .check = true,
	};
	struct sim *s = sim_new(&cfg);
	cr_expect_eq(sim_run(s, err), -SIM_EINPUT, "%s = %g ran", key, v);
	sim_free(s);
	free(params);
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(themis, bad_parameters_are_refused_at_init)
{
	static const struct {
		const char *key;
		double v;
		const char *msg;
	} bad[] = {
		{ "lease_s", 0, "lease_s must be seconds from 0.000001 to "
				"1e+09, got '0'" },
		{ "lease_s", -5, "got '-5'" },
		{ "lease_s", 1e-7, "got '1e-07'" },
		{ "lease_s", 2e9, "got '2e+09'" },
		{ "fairness_knob", 1, "fairness_knob must be in [0, 1), "
				      "got '1'" },
		{ "fairness_knob", -0.1, "got '-0.1'" },
		{ "fairness_knob", 1.5, "got '1.5'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sim_error err;
		th_refused(bad[i].key, bad[i].v, &err);
		cr_expect(strstr(err.msg, bad[i].key) &&
			  strstr(err.msg, bad[i].msg),
			  "%s = %g: message: %s", bad[i].key, bad[i].v,
			  err.msg);
	}
}

/* The smallest lease (1 us) and the largest, and a knob just below 1,
 * are accepted: one job of 10 us runs as it would alone. */
Test(themis, edge_parameters_are_accepted)
{
	struct tjob t[] = { { 1, 0, 1e-5, 1e-5, 1 } };
	struct workload w;
	struct cluster_spec c;
	th_workload(&w, t, 1);
	th_cluster(&c, 2);
	const struct th_want want[] = { { 1, 0, 1e-5, 0 } };
	th_expect(&w, &c, 1e-6, 0.999, want, 1);
	th_expect(&w, &c, 1e9, 0, want, 1);
	workload_release(&w);
	cluster_spec_release(&c);
}
