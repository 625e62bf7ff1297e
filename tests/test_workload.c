/*
 * Tests of the shared workload tail (sim/workload/workload.c): option defaults,
 * sorting by (submit, id), duplicate ids, time window, first N, load
 * scaling, the per-job options of trace_job_finish and the report text.
 * Workloads are built by hand; every expected value is worked out in a
 * comment.
 */
#include <criterion/criterion.h>

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "workload/workload.h"

/* A workload of n jobs with the given submits (seconds) and ids. */
static void wl_make(struct workload *w, size_t n, const int64_t *submit_s,
		    const int64_t *id)
{
	memset(w, 0, sizeof(*w));
	w->max_procs = w->max_nodes = -1;
	w->n = n;
	w->jobs = xcalloc(n, sizeof(*w->jobs));
	for (size_t i = 0; i < n; i++) {
		w->jobs[i].id = id[i];
		w->jobs[i].submit = submit_s[i] * SIM_SEC;
		w->jobs[i].run = SIM_SEC;
		w->jobs[i].estimate = SIM_SEC;
		w->jobs[i].cpus = 1;
	}
}

static void wl_ids(const struct workload *w, const int64_t *want, size_t n)
{
	cr_assert_eq(w->n, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(w->jobs[i].id, want[i], "jobs[%zu].id %lld != %lld",
			     i, (long long)w->jobs[i].id, (long long)want[i]);
		cr_assert_eq(w->jobs[i].idx, i);
	}
	cr_assert_eq(w->report.jobs, n);
}

Test(workload_finish, defaults)
{
	struct trace_opts o;
	trace_opts_default(&o);
	cr_assert_eq(o.format, TRACE_SWF);
	cr_assert_eq(o.procs, PROCS_ALLOCATED);
	cr_assert_eq(o.overrun, OVERRUN_CLIP);
	cr_assert(o.drop_invalid);
	cr_assert(!o.lenient);
	cr_assert_eq(o.limit, 0);
	cr_assert_eq(o.window_start, SIM_TIME_NONE);
	cr_assert_eq(o.window_end, SIM_TIME_NONE);
	cr_assert_eq(o.load_scale, 1.0);
}

Test(workload_finish, sort_by_submit_then_id)
{
	/* (submit, id): (5,2) (1,7) (5,1) (0,9) (1,3) -> (0,9) (1,3) (1,7)
	 * (5,1) (5,2). */
	const int64_t s[] = { 5, 1, 5, 0, 1 }, id[] = { 2, 7, 1, 9, 3 };
	const int64_t want[] = { 9, 3, 7, 1, 2 };
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	trace_opts_default(&o);
	wl_make(&w, 5, s, id);
	cr_assert_eq(workload_finish(&w, &o, "t", &err), 0, "%s", err.msg);
	wl_ids(&w, want, 5);
	workload_release(&w);
}

Test(workload_finish, sort_large_reversed)
{
	/* n jobs in reverse order of submit; the sorted ids are 1..n. */
	const size_t n = 100000;
	struct workload w;
	struct sim_error err;

	memset(&w, 0, sizeof(w));
	w.n = n;
	w.jobs = xcalloc(n, sizeof(*w.jobs));
	for (size_t i = 0; i < n; i++) {
		w.jobs[i].id = (int64_t)(n - i);
		w.jobs[i].submit = (sim_time_t)((n - i) / 2) * SIM_SEC;
	}
	cr_assert_eq(workload_finish(&w, NULL, "t", &err), 0, "%s", err.msg);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(w.jobs[i].id, (int64_t)i + 1);
	workload_release(&w);
}

Test(workload_finish, duplicate_ids)
{
	/* Ids 4 and 4 at submits 9 and 2 (the smallest duplicate is named). */
	const int64_t s[] = { 9, 2, 5 }, id[] = { 4, 4, 1 };
	struct workload w;
	struct sim_error err;

	wl_make(&w, 3, s, id);
	cr_assert_eq(workload_finish(&w, NULL, "trace.swf", &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, "trace.swf: duplicate job id '4'");
	workload_release(&w);

	/* Same submit, same id: adjacent after sorting. */
	const int64_t s2[] = { 3, 3 }, id2[] = { 5, 5 };
	wl_make(&w, 2, s2, id2);
	cr_assert_eq(workload_finish(&w, NULL, "x", &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, "x: duplicate job id '5'");
	workload_release(&w);
}

Test(workload_finish, window_limit_and_scale)
{
	/* Submits 0, 10, 20, ..., 90 s, ids 1..10.  Window [15, 75) keeps
	 * 20..70 (ids 3..8: 6 jobs, 4 outside); limit 4 keeps ids 3..6 (2
	 * beyond); load scale 2 with s0 = 20: 20 + (30-20)/2 = 25, 30, 35. */
	int64_t s[10], id[10];
	for (int i = 0; i < 10; i++) {
		s[i] = 10 * i;
		id[i] = i + 1;
	}
	const int64_t want[] = { 3, 4, 5, 6 };
	const sim_time_t want_submit[] = { 20, 25, 30, 35 };
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	trace_opts_default(&o);
	o.window_start = 15 * SIM_SEC;
	o.window_end = 75 * SIM_SEC;
	o.limit = 4;
	o.load_scale = 2.0;
	wl_make(&w, 10, s, id);
	cr_assert_eq(workload_finish(&w, &o, "t", &err), 0, "%s", err.msg);
	wl_ids(&w, want, 4);
	for (size_t i = 0; i < 4; i++)
		cr_assert_eq(w.jobs[i].submit, want_submit[i] * SIM_SEC);
	cr_assert_eq(w.report.outside_window, 4);
	cr_assert_eq(w.report.beyond_limit, 2);
	workload_release(&w);

	/* Window end is exclusive, start inclusive: [20, 30) keeps id 3. */
	trace_opts_default(&o);
	o.window_start = 20 * SIM_SEC;
	o.window_end = 30 * SIM_SEC;
	wl_make(&w, 10, s, id);
	cr_assert_eq(workload_finish(&w, &o, "t", &err), 0, "%s", err.msg);
	const int64_t want3[] = { 3 };
	wl_ids(&w, want3, 1);
	cr_assert_eq(w.report.outside_window, 9);
	workload_release(&w);
}

/* skip drops the first jobs after the window and before limit: of ids
 * 3..8 (window [15, 75)), skip 2 drops 3 and 4, limit 3 keeps 5, 6, 7
 * (one beyond); skip past the end keeps none. */
Test(workload_finish, skip_then_limit)
{
	int64_t s[10], id[10];
	for (int i = 0; i < 10; i++) {
		s[i] = 10 * i;
		id[i] = i + 1;
	}
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	trace_opts_default(&o);
	o.window_start = 15 * SIM_SEC;
	o.window_end = 75 * SIM_SEC;
	o.skip = 2;
	o.limit = 3;
	wl_make(&w, 10, s, id);
	cr_assert_eq(workload_finish(&w, &o, "t", &err), 0, "%s", err.msg);
	const int64_t want[] = { 5, 6, 7 };
	wl_ids(&w, want, 3);
	cr_assert_eq(w.report.outside_window, 4);
	cr_assert_eq(w.report.skipped, 2);
	cr_assert_eq(w.report.beyond_limit, 1);
	workload_release(&w);

	trace_opts_default(&o);
	o.skip = 12;
	wl_make(&w, 10, s, id);
	cr_assert_eq(workload_finish(&w, &o, "t", &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 0);
	cr_assert_eq(w.report.skipped, 10);
	workload_release(&w);
}

Test(workload_finish, scale_rounds_and_keeps_order)
{
	/* Submits 1, 2, 4 s, 4.000001 s with ids 1, 2, 4, 3; scale 3,
	 * s0 = 1 s: 1 + 1/3 s = 1333333 us (rounded), 1 + 3/3 = 2 s,
	 * 1 + 3000001/3 us = 1 s + 1000000.33 -> 2000000 us: ties with id
	 * 4, so id 3 now sorts first. */
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	const int64_t s[] = { 1, 2, 4, 4 }, id[] = { 1, 2, 4, 3 };

	wl_make(&w, 4, s, id);
	w.jobs[3].submit += 1; /* 4.000001 s */
	trace_opts_default(&o);
	o.load_scale = 3.0;
	cr_assert_eq(workload_finish(&w, &o, "t", &err), 0, "%s", err.msg);
	const int64_t want[] = { 1, 2, 3, 4 };
	wl_ids(&w, want, 4);
	cr_assert_eq(w.jobs[0].submit, 1000000);
	cr_assert_eq(w.jobs[1].submit, 1333333);
	cr_assert_eq(w.jobs[2].submit, 2000000);
	cr_assert_eq(w.jobs[3].submit, 2000000);
	workload_release(&w);

	/* Scale 0.5 stretches: 0, 10 s -> 0, 20 s. */
	const int64_t s2[] = { 0, 10 }, id2[] = { 1, 2 };
	wl_make(&w, 2, s2, id2);
	o.load_scale = 0.5;
	cr_assert_eq(workload_finish(&w, &o, "t", &err), 0, "%s", err.msg);
	cr_assert_eq(w.jobs[1].submit, 20 * SIM_SEC);
	workload_release(&w);

	wl_make(&w, 2, s2, id2);
	o.load_scale = 0;
	cr_assert_eq(workload_finish(&w, &o, "t", &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, "t: load scale '0' is not positive");
	workload_release(&w);
}

Test(workload_finish, has_estimates)
{
	const int64_t s[] = { 0, 1 }, id[] = { 1, 2 };
	struct workload w;
	struct sim_error err;

	wl_make(&w, 2, s, id);
	cr_assert_eq(workload_finish(&w, NULL, "t", &err), 0);
	cr_assert(!w.has_estimates);
	workload_release(&w);
	wl_make(&w, 2, s, id);
	w.jobs[1].flags = JOB_HAS_ESTIMATE;
	cr_assert_eq(workload_finish(&w, NULL, "t", &err), 0);
	cr_assert(w.has_estimates);
	workload_release(&w);
}

Test(workload_finish, job_finish_options)
{
	struct trace_opts o;
	struct trace_report r;
	struct sim_error err;
	struct job j;

	trace_opts_default(&o);
	memset(&r, 0, sizeof(r));
	memset(&j, 0, sizeof(j));
	j.run = 10 * SIM_SEC;
	j.estimate = 4 * SIM_SEC;
	o.overrun = OVERRUN_KILL;
	cr_assert_eq(trace_job_finish(&j, 2, &o, &r, "f", 3, &err), 1);
	cr_assert_eq(j.run, 4 * SIM_SEC);
	cr_assert_eq(j.flags, JOB_HAS_ESTIMATE | JOB_KILL_AT_ESTIMATE);
	cr_assert_eq(j.start, SIM_TIME_NONE);
	cr_assert_eq(r.killed, 1);

	j.run = -1500000;
	o.drop_invalid = false;
	cr_assert_eq(trace_job_finish(&j, 2, &o, &r, "f", 3, &err),
		     -SIM_EINPUT);
	cr_assert_str_eq(err.msg, "f:3: run time '-1.5' is not positive");
}

Test(workload_finish, report_format)
{
	struct trace_report r;
	char buf[512];

	memset(&r, 0, sizeof(r));
	r.lines = 12;
	r.dropped_run = 3;
	r.jobs = 9;
	trace_report_format(&r, buf, sizeof(buf));
	cr_assert_str_eq(buf, "  lines read: 12\n"
			      "  dropped (run <= 0): 3\n"
			      "  jobs kept: 9\n");
	/* A short buffer stays terminated. */
	trace_report_format(&r, buf, 20);
	cr_assert_str_eq(buf, "  lines read: 12\n");
	memset(&r, 0, sizeof(r));
	trace_report_format(&r, buf, sizeof(buf));
	cr_assert_str_eq(buf, "");
}

/* The readers grow the job array by doubling; once loaded it holds the
 * jobs kept and no more (traces/sample.swf: 20 jobs read into room for
 * 32, then trimmed). */
Test(workload, the_loaded_array_is_trimmed)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	trace_opts_default(&o);
	cr_assert_eq(trace_load("traces/sample.swf", &o, &w, &err), 0, "%s",
		     err.msg);
	cr_assert_gt(w.n, 16);
	cr_expect_lt(malloc_usable_size(w.jobs), (w.n + 1) * sizeof(*w.jobs));
	workload_release(&w);
}
