/*
 * The metrics of preempted jobs (docs/metrics.md), worked by hand: wait
 * is the total time queued, first_wait the first start's delay, service
 * the run time alone, and slowdowns divide by the service - not by
 * end - start, which includes the time a job spent preempted (by that
 * measure every preempted job would have a slowdown of about 1).  Each
 * column of jobs.csv and the summary metrics are checked on an engine
 * run, with and without work lost to a checkpoint interval, and the
 * service of a GPU job that shares the fabric against the speed model.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/registry.h"
#include "report/out.h"
#include "report/stats.h"
#include "testlib.h"
#include "base/util.h"

/* Preempts job 1 at 10 s for job 2; otherwise starts the queue head. */
static void mp_schedule(struct sim *sim, void *state)
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
		cr_assert_eq(sim_job_preempt(sim, a), 0);
		cr_assert_eq(sim_job_start(sim, b), 0);
		return;
	}
	if (sim_now(sim) == 0)
		cr_assert_eq(sim_wakeup_at(sim, 10 * SIM_SEC), 0);
	sim_start_head(sim);
}

static const struct policy_ops mp_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "swap",
	.schedule = mp_schedule,
};

static struct sim *mp_run(const struct workload *w,
			  const struct cluster_spec *c, double interval_s)
{
	struct pval *params;
	size_t np;
	struct sim_error err;
	cr_assert_eq(policy_params_resolve(&mp_ops, NULL, 0, "", &params,
					   &np, &err), 0);
	struct sim_config cfg = {
		.workload = w, .cluster = c, .policy = &mp_ops,
		.params = params, .nparams = np, .seed = 1, .check = true,
		.checkpoint_interval = (sim_time_t)(interval_s * SIM_SEC),
		.restore_overhead = 3 * SIM_SEC,
	};
	struct sim *s = sim_new(&cfg);
	cr_assert_eq(sim_run(s, &err), 0, "%s", err.msg);
	free(params);
	return s;
}

/* jobs.csv of the run, written by out_write_run (tau 10 s), and its
 * metrics in *m. */
static char *mp_jobs_csv(struct sim *s, struct metrics *m)
{
	char dir[] = "/tmp/clustersim-mp-XXXXXX";
	cr_assert(mkdtemp(dir));
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	struct run_result r = { .label = "swap", .policy = "swap",
				.workload = "t", .seed = 1, .jobs = j,
				.njobs = n, .counters = *sim_counters(s) };
	stats_compute(j, n, 1, 0, 10 * SIM_SEC, sim_counters(s), &r.metrics);
	*m = r.metrics;
	struct sim_error err;
	cr_assert_eq(out_write_run(dir, &r, 10 * SIM_SEC, &err), 0, "%s",
		     err.msg);
	char *path = xasprintf("%s/swap-s1/jobs.csv", dir);
	FILE *f = fopen(path, "r");
	cr_assert(f);
	char *text = xcalloc(4096, 1);
	size_t len = fread(text, 1, 4095, f);
	text[len] = '\0';
	fclose(f);
	free(path);
	tl_rmtree(dir);
	return text;
}

#define MP_EXPECT(m, id, val)                                                \
	cr_expect((m).set[id] && fabs((m).v[id] - (val)) < 1e-9,             \
		  "%s = %.12g, expected %.12g", metric_defs[id].name,        \
		  (m).v[id], (double)(val))

static const char mp_header[] =
	"id,submit,start,end,wait,run,response,slowdown,bounded_slowdown,"
	"procs,estimate,user,group,state,gpus,nodes,gpu_type,preemptions,"
	"restarts,attained,queued,placement_slowdown,first_wait,service,"
	"lost_work,measured,job_class\n";

/*
 * 1 CPU, tau 10 s.  A (submit 0, 100 s of work), B (submit 5, 20 s).
 * Checkpoints every 4 s of work, 3 s to restore.  A runs 0..10, is
 * preempted having done 10 s and kept 8 (lost_work 2); B runs 10..30; A
 * restores 30..33 and does its last 92 s: it ends at 125.
 *   A: wait = queued 20 (10..30), first_wait 0, run 125 (end - start,
 *      preempted time included), response 125, service 100 (its work, a
 *      CPU job), slowdown = bsld = 125 / 100 = 1.25 (end - start would
 *      give 1), preemptions 1, restarts 1, attained 105 = 100 + 3 + 2.
 *   B: wait = first_wait 5, run 20, response 25, service 20,
 *      slowdown = bsld = 25 / 20 = 1.25, nothing lost.
 * Summary: wait mean 12.5, max 20; first wait mean 2.5; response mean
 * 75; slowdown and bsld mean 1.25; preemptions 0.5 and lost work 1 s per
 * job; utilization (105 + 20) / 125 = 1.
 */
Test(metrics_preempt, checkpointed_job_that_loses_work)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 5, 20, 20, 1 } };
	struct workload w;
	struct cluster_spec c;
	struct metrics m;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct sim *s = mp_run(&w, &c, 4);
	char *csv = mp_jobs_csv(s, &m);
	char *want = xasprintf(
		"%s"
		"1,0,0,125,20,125,125,1.25,1.25,1,100,,,finished,0,1,,1,1,105,"
		"20,,0,100,2,1,\n"
		"2,5,10,30,5,20,25,1.25,1.25,1,20,,,finished,0,1,,0,0,20,5,,5,"
		"20,0,1,\n",
		mp_header);
	cr_expect_str_eq(csv, want);
	MP_EXPECT(m, M_WAIT_MEAN, 12.5);
	MP_EXPECT(m, M_WAIT_MAX, 20);
	MP_EXPECT(m, M_QUEUED_MEAN, 12.5);
	MP_EXPECT(m, M_FWAIT_MEAN, 2.5);
	MP_EXPECT(m, M_FWAIT_P95, 4.75);
	MP_EXPECT(m, M_RESP_MEAN, 75);
	MP_EXPECT(m, M_SLD_MEAN, 1.25);
	MP_EXPECT(m, M_BSLD_MEAN, 1.25);
	MP_EXPECT(m, M_BSLD_MAX, 1.25);
	MP_EXPECT(m, M_PREEMPT_MEAN, 0.5);
	MP_EXPECT(m, M_LOST_MEAN, 1);
	MP_EXPECT(m, M_UTIL, 1);
	free(want);
	free(csv);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* The same with a checkpoint at the preemption (interval 0): A keeps its
 * 10 s, restores 30..33, does 90 s and ends at 123: slowdown 1.23, no
 * work lost, attained 103 = 100 + 3. */
Test(metrics_preempt, preempted_job_that_keeps_its_work)
{
	struct tjob t[] = { { 1, 0, 100, 100, 1 }, { 2, 5, 20, 20, 1 } };
	struct workload w;
	struct cluster_spec c;
	struct metrics m;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct sim *s = mp_run(&w, &c, 0);
	char *csv = mp_jobs_csv(s, &m);
	char *want = xasprintf(
		"%s"
		"1,0,0,123,20,123,123,1.23,1.23,1,100,,,finished,0,1,,1,1,103,"
		"20,,0,100,0,1,\n"
		"2,5,10,30,5,20,25,1.25,1.25,1,20,,,finished,0,1,,0,0,20,5,,5,"
		"20,0,1,\n",
		mp_header);
	cr_expect_str_eq(csv, want);
	MP_EXPECT(m, M_SLD_MEAN, (1.23 + 1.25) / 2);
	MP_EXPECT(m, M_LOST_MEAN, 0);
	free(want);
	free(csv);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * A GPU job's service is its work over its rate on its placement with no
 * other job on the fabric.  Two nodes of 2 V100s, one per rack; spread
 * puts A (10 s of work) and B (100 s), 2 GPUs each, one per node: they
 * share the 12.5e9 B/s NICs.  On V100s (the reference type) the rate is
 * (t + a_ref) / (t + a), t = 1 / 4.394774823323071 s per ResNet-50 step,
 * a_ref = 102228128 / 300e9 s, a = 4 x 0.5 us + 102228128 / B: alone
 * B = 12.5e9, shared 6.25e9.  A's service is 10 x q(12.5e9), rounded up
 * to the microsecond, where q(B) = (t + a) / (t + a_ref) = 1.034410...;
 * it ran 10 x q(6.25e9) (sharing), so its slowdown is above 1 though it
 * never waited.
 */
Test(metrics_preempt, gpu_service_is_the_rate_alone)
{
	struct tjob t[] = { { 1, 0, 10, 10, 0 }, { 2, 0, 100, 100, 0 } };
	uint32_t gpus[] = { 2, 2 };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	tl_r50_jobs(&w, t, 2, gpus);
	tl_gpu_cluster(&c, 2, 2, "v100", 1);
	tl_speed_config(&sc);
	struct sim *s = tl_run_speed("fcfs", "spread", &w, &c, &sc);
	double st = 1 / 4.394774823323071, bytes = 102228128.0;
	double a_ref = bytes / 300e9;
	double q_alone = (st + 4e-6 + bytes / 12.5e9) / (st + a_ref);
	double q_shared = (st + 4e-6 + bytes / 6.25e9) / (st + a_ref);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	const struct job *a = j[0].id == 1 ? &j[0] : &j[1];
	cr_expect_eq(a->service, (sim_time_t)ceil(10 * SIM_SEC * q_alone),
		     "service %lld", (long long)a->service);
	cr_expect(fabs((double)(a->end - a->start) / SIM_SEC -
		       10 * q_shared) < 1e-5);
	double sld = stats_slowdown(a);
	cr_expect(fabs(sld - q_shared / q_alone) < 1e-6, "slowdown %.9f",
		  sld);
	cr_expect_eq(a->queued, 0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}
