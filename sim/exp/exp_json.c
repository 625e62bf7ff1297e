/*
 * Typed reading of the experiment file's JSON: the JSON path of the value
 * being read, type and range checks, "did you mean" for mistyped keys, and
 * reading and parsing the file itself.
 *
 * Kept apart from the schema (exp.c) so that every message is worded in
 * one place: "FILE: $.json.path: message", lowercase, the offending value
 * quoted and cut to 60 characters, so that a typo never silently falls
 * back to a default and a user can find the value they got wrong.
 */
#include "exp/exp_json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"

void exp_ctx_init(struct exp_ctx *c, const char *file, const char *dir,
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

void exp_ctx_release(struct exp_ctx *c)
{
	free(c->jp);
	c->jp = NULL;
}

/* ---- the JSON path ---------------------------------------------------- */

/* Appends text to the JSON path; returns the old length. */
static size_t jp_append(struct exp_ctx *c, const char *s)
{
	size_t old = c->jplen, n = strlen(s);
	xgrow(&c->jp, &c->jpcap, old + n + 1, 1);
	memcpy(c->jp + old, s, n + 1);
	c->jplen = old + n;
	return old;
}

size_t exp_jp_key(struct exp_ctx *c, const char *key)
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

size_t exp_jp_index(struct exp_ctx *c, size_t i)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "[%zu]", i);
	return jp_append(c, buf);
}

void exp_jp_pop(struct exp_ctx *c, size_t len)
{
	c->jplen = len;
	c->jp[len] = '\0';
}

/* ---- messages --------------------------------------------------------- */

int exp_fail(struct exp_ctx *c, const char *key, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	size_t m = key ? exp_jp_key(c, key) : c->jplen;
	int rc = err_set(c->err, "%s: %s: %s", c->file, c->jp, msg);
	exp_jp_pop(c, m);
	return rc;
}

/* Shortest decimal that reads back as v. */
static void fmt_num(char *buf, size_t n, double v)
{
	snprintf(buf, n, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, n, "%.17g", v);
}

void exp_show_str(const char *s, char *buf)
{
	if (strlen(s) > 60)
		snprintf(buf, EXP_SHOW_MAX, "%.57s...", s);
	else
		snprintf(buf, EXP_SHOW_MAX, "%s", s);
}

void exp_show(const cJSON *v, char *buf)
{
	if (cJSON_IsString(v)) {
		exp_show_str(v->valuestring, buf);
	} else if (cJSON_IsNumber(v)) {
		fmt_num(buf, EXP_SHOW_MAX, v->valuedouble);
	} else {
		char *s = cJSON_PrintUnformatted(v);
		exp_show_str(s ? s : "?", buf);
		cJSON_free(s);
	}
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

int exp_fail_type(struct exp_ctx *c, const char *key, const char *want,
		  const cJSON *v)
{
	return exp_fail(c, key, "expected %s, got %s", want, type_name(v));
}

size_t exp_edit_distance(const char *a, const char *b)
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

static int fail_unknown_key(struct exp_ctx *c, const char *key,
			    const char *const *keys, size_t nkeys)
{
	char shown[EXP_SHOW_MAX], list[512];
	size_t best = SIZE_MAX, besti = 0;
	for (size_t i = 0; i < nkeys; i++) {
		size_t d = exp_edit_distance(key, keys[i]);
		if (d < best) {
			best = d;
			besti = i;
		}
	}
	exp_show_str(key, shown);
	if (best <= 2 && best < strlen(key))
		return exp_fail(c, NULL, "unknown key '%s' (did you mean "
				"'%s'?)", shown, keys[besti]);
	list_names(keys, nkeys, list, sizeof(list));
	return exp_fail(c, NULL, "unknown key '%s' (expected %s)", shown,
			list);
}

/* ---- objects and arrays ----------------------------------------------- */

int exp_obj_fields(struct exp_ctx *c, const cJSON *v,
		   const char *const *keys, size_t nkeys, const cJSON **out)
{
	if (!cJSON_IsObject(v))
		return exp_fail_type(c, NULL, "an object", v);
	for (size_t i = 0; i < nkeys; i++)
		out[i] = NULL;
	for (const cJSON *it = v->child; it; it = it->next) {
		size_t i = 0;
		while (i < nkeys && strcmp(it->string, keys[i]) != 0)
			i++;
		if (i == nkeys)
			return fail_unknown_key(c, it->string, keys, nkeys);
		if (out[i])
			return exp_fail(c, NULL, "duplicate key '%s'", keys[i]);
		out[i] = it;
	}
	return 0;
}

int exp_require(struct exp_ctx *c, const cJSON *v, const char *key)
{
	return v ? 0 : exp_fail(c, NULL, "missing key '%s'", key);
}

int exp_get_name(struct exp_ctx *c, const cJSON *v, char **out)
{
	const char *name = NULL;
	int rc = exp_require(c, v, "name");
	if (!rc)
		rc = exp_get_string(c, "name", v, &name);
	if (!rc)
		*out = xstrdup(name);
	return rc;
}

int exp_array(struct exp_ctx *c, const cJSON *v, const char *want,
	      bool nonempty, size_t *n)
{
	if (!cJSON_IsArray(v))
		return exp_fail_type(c, NULL, want, v);
	*n = (size_t)cJSON_GetArraySize(v);
	if (nonempty && *n == 0)
		return exp_fail(c, NULL, "must not be empty");
	return 0;
}

/* ---- values ----------------------------------------------------------- */

int exp_get_bool(struct exp_ctx *c, const char *key, const cJSON *v,
		 bool *out)
{
	if (!v)
		return 0;
	if (!cJSON_IsBool(v))
		return exp_fail_type(c, key, "a boolean", v);
	*out = cJSON_IsTrue(v);
	return 0;
}

int exp_get_string(struct exp_ctx *c, const char *key, const cJSON *v,
		   const char **out)
{
	if (!v)
		return 0;
	if (!cJSON_IsString(v))
		return exp_fail_type(c, key, "a string", v);
	if (!v->valuestring[0])
		return exp_fail(c, key, "must not be empty");
	*out = v->valuestring;
	return 0;
}

int exp_get_number_in(struct exp_ctx *c, const char *key, const cJSON *v,
		      double min, bool min_excl, double max, double *out)
{
	char shown[EXP_SHOW_MAX], lim[40];
	if (!v)
		return 0;
	if (!cJSON_IsNumber(v))
		return exp_fail_type(c, key, "a number", v);
	if (!isfinite(v->valuedouble))
		return exp_fail(c, key, "expected a finite number");
	exp_show(v, shown);
	if (min > 0 && v->valuedouble <= 0)
		return exp_fail(c, key, "must be > 0, got '%s'", shown);
	if (v->valuedouble < min || (min_excl && v->valuedouble == min)) {
		fmt_num(lim, sizeof(lim), min);
		return exp_fail(c, key, "must be %s %s, got '%s'",
				min_excl ? ">" : ">=", lim, shown);
	}
	if (v->valuedouble > max) {
		fmt_num(lim, sizeof(lim), max);
		return exp_fail(c, key, "must be <= %s, got '%s'", lim, shown);
	}
	*out = v->valuedouble;
	return 0;
}

int exp_get_number(struct exp_ctx *c, const char *key, const cJSON *v,
		   double min, bool min_excl, double *out)
{
	return exp_get_number_in(c, key, v, min, min_excl, INFINITY, out);
}

int exp_get_uint(struct exp_ctx *c, const char *key, const cJSON *v,
		 uint64_t min, uint64_t max, uint64_t *out)
{
	const uint64_t top = (uint64_t)EXP_INT_MAX;
	unsigned long long hi = max < top ? max : top;
	char shown[EXP_SHOW_MAX];
	if (!v)
		return 0;
	if (!cJSON_IsNumber(v))
		return exp_fail_type(c, key, "an integer", v);
	double d = v->valuedouble;
	exp_show(v, shown);
	if (!isfinite(d) || d != floor(d))
		return exp_fail(c, key, "expected an integer, got '%s'", shown);
	if (d < (double)min && min == 1)
		return exp_fail(c, key, "must be > 0, got '%s'", shown);
	if (d < (double)min)
		return exp_fail(c, key, "must be >= %llu, got '%s'",
				(unsigned long long)min, shown);
	if (d > (double)hi)
		return exp_fail(c, key, "must be <= %llu, got '%s'", hi,
				shown);
	*out = (uint64_t)d;
	return 0;
}

int exp_get_u32(struct exp_ctx *c, const char *key, const cJSON *v,
		uint32_t min, uint32_t *out)
{
	uint64_t u = *out;
	int rc = exp_get_uint(c, key, v, min, UINT32_MAX, &u);
	*out = (uint32_t)u;
	return rc;
}

int exp_get_seconds(struct exp_ctx *c, const char *key, const cJSON *v,
		    double min, bool min_excl, sim_time_t *out)
{
	char shown[EXP_SHOW_MAX];
	double s = 0;
	int rc = exp_get_number(c, key, v, min, min_excl, &s);
	if (rc || !v)
		return rc;
	exp_show(v, shown);
	if (seconds_to_time(s, out) < 0 || *out > SIM_TIME_INPUT_MAX ||
	    *out < -SIM_TIME_INPUT_MAX)
		return exp_fail(c, key, "out of the clock's input range (at "
				"most 9007199254 s, 2^53 microseconds), got "
				"'%s'", shown);
	if (min_excl && min == 0 && *out <= 0)
		return exp_fail(c, key, "must be at least 1 microsecond, got "
				"'%s'", shown);
	return 0;
}

int exp_get_enum(struct exp_ctx *c, const char *key, const cJSON *v,
		 const char *const *names, size_t n, int *out)
{
	char shown[EXP_SHOW_MAX], list[256];
	const char *s = NULL;
	int rc = exp_get_string(c, key, v, &s);
	if (rc || !s)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	}
	exp_show(v, shown);
	list_names(names, n, list, sizeof(list));
	return exp_fail(c, key, "unknown value '%s' (expected %s)", shown,
			list);
}

int exp_get_numbers(struct exp_ctx *c, const char *key, const cJSON *v,
		    double **out, size_t *n)
{
	size_t m = exp_jp_key(c, key), i = 0;
	int rc = exp_array(c, v, "an array of numbers", true, n);
	if (rc)
		goto out;
	*out = xcalloc(*n, sizeof(**out));
	for (const cJSON *it = v->child; it && !rc; it = it->next, i++) {
		size_t mi = exp_jp_index(c, i);
		rc = exp_get_number(c, NULL, it, -INFINITY, false, &(*out)[i]);
		exp_jp_pop(c, mi);
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

int exp_get_path(struct exp_ctx *c, const char *key, const cJSON *v,
		 char **out)
{
	const char *s = NULL;
	int rc = exp_get_string(c, key, v, &s);
	/* A path reaches generated scripts (plots, Slurm): one line each. */
	if (!rc && s && str_has_control(s))
		rc = exp_fail(c, key, "must not contain a control character "
			      "(a newline, a tab)");
	if (!rc && s) {
		free(*out);
		*out = input_trace_path(c->dir, s);
	}
	return rc;
}

/* ---- files ------------------------------------------------------------ */

int exp_read_text(const char *path, uint64_t max_bytes, char **out,
		  size_t *len, char *sha256, struct sim_error *err)
{
	struct input_opts io = { .max_bytes = max_bytes };
	return input_slurp(path, &io, out, len, sha256, err);
}

static int line_of(const char *text, const char *at)
{
	int line = 1;
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

int exp_parse_json(const char *text, size_t len, const char *file,
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
