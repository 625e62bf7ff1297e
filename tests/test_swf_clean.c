/*
 * Tests of the SWF cleaning presets (sim/workload/swf_clean.c): one small
 * hand-made trace, loaded under each preset, with every job's fields
 * worked out by hand from the peer's rule (traces/README.md, "Cleaning
 * presets"), and the loader options refining a preset's result.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "workload/workload.h"

/* One rule a line each (MaxProcs 64):
 * 1 plain, run 100 < estimate 200, 8 allocated, 16 requested
 * 2 runs past its estimate (300 > 200)
 * 3 no estimate, fractional run 50.7
 * 4 run 0, submitted at 0
 * 5 no allocated processors, 32 requested
 * 6 larger than the machine (128)
 * 7 run below a second (0.5)
 * 9 run 100.5 against estimate 100 (past it by half a second) */
static const char *clean_text =
	"; MaxProcs: 64\n"
	"1 5 0 100 8 -1 -1 16 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 10 0 300 8 -1 -1 8 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"3 20 0 50.7 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"4 0 0 0 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"5 40 0 60 -1 -1 -1 32 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"6 50 0 60 128 -1 -1 128 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"7 60 0 0.5 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"9 70 0 100.5 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n";

static void clean_load(enum swf_clean p, struct trace_opts *o,
		       struct workload *w)
{
	struct sim_error err;
	char *path = xstrdup("/tmp/clustersim-clean-XXXXXX.swf");
	int fd = mkstemps(path, 4);
	cr_assert(fd >= 0, "mkstemps: %s", strerror(errno));
	size_t n = strlen(clean_text);
	cr_assert_eq(write(fd, clean_text, n), (ssize_t)n);
	close(fd);
	o->clean = p;
	int rc = trace_load_swf(path, o, w, &err);
	unlink(path);
	free(path);
	cr_assert_eq(rc, 0, "%s", err.msg);
}

static const struct job *clean_find(const struct workload *w, int64_t id)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->jobs[i].id == id)
			return &w->jobs[i];
	return NULL;
}

/* Checks job id's submit, run, estimate and CPUs. */
static void clean_job(const struct workload *w, int64_t id, sim_time_t submit,
		      sim_time_t run, sim_time_t est, uint32_t cpus)
{
	const struct job *j = clean_find(w, id);
	cr_assert(j, "job %lld missing", (long long)id);
	cr_expect_eq(j->submit, submit, "job %lld submit %lld", (long long)id,
		     (long long)j->submit);
	cr_expect_eq(j->run, run, "job %lld run %lld", (long long)id,
		     (long long)j->run);
	cr_expect_eq(j->estimate, est, "job %lld estimate %lld",
		     (long long)id, (long long)j->estimate);
	cr_expect_eq(j->cpus, cpus, "job %lld cpus %u", (long long)id,
		     j->cpus);
}

#define S(x) ((sim_time_t)((x) * 1000000.0 + 0.5))

Test(swf_clean, names)
{
	cr_assert_str_eq(swf_clean_names[SWF_CLEAN_PWA], "pwa");
	cr_assert_str_eq(swf_clean_names[SWF_CLEAN_PYSS], "pyss");
	cr_assert_str_eq(swf_clean_names[SWF_CLEAN_CQSIM], "cqsim");
	cr_assert_str_eq(swf_clean_names[SWF_CLEAN_BATSIM], "batsim");
}

/* pwa is the default and changes nothing: the loader's own rules only
 * (4 and 5 dropped or falling back, 2 and 9 clipped). */
Test(swf_clean, pwa_is_the_default)
{
	struct trace_opts o;
	struct workload w;
	trace_opts_default(&o);
	cr_assert_eq(o.clean, SWF_CLEAN_PWA);
	clean_load(SWF_CLEAN_PWA, &o, &w);
	cr_assert_eq(w.n, 7);
	cr_expect_eq(w.report.clean_changed, 0);
	cr_expect_eq(w.report.clean_dropped, 0);
	cr_expect_eq(w.report.dropped_run, 1);
	clean_job(&w, 2, S(10), S(200), S(200), 8);
	clean_job(&w, 3, S(20), S(50.7), S(50.7), 4);
	clean_job(&w, 5, S(40), S(60), S(100), 32);
	workload_release(&w);
}

Test(swf_clean, pyss)
{
	struct trace_opts o;
	struct workload w;
	trace_opts_default(&o);
	clean_load(SWF_CLEAN_PYSS, &o, &w);
	cr_assert_eq(w.n, 8);           /* pyss drops nothing */
	cr_expect_eq(w.report.clean_dropped, 0);
	cr_expect_eq(w.report.clean_changed, 7);
	cr_expect_eq(w.report.clipped, 0);
	cr_expect_eq(w.report.no_estimate, 0);
	clean_job(&w, 1, S(5), S(100), S(200), 8);
	/* estimate max(req, run) = 300, run min(req, run) = 200 */
	clean_job(&w, 2, S(10), S(200), S(300), 8);
	/* no estimate: run max(min(-1, 50.7), 1) = 1, estimate int(50.7) */
	clean_job(&w, 3, S(20), S(1), S(50), 4);
	/* invalid: a 1-second job at max(submit, 1) */
	clean_job(&w, 4, S(1), S(1), S(1), 4);
	clean_job(&w, 5, S(40), S(1), S(1), 1);
	/* processors clipped to MaxProcs */
	clean_job(&w, 6, S(50), S(60), S(100), 64);
	/* run int(max(0.5, 1)) = 1 */
	clean_job(&w, 7, S(60), S(1), S(10), 2);
	/* whole seconds: run int(min(100, 100.5)) = 100 */
	clean_job(&w, 9, S(70), S(100), S(100), 4);
	for (size_t i = 0; i < w.n; i++)
		cr_expect(w.jobs[i].flags & JOB_HAS_ESTIMATE);
	workload_release(&w);
}

Test(swf_clean, cqsim)
{
	struct trace_opts o;
	struct workload w;
	trace_opts_default(&o);
	clean_load(SWF_CLEAN_CQSIM, &o, &w);
	/* 3 (no estimate: run becomes -1), 4 (run 0), 7 (int(0.5) = 0)
	 * dropped */
	cr_assert_eq(w.n, 5);
	cr_expect_eq(w.report.clean_dropped, 3);
	cr_expect_eq(w.report.clean_changed, 3);
	cr_expect_null(clean_find(&w, 3));
	cr_expect_null(clean_find(&w, 4));
	cr_expect_null(clean_find(&w, 7));
	/* requested processors */
	clean_job(&w, 1, S(5), S(100), S(200), 16);
	clean_job(&w, 2, S(10), S(200), S(200), 8);
	clean_job(&w, 5, S(40), S(60), S(100), 32);
	clean_job(&w, 6, S(50), S(60), S(100), 128);
	/* int(100.5) > int(100) is false: the preset keeps 100.5, and the
	 * default overrun "clip" then refines it */
	clean_job(&w, 9, S(70), S(100), S(100), 4);
	cr_expect_eq(w.report.clipped, 1);
	workload_release(&w);

	trace_opts_default(&o);
	o.overrun = OVERRUN_ALLOW;
	clean_load(SWF_CLEAN_CQSIM, &o, &w);
	clean_job(&w, 9, S(70), S(100.5), S(100), 4);
	cr_expect_eq(w.report.overran, 1);
	workload_release(&w);
}

Test(swf_clean, batsim)
{
	struct trace_opts o;
	struct workload w;
	trace_opts_default(&o);
	clean_load(SWF_CLEAN_BATSIM, &o, &w);
	/* 4 (run 0) and 5 (no allocated processors) dropped */
	cr_assert_eq(w.n, 6);
	cr_expect_eq(w.report.clean_dropped, 2);
	cr_expect_eq(w.report.clean_changed, 6);
	cr_expect_eq(w.report.clipped, 0);
	/* submits start at 0 (the first kept is 5); walltime max(2 run,
	 * req); run floor(run) + 1 */
	clean_job(&w, 1, S(0), S(101), S(200), 8);
	clean_job(&w, 2, S(5), S(301), S(600), 8);
	clean_job(&w, 3, S(15), S(51), S(101.4), 4);
	clean_job(&w, 6, S(45), S(61), S(120), 128);
	clean_job(&w, 7, S(55), S(1), S(10), 2);
	clean_job(&w, 9, S(65), S(101), S(201), 4);
	workload_release(&w);
}

/* procs refines pwa, which fixes no processor field, and has nothing
 * left to choose after a preset that does (pyss: allocated). */
Test(swf_clean, procs_refines)
{
	struct trace_opts o;
	struct workload w;
	trace_opts_default(&o);
	o.procs = PROCS_REQUESTED;
	clean_load(SWF_CLEAN_PYSS, &o, &w);
	clean_job(&w, 1, S(5), S(100), S(200), 8);
	workload_release(&w);
	trace_opts_default(&o);
	o.procs = PROCS_REQUESTED;
	clean_load(SWF_CLEAN_PWA, &o, &w);
	clean_job(&w, 1, S(5), S(100), S(200), 16);
	workload_release(&w);
}
