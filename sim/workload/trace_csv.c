/*
 * Reader for clustersim's native CSV trace format: a header row naming the
 * columns (id, submit, run, cpus required; estimate, user, group, gpus,
 * nodes, a large-model job's shape dp, tp, pp, and its kind, optional;
 * any order), then one job per row, times in seconds.
 * traces/README.md is the contract.  The nodes column may only say 0 (or
 * nothing): the placement model spreads a job over as many nodes as it
 * needs, so a node count is refused rather than silently not kept.
 *
 * Parsing is libcsv's (quotes, CRLF); the file is fed to it one line at a
 * time so that every message can name its line, and each field is copied
 * in the callback, because libcsv reuses its buffer.  The per-job options
 * are the same as for SWF (trace_job_finish).
 */
#include "workload/workload.h"

#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/util.h"

/* The columns the format knows. */
enum csv_col {
	C_ID = 0,
	C_SUBMIT,
	C_RUN,
	C_CPUS,
	C_ESTIMATE,
	C_USER,
	C_GROUP,
	C_GPUS,
	C_NODES,
	C_DP,
	C_TP,
	C_PP,
	C_MODEL,
	C_MICROBATCHES,
	C_KIND,
	C_INTERLEAVE,
	C_QUEUE,
	C_PARTITION,
	C_PROJECT,
	C_NCOLS
};

static const char *const csv_col_name[C_NCOLS] = {
	[C_ID] = "id",	       [C_SUBMIT] = "submit", [C_RUN] = "run",
	[C_CPUS] = "cpus",     [C_ESTIMATE] = "estimate",
	[C_USER] = "user",     [C_GROUP] = "group",   [C_GPUS] = "gpus",
	[C_NODES] = "nodes",   [C_DP] = "dp",	      [C_TP] = "tp",
	[C_PP] = "pp",	       [C_MODEL] = "model",
	[C_MICROBATCHES] = "microbatches", [C_KIND] = "kind",
	[C_INTERLEAVE] = "interleave",
	[C_QUEUE] = "queue",   [C_PARTITION] = "partition",
	[C_PROJECT] = "project",
};
_Static_assert(sizeof(csv_col_name) / sizeof(csv_col_name[0]) == C_NCOLS,
	       "one name per column");

/* State of one read. */
struct csv_reader {
	const char *path;           /* for messages */
	const struct trace_opts *o; /* loader options */
	struct workload *w;         /* the output */
	size_t cap;                 /* allocated length of w->jobs */
	size_t qcap, lcap;          /* ... of w->qp, w->qline (keep_qp) */
	size_t pcap, ncap;          /* ... of w->proj, w->projects */
	uint64_t line;              /* line being fed, from 1 */
	uint64_t rec_line;          /* line where the current record began */
	bool header_done;           /* the header row has been read */
	int *kind;                  /* column kind of each header position */
	size_t nkind;               /* columns in the header */
	int pos_of[C_NCOLS];        /* header position of each kind, or -1 */
	char *text;                 /* the current record's cells, each
	                               NUL-terminated, back to back */
	size_t text_len, text_cap;
	size_t *off;                /* start of each cell in text */
	size_t ncell, off_cap;
	int rc;                     /* first fatal error; stops the read */
	struct sim_error *err;      /* where a message goes */
};

static void csv_field_cb(void *s, size_t len, void *data)
{
	struct csv_reader *r = data;

	if (r->rc)
		return;
	if (r->ncell == 0)
		r->rec_line = r->line;
	xgrow(&r->off, &r->off_cap, r->ncell + 1, sizeof(*r->off));
	xgrow(&r->text, &r->text_cap, r->text_len + len + 1, 1);
	r->off[r->ncell++] = r->text_len;
	if (len)
		memcpy(r->text + r->text_len, s, len);
	r->text_len += len;
	r->text[r->text_len++] = '\0';
}

static const char *csv_cell(const struct csv_reader *r, size_t i)
{
	return r->text + r->off[i];
}

static int csv_header(struct csv_reader *r)
{
	for (int k = 0; k < C_NCOLS; k++)
		r->pos_of[k] = -1;
	r->kind = xmalloc(r->ncell * sizeof(*r->kind));
	r->nkind = r->ncell;
	for (size_t i = 0; i < r->ncell; i++) {
		const char *name = csv_cell(r, i);
		int k;
		for (k = 0; k < C_NCOLS; k++)
			if (strcmp(name, csv_col_name[k]) == 0)
				break;
		if (k == C_NCOLS)
			return err_set(r->err, "%s:%" PRIu64 ": unknown column "
				       "'%s'", r->path, r->rec_line, name);
		if (r->pos_of[k] >= 0)
			return err_set(r->err, "%s:%" PRIu64 ": duplicate "
				       "column '%s'", r->path, r->rec_line,
				       name);
		r->pos_of[k] = (int)i;
		r->kind[i] = k;
	}
	static const int required[] = { C_ID, C_SUBMIT, C_RUN, C_CPUS };
	for (size_t i = 0; i < ARRAY_SIZE(required); i++)
		if (r->pos_of[required[i]] < 0)
			return err_set(r->err, "%s:%" PRIu64 ": missing column "
				       "'%s'", r->path, r->rec_line,
				       csv_col_name[required[i]]);
	return 0;
}

/* An integer cell: [+-]digits.  0, or -1 when not an integer or out of
 * range. */
static int csv_int(const char *s, int64_t *out)
{
	char *end;
	if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+'))
		return -1;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno)
		return -1;
	*out = v;
	return 0;
}

static int csv_bad(struct csv_reader *r, int k, const char *v,
		   const char *what)
{
	return err_set(r->err, "%s:%" PRIu64 ": %s '%.60s' %s", r->path,
		       r->rec_line, csv_col_name[k], v, what);
}

/*
 * Reads an integer column into *out.  An absent column or empty cell is
 * def; required columns must be present and non-empty.  Values above max
 * are an error; the caller reads negative values (as unknown).
 */
static int csv_get_int(struct csv_reader *r, int k, bool required,
		       int64_t def, int64_t max, int64_t *out)
{
	int pos = r->pos_of[k];
	*out = def;
	if (pos < 0)
		return 0;
	const char *v = csv_cell(r, (size_t)pos);
	if (!*v) {
		if (required)
			return csv_bad(r, k, v, "is not an integer");
		return 0;
	}
	if (csv_int(v, out) != 0)
		return csv_bad(r, k, v, "is not an integer");
	if (*out > max)
		return csv_bad(r, k, v, "is out of range");
	return 0;
}

static int csv_get_time(struct csv_reader *r, int k, bool required,
			sim_time_t *out)
{
	int pos = r->pos_of[k];
	*out = 0;
	if (pos < 0)
		return 0;
	const char *v = csv_cell(r, (size_t)pos);
	if (!*v) {
		if (required)
			return csv_bad(r, k, v, "is not a number");
		return 0;
	}
	if (parse_seconds(v, out) != 0)
		return csv_bad(r, k, v, "is not a number of seconds");
	return 0;
}

/*
 * The shape of a large-model job (docs/placement.md, "Shaped jobs"): tp
 * and pp (1 when absent or empty), dp (gpus / (tp x pp) when absent or
 * empty); a shape needs GPUs, and dp x tp x pp must be them.  Writes tp
 * and pp, 0 and 0 for a job with no shape cells.
 */
static int csv_shape(struct csv_reader *r, int64_t gpus, uint16_t *tp_out,
		     uint16_t *pp_out)
{
	int64_t dp, tp, pp;
	int rc, k = r->pos_of[C_TP] >= 0 ? C_TP : r->pos_of[C_PP] >= 0 ?
		C_PP : C_DP;

	*tp_out = *pp_out = 0;
	if ((rc = csv_get_int(r, C_DP, false, 0, UINT32_MAX, &dp)) ||
	    (rc = csv_get_int(r, C_TP, false, 0, UINT16_MAX, &tp)) ||
	    (rc = csv_get_int(r, C_PP, false, 0, UINT16_MAX, &pp)))
		return rc;
	if (!dp && !tp && !pp)
		return 0;
	if (dp < 0 || tp < 0 || pp < 0)
		return err_set(r->err, "%s:%" PRIu64 ": dp, tp and pp must be "
			       "positive, got '%" PRId64 " %" PRId64 " %"
			       PRId64 "'", r->path, r->rec_line, dp, tp, pp);
	if (gpus <= 0)
		return csv_bad(r, k, csv_cell(r, (size_t)r->pos_of[k]),
			       "needs a job with GPUs");
	tp = tp ? tp : 1;
	pp = pp ? pp : 1;
	if (!dp)
		dp = gpus / (tp * pp);
	if (dp * tp * pp != gpus)
		return err_set(r->err, "%s:%" PRIu64 ": dp x tp x pp is not "
			       "the job's gpus: '%" PRId64 " x %" PRId64 " x %"
			       PRId64 "' != '%" PRId64 "'", r->path,
			       r->rec_line, dp, tp, pp, gpus);
	*tp_out = (uint16_t)tp;
	*pp_out = (uint16_t)pp;
	return 0;
}

/* A large-model job's count in column k (0: empty), which needs a
 * `model` cell (has_model) and must be positive when given. */
static int csv_llm_count(struct csv_reader *r, int k, bool has_model,
			 int64_t *v)
{
	int rc = csv_get_int(r, k, false, 0, UINT32_MAX, v);
	if (rc || !*v)
		return rc;
	const char *cell = csv_cell(r, (size_t)r->pos_of[k]);
	if (!has_model)
		return csv_bad(r, k, cell, "needs a `model` cell");
	if (*v < 0)
		return csv_bad(r, k, cell, "must be positive");
	return 0;
}

/*
 * The model a large-model job trains (`model`: an entry of the root
 * "models" table or a preset), its micro-batches per step
 * (`microbatches`, default 4 pp) and its model chunks per pipeline stage
 * (`interleave`, default the model's); the shape must suit the model
 * (layers divisible by pp x interleave, heads and hidden by tp).  A job
 * with GPUs and no model cell is an ordinary one.
 */
static int csv_model(struct csv_reader *r, struct job *j)
{
	int pos = r->pos_of[C_MODEL];
	const char *name = pos >= 0 ? csv_cell(r, (size_t)pos) : "";
	int64_t m, v;
	int rc;
	char at[128];

	if ((rc = csv_llm_count(r, C_MICROBATCHES, *name, &m)) ||
	    (rc = csv_llm_count(r, C_INTERLEAVE, *name, &v)) || !*name)
		return rc;
	if (!j->gpus)
		return csv_bad(r, C_MODEL, name, "needs a job with GPUs");
	snprintf(at, sizeof(at), "%s:%" PRIu64 ": model", r->path,
		 r->rec_line);
	if (!m)
		m = workload_llm_default_microbatches(j->pp);
	if ((rc = workload_llm_add(r->w, r->o->models, r->o->nmodels, name,
				   (uint32_t)m, 1, (uint32_t)v, at, &j->llm,
				   r->err)))
		return rc;
	snprintf(at, sizeof(at), "%s:%" PRIu64 ": job", r->path,
		 r->rec_line);
	return workload_llm_check_job(r->w, j, at, r->err);
}

/* The job's kind (docs/tenants.md): "train" (or an empty cell) or
 * "interactive", which sets JOB_INTERACTIVE. */
static int csv_kind(struct csv_reader *r, struct job *j)
{
	int pos = r->pos_of[C_KIND];
	const char *k = pos >= 0 ? csv_cell(r, (size_t)pos) : "";
	if (!strcmp(k, "interactive"))
		j->flags |= JOB_INTERACTIVE;
	else if (*k && strcmp(k, "train"))
		return csv_bad(r, C_KIND, k, "is not a kind (train or "
			       "interactive)");
	return 0;
}

/* The queue and partition columns of a kept job (-1: empty or none), for
 * partitions and QOS (workload.qp); 1, or a negative code. */
static int csv_qp(struct csv_reader *r)
{
	int64_t q, p;
	int rc;
	if ((rc = csv_get_int(r, C_QUEUE, false, -1, INT32_MAX, &q)) ||
	    (rc = csv_get_int(r, C_PARTITION, false, -1, INT32_MAX, &p)))
		return rc;
	xgrow(&r->w->qp, &r->qcap, 2 * (r->w->n + 1), sizeof(*r->w->qp));
	xgrow(&r->w->qline, &r->lcap, r->w->n + 1, sizeof(*r->w->qline));
	r->w->qline[r->w->n] = r->rec_line;
	r->w->qp[2 * r->w->n] = q >= 0 ? (int32_t)q : -1;
	r->w->qp[2 * r->w->n + 1] = p >= 0 ? (int32_t)p : -1;
	return 1;
}

/* The project column of a kept job: its name's index (a new name added
 * with its line), -1 for an empty cell (workload.proj). */
static void csv_project(struct csv_reader *r)
{
	struct workload *w = r->w;
	const char *name = csv_cell(r, (size_t)r->pos_of[C_PROJECT]);
	int32_t k = -1;
	for (size_t i = 0; *name && i < w->nprojects && k < 0; i++)
		if (!strcmp(w->projects[i], name))
			k = (int32_t)i;
	if (*name && k < 0) {
		size_t c = r->ncap;
		xgrow(&w->projects, &r->ncap, w->nprojects + 1,
		      sizeof(*w->projects));
		xgrow(&w->project_line, &c, w->nprojects + 1,
		      sizeof(*w->project_line));
		w->projects[w->nprojects] = xstrdup(name);
		w->project_line[w->nprojects] = r->rec_line;
		k = (int32_t)w->nprojects++;
	}
	if (!w->project_file)
		w->project_file = xstrdup(r->path);
	xgrow(&w->proj, &r->pcap, w->n + 1, sizeof(*w->proj));
	w->proj[w->n] = k;
}

static int csv_job(struct csv_reader *r)
{
	struct trace_report *rep = &r->w->report;
	int64_t id, cpus, gpus, nodes, user, group, procs;
	sim_time_t submit, run, est;
	uint16_t tp, pp;
	int rc;

	if (r->ncell != r->nkind)
		return err_set(r->err, "%s:%" PRIu64 ": expected %zu cells, "
			       "got '%zu'", r->path, r->rec_line, r->nkind,
			       r->ncell);
	if ((rc = csv_get_int(r, C_ID, true, 0, INT64_MAX, &id)) ||
	    (rc = csv_get_time(r, C_SUBMIT, true, &submit)) ||
	    (rc = csv_get_time(r, C_RUN, true, &run)) ||
	    (rc = csv_get_int(r, C_CPUS, true, 0, UINT32_MAX, &cpus)) ||
	    (rc = csv_get_time(r, C_ESTIMATE, false, &est)) ||
	    (rc = csv_get_int(r, C_USER, false, -1, INT32_MAX, &user)) ||
	    (rc = csv_get_int(r, C_GROUP, false, -1, INT32_MAX, &group)) ||
	    (rc = csv_get_int(r, C_GPUS, false, 0, UINT32_MAX, &gpus)) ||
	    (rc = csv_get_int(r, C_NODES, false, 0, UINT32_MAX, &nodes)) ||
	    (rc = csv_shape(r, gpus, &tp, &pp)))
		return rc;
	if (submit < 0)
		return csv_bad(r, C_SUBMIT,
			       csv_cell(r, (size_t)r->pos_of[C_SUBMIT]),
			       "is negative");
	/* The placement takes a job's CPUs and GPUs from as many nodes as
	 * it needs (cluster.h): a node count cannot be kept, so it is
	 * refused rather than ignored. */
	if (nodes > 0)
		return csv_bad(r, C_NODES,
			       csv_cell(r, (size_t)r->pos_of[C_NODES]),
			       "is not supported: a job takes its CPUs and "
			       "GPUs from as many nodes as the placement "
			       "needs (leave the cell empty or 0)");

	rep->jobs_read++;
	/* A job asks for CPUs, GPUs or both. */
	procs = cpus > 0 ? cpus : gpus > 0 ? gpus : cpus;

	xgrow(&r->w->jobs, &r->cap, r->w->n + 1, sizeof(*r->w->jobs));
	struct job *j = &r->w->jobs[r->w->n];
	memset(j, 0, sizeof(*j));
	j->id = id;
	j->submit = submit;
	j->run = run;
	j->estimate = est;
	j->cpus = cpus > 0 ? (uint32_t)cpus : 0;
	j->gpus = gpus > 0 ? (uint32_t)gpus : 0;
	j->user = user >= 0 ? (int32_t)user : -1;
	j->group = group >= 0 ? (int32_t)group : -1;
	j->tp = tp;
	j->pp = pp;
	if ((rc = csv_model(r, j)) || (rc = csv_kind(r, j)))
		return rc;
	rc = trace_job_finish(j, procs, r->o, rep, r->path, r->rec_line,
			      r->err);
	if (rc > 0 && r->o->keep_qp)
		rc = csv_qp(r);
	if (rc > 0 && r->pos_of[C_PROJECT] >= 0)
		csv_project(r);
	if (rc < 0)
		return rc;
	if (rc > 0)
		r->w->n++;
	return 0;
}

static void csv_record_cb(int c, void *data)
{
	struct csv_reader *r = data;
	int rc;

	(void)c; /* the terminator: '\n', '\r' or -1 at the end */
	if (r->rc)
		return;
	if (r->ncell == 0)
		r->rec_line = r->line;
	if (!r->header_done) {
		r->header_done = true;
		rc = csv_header(r);
	} else {
		rc = csv_job(r);
		if (rc == -SIM_EINPUT && r->o->lenient) {
			r->w->report.malformed++;
			rc = 0;
		}
	}
	r->rc = rc;
	r->ncell = 0;
	r->text_len = 0;
}

/* Feeds n bytes (at most one line) to libcsv.  A quoting error fails the
 * read, or under lenient drops the record and restarts the parser. */
static int csv_feed(struct csv_reader *r, struct csv_parser *p,
		    const char *s, size_t n)
{
	if (csv_parse(p, s, n, csv_field_cb, csv_record_cb, r) == n)
		return r->rc;
	if (r->rc)
		return r->rc;
	if (csv_error(p) == CSV_EPARSE && r->o->lenient && r->header_done) {
		r->w->report.malformed++;
		r->ncell = 0;
		r->text_len = 0;
		csv_free(p);
		csv_init(p, CSV_STRICT | CSV_STRICT_FINI);
		return 1; /* skip the rest of this line */
	}
	return err_set(r->err, "%s:%" PRIu64 ": malformed csv: %s", r->path,
		       r->line, csv_strerror(csv_error(p)));
}

static int csv_read(struct input *in, struct csv_reader *r,
		    struct csv_parser *p)
{
	char *s;
	size_t n;
	int rc;

	while ((rc = input_line(in, &s, &n, r->err)) > 0) {
		r->line = in->line;
		r->w->report.lines++;
		if (in->line_nl)
			s[n++] = '\n'; /* libcsv ends the record there */
		rc = csv_feed(r, p, s, n);
		if (rc < 0)
			return rc;
	}
	if (rc < 0)
		return rc;
	if (csv_fini(p, csv_field_cb, csv_record_cb, r) != 0 && !r->rc) {
		if (r->o->lenient && r->header_done)
			r->w->report.malformed++;
		else
			return err_set(r->err, "%s:%" PRIu64 ": malformed csv: "
				       "%s", r->path, r->line,
				       csv_strerror(csv_error(p)));
	}
	rc = r->rc;
	if (!rc && !r->header_done)
		rc = err_set(r->err, "%s:1: missing header row", r->path);
	return rc;
}

int trace_load_csv(const char *path, const struct trace_opts *o,
		   struct workload *w, struct sim_error *err)
{
	struct trace_opts def;
	struct csv_reader r;
	struct csv_parser p;
	struct input in;
	int rc;

	workload_init(w);
	if (!o) {
		trace_opts_default(&def);
		o = &def;
	}
	rc = trace_input_open(&in, path, o, false, err);
	if (rc)
		return rc;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
		abort(); /* out of memory, as xmalloc */

	memset(&r, 0, sizeof(r));
	r.path = path;
	r.o = o;
	r.w = w;
	r.err = err;
	rc = csv_read(&in, &r, &p);
	csv_free(&p);
	trace_input_close(&in, w, rc);
	free(r.kind);
	free(r.text);
	free(r.off);
	return trace_load_end(w, o, path, rc, err);
}
