/*
 * Conservative backfilling keeps its promises: the classic algorithm
 * (replan "compress") against re-planning from scratch on a case worked
 * out by hand where the two differ, and the engine's check that a
 * promised start never moves later.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "base/util.h"
#include "policy/registry.h"
#include "testlib.h"

extern const struct policy_ops clustersim_policy_conservative;

/*
 * One node of 10 CPUs.  A (0 s, 2 CPUs, runs 10 s, estimate 100 s) and
 * B (0 s, 8 CPUs, 50 s) start at 0.  C (1 s, 10 CPUs, 100 s) is promised
 * 100, when A is expected to end.  D (2 s, 8 CPUs, 40 s): 8 CPUs are
 * free from B's end at 50 until A's expected end at 100: promised 50.
 * At 10 A ends, 90 s early.
 * compress: C gives back [100, 200) and asks again: free 2 before 50,
 *   2 during D's [50, 90), so 90; D keeps 50.  C 90, D 50.
 * scratch: C is planned first against the running B alone: 50, and D,
 *   planned behind it, 150: D's promise of 50 broken by 100 s.
 */
static const struct tjob gap[] = {
	{ 1, 0, 10, 100, 2 }, { 2, 0, 50, 50, 8 },
	{ 3, 1, 100, 100, 10 }, { 4, 2, 40, 40, 8 },
};

static struct sim *run_replan(const char *replan, const struct workload *w,
			      const struct cluster_spec *c)
{
	struct param_value pv = {
		.key = xstrdup("replan"), .json_path = xstrdup("$.replan"),
		.type = PV_STRING, .str = xstrdup(replan),
	};
	struct sim *s = tl_run_with(&clustersim_policy_conservative, &pv, 1,
				    w, c);
	free(pv.key);
	free(pv.json_path);
	free(pv.str);
	return s;
}

Test(conservative, compression_keeps_a_promise_that_scratch_breaks)
{
	static const struct {
		const char *replan;
		double start[4];
	} want[] = {
		{ "compress", { 0, 0, 90, 50 } },
		{ "scratch", { 0, 0, 50, 150 } },
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, gap, 4);
	tl_cluster(&c, 1, 10);
	for (size_t k = 0; k < 2; k++) {
		struct sim *s = run_replan(want[k].replan, &w, &c);
		for (int64_t id = 1; id <= 4; id++)
			cr_expect_eq(tl_start(s, id), want[k].start[id - 1],
				     "%s: job %d starts at %g, not %g",
				     want[k].replan, (int)id, tl_start(s, id),
				     want[k].start[id - 1]);
		cr_expect_eq(sim_counters(s)->promises_broken, 0);
		cr_expect_eq(sim_counters(s)->promises_missed, 0);
		sim_free(s);
	}
	/* The default is the classic algorithm. */
	struct sim *s = tl_run("conservative", &w, &c);
	cr_expect_eq(tl_start(s, 3), 90.0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* A policy that promises the last waiting job a start 10 s later at
 * every pass (and starts what conservative would). */
static void later_schedule(struct sim *sim, void *state)
{
	clustersim_policy_conservative.schedule(sim, state);
	size_t n = sim_queue_len(sim);
	if (n == 0)
		return;
	const struct job *j = sim_queue_at(sim, n - 1);
	sim_time_t t = sim_job_promised(sim, j);
	if (t != SIM_TIME_NONE && t > sim_now(sim))
		sim_job_promise(sim, j, t + 10 * SIM_SEC);
}

static int later_run(bool check, struct sim **out, struct sim_error *err)
{
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, gap, 4);
	tl_cluster(&c, 1, 10);
	struct policy_ops ops = clustersim_policy_conservative;
	ops.schedule = later_schedule;
	struct pval *params;
	size_t np;
	cr_assert_eq(policy_params_resolve(&ops, NULL, 0, "", &params, &np,
					   err), 0, "%s", err->msg);
	struct sim_config cfg = {
		.workload = &w, .cluster = &c, .policy = &ops,
		.params = params, .nparams = np, .seed = 1, .check = check,
	};
	*out = sim_new(&cfg);
	int rc = sim_run(*out, err);
	free(params);
	workload_release(&w);
	cluster_spec_release(&c);
	return rc;
}

Test(conservative, a_promise_moved_later_is_counted_and_an_error_under_check)
{
	struct sim_error err = { "" };
	struct sim *s;
	/* Without --check: counted.  C is promised 100 at 1 s and at once
	 * moved to 110; so at every pass before its start. */
	cr_assert_eq(later_run(false, &s, &err), 0, "%s", err.msg);
	cr_expect_geq(sim_counters(s)->promises_broken, 1);
	sim_free(s);
	/* With it: the first one stops the run, naming job, times, when. */
	int rc = later_run(true, &s, &err);
	cr_expect_neq(rc, 0);
	cr_expect(strstr(err.msg, "job 3's promised start moved later, from "
			 "100 s to 110 s, at time 1 s") != NULL, "%s", err.msg);
	sim_free(s);
}

/* The engine refuses a promise in the past or to a job not waiting. */
static void bad_schedule(struct sim *sim, void *state)
{
	(void)state;
	if (sim_queue_len(sim))
		cr_expect_lt(sim_job_promise(sim, sim_queue_at(sim, 0),
					     sim_now(sim) - 1), 0);
	if (sim_running_len(sim))
		cr_expect_lt(sim_job_promise(sim, sim_running_at(sim, 0),
					     sim_now(sim)), 0);
	sim_start_head(sim);
}

Test(conservative, promises_in_the_past_or_to_running_jobs_are_bad_calls)
{
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, gap, 4);
	tl_cluster(&c, 1, 10);
	struct policy_ops ops = { .name = "bad_promises",
				  .schedule = bad_schedule };
	struct sim *s = tl_run_ops(&ops, &w, &c);
	cr_expect_gt(sim_counters(s)->bad_calls, 0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * compress_on: "pass" compresses at every scheduling pass, "end" only at
 * the passes after a job's end (as pyss does).  10 CPUs.  At 0 A (5 CPUs,
 * runs 20 s, estimate 100 s) and B (5 CPUs, 40 s) start; X (10 CPUs,
 * 30 s) is promised 100 (after A's expected end); Y (5 CPUs, 60 s) fits
 * from B's end: promised 40.  At 20 A ends: X cannot move (Y holds 5 CPUs
 * over [40, 100)); Y moves to 20 and starts, leaving [80, 100) free of it.
 * At 30 Z (5 CPUs, 50 s) arrives.
 * pass: X is moved at 30 to 80 (Y ends then); Z, behind it, gets 110.
 * end: X keeps 100 at 30; Z fits [40, 90) and is promised 40; at B's end
 *   (40) X moves to 90, after Z.
 */
Test(conservative, compress_on_end_moves_jobs_only_after_an_end)
{
	static const struct tjob jobs[] = {
		{ 1, 0, 20, 100, 5 }, { 2, 0, 40, 40, 5 },
		{ 3, 0, 30, 30, 10 }, { 4, 0, 60, 60, 5 },
		{ 5, 30, 50, 50, 5 },
	};
	static const struct {
		const char *on;
		double start[5];
	} want[] = {
		{ "pass", { 0, 0, 80, 20, 110 } },
		{ "end", { 0, 0, 90, 20, 40 } },
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, jobs, 5);
	tl_cluster(&c, 1, 10);
	for (size_t k = 0; k < 2; k++) {
		struct param_value pv = {
			.key = xstrdup("compress_on"),
			.json_path = xstrdup("$.compress_on"),
			.type = PV_STRING, .str = xstrdup(want[k].on),
		};
		struct sim *s = tl_run_with(&clustersim_policy_conservative,
					    &pv, 1, &w, &c);
		for (int64_t id = 1; id <= 5; id++)
			cr_expect_eq(tl_start(s, id), want[k].start[id - 1],
				     "%s: job %d starts at %g, not %g",
				     want[k].on, (int)id, tl_start(s, id),
				     want[k].start[id - 1]);
		cr_expect_eq(sim_counters(s)->promises_broken, 0);
		sim_free(s);
		free(pv.key);
		free(pv.json_path);
		free(pv.str);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}
