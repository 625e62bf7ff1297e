/*
 * Reader for the Microsoft Philly job summary that the Pollux authors
 * derived from the public Philly trace (philly.csv): a header row
 * `timestamp,duration,num_gpus,gpu_time,cluster`, then one job per row,
 * rows in no particular order.  traces/README.md is the contract.
 *
 *   timestamp  submit date-time "2017-10-09 07:01:55", taken as UTC; the
 *              workload's time 0 is the earliest timestamp of the file's
 *              well-formed rows, so submit = seconds since then (the
 *              Unix time of that instant is kept in w->epoch)
 *   duration   run time, seconds (decimals allowed)
 *   num_gpus   GPUs of the job (it asks for no CPUs)
 *   gpu_time   duration x num_gpus; only checked, and a mismatch only
 *              counted (report.gpu_time_mismatch)
 *   cluster    the virtual cluster (VC) id, "11cb48": the job's group.
 *              Groups are numbered 0.. in the byte order of the VC names,
 *              so the numbering does not depend on the order of the rows;
 *              w->groups holds the names.
 *
 * The trace has no job ids (a job is its row: id = the row's number,
 * 1 for the first row under the header, blank lines not counted), no
 * user estimates (estimate = run) and no models (JOB_CLASS_NONE).
 */
#include "workload/workload.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* ---- the Philly reader ---- */

enum philly_col {
	P_TIMESTAMP = 0,
	P_DURATION,
	P_NUM_GPUS,
	P_GPU_TIME,
	P_CLUSTER,
	P_NCOLS
};

static const char *const philly_col_name[P_NCOLS] = {
	[P_TIMESTAMP] = "timestamp", [P_DURATION] = "duration",
	[P_NUM_GPUS] = "num_gpus",   [P_GPU_TIME] = "gpu_time",
	[P_CLUSTER] = "cluster",
};
_Static_assert(ARRAY_SIZE(philly_col_name) == P_NCOLS, "one name per column");

/* All columns but gpu_time (only checked) are required. */
#define PHILLY_REQUIRED                                                      \
	((1u << P_TIMESTAMP) | (1u << P_DURATION) | (1u << P_NUM_GPUS) |     \
	 (1u << P_CLUSTER))

/* State of one read. */
struct philly_reader {
	struct trace_row_reader b;  /* path, options, output, file */
	int pos[P_NCOLS];           /* header position of each column */
	size_t ncols;               /* cells in the header */
	int64_t row;                /* data rows seen (the job id) */
	int64_t tmin;               /* earliest timestamp, Unix s */
	bool any;                   /* a row has set tmin */
	char **vc;                  /* VC names by first appearance */
	size_t nvc, vc_cap;
	size_t *by_name;            /* indices into vc, sorted by name */
	size_t by_name_cap;
};

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's
 * days_from_civil). */
static int64_t philly_days(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* n digits at s as a number, or -1. */
static int philly_digits(const char *s, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* "YYYY-MM-DD HH:MM:SS" (or with a 'T') as UTC into Unix seconds; 0, or
 * -1 when it is not such a date-time or not a valid one. */
static int philly_datetime(const char *s, int64_t *out)
{
	static const int mdays[12] = { 31, 29, 31, 30, 31, 30,
				       31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, se;

	if (strlen(s) != 19 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':')
		return -1;
	y = philly_digits(s, 4);
	mo = philly_digits(s + 5, 2);
	d = philly_digits(s + 8, 2);
	h = philly_digits(s + 11, 2);
	mi = philly_digits(s + 14, 2);
	se = philly_digits(s + 17, 2);
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59)
		return -1;
	if (mo == 2 && d == 29 &&
	    !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return -1;
	*out = philly_days(y, (unsigned)mo, (unsigned)d) * 86400 +
	       h * 3600 + mi * 60 + se;
	return 0;
}

/* The VC named s: its index in order of first appearance. */
static size_t philly_vc(struct philly_reader *r, const char *s)
{
	size_t lo = 0, hi = r->nvc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(r->vc[r->by_name[mid]], s);
		if (c == 0)
			return r->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	xgrow(&r->vc, &r->vc_cap, r->nvc + 1, sizeof(*r->vc));
	xgrow(&r->by_name, &r->by_name_cap, r->nvc + 1, sizeof(*r->by_name));
	memmove(r->by_name + lo + 1, r->by_name + lo,
		(r->nvc - lo) * sizeof(*r->by_name));
	r->by_name[lo] = r->nvc;
	r->vc[r->nvc] = xstrdup(s);
	return r->nvc++;
}

static int philly_bad(struct philly_reader *r, int k, const char *what)
{
	return trace_row_bad(&r->b, philly_col_name[k], r->pos[k], what);
}

static int philly_job(struct philly_reader *r)
{
	struct trace_report *rep = &r->b.w->report;
	const struct trace_rows *t = &r->b.rows;
	int64_t ts, gpus;
	sim_time_t run;
	int rc;

	r->row++;
	if (t->ncell != r->ncols)
		return err_set(r->b.err, "%s:%" PRIu64 ": expected %zu cells, "
			       "got '%zu'", r->b.path, t->line, r->ncols,
			       t->ncell);
	if (philly_datetime(trace_rows_cell(t, r->pos[P_TIMESTAMP]), &ts))
		return philly_bad(r, P_TIMESTAMP, "is not a date-time "
				  "(YYYY-MM-DD HH:MM:SS)");
	if (parse_seconds(trace_rows_cell(t, r->pos[P_DURATION]), &run))
		return philly_bad(r, P_DURATION, "is not a number of seconds");
	if (trace_parse_int(trace_rows_cell(t, r->pos[P_NUM_GPUS]),
			    -(int64_t)UINT32_MAX, UINT32_MAX, &gpus))
		return philly_bad(r, P_NUM_GPUS, "is not an integer");
	if (r->pos[P_GPU_TIME] >= 0) {
		const char *g = trace_rows_cell(t, r->pos[P_GPU_TIME]);
		char *end;
		errno = 0;
		double gt = strtod(g, &end);
		if (!*g || *end || errno || !isfinite(gt))
			return philly_bad(r, P_GPU_TIME, "is not a number");
		double want = (double)run / SIM_SEC * (double)gpus;
		if (fabs(gt - want) > 1e-6 * fmax(1.0, fabs(want)))
			rep->gpu_time_mismatch++;
	}
	const char *vc = trace_rows_cell(t, r->pos[P_CLUSTER]);

	rep->jobs_read++;
	if (!r->any || ts < r->tmin)
		r->tmin = ts;
	r->any = true;

	xgrow(&r->b.w->jobs, &r->b.cap, r->b.w->n + 1, sizeof(*r->b.w->jobs));
	struct job *j = &r->b.w->jobs[r->b.w->n];
	memset(j, 0, sizeof(*j));
	j->id = r->row;
	j->submit = ts * SIM_SEC; /* made relative once tmin is known */
	j->run = run;
	j->estimate = 0;
	j->gpus = gpus > 0 ? (uint32_t)gpus : 0;
	j->user = -1;
	j->group = *vc ? (int32_t)philly_vc(r, vc) : -1;
	j->job_class = JOB_CLASS_NONE;
	rc = trace_job_finish(j, gpus, r->b.o, rep, r->b.path, t->line, r->b.err);
	if (rc < 0)
		return rc;
	if (rc > 0)
		r->b.w->n++;
	return 0;
}

/* A row for trace_rows_each; a broken row still counts as a job row
 * (ids are row numbers). */
static int philly_row(void *ctx, bool bad)
{
	struct philly_reader *r = ctx;
	if (!bad)
		return philly_job(r);
	r->row++;
	return -SIM_EINPUT;
}

static int philly_read(struct philly_reader *r)
{
	int rc;

	rc = trace_rows_header(&r->b.rows, philly_col_name, P_NCOLS,
			       PHILLY_REQUIRED, r->pos, r->b.err);
	if (rc)
		return rc;
	r->ncols = r->b.rows.ncell;
	return trace_rows_each(&r->b.rows, r->b.o->lenient,
			       &r->b.w->report.malformed, philly_row, r, r->b.err);
}

/* Makes submit times relative to the earliest timestamp and numbers the
 * groups in name order; moves the names into w. */
static void philly_settle(struct philly_reader *r)
{
	struct workload *w = r->b.w;
	size_t *rank = xmalloc((r->nvc ? r->nvc : 1) * sizeof(*rank));

	for (size_t i = 0; i < r->nvc; i++)
		rank[r->by_name[i]] = i;
	for (size_t i = 0; i < w->n; i++) {
		w->jobs[i].submit -= r->tmin * SIM_SEC;
		if (w->jobs[i].group >= 0)
			w->jobs[i].group = (int32_t)rank[w->jobs[i].group];
	}
	w->groups = xmalloc((r->nvc ? r->nvc : 1) * sizeof(*w->groups));
	for (size_t i = 0; i < r->nvc; i++)
		w->groups[i] = r->vc[r->by_name[i]];
	w->ngroups = r->nvc;
	w->epoch = r->any ? r->tmin : 0;
	free(r->vc);
	r->vc = NULL;
	r->nvc = 0;
	free(rank);
}

/* trace_rows_load's step: read the rows, then number the VCs; the VC
 * tables go either way. */
static int philly_load_step(struct trace_row_reader *b)
{
	struct philly_reader *r = (struct philly_reader *)b;
	int rc = philly_read(r);
	if (!rc)
		philly_settle(r);
	for (size_t i = 0; i < r->nvc; i++)
		free(r->vc[i]);
	free(r->vc);
	free(r->by_name);
	return rc;
}

int trace_load_philly(const char *path, const struct trace_opts *o,
		      struct workload *w, struct sim_error *err)
{
	struct philly_reader r = { 0 };
	return trace_rows_load(&r.b, path, ',', o, w, err, philly_load_step);
}
