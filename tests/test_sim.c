/*
 * The engine's same-timestamp rules, each pinned, plus rejection,
 * refused calls, a policy that never starts jobs, and two simulations at
 * once in one process.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "policy/registry.h"
#include "testlib.h"
#include "base/util.h"

/* A policy that records what it sees at each schedule() call and behaves
 * like fcfs. */
struct seen {
	sim_time_t t;
	size_t queued, running;
};

struct recorder {
	struct seen calls[64];
	size_t n;
	uint64_t submitted, finished;
};

static int rec_init(struct sim *sim, void **state, struct sim_error *err)
{
	*state = calloc(1, sizeof(struct recorder));
	return 0;
}

/* The recorder of the last run, kept by fini for the test to read. */
static __thread struct recorder last_rec;

static void rec_fini(struct sim *sim, void *state)
{
	last_rec = *(struct recorder *)state;
	free(state);
}

static void rec_submitted(struct sim *sim, void *state, const struct job *j)
{
	((struct recorder *)state)->submitted++;
}

static void rec_finished(struct sim *sim, void *state, const struct job *j)
{
	((struct recorder *)state)->finished++;
}

static void rec_schedule(struct sim *sim, void *state)
{
	struct recorder *r = state;
	if (r->n < 64)
		r->calls[r->n++] = (struct seen){ sim_now(sim),
						  sim_queue_len(sim),
						  sim_running_len(sim) };
	sim_start_head(sim);
}

static const struct policy_ops recorder_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "recorder",
	.init = rec_init, .fini = rec_fini,
	.job_submitted = rec_submitted, .job_finished = rec_finished,
	.schedule = rec_schedule,
};

Test(sim_rules, end_before_submit_and_one_schedule_per_time)
{
	/* 1 CPU.  A runs [0, 10).  B and C are submitted at 10, when A
	 * ends.  Rule 1: A's end is applied before the submits, rule 2:
	 * schedule() runs once at 10, seeing B and C pending and nothing
	 * running; B starts at 10, C at 15. */
	struct tjob t[] = {
		{ 1, 0, 10, 10, 1 }, { 2, 10, 5, 5, 1 }, { 3, 10, 5, 5, 1 },
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	tl_cluster(&c, 1, 1);
	struct sim *s = tl_run_ops(&recorder_ops, &w, &c);
	struct recorder *r = &last_rec;
	/* Calls: t=0 (A submitted), t=10 (A ended + B, C submitted),
	 * t=15 (B ended), t=20 (C ended). */
	cr_assert_eq(r->n, 4);
	cr_assert_eq(r->calls[1].t, 10 * SIM_SEC);
	cr_assert_eq(r->calls[1].queued, 2);
	cr_assert_eq(r->calls[1].running, 0);
	cr_assert_eq(r->submitted, 3);
	cr_assert_eq(r->finished, 3);
	cr_assert_eq(tl_start(s, 2), 10.0);
	cr_assert_eq(tl_start(s, 3), 15.0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(sim_rules, zero_length_job_ends_at_once_and_schedule_runs_again)
{
	/* 1 CPU.  A (run 0) and B (run 5) are submitted at 0.  schedule()
	 * starts A; its end is at 0, applied next (rule 3), and schedule()
	 * runs again at 0 and starts B at 0. */
	struct tjob t[] = { { 1, 0, 0, 0, 1 }, { 2, 0, 5, 5, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct sim *s = tl_run_ops(&recorder_ops, &w, &c);
	struct recorder *r = &last_rec;
	cr_assert_eq(r->n, 3); /* t=0, t=0 again, t=5 */
	cr_assert_eq(r->calls[0].t, 0);
	cr_assert_eq(r->calls[1].t, 0);
	cr_assert_eq(r->calls[1].queued, 1);
	cr_assert_eq(r->calls[1].running, 0);
	cr_assert_eq(tl_start(s, 2), 0.0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(sim_rules, sample_is_taken_after_schedule)
{
	/* 4 CPUs; A (2 CPUs) submitted at 0 and started by schedule() at 0:
	 * the sample at 0 (rule 4) already sees it running. */
	struct tjob t[] = { { 1, 0, 100, 100, 2 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 1);
	tl_cluster(&c, 1, 4);
	struct sim *s = tl_run("fcfs", &w, &c);
	size_t n;
	const struct sample *x = sim_samples(s, &n);
	cr_assert_geq(n, 2);
	cr_assert_eq(x[0].t, 0);
	cr_assert_eq(x[0].busy_cpus, 2);
	cr_assert_eq(x[0].running, 1);
	cr_assert_eq(x[0].queued, 0);
	cr_assert_float_eq(x[0].util, 0.5, 1e-12);
	/* The last sample is at the last end, idle; the one before covers
	 * time when 2 of 4 CPUs were busy. */
	cr_assert_eq(x[n - 1].t, 100 * SIM_SEC);
	cr_assert_float_eq(x[n - 1].util_avg, 0.5, 1e-12);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(sim_rules, queue_ties_broken_by_submit_then_id)
{
	/* sjf with equal estimates keeps (submit, id) order: ids 7, 3, 5 all
	 * at t=1 with estimate 10 run one at a time on 1 CPU after A, in id
	 * order 3, 5, 7.  A job 9 with a shorter estimate goes first. */
	struct tjob t[] = {
		{ 1, 0, 10, 10, 1 }, { 7, 1, 10, 10, 1 }, { 3, 1, 10, 10, 1 },
		{ 5, 1, 10, 10, 1 }, { 9, 2, 1, 1, 1 },
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 5);
	tl_cluster(&c, 1, 1);
	struct sim *s = tl_run("sjf", &w, &c);
	cr_assert_eq(tl_start(s, 9), 10.0);
	cr_assert_eq(tl_start(s, 3), 11.0);
	cr_assert_eq(tl_start(s, 5), 21.0);
	cr_assert_eq(tl_start(s, 7), 31.0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(sim_rules, job_larger_than_cluster_is_rejected_and_counted)
{
	struct tjob t[] = { { 1, 0, 10, 10, 5 }, { 2, 0, 10, 10, 4 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 2, 2); /* 4 CPUs */
	struct sim *s = tl_run("fcfs", &w, &c);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	cr_assert_eq(j[0].state, JOB_REJECTED);
	cr_assert_eq(j[0].start, SIM_TIME_NONE);
	cr_assert_eq(j[1].state, JOB_FINISHED);
	cr_assert_eq(sim_counters(s)->rejected, 1);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* Tries to start a job that does not fit, and a finished one. */
static void bad_schedule(struct sim *sim, void *state)
{
	if (sim_queue_len(sim) == 0)
		return;
	const struct job *j = sim_queue_at(sim, 0);
	if (!sim_job_fits(sim, j))
		cr_assert_lt(sim_job_start(sim, j), 0);
	else
		cr_assert_eq(sim_job_start(sim, j), 0);
	cr_assert_lt(sim_job_start(sim, j), 0); /* no longer pending */
	cr_assert_lt(sim_wakeup_at(sim, sim_now(sim)), 0);
}

static const struct policy_ops bad_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "bad",
	.schedule = bad_schedule,
};

Test(sim_rules, refused_calls_are_counted)
{
	/* 1 CPU: A starts at 0; at 0 B does not fit.  Calls refused: at 0,
	 * A again + wakeup (2); at 1, B does not fit + B again + wakeup (3);
	 * at 10 B starts, then B again + wakeup (2).  Total 7. */
	struct tjob t[] = { { 1, 0, 10, 10, 1 }, { 2, 1, 5, 5, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct sim *s = tl_run_ops(&bad_ops, &w, &c);
	cr_assert_eq(sim_counters(s)->bad_calls, 7);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

static void idle_schedule(struct sim *sim, void *state) {}

static void fcfs_like_schedule(struct sim *sim, void *state)
{
	sim_start_head(sim);
}

static const struct policy_ops idle_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "idle",
	.schedule = idle_schedule,
};

Test(sim_rules, policy_that_never_starts_jobs_is_an_error)
{
	struct tjob t[] = { { 1, 0, 10, 10, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 1);
	tl_cluster(&c, 1, 1);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .policy = &idle_ops, .check = true };
	struct sim *s = sim_new(&cfg);
	struct sim_error err;
	cr_assert_eq(sim_run(s, &err), -SIM_ESTATE);
	cr_assert(strstr(err.msg, "left 1 jobs pending"), "%s", err.msg);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* Two simulations at once, in two threads, must not interact: each gives
 * the same bytes as when it runs alone. */
struct thread_run {
	const char *policy;
	struct workload w;
	struct cluster_spec c;
	struct job *out;
	size_t n;
};

static void *run_thread(void *arg)
{
	struct thread_run *tr = arg;
	for (size_t i = 0; policy_builtin[i]; i++) {
		if (strcmp(policy_builtin[i]->name, tr->policy))
			continue;
		struct pval *params;
		size_t np;
		struct sim_error err;
		policy_params_resolve(policy_builtin[i], NULL, 0, "", &params,
				      &np, &err);
		struct sim_config cfg = { .workload = &tr->w, .cluster = &tr->c,
					  .policy = policy_builtin[i],
					  .params = params, .nparams = np };
		struct sim *s = sim_new(&cfg);
		if (sim_run(s, &err) == 0) {
			const struct job *j = sim_jobs(s, &tr->n);
			tr->out = malloc(tr->n * sizeof(*j));
			memcpy(tr->out, j, tr->n * sizeof(*j));
		}
		sim_free(s);
		free(params);
	}
	return NULL;
}

Test(sim_rules, two_simulations_in_one_process_do_not_interact)
{
	struct thread_run a = { .policy = "easy" }, b = { .policy = "conservative" };
	tl_random_workload(&a.w, 3000, 32, 7);
	tl_random_workload(&b.w, 3000, 16, 8);
	tl_cluster(&a.c, 16, 4);
	tl_cluster(&b.c, 4, 8);
	struct thread_run a1 = a, b1 = b;
	run_thread(&a1); /* alone */
	run_thread(&b1);
	pthread_t ta, tb;
	pthread_create(&ta, NULL, run_thread, &a);
	pthread_create(&tb, NULL, run_thread, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	cr_assert(a.out && b.out && a1.out && b1.out);
	cr_assert_eq(memcmp(a.out, a1.out, a.n * sizeof(struct job)), 0);
	cr_assert_eq(memcmp(b.out, b1.out, b.n * sizeof(struct job)), 0);
	free(a.out); free(b.out); free(a1.out); free(b1.out);
	workload_release(&a.w);
	workload_release(&b.w);
	cluster_spec_release(&a.c);
	cluster_spec_release(&b.c);
}

/* Notifications come after the fact: starting a job from one is refused
 * (and counted); schedule() is the one decision point. */
static void eager_submitted(struct sim *sim, void *state, const struct job *j)
{
	cr_assert_lt(sim_job_start(sim, j), 0);
}

static const struct policy_ops eager_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "eager",
	.job_submitted = eager_submitted,
	.schedule = fcfs_like_schedule,
};

Test(sim_rules, notifications_may_not_start_jobs)
{
	struct tjob t[] = { { 1, 0, 10, 10, 1 }, { 2, 1, 5, 5, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct sim *s = tl_run_ops(&eager_ops, &w, &c);
	cr_assert_eq(sim_counters(s)->bad_calls, 2);
	cr_assert_eq(tl_start(s, 1), 0.0); /* started by schedule() */
	cr_assert_eq(tl_start(s, 2), 10.0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Rate changes move end events.  4 CPUs; A (0 s, 100 s of work) and B
 * (10 s, 100 s).  At 10 s A is slowed to half speed: it has done 10 s of
 * work, the other 90 s take 180 s, so it would end at 190.  B ends at 110;
 * then A is sped up to twice the reference: done 10 + 100 * 0.5 = 60 s,
 * the remaining 40 s take 20 s: A ends at 130.
 */
static void rate_schedule(struct sim *sim, void *state)
{
	sim_start_head(sim);
	sim_time_t now = sim_now(sim);
	const struct job *a = NULL;
	for (size_t i = 0; i < sim_running_len(sim); i++)
		if (sim_running_at(sim, i)->id == 1)
			a = sim_running_at(sim, i);
	if (!a)
		return;
	if (now == 10 * SIM_SEC) {
		cr_assert_float_eq(sim_job_work_done(sim, a), 10e6, 1e-6);
		cr_assert_eq(sim_set_job_rate(sim, a, 0.5), 0);
	} else if (now == 110 * SIM_SEC) {
		cr_assert_float_eq(sim_job_work_done(sim, a), 60e6, 1e-6);
		cr_assert_eq(sim_set_job_rate(sim, a, 2.0), 0);
	}
	cr_assert_lt(sim_set_job_rate(sim, a, 0), 0);
}

static const struct policy_ops rate_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "rate",
	.schedule = rate_schedule,
};

Test(sim_rules, rate_changes_reschedule_end_events)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 10, 100, 100, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 4);
	struct sim *s = tl_run_ops(&rate_ops, &w, &c);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	cr_assert_eq(j[0].end, 130 * SIM_SEC);
	cr_assert_eq(j[1].end, 110 * SIM_SEC);
	cr_assert_eq(j[0].state, JOB_FINISHED);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- a policy's misuse is counted, never an abort ---------------------- */

/* Once, at the first call with a job waiting: a pointer into the middle
 * of a job record, indexes past the queue and the running set, a
 * parameter it does not declare and queries about a copy of a job (no
 * job of the run); then FCFS. */
static void misuse_schedule(struct sim *sim, void *state)
{
	bool *done = state;
	if (!*done && sim_queue_len(sim) > 0) {
		*done = true;
		const struct job *j = sim_queue_at(sim, 0);
		cr_expect_neq(sim_job_start(sim, (const struct job *)
						 ((const char *)j + 8)), 0);
		cr_expect_null(sim_queue_at(sim, sim_queue_len(sim)));
		cr_expect_null(sim_running_at(sim, 7));
		cr_expect_eq(sim_param_int(sim, "depth"), 0);
		/* A job of no run: every query refuses it. */
		struct job stray = *j;
		cr_expect_eq(sim_demand(sim, &stray), 0);
		cr_expect_not(sim_job_fits(sim, &stray));
		cr_expect_eq(sim_expected_end(sim, &stray), SIM_TIME_MAX);
		cr_expect_eq(sim_job_work_done(sim, &stray), 0);
		cr_expect_eq(sim_job_service(sim, &stray), 0);
		cr_expect_null(sim_job_placement(sim, &stray));
		cr_expect_null(sim_job_partner(sim, &stray));
		cr_expect_eq(sim_job_vc(sim, &stray), -1);
	}
	sim_start_head(sim);
}

static const struct policy_ops misuse_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .size = sizeof(struct policy_ops),
	.name = "misuse", .state_size = sizeof(bool),
	.schedule = misuse_schedule,
};

/* Each was an abort (an engine assertion or an internal error); now each
 * is a refused call, the run goes on as FCFS and the first reason is
 * kept for the warning. */
Test(sim, a_policy_s_misuse_is_a_bad_call_not_an_abort)
{
	struct tjob t[] = { { 1, 0, 10, 10, 1 }, { 2, 1, 10, 10, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct sim *s = tl_run_ops(&misuse_ops, &w, &c);
	cr_expect_eq(sim_counters(s)->bad_calls, 4 + 8);
	cr_expect_str_eq(sim_bad_call_first(s), "called sim_queue_at(1) past "
			 "the queue's 1 jobs");
	size_t n;
	const struct job *jobs = sim_jobs(s, &n);
	cr_expect_eq(jobs[1].end, 20 * SIM_SEC);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}
