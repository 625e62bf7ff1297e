/*
 * Reader for the Tiresias testbed workload (Gu et al., NSDI'19;
 * tiresias-60job.csv): a header row
 * `job_id,num_gpu,submit_time,iterations,model_name,duration,interval`,
 * then one job per row.  traces/README.md is the contract.
 *
 *   job_id       the job id
 *   num_gpu      GPUs of the job (it asks for no CPUs)
 *   submit_time  submit time, seconds
 *   model_name   the model ("vgg19", "resnet50"): the job class, by
 *                jobclass_find(); a name it does not know is an error
 *   duration     run time, seconds
 *   iterations, interval  not used (the run time is given; interval is
 *                the gap to the next submit)
 *
 * Columns are found by name in the header; others are ignored.  No user
 * estimates (estimate = run).  Rows are read by the shared row reader
 * (trace_rows_*, in trace_philly.c), so CR LF ends and gzip work.
 */
#include "workload/workload.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "speed/jobclass.h"
#include "base/util.h"

enum tiresias_col {
	T_JOB_ID = 0,
	T_NUM_GPU,
	T_SUBMIT_TIME,
	T_MODEL_NAME,
	T_DURATION,
	T_NCOLS
};

static const char *const tiresias_col_name[T_NCOLS] = {
	[T_JOB_ID] = "job_id",	       [T_NUM_GPU] = "num_gpu",
	[T_SUBMIT_TIME] = "submit_time", [T_MODEL_NAME] = "model_name",
	[T_DURATION] = "duration",
};
_Static_assert(ARRAY_SIZE(tiresias_col_name) == T_NCOLS,
	       "one name per column");

/* State of one read. */
struct tiresias_reader {
	struct trace_row_reader b;  /* path, options, output, file */
	int pos[T_NCOLS];           /* header position of each column */
	size_t ncols;               /* cells in the header */
};

static int tiresias_bad(struct tiresias_reader *r, int k, const char *what)
{
	return trace_row_bad(&r->b, tiresias_col_name[k], r->pos[k], what);
}

static int tiresias_job(struct tiresias_reader *r)
{
	struct trace_report *rep = &r->b.w->report;
	const struct trace_rows *t = &r->b.rows;
	int64_t id, gpus;
	sim_time_t submit, run;
	int cls, rc;

	if (t->ncell != r->ncols)
		return err_set(r->b.err, "%s:%" PRIu64 ": expected %zu cells, "
			       "got '%zu'", r->b.path, t->line, r->ncols,
			       t->ncell);
	if (trace_parse_int(trace_rows_cell(t, r->pos[T_JOB_ID]), INT64_MIN,
			    INT64_MAX, &id))
		return tiresias_bad(r, T_JOB_ID, "is not an integer");
	if (trace_parse_int(trace_rows_cell(t, r->pos[T_NUM_GPU]),
			    -(int64_t)UINT32_MAX, UINT32_MAX, &gpus))
		return tiresias_bad(r, T_NUM_GPU, "is not an integer");
	if (parse_seconds(trace_rows_cell(t, r->pos[T_SUBMIT_TIME]), &submit))
		return tiresias_bad(r, T_SUBMIT_TIME,
				    "is not a number of seconds");
	if (submit < 0)
		return tiresias_bad(r, T_SUBMIT_TIME, "is negative");
	if (parse_seconds(trace_rows_cell(t, r->pos[T_DURATION]), &run))
		return tiresias_bad(r, T_DURATION,
				    "is not a number of seconds");
	const char *model = trace_rows_cell(t, r->pos[T_MODEL_NAME]);
	cls = jobclass_find(model, NULL);
	if (cls < 0)
		return err_set(r->b.err, "%s:%" PRIu64 ": unknown job class "
			       "'%.60s'", r->b.path, t->line, model);

	rep->jobs_read++;
	xgrow(&r->b.w->jobs, &r->b.cap, r->b.w->n + 1, sizeof(*r->b.w->jobs));
	struct job *j = &r->b.w->jobs[r->b.w->n];
	memset(j, 0, sizeof(*j));
	j->id = id;
	j->submit = submit;
	j->run = run;
	j->estimate = 0;
	j->gpus = gpus > 0 ? (uint32_t)gpus : 0;
	j->user = -1;
	j->group = -1;
	j->job_class = (uint16_t)cls;
	rc = trace_job_finish(j, gpus, r->b.o, rep, r->b.path, t->line, r->b.err);
	if (rc < 0)
		return rc;
	if (rc > 0)
		r->b.w->n++;
	return 0;
}

/* A row for trace_rows_each: a broken one was refused with its message
 * by the row reader already. */
static int tiresias_row(void *ctx, bool bad)
{
	return bad ? -SIM_EINPUT : tiresias_job(ctx);
}

static int tiresias_read(struct tiresias_reader *r)
{
	int rc;

	rc = trace_rows_header(&r->b.rows, tiresias_col_name, T_NCOLS,
			       (1u << T_NCOLS) - 1, r->pos, r->b.err);
	if (rc)
		return rc;
	r->ncols = r->b.rows.ncell;
	return trace_rows_each(&r->b.rows, r->b.o->lenient,
			       &r->b.w->report.malformed, tiresias_row, r,
			       r->b.err);
}

/* trace_rows_load's step: the reader is the struct b starts. */
static int tiresias_load_step(struct trace_row_reader *b)
{
	return tiresias_read((struct tiresias_reader *)b);
}

int trace_load_tiresias(const char *path, const struct trace_opts *o,
			struct workload *w, struct sim_error *err)
{
	struct tiresias_reader r = { 0 };
	return trace_rows_load(&r.b, path, ',', o, w, err, tiresias_load_step);
}
