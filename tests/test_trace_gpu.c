/*
 * Tests of the deep-learning cluster trace readers: Philly job summary
 * (sim/workload/trace_philly.c, with the shared row reader), Tiresias
 * (sim/workload/trace_tiresias.c) and Gavel (sim/workload/trace_gavel.c).  Small
 * hand-written samples in tests/data/gpu with the expected jobs worked
 * out by hand in the comments; malformed lines and their messages;
 * lenient mode; the loader options; and the real traces when
 * $CLUSTERSIM_TRACE_DIR (default ../shared/traces) has them.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "speed/jobclass.h"
#include "speed/jobclass_override.h"
#include "testlib.h"
#include "base/util.h"
#include "workload/workload.h"

#define SEC(s) ((sim_time_t)((s) * SIM_SEC))

/* Writes text to a temporary file (gzip when gz) and loads it in the
 * given format; messages name the file "F". */
static int gpu_load_text(enum trace_format fmt, const char *text, bool gz,
			 const struct trace_opts *o_in, struct workload *w,
			 struct sim_error *err)
{
	char path[] = "/tmp/clustersim-gpu-XXXXXX";
	struct trace_opts o;
	int fd = mkstemp(path);
	size_t n = strlen(text);

	cr_assert(fd >= 0, "mkstemp: %s", strerror(errno));
	if (gz) {
		gzFile g = gzdopen(fd, "wb");
		cr_assert(g);
		cr_assert_eq(gzwrite(g, text, (unsigned)n), (int)n);
		cr_assert_eq(gzclose(g), Z_OK);
	} else {
		cr_assert_eq(write(fd, text, n), (ssize_t)n);
		close(fd);
	}
	if (o_in)
		o = *o_in;
	else
		trace_opts_default(&o);
	o.format = fmt;
	int rc = trace_load(path, &o, w, err);
	if (rc && strncmp(err->msg, path, strlen(path)) == 0) {
		size_t k = strlen(path);
		err->msg[0] = 'F';
		memmove(err->msg + 1, err->msg + k, strlen(err->msg + k) + 1);
	}
	unlink(path);
	return rc;
}

/* Loading text fails with exactly msg and leaves no jobs. */
static void gpu_expect_error(enum trace_format fmt, const char *text,
			     const struct trace_opts *o, const char *msg)
{
	struct workload w;
	struct sim_error err;

	int rc = gpu_load_text(fmt, text, false, o, &w, &err);
	cr_assert_eq(rc, -SIM_EINPUT, "rc %d for %s", rc, text);
	cr_assert_str_eq(err.msg, msg);
	cr_assert_eq(w.n, 0);
	cr_assert_eq(w.ngroups, 0);
}

/* Reads a whole file into a string (the caller frees). */
static char *gpu_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	char *s = xmalloc(1 << 16);
	size_t n = fread(s, 1, (1 << 16) - 1, f);
	s[n] = '\0';
	fclose(f);
	return s;
}

/* A real trace in $CLUSTERSIM_TRACE_DIR, or NULL when absent. */
static char *gpu_trace_path(const char *name)
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

static unsigned gpu_cls(const char *exact)
{
	int i = jobclass_lookup(exact);
	cr_assert_gt(i, 0, "class '%s' missing", exact);
	return (unsigned)i;
}

static void gpu_check_job(const struct job *j, int64_t id, sim_time_t submit,
			  sim_time_t run, uint32_t gpus, unsigned cls,
			  int32_t group)
{
	cr_assert_eq(j->id, id, "id %lld, want %lld", (long long)j->id,
		     (long long)id);
	cr_assert_eq(j->submit, submit, "job %lld submit %lld",
		     (long long)id, (long long)j->submit);
	cr_assert_eq(j->run, run, "job %lld run %lld", (long long)id,
		     (long long)j->run);
	cr_assert_eq(j->estimate, run, "job %lld: estimate = run", (long long)id);
	cr_assert_eq(j->flags & JOB_HAS_ESTIMATE, 0);
	cr_assert_eq(j->gpus, gpus, "job %lld gpus %u", (long long)id, j->gpus);
	cr_assert_eq(j->cpus, 0);
	cr_assert_eq(j->job_class, cls, "job %lld class %u, want %u",
		     (long long)id, j->job_class, cls);
	cr_assert_eq(j->group, group, "job %lld group %d", (long long)id,
		     j->group);
	cr_assert_eq(j->user, -1);
	cr_assert_eq(j->state, JOB_FUTURE);
}

/* ---- Philly ---- */

/*
 * tests/data/gpu/philly-sample.csv, rows unsorted, two VCs, a blank line:
 *   line 2, row 1: 2017-10-09 07:01:55  66 s    1 GPU  vcb
 *   line 3, row 2: 2017-10-09 06:13:03  2951.5  2      vca
 *   line 4, row 3: 2017-10-08 23:59:59  10      4      vcb   (earliest)
 *   line 5: blank (not a row)
 *   line 6, row 4: 2017-10-09 06:13:03  5       8      vca   gpu_time 41
 * Time 0 = 2017-10-08 23:59:59 UTC = Unix 1507507199
 * (date -u -d '2017-10-08 23:59:59Z' +%s).  Submits: row 3 0; rows 2, 4:
 * 6:13:03 + 1 s to midnight = 6 h 13 min 4 s = 22384 s; row 1: 7 h 1 min
 * 56 s = 25316 s.  Sorted by (submit, id): 3, 2, 4, 1.  Groups by name:
 * vca = 0, vcb = 1 (though vcb appears first).  Row 4: 5 x 8 = 40 != 41,
 * one gpu_time mismatch.
 */
static void gpu_check_philly_sample(const struct workload *w)
{
	cr_assert_eq(w->n, 4);
	gpu_check_job(&w->jobs[0], 3, 0, SEC(10), 4, JOB_CLASS_NONE, 1);
	gpu_check_job(&w->jobs[1], 2, SEC(22384), SEC(2951.5), 2,
		      JOB_CLASS_NONE, 0);
	gpu_check_job(&w->jobs[2], 4, SEC(22384), SEC(5), 8, JOB_CLASS_NONE,
		      0);
	gpu_check_job(&w->jobs[3], 1, SEC(25316), SEC(66), 1, JOB_CLASS_NONE,
		      1);
	for (size_t i = 0; i < w->n; i++)
		cr_assert_eq(w->jobs[i].idx, i);
	cr_assert_eq(w->ngroups, 2);
	cr_assert_str_eq(w->groups[0], "vca");
	cr_assert_str_eq(w->groups[1], "vcb");
	cr_assert_eq(w->epoch, 1507507199);
	cr_assert_eq(w->report.lines, 6);
	cr_assert_eq(w->report.jobs_read, 4);
	cr_assert_eq(w->report.no_estimate, 4);
	cr_assert_eq(w->report.gpu_time_mismatch, 1);
	cr_assert_eq(w->report.malformed, 0);
	cr_assert_eq(w->report.jobs, 4);
	cr_assert_not(w->has_estimates);
}

Test(trace_gpu, philly_sample)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	trace_opts_default(&o);
	o.format = TRACE_PHILLY;
	cr_assert_eq(trace_load("tests/data/gpu/philly-sample.csv", &o, &w,
				&err), 0, "%s", err.msg);
	gpu_check_philly_sample(&w);
	workload_release(&w);
	cr_assert_eq(w.ngroups, 0);
	cr_assert_null(w.groups);
}

Test(trace_gpu, philly_gzip_and_direct_call)
{
	char *text = gpu_slurp("tests/data/gpu/philly-sample.csv");
	struct workload w;
	struct sim_error err;

	cr_assert_eq(gpu_load_text(TRACE_PHILLY, text, true, NULL, &w, &err),
		     0, "%s", err.msg);
	gpu_check_philly_sample(&w);
	workload_release(&w);
	cr_assert_eq(trace_load_philly("tests/data/gpu/philly-sample.csv",
				       NULL, &w, &err), 0, "%s", err.msg);
	gpu_check_philly_sample(&w);
	workload_release(&w);
	free(text);
}

/* Columns are found by name; gpu_time may be absent.  The VC numbering
 * follows the names, not the rows: "zz" first in the file is still 1. */
Test(trace_gpu, philly_columns_by_name_groups_by_name)
{
	const char *text = "cluster,num_gpus,duration,timestamp\n"
			   "zz,2,1.5,2017-01-01 00:00:10\n"
			   "aa,1,3,2016-12-31 23:59:59\n"
			   ",1,3,2017-01-01 00:00:00\n";
	struct workload w;
	struct sim_error err;

	cr_assert_eq(gpu_load_text(TRACE_PHILLY, text, false, NULL, &w, &err),
		     0, "%s", err.msg);
	cr_assert_eq(w.n, 3);
	/* Time 0 = 2016-12-31 23:59:59 = Unix 1483228799 (a year boundary). */
	cr_assert_eq(w.epoch, 1483228799);
	gpu_check_job(&w.jobs[0], 2, 0, SEC(3), 1, JOB_CLASS_NONE, 0);
	gpu_check_job(&w.jobs[1], 3, SEC(1), SEC(3), 1, JOB_CLASS_NONE, -1);
	gpu_check_job(&w.jobs[2], 1, SEC(11), SEC(1.5), 2, JOB_CLASS_NONE, 1);
	cr_assert_eq(w.ngroups, 2);
	cr_assert_str_eq(w.groups[0], "aa");
	cr_assert_str_eq(w.groups[1], "zz");
	cr_assert_eq(w.report.gpu_time_mismatch, 0);
	workload_release(&w);
}

#define PH_HEAD "timestamp,duration,num_gpus,gpu_time,cluster\n"
#define PH_ROW "2017-10-09 07:01:55,66.0,1,66.0,vc\n"

Test(trace_gpu, philly_errors)
{
	gpu_expect_error(TRACE_PHILLY, "", NULL, "F:1: missing header row");
	gpu_expect_error(TRACE_PHILLY, "timestamp,duration,num_gpus\n" PH_ROW,
			 NULL, "F:1: missing column 'cluster'");
	gpu_expect_error(TRACE_PHILLY,
			 "timestamp,duration,num_gpus,cluster,cluster\n",
			 NULL, "F:1: duplicate column 'cluster'");
	/* 2017 is not a leap year. */
	gpu_expect_error(TRACE_PHILLY,
			 PH_HEAD PH_ROW "2017-02-29 00:00:00,1,1,1,vc\n", NULL,
			 "F:3: timestamp '2017-02-29 00:00:00' is not a "
			 "date-time (YYYY-MM-DD HH:MM:SS)");
	gpu_expect_error(TRACE_PHILLY, PH_HEAD "1507507199,1,1,1,vc\n", NULL,
			 "F:2: timestamp '1507507199' is not a date-time "
			 "(YYYY-MM-DD HH:MM:SS)");
	gpu_expect_error(TRACE_PHILLY, PH_HEAD "2017-10-09 24:00:00,1,1,1,vc\n",
			 NULL, "F:2: timestamp '2017-10-09 24:00:00' is not a "
			 "date-time (YYYY-MM-DD HH:MM:SS)");
	gpu_expect_error(TRACE_PHILLY, PH_HEAD "2017-10-09 07:01:55,abc,1,1,vc\n",
			 NULL, "F:2: duration 'abc' is not a number of seconds");
	gpu_expect_error(TRACE_PHILLY, PH_HEAD "2017-10-09 07:01:55,1,1.5,1,vc\n",
			 NULL, "F:2: num_gpus '1.5' is not an integer");
	gpu_expect_error(TRACE_PHILLY, PH_HEAD "2017-10-09 07:01:55,1,1,x,vc\n",
			 NULL, "F:2: gpu_time 'x' is not a number");
	gpu_expect_error(TRACE_PHILLY, PH_HEAD PH_ROW "2017-10-09 07:01:55,1,1\n",
			 NULL, "F:3: expected 5 cells, got '3'");
	gpu_expect_error(TRACE_PHILLY, PH_HEAD "\"2017-10-09 07:01:55,1,1,1,vc\n",
			 NULL, "F:2: malformed csv: error parsing data while "
			 "strict checking enabled");
}

/* Lenient: malformed rows are skipped and counted; they still count as
 * rows for the ids (the third row keeps id 3). */
Test(trace_gpu, philly_lenient)
{
	const char *text = PH_HEAD
		"2017-10-09 07:01:55,66.0,1,66.0,vc\n"
		"2017-13-09 07:01:55,66.0,1,66.0,vc\n"
		"2017-10-09 07:01:56,5,2,10,vc\n"
		"\"broken,1\n"
		"2017-10-09 07:01:55,66.0\n";
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	trace_opts_default(&o);
	o.lenient = true;
	cr_assert_eq(gpu_load_text(TRACE_PHILLY, text, false, &o, &w, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(w.n, 2);
	cr_assert_eq(w.report.malformed, 3);
	cr_assert_eq(w.report.jobs_read, 2);
	gpu_check_job(&w.jobs[0], 1, 0, SEC(66), 1, JOB_CLASS_NONE, 0);
	gpu_check_job(&w.jobs[1], 3, SEC(1), SEC(5), 2, JOB_CLASS_NONE, 0);
	workload_release(&w);
}

/* drop_invalid, time window and first-N on the sample (see above:
 * sorted submits 0, 22384, 22384, 25316). */
Test(trace_gpu, philly_options)
{
	const char *zero = PH_HEAD PH_ROW "2017-10-09 07:01:56,5,0,0,vc\n"
			   "2017-10-09 07:01:57,0,1,0,vc\n";
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	trace_opts_default(&o);
	cr_assert_eq(gpu_load_text(TRACE_PHILLY, zero, false, &o, &w, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(w.report.dropped_procs, 1);
	cr_assert_eq(w.report.dropped_run, 1);
	workload_release(&w);

	o.drop_invalid = false;
	gpu_expect_error(TRACE_PHILLY, zero, &o,
			 "F:3: processors '0' is not positive");

	trace_opts_default(&o);
	o.format = TRACE_PHILLY;
	o.window_end = SEC(22384);
	cr_assert_eq(trace_load("tests/data/gpu/philly-sample.csv", &o, &w,
				&err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(w.jobs[0].id, 3);
	cr_assert_eq(w.report.outside_window, 3);
	cr_assert_eq(w.ngroups, 2, "the VC table covers every row");
	workload_release(&w);

	o.window_end = SIM_TIME_NONE;
	o.limit = 2;
	cr_assert_eq(trace_load("tests/data/gpu/philly-sample.csv", &o, &w,
				&err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 2);
	cr_assert_eq(w.jobs[1].id, 2);
	cr_assert_eq(w.report.beyond_limit, 2);
	workload_release(&w);
}

/* ---- Tiresias ---- */

/*
 * tests/data/gpu/tiresias-sample.csv (CR LF line ends):
 *   job 0: 1 GPU, submit 0,  vgg19 -> "VGG-19", 164 s
 *   job 1: 8 GPUs, submit 30, resnet50 -> "ResNet-50 (batch size 64)"
 *          (jobclass.c's alias table), 147.5 s
 *   job 7: 2 GPUs, submit 10, Gavel's own spelling of the same class, 127 s
 * Sorted by submit: 0, 7, 1.
 */
Test(trace_gpu, tiresias_sample)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	unsigned vgg19 = gpu_cls("VGG-19");
	unsigned r50 = gpu_cls("ResNet-50 (batch size 64)");

	trace_opts_default(&o);
	o.format = TRACE_TIRESIAS;
	cr_assert_eq(trace_load("tests/data/gpu/tiresias-sample.csv", &o, &w,
				&err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 3);
	gpu_check_job(&w.jobs[0], 0, 0, SEC(164), 1, vgg19, -1);
	gpu_check_job(&w.jobs[1], 7, SEC(10), SEC(127), 2, r50, -1);
	gpu_check_job(&w.jobs[2], 1, SEC(30), SEC(147.5), 8, r50, -1);
	cr_assert_eq(w.report.lines, 4);
	cr_assert_eq(w.ngroups, 0);
	workload_release(&w);
}

#define TI_HEAD "job_id,num_gpu,submit_time,iterations,model_name,duration," \
		"interval\n"

Test(trace_gpu, tiresias_errors_and_lenient)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	gpu_expect_error(TRACE_TIRESIAS, TI_HEAD "0,1,0,10,lenet,5,1\n", NULL,
			 "F:2: unknown job class 'lenet'");
	gpu_expect_error(TRACE_TIRESIAS, TI_HEAD "x,1,0,10,vgg19,5,1\n", NULL,
			 "F:2: job_id 'x' is not an integer");
	gpu_expect_error(TRACE_TIRESIAS, TI_HEAD "0,1,-3,10,vgg19,5,1\n", NULL,
			 "F:2: submit_time '-3' is negative");
	gpu_expect_error(TRACE_TIRESIAS, TI_HEAD "0,1,0,10,vgg19,5s,1\n", NULL,
			 "F:2: duration '5s' is not a number of seconds");
	gpu_expect_error(TRACE_TIRESIAS, TI_HEAD "0,1,0,10,vgg19,5,1\n"
			 "0,1,4,10,vgg16,5,1\n", NULL,
			 "F: duplicate job id '0'");
	gpu_expect_error(TRACE_TIRESIAS, "job_id,num_gpu,submit_time,duration\n",
			 NULL, "F:1: missing column 'model_name'");

	trace_opts_default(&o);
	o.lenient = true;
	cr_assert_eq(gpu_load_text(TRACE_TIRESIAS,
				   TI_HEAD "0,1,0,10,lenet,5,1\n"
				   "1,2,3,10,alexnet,5,1\n"
				   "2,2,3,10,alexnet\n",
				   false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(w.report.malformed, 2);
	gpu_check_job(&w.jobs[0], 1, SEC(3), SEC(5), 2, gpu_cls("AlexNet"),
		      -1);
	workload_release(&w);
}

/* ---- Gavel ---- */

/*
 * tests/data/gpu/gavel-sample.trace; run = total_steps / V100 throughput
 * (consolidated, at the job's scale factor), rounded up to the us.  The
 * throughputs are gavel-throughputs.json's, section "v100" (as in
 * sim/speed/jobclass_table.c):
 *   line 1: ResNet-50 (batch size 64), 2931 steps, 1 GPU, arrival 0;
 *           json line 15327 "null": 4.394774823323071 ->
 *           2931 / 4.394774823323071 = 666.928367853 s -> 666928368 us
 *   line 2: Transformer (batch size 16), 11005 steps, 2 GPUs, arrival 30;
 *           json line 18071 "null": 14.153819944879553 ->
 *           11005 / 14.153819944879553 = 777.528613679 s -> 777528614 us
 *   line 3: ResNet-18 (batch size 128), 36030 steps, 1 GPU, arrival 10.5;
 *           json line 14899 "null": 17.994906225052176 ->
 *           36030 / 17.994906225052176 = 2002.233273649 s -> 2002233274 us
 * (quotients by python3).  Ids are line numbers; sorted: 1, 3, 2.
 */
Test(trace_gpu, gavel_sample)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	trace_opts_default(&o);
	o.format = TRACE_GAVEL;
	cr_assert_eq(trace_load("tests/data/gpu/gavel-sample.trace", &o, &w,
				&err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 3);
	gpu_check_job(&w.jobs[0], 1, 0, 666928368, 1,
		      gpu_cls("ResNet-50 (batch size 64)"), -1);
	gpu_check_job(&w.jobs[1], 3, SEC(10.5), 2002233274, 1,
		      gpu_cls("ResNet-18 (batch size 128)"), -1);
	gpu_check_job(&w.jobs[2], 2, SEC(30), 777528614, 2,
		      gpu_cls("Transformer (batch size 16)"), -1);
	workload_release(&w);

	/* The same file gzipped. */
	char *text = gpu_slurp("tests/data/gpu/gavel-sample.trace");
	cr_assert_eq(gpu_load_text(TRACE_GAVEL, text, true, NULL, &w, &err),
		     0, "%s", err.msg);
	cr_assert_eq(w.n, 3);
	cr_assert_eq(w.jobs[2].run, 777528614);
	workload_release(&w);
	free(text);
}

/*
 * The experiment's "throughputs" overrides change a Gavel job's run time
 * (trace_opts.thr), worked from gavel_sample's figures:
 *   ResNet-50 (batch size 64), 1 GPU, V100 overridden to 5 steps/s:
 *     2931 / 5 = 586.2 s -> 586200000 us (was 666928368).
 *   Transformer (batch size 16), 2 GPUs, V100 1-GPU figure overridden to
 *     half its default: the 2-GPU figure is halved too, so the run
 *     doubles: 2 x 777.528613679 s = 1555.057227358 s -> 1555057228 us.
 *   ResNet-18 (batch size 128): overridden on K80 only, V100 untouched:
 *     2002233274 us as before.
 */
Test(trace_gpu, gavel_run_time_uses_throughput_overrides)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	struct jobclass_override ov[3];
	int r50 = gpu_cls("ResNet-50 (batch size 64)");
	int r18 = gpu_cls("ResNet-18 (batch size 128)");
	int tr = gpu_cls("Transformer (batch size 16)");
	int cls[3] = { r50, r18, tr };

	for (int k = 0; k < 3; k++) {
		ov[k].cls = (uint16_t)cls[k];
		for (int g = 0; g < JOBCLASS_GPU_MAX; g++)
			ov[k].thr[g] = NAN;
		ov[k].grad_bytes = -1;
	}
	ov[0].thr[JOBCLASS_GPU_V100] = 5;
	ov[1].thr[JOBCLASS_GPU_K80] = 1;
	ov[2].thr[JOBCLASS_GPU_V100] =
		jobclass_throughput((unsigned)tr, JOBCLASS_GPU_V100, 1, true) / 2;
	/* Sorted by class, as the experiment loader keeps them. */
	for (int a = 0; a < 3; a++)
		for (int b = a + 1; b < 3; b++)
			if (ov[b].cls < ov[a].cls) {
				struct jobclass_override t = ov[a];
				ov[a] = ov[b];
				ov[b] = t;
			}
	struct jobclass_overrides all = { .v = ov, .n = 3 };

	trace_opts_default(&o);
	o.format = TRACE_GAVEL;
	o.thr = &all;
	cr_assert_eq(trace_load("tests/data/gpu/gavel-sample.trace", &o, &w,
				&err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 3);
	cr_expect_eq(w.jobs[0].run, 586200000);
	cr_expect_eq(w.jobs[1].run, 2002233274);
	cr_expect_eq(w.jobs[2].run, 1555057228);
	workload_release(&w);
}

#define GV(type, steps, scale, arrival)                                      \
	type "\tcmd\tdir\t--steps\t1\t" steps "\t" scale "\t1\t-1.000000\t"  \
	     arrival "\n"

Test(trace_gpu, gavel_errors_and_lenient)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	gpu_expect_error(TRACE_GAVEL, GV("ResNet-50 (batch size 64)", "10",
					 "1", "0") "a\tb\n",
			 NULL, "F:2: expected 10 tab-separated fields, got '2'");
	gpu_expect_error(TRACE_GAVEL, GV("LeNet (batch size 1)", "10", "1", "0"),
			 NULL, "F:1: unknown job class 'LeNet (batch size 1)'");
	gpu_expect_error(TRACE_GAVEL, GV("A3C", "1e3", "1", "0"), NULL,
			 "F:1: total_steps '1e3' is not an integer");
	gpu_expect_error(TRACE_GAVEL, GV("A3C", "10", "x", "0"), NULL,
			 "F:1: scale_factor 'x' is not an integer");
	gpu_expect_error(TRACE_GAVEL, GV("A3C", "10", "1", "-1"), NULL,
			 "F:1: arrival_time '-1' is negative");

	/* Zero scale or steps: dropped by default, errors without
	 * drop_invalid. */
	cr_assert_eq(gpu_load_text(TRACE_GAVEL,
				   GV("A3C", "10", "0", "0")
				   GV("A3C", "0", "1", "0")
				   GV("A3C", "10", "1", "5"),
				   false, NULL, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(w.jobs[0].id, 3);
	cr_assert_eq(w.report.dropped_procs, 1);
	cr_assert_eq(w.report.dropped_run, 1);
	workload_release(&w);
	trace_opts_default(&o);
	o.drop_invalid = false;
	gpu_expect_error(TRACE_GAVEL, GV("A3C", "10", "0", "0"), &o,
			 "F:1: scale_factor '0' is not positive");
	gpu_expect_error(TRACE_GAVEL, GV("A3C", "-4", "1", "0"), &o,
			 "F:1: total_steps '-4' is not positive");

	trace_opts_default(&o);
	o.lenient = true;
	cr_assert_eq(gpu_load_text(TRACE_GAVEL,
				   GV("Nope", "10", "1", "0")
				   "\n"
				   GV("ResNet-50 (batch size 64)", "2931", "1",
				      "7")
				   "short\tline\n",
				   false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(w.report.malformed, 2);
	/* Line 3 (line 2 is blank); run as worked out in gavel_sample. */
	gpu_check_job(&w.jobs[0], 3, SEC(7), 666928368, 1,
		      gpu_cls("ResNet-50 (batch size 64)"), -1);
	workload_release(&w);
}

/* ---- the real traces ---- */

/*
 * gpu/philly.csv: 82,247 jobs
 *   awk -F, 'NR>1 && NF' philly.csv | wc -l       -> 82247
 * (the file ends in one blank line).  15 VCs; 6214e9 has 41,226 jobs
 *   awk -F, 'NR>1 && NF {print $5}' philly.csv | sort | uniq -c
 * earliest 2017-09-04 10:30:41 (Unix 1504521041, row 31567 = line 31568),
 * latest 2017-12-22 08:02:11 (Unix 1513929731): last submit 9408690 s
 *   awk -F, 'NR>1 && NF {print $1}' philly.csv | sort | sed -n '1p;$p'
 * GPUs in all 107,235 (awk -F, 'NR>1 && NF {s += $3} END {print s}');
 * gpu_time == duration x num_gpus on every row.
 */
Test(trace_gpu, real_philly)
{
	char *path = gpu_trace_path("gpu/philly.csv");
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	uint64_t gpus = 0;
	size_t in_6214e9 = 0;
	int g6214e9 = -1;

	if (!path)
		cr_skip_test("gpu/philly.csv not in $CLUSTERSIM_TRACE_DIR");
	trace_opts_default(&o);
	o.format = TRACE_PHILLY;
	cr_assert_eq(trace_load(path, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 82247);
	cr_assert_eq(w.ngroups, 15);
	cr_assert_str_eq(w.groups[0], "0e4a51");
	cr_assert_str_eq(w.groups[14], "ee9e8c");
	for (size_t i = 0; i < w.ngroups; i++)
		if (strcmp(w.groups[i], "6214e9") == 0)
			g6214e9 = (int)i;
	cr_assert_geq(g6214e9, 0);
	for (size_t i = 0; i < w.n; i++) {
		gpus += w.jobs[i].gpus;
		in_6214e9 += w.jobs[i].group == g6214e9;
		cr_assert_eq(w.jobs[i].job_class, JOB_CLASS_NONE);
	}
	cr_assert_eq(in_6214e9, 41226);
	cr_assert_eq(gpus, 107235);
	cr_assert_eq(w.epoch, 1504521041);
	cr_assert_eq(w.jobs[0].submit, 0);
	cr_assert_eq(w.jobs[0].id, 31567);
	cr_assert_eq(w.jobs[w.n - 1].submit, SEC(9408690));
	cr_assert_eq(w.report.gpu_time_mismatch, 0);
	cr_assert_eq(w.report.malformed, 0);
	workload_release(&w);
	free(path);
}

/*
 * FCFS over the whole Philly summary with one pool of 512 GPUs (512 nodes
 * of one GPU, no speed model): the mean wait agrees with a second,
 * independent simulation in plain Python,
 *   bench/py-fcfs.py ../shared/traces/gpu/philly.csv 512
 * which prints 475770.449755 s (the mean of 82,247 waits).
 */
Test(trace_gpu, philly_fcfs_agrees_with_python)
{
	char *path = gpu_trace_path("gpu/philly.csv");
	struct trace_opts o;
	struct workload w;
	struct cluster_spec c;
	struct sim_error err;

	if (!path)
		cr_skip_test("gpu/philly.csv not in $CLUSTERSIM_TRACE_DIR");
	trace_opts_default(&o);
	o.format = TRACE_PHILLY;
	cr_assert_eq(trace_load(path, &o, &w, &err), 0, "%s", err.msg);
	tl_cluster(&c, 512, 4);
	c.groups[0].gpus = 1;
	struct sim *s = tl_run_unchecked("fcfs", &w, &c);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	double waits = 0;
	for (size_t i = 0; i < n; i++)
		waits += (double)(j[i].start - j[i].submit) / SIM_SEC;
	cr_expect_float_eq(waits / (double)n, 475770.449755, 1e-6);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
	free(path);
}

/*
 * gpu/tiresias-60job.csv: 60 jobs, ten models x 6, every model mapped to
 * a class; GPUs in all 170 (awk -F, 'NR>1 {s += $2} END {print s}'),
 * last submit 1779 s (awk -F, 'NR>1 {if ($3 > m) m = $3} END {print m}').
 */
Test(trace_gpu, real_tiresias)
{
	char *path = gpu_trace_path("gpu/tiresias-60job.csv");
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	uint64_t gpus = 0;

	if (!path)
		cr_skip_test("gpu/tiresias-60job.csv not in "
			     "$CLUSTERSIM_TRACE_DIR");
	trace_opts_default(&o);
	o.format = TRACE_TIRESIAS;
	cr_assert_eq(trace_load(path, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 60);
	for (size_t i = 0; i < w.n; i++) {
		gpus += w.jobs[i].gpus;
		cr_assert_neq(w.jobs[i].job_class, JOB_CLASS_NONE);
	}
	cr_assert_eq(gpus, 170);
	cr_assert_eq(w.jobs[w.n - 1].submit, SEC(1779));
	/* Job 0 (line 2): "0,1,0,606,vgg19,164,30". */
	cr_assert_eq(w.jobs[0].id, 0);
	cr_assert_eq(w.jobs[0].job_class, gpu_cls("VGG-19"));
	cr_assert_eq(w.jobs[0].run, SEC(164));
	workload_release(&w);
	free(path);
}

/*
 * The Gavel traces (gpu/gavel/NAME.trace): rows (wc -l) and GPUs (awk -F'\t' '{s += $7}'):
 * artifact_evaluation 15 / 18, max_min_fairness 96 / 169 (last arrival
 * 46317 s), minimize_makespan 100 / 175.  Every job type is a class
 * with a V100 throughput (the load would fail otherwise).
 */
Test(trace_gpu, real_gavel)
{
	static const struct {
		const char *name;  /* file under gpu/gavel */
		size_t jobs;       /* rows */
		uint64_t gpus;     /* sum of scale_factor */
		double last;       /* latest arrival, s */
	} want[] = {
		{ "artifact_evaluation.trace", 15, 18, 0 },
		{ "max_min_fairness.trace", 96, 169, 46317 },
		{ "minimize_makespan.trace", 100, 175, 0 },
	};
	int found = 0;

	for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
		char *name = xasprintf("gpu/gavel/%s", want[k].name);
		char *path = gpu_trace_path(name);
		struct trace_opts o;
		struct workload w;
		struct sim_error err;
		uint64_t gpus = 0;

		free(name);
		if (!path)
			continue;
		found++;
		trace_opts_default(&o);
		o.format = TRACE_GAVEL;
		cr_assert_eq(trace_load(path, &o, &w, &err), 0, "%s", err.msg);
		cr_assert_eq(w.n, want[k].jobs, "%s: %zu jobs", want[k].name,
			     w.n);
		for (size_t i = 0; i < w.n; i++) {
			gpus += w.jobs[i].gpus;
			cr_assert_neq(w.jobs[i].job_class, JOB_CLASS_NONE);
			cr_assert_gt(w.jobs[i].run, 0);
		}
		cr_assert_eq(gpus, want[k].gpus, "%s", want[k].name);
		cr_assert_eq(w.jobs[w.n - 1].submit, SEC(want[k].last));
		workload_release(&w);
		free(path);
	}
	if (!found)
		cr_skip_test("gpu/gavel/*.trace not in $CLUSTERSIM_TRACE_DIR");
}
