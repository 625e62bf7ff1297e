/*
 * Pollux-style jobs: the goodput model of the artifact's applications
 * (sim/speed/goodput.c), the reader of its workloads
 * (sim/workload/trace_pollux.c), the engine's scheduling rounds and
 * start overhead that its simulator has, las' submit-ordered queues that
 * its Tiresias keeps, and the reproduction of its Tiresias result on
 * workload 6 (experiments/pollux-w6.json).  Figures by hand from the
 * generated tables (sim/speed/goodput_APP.c, the artifact's CSVs) unless
 * said otherwise.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "speed/goodput.h"
#include "workload/workload.h"
#include "base/util.h"
#include "testlib.h"

#define SEC(x) ((sim_time_t)((x) * SIM_SEC))

static unsigned app(const char *name)
{
	int a = goodput_app_find(name);
	cr_assert_gt(a, 0, "no application '%s'", name);
	return (unsigned)a;
}

/* The artifact's batch rule (simulator.py, update_local_bsz). */
Test(goodput, batch_rule)
{
	struct goodput_batch b;
	struct sim_error err;
	cr_assert_eq(goodput_app_count(), 6);
	cr_assert_eq(goodput_app_find("resnet"), -1);
	/* cifar10 2048 on 6: local ceil(2048 / 6) = 342 <= 1024 (its
	 * largest measured), no accumulation: 6 x 342 = 2052. */
	cr_assert_eq(goodput_batch(app("cifar10"), 2048, 6, &b, &err), 0);
	cr_assert_eq(b.atomic, 342);
	cr_assert_eq(b.accum, 0);
	cr_assert_eq(b.total, 2052);
	/* ncf 32768 on 1 GPU, above its initial 256: at least one
	 * accumulation step, atomic ceil(32768 / 2) = 16384. */
	cr_assert_eq(goodput_batch(app("ncf"), 32768, 1, &b, &err), 0);
	cr_assert_eq(b.accum, 1);
	cr_assert_eq(b.atomic, 16384);
	cr_assert_eq(b.total, 32768);
	/* yolov3's largest local batch is 8 (the artifact's override):
	 * 64 on 4 GPUs is 16 each, so 2 steps of 8. */
	cr_assert_eq(goodput_batch(app("yolov3"), 64, 4, &b, &err), 0);
	cr_assert_eq(b.accum, 1);
	cr_assert_eq(b.atomic, 8);
	cr_assert_eq(goodput_batch(app("cifar10"), 8192, 6, &b, &err),
		     -SIM_EINPUT);
	cr_assert_str_eq(err.msg, "batch size '8192' of cifar10 on 6 GPUs "
			 "is outside its measured 128 .. 4096");
	/* 128 on 16 GPUs is 8 each, below cifar10's smallest, 32. */
	cr_assert_eq(goodput_batch(app("cifar10"), 128, 16, &b, &err),
		     -SIM_EINPUT);
	cr_assert_str_eq(err.msg, "batch size '128' of cifar10 on 16 GPUs "
			 "gives 8 examples per GPU, below its measured 32");
}

/*
 * Efficiency: cifar10 epoch 0, validation-2048.csv row 1 sqr
 * 10.73321269096998, var 5.4859538034431825; validation-4096.csv sqr
 * 14.297054109491588, var 11.815138409160218.  At 2048 (s = 16): gain =
 * (var + sqr) / (var / 16 + sqr).  At 3072, half-way: both averaged.
 */
Test(goodput, gain)
{
	double sq = 10.73321269096998, va = 5.4859538034431825;
	cr_assert_float_eq(goodput_gain(app("cifar10"), 2048, 0),
			   (va + sq) / (va / 16 + sq), 1e-12);
	double sq2 = (sq + 14.297054109491588) / 2;
	double va2 = (va + 11.815138409160218) / 2;
	cr_assert_float_eq(goodput_gain(app("cifar10"), 3072, 0),
			   (va2 + sq2) / (va2 / 24 + sq2), 1e-12);
	/* At the initial batch size a step is a step. */
	cr_assert_float_eq(goodput_gain(app("cifar10"), 128, 5), 1.0, 1e-12);
}

/*
 * Throughput: cifar10 on 4 + 2 GPUs is placement 24 (the smallest
 * rotation of 42), measured at local batch 257 and 363; at 342 it is
 * interpolated linearly.  The artifact's applications.py gives step
 * 0.2687774138630561 s, sync 0.020076066023898498 s there (scipy's
 * interp1d), and 897.2982477 s to train 6 x 2048 to its target.
 */
Test(goodput, step_time_and_work)
{
	struct goodput_batch b;
	cr_assert_eq(goodput_batch(app("cifar10"), 2048, 6, &b, NULL), 0);
	uint32_t p42[] = { 4, 2 }, p24[] = { 2, 4 }, p222[] = { 2, 2, 2 };
	double t = goodput_step_seconds(app("cifar10"), p42, 2, &b);
	cr_assert_float_eq(t, 0.2687774138630561, 1e-12);
	cr_assert_float_eq(goodput_step_seconds(app("cifar10"), p24, 2, &b),
			   t, 0);
	cr_assert_float_eq(goodput_work_seconds(app("cifar10"), &b, 6),
			   897.2982477100587, 1e-6);
	/* Spread over three nodes it is slower: the rate is the ratio. */
	double t3 = goodput_step_seconds(app("cifar10"), p222, 3, &b);
	cr_assert_gt(t3, t);
	cr_assert_float_eq(goodput_rate(app("cifar10"), &b, 6, p222, 3),
			   t / t3, 1e-12);
	cr_assert_float_eq(goodput_rate(app("cifar10"), &b, 6, p42, 2), 1.0,
			   0);
	/* With accumulation a step adds (step - sync) per extra pass. */
	struct goodput_batch nb;
	cr_assert_eq(goodput_batch(app("ncf"), 32768, 1, &nb, NULL), 0);
	uint32_t one[] = { 1 };
	struct goodput_batch flat = nb;
	flat.accum = 0;
	double s1 = goodput_step_seconds(app("ncf"), one, 1, &flat);
	double s2 = goodput_step_seconds(app("ncf"), one, 1, &nb);
	cr_assert_gt(s2, s1);
	cr_assert_lt(s2, 2 * s1);
}

/*
 * A placement no table lists: 5 nodes x 4 = 20 replicas.  Neither 5
 * nodes nor 20 replicas on fewer than 5 nodes is measured, so the
 * nearest measured point, 6 nodes x 20 (scalability.csv), is used: the
 * same figure as 4+4+3+3+3+3, which is also 6 nodes x 20.
 */
Test(goodput, unmeasured_placement)
{
	struct goodput_batch b;
	cr_assert_eq(goodput_batch(app("imagenet"), 3200, 20, &b, NULL), 0);
	uint32_t five[] = { 4, 4, 4, 4, 4 }, six[] = { 4, 4, 3, 3, 3, 3 };
	double t5 = goodput_step_seconds(app("imagenet"), five, 5, &b);
	double t6 = goodput_step_seconds(app("imagenet"), six, 6, &b);
	cr_assert(isfinite(t5) && t5 > 0);
	cr_assert_float_eq(t5, t6, 0);
}

/* ---- the reader ---- */

static int load_text(const char *text, struct workload *w,
		     struct sim_error *err, char *path)
{
	strcpy(path, "/tmp/clustersim-pollux-XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0, "mkstemp: %s", strerror(errno));
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct trace_opts o;
	trace_opts_default(&o);
	o.format = TRACE_POLLUX;
	int rc = trace_load(path, &o, w, err);
	unlink(path);
	return rc;
}

#define HEAD "name,time,application,num_replicas,batch_size\n"

Test(trace_pollux, sample)
{
	struct workload w;
	struct sim_error err;
	char path[64];
	cr_assert_eq(load_text(HEAD "cifar10-7,53,cifar10,6,2048\n"
			       "ncf-2,20.5,ncf,1,32768\n", &w, &err, path),
		     0, "%s", err.msg);
	cr_assert_eq(w.n, 2);
	/* Sorted by submit: ncf-2 first; ids from the names. */
	cr_assert_eq(w.jobs[0].id, 2);
	cr_assert_eq(w.jobs[0].submit, SEC(20.5));
	cr_assert_eq(w.jobs[0].goodput_app, app("ncf"));
	cr_assert_eq(w.jobs[0].batch, 32768);
	cr_assert_eq(w.jobs[0].gpus, 1);
	cr_assert_eq(w.jobs[0].cpus, 0);
	cr_assert_eq(w.jobs[0].job_class, JOB_CLASS_NONE);
	cr_assert_eq(w.jobs[1].id, 7);
	cr_assert_eq(w.jobs[1].gpus, 6);
	cr_assert_eq(w.jobs[1].goodput_app, app("cifar10"));
	/* Work: its time to target packed into nodes of 4 (above). */
	cr_assert_eq(w.jobs[1].run, (sim_time_t)llround(897.2982477100587 *
							 SIM_SEC));
	cr_assert_eq(w.jobs[1].estimate, w.jobs[1].run);
	workload_release(&w);
}

static void expect_error(const char *text, const char *msg)
{
	struct workload w;
	struct sim_error err;
	char path[64];
	cr_assert_eq(load_text(text, &w, &err, path), -SIM_EINPUT, "%s",
		     text);
	char *want = xasprintf("%s%s", path, msg);
	cr_assert_str_eq(err.msg, want);
	free(want);
}

Test(trace_pollux, errors)
{
	expect_error(HEAD "gpt-1,0,gpt3,4,64\n",
		     ":2: no goodput model for application 'gpt3'");
	expect_error(HEAD "a,0,cifar10,6,8192\n",
		     ":2: batch size '8192' of cifar10 on 6 GPUs is outside "
		     "its measured 128 .. 4096");
	expect_error(HEAD "a,0,cifar10,0,2048\n",
		     ":2: num_replicas '0' is not an integer in 1 .. 65536");
	expect_error(HEAD "a,-1,cifar10,6,2048\n", ":2: time '-1' is "
		     "negative");
	expect_error("name,time,application,batch_size\n",
		     ":1: missing column 'num_replicas'");
}

/*
 * In the engine: the cifar10 job of 6 GPUs with batch 2048 on 3 nodes of
 * 2 GPUs gets 2 + 2 + 2, and runs its 897.298 s of work at the ratio of
 * the step times of 4 + 2 (its reference) and 2 + 2 + 2.
 */
Test(trace_pollux, runs_at_the_measured_step_time)
{
	struct workload w;
	struct sim_error err;
	struct cluster_spec c;
	struct speed_config sc;
	char path[64];
	cr_assert_eq(load_text(HEAD "cifar10-0,0,cifar10,6,2048\n", &w, &err,
			       path), 0, "%s", err.msg);
	tl_gpu_cluster(&c, 3, 2, "t4", 0);
	tl_speed_config(&sc);
	struct sim *s = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	size_t nj;
	const struct job *j = sim_jobs(s, &nj);
	struct goodput_batch b;
	cr_assert_eq(goodput_batch(app("cifar10"), 2048, 6, &b, NULL), 0);
	uint32_t p42[] = { 4, 2 }, p222[] = { 2, 2, 2 };
	double want = 897.2982477100587 *
		      goodput_step_seconds(app("cifar10"), p222, 3, &b) /
		      goodput_step_seconds(app("cifar10"), p42, 2, &b);
	cr_assert_eq(j[0].nodes_used, 3);
	cr_expect(fabs((double)j[0].end / SIM_SEC - want) < 2e-6, "%f vs %f",
		  (double)j[0].end / SIM_SEC, want);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- the engine: rounds and the start overhead ---- */

/*
 * One GPU, fcfs.  A (submit 10, 100 s), B (submit 20, 50 s).  With
 * rounds of 60 s: A starts at the round 60 and ends 160; B starts at
 * the next round, 180, and ends 230.  With a 30 s start overhead as
 * well: A works from 90 and ends 190; B starts at 240, works from 270,
 * ends 320.
 */
static struct sim *round_run(sim_time_t interval, sim_time_t start_over,
			     struct workload *w, struct cluster_spec *c)
{
	static const struct tjob t[] = {
		{ 1, 10, 100, -1, 1 },
		{ 2, 20, 50, -1, 1 },
	};
	tl_workload(w, t, 2);
	for (size_t i = 0; i < w->n; i++) {
		w->jobs[i].gpus = 1;
		w->jobs[i].cpus = 0;
	}
	tl_gpu_cluster(c, 1, 1, NULL, 0);
	struct sim_config cfg = { .workload = w, .cluster = c };
	cfg.schedule_interval = interval;
	cfg.start_overhead = start_over;
	return tl_run_cfg("fcfs", NULL, 0, &cfg);
}

Test(engine_rounds, schedule_interval_and_start_overhead)
{
	struct workload w;
	struct cluster_spec c;
	size_t nj;
	struct sim *s = round_run(SEC(60), 0, &w, &c);
	const struct job *j = sim_jobs(s, &nj);
	cr_assert_eq(j[0].start, SEC(60));
	cr_assert_eq(j[0].end, SEC(160));
	cr_assert_eq(j[1].start, SEC(180));
	cr_assert_eq(j[1].end, SEC(230));
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);

	s = round_run(SEC(60), SEC(30), &w, &c);
	j = sim_jobs(s, &nj);
	cr_assert_eq(j[0].start, SEC(60));
	cr_assert_eq(j[0].end, SEC(190));
	cr_assert_eq(j[1].start, SEC(240));
	cr_assert_eq(j[1].end, SEC(320));
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);

	/* Without rounds: at once, as ever. */
	s = round_run(0, 0, &w, &c);
	j = sim_jobs(s, &nj);
	cr_assert_eq(j[0].start, SEC(10));
	cr_assert_eq(j[1].start, SEC(110));
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- las with submit-ordered queues ---- */

/*
 * Two GPUs, one queue.  A (0 s, 1 GPU, 100 s), B (10 s, 2 GPUs, 100 s),
 * C (20 s, 1 GPU, 100 s).  At 20 C starts beside A (B does not fit).
 * At 100 A ends.  las keeps C running ahead of the waiting B: C ends
 * 120, B runs 120..220.  With in_queue_preempt the queue is in submit
 * order, so B preempts C: B runs 100..200, C resumes with 20 s left
 * and ends 220.
 */
static struct sim *queue_run(bool inq, struct workload *w,
			     struct cluster_spec *c)
{
	static const struct tjob t[] = {
		{ 1, 0, 100, -1, 1 },
		{ 2, 10, 100, -1, 2 },
		{ 3, 20, 100, -1, 1 },
	};
	tl_workload(w, t, 3);
	for (size_t i = 0; i < w->n; i++) {
		w->jobs[i].gpus = w->jobs[i].cpus;
		w->jobs[i].cpus = 0;
	}
	tl_gpu_cluster(c, 1, 2, NULL, 0);
	struct param_value pv[] = {
		{ .key = (char *)"thresholds_s", .json_path = (char *)"$.t",
		  .type = PV_STRING, .str = (char *)"100000" },
		{ .key = (char *)"in_queue_preempt", .json_path = (char *)"$.i",
		  .type = PV_BOOL, .b = inq },
	};
	struct sim_config cfg = { .workload = w, .cluster = c };
	return tl_run_cfg("las", pv, 2, &cfg);
}

Test(las, in_queue_preempt)
{
	struct workload w;
	struct cluster_spec c;
	size_t nj;
	struct sim *s = queue_run(false, &w, &c);
	const struct job *j = sim_jobs(s, &nj);
	cr_assert_eq(j[1].end, SEC(220));
	cr_assert_eq(j[2].end, SEC(120));
	cr_assert_eq(j[2].preemptions, 0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);

	s = queue_run(true, &w, &c);
	j = sim_jobs(s, &nj);
	cr_assert_eq(j[1].start, SEC(100));
	cr_assert_eq(j[1].end, SEC(200));
	cr_assert_eq(j[2].end, SEC(220));
	cr_assert_eq(j[2].preemptions, 1);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- the reproduction ---- */

/* The mean JCT in a run folder's summary.json. */
static double mean_jct(const char *dir, const char *run)
{
	char *name = xasprintf("%s/summary.json", run);
	char *json = tl_slurp(dir, name);
	cr_assert_not_null(json, "%s", name);
	const char *m = strstr(json, "\"response_mean\":");
	cr_assert_not_null(m);
	double v = atof(m + strlen("\"response_mean\":"));
	free(json);
	free(name);
	return v;
}

/*
 * The Pollux artifact's baselines on its workload 6 (160 jobs, 16 nodes
 * x 4 T4, 60 s rounds; experiments/pollux-w6.json): its README gives
 * mean JCTs of 3,469.69375 s for Tiresias and 5,301.875 s for
 * Optimus+Oracle.  clustersim's are recorded here to the microsecond,
 * and must stay within 15% of the artifact's (docs/pollux.md says what
 * differs job by job).
 */
Test(pollux, workload6_tiresias_and_optimus)
{
	static const char *trace =
		"../shared/traces/gpu/pollux/workloads/workload-6.csv";
	char bin[4096], tmp[4096], cwd[4096];
	if (access(trace, R_OK) != 0)
		cr_skip_test("%s absent: the reproduction needs it", trace);
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "pollux");
	tl_cli_need_bin(bin);
	cr_assert(getcwd(cwd, sizeof(cwd)));
	int rc = tl_sh(tmp, "'%s' run '%s/experiments/pollux-w6.json' "
		       "--no-plots --quiet -o w6", bin, cwd);
	cr_assert_eq(rc, 0, "rc %d", rc);
	double jct = mean_jct(tmp, "w6/tiresias-s1");
	cr_expect_float_eq(jct, 3480.839625, 1e-6);
	cr_expect_lt(fabs(jct - 3469.69375) / 3469.69375, 0.15);
	jct = mean_jct(tmp, "w6/optimus-s1");
	cr_expect_float_eq(jct, 4896.12926, 1e-6);
	cr_expect_lt(fabs(jct - 5301.875) / 5301.875, 0.15);
	tl_rmtree(tmp);
}
