/*
 * The row reader that the GPU trace readers (Philly, Tiresias, Gavel)
 * share (trace_rows_*, declared in workload.h): the lines of the shared
 * input reader (base/input.h: plain or gzip, checked for truncation,
 * trailing garbage and NUL bytes), split into cells by a separator with
 * libcsv's quoting rules, so that every message names its line; and a
 * strict integer parser.
 */
#include "workload/workload.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static void rows_add_cell(struct trace_rows *r, const char *s, size_t len)
{
	xgrow(&r->off, &r->off_cap, r->ncell + 1, sizeof(*r->off));
	xgrow(&r->text, &r->text_cap, r->text_len + len + 1, 1);
	r->off[r->ncell++] = r->text_len;
	if (len)
		memcpy(r->text + r->text_len, s, len);
	r->text_len += len;
	r->text[r->text_len++] = '\0';
}

static void rows_field_cb(void *s, size_t len, void *data)
{
	rows_add_cell(data, s, len);
}

static void rows_record_cb(int c, void *data)
{
	(void)c; /* one line is one record: nothing to do at its end */
	(void)data;
}

int trace_rows_open(struct trace_rows *r, const char *path, char sep,
		    const struct input_opts *io, uint64_t *lines,
		    struct sim_error *err)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->lines = lines;
	int rc = input_open(&r->in, path, io, err);
	if (rc)
		return rc;
	r->open = true;
	if (sep == ',') {
		r->csv = xmalloc(sizeof(*r->csv));
		if (csv_init(r->csv, CSV_STRICT | CSV_STRICT_FINI) != 0)
			abort(); /* out of memory, as xmalloc */
	}
	return 0;
}

void trace_rows_close(struct trace_rows *r)
{
	if (r->csv) {
		csv_free(r->csv);
		free(r->csv);
	}
	if (r->open)
		input_close(&r->in);
	free(r->text);
	free(r->off);
	/* The digest stays: a reader may still want it. */
	char sha[INPUT_SHA256_HEX];
	memcpy(sha, r->in.sha256, sizeof(sha));
	memset(r, 0, sizeof(*r));
	memcpy(r->in.sha256, sha, sizeof(sha));
}

int trace_rows_next(struct trace_rows *r, struct sim_error *err)
{
	size_t len = 0;
	int rc;

	for (;;) {
		rc = input_line(&r->in, &r->buf, &len, err);
		if (rc <= 0)
			return rc;
		while (len && r->buf[len - 1] == '\r')
			r->buf[--len] = '\0';
		r->line++;
		if (r->lines)
			(*r->lines)++;
		if (strspn(r->buf, " \t\r") < len)
			break; /* not blank */
	}
	r->ncell = 0;
	r->text_len = 0;
	if (!r->csv) {
		char *s = r->buf, *tab;
		while ((tab = strchr(s, '\t'))) {
			rows_add_cell(r, s, (size_t)(tab - s));
			s = tab + 1;
		}
		rows_add_cell(r, s, strlen(s));
		return 1;
	}
	if (csv_parse(r->csv, r->buf, len, rows_field_cb, rows_record_cb, r) !=
		    len ||
	    csv_fini(r->csv, rows_field_cb, rows_record_cb, r) != 0) {
		err_set(err, "%s:%" PRIu64 ": malformed csv: %s", r->path,
			r->line, csv_strerror(csv_error(r->csv)));
		/* Start afresh on the next line. */
		csv_free(r->csv);
		csv_init(r->csv, CSV_STRICT | CSV_STRICT_FINI);
		r->ncell = 0;
		return TRACE_ROW_BAD;
	}
	return 1;
}

const char *trace_rows_cell(const struct trace_rows *r, int i)
{
	if (i < 0 || (size_t)i >= r->ncell)
		return "";
	return r->text + r->off[i];
}

int trace_rows_header(struct trace_rows *r, const char *const *names,
		      size_t n, uint32_t required, int *pos,
		      struct sim_error *err)
{
	int rc = trace_rows_next(r, err);

	if (rc < 0)
		return rc;
	if (rc == TRACE_ROW_BAD)
		return -SIM_EINPUT;
	if (rc == 0)
		return err_set(err, "%s:1: missing header row", r->path);
	for (size_t k = 0; k < n; k++)
		pos[k] = -1;
	for (size_t i = 0; i < r->ncell; i++) {
		const char *name = trace_rows_cell(r, (int)i);
		for (size_t k = 0; k < n; k++) {
			if (strcmp(name, names[k]) != 0)
				continue;
			if (pos[k] >= 0)
				return err_set(err, "%s:%" PRIu64 ": duplicate "
					       "column '%s'", r->path, r->line,
					       name);
			pos[k] = (int)i;
		}
	}
	for (size_t k = 0; k < n; k++)
		if ((required & (1u << k)) && pos[k] < 0)
			return err_set(err, "%s:%" PRIu64 ": missing column "
				       "'%s'", r->path, r->line, names[k]);
	return 0;
}

int trace_parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char *end;
	long long v;

	if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+'))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}


int trace_rows_each(struct trace_rows *r, bool lenient, uint64_t *malformed,
		    int (*job)(void *ctx, bool bad), void *ctx,
		    struct sim_error *err)
{
	int rc;
	while ((rc = trace_rows_next(r, err)) > 0) {
		rc = job(ctx, rc == TRACE_ROW_BAD);
		if (rc == -SIM_EINPUT && lenient) {
			(*malformed)++;
			rc = 0;
		}
		if (rc)
			return rc;
	}
	return rc;
}

int trace_load_end(struct workload *w, const struct trace_opts *o,
		   const char *path, int rc, struct sim_error *err)
{
	if (!rc)
		rc = workload_finish(w, o, path, err);
	if (rc)
		workload_release(w);
	return rc;
}

int trace_rows_load(struct trace_row_reader *b, const char *path, char sep,
		    const struct trace_opts *o, struct workload *w,
		    struct sim_error *err,
		    int (*read)(struct trace_row_reader *b))
{
	struct trace_opts def;
	workload_init(w);
	if (!o) {
		trace_opts_default(&def);
		o = &def;
	}
	b->path = path;
	b->o = o;
	b->w = w;
	b->err = err;
	struct input_opts io = { .max_bytes = o->max_bytes };
	int rc = trace_rows_open(&b->rows, path, sep, &io, &w->report.lines,
				 err);
	if (rc)
		return rc;
	rc = read(b);
	trace_rows_close(&b->rows);
	if (!rc)
		memcpy(w->sha256, b->rows.in.sha256, sizeof(w->sha256));
	return trace_load_end(w, o, path, rc, err);
}

int trace_row_bad(const struct trace_row_reader *b, const char *column,
		  int i, const char *what)
{
	return err_set(b->err, "%s:%" PRIu64 ": %s '%.60s' %s", b->path,
		       b->rows.line, column, trace_rows_cell(&b->rows, i),
		       what);
}
