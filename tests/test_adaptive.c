/*
 * Adaptive jobs: the engine's sim_job_resize and sim_job_time_to_target
 * (sim/engine/sim_resize.c) worked by hand on cifar10 jobs of the goodput
 * model, and the optimus policy (policies/optimus.c) on a tiny case.
 *
 * cifar10, batch 2048 (validated; the smallest per-GPU batch is 32, the
 * largest 1024): on 1 GPU local 2048 = 2 x 1024 (one accumulation step);
 * on 2 GPUs 1024 each; on 4, 512 each.  All three train with exactly
 * 2048, so the steps to target are the same, and only the step time of
 * the placement differs: T(r) = steps x step(r).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/registry.h"
#include "speed/goodput.h"
#include "base/util.h"
#include "testlib.h"

#define SEC(x) ((sim_time_t)((x) * SIM_SEC))

static unsigned cifar(void)
{
	int a = goodput_app_find("cifar10");
	cr_assert_gt(a, 0);
	return (unsigned)a;
}

/* T(r): cifar10 batch 2048 on r GPUs packed into one node, seconds (on
 * 3 GPUs it trains with 3 x 683 = 2049). */
static double t_of(uint32_t r)
{
	struct goodput_batch b;
	cr_assert_eq(goodput_batch(cifar(), 2048, r, &b, NULL), 0);
	uint32_t g[] = { r };
	return goodput_target_steps(cifar(), b.total) *
	       goodput_step_seconds(cifar(), g, 1, &b);
}

/* n cifar10 jobs of batch 2048 on ref_gpus GPUs, submitted at 0, 100,
 * 200 ... */
static void jobs(struct workload *w, size_t n, uint32_t ref_gpus)
{
	struct tjob t[4];
	struct goodput_batch b;
	cr_assert_eq(goodput_batch(cifar(), 2048, ref_gpus, &b, NULL), 0);
	double work = goodput_work_seconds(cifar(), &b, ref_gpus);
	for (size_t i = 0; i < n; i++)
		t[i] = (struct tjob){ (int64_t)i + 1, 100.0 * (double)i, work,
				      -1, 1 };
	tl_workload(w, t, n);
	for (size_t i = 0; i < n; i++) {
		struct job *j = &w->jobs[i];
		j->cpus = 0;
		j->gpus = j->ref_gpus = ref_gpus;
		j->batch = j->ref_batch = 2048;
		j->goodput_app = (uint16_t)cifar();
		j->run = j->estimate = (sim_time_t)llround(work * SIM_SEC);
	}
}

/* Runs ops on one node of 4 T4 with the speed model, restore `restore`
 * seconds; the finished sim. */
static struct sim *run(const struct policy_ops *ops, struct workload *w,
		       struct cluster_spec *c, double restore)
{
	struct speed_config sc;
	struct pval *params;
	size_t np;
	struct sim_error err;
	tl_gpu_cluster(c, 1, 4, "t4", 0);
	tl_speed_config(&sc);
	cr_assert_eq(policy_params_resolve(ops, NULL, 0, "", &params, &np,
					   &err), 0, "%s", err.msg);
	struct sim_config cfg = {
		.workload = w, .cluster = c, .policy = ops, .params = params,
		.nparams = np, .seed = 1, .check = true, .speed = &sc,
		.restore_overhead = SEC(restore),
	};
	struct sim *s = sim_new(&cfg);
	int rc = sim_run(s, &err);
	free(params);
	cr_assert_eq(rc, 0, "%s", err.msg);
	return s;
}

/* What the resize policy saw, for the checks. */
struct probe {
	int phase;     /* 0: before the start, 1: running, 2: resized */
	double t2;     /* time to target on 2 GPUs, at 0 */
	int bad;       /* refused calls, as the policy counted them */
};

static __thread struct probe probe;

/*
 * A job of reference width 4 (its work is T(4)).  At 0 the policy
 * checks the calls, asks T(2) and starts it on 4 GPUs.  At 100 it
 * preempts it, resizes it to 2 GPUs and starts it again (restore 10 s).
 * It kept 100 s of work; the rest, T(4) - 100, runs at rate T(4) / T(2):
 * it ends at 100 + 10 + (T(4) - 100) x T(2) / T(4).
 */
static void resize_schedule(struct sim *sim, void *state)
{
	(void)state;
	struct probe *p = &probe;
	const struct job *j = sim_queue_len(sim) ? sim_queue_at(sim, 0)
						 : sim_running_at(sim, 0);
	if (p->phase == 0) {
		p->t2 = sim_job_time_to_target(sim, j, 2, 2048);
		p->bad += sim_job_resize(sim, j, 0, 2048) != 0;
		p->bad += sim_job_resize(sim, j, 5, 2048) != 0; /* > cluster */
		p->bad += sim_job_resize(sim, j, 2, 8192) != 0; /* batch */
		cr_assert(isnan(sim_job_time_to_target(sim, j, 2, 8192)));
		sim_job_start(sim, j);
		p->bad += sim_job_resize(sim, j, 2, 2048) != 0; /* running */
		sim_wakeup_at(sim, SEC(100));
		p->phase = 1;
	} else if (p->phase == 1 && sim_now(sim) == SEC(100)) {
		cr_assert_eq(sim_job_preempt(sim, j), 0);
		cr_assert_eq(sim_job_resize(sim, j, 2, 2048), 0);
		cr_assert_eq(j->gpus, 2);
		cr_assert_eq(sim_job_start(sim, j), 0);
		p->phase = 2;
	}
}

static const struct policy_ops resize_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "resize",
	.schedule = resize_schedule,
};

Test(adaptive, resize_and_time_to_target)
{
	struct workload w;
	struct cluster_spec c;
	jobs(&w, 1, 4);
	memset(&probe, 0, sizeof(probe));
	struct sim *s = run(&resize_ops, &w, &c, 10);
	const struct probe *p = &probe;
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	double t4 = t_of(4), t2 = t_of(2);
	cr_expect_float_eq(p->t2, t2, 1e-6);
	cr_expect_eq(p->bad, 4);
	cr_expect_eq(p->phase, 2);
	double want = 100 + 10 + (t4 - 100) * t2 / t4;
	cr_expect(fabs((double)j[0].end / SIM_SEC - want) < 2e-6, "%f vs %f",
		  (double)j[0].end / SIM_SEC, want);
	cr_expect_eq(j[0].preemptions, 1);
	cr_expect_eq(j[0].gpus, 2);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * optimus on 4 GPUs: two equal jobs of reference width 1 at 0.  Each
 * gets 1 GPU; the third goes to the first (equal gains: submit order),
 * the fourth to the second (its gain T(1) - T(2) beats the first's
 * T(2) - T(3)).  Both run on 2 GPUs from 0 and end at T(2).
 */
Test(adaptive, optimus_splits_the_gpus)
{
	struct workload w;
	struct cluster_spec c;
	jobs(&w, 2, 1);
	w.jobs[1].submit = 0;
	const struct policy_ops *ops = NULL;
	for (size_t i = 0; policy_builtin[i]; i++)
		if (strcmp(policy_builtin[i]->name, "optimus") == 0)
			ops = policy_builtin[i];
	cr_assert_not_null(ops);
	cr_assert_gt(t_of(1) - t_of(2), t_of(2) - t_of(3));
	struct sim *s = run(ops, &w, &c, 0);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	for (size_t i = 0; i < 2; i++) {
		cr_expect_eq(j[i].start, 0);
		cr_expect_eq(j[i].gpus, 2);
		cr_expect(fabs((double)j[i].end / SIM_SEC - t_of(2)) < 2e-6,
			  "job %zu ends %f, T(2) %f", i,
			  (double)j[i].end / SIM_SEC, t_of(2));
	}
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}
