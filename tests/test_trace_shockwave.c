/*
 * The Shockwave trace reader ("format": "shockwave",
 * sim/workload/trace_gavel.c's 12-field layout): a small hand-made sample
 * worked out field by field, every error message, and the real 120-job
 * trace of the Shockwave paper's simulated 32-GPU experiment when
 * $CLUSTERSIM_TRACE_DIR has it (skipped, saying so, when not).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "speed/jobclass.h"
#include "testlib.h"
#include "base/util.h"
#include "workload/workload.h"

#define SEC(s) ((sim_time_t)((s) * SIM_SEC))

/* Loads text (written to a temporary file) as a shockwave trace; the
 * file is named "F" in messages. */
static int sw_load_text(const char *text, const struct trace_opts *o_in,
			struct workload *w, struct sim_error *err)
{
	char path[] = "/tmp/clustersim-sw-XXXXXX";
	struct trace_opts o;
	int fd = mkstemp(path);
	size_t n = strlen(text);

	cr_assert(fd >= 0, "mkstemp: %s", strerror(errno));
	cr_assert_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	if (o_in)
		o = *o_in;
	else
		trace_opts_default(&o);
	o.format = TRACE_SHOCKWAVE;
	int rc = trace_load(path, &o, w, err);
	if (rc && strncmp(err->msg, path, strlen(path)) == 0) {
		size_t k = strlen(path);
		err->msg[0] = 'F';
		memmove(err->msg + 1, err->msg + k, strlen(err->msg + k) + 1);
	}
	unlink(path);
	return rc;
}

static void sw_expect_error(const char *text, const struct trace_opts *o,
			    const char *msg)
{
	struct workload w;
	struct sim_error err;
	int rc = sw_load_text(text, o, &w, &err);
	cr_assert_eq(rc, -SIM_EINPUT, "rc %d for %s", rc, text);
	cr_assert_str_eq(err.msg, msg);
	cr_assert_eq(w.n, 0);
}

static unsigned sw_cls(const char *exact)
{
	int i = jobclass_lookup(exact);
	cr_assert_gt(i, 0, "class '%s' missing", exact);
	return (unsigned)i;
}

/*
 * tests/data/gpu/shockwave-sample.trace (made for this test):
 *   line 1: ResNet-18 (batch size 32), 1000 steps, 1 GPU, accordion,
 *           duration 23.5 s, arrival 0
 *   line 2: LM (batch size 20), 500 steps, 2 GPUs, gns, 100 s, arrival 12
 *   line 3: ResNet-50 (batch size 32), 300 steps, 4 GPUs, static, 7.25 s,
 *           arrival 5
 * The run time is the duration field (not steps / throughput); ids are
 * line numbers, sorted by submit: 1, 3, 2.  estimate = run, no CPUs.
 */
Test(trace_shockwave, sample)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	static const struct {
		int64_t id;
		double submit, run;
		uint32_t gpus, flags;
		const char *cls;
	} want[] = {
		{ 1, 0, 23.5, 1, JOB_BS_ACCORDION, "ResNet-18 (batch size 32)" },
		{ 3, 5, 7.25, 4, 0, "ResNet-50 (batch size 32)" },
		{ 2, 12, 100, 2, JOB_BS_GNS, "LM (batch size 20)" },
	};

	trace_opts_default(&o);
	o.format = TRACE_SHOCKWAVE;
	cr_assert_eq(trace_load("tests/data/gpu/shockwave-sample.trace", &o,
				&w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct job *j = &w.jobs[i];
		cr_expect_eq(j->id, want[i].id);
		cr_expect_eq(j->submit, SEC(want[i].submit));
		cr_expect_eq(j->run, SEC(want[i].run), "job %lld run %lld",
			     (long long)j->id, (long long)j->run);
		cr_expect_eq(j->estimate, j->run);
		cr_expect_eq(j->gpus, want[i].gpus);
		cr_expect_eq(j->cpus, 0);
		cr_expect_eq(j->flags & (JOB_BS_GNS | JOB_BS_ACCORDION),
			     want[i].flags);
		cr_expect_eq(j->job_class, sw_cls(want[i].cls));
	}
	workload_release(&w);

	/* The 10-field Gavel reader refuses the 12-field lines, and the
	 * other way round. */
	o.format = TRACE_GAVEL;
	cr_assert_lt(trace_load("tests/data/gpu/shockwave-sample.trace", &o,
				&w, &err), 0);
	cr_assert(strstr(err.msg, ":1: expected 10 tab-separated fields, "
			 "got '12'"), "%s", err.msg);
	o.format = TRACE_SHOCKWAVE;
	cr_assert_lt(trace_load("tests/data/gpu/gavel-sample.trace", &o, &w,
				&err), 0);
	cr_assert(strstr(err.msg, ":1: expected 12 tab-separated fields, "
			 "got '10'"), "%s", err.msg);
}

#define SW(type, steps, scale, mode, dur, arrival)                           \
	type "\tcmd\tdir\t--steps\t1\t" steps "\t" scale "\t" mode           \
	     "\t1\t-1.000000\t" dur "\t" arrival "\n"

Test(trace_shockwave, errors_and_lenient)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	sw_expect_error(SW("A3C", "10", "1", "static", "5", "0") "a\tb\n",
			NULL, "F:2: expected 12 tab-separated fields, got '2'");
	sw_expect_error(SW("Nope", "10", "1", "static", "5", "0"), NULL,
			"F:1: unknown job class 'Nope'");
	sw_expect_error(SW("A3C", "1.5", "1", "static", "5", "0"), NULL,
			"F:1: total_steps '1.5' is not an integer");
	sw_expect_error(SW("A3C", "10", "one", "static", "5", "0"), NULL,
			"F:1: scale_factor 'one' is not an integer");
	sw_expect_error(SW("A3C", "10", "1", "adaptive", "5", "0"), NULL,
			"F:1: mode 'adaptive' is not static, gns or "
			"accordion");
	sw_expect_error(SW("A3C", "10", "1", "gns", "5s", "0"), NULL,
			"F:1: duration '5s' is not a number of seconds");
	sw_expect_error(SW("A3C", "10", "1", "gns", "0", "0"), NULL,
			"F:1: duration '0' is not positive");
	sw_expect_error(SW("A3C", "10", "1", "gns", "5", "-3"), NULL,
			"F:1: arrival_time '-3' is negative");
	sw_expect_error(SW("A3C", "10", "1", "gns", "5", "t"), NULL,
			"F:1: arrival_time 't' is not a number of seconds");

	/* Zero steps or GPUs: dropped by default (the duration is then not
	 * read), errors without drop_invalid. */
	cr_assert_eq(sw_load_text(SW("A3C", "0", "1", "gns", "x", "0")
				  SW("A3C", "10", "0", "gns", "x", "0")
				  SW("A3C", "10", "2", "gns", "9", "4"),
				  NULL, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(w.jobs[0].id, 3);
	cr_assert_eq(w.jobs[0].run, SEC(9));
	cr_assert_eq(w.report.dropped_run, 1);
	cr_assert_eq(w.report.dropped_procs, 1);
	workload_release(&w);
	trace_opts_default(&o);
	o.drop_invalid = false;
	sw_expect_error(SW("A3C", "0", "1", "gns", "5", "0"), &o,
			"F:1: total_steps '0' is not positive");

	trace_opts_default(&o);
	o.lenient = true;
	cr_assert_eq(sw_load_text(SW("A3C", "10", "1", "bad", "5", "0")
				  "\n"
				  SW("A3C", "10", "1", "static", "2.5", "7"),
				  &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(w.report.malformed, 1);
	cr_assert_eq(w.jobs[0].id, 3);
	cr_assert_eq(w.jobs[0].run, SEC(2.5));
	workload_release(&w);
}

/*
 * gpu/shockwave/shockwave-120job.trace: 120 jobs, 164 GPUs (92 jobs of
 * 1, 20 of 2, 8 of 4), durations summing to 496,241 s, last arrival
 * 5,011 s, modes 57 gns, 59 accordion, 4 static:
 *   awk -F'\t' '{g += $7; d += $11} END {print NR, g, d}'
 *   cut -f8 shockwave-120job.trace | sort | uniq -c
 */
Test(trace_shockwave, real_120job)
{
	const char *dir = getenv("CLUSTERSIM_TRACE_DIR");
	char *path = xasprintf("%s/gpu/shockwave/shockwave-120job.trace",
			       dir && *dir ? dir : "../shared/traces");
	if (access(path, R_OK) != 0) {
		free(path);
		cr_skip_test("gpu/shockwave/shockwave-120job.trace not in "
			     "$CLUSTERSIM_TRACE_DIR");
	}
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	trace_opts_default(&o);
	o.format = TRACE_SHOCKWAVE;
	cr_assert_eq(trace_load(path, &o, &w, &err), 0, "%s", err.msg);
	free(path);
	cr_assert_eq(w.n, 120);
	uint64_t gpus = 0, gns = 0, acc = 0;
	sim_time_t run = 0;
	for (size_t i = 0; i < w.n; i++) {
		gpus += w.jobs[i].gpus;
		run += w.jobs[i].run;
		gns += !!(w.jobs[i].flags & JOB_BS_GNS);
		acc += !!(w.jobs[i].flags & JOB_BS_ACCORDION);
	}
	cr_expect_eq(gpus, 164);
	cr_expect_eq(run, SEC(496241));
	cr_expect_eq(gns, 57);
	cr_expect_eq(acc, 59);
	cr_expect_eq(w.jobs[w.n - 1].submit, SEC(5011));
	workload_release(&w);
}
