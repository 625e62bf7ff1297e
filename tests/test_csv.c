/*
 * Tests of the native CSV reader (sim/workload/trace_csv.c): header handling,
 * column order, optional cells, plain and gzip input, loader options,
 * error messages with their line numbers, and lenient mode.  Expected
 * values are worked out by hand in the comments.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/util.h"
#include "workload/workload.h"

/* Writes text to a temporary file (gzip when gz) and loads it as CSV. */
static int csv_load_text(const char *text, bool gz, const struct trace_opts *o,
			 struct workload *w, struct sim_error *err)
{
	char path[] = "/tmp/clustersim-csv-XXXXXX";
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
	int rc = trace_load_csv(path, o, w, err);
	/* Messages name the file: replace the random part for comparing. */
	if (rc && strncmp(err->msg, path, strlen(path)) == 0) {
		size_t k = strlen(path);
		err->msg[0] = 'F';
		memmove(err->msg + 1, err->msg + k, strlen(err->msg + k) + 1);
	}
	unlink(path);
	return rc;
}

static int csv_expect_error(const char *text, const char *msg)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	trace_opts_default(&o);
	o.format = TRACE_CSV;
	int rc = csv_load_text(text, false, &o, &w, &err);
	cr_assert_eq(rc, -SIM_EINPUT, "rc %d for %s", rc, text);
	cr_assert_str_eq(err.msg, msg);
	cr_assert_eq(w.n, 0);
	return rc;
}

Test(trace_csv, all_columns_any_order)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	/* Job 2: submit 0.5 s, run 100 s, estimate 150 s, 8 cpus, 2 gpus,
	 * nodes 0 (the placement decides), user 4, group 1.  Job 1: submit 3 s, run 1.25 s, empty
	 * optional cells (estimate none -> run, user/group unknown, gpus 0,
	 * nodes 0), quoted cells. */
	const char *text =
		"user,run,id,estimate,cpus,gpus,submit,nodes,group\n"
		"4,100,2,150,8,2,0.5,0,1\n"
		"\"\",\"1.25\",1,,\"16\",,3,,\n";

	trace_opts_default(&o);
	o.format = TRACE_CSV;
	for (int gz = 0; gz < 2; gz++) {
		cr_assert_eq(csv_load_text(text, gz, &o, &w, &err), 0, "%s",
			     err.msg);
		cr_assert_eq(w.n, 2);
		const struct job *a = &w.jobs[0], *b = &w.jobs[1];
		cr_assert_eq(a->id, 2);
		cr_assert_eq(a->submit, 500000);
		cr_assert_eq(a->run, 100 * SIM_SEC);
		cr_assert_eq(a->estimate, 150 * SIM_SEC);
		cr_assert_eq(a->flags, JOB_HAS_ESTIMATE);
		cr_assert_eq(a->cpus, 8);
		cr_assert_eq(a->gpus, 2);
		cr_assert_eq(a->nodes, 0);
		cr_assert_eq(a->user, 4);
		cr_assert_eq(a->group, 1);
		cr_assert_eq(a->state, JOB_FUTURE);
		cr_assert_eq(a->start, SIM_TIME_NONE);
		cr_assert_eq(b->id, 1);
		cr_assert_eq(b->idx, 1);
		cr_assert_eq(b->submit, 3 * SIM_SEC);
		cr_assert_eq(b->run, 1250000);
		cr_assert_eq(b->estimate, 1250000);
		cr_assert_eq(b->flags, 0);
		cr_assert_eq(b->cpus, 16);
		cr_assert_eq(b->gpus, 0);
		cr_assert_eq(b->nodes, 0);
		cr_assert_eq(b->user, -1);
		cr_assert_eq(b->group, -1);
		cr_assert_eq(w.report.lines, 3);
		cr_assert_eq(w.report.jobs_read, 2);
		cr_assert_eq(w.report.no_estimate, 1);
		cr_assert_eq(w.max_procs, -1);
		cr_assert(w.has_estimates);
		workload_release(&w);
	}
}

Test(trace_csv, trace_load_dispatch_crlf_blank_no_final_newline)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	/* 5 lines: header, job, blank, job, job without '\n'. */
	const char *text = "id,submit,run,cpus\r\n1,0,10,1\r\n\r\n2,5,20,2\r\n"
			   "3,6,30,3";
	char path[] = "/tmp/clustersim-csv-XXXXXX";
	int fd = mkstemp(path);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	trace_opts_default(&o);
	o.format = TRACE_CSV;
	int rc = trace_load(path, &o, &w, &err);
	unlink(path);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_assert_eq(w.n, 3);
	cr_assert_eq(w.report.lines, 5);
	cr_assert_eq(w.jobs[2].id, 3);
	cr_assert_eq(w.jobs[2].run, 30 * SIM_SEC);
	cr_assert_eq(w.jobs[2].cpus, 3);
	workload_release(&w);
}

Test(trace_csv, header_errors)
{
	csv_expect_error("id,submit,run,cpus,x\n1,0,1,1,1\n",
			 "F:1: unknown column 'x'");
	csv_expect_error("id,submit,run,run,cpus\n",
			 "F:1: duplicate column 'run'");
	csv_expect_error("id,submit,run\n1,0,1\n", "F:1: missing column 'cpus'");
	csv_expect_error("", "F:1: missing header row");
	csv_expect_error("ID,submit,run,cpus\n", "F:1: unknown column 'ID'");
}

Test(trace_csv, cell_errors_name_their_line)
{
	/* Line 4 is the bad one (line 3 blank). */
	csv_expect_error("id,submit,run,cpus\n1,0,1,1\n\n2,0,abc,1\n",
			 "F:4: run 'abc' is not a number of seconds");
	csv_expect_error("id,submit,run,cpus\n1,0,1\n",
			 "F:2: expected 4 cells, got '3'");
	csv_expect_error("id,submit,run,cpus\n1.5,0,1,1\n",
			 "F:2: id '1.5' is not an integer");
	csv_expect_error("id,submit,run,cpus\n1,,1,1\n",
			 "F:2: submit '' is not a number");
	csv_expect_error("id,submit,run,cpus\n1,-2,1,1\n",
			 "F:2: submit '-2' is negative");
	csv_expect_error("id,submit,run,cpus\n1,0,1,4294967296\n",
			 "F:2: cpus '4294967296' is out of range");
	csv_expect_error("id,submit,run,cpus,user\n1,0,1,1,2147483648\n",
			 "F:2: user '2147483648' is out of range");
	csv_expect_error("id,submit,run,cpus\n1,0,1,1\n1,5,1,1\n",
			 "F: duplicate job id '1'");
	csv_expect_error("id,submit,run,cpus\n1,0,1,1\n2,0,\"1\"x,1\n",
			 "F:3: malformed csv: error parsing data while strict "
			 "checking enabled");
}

Test(trace_csv, options)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	/* Line 2 run 0 (dropped), line 3 overruns 50 > 20 (clipped), line 4
	 * GPUs only (kept: cpus 0, gpus 4), line 5 neither (dropped). */
	const char *text = "id,submit,run,cpus,gpus,estimate\n"
			   "1,0,0,1,,\n"
			   "2,1,50,2,,20\n"
			   "3,2,10,0,4,\n"
			   "4,3,10,0,0,\n";

	trace_opts_default(&o);
	o.format = TRACE_CSV;
	cr_assert_eq(csv_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 2);
	cr_assert_eq(w.jobs[0].id, 2);
	cr_assert_eq(w.jobs[0].run, 20 * SIM_SEC);
	cr_assert_eq(w.jobs[1].cpus, 0);
	cr_assert_eq(w.jobs[1].gpus, 4);
	cr_assert_eq(w.report.dropped_run, 1);
	cr_assert_eq(w.report.dropped_procs, 1);
	cr_assert_eq(w.report.clipped, 1);
	workload_release(&w);

	o.overrun = OVERRUN_ALLOW;
	cr_assert_eq(csv_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.jobs[0].run, 50 * SIM_SEC);
	cr_assert_eq(w.report.overran, 1);
	workload_release(&w);

	o.drop_invalid = false;
	cr_assert_eq(csv_load_text(text, false, &o, &w, &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, "F:2: run time '0' is not positive");

	/* Window, limit and scale come from the shared tail: window [1, 3)
	 * keeps jobs 2 and 3 (of the 3 kept: job 4 dropped). */
	trace_opts_default(&o);
	o.format = TRACE_CSV;
	o.window_start = 1 * SIM_SEC;
	o.window_end = 3 * SIM_SEC;
	cr_assert_eq(csv_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 2);
	cr_assert_eq(w.report.outside_window, 0);
	workload_release(&w);
}

Test(trace_csv, lenient)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	/* Bad: line 3 (3 cells), line 4 (bad run), line 5 (bad quoting),
	 * line 7 (negative submit); good: lines 2 and 6. */
	const char *text = "id,submit,run,cpus\n"
			   "1,0,10,1\n"
			   "2,0,10\n"
			   "3,0,x,1\n"
			   "4,0,\"1\"0,1\n"
			   "5,1,10,1\n"
			   "6,-1,10,1\n";

	trace_opts_default(&o);
	o.format = TRACE_CSV;
	o.lenient = true;
	cr_assert_eq(csv_load_text(text, false, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.report.malformed, 4);
	cr_assert_eq(w.report.lines, 7);
	cr_assert_eq(w.n, 2);
	cr_assert_eq(w.jobs[0].id, 1);
	cr_assert_eq(w.jobs[1].id, 5);
	workload_release(&w);
}

Test(trace_csv, sample_file)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;

	/* traces/sample.csv: 12 jobs, see the comment in traces/README.md. */
	trace_opts_default(&o);
	o.format = TRACE_CSV;
	cr_assert_eq(trace_load("traces/sample.csv", &o, &w, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(w.n, 12);
	workload_release(&w);
}

/* The nodes column: a job the placement would spread over more nodes than
 * it asks for (4 GPUs, nodes 1, on 2-GPU nodes it ran on two) is refused,
 * not run on a different count; 0 or an empty cell is "the placement
 * decides"; under lenient the row is skipped and counted. */
Test(trace_csv, a_node_count_is_refused_not_ignored)
{
	static const char head[] = "id,submit,run,cpus,gpus,nodes\n";
	char *text = xasprintf("%s1,0,10,0,4,1\n", head);
	csv_expect_error(text, "F:2: nodes '1' is not supported: a job takes "
			 "its CPUs and GPUs from as many nodes as the "
			 "placement needs (leave the cell empty or 0)");
	free(text);

	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	trace_opts_default(&o);
	o.format = TRACE_CSV;
	text = xasprintf("%s1,0,10,0,4,\n2,0,10,0,4,0\n3,0,10,0,4,2\n",
			 head);
	o.lenient = true;
	cr_assert_eq(csv_load_text(text, false, &o, &w, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(w.n, 2);
	cr_assert_eq(w.report.malformed, 1);
	cr_assert_eq(w.jobs[0].nodes, 0);
	cr_assert_eq(w.jobs[1].nodes, 0);
	workload_release(&w);
	free(text);
}

/* A .csv.gz cut short is an error, not a shorter trace: zlib's read
 * returns 0 there as at a true end, and only gzerror() tells them apart.
 * (It used to load about half the jobs, the last with a cut estimate.) */
Test(trace_csv, a_truncated_gzip_trace_is_an_error)
{
	char path[] = "/tmp/clustersim-csv-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	gzFile g = gzdopen(fd, "wb");
	cr_assert(g);
	gzprintf(g, "id,submit,run,estimate,cpus\n");
	for (int i = 1; i <= 20000; i++)
		gzprintf(g, "%d,%d,%d,%d,%d\n", i, i, 100 + i % 977,
			 67288 + i, 1 + i % 16);
	cr_assert_eq(gzclose(g), Z_OK);
	struct stat st;
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(truncate(path, st.st_size / 2), 0);
	struct trace_opts o;
	struct workload w;
	struct sim_error err = { .msg = "" };
	trace_opts_default(&o);
	o.format = TRACE_CSV;
	int rc = trace_load_csv(path, &o, &w, &err);
	cr_expect_eq(rc, -SIM_EINPUT, "loaded %zu jobs", w.n);
	cr_expect(strstr(err.msg, path) && strstr(err.msg, "cannot read: "),
		  "%s", err.msg);
	if (rc == 0)
		workload_release(&w);
	unlink(path);
}

/* The kind column (docs/tenants.md): interactive sets JOB_INTERACTIVE,
 * train or an empty cell leaves it clear, anything else is an error. */
Test(trace_csv, kind_column)
{
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	trace_opts_default(&o);
	o.format = TRACE_CSV;
	cr_assert_eq(csv_load_text("id,submit,run,cpus,gpus,kind\n"
				   "1,0,10,1,1,interactive\n2,1,10,1,1,train\n"
				   "3,2,10,1,1,\n", false, &o, &w, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(w.n, 3);
	cr_expect(w.jobs[0].flags & JOB_INTERACTIVE);
	cr_expect(!(w.jobs[1].flags & JOB_INTERACTIVE));
	cr_expect(!(w.jobs[2].flags & JOB_INTERACTIVE));
	workload_release(&w);
	csv_expect_error("id,submit,run,cpus,kind\n1,0,1,1,batch\n",
			 "F:2: kind 'batch' is not a kind (train or "
			 "interactive)");
}
