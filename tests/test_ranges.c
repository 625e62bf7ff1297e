/*
 * The model's ranges: inputs whose times could pass the int64
 * microsecond clock, or whose rates the speed model cannot compute, are
 * refused at load with their file:line or JSON path; a job that would
 * still end past the clock's end stops the run with an error, never an
 * abort.
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

