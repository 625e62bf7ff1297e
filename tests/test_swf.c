/*
 * Tests of the SWF reader (sim/workload/trace_swf.c): header labels, field
 * conversion, plain and gzip input, every loader option with its counter,
 * the corpus of malformed lines in tests/data/swf-bad, lenient mode, and
 * the real KTH trace when it is present.  Expected values are worked out
 * by hand in the comments (or, for KTH, by an independent awk script).
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/util.h"
#include "workload/workload.h"

/* Writes text to a new temporary file (gzip-compressed when gz); returns
 * its path, which the caller frees after unlinking. */
static char *swf_tmp(const char *text, bool gz)
{
	char *path = xstrdup(gz ? "/tmp/clustersim-swf-XXXXXX.swf.gz" :
				  "/tmp/clustersim-swf-XXXXXX.swf");
	int fd = mkstemps(path, gz ? 7 : 4);
	cr_assert(fd >= 0, "mkstemps: %s", strerror(errno));
	if (gz) {
		gzFile g = gzdopen(fd, "wb");
		cr_assert(g);
		size_t n = strlen(text);
		cr_assert_eq(gzwrite(g, text, (unsigned)n), (int)n);
		cr_assert_eq(gzclose(g), Z_OK);
	} else {
		size_t n = strlen(text);
		cr_assert_eq(write(fd, text, n), (ssize_t)n);
		close(fd);
	}
	return path;
}

/* Loads text with the given options; returns the loader's code. */
static int swf_load_text(const char *text, bool gz, const struct trace_opts *o,
			 struct workload *w, struct sim_error *err)
{
	char *path = swf_tmp(text, gz);
	int rc = trace_load_swf(path, o, w, err);
	unlink(path);
	free(path);
	return rc;
}

static const struct job *swf_find(const struct workload *w, int64_t id)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->jobs[i].id == id)
			return &w->jobs[i];
	cr_assert_fail("job %lld not found", (long long)id);
	return NULL;
}

Test(trace_swf, header_variants)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	const char *line = "1 0 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
	char text[512];

	trace_opts_default(&o);
	/* No space, and a tab, after ';'. */
	snprintf(text, sizeof(text), ";MaxProcs: 100\n;\tMaxNodes: 5\n%s", line);
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.max_procs, 100);
	cr_assert_eq(w.max_nodes, 5);
	workload_release(&w);

	/* The archive's usual "; Label: value", several spaces, a tab after
	 * the colon; MaxNodes absent. */
	snprintf(text, sizeof(text), "; Version: 2.2\n;     MaxProcs:\t64\n%s",
		 line);
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.max_procs, 64);
	cr_assert_eq(w.max_nodes, -1);
	workload_release(&w);

	/* A label inside a note is not a header field; no header at all. */
	snprintf(text, sizeof(text), "; Note: MaxProcs: 7 was wrong\n%s", line);
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.max_procs, -1);
	cr_assert_eq(w.max_nodes, -1);
	workload_release(&w);

	/* MaxProcs -1 means unknown. */
	snprintf(text, sizeof(text), "; MaxProcs: -1\n%s", line);
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.max_procs, -1);
	workload_release(&w);
}

Test(trace_swf, fields)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	/* id 7, submit 10 s, wait 5, run 100 s, 4 allocated, 8 requested,
	 * requested time 200 s, user 3, group 9; then a job with decimals:
	 * submit 1.5 s, run 2.0000005 s (rounds half up to 2000001 us),
	 * requested time 1e2 = 100 s, user and group unknown (-1). */
	const char *text =
		"; MaxProcs: 16\n"
		"7 10 5 100 4 -1 -1 8 200 -1 1 3 9 -1 -1 -1 -1 -1\n"
		"8 1.5 -1 2.0000005 2 12.75 -1 -1 1e2 -1 1 -1 -1 -1 -1 -1 -1 -1\n";

	trace_opts_default(&o);
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 2);
	/* Sorted by submit: job 8 (1.5 s) first. */
	const struct job *a = &w.jobs[1], *b = &w.jobs[0];
	cr_assert_eq(a->id, 7);
	cr_assert_eq(a->idx, 1);
	cr_assert_eq(a->submit, 10 * SIM_SEC);
	cr_assert_eq(a->run, 100 * SIM_SEC);
	cr_assert_eq(a->cpus, 4);
	cr_assert_eq(a->gpus, 0);
	cr_assert_eq(a->nodes, 0);
	cr_assert_eq(a->estimate, 200 * SIM_SEC);
	cr_assert_eq(a->flags, JOB_HAS_ESTIMATE);
	cr_assert_eq(a->user, 3);
	cr_assert_eq(a->group, 9);
	cr_assert_eq(a->state, JOB_FUTURE);
	cr_assert_eq(a->start, SIM_TIME_NONE);
	cr_assert_eq(a->end, SIM_TIME_NONE);

	cr_assert_eq(b->id, 8);
	cr_assert_eq(b->idx, 0);
	cr_assert_eq(b->submit, 1500000);
	cr_assert_eq(b->run, 2000001);
	cr_assert_eq(b->estimate, 100 * SIM_SEC);
	cr_assert_eq(b->cpus, 2);
	cr_assert_eq(b->user, -1);
	cr_assert_eq(b->group, -1);
	cr_assert(w.has_estimates);
	cr_assert_eq(w.report.lines, 3);
	cr_assert_eq(w.report.jobs_read, 2);
	cr_assert_eq(w.report.jobs, 2);
	workload_release(&w);
}

Test(trace_swf, gzip_and_plain_agree)
{
	struct trace_opts o;
	struct workload p, g;
	struct sim_error err;
	const char *text =
		"; MaxProcs: 8\n; MaxNodes: 2\n"
		"1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 5 -1 50 2 -1 -1 2 40 -1 1 2 1 -1 -1 -1 -1 -1\n"
		"3 9 -1 7 8 -1 -1 8 -1 -1 1 1 2 -1 -1 -1 -1 -1\n";

	trace_opts_default(&o);
	cr_assert_eq(swf_load_text(text, false, &o, &p, &err), 0, "%s", err.msg);
	cr_assert_eq(swf_load_text(text, true, &o, &g, &err), 0, "%s", err.msg);
	cr_assert_eq(p.n, 3);
	cr_assert_eq(g.n, 3);
	cr_assert_eq(g.max_procs, 8);
	cr_assert_eq(g.max_nodes, 2);
	for (size_t i = 0; i < 3; i++) {
		cr_assert_eq(p.jobs[i].id, g.jobs[i].id);
		cr_assert_eq(p.jobs[i].submit, g.jobs[i].submit);
		cr_assert_eq(p.jobs[i].run, g.jobs[i].run);
		cr_assert_eq(p.jobs[i].cpus, g.jobs[i].cpus);
		cr_assert_eq(p.jobs[i].estimate, g.jobs[i].estimate);
	}
	/* Job 2 ran 50 s past a 40 s estimate: clipped by default. */
	cr_assert_eq(g.jobs[1].run, 40 * SIM_SEC);
	cr_assert_eq(g.report.clipped, 1);
	workload_release(&p);
	workload_release(&g);
}

Test(trace_swf, blank_crlf_tabs_and_no_final_newline)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	/* 6 lines: blank, CRLF job, whitespace-only, tab-separated job with
	 * leading spaces, comment, last job without '\n'. */
	const char *text =
		"\n"
		"1 0 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\r\n"
		"   \t \n"
		"   2\t1\t-1\t20\t2\t-1\t-1\t2\t-1\t-1\t1\t1\t1\t-1\t-1\t-1\t-1\t-1\n"
		";\n"
		"3 2 -1 30 3 -1 -1 3 -1 -1 1 1 1 -1 -1 -1 -1 -1";

	trace_opts_default(&o);
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.report.lines, 6);
	cr_assert_eq(w.report.jobs_read, 3);
	cr_assert_eq(w.n, 3);
	cr_assert_eq(w.jobs[0].run, 10 * SIM_SEC);
	cr_assert_eq(w.jobs[1].run, 20 * SIM_SEC);
	cr_assert_eq(w.jobs[2].run, 30 * SIM_SEC);
	cr_assert_eq(w.jobs[2].cpus, 3);
	/* No estimates anywhere: estimate = run, counted, flag clear. */
	cr_assert_eq(w.report.no_estimate, 3);
	cr_assert_eq(w.jobs[2].estimate, 30 * SIM_SEC);
	cr_assert_eq(w.jobs[2].flags, 0);
	cr_assert(!w.has_estimates);
	workload_release(&w);
}

/* Four jobs: A allocated -1 / requested 8, B 4 / -1, C 4 / 8, D -1 / -1. */
static const char *swf_procs_text =
	"1 0 -1 10 -1 -1 -1 8 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 1 -1 10 4 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"3 2 -1 10 4 -1 -1 8 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"4 3 -1 10 -1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";

Test(trace_swf, procs_allocated)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	trace_opts_default(&o);
	cr_assert_eq(swf_load_text(swf_procs_text, false, &o, &w, &err), 0,
		     "%s", err.msg);
	/* A falls back to 8, B 4, C 4 (allocated), D has none: dropped. */
	cr_assert_eq(w.n, 3);
	cr_assert_eq(swf_find(&w, 1)->cpus, 8);
	cr_assert_eq(swf_find(&w, 2)->cpus, 4);
	cr_assert_eq(swf_find(&w, 3)->cpus, 4);
	cr_assert_eq(w.report.procs_fallback, 1);
	cr_assert_eq(w.report.dropped_procs, 1);
	cr_assert_eq(w.report.jobs_read, 4);
	workload_release(&w);
}

Test(trace_swf, procs_requested)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	trace_opts_default(&o);
	o.procs = PROCS_REQUESTED;
	cr_assert_eq(swf_load_text(swf_procs_text, false, &o, &w, &err), 0,
		     "%s", err.msg);
	/* A 8, B falls back to 4, C 8 (requested), D dropped. */
	cr_assert_eq(w.n, 3);
	cr_assert_eq(swf_find(&w, 1)->cpus, 8);
	cr_assert_eq(swf_find(&w, 2)->cpus, 4);
	cr_assert_eq(swf_find(&w, 3)->cpus, 8);
	cr_assert_eq(w.report.procs_fallback, 1);
	cr_assert_eq(w.report.dropped_procs, 1);
	workload_release(&w);
}

/* E overruns (run 100, estimate 50), F does not (50 / 100), G has no
 * estimate (-1), H neither (0). */
static const char *swf_overrun_text =
	"1 0 -1 100 1 -1 -1 1 50 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 1 -1 50 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"3 2 -1 30 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"4 3 -1 40 1 -1 -1 1 0 -1 1 1 1 -1 -1 -1 -1 -1\n";

static void swf_check_overrun(enum overrun_mode m, sim_time_t e_run,
			      uint32_t e_flags, uint64_t clipped,
			      uint64_t killed, uint64_t overran)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	trace_opts_default(&o);
	o.overrun = m;
	cr_assert_eq(swf_load_text(swf_overrun_text, false, &o, &w, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(w.n, 4);
	cr_assert_eq(w.jobs[0].run, e_run);
	cr_assert_eq(w.jobs[0].estimate, 50 * SIM_SEC);
	cr_assert_eq(w.jobs[0].flags, e_flags);
	cr_assert_eq(w.jobs[1].run, 50 * SIM_SEC);
	cr_assert_eq(w.jobs[1].estimate, 100 * SIM_SEC);
	cr_assert_eq(w.jobs[1].flags, JOB_HAS_ESTIMATE);
	cr_assert_eq(w.jobs[2].estimate, 30 * SIM_SEC);
	cr_assert_eq(w.jobs[2].flags, 0);
	cr_assert_eq(w.jobs[3].estimate, 40 * SIM_SEC);
	cr_assert_eq(w.jobs[3].flags, 0);
	cr_assert_eq(w.report.no_estimate, 2);
	cr_assert_eq(w.report.clipped, clipped);
	cr_assert_eq(w.report.killed, killed);
	cr_assert_eq(w.report.overran, overran);
	workload_release(&w);
}

Test(trace_swf, overrun_clip)
{
	swf_check_overrun(OVERRUN_CLIP, 50 * SIM_SEC, JOB_HAS_ESTIMATE, 1, 0,
			  0);
}

Test(trace_swf, overrun_kill)
{
	swf_check_overrun(OVERRUN_KILL, 50 * SIM_SEC,
			  JOB_HAS_ESTIMATE | JOB_KILL_AT_ESTIMATE, 0, 1, 0);
}

Test(trace_swf, overrun_allow)
{
	swf_check_overrun(OVERRUN_ALLOW, 100 * SIM_SEC, JOB_HAS_ESTIMATE, 0, 0,
			  1);
}

Test(trace_swf, drop_invalid)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	/* Line 2 run 0, line 3 run -1, line 4 good, line 5 procs 0 / -1. */
	const char *text =
		"; MaxProcs: 4\n"
		"1 0 -1 0 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 1 -1 -1 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"3 2 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"4 3 -1 5 0 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
	const char *procs_only =
		"1 0 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"4 3 -1 5 -1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";

	trace_opts_default(&o);
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(w.jobs[0].id, 3);
	cr_assert_eq(w.report.dropped_run, 2);
	cr_assert_eq(w.report.dropped_procs, 1);
	cr_assert_eq(w.report.jobs_read, 4);
	cr_assert_eq(w.report.jobs, 1);
	workload_release(&w);

	o.drop_invalid = false;
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), -SIM_EINPUT);
	cr_assert(strstr(err.msg, ":2: run time '0' is not positive"), "%s",
		  err.msg);
	cr_assert_eq(w.n, 0);
	cr_assert_null(w.jobs);
	cr_assert_eq(swf_load_text(procs_only, false, &o, &w, &err),
		     -SIM_EINPUT);
	cr_assert(strstr(err.msg, ":2: processors '-1' is not positive"), "%s",
		  err.msg);

	/* Lenient skips the refused jobs as malformed lines. */
	o.lenient = true;
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(w.report.malformed, 3);
	workload_release(&w);
}

Test(trace_swf, unsorted_input_is_sorted)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	/* Submits 30, 10, 10, 20 with ids 1, 9, 3, 4: order (10,3) (10,9)
	 * (20,4) (30,1). */
	const char *text =
		"1 30 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"9 10 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"3 10 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"4 20 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
	const int64_t want[] = { 3, 9, 4, 1 };

	trace_opts_default(&o);
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 4);
	for (size_t i = 0; i < 4; i++) {
		cr_assert_eq(w.jobs[i].id, want[i]);
		cr_assert_eq(w.jobs[i].idx, i);
	}
	workload_release(&w);
}

Test(trace_swf, duplicate_id)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	const char *text =
		"5 0 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"6 1 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"5 2 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";

	trace_opts_default(&o);
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), -SIM_EINPUT);
	cr_assert(strstr(err.msg, ": duplicate job id '5'"), "%s", err.msg);
}

/*
 * Many lines, so that lines cross the reader's block boundaries, and a
 * comment longer than its buffer.  Job i (1..N) has submit i, run
 * (i % 97) + 1 and i % 13 + 1 processors; sums by formula below.
 */
Test(trace_swf, many_lines_and_a_long_line)
{
	const size_t n = 200000;
	size_t cap = n * 64 + (3u << 20), len = 0;
	char *text = xmalloc(cap);
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	uint64_t want_run = 0, want_cpus = 0, got_run = 0, got_cpus = 0;

	text[len++] = ';';
	memset(text + len, 'x', 3u << 20);
	len += 3u << 20;
	text[len++] = '\n';
	for (size_t i = 1; i <= n; i++) {
		len += (size_t)snprintf(text + len, cap - len,
					"%zu %zu -1 %zu %zu -1 -1 -1 -1 -1 1 1 1 "
					"-1 -1 -1 -1 -1\n",
					i, i, i % 97 + 1, i % 13 + 1);
		want_run += i % 97 + 1;
		want_cpus += i % 13 + 1;
	}
	trace_opts_default(&o);
	for (int gz = 0; gz < 2; gz++) {
		cr_assert_eq(swf_load_text(text, gz, &o, &w, &err), 0, "%s",
			     err.msg);
		cr_assert_eq(w.n, n);
		cr_assert_eq(w.report.lines, n + 1);
		got_run = got_cpus = 0;
		for (size_t i = 0; i < w.n; i++) {
			cr_assert_eq(w.jobs[i].id, (int64_t)i + 1);
			got_run += (uint64_t)(w.jobs[i].run / SIM_SEC);
			got_cpus += w.jobs[i].cpus;
		}
		cr_assert_eq(got_run, want_run);
		cr_assert_eq(got_cpus, want_cpus);
		workload_release(&w);
	}
	free(text);
}

Test(trace_swf, cannot_open)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	trace_opts_default(&o);
	cr_assert_eq(trace_load_swf("/nonexistent/x.swf", &o, &w, &err),
		     -SIM_EIO);
	cr_assert_str_eq(err.msg, "/nonexistent/x.swf: cannot open: "
				  "No such file or directory");
	cr_assert_eq(trace_load_swf("/tmp", &o, &w, &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, "/tmp: not a regular file (a folder)");
	cr_assert_eq(w.n, 0);
}

Test(trace_swf, truncated_gzip)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	char text[4096] = "";

	for (int i = 1; i <= 50; i++) {
		char l[96];
		snprintf(l, sizeof(l), "%d %d -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 "
			 "-1 -1 -1 -1\n", i, i);
		strcat(text, l);
	}
	char *path = swf_tmp(text, true);
	FILE *f = fopen(path, "r+");
	cr_assert(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	cr_assert_eq(truncate(path, size / 2), 0);
	trace_opts_default(&o);
	int rc = trace_load_swf(path, &o, &w, &err);
	unlink(path);
	free(path);
	cr_assert_lt(rc, 0);
	cr_assert(strstr(err.msg, ": cannot read: "), "%s", err.msg);
}

/* Each tests/data/swf-bad/NAME.swf starts with "; expect: SUBSTRING", the
 * message (after the path) that it must produce. */
Test(trace_swf, malformed_corpus)
{
	const char *dir = "tests/data/swf-bad";
	DIR *d = opendir(dir);
	struct dirent *de;
	int files = 0;

	cr_assert(d, "%s: %s (run the tests from the repository root)", dir,
		  strerror(errno));
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".swf") != 0)
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		char first[256] = "";
		FILE *f = fopen(path, "r");
		cr_assert(f, "%s", path);
		cr_assert(fgets(first, sizeof(first), f), "%s", path);
		fclose(f);
		first[strcspn(first, "\n")] = '\0';
		cr_assert(strncmp(first, "; expect: ", 10) == 0,
			  "%s: no '; expect: ' line", path);
		const char *expect = first + 10;

		struct trace_opts o;
		struct workload w;
		struct sim_error err;
		trace_opts_default(&o);
		int rc = trace_load_swf(path, &o, &w, &err);
		cr_assert_eq(rc, -SIM_EINPUT, "%s: rc %d", path, rc);
		cr_assert(strncmp(err.msg, path, strlen(path)) == 0 &&
			  strstr(err.msg, expect),
			  "%s: got \"%s\", expected \"%s\"", path, err.msg,
			  expect);
		cr_assert_eq(w.n, 0);

		/* Lenient: the bad line is counted, the good job kept. */
		o.lenient = true;
		rc = trace_load_swf(path, &o, &w, &err);
		cr_assert_eq(rc, 0, "%s: %s", path, err.msg);
		cr_assert_eq(w.report.malformed, 1, "%s", path);
		cr_assert_eq(w.n, 1, "%s", path);
		cr_assert_eq(w.jobs[0].id, 1);
		workload_release(&w);
		free(path);
		files++;
	}
	closedir(d);
	cr_assert_geq(files, 15);
}

Test(trace_swf, lenient_counts)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	/* 7 lines: 2 good jobs, 4 bad lines (17 fields, 'x' run, negative
	 * submit, bad MaxNodes), 1 comment. */
	const char *text =
		"; Computer: test\n"
		"1 0 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 0 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1\n"
		"3 0 -1 x 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"4 -1 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"; MaxNodes: many\n"
		"5 1 -1 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";

	trace_opts_default(&o);
	o.lenient = true;
	cr_assert_eq(swf_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.report.lines, 7);
	cr_assert_eq(w.report.malformed, 4);
	cr_assert_eq(w.report.jobs_read, 2);
	cr_assert_eq(w.n, 2);
	cr_assert_eq(w.jobs[0].id, 1);
	cr_assert_eq(w.jobs[1].id, 5);
	cr_assert_eq(w.max_nodes, -1);
	workload_release(&w);
}

static char *swf_trace_path(const char *name)
{
	const char *dir = getenv("CLUSTERSIM_TRACE_DIR");
	char *p = xasprintf("%s/%s", dir && *dir ? dir : "../shared/traces",
			    name);
	if (access(p, R_OK) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

/*
 * KTH SP2: 28,476 job lines.  Expected counts from an independent awk
 * script over the file (defaults: allocated procs, clip, drop):
 *   zcat KTH-SP2-1996-2.1-cln.swf.gz | awk '/^;/{next} NF==0{next}
 *     {n++; p=$5; if (p<=0 && $8>0) {p=$8; fb++}
 *      if ($4<=0) {dr++; next} if (p<=0) {dp++; next}
 *      r=$4; if ($9<=0) ne++; else if (r>$9) {cl++; r=$9}
 *      k++; sr+=r; sp+=p}
 *     END {print n, fb, dr, dp, ne, cl, k, sr, sp}'
 *   -> 28476 0 8 1 0 475 28467 252090642 218025
 * With requested procs the processor sum is 217802.
 */
Test(trace_swf, kth_real_trace)
{
	char *path = swf_trace_path("hpc/KTH-SP2-1996-2.1-cln.swf.gz");
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	uint64_t sr = 0, sp = 0;

	if (!path)
		cr_skip_test("KTH-SP2-1996-2.1-cln.swf.gz not in "
			     "$CLUSTERSIM_TRACE_DIR");
	trace_opts_default(&o);
	cr_assert_eq(trace_load_swf(path, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.max_procs, 100);
	cr_assert_eq(w.max_nodes, 100);
	cr_assert_eq(w.report.jobs_read, 28476);
	cr_assert_eq(w.report.procs_fallback, 0);
	cr_assert_eq(w.report.dropped_run, 8);
	cr_assert_eq(w.report.dropped_procs, 1);
	cr_assert_eq(w.report.no_estimate, 0);
	cr_assert_eq(w.report.clipped, 475);
	cr_assert_eq(w.report.malformed, 0);
	cr_assert_eq(w.n, 28467);
	cr_assert(w.has_estimates);
	for (size_t i = 0; i < w.n; i++) {
		cr_assert_eq(w.jobs[i].run % SIM_SEC, 0);
		sr += (uint64_t)(w.jobs[i].run / SIM_SEC);
		sp += w.jobs[i].cpus;
		if (i)
			cr_assert(w.jobs[i - 1].submit <= w.jobs[i].submit);
	}
	cr_assert_eq(sr, 252090642);
	cr_assert_eq(sp, 218025);
	workload_release(&w);

	o.procs = PROCS_REQUESTED;
	o.overrun = OVERRUN_KILL;
	cr_assert_eq(trace_load_swf(path, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.report.killed, 475);
	sp = 0;
	for (size_t i = 0; i < w.n; i++)
		sp += w.jobs[i].cpus;
	cr_assert_eq(sp, 217802);
	workload_release(&w);
	free(path);
}

/* NASA iPSC: no estimates (requested time -1).  awk: 18239 jobs, 173 with
 * run <= 0, none without processors. */
Test(trace_swf, nasa_no_estimates)
{
	char *path = swf_trace_path("hpc/NASA-iPSC-1993-3.1-cln.swf.gz");
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	if (!path)
		cr_skip_test("NASA-iPSC-1993-3.1-cln.swf.gz not in "
			     "$CLUSTERSIM_TRACE_DIR");
	trace_opts_default(&o);
	cr_assert_eq(trace_load_swf(path, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.report.jobs_read, 18239);
	cr_assert_eq(w.report.dropped_run, 173);
	cr_assert_eq(w.report.no_estimate, 18066);
	cr_assert_eq(w.n, 18066);
	cr_assert(!w.has_estimates);
	cr_assert_eq(w.max_procs, 128);
	workload_release(&w);
	free(path);
}

/*
 * traces/sample.swf, by hand: 34 lines, 20 jobs; job 12 has run 0
 * (dropped), job 15 allocated -1 (requested 12 used), job 18 no
 * estimate, job 7 runs 1500 s past its 1200 s (clipped).  Kept: 19 jobs,
 * run sum 24010 s (24310 - 1500 + 1200), processor sum 334.
 */
Test(trace_swf, sample_file)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	uint64_t sr = 0, sp = 0;

	trace_opts_default(&o);
	cr_assert_eq(trace_load("traces/sample.swf", &o, &w, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(w.max_procs, 64);
	cr_assert_eq(w.max_nodes, 8);
	cr_assert_eq(w.report.lines, 34);
	cr_assert_eq(w.report.jobs_read, 20);
	cr_assert_eq(w.report.dropped_run, 1);
	cr_assert_eq(w.report.procs_fallback, 1);
	cr_assert_eq(w.report.no_estimate, 1);
	cr_assert_eq(w.report.clipped, 1);
	cr_assert_eq(w.n, 19);
	for (size_t i = 0; i < w.n; i++) {
		sr += (uint64_t)(w.jobs[i].run / SIM_SEC);
		sp += w.jobs[i].cpus;
	}
	cr_assert_eq(sr, 24010);
	cr_assert_eq(sp, 334);
	workload_release(&w);
}
