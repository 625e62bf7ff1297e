/*
 * Reader for the workloads of the Pollux artifact (Qiao et al., OSDI'21;
 * petuum/adaptdl, osdi21-artifact, simulator/workloads/workload-N.csv): a
 * header row `name,time,application,num_replicas,batch_size`, then one
 * job per row.  traces/README.md is the contract.
 *
 *   name          "cifar10-3": the job id is the number after the last
 *                 '-' (the line number where there is none)
 *   time          submit time, seconds
 *   application   one of the goodput model's applications (bert,
 *                 cifar10, deepspeech2, imagenet, ncf, yolov3); another
 *                 is an error
 *   num_replicas  GPUs of the job (it asks for no CPUs)
 *   batch_size    its total batch size
 *
 * The trace gives no durations: a job trains until its application's
 * target (speed/goodput.h), so its work is the time that takes on its
 * GPUs packed into nodes of 4 at its batch size, and its rate on
 * another placement is the measured step time's ratio (speed.c).  No
 * user estimates (estimate = run).
 */
#include "workload/workload.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "speed/goodput.h"
#include "base/util.h"

enum pollux_col {
	P_NAME = 0,
	P_TIME,
	P_APP,
	P_REPLICAS,
	P_BATCH,
	P_NCOLS
};

static const char *const pollux_col_name[P_NCOLS] = {
	[P_NAME] = "name",
	[P_TIME] = "time",
	[P_APP] = "application",
	[P_REPLICAS] = "num_replicas",
	[P_BATCH] = "batch_size",
};
_Static_assert(ARRAY_SIZE(pollux_col_name) == P_NCOLS,
	       "one name per column");

/* State of one read. */
struct pollux_reader {
	struct trace_row_reader b;  /* path, options, output, file */
	int pos[P_NCOLS];           /* header position of each column */
	size_t ncols;               /* cells in the header */
};

static int pollux_bad(struct pollux_reader *r, int k, const char *what)
{
	return trace_row_bad(&r->b, pollux_col_name[k], r->pos[k], what);
}

/* The id in a name "app-N"; the line number where it has none. */
static int64_t pollux_id(const char *name, uint64_t line)
{
	const char *d = strrchr(name, '-');
	int64_t id;
	if (d && trace_parse_int(d + 1, 0, INT64_MAX, &id) == 0)
		return id;
	return (int64_t)line;
}

/* The job's model fields from its application, replicas and batch. */
static int pollux_model(struct pollux_reader *r, struct job *j,
			const char *app, int64_t replicas, int64_t batch)
{
	const struct trace_rows *t = &r->b.rows;
	int a = goodput_app_find(app);
	if (a < 0)
		return err_set(r->b.err, "%s:%" PRIu64 ": no goodput model "
			       "for application '%.60s'", r->b.path, t->line,
			       app);
	struct goodput_batch gb;
	struct sim_error e;
	if (goodput_batch((unsigned)a, (uint32_t)batch, (uint32_t)replicas,
			  &gb, &e) != 0)
		return err_set(r->b.err, "%s:%" PRIu64 ": %s", r->b.path,
			       t->line, e.msg);
	double w = goodput_work_seconds((unsigned)a, &gb, (uint32_t)replicas);
	if (!(w > 0) || w * SIM_SEC >= 1e15)
		return err_set(r->b.err, "%s:%" PRIu64 ": application '%s' "
			       "gives no usable run time", r->b.path, t->line,
			       app);
	j->goodput_app = (uint16_t)a;
	j->batch = j->ref_batch = (uint32_t)batch;
	j->ref_gpus = (uint32_t)replicas;
	j->run = (sim_time_t)llround(w * SIM_SEC);
	return 0;
}

static int pollux_job(struct pollux_reader *r)
{
	struct trace_report *rep = &r->b.w->report;
	const struct trace_rows *t = &r->b.rows;
	int64_t replicas, batch;
	sim_time_t submit;
	int rc;

	if (t->ncell != r->ncols)
		return err_set(r->b.err, "%s:%" PRIu64 ": expected %zu cells, "
			       "got '%zu'", r->b.path, t->line, r->ncols,
			       t->ncell);
	if (parse_seconds(trace_rows_cell(t, r->pos[P_TIME]), &submit))
		return pollux_bad(r, P_TIME, "is not a number of seconds");
	if (submit < 0)
		return pollux_bad(r, P_TIME, "is negative");
	if (trace_parse_int(trace_rows_cell(t, r->pos[P_REPLICAS]), 1, 65536,
			    &replicas))
		return pollux_bad(r, P_REPLICAS,
				  "is not an integer in 1 .. 65536");
	if (trace_parse_int(trace_rows_cell(t, r->pos[P_BATCH]), 1,
			    UINT32_MAX, &batch))
		return pollux_bad(r, P_BATCH, "is not a positive integer");

	/* The model first: a row it refuses is not a job read. */
	struct job nj = { 0 };
	rc = pollux_model(r, &nj, trace_rows_cell(t, r->pos[P_APP]), replicas,
			  batch);
	if (rc)
		return rc;
	rep->jobs_read++;
	xgrow(&r->b.w->jobs, &r->b.cap, r->b.w->n + 1, sizeof(*r->b.w->jobs));
	struct job *j = &r->b.w->jobs[r->b.w->n];
	*j = nj;
	j->id = pollux_id(trace_rows_cell(t, r->pos[P_NAME]), t->line);
	j->submit = submit;
	j->gpus = (uint32_t)replicas;
	j->user = -1;
	j->group = -1;
	j->estimate = 0;
	rc = trace_job_finish(j, replicas, r->b.o, rep, r->b.path, t->line,
			      r->b.err);
	if (rc < 0)
		return rc;
	if (rc > 0)
		r->b.w->n++;
	return 0;
}

/* A row for trace_rows_each: a broken one was refused with its message
 * by the row reader already. */
static int pollux_row(void *ctx, bool bad)
{
	return bad ? -SIM_EINPUT : pollux_job(ctx);
}

static int pollux_read(struct pollux_reader *r)
{
	int rc = trace_rows_header(&r->b.rows, pollux_col_name, P_NCOLS,
				   (1u << P_NCOLS) - 1, r->pos, r->b.err);
	if (rc)
		return rc;
	r->ncols = r->b.rows.ncell;
	return trace_rows_each(&r->b.rows, r->b.o->lenient,
			       &r->b.w->report.malformed, pollux_row, r,
			       r->b.err);
}

/* trace_rows_load's step: the reader is the struct b starts. */
static int pollux_load_step(struct trace_row_reader *b)
{
	return pollux_read((struct pollux_reader *)b);
}

int trace_load_pollux(const char *path, const struct trace_opts *o,
		      struct workload *w, struct sim_error *err)
{
	struct pollux_reader r = { 0 };
	return trace_rows_load(&r.b, path, ',', o, w, err, pollux_load_step);
}
