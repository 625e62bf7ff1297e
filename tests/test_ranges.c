/*
 * The model's ranges: inputs whose times could pass the int64
 * microsecond clock, or whose rates the speed model cannot compute, are
 * refused at load with their file:line or JSON path; a job that would
 * still end past the clock's end stops the run with an error, never an
 * abort.  And the size limits ("limits"): the cluster's nodes, the jobs
 * and the timeline's samples are bounded, with defaults that admit 10^7
 * nodes, 10^8 jobs and 10^7 samples, and refused above with the key that
 * raises them; the automatic timeline period doubles at the limit.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "engine/sim.h"
#include "exp/exp.h"
#include "policy/registry.h"
#include "testlib.h"
#include "workload/workload.h"

/* Writes text to a new temporary file with this suffix; the caller
 * unlinks and frees the path. */
static char *tmp_file(const char *text, const char *suffix)
{
	char *path = xasprintf("/tmp/clustersim-limits-XXXXXX%s", suffix);
	int fd = mkstemps(path, (int)strlen(suffix));
	cr_assert(fd >= 0, "mkstemps: %s", strerror(errno));
	size_t n = strlen(text);
	cr_assert_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	return path;
}

/* Loads a trace of the given format from text; the loader's code, its
 * message in err (the file's name replaced by "T"). */
static int load_text(const char *text, enum trace_format fmt,
		     const struct trace_opts *given, struct sim_error *err)
{
	struct trace_opts o;
	struct workload w;
	if (given)
		o = *given;
	else
		trace_opts_default(&o);
	o.format = fmt;
	char *path = tmp_file(text, ".trace");
	workload_init(&w);
	int rc = trace_load(path, &o, &w, err);
	workload_release(&w);
	if (rc) {
		/* "PATH:..." -> "T:..." so tests compare the rest. */
		size_t n = strlen(path);
		if (strncmp(err->msg, path, n) == 0) {
			char rest[sizeof(err->msg)];
			snprintf(rest, sizeof(rest), "T%s", err->msg + n);
			snprintf(err->msg, sizeof(err->msg), "%s", rest);
		}
	}
	unlink(path);
	free(path);
	return rc;
}

static int parse(const char *text, struct experiment *e,
		 struct sim_error *err)
{
	return exp_parse(text, "x.json", e, err); /* released on failure */
}

static void expect_refused(const char *text, const char *msg)
{
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_neq(parse(text, &e, &err), 0, "accepted: %s", text);
	cr_expect_str_eq(err.msg, msg);
}

#define CPU_CLUSTER "\"cluster\": {\"nodes\": [{\"count\": 2, \"cpus\": 4}]}"
#define GPU_CLUSTER "\"cluster\": {\"nodes\": [{\"count\": 4, \"cpus\": 8," \
		    " \"gpus\": 4}], \"rack_nodes\": 2"
#define GEN "\"workload\": {\"generate\": {\"jobs\": 4, \"interarrival\":" \
	    " {\"dist\": \"constant\", \"value\": 10}, \"runtime\":"     \
	    " {\"dist\": \"constant\", \"value\": 100}, \"cpus\":"     \
	    " {\"dist\": \"constant\", \"value\": 1}}}, "               \
	    "\"policies\": [\"fcfs\"]"

/* A run of fcfs on cfg; its code, the sim in *out (caller frees). */
static int run_fcfs(const struct sim_config *base, struct sim **out,
		    struct sim_error *err)
{
	const struct policy_ops *ops = NULL;
	for (size_t i = 0; policy_builtin[i]; i++)
		if (strcmp(policy_builtin[i]->name, "fcfs") == 0)
			ops = policy_builtin[i];
	cr_assert(ops);
	struct pval *params;
	size_t np;
	cr_assert_eq(policy_params_resolve(ops, NULL, 0, "", &params, &np,
					   err), 0);
	struct sim_config cfg = *base;
	cfg.policy = ops;
	cfg.params = params;
	cfg.nparams = np;
	cfg.seed = 1;
	cfg.check = true;
	*out = sim_new(&cfg);
	int rc = sim_run(*out, err);
	free(params);
	return rc;
}

/* ---- times ------------------------------------------------------------ */

Test(ranges, an_swf_submit_near_the_clocks_end_is_refused_at_its_line)
{
	/* 9.2e12 s plus a run used to wrap the clock and abort. */
	struct sim_error err = { .msg = "" };
	int rc = load_text("1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n"
			   "2 9223372036000 -1 1000 1 -1 -1 1 2000 -1 1 1 1 "
			   "-1 1 -1 -1 -1\n", TRACE_SWF, NULL, &err);
	cr_assert_eq(rc, -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "T:2: submit time '9223372036000' is out of "
			 "the clock's input range (at most 9007199254 s, 2^53 "
			 "microseconds)");
	/* A run time or an estimate past the range likewise. */
	rc = load_text("1 0 -1 9007199255 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 "
		       "-1\n", TRACE_SWF, NULL, &err);
	cr_assert_eq(rc, -SIM_EINPUT);
	cr_expect(strstr(err.msg, "T:1: run time '9007199255'"), "%s",
		  err.msg);
	/* The range's end itself is admitted. */
	rc = load_text("1 0 -1 9007199254 1 -1 -1 1 9007199254 -1 1 1 1 -1 1 "
		       "-1 -1 -1\n", TRACE_SWF, NULL, &err);
	cr_expect_eq(rc, 0, "%s", err.msg);
}

Test(ranges, a_load_scale_that_stretches_submits_past_the_range_is_refused)
{
	struct trace_opts o;
	struct sim_error err = { .msg = "" };
	trace_opts_default(&o);
	o.load_scale = 1e-9;
	int rc = load_text("1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n"
			   "2 100000 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 "
			   "-1\n", TRACE_SWF, &o, &err);
	cr_assert_eq(rc, -SIM_EINPUT);
	cr_expect(strstr(err.msg, "makes submit times overflow"), "%s",
		  err.msg);
}

Test(ranges, a_gavel_job_of_1e12_steps_is_refused_not_run_forever)
{
	struct sim_error err = { .msg = "" };
	int rc = load_text("ResNet-50 (batch size 64)\tcmd\tdir\t100\t1\t"
			   "1000000000000\t1\t1\t-1\t0\n", TRACE_GAVEL, NULL, &err);
	cr_assert_eq(rc, -SIM_EINPUT, "%s", err.msg);
	cr_expect(strstr(err.msg, "T:1: run time") &&
		  strstr(err.msg, "out of the clock's input range"), "%s",
		  err.msg);
}

Test(ranges, experiment_times_past_the_range_are_refused_with_their_path)
{
	expect_refused("{" CPU_CLUSTER ", " GEN ", \"timeline_interval\": "
		       "1e13}", "x.json: $.timeline_interval: out of the "
		       "clock's input range (at most 9007199254 s, 2^53 "
		       "microseconds), got '10000000000000'");
	expect_refused("{" CPU_CLUSTER ", " GEN ", \"preemption\": "
		       "{\"restore_per_gpu\": 1e12}}", "x.json: "
		       "$.preemption.restore_per_gpu: out of the clock's input "
		       "range (at most 9007199254 s, 2^53 microseconds), got "
		       "'1000000000000'");
	expect_refused("{" CPU_CLUSTER ", " GEN ", \"preemption\": "
		       "{\"storage_GBps\": 1e-300}}", "x.json: "
		       "$.preemption.storage_GBps: must be 0 or >= 1e-06, got "
		       "'1e-300'");
}

/* ---- rates ------------------------------------------------------------ */

Test(ranges, fabric_figures_outside_the_models_range_are_refused)
{
	/* 1e-300 Gb/s and 1e308 us per link made rates 0 and aborted. */
	expect_refused("{" GPU_CLUSTER ", \"network\": {\"nic_gbps\": "
		       "1e-300}}, " GEN "}", "x.json: "
		       "$.cluster.network.nic_gbps: must be >= 1e-06, got "
		       "'1e-300'");
	expect_refused("{" GPU_CLUSTER ", \"network\": {\"latency_usec\": "
		       "1e308}}, " GEN "}", "x.json: "
		       "$.cluster.network.latency_usec: must be <= 1000000000, "
		       "got '1e+308'");
	expect_refused("{" GPU_CLUSTER ", \"network\": {\"oversubscription\": "
		       "1e308}}, " GEN "}", "x.json: "
		       "$.cluster.network.oversubscription: must be <= "
		       "1000000, got '1e+308'");
	expect_refused("{" GPU_CLUSTER ", \"network\": {\"nvlink_gBps\": "
		       "0}}, " GEN "}", "x.json: "
		       "$.cluster.network.nvlink_gBps: must be > 0, got '0'");
	/* The ends of the ranges are admitted. */
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(parse("{" GPU_CLUSTER ", \"network\": {\"nic_gbps\": "
			   "1e-6, \"latency_usec\": 1e9, \"nvlink_gBps\": "
			   "1e9}}, " GEN "}", &e, &err), 0, "%s", err.msg);
	exp_release(&e);
}

Test(ranges, a_throughput_whose_step_is_under_a_microsecond_is_refused)
{
	expect_refused("{" CPU_CLUSTER ", " GEN ", \"throughputs\": "
		       "{\"resnet50\": {\"v100\": 1e308}}}", "x.json: "
		       "$.throughputs.resnet50.v100: must be <= 1000000, got "
		       "'1e+308'");
	expect_refused("{" CPU_CLUSTER ", " GEN ", \"throughputs\": "
		       "{\"resnet50\": {\"k80\": 1e-9}}}", "x.json: "
		       "$.throughputs.resnet50.k80: must be >= 1e-06, got "
		       "'1e-09'");
}

Test(ranges, a_job_that_would_end_past_the_clock_stops_the_run)
{
	/* 8-GPU ResNet-50 jobs over two nodes at the slowest NIC admitted:
	 * the longest run admitted, slowed this much, passes the clock. */
	struct workload w;
	struct cluster_spec c;
	struct speed_config sp;
	const struct tjob t[] = { { 1, 0, 9e9, -1, 0 } };
	const uint32_t gpus[] = { 8 };
	tl_r50_jobs(&w, t, 1, gpus);
	tl_gpu_cluster(&c, 2, 4, NULL, 0);
	tl_speed_config(&sp);
	sp.net.nic_gbps = 1e-6;
	struct sim_config cfg = { .workload = &w, .cluster = &c, .speed = &sp };
	struct sim *s;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(run_fcfs(&cfg, &s, &err), -SIM_EINPUT);
	cr_expect(strstr(err.msg, "job 1 would end past the simulated "
			 "clock's end"), "%s", err.msg);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- the timeline ----------------------------------------------------- */

Test(limits, an_automatic_timeline_doubles_its_period_at_the_limit)
{
	/* Two jobs, one of 1e8 s: 1 s samples used to take 6 GB. */
	struct workload w;
	struct cluster_spec c;
	const struct tjob t[] = { { 1, 0, 1e8, -1, 1 }, { 2, 100, 10, -1, 1 } };
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 2);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .max_samples = 1000 };
	struct sim *s;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(run_fcfs(&cfg, &s, &err), 0, "%s", err.msg);
	size_t n;
	const struct sample *x = sim_samples(s, &n);
	cr_expect_leq(n, 1000);
	cr_expect_geq(n, 250);
	cr_expect_eq(x[0].t, 0);
	sim_time_t end = (sim_time_t)1e8 * SIM_SEC;
	/* Evenly spaced by a power-of-two multiple of 1 s, the last on
	 * the first step at or after the end, and the average utilization
	 * over the whole span kept. */
	sim_time_t step = x[1].t - x[0].t;
	cr_expect(x[n - 1].t >= end && x[n - 1].t - end < step);
	cr_expect_eq(step % SIM_SEC, 0);
	cr_expect_eq((step / SIM_SEC) & (step / SIM_SEC - 1), 0);
	double area = 0;
	for (size_t i = 1; i < n; i++) {
		cr_expect_eq(x[i].t - x[i - 1].t, step, "sample %zu", i);
		area += x[i].util_avg * (double)(x[i].t - x[i - 1].t);
	}
	cr_expect_float_eq(area / (double)x[n - 1].t,
			   (1e8 + 10) / 2 * SIM_SEC / (double)x[n - 1].t, 1e-9);
	sim_free(s);

	/* Far below the limit nothing changes: the default limit gives the
	 * period of before (what the shipped timelines hold). */
	cfg.max_samples = 0;
	struct workload w2;
	const struct tjob t2[] = { { 1, 0, 50, -1, 1 }, { 2, 1000, 10, -1, 1 } };
	tl_workload(&w2, t2, 2);
	cfg.workload = &w2;
	cr_assert_eq(run_fcfs(&cfg, &s, &err), 0, "%s", err.msg);
	x = sim_samples(s, &n);
	cr_expect_eq(x[1].t - x[0].t, 2 * SIM_SEC); /* 1000 s / 500 */
	cr_expect_eq(n, 506);
	sim_free(s);
	workload_release(&w);
	workload_release(&w2);
	cluster_spec_release(&c);
}

Test(limits, an_explicit_timeline_past_the_limit_is_an_error)
{
	/* timeline_interval 1e-6 used to abort out of memory. */
	struct workload w;
	struct cluster_spec c;
	const struct tjob t[] = { { 1, 0, 10, -1, 1 }, { 2, 100, 10, -1, 1 } };
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 2);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .sample_interval = 1 };
	struct sim *s;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(run_fcfs(&cfg, &s, &err), -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "$.timeline_interval: '0.000001' s needs "
			 "more than 10000000 timeline samples (the limit) over "
			 "the simulated span: give a longer interval, 0 "
			 "(automatic), or raise $.limits.timeline_samples");
	sim_free(s);
	/* Past the submits, found when the limit is reached. */
	cfg.sample_interval = SIM_SEC;
	cfg.max_samples = 100;
	cr_assert_eq(run_fcfs(&cfg, &s, &err), -SIM_EINPUT);
	cr_expect(strstr(err.msg, "'1' s needs more than 100 timeline"), "%s",
		  err.msg);
	sim_free(s);
	/* Within it, the run goes. */
	cfg.max_samples = 200;
	cr_assert_eq(run_fcfs(&cfg, &s, &err), 0, "%s", err.msg);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- the "limits" key ------------------------------------------------- */

Test(limits, the_defaults_admit_1e7_nodes_and_1e8_jobs_and_are_recorded)
{
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(parse("{\"cluster\": {\"nodes\": [{\"count\": 10000000, "
			   "\"cpus\": 1}]}, \"workload\": {\"generate\": "
			   "{\"jobs\": 100000000, \"interarrival\": {\"dist\": "
			   "\"constant\", \"value\": 1}, \"runtime\": "
			   "{\"dist\": \"constant\", \"value\": 1}, "
			   "\"cpus\": {\"dist\": \"constant\", \"value\": "
			   "1}}}, "
			   "\"policies\": [\"fcfs\"]}", &e, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(e.limits.nodes, 10000000);
	cr_expect_eq(e.limits.jobs, 100000000);
	cr_expect_eq(e.limits.timeline_samples, 10000000);
	cr_expect_eq(e.limits.input_bytes, UINT64_C(16) << 30);
	cr_expect(strstr(e.resolved_json, "\"limits\":"), "%s",
		  e.resolved_json);
	cr_expect(strstr(e.resolved_json, "\"timeline_samples\":\t10000000"),
		  "%s", e.resolved_json);
	exp_release(&e);
}

Test(limits, a_cluster_past_the_node_limit_is_refused_with_the_key)
{
	/* 2^31 - 1 nodes took 8-18 GB. */
	expect_refused("{\"cluster\": {\"nodes\": [{\"count\": 2147483647, "
		       "\"cpus\": 1}]}, " GEN "}", "x.json: $.cluster: "
		       "2147483647 nodes, more than the limit 10000000: raise "
		       "$.limits.nodes");
	expect_refused("{" CPU_CLUSTER ", " GEN ", \"limits\": {\"nodes\": 1}}",
		       "x.json: $.cluster: 2 nodes, more than the limit 1: "
		       "raise $.limits.nodes");
	expect_refused("{" CPU_CLUSTER ", " GEN ", \"limits\": {\"nodes\": "
		       "2147483648}}", "x.json: $.limits.nodes: must be <= "
		       "2147483647, got '2147483648'");
	expect_refused("{" CPU_CLUSTER ", " GEN ", \"limits\": {\"node\": 1}}",
		       "x.json: $.limits: unknown key 'node' (did you mean "
		       "'nodes'?)");
	/* Raised, it admits. */
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(parse("{\"cluster\": {\"nodes\": [{\"count\": 20000000, "
			   "\"cpus\": 1}]}, " GEN ", \"limits\": {\"nodes\": "
			   "20000000}}", &e, &err), 0, "%s", err.msg);
	exp_release(&e);
}

Test(limits, a_workload_past_the_job_limit_is_refused_with_the_key)
{
	expect_refused("{" CPU_CLUSTER ", " GEN ", \"limits\": {\"jobs\": 3}}",
		       "x.json: $.workload.generate.jobs: 4 jobs, more than "
		       "the limit 3: raise $.limits.jobs");
	struct trace_opts o;
	struct sim_error err = { .msg = "" };
	trace_opts_default(&o);
	cr_expect_eq(o.max_jobs, 100000000);
	o.max_jobs = 1;
	const char *two = "1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n"
			  "2 5 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n";
	cr_assert_eq(load_text(two, TRACE_SWF, &o, &err), -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "T:2: more than 1 jobs, the limit: raise "
			 "$.limits.jobs to read them all");
	/* Under lenient too: the line is not skipped as malformed. */
	o.lenient = true;
	cr_assert_eq(load_text(two, TRACE_SWF, &o, &err), -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "T: more than 1 jobs, the limit: raise "
			 "$.limits.jobs to read them all");
	o.max_jobs = 2;
	cr_expect_eq(load_text(two, TRACE_SWF, &o, &err), 0, "%s", err.msg);
	/* The experiment hands its limit to the reader. */
	struct experiment e;
	cr_assert_eq(parse("{" CPU_CLUSTER ", \"workload\": {\"trace\": "
			   "\"t.swf\"}, \"policies\": [\"fcfs\"], \"limits\": "
			   "{\"jobs\": 7, \"timeline_samples\": 3, "
			   "\"input_bytes\": 1000}}", &e, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(e.workload.opts.max_jobs, 7);
	cr_expect_eq(e.limits.timeline_samples, 3);
	cr_expect_eq(e.limits.input_bytes, 1000);
	exp_release(&e);
	expect_refused("{" CPU_CLUSTER ", " GEN ", \"limits\": "
		       "{\"timeline_samples\": 2}}", "x.json: "
		       "$.limits.timeline_samples: must be >= 3, got '2'");
}

/* ---- the command line ------------------------------------------------- */

static char bin[4096], tmp[4096];

static void cli_setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "limits");
	tl_cli_need_bin(bin);
}

static void cli_teardown(void)
{
	tl_rmtree(tmp);
}

static void put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmp, name);
	FILE *f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
	free(path);
}

/* Runs clustersim ARGS in tmp: its exit code, stderr in buf. */
static int cli(const char *args, char *buf, size_t n)
{
	char *cmd = xasprintf("cd '%s' && '%s' %s >out.txt 2>err.txt", tmp,
			      bin, args);
	int st = system(cmd);
	free(cmd);
	char *path = xasprintf("%s/err.txt", tmp);
	FILE *f = fopen(path, "r");
	free(path);
	size_t k = f ? fread(buf, 1, n - 1, f) : 0;
	buf[k] = '\0';
	if (f)
		fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(limits, a_trace_header_past_the_node_limit_is_refused,
     .init = cli_setup, .fini = cli_teardown)
{
	/* MaxProcs 1e9 with from_trace: a billion one-CPU nodes. */
	char err[4096];
	put("t.swf", "; MaxProcs: 1000000000\n"
		     "1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n");
	put("a.json", "{\"cluster\": {\"from_trace\": true}, \"workload\": "
		      "{\"trace\": \"t.swf\"}, \"policies\": [\"fcfs\"]}");
	cr_expect_eq(cli("run a.json --quiet --no-plots -o o", err,
			 sizeof(err)), 2, "%s", err);
	cr_expect(strstr(err, "$.cluster.from_trace: the trace's header gives "
			 "1000000000 nodes, more than the limit 10000000: "
			 "raise $.limits.nodes"), "%s", err);
	put("b.json", "{\"cluster\": {\"from_trace\": true}, \"workload\": "
		      "{\"trace\": \"t.swf\"}, \"policies\": [\"fcfs\"], "
		      "\"limits\": {\"nodes\": 5}}");
	put("t.swf", "; MaxProcs: 4\n"
		     "1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n");
	cr_expect_eq(cli("run b.json --quiet --no-plots -o o", err,
			 sizeof(err)), 0, "%s", err);
}
