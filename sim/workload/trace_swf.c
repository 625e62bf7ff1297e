/*
 * Reader for the Standard Workload Format (SWF v2.2) of the Parallel
 * Workloads Archive: one job per line, 18 whitespace-separated numeric
 * fields, -1 for unknown, ';' comment lines that carry header labels such
 * as "; MaxProcs: 100".
 *
 * Traces reach millions of lines, and a replay should cost little more
 * than reading the file, so this reader takes its lines from the shared
 * input reader (base/input.h) with its helper thread on (inflating and
 * parsing overlap), parses the fields in place with hand-written number
 * parsers, and grows the job array geometrically.  Fields used (traces/README.md has the
 * details): 1 id, 2 submit, 4 run, 5 allocated and 8 requested
 * processors, 9 requested time (the estimate), 12 user, 13 group.  The
 * other fields are checked to be numbers and otherwise ignored.  A
 * cleaning preset (swf_clean.c) rewrites the used fields first.
 */
#include "workload/workload.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"
#include "base/util.h"

#define SWF_NFIELDS 18
#define SWF_MAX_SEC ((uint64_t)(INT64_MAX / SIM_SEC) - 1) /* largest time */

/* Field numbers (0-based) of the fields the reader uses. */
enum {
	F_ID = 0,
	F_SUBMIT = 1,
	F_RUN = 3,
	F_ALLOC = 4,
	F_REQ_PROCS = 7,
	F_REQ_TIME = 8,
	F_USER = 11,
	F_GROUP = 12,
	F_QUEUE = 14,
	F_PARTITION = 15,
};

/* Names of the 18 fields, for messages. */
static const char *const swf_field_name[SWF_NFIELDS] = {
	"job id", "submit time", "wait time", "run time",
	"allocated processors", "average cpu time", "used memory",
	"requested processors", "requested time", "requested memory",
	"status", "user id", "group id", "executable", "queue", "partition",
	"preceding job", "think time",
};

/* State of one read. */
struct swf_reader {
	const char *path;            /* for messages */
	const struct trace_opts *o;  /* loader options */
	struct workload *w;          /* the output */
	size_t cap;                  /* allocated length of w->jobs */
	size_t qcap, lcap;           /* ... of w->qp, w->qline (keep_qp) */
	uint64_t line;               /* current line number, from 1 */
	struct sim_error *err;       /* where a message goes */
};

static inline bool swf_space(char c)
{
	/* ' ', '\t', '\n', '\v', '\f', '\r': one compare for the usual
	 * characters (digits, letters) */
	return (unsigned char)c <= ' ' &&
	       (c == ' ' || (c >= '\t' && c <= '\r'));
}

static inline bool swf_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Copies a token for a message: at most 40 bytes, non-printable bytes as
 * '?', "..." when cut. */
static const char *swf_quote(char *out, const char *p, const char *e)
{
	size_t n = (size_t)(e - p), i;
	size_t m = n > 40 ? 40 : n;
	for (i = 0; i < m; i++) {
		unsigned char c = (unsigned char)p[i];
		out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	if (n > m) {
		memcpy(out + i, "...", 3);
		i += 3;
	}
	out[i] = '\0';
	return out;
}

/*
 * Parses [+-]digits as an int64.  Returns 0, -1 when the token is not an
 * integer, -2 when it does not fit.
 */
static int swf_int(const char *p, const char *e, int64_t *out)
{
	bool neg = false, big = false;
	uint64_t v = 0;

	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	if (p == e)
		return -1;
	for (; p < e; p++) {
		if (!swf_digit(*p))
			return -1;
		if (v > (UINT64_MAX - 9) / 10)
			big = true;
		else
			v = v * 10 + (uint64_t)(*p - '0');
	}
	if (big || v > (uint64_t)INT64_MAX)
		return -2;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/*
 * Checks the syntax of a decimal number: [+-]digits[.digits][e[+-]digits]
 * with at least one digit in the mantissa; says whether it has an
 * exponent.
 */
static bool swf_number_syntax(const char *p, const char *e, bool *has_exp)
{
	size_t digits = 0;

	*has_exp = false;
	if (p < e && (*p == '-' || *p == '+'))
		p++;
	for (; p < e && swf_digit(*p); p++)
		digits++;
	if (p < e && *p == '.')
		for (p++; p < e && swf_digit(*p); p++)
			digits++;
	if (!digits)
		return false;
	if (p < e && (*p == 'e' || *p == 'E')) {
		*has_exp = true;
		p++;
		if (p < e && (*p == '-' || *p == '+'))
			p++;
		if (p == e)
			return false;
		for (; p < e; p++)
			if (!swf_digit(*p))
				return false;
	}
	return p == e;
}

/*
 * Parses seconds (integer or decimal) into microseconds, rounded to the
 * nearest.  Returns 0, -1 when not a number, -2 when out of range.
 */
static int swf_time(const char *p, const char *e, sim_time_t *out)
{
	const char *s = p;
	bool neg = false, big = false, has_exp;
	uint64_t v = 0, frac = 0;
	int nfrac = 0, round = 0;

	if (p < e && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	/* Fast path: plain digits, the usual case. */
	for (; p < e && swf_digit(*p); p++) {
		if (v > SWF_MAX_SEC)
			big = true;
		else
			v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p < e && *p == '.') {
		for (p++; p < e && swf_digit(*p); p++) {
			if (nfrac < 6) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				nfrac++;
			} else if (nfrac == 6) {
				round = *p >= '5';
				nfrac++;
			}
		}
	}
	if (p != e || p == s) {
		/* An exponent, or not a number at all: check, then strtod. */
		char buf[64];
		sim_time_t t;
		if (!swf_number_syntax(s, e, &has_exp) || !has_exp)
			return -1;
		if ((size_t)(e - s) >= sizeof(buf))
			return -2;
		memcpy(buf, s, (size_t)(e - s));
		buf[e - s] = '\0';
		if (parse_seconds(buf, &t) != 0)
			return -2;
		*out = t;
		return 0;
	}
	if (!swf_number_syntax(s, e, &has_exp))
		return -1;
	if (big || v > SWF_MAX_SEC)
		return -2;
	while (nfrac < 6) {
		frac *= 10;
		nfrac++;
	}
	int64_t us = (int64_t)(v * (uint64_t)SIM_SEC + frac) + round;
	*out = neg ? -us : us;
	return 0;
}

/* Reports a bad token of field f. */
static int swf_bad(struct swf_reader *r, int f, const char *p, const char *e,
		   int why)
{
	char q[48];
	return err_set(r->err, "%s:%" PRIu64 ": %s '%s' %s", r->path, r->line,
		       swf_field_name[f], swf_quote(q, p, e),
		       why == -2 ? "is out of range" :
		       f == F_ID || f == F_ALLOC || f == F_REQ_PROCS ||
		       f == F_USER || f == F_GROUP ? "is not an integer" :
		       "is not a number");
}

/* A header comment: picks up MaxProcs and MaxNodes. */
static int swf_header(struct swf_reader *r, const char *p, const char *e)
{
	int64_t *dst;
	const char *label;
	char q[48];

	p++; /* ';' */
	while (p < e && swf_space(*p))
		p++;
	if ((size_t)(e - p) < 9)
		return 0;
	if (memcmp(p, "MaxProcs:", 9) == 0) {
		dst = &r->w->max_procs;
		label = "MaxProcs";
	} else if (memcmp(p, "MaxNodes:", 9) == 0) {
		dst = &r->w->max_nodes;
		label = "MaxNodes";
	} else {
		return 0;
	}
	p += 9;
	while (p < e && swf_space(*p))
		p++;
	const char *t = p;
	while (p < e && !swf_space(*p))
		p++;
	int64_t v;
	if (swf_int(t, p, &v) != 0 || v < -1)
		return err_set(r->err, "%s:%" PRIu64 ": %s '%s' is not a "
			       "positive integer", r->path, r->line, label,
			       swf_quote(q, t, p));
	*dst = v > 0 ? v : -1;
	return 0;
}

/* Used fields: which are times (seconds) rather than integers. */
static const signed char swf_used[SWF_NFIELDS] = {
	[F_ID] = 1, [F_SUBMIT] = 2, [F_RUN] = 2, [F_ALLOC] = 1,
	[F_REQ_PROCS] = 1, [F_REQ_TIME] = 2, [F_USER] = 1, [F_GROUP] = 1,
};

/* Converts field f, for which the tokenizer found no plain integer, the
 * slow way: decimals, exponents.  0, -1 (not a number) or -2 (range). */
static int swf_slow(int f, const char *b, const char *e, int64_t *out)
{
	bool has_exp;

	if (swf_used[f] == 2)
		return swf_time(b, e, out);
	if (swf_used[f] == 1)
		return swf_int(b, e, out);
	return swf_number_syntax(b, e, &has_exp) ? 0 : -1;
}

/*
 * Splits a job line and converts its fields in one pass: a token of at
 * most 18 digits with an optional '-' (nearly all of them) is converted
 * here; anything else goes to swf_slow.  Fills the first SWF_NFIELDS
 * tokens' bounds (tb, te) and values (v) and returns the number of
 * tokens; the first bad field and its code go to *bad and *bad_rc, to be
 * reported only once the field count is known to be right.
 */
static inline int swf_split(const char *p, const char *e, const char **tb,
			    const char **te, int64_t *v, int *bad, int *bad_rc)
{
	int nf = 0, rc;

	while (p < e) {
		while (p < e && swf_space(*p))
			p++;
		if (p == e)
			break;
		if (nf == SWF_NFIELDS) {
			while (p < e) {
				while (p < e && !swf_space(*p))
					p++;
				nf++;
				while (p < e && swf_space(*p))
					p++;
			}
			break;
		}
		const char *b = p, *d;
		bool neg = *p == '-';
		uint64_t x = 0;
		p += neg;
		d = p;
		while (p < e && (unsigned char)(*p - '0') < 10)
			x = x * 10 + (uint64_t)(*p++ - '0');
		if (p > d && p - d <= 18 && (p == e || swf_space(*p))) {
			v[nf] = neg ? -(int64_t)x : (int64_t)x;
			if (swf_used[nf] == 2) {
				if (x <= SWF_MAX_SEC) {
					v[nf] *= SIM_SEC;
				} else if (*bad < 0) {
					*bad = nf;
					*bad_rc = -2;
				}
			}
		} else {
			while (p < e && !swf_space(*p))
				p++;
			rc = swf_slow(nf, b, p, &v[nf]);
			if (rc && *bad < 0) {
				*bad = nf;
				*bad_rc = rc;
			}
		}
		tb[nf] = b;
		te[nf] = p;
		nf++;
	}
	return nf;
}

/* Applies the cleaning preset to one line's fields: 1 to go on, 0 when
 * the preset dropped the job (counted as a job line read). */
static int swf_preset(struct swf_reader *r, int64_t *id, sim_time_t *submit,
		      sim_time_t *run, sim_time_t *est, int64_t *alloc,
		      int64_t *req)
{
	struct swf_fields f = { *id, *submit, *run, *est, *alloc, *req };

	if (!swf_clean_job(r->o->clean, &f, r->w->max_procs,
			   &r->w->report)) {
		r->w->report.jobs_read++;
		return 0;
	}
	*submit = f.submit;
	*run = f.run;
	*est = f.est;
	*alloc = f.alloc;
	*req = f.req;
	return 1;
}

/* One job line (non-empty, not a comment). */
static int swf_job(struct swf_reader *r, const char *p, const char *e)
{
	const char *tb[SWF_NFIELDS], *te[SWF_NFIELDS];
	int64_t v[SWF_NFIELDS];
	const struct trace_opts *o = r->o;
	struct trace_report *rep = &r->w->report;
	int nf, rc, bad = -1, bad_rc = 0;
	int64_t id, alloc, req, user, group, procs;
	sim_time_t submit, run, est;
	char q[48];

	nf = swf_split(p, e, tb, te, v, &bad, &bad_rc);
	if (nf != SWF_NFIELDS)
		return err_set(r->err, "%s:%" PRIu64 ": expected %d fields, "
			       "got '%d'", r->path, r->line, SWF_NFIELDS, nf);
	if (bad >= 0)
		return swf_bad(r, bad, tb[bad], te[bad], bad_rc);
	id = v[F_ID];
	submit = v[F_SUBMIT];
	run = v[F_RUN];
	alloc = v[F_ALLOC];
	req = v[F_REQ_PROCS];
	est = v[F_REQ_TIME];
	user = v[F_USER];
	group = v[F_GROUP];
	if (o->clean != SWF_CLEAN_PWA &&
	    (rc = swf_preset(r, &id, &submit, &run, &est, &alloc, &req)) <= 0)
		return rc;

	if (submit < 0)
		return err_set(r->err, "%s:%" PRIu64 ": negative submit time "
			       "'%s'", r->path, r->line,
			       swf_quote(q, tb[F_SUBMIT], te[F_SUBMIT]));
	if (alloc > (int64_t)UINT32_MAX)
		return swf_bad(r, F_ALLOC, tb[F_ALLOC], te[F_ALLOC], -2);
	if (req > (int64_t)UINT32_MAX)
		return swf_bad(r, F_REQ_PROCS, tb[F_REQ_PROCS], te[F_REQ_PROCS],
			       -2);
	if (user > INT32_MAX)
		return swf_bad(r, F_USER, tb[F_USER], te[F_USER], -2);
	if (group > INT32_MAX)
		return swf_bad(r, F_GROUP, tb[F_GROUP], te[F_GROUP], -2);

	rep->jobs_read++;
	int64_t first = o->procs == PROCS_REQUESTED ? req : alloc;
	int64_t other = o->procs == PROCS_REQUESTED ? alloc : req;
	procs = first;
	if (first <= 0 && other > 0) {
		procs = other;
		rep->procs_fallback++;
	}

	xgrow(&r->w->jobs, &r->cap, r->w->n + 1, sizeof(*r->w->jobs));
	struct job *j = &r->w->jobs[r->w->n];
	memset(j, 0, sizeof(*j));
	j->id = id;
	j->submit = submit;
	j->run = run;
	j->estimate = est;
	j->cpus = procs > 0 ? (uint32_t)procs : 0;
	j->user = user >= 0 ? (int32_t)user : -1;
	j->group = group >= 0 ? (int32_t)group : -1;
	rc = trace_job_finish(j, procs, o, rep, r->path, r->line, r->err);
	if (rc < 0)
		return rc;
	if (rc > 0 && o->keep_qp) {
		xgrow(&r->w->qp, &r->qcap, 2 * (r->w->n + 1),
		      sizeof(*r->w->qp));
		xgrow(&r->w->qline, &r->lcap, r->w->n + 1,
		      sizeof(*r->w->qline));
		r->w->qline[r->w->n] = r->line;
		/* Beyond int32 is no queue or partition number: unknown. */
		r->w->qp[2 * r->w->n] = v[F_QUEUE] >= 0 && v[F_QUEUE] <=
					INT32_MAX ? (int32_t)v[F_QUEUE] : -1;
		r->w->qp[2 * r->w->n + 1] =
			v[F_PARTITION] >= 0 && v[F_PARTITION] <= INT32_MAX
				? (int32_t)v[F_PARTITION] : -1;
	}
	if (rc > 0)
		r->w->n++;
	return 0;
}

/* One line without its '\n'.  Returns 0 or a negative code; a malformed
 * line under lenient is counted and skipped. */
static int swf_line(struct swf_reader *r, const char *p, const char *e)
{
	int rc;

	r->line++;
	r->w->report.lines++;
	while (p < e && swf_space(*p))
		p++;
	if (p == e)
		return 0;
	if (*p == ';')
		rc = swf_header(r, p, e);
	else
		rc = swf_job(r, p, e);
	if (rc == -SIM_EINPUT && r->o->lenient) {
		r->w->report.malformed++;
		return 0;
	}
	return rc;
}

/* Feeds every line of the file to swf_line. */
static int swf_read_lines(struct input *in, struct swf_reader *r)
{
	char *p;
	size_t n;
	int rc;

	while ((rc = input_line(in, &p, &n, r->err)) > 0)
		if ((rc = swf_line(r, p, p + n)) != 0)
			return rc;
	return rc;
}

int trace_load_swf(const char *path, const struct trace_opts *o,
		   struct workload *w, struct sim_error *err)
{
	struct trace_opts def;
	struct swf_reader r;
	struct input in;
	int rc;

	workload_init(w);
	if (!o) {
		trace_opts_default(&def);
		o = &def;
	}
	rc = trace_input_open(&in, path, o, true, err);
	if (rc)
		return rc;

	memset(&r, 0, sizeof(r));
	r.path = path;
	r.o = o;
	r.w = w;
	r.err = err;
	rc = swf_read_lines(&in, &r);
	if (!rc)
		swf_clean_end(o->clean, w);
	trace_input_close(&in, w, rc);
	return trace_load_end(w, o, path, rc, err);
}
