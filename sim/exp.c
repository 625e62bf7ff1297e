/*
 * Experiment files: one JSON document that says everything needed to
 * reproduce a result (cluster, workload, policies, seeds, outputs).
 *
 * The cJSON tree is checked key by key against the schema documented in
 * experiments/README.md (the single contract), turned into the typed
 * structs of exp.h and deleted before anything runs.  Every mistake is
 * reported as "FILE: $.json.path: message" with the offending value quoted,
 * unknown keys with a "did you mean" when a known key is close, so that a
 * typo never silently falls back to a default.  Relative paths are resolved
 * against the experiment file's folder (never canonicalised).  Finally the
 * resolved configuration, every default filled in, is printed back as JSON
 * for the results manifest.
 */
#include "exp.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util.h"

/* Largest integer a JSON number (a double) holds exactly: 2^53 - 1. */
#define EXP_INT_MAX 9007199254740991.0

/* Parsing state for one file. */
struct ctx {
	const char *file;       /* the file named in messages */
	const char *dir;        /* folder that relative paths start from */
	struct sim_error *err;  /* where messages go */
	char *jp;               /* JSON path of the value being read */
	size_t jplen;           /* its length */
	size_t jpcap;           /* its allocated size */
};

static void ctx_init(struct ctx *c, const char *file, const char *dir,
		     struct sim_error *err)
{
	c->file = file;
	c->dir = dir;
	c->err = err;
	c->jpcap = 64;
	c->jp = xmalloc(c->jpcap);
	strcpy(c->jp, "$");
	c->jplen = 1;
}

static void ctx_release(struct ctx *c)
{
	free(c->jp);
	c->jp = NULL;
}

/* Appends text to the JSON path; returns the old length for jp_pop(). */
static size_t jp_append(struct ctx *c, const char *s)
{
	size_t old = c->jplen, n = strlen(s);
	xgrow(&c->jp, &c->jpcap, old + n + 1, 1);
	memcpy(c->jp + old, s, n + 1);
	c->jplen = old + n;
	return old;
}

/* ".key" for identifier-like keys, "['key']" otherwise. */
static size_t jp_key(struct ctx *c, const char *key)
{
	bool ident = key[0] && !(key[0] >= '0' && key[0] <= '9');
	for (const char *p = key; *p && ident; p++)
		ident = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || *p == '_';
	size_t old = jp_append(c, ident ? "." : "['");
	jp_append(c, key);
	if (!ident)
		jp_append(c, "']");
	return old;
}

static size_t jp_index(struct ctx *c, size_t i)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "[%zu]", i);
	return jp_append(c, buf);
}

static void jp_pop(struct ctx *c, size_t len)
{
	c->jplen = len;
	c->jp[len] = '\0';
}

/* "FILE: $.path: message"; returns -SIM_EINPUT. */
__attribute__((format(printf, 2, 3)))
static int fail(struct ctx *c, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(c->err, "%s: %s: %s", c->file, c->jp, msg);
}

/* Shortest decimal that reads back as v. */
static void fmt_num(char *buf, size_t n, double v)
{
	snprintf(buf, n, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, n, "%.17g", v);
}

/* A value for a message (quoted by the caller), cut to 60 characters. */
static void show(const cJSON *v, char *buf, size_t n)
{
	char *s = NULL;
	const char *t;
	if (cJSON_IsString(v)) {
		t = v->valuestring;
	} else if (cJSON_IsNumber(v)) {
		fmt_num(buf, n, v->valuedouble);
		return;
	} else {
		s = cJSON_PrintUnformatted(v);
		t = s ? s : "?";
	}
	if (strlen(t) > 60 && n > 64)
		snprintf(buf, n, "%.57s...", t);
	else
		snprintf(buf, n, "%s", t);
	cJSON_free(s);
}

static const char *type_name(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "string";
	if (cJSON_IsNumber(v))
		return "number";
	if (cJSON_IsBool(v))
		return "boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "array";
	if (cJSON_IsObject(v))
		return "object";
	return "invalid value";
}

static int fail_type(struct ctx *c, const char *want, const cJSON *v)
{
	return fail(c, "expected %s, got %s", want, type_name(v));
}

/* Levenshtein distance of two short strings; large when either is long. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[65];
	if (la > 64 || lb > 64)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* "'a', 'b' or 'c'" into buf. */
static void list_names(const char *const *names, size_t n, char *buf,
		       size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < size; i++) {
		const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
		int w = snprintf(buf + len, size - len, "%s'%s'", sep,
				 names[i]);
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

static int fail_unknown_key(struct ctx *c, const char *key,
			    const char *const *keys, size_t nkeys)
{
	char shown[80], list[512];
	size_t best = SIZE_MAX, besti = 0;
	for (size_t i = 0; i < nkeys; i++) {
		size_t d = edit_distance(key, keys[i]);
		if (d < best) {
			best = d;
			besti = i;
		}
	}
	cJSON tmp = { .type = cJSON_String, .valuestring = (char *)key };
	show(&tmp, shown, sizeof(shown));
	if (best <= 2 && best < strlen(key))
		return fail(c, "unknown key '%s' (did you mean '%s'?)", shown,
			    keys[besti]);
	list_names(keys, nkeys, list, sizeof(list));
	return fail(c, "unknown key '%s' (expected %s)", shown, list);
}

/*
 * Checks that v (at the current path) is an object whose keys are all in
 * keys[], none twice, and sets out[i] to the value of keys[i] or NULL.
 */
static int obj_fields(struct ctx *c, const cJSON *v, const char *const *keys,
		      size_t nkeys, const cJSON **out)
{
	if (!cJSON_IsObject(v))
		return fail_type(c, "an object", v);
	for (size_t i = 0; i < nkeys; i++)
		out[i] = NULL;
	for (const cJSON *it = v->child; it; it = it->next) {
		size_t i = 0;
		while (i < nkeys && strcmp(it->string, keys[i]) != 0)
			i++;
		if (i == nkeys)
			return fail_unknown_key(c, it->string, keys, nkeys);
		if (out[i])
			return fail(c, "duplicate key '%s'", keys[i]);
		out[i] = it;
	}
	return 0;
}

static int require(struct ctx *c, const cJSON *v, const char *key)
{
	return v ? 0 : fail(c, "missing key '%s'", key);
}

/*
 * Value getters: v is the value of key in the object at the current path
 * (key NULL: v is at the current path itself).  When v is NULL the key was
 * not given and *out keeps its default.
 */
static size_t enter(struct ctx *c, const char *key)
{
	return key ? jp_key(c, key) : c->jplen;
}

static int get_bool(struct ctx *c, const char *key, const cJSON *v,
		    bool *out)
{
	if (!v)
		return 0;
	size_t m = enter(c, key);
	int rc = 0;
	if (!cJSON_IsBool(v))
		rc = fail_type(c, "a boolean", v);
	else
		*out = cJSON_IsTrue(v);
	jp_pop(c, m);
	return rc;
}

/* A non-empty string, borrowed from the tree. */
static int get_string(struct ctx *c, const char *key, const cJSON *v,
		      const char **out)
{
	if (!v)
		return 0;
	size_t m = enter(c, key);
	int rc = 0;
	if (!cJSON_IsString(v))
		rc = fail_type(c, "a string", v);
	else if (!v->valuestring[0])
		rc = fail(c, "must not be empty");
	else
		*out = v->valuestring;
	jp_pop(c, m);
	return rc;
}

/* A finite number; min_excl: "> min" rather than ">= min". */
static int get_number(struct ctx *c, const char *key, const cJSON *v,
		      double min, bool min_excl, double *out)
{
	if (!v)
		return 0;
	size_t m = enter(c, key);
	char shown[80], lim[40];
	int rc = 0;
	if (!cJSON_IsNumber(v)) {
		rc = fail_type(c, "a number", v);
	} else if (!isfinite(v->valuedouble)) {
		rc = fail(c, "expected a finite number");
	} else if (v->valuedouble < min ||
		   (min_excl && v->valuedouble == min)) {
		show(v, shown, sizeof(shown));
		fmt_num(lim, sizeof(lim), min);
		rc = fail(c, "must be %s %s, got '%s'", min_excl ? ">" : ">=",
			  lim, shown);
	} else {
		*out = v->valuedouble;
	}
	jp_pop(c, m);
	return rc;
}

/* An integer in [min, max] (max at most 2^53 - 1). */
static int get_uint(struct ctx *c, const char *key, const cJSON *v,
		    uint64_t min, uint64_t max, uint64_t *out)
{
	if (!v)
		return 0;
	size_t m = enter(c, key);
	char shown[80];
	int rc = 0;
	double d = v->valuedouble;
	if (!cJSON_IsNumber(v)) {
		rc = fail_type(c, "an integer", v);
		goto out;
	}
	show(v, shown, sizeof(shown));
	if (!isfinite(d) || d != floor(d))
		rc = fail(c, "expected an integer, got '%s'", shown);
	else if (d < (double)min && min == 1)
		rc = fail(c, "must be > 0, got '%s'", shown);
	else if (d < (double)min)
		rc = fail(c, "must be >= %llu, got '%s'",
			  (unsigned long long)min, shown);
	else if (d > (double)max || d > EXP_INT_MAX)
		rc = fail(c, "must be <= %llu, got '%s'",
			  (unsigned long long)(max < (uint64_t)EXP_INT_MAX ?
					       max : (uint64_t)EXP_INT_MAX),
			  shown);
	else
		*out = (uint64_t)d;
out:
	jp_pop(c, m);
	return rc;
}

static int get_u32(struct ctx *c, const char *key, const cJSON *v,
		   uint32_t min, uint32_t *out)
{
	uint64_t u = *out;
	int rc = get_uint(c, key, v, min, UINT32_MAX, &u);
	*out = (uint32_t)u;
	return rc;
}

/* Seconds (a number) to microseconds. */
static int get_seconds(struct ctx *c, const char *key, const cJSON *v,
		       double min, bool min_excl, sim_time_t *out)
{
	double s = 0;
	if (!v)
		return 0;
	int rc = get_number(c, key, v, min, min_excl, &s);
	if (rc)
		return rc;
	size_t m = enter(c, key);
	char shown[80];
	show(v, shown, sizeof(shown));
	if (seconds_to_time(s, out) < 0)
		rc = fail(c, "out of range, got '%s'", shown);
	else if (min_excl && min == 0 && *out <= 0)
		rc = fail(c, "must be at least 1 microsecond, got '%s'",
			  shown);
	jp_pop(c, m);
	return rc;
}

/* One of names[]; *out is its index. */
static int get_enum(struct ctx *c, const char *key, const cJSON *v,
		    const char *const *names, size_t n, int *out)
{
	const char *s = NULL;
	int rc = get_string(c, key, v, &s);
	if (rc || !s)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	size_t m = enter(c, key);
	char shown[80], list[256];
	show(v, shown, sizeof(shown));
	list_names(names, n, list, sizeof(list));
	rc = fail(c, "unknown value '%s' (expected %s)", shown, list);
	jp_pop(c, m);
	return rc;
}

static const char *const format_names[] = {
	[TRACE_SWF] = "swf",
	[TRACE_CSV] = "csv",
};
static_assert(ARRAY_SIZE(format_names) == TRACE_CSV + 1, "format names");

static const char *const procs_names[] = {
	[PROCS_ALLOCATED] = "allocated",
	[PROCS_REQUESTED] = "requested",
};
static_assert(ARRAY_SIZE(procs_names) == PROCS_REQUESTED + 1, "procs names");

static const char *const overrun_names[] = {
	[OVERRUN_CLIP] = "clip",
	[OVERRUN_KILL] = "kill",
	[OVERRUN_ALLOW] = "allow",
};
static_assert(ARRAY_SIZE(overrun_names) == OVERRUN_ALLOW + 1,
	      "overrun names");

/* A distribution's name and its parameters, in the order of dist.p[]. */
struct dist_desc {
	const char *name;
	const char *params[5];
	size_t np;             /* parameters in p[] (discrete: none) */
};

static const struct dist_desc dist_descs[] = {
	[DIST_CONSTANT] = { "constant", { "value" }, 1 },
	[DIST_UNIFORM] = { "uniform", { "min", "max" }, 2 },
	[DIST_EXPONENTIAL] = { "exponential", { "mean" }, 1 },
	[DIST_LOGNORMAL] = { "lognormal", { "mu", "sigma" }, 2 },
	[DIST_WEIBULL] = { "weibull", { "shape", "scale" }, 2 },
	[DIST_GAMMA] = { "gamma", { "shape", "scale" }, 2 },
	[DIST_HYPERGAMMA] = { "hypergamma",
			      { "p", "shape1", "scale1", "shape2", "scale2" },
			      5 },
	[DIST_POW2] = { "pow2", { "min", "max" }, 2 },
	[DIST_DISCRETE] = { "discrete", { "values", "weights" }, 0 },
};
static_assert(ARRAY_SIZE(dist_descs) == DIST_NKINDS, "dist table");

/* A non-empty array of numbers into a new array. */
static int get_numbers(struct ctx *c, const char *key, const cJSON *v,
		       double **out, size_t *n)
{
	size_t m = jp_key(c, key), i = 0;
	int rc = 0;
	if (!cJSON_IsArray(v)) {
		rc = fail_type(c, "an array of numbers", v);
		goto out;
	}
	*n = (size_t)cJSON_GetArraySize(v);
	if (*n == 0) {
		rc = fail(c, "must not be empty");
		goto out;
	}
	*out = xcalloc(*n, sizeof(**out));
	for (const cJSON *it = v->child; it; it = it->next, i++) {
		size_t mi = jp_index(c, i);
		rc = get_number(c, NULL, it, -INFINITY, false, &(*out)[i]);
		jp_pop(c, mi);
		if (rc)
			break;
	}
out:
	jp_pop(c, m);
	return rc;
}

/* DIST at key (see experiments/README.md), then dist_check(). */
static int parse_dist(struct ctx *c, const char *key, const cJSON *v,
		      struct dist *d)
{
	const char *keys[6] = { "dist" };
	const cJSON *f[6];
	const struct dist_desc *dd;
	const char *names[DIST_NKINDS];
	char *prefix = NULL;
	size_t m = jp_key(c, key), nkeys;
	int kind = -1, rc;

	if (!cJSON_IsObject(v)) {
		rc = fail_type(c, "an object", v);
		goto out;
	}
	for (size_t i = 0; i < DIST_NKINDS; i++)
		names[i] = dist_descs[i].name;
	const cJSON *kv = cJSON_GetObjectItemCaseSensitive(v, "dist");
	rc = require(c, kv, "dist");
	if (!rc)
		rc = get_enum(c, "dist", kv, names, DIST_NKINDS, &kind);
	if (rc)
		goto out;
	dd = &dist_descs[kind];
	nkeys = 1 + (kind == DIST_DISCRETE ? 2 : dd->np);
	for (size_t i = 1; i < nkeys; i++)
		keys[i] = dd->params[i - 1];
	rc = obj_fields(c, v, keys, nkeys, f);
	if (rc)
		goto out;
	for (size_t i = 1; i < nkeys; i++) {
		rc = require(c, f[i], keys[i]);
		if (rc)
			goto out;
	}
	d->kind = (enum dist_kind)kind;
	if (kind == DIST_DISCRETE) {
		size_t nw = 0;
		rc = get_numbers(c, "values", f[1], &d->values, &d->nvalues);
		if (!rc)
			rc = get_numbers(c, "weights", f[2], &d->weights, &nw);
		if (!rc && nw != d->nvalues) {
			size_t mw = jp_key(c, "weights");
			rc = fail(c, "expected %zu weights (one per value), "
				  "got %zu", d->nvalues, nw);
			jp_pop(c, mw);
		}
	} else {
		for (size_t i = 0; i < dd->np && !rc; i++)
			rc = get_number(c, keys[i + 1], f[i + 1], -INFINITY,
					false, &d->p[i]);
	}
	if (rc)
		goto out;
	prefix = xasprintf("%s: %s", c->file, c->jp);
	rc = dist_check(d, prefix, c->err);
out:
	free(prefix);
	jp_pop(c, m);
	return rc;
}

/*
 * Reads a whole file.  Returns 0, or an errno value with what failed
 * ("open" or "read") in *what.
 */
static int read_text(const char *path, char **out, size_t *len,
		     const char **what)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	int rc = 0;
	*what = "open";
	FILE *f = fopen(path, "rb");
	if (!f)
		return errno ? errno : EIO;
	*what = "read";
	for (;;) {
		xgrow(&buf, &cap, n + 65536, 1);
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				rc = errno ? errno : EIO;
			break;
		}
	}
	fclose(f);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

static int line_of(const char *text, const char *at)
{
	int line = 1;
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

/*
 * Parses JSON text (len bytes; a NUL inside is an error).  Errors are
 * "FILE:LINE: invalid JSON near '...'".
 */
static int parse_json(const char *text, size_t len, const char *file,
		      cJSON **out, struct sim_error *err)
{
	const char *end = NULL, *body = text;
	char near[24];
	size_t k = 0;

	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		body += 3; /* UTF-8 byte order mark */
	if (memchr(text, '\0', len))
		return err_set(err, "%s:%d: invalid JSON: NUL byte", file,
			       line_of(text, text + strlen(text)));
	*out = cJSON_ParseWithOpts(body, &end, true);
	if (*out)
		return 0;
	if (!end || end < body || end > text + len)
		end = text + len;
	while (end[k] && end[k] != '\n' && end[k] != '\r' &&
	       k < sizeof(near) - 4) {
		unsigned char ch = (unsigned char)end[k];
		near[k] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
		k++;
	}
	if (end[k] && end[k] != '\n' && end[k] != '\r' && k >= 3)
		strcpy(near + k - 3, "...");
	else
		near[k] = '\0';
	if (k == 0 && !*end)
		return err_set(err, "%s:%d: invalid JSON: unexpected end of "
			       "input", file, line_of(text, end));
	return err_set(err, "%s:%d: invalid JSON near '%s'", file,
		       line_of(text, end), near);
}

/* A path relative to the experiment file's folder. */
static int get_path(struct ctx *c, const char *key, const cJSON *v,
		    char **out)
{
	const char *s = NULL;
	int rc = get_string(c, key, v, &s);
	if (!rc && s) {
		free(*out);
		*out = path_join(c->dir, s);
	}
	return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The last path component. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The last path component without its extension (the whole component if
 * that would leave nothing). */
static char *stem(const char *path)
{
	const char *b = base_name(path), *dot = strrchr(b, '.');
	if (!dot || dot == b)
		return xstrdup(b);
	return xasprintf("%.*s", (int)(dot - b), b);
}

static bool label_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		bool ok = (*s >= 'a' && *s <= 'z') ||
			  (*s >= 'A' && *s <= 'Z') ||
			  (*s >= '0' && *s <= '9') ||
			  *s == '_' || *s == '.' || *s == '+' || *s == '-';
		if (!ok)
			return false;
	}
	return true;
}

/* ---- cluster ---------------------------------------------------------- */

static int parse_group(struct ctx *c, const cJSON *v, size_t i,
		       struct node_group *g)
{
	static const char *const keys[] = { "name", "count", "cpus", "gpus",
					    "mem_gb" };
	const cJSON *f[ARRAY_SIZE(keys)];
	const char *name = NULL;
	double mem_gb = 0;
	int rc = obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = require(c, f[1], "count");
	if (!rc)
		rc = require(c, f[2], "cpus");
	if (!rc)
		rc = get_string(c, "name", f[0], &name);
	if (!rc)
		rc = get_u32(c, "count", f[1], 1, &g->count);
	if (!rc)
		rc = get_u32(c, "cpus", f[2], 1, &g->cpus);
	if (!rc)
		rc = get_u32(c, "gpus", f[3], 0, &g->gpus);
	if (!rc)
		rc = get_number(c, "mem_gb", f[4], 0, false, &mem_gb);
	if (rc)
		return rc;
	if (mem_gb * 1024 > EXP_INT_MAX) {
		size_t m = jp_key(c, "mem_gb");
		char shown[80];
		show(f[4], shown, sizeof(shown));
		rc = fail(c, "too large, got '%s'", shown);
		jp_pop(c, m);
		return rc;
	}
	g->mem_mb = (uint64_t)llround(mem_gb * 1024);
	g->name = name ? xstrdup(name) : xasprintf("group%zu", i);
	return 0;
}

/* A cluster object at the current path. */
static int parse_cluster_obj(struct ctx *c, const cJSON *v,
			     struct cluster_spec *s, bool *from_trace)
{
	static const char *const keys[] = { "nodes", "from_trace",
					    "exclusive" };
	const cJSON *f[ARRAY_SIZE(keys)];
	size_t i = 0, m;
	int rc = obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = get_bool(c, "exclusive", f[2], &s->exclusive);
	if (rc)
		return rc;
	if (f[0] && f[1])
		return fail(c, "give either 'nodes' or 'from_trace', not both");
	if (f[1]) {
		rc = get_bool(c, "from_trace", f[1], from_trace);
		if (!rc && !*from_trace) {
			m = jp_key(c, "from_trace");
			rc = fail(c, "must be true when given (else give "
				  "'nodes'), got 'false'");
			jp_pop(c, m);
		}
		return rc;
	}
	if (!f[0])
		return fail(c, "missing key 'nodes' (or 'from_trace': true)");
	m = jp_key(c, "nodes");
	if (!cJSON_IsArray(f[0])) {
		rc = fail_type(c, "an array", f[0]);
		goto out;
	}
	s->ngroups = (size_t)cJSON_GetArraySize(f[0]);
	if (s->ngroups == 0) {
		rc = fail(c, "must not be empty");
		goto out;
	}
	s->groups = xcalloc(s->ngroups, sizeof(*s->groups));
	for (const cJSON *it = f[0]->child; it; it = it->next, i++) {
		size_t mi = jp_index(c, i);
		rc = parse_group(c, it, i, &s->groups[i]);
		jp_pop(c, mi);
		if (rc)
			goto out;
	}
out:
	jp_pop(c, m);
	return rc;
}

/*
 * cluster_spec_check() names paths "$.cluster..."; in a separate cluster
 * file the object is at "$", so "$.cluster" is cut from its message.
 */
static void strip_cluster_prefix(char *msg, const char *prefix)
{
	size_t n = strlen(prefix), k = strlen("$.cluster");
	if (strncmp(msg, prefix, n) != 0 ||
	    strncmp(msg + n, "$.cluster", k) != 0)
		return;
	char next = msg[n + k];
	if (next == '.' || next == '[' || next == ':' || next == '\0')
		memmove(msg + n + 1, msg + n + k, strlen(msg + n + k) + 1);
}

/* "cluster": an object, or a path to a JSON file holding one. */
static int parse_cluster(struct ctx *c, const cJSON *v, struct experiment *e)
{
	struct ctx fc;
	cJSON *root = NULL;
	char *file = NULL, *text = NULL, *fdir = NULL, *prefix = NULL;
	const char *what;
	size_t len = 0;
	size_t m = jp_key(c, "cluster");
	int rc, en;

	if (!cJSON_IsString(v)) {
		if (!cJSON_IsObject(v)) {
			rc = fail_type(c, "an object or a file name", v);
			goto out;
		}
		rc = parse_cluster_obj(c, v, &e->cluster,
				       &e->cluster_from_trace);
		if (rc || e->cluster_from_trace)
			goto out;
		prefix = xasprintf("%s: ", c->file);
		rc = cluster_spec_check(&e->cluster, prefix, c->err);
		goto out;
	}
	rc = get_path(c, NULL, v, &file);
	if (rc)
		goto out;
	en = read_text(file, &text, &len, &what);
	if (en) {
		fail(c, "cannot %s '%s': %s", what, file, strerror(en));
		rc = -SIM_EIO; /* an unreadable file, as for exp_load() */
		goto out;
	}
	rc = parse_json(text, len, file, &root, c->err);
	if (rc)
		goto out;
	fdir = path_dirname(file);
	ctx_init(&fc, file, fdir, c->err);
	rc = parse_cluster_obj(&fc, root, &e->cluster, &e->cluster_from_trace);
	ctx_release(&fc);
	if (rc || e->cluster_from_trace)
		goto out;
	prefix = xasprintf("%s: ", file);
	rc = cluster_spec_check(&e->cluster, prefix, c->err);
	if (rc && c->err)
		strip_cluster_prefix(c->err->msg, prefix);
out:
	cJSON_Delete(root);
	free(prefix);
	free(fdir);
	free(text);
	free(file);
	jp_pop(c, m);
	return rc;
}

/* ---- workload --------------------------------------------------------- */

static int parse_generate(struct ctx *c, const cJSON *v, struct gen_spec *g)
{
	static const char *const keys[] = { "jobs", "interarrival", "runtime",
					    "cpus", "estimate_factor", "users",
					    "max_cpus" };
	const cJSON *f[ARRAY_SIZE(keys)];
	size_t m = jp_key(c, "generate");
	int rc = obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	for (size_t i = 0; i < 4 && !rc; i++)
		rc = require(c, f[i], keys[i]);
	if (rc)
		goto out;
	g->estimate_factor.kind = DIST_CONSTANT;
	g->estimate_factor.p[0] = 1;
	g->users = 1;
	g->max_cpus = 0;
	rc = get_uint(c, "jobs", f[0], 1, UINT64_MAX, &g->jobs);
	if (!rc)
		rc = parse_dist(c, "interarrival", f[1], &g->interarrival);
	if (!rc)
		rc = parse_dist(c, "runtime", f[2], &g->runtime);
	if (!rc)
		rc = parse_dist(c, "cpus", f[3], &g->cpus);
	if (!rc && f[4])
		rc = parse_dist(c, "estimate_factor", f[4],
				&g->estimate_factor);
	if (!rc)
		rc = get_u32(c, "users", f[5], 1, &g->users);
	if (!rc)
		rc = get_u32(c, "max_cpus", f[6], 0, &g->max_cpus);
out:
	jp_pop(c, m);
	return rc;
}

static int parse_window(struct ctx *c, const cJSON *v, struct trace_opts *o)
{
	static const char *const keys[] = { "start", "end" };
	const cJSON *f[ARRAY_SIZE(keys)];
	size_t m = jp_key(c, "window");
	int rc = obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = get_seconds(c, "start", f[0], -INFINITY, false,
				 &o->window_start);
	if (!rc)
		rc = get_seconds(c, "end", f[1], -INFINITY, false,
				 &o->window_end);
	if (!rc && f[0] && f[1] && o->window_end <= o->window_start) {
		char s[80], t[80];
		show(f[0], s, sizeof(s));
		show(f[1], t, sizeof(t));
		size_t me = jp_key(c, "end");
		rc = fail(c, "must be > start ('%s'), got '%s'", s, t);
		jp_pop(c, me);
	}
	jp_pop(c, m);
	return rc;
}

static int parse_workload(struct ctx *c, const cJSON *v,
			  struct workload_spec *w)
{
	/* The first five apply to a trace only. */
	static const char *const keys[] = { "format", "procs", "overrun",
					    "drop_invalid", "lenient", "trace",
					    "generate", "limit", "window",
					    "load_scale" };
	const cJSON *f[ARRAY_SIZE(keys)];
	struct trace_opts *o = &w->opts;
	const char *trace = NULL;
	int e, rc;
	size_t m = jp_key(c, "workload");

	rc = obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (rc)
		goto out;
	if (f[5] && f[6]) {
		rc = fail(c, "give either 'trace' or 'generate', not both");
		goto out;
	}
	if (!f[5] && !f[6]) {
		rc = fail(c, "missing key 'trace' or 'generate'");
		goto out;
	}
	trace_opts_default(o);
	o->format = TRACE_SWF;
	o->procs = PROCS_ALLOCATED;
	o->overrun = OVERRUN_CLIP;
	o->drop_invalid = true;
	o->lenient = false;
	o->limit = 0;
	o->window_start = SIM_TIME_NONE;
	o->window_end = SIM_TIME_NONE;
	o->load_scale = 1;
	if (f[6]) {
		for (size_t i = 0; i < 5; i++) {
			if (f[i]) {
				size_t mk = jp_key(c, keys[i]);
				rc = fail(c, "applies to a trace only (not "
					  "with 'generate')");
				jp_pop(c, mk);
				goto out;
			}
		}
		w->generated = true;
		w->name = xstrdup("generated");
		rc = parse_generate(c, f[6], &w->gen);
	} else {
		rc = get_string(c, "trace", f[5], &trace);
		if (rc)
			goto out;
		w->trace = path_join(c->dir, trace);
		w->name = xstrdup(base_name(trace));
		if (ends_with(trace, ".csv") || ends_with(trace, ".csv.gz"))
			o->format = TRACE_CSV;
		e = (int)o->format;
		rc = get_enum(c, "format", f[0], format_names,
			      ARRAY_SIZE(format_names), &e);
		o->format = (enum trace_format)e;
		e = (int)o->procs;
		if (!rc)
			rc = get_enum(c, "procs", f[1], procs_names,
				      ARRAY_SIZE(procs_names), &e);
		o->procs = (enum procs_field)e;
		e = (int)o->overrun;
		if (!rc)
			rc = get_enum(c, "overrun", f[2], overrun_names,
				      ARRAY_SIZE(overrun_names), &e);
		o->overrun = (enum overrun_mode)e;
		if (!rc)
			rc = get_bool(c, "drop_invalid", f[3],
				      &o->drop_invalid);
		if (!rc)
			rc = get_bool(c, "lenient", f[4], &o->lenient);
	}
	if (!rc)
		rc = get_uint(c, "limit", f[7], 0, UINT64_MAX, &o->limit);
	if (!rc && f[8])
		rc = parse_window(c, f[8], o);
	if (!rc)
		rc = get_number(c, "load_scale", f[9], 0, true,
				&o->load_scale);
out:
	jp_pop(c, m);
	return rc;
}

/* ---- policies --------------------------------------------------------- */

static int parse_params(struct ctx *c, const cJSON *v, struct policy_spec *p)
{
	size_t m = jp_key(c, "params"), i = 0;
	int rc = 0;
	if (!cJSON_IsObject(v)) {
		rc = fail_type(c, "an object", v);
		goto out;
	}
	p->params = xcalloc((size_t)cJSON_GetArraySize(v) + 1,
			    sizeof(*p->params));
	for (const cJSON *it = v->child; it; it = it->next, i++) {
		for (size_t j = 0; j < i; j++) {
			if (strcmp(p->params[j].key, it->string) == 0) {
				rc = fail(c, "duplicate key '%s'", it->string);
				goto out;
			}
		}
		struct param_value *pv = &p->params[p->nparams++];
		size_t mk = jp_key(c, it->string);
		pv->key = xstrdup(it->string);
		pv->json_path = xstrdup(c->jp);
		if (cJSON_IsNumber(it) && isfinite(it->valuedouble)) {
			pv->type = PV_NUMBER;
			pv->num = it->valuedouble;
		} else if (cJSON_IsBool(it)) {
			pv->type = PV_BOOL;
			pv->b = cJSON_IsTrue(it);
		} else if (cJSON_IsString(it)) {
			pv->type = PV_STRING;
			pv->str = xstrdup(it->valuestring);
		} else if (cJSON_IsNumber(it)) {
			rc = fail(c, "expected a finite number");
		} else {
			rc = fail_type(c, "a number, boolean or string", it);
		}
		jp_pop(c, mk);
		if (rc)
			goto out;
	}
out:
	jp_pop(c, m);
	return rc;
}

static int parse_policy(struct ctx *c, const cJSON *v, struct policy_spec *p)
{
	static const char *const keys[] = { "name", "label", "params" };
	const cJSON *f[ARRAY_SIZE(keys)];
	const char *name = NULL, *label = NULL;
	char shown[80];
	int rc;

	p->json_path = xstrdup(c->jp);
	if (cJSON_IsString(v)) {
		rc = get_string(c, NULL, v, &name);
		f[1] = f[2] = NULL;
	} else if (cJSON_IsObject(v)) {
		rc = obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
		if (!rc)
			rc = require(c, f[0], "name");
		if (!rc)
			rc = get_string(c, "name", f[0], &name);
		if (!rc)
			rc = get_string(c, "label", f[1], &label);
	} else {
		rc = fail_type(c, "a policy name or an object", v);
	}
	if (rc)
		return rc;
	/* A plug-in given by its file: resolved like every path; its
	 * default label is the file's stem. */
	if (ends_with(name, ".so")) {
		p->name = path_join(c->dir, name);
		p->label = label ? xstrdup(label) : stem(name);
	} else {
		p->name = xstrdup(name);
		p->label = xstrdup(label ? label : name);
	}
	if (!label_ok(p->label)) {
		size_t m = f[1] ? jp_key(c, "label") : c->jplen;
		cJSON tmp = { .type = cJSON_String, .valuestring = p->label };
		show(&tmp, shown, sizeof(shown));
		rc = fail(c, "invalid label '%s': only letters, digits, '_', "
			  "'.', '+' and '-' (it names a folder)%s", shown,
			  f[1] ? "" : "; give a \"label\"");
		jp_pop(c, m);
		return rc;
	}
	return f[2] ? parse_params(c, f[2], p) : 0;
}

static int parse_policies(struct ctx *c, const cJSON *v,
			  struct experiment *e)
{
	size_t m = jp_key(c, "policies"), i = 0;
	int rc = 0;
	if (!cJSON_IsArray(v)) {
		rc = fail_type(c, "an array", v);
		goto out;
	}
	if (!v->child) {
		rc = fail(c, "must not be empty");
		goto out;
	}
	e->policies = xcalloc((size_t)cJSON_GetArraySize(v),
			      sizeof(*e->policies));
	for (const cJSON *it = v->child; it; it = it->next, i++) {
		struct policy_spec *p = &e->policies[e->npolicies++];
		size_t mi = jp_index(c, i);
		rc = parse_policy(c, it, p);
		for (size_t j = 0; j < i && !rc; j++) {
			if (strcmp(e->policies[j].label, p->label) != 0)
				continue;
			bool explicit = cJSON_IsObject(it) &&
				cJSON_GetObjectItemCaseSensitive(it, "label");
			size_t ml = explicit ? jp_key(c, "label") : c->jplen;
			rc = fail(c, "duplicate label '%s' (also %s)", p->label,
				  e->policies[j].json_path);
			jp_pop(c, ml);
		}
		jp_pop(c, mi);
		if (rc)
			goto out;
	}
out:
	jp_pop(c, m);
	return rc;
}

/* ---- the rest --------------------------------------------------------- */

static int parse_seeds(struct ctx *c, const cJSON *v, struct experiment *e)
{
	size_t m = jp_key(c, "seeds"), i = 0;
	int rc = 0;
	if (!cJSON_IsArray(v)) {
		rc = fail_type(c, "an array", v);
		goto out;
	}
	if (!v->child) {
		rc = fail(c, "must not be empty");
		goto out;
	}
	free(e->seeds);
	e->nseeds = 0;
	e->seeds = xcalloc((size_t)cJSON_GetArraySize(v), sizeof(*e->seeds));
	for (const cJSON *it = v->child; it; it = it->next, i++) {
		size_t mi = jp_index(c, i);
		uint64_t s = 0;
		rc = get_uint(c, NULL, it, 0, UINT64_MAX, &s);
		for (size_t j = 0; j < i && !rc; j++)
			if (e->seeds[j] == s)
				rc = fail(c, "duplicate seed '%llu' (also "
					  "$.seeds[%zu])",
					  (unsigned long long)s, j);
		jp_pop(c, mi);
		if (rc)
			goto out;
		e->seeds[e->nseeds++] = s;
	}
out:
	jp_pop(c, m);
	return rc;
}

static int parse_plugins(struct ctx *c, const cJSON *v, struct experiment *e)
{
	size_t m = jp_key(c, "plugins"), i = 0;
	int rc = 0;
	if (!cJSON_IsArray(v)) {
		rc = fail_type(c, "an array", v);
		goto out;
	}
	e->plugins = xcalloc((size_t)cJSON_GetArraySize(v) + 1,
			     sizeof(*e->plugins));
	for (const cJSON *it = v->child; it; it = it->next, i++) {
		size_t mi = jp_index(c, i);
		rc = get_path(c, NULL, it, &e->plugins[i]);
		jp_pop(c, mi);
		if (rc)
			goto out;
		e->nplugins++;
	}
out:
	jp_pop(c, m);
	return rc;
}

static int parse_root(struct ctx *c, const cJSON *root, struct experiment *e)
{
	static const char *const keys[] = {
		"name", "cluster", "workload", "policies", "seeds", "output",
		"plugins", "timeline_interval", "bounded_slowdown_tau", "check",
	};
	const cJSON *f[ARRAY_SIZE(keys)];
	const char *name = NULL;
	int rc = obj_fields(c, root, keys, ARRAY_SIZE(keys), f);
	for (size_t i = 1; i <= 3 && !rc; i++)
		rc = require(c, f[i], keys[i]);
	if (!rc)
		rc = get_string(c, "name", f[0], &name);
	if (!rc && name && strchr(name, '/')) {
		size_t m = jp_key(c, "name");
		rc = fail(c, "must not contain '/', got '%s'", name);
		jp_pop(c, m);
	}
	if (rc)
		return rc;
	e->name = name ? xstrdup(name) : stem(e->path);

	rc = parse_cluster(c, f[1], e);
	if (!rc)
		rc = parse_workload(c, f[2], &e->workload);
	if (!rc && e->cluster_from_trace && e->workload.generated) {
		size_t m = jp_key(c, "cluster");
		rc = fail(c, "'from_trace' needs a trace, not a generated "
			  "workload");
		jp_pop(c, m);
	}
	if (!rc)
		rc = parse_policies(c, f[3], e);
	if (!rc && f[4])
		rc = parse_seeds(c, f[4], e);
	if (!rc && !f[4]) {
		e->seeds = xmalloc(sizeof(*e->seeds));
		e->seeds[0] = 1;
		e->nseeds = 1;
	}
	if (!rc)
		rc = get_path(c, "output", f[5], &e->output);
	if (!rc && !e->output)
		e->output = xasprintf("results/%s", e->name);
	if (!rc && f[6])
		rc = parse_plugins(c, f[6], e);
	e->timeline_interval = 0;
	e->bsld_tau = 10 * SIM_SEC;
	if (!rc)
		rc = get_seconds(c, "timeline_interval", f[7], 0, false,
				 &e->timeline_interval);
	if (!rc)
		rc = get_seconds(c, "bounded_slowdown_tau", f[8], 0, true,
				 &e->bsld_tau);
	if (!rc)
		rc = get_bool(c, "check", f[9], &e->check);
	return rc;
}

/* ---- the resolved configuration --------------------------------------- */

static cJSON *jnew(cJSON *j)
{
	if (!j)
		SIM_BUG("out of memory building JSON");
	return j;
}

static void jadd(cJSON *obj, const char *key, cJSON *item)
{
	if (!cJSON_AddItemToObject(obj, key, jnew(item)))
		SIM_BUG("out of memory building JSON");
}

static void jpush(cJSON *arr, cJSON *item)
{
	if (!cJSON_AddItemToArray(arr, jnew(item)))
		SIM_BUG("out of memory building JSON");
}

static cJSON *jstr(const char *s)
{
	return jnew(cJSON_CreateString(s));
}

static cJSON *jnum(double v)
{
	return jnew(cJSON_CreateNumber(v));
}

static cJSON *jsec(sim_time_t t)
{
	return jnum((double)t / SIM_SEC);
}

static cJSON *dist_json(const struct dist *d)
{
	const struct dist_desc *dd = &dist_descs[d->kind];
	cJSON *o = jnew(cJSON_CreateObject());
	jadd(o, "dist", jstr(dd->name));
	if (d->kind == DIST_DISCRETE) {
		cJSON *vals = jnew(cJSON_CreateArray());
		cJSON *wts = jnew(cJSON_CreateArray());
		for (size_t i = 0; i < d->nvalues; i++) {
			jpush(vals, jnum(d->values[i]));
			jpush(wts, jnum(d->weights[i]));
		}
		jadd(o, "values", vals);
		jadd(o, "weights", wts);
	}
	for (size_t i = 0; i < dd->np; i++)
		jadd(o, dd->params[i], jnum(d->p[i]));
	return o;
}

static cJSON *cluster_json(const struct experiment *e)
{
	cJSON *o = jnew(cJSON_CreateObject());
	if (e->cluster_from_trace) {
		jadd(o, "from_trace", jnew(cJSON_CreateTrue()));
	} else {
		cJSON *nodes = jnew(cJSON_CreateArray());
		for (size_t i = 0; i < e->cluster.ngroups; i++) {
			const struct node_group *g = &e->cluster.groups[i];
			cJSON *n = jnew(cJSON_CreateObject());
			jadd(n, "name", jstr(g->name));
			jadd(n, "count", jnum(g->count));
			jadd(n, "cpus", jnum(g->cpus));
			jadd(n, "gpus", jnum(g->gpus));
			jadd(n, "mem_gb", jnum((double)g->mem_mb / 1024));
			jpush(nodes, n);
		}
		jadd(o, "nodes", nodes);
	}
	jadd(o, "exclusive", jnew(cJSON_CreateBool(e->cluster.exclusive)));
	return o;
}

static cJSON *workload_json(const struct workload_spec *w)
{
	const struct trace_opts *o = &w->opts;
	cJSON *j = jnew(cJSON_CreateObject());
	if (w->generated) {
		const struct gen_spec *g = &w->gen;
		cJSON *gj = jnew(cJSON_CreateObject());
		jadd(gj, "jobs", jnum((double)g->jobs));
		jadd(gj, "interarrival", dist_json(&g->interarrival));
		jadd(gj, "runtime", dist_json(&g->runtime));
		jadd(gj, "cpus", dist_json(&g->cpus));
		jadd(gj, "estimate_factor", dist_json(&g->estimate_factor));
		jadd(gj, "users", jnum(g->users));
		jadd(gj, "max_cpus", jnum(g->max_cpus));
		jadd(j, "generate", gj);
	} else {
		jadd(j, "trace", jstr(w->trace));
		jadd(j, "format", jstr(format_names[o->format]));
		jadd(j, "procs", jstr(procs_names[o->procs]));
		jadd(j, "overrun", jstr(overrun_names[o->overrun]));
		jadd(j, "drop_invalid",
		     jnew(cJSON_CreateBool(o->drop_invalid)));
		jadd(j, "lenient", jnew(cJSON_CreateBool(o->lenient)));
	}
	jadd(j, "limit", jnum((double)o->limit));
	cJSON *win = jnew(cJSON_CreateObject());
	if (o->window_start != SIM_TIME_NONE)
		jadd(win, "start", jsec(o->window_start));
	if (o->window_end != SIM_TIME_NONE)
		jadd(win, "end", jsec(o->window_end));
	jadd(j, "window", win);
	jadd(j, "load_scale", jnum(o->load_scale));
	return j;
}

static cJSON *policy_json(const struct policy_spec *p)
{
	cJSON *o = jnew(cJSON_CreateObject());
	cJSON *params = jnew(cJSON_CreateObject());
	jadd(o, "name", jstr(p->name));
	jadd(o, "label", jstr(p->label));
	for (size_t i = 0; i < p->nparams; i++) {
		const struct param_value *v = &p->params[i];
		cJSON *pv = v->type == PV_NUMBER ? jnum(v->num) :
			    v->type == PV_BOOL ? cJSON_CreateBool(v->b) :
			    jstr(v->str);
		jadd(params, v->key, pv);
	}
	jadd(o, "params", params);
	return o;
}

/* Every key in schema order, every default filled in. */
static char *resolved_json(const struct experiment *e)
{
	cJSON *root = jnew(cJSON_CreateObject());
	cJSON *arr;
	jadd(root, "name", jstr(e->name));
	jadd(root, "cluster", cluster_json(e));
	jadd(root, "workload", workload_json(&e->workload));
	arr = jnew(cJSON_CreateArray());
	for (size_t i = 0; i < e->npolicies; i++)
		jpush(arr, policy_json(&e->policies[i]));
	jadd(root, "policies", arr);
	arr = jnew(cJSON_CreateArray());
	for (size_t i = 0; i < e->nseeds; i++)
		jpush(arr, jnum((double)e->seeds[i]));
	jadd(root, "seeds", arr);
	jadd(root, "output", jstr(e->output));
	arr = jnew(cJSON_CreateArray());
	for (size_t i = 0; i < e->nplugins; i++)
		jpush(arr, jstr(e->plugins[i]));
	jadd(root, "plugins", arr);
	jadd(root, "timeline_interval", jsec(e->timeline_interval));
	jadd(root, "bounded_slowdown_tau", jsec(e->bsld_tau));
	jadd(root, "check", jnew(cJSON_CreateBool(e->check)));
	char *s = cJSON_Print(root);
	if (!s)
		SIM_BUG("out of memory printing JSON");
	char *out = xstrdup(s);
	cJSON_free(s);
	cJSON_Delete(root);
	return out;
}

/* ---- entry points ----------------------------------------------------- */

static int exp_parse_len(const char *text, size_t len, const char *path,
			 struct experiment *e, struct sim_error *err)
{
	struct ctx c;
	cJSON *root = NULL;
	char *dir = path_dirname(path);
	int rc;

	memset(e, 0, sizeof(*e));
	e->path = xstrdup(path);
	e->bsld_tau = 10 * SIM_SEC;
	e->workload.opts.window_start = SIM_TIME_NONE;
	e->workload.opts.window_end = SIM_TIME_NONE;
	ctx_init(&c, path, dir, err);
	rc = parse_json(text, len, path, &root, err);
	if (!rc)
		rc = parse_root(&c, root, e);
	if (!rc)
		e->resolved_json = resolved_json(e);
	cJSON_Delete(root);
	ctx_release(&c);
	free(dir);
	if (rc)
		exp_release(e);
	return rc;
}

int exp_parse(const char *text, const char *path, struct experiment *e,
	      struct sim_error *err)
{
	return exp_parse_len(text, strlen(text), path, e, err);
}

int exp_load(const char *path, struct experiment *e, struct sim_error *err)
{
	char *text = NULL;
	const char *what;
	size_t len = 0;
	int en = read_text(path, &text, &len, &what);
	if (en) {
		memset(e, 0, sizeof(*e));
		return err_setc(err, -SIM_EIO, "%s: cannot %s: %s", path, what,
				strerror(en));
	}
	int rc = exp_parse_len(text, len, path, e, err);
	free(text);
	return rc;
}

static void policy_spec_release(struct policy_spec *p)
{
	for (size_t i = 0; i < p->nparams; i++) {
		free(p->params[i].key);
		free(p->params[i].json_path);
		free(p->params[i].str);
	}
	free(p->params);
	free(p->name);
	free(p->label);
	free(p->json_path);
}

void exp_release(struct experiment *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->name);
	cluster_spec_release(&e->cluster);
	free(e->workload.trace);
	free(e->workload.name);
	gen_spec_release(&e->workload.gen);
	for (size_t i = 0; i < e->npolicies; i++)
		policy_spec_release(&e->policies[i]);
	free(e->policies);
	free(e->seeds);
	free(e->output);
	for (size_t i = 0; i < e->nplugins; i++)
		free(e->plugins[i]);
	free(e->plugins);
	free(e->resolved_json);
	memset(e, 0, sizeof(*e));
}
