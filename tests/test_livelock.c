/*
 * Runs that would never end: preemption livelocks (jobs stopped again
 * and again before they keep any work), a policy that never starts its
 * jobs while it keeps waking up, and one that keeps waking up after every
 * job has ended.  Progress detection ends the first two with an error
 * naming the policy and the jobs; the run ends by itself in the third;
 * min_run_s cures the livelocks at their cause.  Each case is the one
 * that used to run for ever.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/registry.h"
#include "testlib.h"
#include "base/util.h"

static const struct policy_ops *find_policy(const char *name)
{
	for (size_t i = 0; policy_builtin[i]; i++)
		if (strcmp(policy_builtin[i]->name, name) == 0)
			return policy_builtin[i];
	cr_assert_fail("no policy '%s'", name);
	return NULL;
}

/* Runs ops with parameters on base's workload and settings (checker
 * on); the sim (caller frees), its return code in *rc and message in
 * err. */
static struct sim *run_rc(const struct policy_ops *ops,
			  const struct param_value *pv, size_t npv,
			  const struct sim_config *base, int *rc,
			  struct sim_error *err)
{
	struct pval *params;
	size_t np;
	cr_assert_eq(policy_params_resolve(ops, pv, npv, "", &params, &np,
					   err), 0, "%s", err->msg);
	struct sim_config cfg = *base;
	cfg.policy = ops;
	cfg.params = params;
	cfg.nparams = np;
	cfg.seed = 1;
	cfg.check = true;
	struct sim *s = sim_new(&cfg);
	err->msg[0] = '\0';
	*rc = sim_run(s, err);
	free(params);
	return s;
}

static struct param_value num(const char *key, double v)
{
	return (struct param_value){ .key = (char *)key,
				     .json_path = (char *)key,
				     .type = PV_NUMBER, .num = v };
}

static struct param_value str(const char *key, const char *v)
{
	return (struct param_value){ .key = (char *)key,
				     .json_path = (char *)key,
				     .type = PV_STRING, .str = (char *)v };
}

/* One node of 8 CPUs and `gpus` GPUs; jobs of the table with its cpus
 * column as GPUs. */
static void gpu_case(struct workload *w, struct cluster_spec *c,
		     const struct tjob *t, size_t n, uint32_t gpus)
{
	tl_cluster(c, 1, 8);
	c->groups[0].gpus = gpus;
	tl_workload(w, t, n);
	for (size_t i = 0; i < w->n; i++) {
		w->jobs[i].gpus = w->jobs[i].cpus;
		w->jobs[i].cpus = 0;
	}
}

/* The run ends with the progress error, naming the policy and the
 * jobs. */
static void expect_livelock(int rc, const struct sim_error *err,
			    const char *policy)
{
	cr_assert_eq(rc, -SIM_ESTATE, "rc %d: %s", rc, err->msg);
	cr_expect(strstr(err->msg, policy), "%s", err->msg);
	cr_expect(strstr(err->msg, "made no progress"), "%s", err->msg);
	cr_expect(strstr(err->msg, "job 1") || strstr(err->msg, "job 2"),
		  "%s", err->msg);
	cr_expect(strstr(err->msg, "min_run_s"), "%s", err->msg);
}

/* Every job ran to the end. */
static void expect_done(const struct sim *s, int rc,
			const struct sim_error *err)
{
	cr_assert_eq(rc, 0, "%s", err->msg);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(j[i].state, JOB_FINISHED, "job %lld",
			     (long long)j[i].id);
	cr_expect_eq(sim_counters(s)->bad_calls, 0);
}

/*
 * themis, lease 100 s, checkpoints every 300 s of work; one GPU, two jobs
 * of 4000 s.  At every boundary the waiting job (all its work still to
 * do: it kept nothing) has the larger rho and takes the GPU, 100 s into
 * the other's run: nothing is ever kept.  With the default span (a day)
 * the run ends within two; with min_run_s 300 each run reaches a
 * checkpoint and both finish.
 */
Test(livelock, themis_lease_shorter_than_checkpoint)
{
	struct tjob t[] = { { 1, 0, 4000, 4000, 1 }, { 2, 0, 4000, 4000, 1 } };
	struct workload w;
	struct cluster_spec c;
	gpu_case(&w, &c, t, 2, 1);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .checkpoint_interval = 300 * SIM_SEC };
	struct param_value pv[] = { num("lease_s", 100), num("min_run_s", 300) };
	struct sim_error err;
	int rc;
	struct sim *s = run_rc(find_policy("themis"), pv, 1, &cfg, &rc, &err);
	expect_livelock(rc, &err, "themis");
	cr_expect_gt(sim_counters(s)->preemptions, 100);
	size_t n;
	const struct sample *x = sim_samples(s, &n);
	cr_expect_leq(x[n - 1].t, 2 * SIM_PROGRESS_TIMEOUT + 100 * SIM_SEC);
	sim_free(s);

	s = run_rc(find_policy("themis"), pv, 2, &cfg, &rc, &err);
	expect_done(s, rc, &err);
	cr_expect_lt(sim_counters(s)->preemptions, 40);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * las, thresholds 10 GPU-s, promote_knob 1, checkpoints every 10 s of
 * work; two GPUs, a 2-GPU job and a 1-GPU job that cannot both run.
 * Each is demoted within 10 s and the other, promoted, preempts it: runs
 * of 5 or 10 s, none reaching a checkpoint.  min_run_s 20 lets every run
 * keep 20 s.
 */
Test(livelock, las_promotion_with_short_checkpoints)
{
	struct tjob t[] = { { 1, 0, 4000, 4000, 2 },
			    { 2, 10, 4000, 4000, 1 } };
	struct workload w;
	struct cluster_spec c;
	gpu_case(&w, &c, t, 2, 2);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .checkpoint_interval = 10 * SIM_SEC };
	struct param_value pv[] = { str("thresholds_s", "10"),
				    num("promote_knob", 1),
				    num("min_run_s", 20) };
	struct sim_error err;
	int rc;
	struct sim *s = run_rc(find_policy("las"), pv, 2, &cfg, &rc, &err);
	expect_livelock(rc, &err, "las");
	sim_free(s);

	s = run_rc(find_policy("las"), pv, 3, &cfg, &rc, &err);
	expect_done(s, rc, &err);
	cr_expect_float_eq(sim_counters(s)->lost_work, 0, 1e-9);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * gavel with its default 360 s rounds and checkpoints every 600 s of
 * work: on one GPU two jobs take turns, a round each, and neither ever
 * reaches a checkpoint.  min_run_s 600 keeps a job through a second
 * round.
 */
Test(livelock, gavel_rounds_shorter_than_checkpoint)
{
	struct tjob t[] = { { 1, 0, 4000, 4000, 1 }, { 2, 0, 4000, 4000, 1 } };
	struct workload w;
	struct cluster_spec c;
	gpu_case(&w, &c, t, 2, 1);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .checkpoint_interval = 600 * SIM_SEC };
	struct param_value pv[] = { num("min_run_s", 600) };
	struct sim_error err;
	int rc;
	struct sim *s = run_rc(find_policy("gavel"), pv, 0, &cfg, &rc, &err);
	expect_livelock(rc, &err, "gavel");
	sim_free(s);

	s = run_rc(find_policy("gavel"), pv, 1, &cfg, &rc, &err);
	expect_done(s, rc, &err);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* The span is the config's: an hour ends the themis livelock within two
 * hours and a lease. */
Test(livelock, span_is_configurable)
{
	struct tjob t[] = { { 1, 0, 4000, 4000, 1 }, { 2, 0, 4000, 4000, 1 } };
	struct workload w;
	struct cluster_spec c;
	gpu_case(&w, &c, t, 2, 1);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .checkpoint_interval = 300 * SIM_SEC,
				  .progress_timeout = 3600 * SIM_SEC };
	struct param_value pv[] = { num("lease_s", 100) };
	struct sim_error err;
	int rc;
	struct sim *s = run_rc(find_policy("themis"), pv, 1, &cfg, &rc, &err);
	expect_livelock(rc, &err, "themis");
	size_t n;
	const struct sample *x = sim_samples(s, &n);
	cr_assert_gt(n, 0);
	cr_expect_leq(x[n - 1].t, (2 * 3600 + 100) * SIM_SEC);
	cr_expect(strstr(err.msg, "from 0 s"), "%s", err.msg);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- Test policies ---------------------------------------------------- */

/* Starts nothing and wakes up every 10 s: pending jobs wait for ever. */
static void idle_schedule(struct sim *sim, void *state)
{
	(void)state;
	sim_wakeup_at(sim, sim_now(sim) + 10 * SIM_SEC);
}

static const struct policy_ops idle_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "idle",
	.schedule = idle_schedule,
};

/* FCFS that starts jobs only at multiples of 7 s, waking itself then. */
static void slow_schedule(struct sim *sim, void *state)
{
	(void)state;
	sim_time_t now = sim_now(sim), step = 7 * SIM_SEC;
	if (now % step == 0)
		sim_start_head(sim);
	sim_wakeup_at(sim, (now / step + 1) * step);
}

static const struct policy_ops slow_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "slow",
	.schedule = slow_schedule,
};

/* FCFS that asks to be woken a second later at every call, for ever. */
static void rearm_schedule(struct sim *sim, void *state)
{
	(void)state;
	sim_start_head(sim);
	sim_wakeup_at(sim, sim_now(sim) + SIM_SEC);
}

static const struct policy_ops rearm_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "rearm",
	.schedule = rearm_schedule,
};

/* A policy that never starts its jobs but keeps waking up: the stall
 * check never fired (there is always an event to come). */
Test(progress, never_starting_ends_with_error)
{
	struct tjob t[] = { { 1, 0, 50, 50, 1 }, { 2, 0, 50, 50, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .progress_timeout = 100 * SIM_SEC };
	struct sim_error err;
	int rc;
	struct sim *s = run_rc(&idle_ops, NULL, 0, &cfg, &rc, &err);
	cr_assert_eq(rc, -SIM_ESTATE);
	cr_expect(strstr(err.msg, "policy 'idle' made no progress"), "%s",
		  err.msg);
	cr_expect(strstr(err.msg, "running: none; waiting: job 1, 2"), "%s",
		  err.msg);
	size_t n;
	const struct sample *x = sim_samples(s, &n);
	cr_expect_leq(x[n - 1].t, 110 * SIM_SEC);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Not a livelock: A (0 s, 30 s) ends at 30; B (10000 s) starts at 35 (the
 * policy starts jobs every 7 s) and runs undisturbed, with no checkpoint
 * in reach (every 10^6 s).  At 133, a span (100 s) after A's end, B has
 * run only 98 s: the look is put off until B has run a span, and B counts
 * as progress from then on.  Time with nothing to run does not count
 * either (C arrives after an idle gap of an hour).
 */
Test(progress, undisturbed_job_is_progress)
{
	struct tjob t[] = { { 1, 0, 30, 30, 2 }, { 2, 0, 10000, 10000, 2 },
			    { 3, 14000, 500, 500, 2 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	tl_cluster(&c, 1, 2);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .checkpoint_interval = 1000000 * SIM_SEC,
				  .progress_timeout = 100 * SIM_SEC };
	struct sim_error err;
	int rc;
	struct sim *s = run_rc(&slow_ops, NULL, 0, &cfg, &rc, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_expect_float_eq(tl_start(s, 2), 35, 1e-9);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* A policy that keeps waking itself: once every job has ended the run
 * ends, at the last job's end (the wake-up it asks for then is not
 * armed, and is not a bad call). */
Test(progress, run_ends_with_its_last_job)
{
	struct tjob t[] = { { 1, 0, 10, 10, 1 }, { 2, 3, 5, 5, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct sim_config cfg = { .workload = &w, .cluster = &c };
	struct sim_error err;
	int rc;
	struct sim *s = run_rc(&rearm_ops, NULL, 0, &cfg, &rc, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	size_t n;
	const struct sample *x = sim_samples(s, &n);
	cr_expect_eq(x[n - 1].t, 15 * SIM_SEC); /* job 2 ends at 15 */
	cr_expect_eq(sim_counters(s)->bad_calls, 0);
	cr_expect_eq(sim_counters(s)->schedule_calls, 16); /* 0, 1, .., 15 */
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- min_run_s -------------------------------------------------------- */

static bool pin_seen[4]; /* what the policy saw at 5 s and at 10 s */

/* Starts the head; at 5 s tries to preempt the running job (refused:
 * min_run_s 10), at 10 s does (allowed). */
static void pin_schedule(struct sim *sim, void *state)
{
	(void)state;
	sim_time_t now = sim_now(sim);
	if (sim_running_len(sim) && (now == 5 * SIM_SEC ||
				     now == 10 * SIM_SEC)) {
		const struct job *j = sim_running_at(sim, 0);
		int k = now == 5 * SIM_SEC ? 0 : 2;
		pin_seen[k] = sim_job_preemptible(sim, j);
		pin_seen[k + 1] = sim_job_preempt(sim, j) == 0;
	}
	if (now < 10 * SIM_SEC)
		sim_wakeup_at(sim, now + 5 * SIM_SEC);
	sim_start_head(sim);
}

static const struct policy_param pin_params[] = {
	{ "min_run_s", PARAM_DOUBLE, "0", "minimum run, seconds" },
	{ NULL, PARAM_INT, NULL, NULL },
};

static const struct policy_ops pin_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "pin",
	.params = pin_params, .schedule = pin_schedule,
};

Test(min_run, engine_refuses_an_early_preemption)
{
	struct tjob t[] = { { 1, 0, 20, 20, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 1);
	tl_cluster(&c, 1, 1);
	struct sim_config cfg = { .workload = &w, .cluster = &c };
	struct param_value pv[] = { num("min_run_s", 10) };
	struct sim_error err;
	int rc;
	memset(pin_seen, 0, sizeof(pin_seen));
	struct sim *s = run_rc(&pin_ops, pv, 1, &cfg, &rc, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_expect_not(pin_seen[0]); /* at 5: protected */
	cr_expect_not(pin_seen[1]);
	cr_expect(pin_seen[2]);     /* at 10: it has run 10 s */
	cr_expect(pin_seen[3]);
	cr_expect_eq(sim_counters(s)->bad_calls, 1);
	cr_expect_eq(sim_counters(s)->preemptions, 1);
	sim_free(s);

	pv[0] = num("min_run_s", -1);
	s = run_rc(&pin_ops, pv, 1, &cfg, &rc, &err);
	cr_expect_eq(rc, -SIM_EINPUT);
	cr_expect(strstr(err.msg, "min_run_s"), "%s", err.msg);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- gittins: wake-ups and restores ------------------------------------ */

/*
 * One GPU, the distribution {100, 200, 201, 1000} GPU-s, 30 s to restore.
 * A (0 s, 1000 s) outlives 201 at 201 and B (100 s) takes the GPU; B
 * passes 201 at 402 and A, first by submit at the same index, restarts:
 * it restores until 432, then needs 799 s to reach the next sample.  Its
 * wake-up counts from the end of the restore (1231, when it ends), not
 * from 402 (1201, 30 s short, then again and again as the gap closes: a
 * sample a hair above a restoring job's service made that a wake-up
 * every microsecond of the restore).
 */
Test(gittins_wake, counted_from_the_end_of_the_restore)
{
	struct tjob t[] = { { 1, 0, 1000, 1000, 1 }, { 2, 100, 1000, 1000, 1 } };
	struct workload w;
	struct cluster_spec c;
	gpu_case(&w, &c, t, 2, 1);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .restore_overhead = 30 * SIM_SEC };
	struct param_value pv[] = { str("distribution_s", "100,200,201,1000") };
	struct sim_error err;
	int rc;
	struct sim *s = run_rc(find_policy("gittins_cont"), pv, 1, &cfg, &rc, &err);
	expect_done(s, rc, &err);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	cr_expect_eq(j[0].end, 1231 * SIM_SEC);
	cr_expect_eq(j[1].start, 201 * SIM_SEC);
	cr_expect_eq(j[1].end, 2060 * SIM_SEC);
	cr_expect_eq(sim_counters(s)->schedule_calls, 9); /* was 11 */
	cr_expect_eq(sim_counters(s)->preemptions, 2);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Two 1-GPU jobs of 5000 s on one GPU, the distribution {100}: both
 * outlive it.  CPU jobs (no GPU) arrive every 100 s, each a scheduling
 * point.  An outlived job's index was 1 / its service, so the one that
 * waited had the higher index at every point and the two swapped at
 * each, paying a restore each time; now every outlived job has the same
 * index and they run in submit order: A to its end, then B.
 */
Test(gittins_wake, outlived_jobs_run_in_submit_order)
{
	struct tjob t[52] = { { 1, 0, 5000, 5000, 1 }, { 2, 0, 5000, 5000, 1 } };
	for (int i = 0; i < 50; i++)
		t[2 + i] = (struct tjob){ 3 + i, 100.0 * (i + 1), 10, 10, 1 };
	struct workload w;
	struct cluster_spec c;
	tl_cluster(&c, 1, 8);
	c.groups[0].gpus = 1;
	tl_workload(&w, t, 52);
	for (size_t i = 0; i < w.n; i++)
		if (w.jobs[i].id <= 2) {
			w.jobs[i].gpus = 1;
			w.jobs[i].cpus = 0;
		}
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .restore_overhead = 30 * SIM_SEC };
	struct param_value pv[] = { str("distribution_s", "100") };
	struct sim_error err;
	int rc;
	struct sim *s = run_rc(find_policy("gittins_cont"), pv, 1, &cfg, &rc, &err);
	expect_done(s, rc, &err);
	cr_expect_eq(sim_counters(s)->preemptions, 0);
	cr_expect_float_eq(tl_start(s, 2), 5000, 1e-9);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}
