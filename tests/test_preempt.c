/*
 * Preemption: what a preempted job keeps (checkpoints), what it pays to
 * restart (restore overhead), and the accounting - work + restore
 * overhead + lost work = time held x resources, summed over its runs.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/registry.h"
#include "testlib.h"
#include "base/util.h"

/*
 * A policy that preempts job 1 at 10 s (it asks to be woken then) and
 * starts job 2 in its place; otherwise it starts the queue head while it
 * fits.  It also checks that
 * refused calls are refused: preempting a job that is not running.
 */
static void swap_schedule(struct sim *sim, void *state)
{
	if (sim_now(sim) == 10 * SIM_SEC) {
		const struct job *a = NULL, *b = NULL;
		for (size_t i = 0; i < sim_running_len(sim); i++)
			if (sim_running_at(sim, i)->id == 1)
				a = sim_running_at(sim, i);
		for (size_t i = 0; i < sim_queue_len(sim); i++)
			if (sim_queue_at(sim, i)->id == 2)
				b = sim_queue_at(sim, i);
		cr_assert(a && b);
		cr_assert_lt(sim_job_preempt(sim, b), 0); /* not running */
		/* 10 s of service on its resources so far. */
		double per = a->gpus ? a->gpus : a->cpus;
		cr_assert_float_eq(sim_job_attained(sim, a), 10 * per, 1e-9);
		cr_assert_eq(sim_job_preempt(sim, a), 0);
		cr_assert_eq(sim_job_start(sim, b), 0);
		return;
	}
	if (sim_now(sim) == 0)
		cr_assert_eq(sim_wakeup_at(sim, 10 * SIM_SEC), 0);
	sim_start_head(sim);
}

static const struct policy_ops swap_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "swap",
	.schedule = swap_schedule,
};

static struct sim *run_swap(const struct workload *w,
			    const struct cluster_spec *c, double interval_s,
			    double restore_s)
{
	struct pval *params;
	size_t np;
	struct sim_error err;
	cr_assert_eq(policy_params_resolve(&swap_ops, NULL, 0, "", &params,
					   &np, &err), 0);
	struct sim_config cfg = {
		.workload = w, .cluster = c, .policy = &swap_ops,
		.params = params, .nparams = np, .seed = 1, .check = true,
		.checkpoint_interval = (sim_time_t)(interval_s * SIM_SEC),
		.restore_overhead = (sim_time_t)(restore_s * SIM_SEC),
	};
	struct sim *s = sim_new(&cfg);
	cr_assert_eq(sim_run(s, &err), 0, "%s", err.msg);
	free(params);
	return s;
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

/*
 * 1 CPU.  A (0 s, 100 s of work), B (5 s, 20 s).  Checkpoints every 4 s
 * of work, 3 s to restore.  At 10 A has done 10 s: it keeps 8 (the
 * checkpoint at 8), loses 2, and B runs 10..30.  At 30 A restarts: 3 s of
 * restore, then the remaining 92 s: it ends at 30 + 3 + 92 = 125.
 *   A held the CPU 10 + 95 = 105 s = 100 work + 3 restore + 2 lost.
 *   A waited 20 s (10..30); B 5 s (5..10).
 */
Test(preempt, checkpoint_restore_and_accounting)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 5, 20, 20, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct sim *s = run_swap(&w, &c, 4, 3);
	const struct job *a = job_of(s, 1), *b = job_of(s, 2);
	cr_expect_eq(a->start, 0);           /* the first start */
	cr_expect_eq(a->end, 125 * SIM_SEC);
	cr_expect_eq(a->preemptions, 1);
	cr_expect_eq(a->restarts, 1); /* resumed at 30 */
	cr_expect_eq(b->restarts, 0);
	cr_expect_float_eq(a->attained, 105, 1e-9);
	cr_expect_eq(a->queued, 20 * SIM_SEC);
	cr_expect_eq(b->start, 10 * SIM_SEC);
	cr_expect_eq(b->end, 30 * SIM_SEC);
	cr_expect_eq(b->queued, 5 * SIM_SEC);
	cr_expect_float_eq(b->attained, 20, 1e-9);
	const struct run_counters *rc = sim_counters(s);
	cr_expect_eq(rc->preemptions, 1);
	cr_expect_float_eq(rc->lost_work, 2, 1e-9);
	/* Conservation: CPU-seconds held = the jobs' attained service. */
	cr_expect_float_eq(rc->busy_area, a->attained + b->attained, 1e-9);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* Without checkpoints (interval 0) nothing is lost: A keeps its 10 s,
 * restores for 3, then does 90: 30 + 3 + 90 = 123. */
Test(preempt, checkpoint_at_preemption_loses_nothing)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 5, 20, 20, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct sim *s = run_swap(&w, &c, 0, 3);
	cr_expect_eq(job_of(s, 1)->end, 123 * SIM_SEC);
	cr_expect_float_eq(sim_counters(s)->lost_work, 0, 1e-12);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* The same with 2-GPU jobs on one 2-GPU node: GPU-seconds conserved.
 * A holds 2 GPUs for 105 s (210 GPU-s), B for 20 s (40): 250 in all. */
Test(preempt, gpu_seconds_conserved)
{
	struct tjob t[] = { { 1, 0, 100, 100, 2 }, { 2, 5, 20, 20, 2 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	for (size_t i = 0; i < w.n; i++) {
		w.jobs[i].gpus = w.jobs[i].cpus;
		w.jobs[i].cpus = 0;
	}
	tl_cluster(&c, 1, 8);
	c.groups[0].gpus = 2;
	struct sim *s = run_swap(&w, &c, 4, 3);
	cr_expect_float_eq(job_of(s, 1)->attained, 210, 1e-9);
	cr_expect_float_eq(job_of(s, 2)->attained, 40, 1e-9);
	cr_expect_float_eq(sim_counters(s)->gpu_busy_area, 250, 1e-9);
	cr_expect_eq(job_of(s, 1)->end, 125 * SIM_SEC);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * srtf on one CPU: A (0 s, 100 s) runs; B (10 s, 20 s) arrives with 20 s
 * left against A's 90: B preempts A and runs 10..30; A resumes at 30 and,
 * with nothing lost and no restore cost, ends at 120.  C (40 s, 50 s)
 * arrives when A has 80 s left: C preempts A, runs 40..90, A ends at 120
 * + 50 = 170.  Preemptions: A twice.
 */
Test(preempt, srtf_hand_worked)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 1 }, { 2, 10, 20, 20, 1 },
		{ 3, 40, 50, 50, 1 },
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	tl_cluster(&c, 1, 1);
	struct sim *s = tl_run("srtf", &w, &c);
	cr_expect_eq(job_of(s, 2)->start, 10 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->end, 30 * SIM_SEC);
	cr_expect_eq(job_of(s, 3)->start, 40 * SIM_SEC);
	cr_expect_eq(job_of(s, 3)->end, 90 * SIM_SEC);
	cr_expect_eq(job_of(s, 1)->end, 170 * SIM_SEC);
	cr_expect_eq(job_of(s, 1)->preemptions, 2);
	cr_expect_eq(job_of(s, 1)->restarts, 2);
	cr_expect_float_eq(job_of(s, 1)->attained, 100, 1e-9);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * las on one CPU, one threshold at 100 CPU-s (the example of las.c):
 * A (0 s, 300 s) runs in queue 0 and is demoted at 100; B (50 s, 500 s),
 * waiting in queue 0, preempts it and runs 100..200, when it is demoted
 * too.  Both in queue 1: A (earlier) resumes at 200 and ends at 400, B
 * resumes at 400 and ends at 800.  (srtf: A ends at 300.)
 */
Test(preempt, las_hand_worked)
{
	struct tjob t[] = { { 1, 0, 300, 300, 1 }, { 2, 50, 500, 500, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct param_value pv = {
		.key = (char *)"thresholds_s",
		.json_path = (char *)"$.policies[0].params.thresholds_s",
		.type = PV_STRING, .str = (char *)"100",
	};
	extern const struct policy_ops clustersim_policy_las;
	struct sim *s = tl_run_with(&clustersim_policy_las, &pv, 1, &w, &c);
	cr_expect_eq(job_of(s, 1)->end, 400 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->start, 100 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->end, 800 * SIM_SEC);
	cr_expect_eq(job_of(s, 1)->preemptions, 1);
	cr_expect_eq(job_of(s, 2)->preemptions, 1);
	sim_free(s);
	s = tl_run("srtf", &w, &c);
	cr_expect_eq(job_of(s, 1)->end, 300 * SIM_SEC);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Starvation promotion, threshold 100 CPU-s, promote_knob 1 (the rule of
 * Tiresias's simulator: promoted when the wait P since the last promotion
 * reaches 1 x the run E since then).  A (0 s, 300 s) runs 0..100, is
 * demoted; B (50 s, 500 s) runs 100..200 and is demoted behind A; A (E =
 * 100, P = 100: promoted at 200, the end of queue 0) resumes 200 with its
 * service counted from 0.  B (E = 100; its wait 50..100 came before it
 * ran, so P = 0) is promoted at 300, when A, demoted again, is preempted:
 * B runs 300..400.  A (E = 100 since its promotion) is promoted at 400,
 * B demoted: A runs its last 100 s, 400..500.  B ends at 500 + 300 = 800.
 */
Test(preempt, las_starvation_promotion)
{
	struct tjob t[] = { { 1, 0, 300, 300, 1 }, { 2, 50, 500, 500, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct param_value pv[] = {
		{ .key = (char *)"thresholds_s",
		  .json_path = (char *)"$.p.thresholds_s", .type = PV_STRING,
		  .str = (char *)"100" },
		{ .key = (char *)"promote_knob",
		  .json_path = (char *)"$.p.promote_knob", .type = PV_NUMBER,
		  .num = 1 },
	};
	extern const struct policy_ops clustersim_policy_las;
	struct sim *s = tl_run_with(&clustersim_policy_las, pv, 2, &w, &c);
	cr_expect_eq(job_of(s, 1)->end, 500 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->end, 800 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->preemptions, 2);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Promotion on a case the old rule (wait since the last preemption vs the
 * last run only, FIFO by submit inside a queue) got wrong: it preempted
 * A four times and let B, promoted with an older submit, cut in ahead of
 * C.  One CPU, threshold 100 CPU-s, promote_knob 1; A (10 s, 500 s), B
 * (20 s, 150 s), C (150 s, 200 s).  E = run, P = wait, both since the
 * last promotion (P only once the job has run).
 *   10   A starts (queue 0).  20: B waits behind A in queue 0.
 *   110  A demoted (100 CPU-s): B preempts it.  A: E 100, P 0 -> due 210.
 *   150  C arrives: queue 0 = [B running, C waiting]; B is not preempted.
 *   210  B demoted; A promoted to the end of queue 0: [C, A].  C starts,
 *        B preempted (E 100, P 0 -> due 310).
 *   310  C demoted, B promoted: queue 0 = [A, B]; A resumes (done 100),
 *        C preempted (E 100 -> due 410).
 *   410  A demoted again (100 since its promotion); C promoted: queue 0 =
 *        [B, C]; B resumes (done 100), A preempted (E 100 -> due 510).
 *   460  B ends.  C resumes (done 100).  510: A promoted, waits behind
 *        the running C.  560: C ends; A resumes (done 200) and ends 860.
 * Preemptions: A 2 (110, 410), B 1 (210), C 1 (310).
 */
Test(preempt, las_promotion_hand_worked)
{
	struct tjob t[] = { { 1, 10, 500, 500, 1 }, { 2, 20, 150, 150, 1 },
			    { 3, 150, 200, 200, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	tl_cluster(&c, 1, 1);
	struct param_value pv[] = {
		{ .key = (char *)"thresholds_s",
		  .json_path = (char *)"$.p.thresholds_s", .type = PV_STRING,
		  .str = (char *)"100" },
		{ .key = (char *)"promote_knob",
		  .json_path = (char *)"$.p.promote_knob", .type = PV_NUMBER,
		  .num = 1 },
	};
	extern const struct policy_ops clustersim_policy_las;
	struct sim *s = tl_run_with(&clustersim_policy_las, pv, 2, &w, &c);
	cr_expect_eq(job_of(s, 1)->start, 10 * SIM_SEC);
	cr_expect_eq(job_of(s, 1)->end, 860 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->start, 110 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->end, 460 * SIM_SEC);
	cr_expect_eq(job_of(s, 3)->start, 210 * SIM_SEC);
	cr_expect_eq(job_of(s, 3)->end, 560 * SIM_SEC);
	cr_expect_eq(job_of(s, 1)->preemptions, 2);
	cr_expect_eq(job_of(s, 2)->preemptions, 1);
	cr_expect_eq(job_of(s, 3)->preemptions, 1);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Restoring is not service.  One CPU, thresholds 10 and 20 CPU-s, a 30 s
 * restore on every restart, checkpoints at preemption (nothing lost).
 * A (0 s, 100 s) runs 0..10 and is demoted to queue 1; B (5 s, 100 s)
 * preempts it and runs 10..20, is demoted behind A, and A resumes at 20:
 * it restores 20..50 (service still 10), works 50..60 and is demoted to
 * queue 2 at service 20.  B, waiting in queue 1, resumes at 60: restores
 * 60..90, works 90..100, is demoted behind A.  A resumes at 100, restores
 * 100..130 and does its last 80 s: ends at 210.  B resumes at 210 and
 * ends at 210 + 30 + 80 = 320.  Each held the CPU 10 + 40 + 110 = 160 s
 * (jobs.csv's attained), 60 s of it restoring.
 * Were the restore counted, a resumed job would be demoted 10 s into its
 * restore, before doing any work.
 */
Test(preempt, las_restore_is_not_service)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 5, 100, 100, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct param_value pv[] = {
		{ .key = (char *)"thresholds_s",
		  .json_path = (char *)"$.p.thresholds_s", .type = PV_STRING,
		  .str = (char *)"10,20" },
	};
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .restore_overhead = 30 * SIM_SEC };
	struct sim *s = tl_run_cfg("las", pv, 1, &cfg);
	const struct job *a = job_of(s, 1), *b = job_of(s, 2);
	cr_expect_eq(a->end, 210 * SIM_SEC);
	cr_expect_eq(b->start, 10 * SIM_SEC);
	cr_expect_eq(b->end, 320 * SIM_SEC);
	cr_expect_eq(a->preemptions, 2);
	cr_expect_eq(b->preemptions, 2);
	cr_expect_eq(a->restarts, 2);
	cr_expect_float_eq(a->attained, 160, 1e-9);
	cr_expect_float_eq(b->attained, 160, 1e-9);
	cr_expect_float_eq(sim_job_service(s, a), 100, 1e-9);
	cr_expect_float_eq(sim_job_service(s, b), 100, 1e-9);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * gittins_cont with the distribution {100, 1000} GPU-s (the example of
 * gittins_cont.c), one GPU: A (0 s, 1000 s) has 950 s of service when B
 * (950 s, 100 s) arrives.  A: S = 1000 for sure, index 1 / 50 = 0.02.
 * B: d = 100 gives P 0.5 / E 100 = 0.005, d = 1000 gives 1 / 550: 0.005.
 * A keeps the GPU and ends at 1000; B runs 1000..1100.
 * las (threshold 100): A is demoted at 100, B preempts it at 950 and runs
 * 950..1050; A resumes and ends at 1100.
 */
Test(preempt, gittins_cont_hand_worked)
{
	struct tjob t[] = { { 1, 0, 1000, 1000, 1 }, { 2, 950, 100, 100, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct param_value pv = {
		.key = (char *)"distribution_s",
		.json_path = (char *)"$.p.distribution_s", .type = PV_STRING,
		.str = (char *)"100,1000",
	};
	extern const struct policy_ops clustersim_policy_gittins_cont;
	struct sim *s = tl_run_with(&clustersim_policy_gittins_cont, &pv, 1, &w, &c);
	cr_expect_eq(job_of(s, 1)->end, 1000 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->start, 1000 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->end, 1100 * SIM_SEC);
	cr_expect_eq(job_of(s, 1)->preemptions, 0);
	sim_free(s);
	struct param_value th = {
		.key = (char *)"thresholds_s",
		.json_path = (char *)"$.p.thresholds_s", .type = PV_STRING,
		.str = (char *)"100",
	};
	extern const struct policy_ops clustersim_policy_las;
	s = tl_run_with(&clustersim_policy_las, &th, 1, &w, &c);
	cr_expect_eq(job_of(s, 2)->start, 950 * SIM_SEC);
	cr_expect_eq(job_of(s, 1)->end, 1100 * SIM_SEC);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * The engine's side of the contract: the state and per-job slots it
 * allocates (zeroed, freed by it), and job_started / job_preempted after
 * every start and preemption, whatever made them - here sim_start_head,
 * sim_job_preempt and sim_job_start in swap_schedule.  A notification
 * may not act: its sim_job_start is refused and counted.
 */
struct note_state {
	int inits, starts, preempts;
	bool zeroed;      /* the slots were zero when first seen */
};
struct note_job {
	int starts, preempts;
};
static struct note_state note_seen; /* what fini saw */

static int note_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct note_state *n = *state;
	cr_assert(n);
	n->zeroed = n->starts == 0 && n->preempts == 0;
	n->inits++;
	return 0;
}

static void note_fini(struct sim *sim, void *state)
{
	note_seen = *(struct note_state *)state;
}

static void note_started(struct sim *sim, void *state, const struct job *j)
{
	struct note_state *n = state;
	struct note_job *nj = sim_job_state(sim, j);
	cr_expect_eq(nj->starts, (int)j->restarts); /* zeroed at first */
	nj->starts++;
	n->starts++;
	cr_expect_eq(j->state, JOB_RUNNING);
	cr_expect_lt(sim_job_start(sim, j), 0); /* may not act */
}

static void note_preempted(struct sim *sim, void *state, const struct job *j)
{
	struct note_state *n = state;
	struct note_job *nj = sim_job_state(sim, j);
	nj->preempts++;
	n->preempts++;
	cr_expect_eq(j->state, JOB_PENDING);
	cr_expect_eq(nj->starts, 1);
}

static const struct policy_ops note_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "note",
	.state_size = sizeof(struct note_state),
	.job_state_size = sizeof(struct note_job),
	.init = note_init, .fini = note_fini,
	.job_started = note_started, .job_preempted = note_preempted,
	.schedule = swap_schedule,
};

Test(preempt, the_engine_keeps_state_and_tells_starts_and_preemptions)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 5, 20, 20, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	memset(&note_seen, 0, sizeof(note_seen));
	struct sim *s = tl_run_ops(&note_ops, &w, &c);
	/* A starts at 0, is preempted at 10 for B, and starts again at 30
	 * when B ends. */
	cr_expect_eq(note_seen.inits, 1);
	cr_expect(note_seen.zeroed);
	cr_expect_eq(note_seen.starts, 3);
	cr_expect_eq(note_seen.preempts, 1);
	/* Each refused sim_job_start of a notification is a bad call. */
	cr_expect_eq(sim_counters(s)->bad_calls, 3 + 1);
	cr_expect_eq(job_of(s, 1)->end, 120 * SIM_SEC);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}
