/*
 * Readers for Gavel's workload traces (Narayanan et al., OSDI'20; the
 * physical-cluster *.trace files, "gavel") and for the 12-column traces
 * of Shockwave (Zheng et al., NSDI'23; "shockwave"), which are Gavel's
 * with three more fields.  One job per line, no header, tab-separated
 * fields, split at every tab as both parsers do (Shockwave's:
 * uw-mad-dash/shockwave scheduler/utils.py parse_trace, commit
 * 8a44f4a27a45760520386809b695d51b665b3679).  traces/README.md is the
 * contract.  One reader serves both: a layout says where each field is.
 *
 *   job_type        "ResNet-50 (batch size 64)": the job class, by
 *                   jobclass_find(); a name it does not know is an error
 *   total_steps     the work: training steps to run
 *   scale_factor    GPUs of the job (it asks for no CPUs)
 *   mode            (shockwave) batch-size adaptation: "static", "gns"
 *                   or "accordion", kept as the job's JOB_BS_* flag; the
 *                   batch size stays the trace's (no adaptation here)
 *   duration        (shockwave) seconds the job takes alone at its
 *                   static batch size: its run time (below)
 *   arrival_time    submit time, seconds
 *   command, working_directory, num_steps_arg, needs_data_dir,
 *   priority_weight, SLO   not used
 *
 * Work in clustersim is run time on the reference GPU type.  gavel: a
 * trace's run time is total_steps divided by the class's isolated
 * throughput on a V100 at that scale, consolidated (jobclass_throughput),
 * rounded up to the microsecond.  The experiment's "throughputs"
 * overrides apply (trace_opts.thr): a class's overridden V100 throughput
 * replaces the 1-GPU figure and scales the figures of its other scale
 * factors by the same ratio (override / default 1-GPU), so an override
 * changes the run time exactly as it changes the speed.  A class with no
 * V100 figure at that scale (or a zero one) is an error.  shockwave: the
 * run time is the duration field, which Shockwave wrote as total_steps
 * over its own V100 table (tacc_throughputs.json) at the job's scale and
 * static batch size (all 120 rows of its 32-GPU trace agree to the
 * second), so it carries that table's figures without overriding the
 * built-in one; total_steps is still checked, and the class still gives
 * the speed on other GPU types.  Job ids are line numbers; there are no
 * user estimates (estimate = run).
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
	G_TOTAL_STEPS,
	G_SCALE_FACTOR,
	G_MODE,
	G_DURATION,
	G_ARRIVAL_TIME,
	G_NFIELDS
};

static const char *const gavel_field_name[G_NFIELDS] = {
	[G_JOB_TYPE] = "job_type",
	[G_TOTAL_STEPS] = "total_steps",
	[G_SCALE_FACTOR] = "scale_factor",
	[G_MODE] = "mode",
	[G_DURATION] = "duration",
	[G_ARRIVAL_TIME] = "arrival_time",
};
_Static_assert(ARRAY_SIZE(gavel_field_name) == G_NFIELDS,
	       "one name per field");

/* Where a format keeps the fields it reads. */
struct gavel_layout {
	size_t ncell;        /* fields of a line */
	int col[G_NFIELDS];  /* cell of each field; -1 = absent */
};

/* Gavel: job_type, command, working_directory, num_steps_arg,
 * needs_data_dir, total_steps, scale_factor, priority_weight, SLO,
 * arrival_time. */
static const struct gavel_layout gavel_layout = {
	10, { [G_JOB_TYPE] = 0, [G_TOTAL_STEPS] = 5, [G_SCALE_FACTOR] = 6,
	      [G_MODE] = -1, [G_DURATION] = -1, [G_ARRIVAL_TIME] = 9 },
};

/* Shockwave: job_type, command, working_directory, num_steps_arg,
 * needs_data_dir, total_steps, scale_factor, mode, priority_weight, SLO,
 * duration, arrival_time. */
static const struct gavel_layout shockwave_layout = {
	12, { [G_JOB_TYPE] = 0, [G_TOTAL_STEPS] = 5, [G_SCALE_FACTOR] = 6,
	      [G_MODE] = 7, [G_DURATION] = 10, [G_ARRIVAL_TIME] = 11 },
};

/* The batch-size modes of Shockwave's mode field, and their flags. */
static const struct {
	const char *name;
	uint32_t flag;
} gavel_modes[] = {
	{ "static", 0 },
	{ "gns", JOB_BS_GNS },
	{ "accordion", JOB_BS_ACCORDION },
};

/* State of one read. */
struct gavel_reader {
	struct trace_row_reader b;  /* path, options, output, file */
	const struct gavel_layout *lay; /* the format's fields */
};

static int gavel_bad(struct gavel_reader *r, int k, const char *what)
{
	return trace_row_bad(&r->b, gavel_field_name[k], r->lay->col[k],
			     what);
}

static const char *gavel_cell(const struct gavel_reader *r, int k)
{
	return trace_rows_cell(&r->b.rows, r->lay->col[k]);
}

/* The mode field's flag into *flag (0 without the field). */
static int gavel_mode(struct gavel_reader *r, uint32_t *flag)
{
	*flag = 0;
	if (r->lay->col[G_MODE] < 0)
		return 0;
	const char *m = gavel_cell(r, G_MODE);
	for (size_t i = 0; i < ARRAY_SIZE(gavel_modes); i++)
		if (!strcmp(m, gavel_modes[i].name)) {
			*flag = gavel_modes[i].flag;
			return 0;
		}
	return gavel_bad(r, G_MODE, "is not static, gns or accordion");
}

/* The duration field as the run time, seconds to the microsecond. */
static int gavel_duration(struct gavel_reader *r, sim_time_t *run)
{
	if (parse_seconds(gavel_cell(r, G_DURATION), run))
		return gavel_bad(r, G_DURATION, "is not a number of seconds");
	if (*run <= 0)
		return gavel_bad(r, G_DURATION, "is not positive");
	return 0;
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

/* The job's work: from the duration field where the format has one,
 * else from its steps and the V100 throughput. */
static int gavel_work(struct gavel_reader *r, int cls, int64_t steps,
		      int64_t scale, sim_time_t *run)
{
	*run = 0;
	if (steps <= 0)
		return 0;
	if (scale <= 0) {
		*run = 1; /* no throughput without GPUs: dropped for those */
		return 0;
	}
	if (r->lay->col[G_DURATION] >= 0)
		return gavel_duration(r, run);
	return gavel_run(r, cls, steps, scale, run);
}

static int gavel_job(struct gavel_reader *r)
{
	struct trace_report *rep = &r->b.w->report;
	const struct trace_rows *t = &r->b.rows;
	int64_t steps, scale;
	sim_time_t submit, run = 0;
	uint32_t mode;
	int cls, rc;

	if (t->ncell != r->lay->ncell)
		return err_set(r->b.err, "%s:%" PRIu64 ": expected %zu "
			       "tab-separated fields, got '%zu'", r->b.path,
			       t->line, r->lay->ncell, t->ncell);
	const char *type = gavel_cell(r, G_JOB_TYPE);
	cls = jobclass_find(type, NULL);
	if (cls < 0)
		return err_set(r->b.err, "%s:%" PRIu64 ": unknown job class "
			       "'%.60s'", r->b.path, t->line, type);
	if (trace_parse_int(gavel_cell(r, G_TOTAL_STEPS), INT64_MIN,
			    INT64_MAX, &steps))
		return gavel_bad(r, G_TOTAL_STEPS, "is not an integer");
	if (trace_parse_int(gavel_cell(r, G_SCALE_FACTOR),
			    -(int64_t)UINT32_MAX, UINT32_MAX, &scale))
		return gavel_bad(r, G_SCALE_FACTOR, "is not an integer");
	rc = gavel_mode(r, &mode);
	if (rc)
		return rc;
	if (parse_seconds(gavel_cell(r, G_ARRIVAL_TIME), &submit))
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
	rc = gavel_work(r, cls, steps, scale, &run);
	if (rc)
		return rc;

	rep->jobs_read++;
	xgrow(&r->b.w->jobs, &r->b.cap, r->b.w->n + 1, sizeof(*r->b.w->jobs));
	struct job *j = &r->b.w->jobs[r->b.w->n];
	memset(j, 0, sizeof(*j));
	j->id = (int64_t)t->line;
	j->submit = submit;
	j->run = run;
	j->estimate = 0;
	j->flags = mode;
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
	struct gavel_reader r = { .lay = &gavel_layout };
	return trace_rows_load(&r.b, path, '\t', o, w, err, gavel_read);
}

int trace_load_shockwave(const char *path, const struct trace_opts *o,
			 struct workload *w, struct sim_error *err)
{
	struct gavel_reader r = { .lay = &shockwave_layout };
	return trace_rows_load(&r.b, path, '\t', o, w, err, gavel_read);
}
