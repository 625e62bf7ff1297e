/*
 * Reader for Gavel's workload traces (Narayanan et al., OSDI'20; the
 * physical-cluster *.trace files): one job per line, no header, ten
 * tab-separated fields, split at every tab as Gavel's own parser does.
 * traces/README.md is the contract.
 *
 *   job_type        "ResNet-50 (batch size 64)": the job class, by
 *                   jobclass_find(); a name it does not know is an error
 *   total_steps     the work: training steps to run
 *   scale_factor    GPUs of the job (it asks for no CPUs)
 *   arrival_time    submit time, seconds
 *   command, working_directory, num_steps_arg, needs_data_dir,
 *   priority_weight, SLO   not used
 *
 * Work in clustersim is run time on the reference GPU type, so a trace's
 * run time is the time on the reference type: total_steps divided by the
 * class's isolated throughput on a V100 at that scale, consolidated
 * (jobclass_throughput), rounded up to the microsecond.  The experiment's
 * "throughputs" overrides apply (trace_opts.thr): a class's overridden
 * V100 throughput replaces the 1-GPU figure and scales the figures of its
 * other scale factors by the same ratio (override / default 1-GPU), so
 * an override changes the run time exactly as it changes the speed.  A
 * class with no V100 figure at that scale (or a zero one) is an error.  Job ids are
 * line numbers; there are no user estimates (estimate = run).
 */
#include "workload/workload.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "speed/jobclass.h"
#include "speed/jobclass_override.h"
#include "base/util.h"

/* The GPU type whose throughput turns steps into run time. */
#define GAVEL_REF_GPU JOBCLASS_GPU_V100

enum gavel_field {
	G_JOB_TYPE = 0,
	G_COMMAND,
	G_WORKING_DIRECTORY,
	G_NUM_STEPS_ARG,
	G_NEEDS_DATA_DIR,
	G_TOTAL_STEPS,
	G_SCALE_FACTOR,
	G_PRIORITY_WEIGHT,
	G_SLO,
	G_ARRIVAL_TIME,
	G_NFIELDS
};

static const char *const gavel_field_name[G_NFIELDS] = {
	[G_JOB_TYPE] = "job_type",
	[G_COMMAND] = "command",
	[G_WORKING_DIRECTORY] = "working_directory",
	[G_NUM_STEPS_ARG] = "num_steps_arg",
	[G_NEEDS_DATA_DIR] = "needs_data_dir",
	[G_TOTAL_STEPS] = "total_steps",
	[G_SCALE_FACTOR] = "scale_factor",
	[G_PRIORITY_WEIGHT] = "priority_weight",
	[G_SLO] = "SLO",
	[G_ARRIVAL_TIME] = "arrival_time",
};
_Static_assert(ARRAY_SIZE(gavel_field_name) == G_NFIELDS,
	       "one name per field");

/* State of one read. */
struct gavel_reader {
	struct trace_row_reader b;  /* path, options, output, file */
};

static int gavel_bad(struct gavel_reader *r, int k, const char *what)
{
	return trace_row_bad(&r->b, gavel_field_name[k], k, what);
}

/* Run time of steps training steps of class cls on scale GPUs of the
 * reference type, rounded up to the microsecond, into *run. */
static int gavel_run(struct gavel_reader *r, int cls, int64_t steps,
		     int64_t scale, sim_time_t *run)
{
	double thr = jobclass_throughput((unsigned)cls, GAVEL_REF_GPU,
					 (unsigned)scale, true);
	const struct jobclass_override *ov =
		jobclass_override_find(r->b.o->thr, (unsigned)cls);
	char b[32];

	/* An override of the class's 1-GPU throughput on the reference type
	 * scales every scale factor's figure by the same ratio (1 GPU: the
	 * override itself). */
	if (ov && !isnan(ov->thr[GAVEL_REF_GPU])) {
		double one = jobclass_throughput((unsigned)cls, GAVEL_REF_GPU,
						 1, true);
		if (scale == 1)
			thr = ov->thr[GAVEL_REF_GPU];
		else if (one > 0)
			thr = ov->thr[GAVEL_REF_GPU] * (thr / one);
	}

	if (!(thr > 0)) {
		fmt_double(b, thr);
		return err_set(r->b.err, "%s:%" PRIu64 ": job class '%s' has "
			       "no throughput on %s at scale factor "
			       "'%" PRId64 "' (got '%s')",
			       r->b.path, r->b.rows.line,
			       jobclass_get((unsigned)cls)->name,
			       jobclass_gpu_get(GAVEL_REF_GPU)->name, scale,
			       b);
	}
	double us = ceil((double)steps * (double)SIM_SEC / thr);
	if (!(us < 9.0e18))
		return gavel_bad(r, G_TOTAL_STEPS,
				 "makes the run time overflow");
	*run = (sim_time_t)us;
	return 0;
}

static int gavel_job(struct gavel_reader *r)
{
	struct trace_report *rep = &r->b.w->report;
	const struct trace_rows *t = &r->b.rows;
	int64_t steps, scale;
	sim_time_t submit, run = 0;
	int cls, rc;

	if (t->ncell != G_NFIELDS)
		return err_set(r->b.err, "%s:%" PRIu64 ": expected %d "
			       "tab-separated fields, got '%zu'", r->b.path,
			       t->line, G_NFIELDS, t->ncell);
	const char *type = trace_rows_cell(t, G_JOB_TYPE);
	cls = jobclass_find(type, NULL);
	if (cls < 0)
		return err_set(r->b.err, "%s:%" PRIu64 ": unknown job class "
			       "'%.60s'", r->b.path, t->line, type);
	if (trace_parse_int(trace_rows_cell(t, G_TOTAL_STEPS), INT64_MIN,
			    INT64_MAX, &steps))
		return gavel_bad(r, G_TOTAL_STEPS, "is not an integer");
	if (trace_parse_int(trace_rows_cell(t, G_SCALE_FACTOR),
			    -(int64_t)UINT32_MAX, UINT32_MAX, &scale))
		return gavel_bad(r, G_SCALE_FACTOR, "is not an integer");
	if (parse_seconds(trace_rows_cell(t, G_ARRIVAL_TIME), &submit))
		return gavel_bad(r, G_ARRIVAL_TIME,
				 "is not a number of seconds");
	if (submit < 0)
		return gavel_bad(r, G_ARRIVAL_TIME, "is negative");
	/* Non-positive steps or scale: the shared rule drops the job (or,
	 * without drop_invalid, it is an error, named here precisely). */
	if (!r->b.o->drop_invalid && steps <= 0)
		return gavel_bad(r, G_TOTAL_STEPS, "is not positive");
	if (!r->b.o->drop_invalid && scale <= 0)
		return gavel_bad(r, G_SCALE_FACTOR, "is not positive");
	if (steps > 0 && scale > 0) {
		rc = gavel_run(r, cls, steps, scale, &run);
		if (rc)
			return rc;
	} else if (steps > 0) {
		run = 1; /* no throughput without GPUs: dropped for those */
	}

	rep->jobs_read++;
	xgrow(&r->b.w->jobs, &r->b.cap, r->b.w->n + 1, sizeof(*r->b.w->jobs));
	struct job *j = &r->b.w->jobs[r->b.w->n];
	memset(j, 0, sizeof(*j));
	j->id = (int64_t)t->line;
	j->submit = submit;
	j->run = run;
	j->estimate = 0;
	j->gpus = scale > 0 ? (uint32_t)scale : 0;
	j->user = -1;
	j->group = -1;
	j->job_class = (uint16_t)cls;
	rc = trace_job_finish(j, scale, r->b.o, rep, r->b.path, t->line, r->b.err);
	if (rc < 0)
		return rc;
	if (rc > 0)
		r->b.w->n++;
	return 0;
}

/* A row for trace_rows_each (tab-separated rows are never "bad"). */
static int gavel_row(void *ctx, bool bad)
{
	(void)bad;
	return gavel_job(ctx);
}

/* Reads every row (trace_rows_load's step). */
static int gavel_read(struct trace_row_reader *b)
{
	return trace_rows_each(&b->rows, b->o->lenient, &b->w->report.malformed,
			       gavel_row, b, b->err);
}

int trace_load_gavel(const char *path, const struct trace_opts *o,
		     struct workload *w, struct sim_error *err)
{
	struct gavel_reader r = { 0 };
	return trace_rows_load(&r.b, path, '\t', o, w, err, gavel_read);
}
