/*
 * Sweep expansion: the "sweep" object of an experiment file, its points,
 * run labels and the sweep manifest (see sweep.h).
 *
 * An axis is a JSON path into the file ("workload.load_scale",
 * "cluster.nodes[0].count", "policies[1].params.window") and a non-empty
 * array of values.  A point writes one value of every axis into a copy of
 * the tree (creating a missing object key, so a default can be swept) and
 * hands the text to the experiment loader: a bad value is reported like a
 * hand-written one, at its own path, with the point named.  Points are
 * numbered like an odometer over the axes in file order, the last axis
 * fastest; runs are point-major, then policy, then seed.  This order is
 * the order of summary.csv whatever driver ran them.
 */
#include "sweep/sweep.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "exp/exp.h"
#include "exp/exp_json.h"
#include "run/runner.h"
#include "base/outdir.h"
#include "base/util.h"
#include "base/version.h"

/* Root keys an axis may not change: they define the run set itself. */
static const char *const fixed_keys[] = { "sweep", "seeds", "output",
					  "name", "plugins" };

/* ---- axis paths ------------------------------------------------------- */

/* One step of a path: a key or an array index. */
struct step {
	char *key;      /* NULL for an index */
	size_t index;
};

/* Splits "a.b[2].c" (an optional "$." first) into steps; -1 when it is
 * not a path. */
static int split_path(const char *p, struct step **out, size_t *nout)
{
	struct step *v = NULL;
	size_t n = 0, cap = 0;
	if (p[0] == '$' && p[1] == '.')
		p += 2;
	while (*p) {
		xgrow(&v, &cap, n + 1, sizeof(*v));
		if (*p == '[') {
			char *end;
			errno = 0;
			unsigned long long i = strtoull(p + 1, &end, 10);
			if (end == p + 1 || *end != ']' || errno ||
			    p[1] == '-' || p[1] == '+')
				goto bad;
			v[n].key = NULL;
			v[n++].index = (size_t)i;
			p = end + 1;
		} else {
			size_t k = strcspn(p, ".[");
			if (k == 0)
				goto bad;
			v[n].key = xasprintf("%.*s", (int)k, p);
			v[n++].index = 0;
			p += k;
		}
		if (*p == '.') {
			p++;
			if (!*p || *p == '.' || *p == '[')
				goto bad;
		} else if (*p && *p != '[') {
			goto bad;
		}
	}
	if (n == 0 || !v[0].key)
		goto bad;
	*out = v;
	*nout = n;
	return 0;
bad:
	for (size_t i = 0; i < n; i++)
		free(v[i].key);
	free(v);
	return -1;
}

static void free_steps(struct step *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].key);
	free(s);
}

/* "$.a.b[2]" for the first n steps, for messages; the caller frees. */
static char *steps_text(const struct step *s, size_t n)
{
	char *t = xstrdup("$");
	for (size_t i = 0; i < n; i++) {
		char *u = s[i].key ? xasprintf("%s.%s", t, s[i].key)
				   : xasprintf("%s[%zu]", t, s[i].index);
		free(t);
		t = u;
	}
	return t;
}

/*
 * Writes a copy of val at the path in root.  A missing object key is
 * created (an object when more steps follow); an index must exist.
 * Returns 0, or -1 with what is wrong in *why (the caller frees).
 */
static int set_path(cJSON *root, const struct step *s, size_t n,
		    const cJSON *val, char **why)
{
	cJSON *cur = root;
	for (size_t i = 0; i < n; i++) {
		bool last = i + 1 == n;
		cJSON *next;
		if (s[i].key) {
			if (!cJSON_IsObject(cur)) {
				char *at = steps_text(s, i);
				*why = xasprintf("'%s' is not an object", at);
				free(at);
				return -1;
			}
			next = cJSON_GetObjectItemCaseSensitive(cur, s[i].key);
			if (last) {
				cJSON *copy = cJSON_Duplicate(val, true);
				if (next)
					cJSON_ReplaceItemInObjectCaseSensitive(
						cur, s[i].key, copy);
				else
					cJSON_AddItemToObject(cur, s[i].key,
							      copy);
				return 0;
			}
			if (!next) {
				if (!s[i + 1].key) {
					char *at = steps_text(s, i + 1);
					*why = xasprintf("'%s' is not in the "
							 "file", at);
					free(at);
					return -1;
				}
				next = cJSON_AddObjectToObject(cur, s[i].key);
			}
		} else {
			if (!cJSON_IsArray(cur) ||
			    s[i].index >= (size_t)cJSON_GetArraySize(cur)) {
				char *at = steps_text(s, i + 1);
				*why = xasprintf("'%s' is not in the file", at);
				free(at);
				return -1;
			}
			next = cJSON_GetArrayItem(cur, (int)s[i].index);
			if (last) {
				cJSON_ReplaceItemViaPointer(
					cur, next, cJSON_Duplicate(val, true));
				return 0;
			}
		}
		cur = next;
	}
	return 0;
}

/* ---- labels ----------------------------------------------------------- */

/* A number's shortest text that reads back the same: of the %g forms
 * of every precision that do, the shortest, the lowest precision on a
 * tie (7680, not 7.68e+03, which also reads back). */
static char *number_text(double d)
{
	char *best = NULL;
	for (int prec = 1; prec <= 17; prec++) {
		char *t = xasprintf("%.*g", prec, d);
		if (strtod(t, NULL) == d &&
		    (!best || strlen(t) < strlen(best))) {
			free(best);
			best = t;
		} else {
			free(t);
		}
	}
	return best ? best : xasprintf("%.17g", d);
}

/* A value as label text: letters, digits and "_.-" only (others become
 * '_'); an array or object is named by its position (1-based). */
static char *value_label(const cJSON *v, size_t i)
{
	char *t;
	if (cJSON_IsNumber(v))
		t = number_text(v->valuedouble);
	else if (cJSON_IsString(v))
		t = xstrdup(*v->valuestring ? v->valuestring : "empty");
	else if (cJSON_IsBool(v))
		t = xstrdup(cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsNull(v))
		t = xstrdup("null");
	else
		t = xasprintf("%zu", i + 1);
	for (char *p = t; *p; p++) {
		bool ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			  (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' ||
			  *p == '-';
		if (!ok)
			*p = '_';
	}
	return t;
}

char *sweep_value_text(const cJSON *v)
{
	if (cJSON_IsString(v))
		return xstrdup(v->valuestring);
	if (cJSON_IsNumber(v))
		return number_text(v->valuedouble);
	char *j = cJSON_PrintUnformatted(v);
	char *t = xstrdup(j);
	cJSON_free(j);
	return t;
}

/* The short name of an axis: its last key ("nodes" for a path ending in
 * an index: "nodes.0"). */
static char *short_name(const char *path)
{
	struct step *s;
	size_t n;
	if (split_path(path, &s, &n))
		return xstrdup(path);
	size_t i = n - 1;
	while (!s[i].key)
		i--;
	char *t = xstrdup(s[i].key);
	for (size_t j = i + 1; j < n; j++) {
		char *u = xasprintf("%s.%zu", t, s[j].index);
		free(t);
		t = u;
	}
	free_steps(s, n);
	return t;
}

/* The whole path as a name: "cluster.nodes.0.count". */
static char *long_name(const char *path)
{
	char *t = xmalloc(strlen(path) + 1), *q = t;
	for (const char *p = path; *p; p++) {
		if (*p == '[')
			*q++ = '.';
		else if (*p != ']')
			*q++ = *p;
	}
	*q = '\0';
	return t;
}

size_t sweep_point_value(const struct sweep *sw, size_t point, size_t a)
{
	for (size_t b = sw->naxes; b-- > a + 1;)
		point /= sw->axes[b].nvalues;
	return point % sw->axes[a].nvalues;
}

char *sweep_point_label(const struct sweep *sw, size_t point)
{
	char *t = xstrdup("");
	for (size_t a = 0; a < sw->naxes; a++) {
		const struct sweep_axis *ax = &sw->axes[a];
		char *u = xasprintf("%s%s%s=%s", t, a ? "+" : "", ax->name,
				    ax->vlabels[sweep_point_value(sw, point,
								  a)]);
		free(t);
		t = u;
	}
	return t;
}

/* ---- loading ---------------------------------------------------------- */

bool sweep_file_has_sweep(const char *path)
{
	char *text = NULL;
	size_t len;
	if (exp_read_text(path, 0, &text, &len, NULL, NULL))
		return false;
	cJSON *root = cJSON_ParseWithLength(text, len);
	bool has = cJSON_IsObject(root) &&
		   cJSON_GetObjectItemCaseSensitive(root, "sweep");
	cJSON_Delete(root);
	free(text);
	return has;
}

/* Reads "sweep" into sw->axes (c is at "$.sweep"). */
static int parse_axes(struct exp_ctx *c, const cJSON *v, struct sweep *sw)
{
	if (!cJSON_IsObject(v))
		return exp_fail_type(c, NULL, "an object", v);
	size_t n = (size_t)cJSON_GetArraySize(v);
	sw->axes = xcalloc(n, sizeof(*sw->axes));
	sw->npoints = 1;
	for (const cJSON *it = v->child; it; it = it->next) {
		struct sweep_axis *ax = &sw->axes[sw->naxes];
		const char *p = it->string;
		struct step *s;
		size_t ns, nv = 0;
		if (split_path(p, &s, &ns))
			return exp_fail(c, p, "not a JSON path (write keys "
					"with '.' and indexes as [i], e.g. "
					"'cluster.nodes[0].count')");
		bool fixed = false;
		for (size_t k = 0; k < ARRAY_SIZE(fixed_keys); k++)
			fixed |= strcmp(s[0].key, fixed_keys[k]) == 0;
		fixed |= ns == 1 && strcmp(s[0].key, "policies") == 0;
		free_steps(s, ns);
		if (fixed)
			return exp_fail(c, p, "cannot be swept (it defines "
					"the runs themselves)");
		for (size_t a = 0; a < sw->naxes; a++)
			if (!strcmp(sw->axes[a].path,
				    p + (p[0] == '$' ? 2 : 0)))
				return exp_fail(c, p, "duplicate axis");
		size_t m = exp_jp_key(c, p);
		int rc = exp_array(c, it, "an array of values", true, &nv);
		exp_jp_pop(c, m);
		if (rc)
			return rc;
		ax->path = xstrdup(p + (p[0] == '$' ? 2 : 0));
		ax->values = cJSON_Duplicate(it, true);
		ax->nvalues = nv;
		ax->vlabels = xcalloc(nv, sizeof(*ax->vlabels));
		sw->naxes++;
		size_t i = 0;
		for (const cJSON *x = it->child; x; x = x->next, i++) {
			ax->vlabels[i] = value_label(x, i);
			for (size_t j = 0; j < i; j++) {
				if (strcmp(ax->vlabels[j], ax->vlabels[i]))
					continue;
				return exp_fail(c, p, "values %zu and %zu "
						"have the same label '%s'",
						j + 1, i + 1, ax->vlabels[i]);
			}
		}
		if (sw->npoints > SIZE_MAX / nv / 1024)
			return exp_fail(c, p, "too many points");
		sw->npoints *= nv;
	}
	/* Short names, unless two axes share one: then whole paths. */
	bool *clash = xcalloc(sw->naxes + 1, sizeof(*clash));
	for (size_t a = 0; a < sw->naxes; a++)
		sw->axes[a].name = short_name(sw->axes[a].path);
	for (size_t a = 0; a < sw->naxes; a++)
		for (size_t b = 0; b < sw->naxes; b++)
			clash[a] |= a != b && !strcmp(sw->axes[a].name,
						      sw->axes[b].name);
	for (size_t a = 0; a < sw->naxes; a++) {
		if (!clash[a])
			continue;
		free(sw->axes[a].name);
		sw->axes[a].name = long_name(sw->axes[a].path);
	}
	free(clash);
	return 0;
}

char *sweep_point_json(const struct sweep *sw, size_t point,
		       struct sim_error *err)
{
	cJSON *t = cJSON_Duplicate(sw->base, true);
	char *text = NULL;
	for (size_t a = 0; a < sw->naxes; a++) {
		const struct sweep_axis *ax = &sw->axes[a];
		size_t vi = sweep_point_value(sw, point, a);
		struct step *s;
		size_t ns;
		char *why = NULL;
		SIM_ASSERT(split_path(ax->path, &s, &ns) == 0);
		int rc = set_path(t, s, ns,
				  cJSON_GetArrayItem(ax->values, (int)vi),
				  &why);
		free_steps(s, ns);
		if (rc) {
			err_set(err, "%s: $.sweep['%s']: %s", sw->path,
				ax->path, why);
			free(why);
			goto out;
		}
	}
	text = cJSON_PrintUnformatted(t);
	SIM_ASSERT(text);
out:
	cJSON_Delete(t);
	return text;
}

/* Appends " (sweep point LABEL)" to a loader message. */
static void name_point(const struct sweep *sw, size_t point,
		       struct sim_error *err)
{
	if (!err || sw->naxes == 0)
		return;
	char *label = sweep_point_label(sw, point);
	size_t n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, " (sweep point %s)",
		 label);
	free(label);
}

/* Loads every point: checks it and lists its runs. */
static int load_points(struct sweep *sw, struct sim_error *err)
{
	size_t cap = 0;
	int rc = 0;
	for (size_t p = 0; p < sw->npoints && !rc; p++) {
		struct experiment e;
		char *text = sweep_point_json(sw, p, err);
		if (!text)
			return -SIM_EINPUT;
		rc = exp_parse(text, sw->path, &e, err);
		cJSON_free(text);
		if (rc) {
			name_point(sw, p, err);
			return rc;
		}
		if (p == 0) {
			sw->name = xstrdup(e.name);
			sw->output = xstrdup(e.output);
		}
		char *pl = sweep_point_label(sw, p);
		for (size_t i = 0; i < e.npolicies; i++) {
			for (size_t k = 0; k < e.nseeds; k++) {
				xgrow(&sw->runs, &cap, sw->nruns + 1,
				      sizeof(*sw->runs));
				struct sweep_run *r = &sw->runs[sw->nruns++];
				r->label = xasprintf("%s%s%s",
						     e.policies[i].label,
						     *pl ? "+" : "", pl);
				r->dir = xasprintf("%s-s%" PRIu64, r->label,
						   e.seeds[k]);
				r->policy = xstrdup(e.policies[i].name);
				r->plabel = xstrdup(e.policies[i].label);
				r->workload = xstrdup(e.workload.name);
				r->point = p;
				r->pidx = i;
				r->seed = e.seeds[k];
			}
		}
		free(pl);
		exp_release(&e);
	}
	return rc;
}

int sweep_validate(const struct sweep *sw, const struct sweep_opts *so,
		   struct sim_error *err)
{
	for (size_t p = 0; p < sw->npoints; p++) {
		char *text = sweep_point_json(sw, p, err);
		if (!text)
			return 2;
		struct run_opts o = {
			.file = sw->path, .text = text, .plugins = so->plugins,
			.nplugins = so->nplugins, .quiet = true,
			.validate_only = true, .out = so->out, .msg = so->msg,
		};
		int code = runner_run(&o, err);
		cJSON_free(text);
		if (code) {
			name_point(sw, p, err);
			return code;
		}
	}
	return 0;
}

int sweep_load(const char *path, struct sweep *sw, struct sim_error *err)
{
	struct exp_ctx c;
	char *text = NULL, *dir = path_dirname(path);
	size_t len = 0;
	cJSON *sweep = NULL;
	int rc;

	memset(sw, 0, sizeof(*sw));
	sw->path = xstrdup(path);
	exp_ctx_init(&c, path, dir, err);
	rc = exp_read_text(path, 0, &text, &len, sw->sha256, err);
	if (rc)
		goto out;
	rc = exp_parse_json(text, len, path, &sw->base, err);
	if (rc)
		goto out;
	if (cJSON_IsObject(sw->base))
		sweep = cJSON_DetachItemFromObjectCaseSensitive(sw->base,
								"sweep");
	if (sweep) {
		size_t m = exp_jp_key(&c, "sweep");
		rc = parse_axes(&c, sweep, sw);
		exp_jp_pop(&c, m);
	} else {
		sw->npoints = 1;
	}
	if (!rc)
		rc = load_points(sw, err);
out:
	cJSON_Delete(sweep);
	exp_ctx_release(&c);
	free(text);
	free(dir);
	if (rc)
		sweep_release(sw);
	return rc;
}

void sweep_release(struct sweep *sw)
{
	if (!sw)
		return;
	for (size_t a = 0; a < sw->naxes; a++) {
		struct sweep_axis *ax = &sw->axes[a];
		for (size_t i = 0; i < ax->nvalues; i++)
			free(ax->vlabels[i]);
		free(ax->vlabels);
		cJSON_Delete(ax->values);
		free(ax->path);
		free(ax->name);
	}
	free(sw->axes);
	for (size_t i = 0; i < sw->nruns; i++) {
		free(sw->runs[i].label);
		free(sw->runs[i].dir);
		free(sw->runs[i].policy);
		free(sw->runs[i].plabel);
		free(sw->runs[i].workload);
	}
	free(sw->runs);
	cJSON_Delete(sw->base);
	free(sw->path);
	free(sw->name);
	free(sw->output);
	memset(sw, 0, sizeof(*sw));
}

/* ---- the sweep manifest ----------------------------------------------- */

int sweep_write_manifest(const struct sweep *sw, const char *outdir,
			 struct sim_error *err)
{
	/* The digest is of the bytes sweep_load() read. */
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "tool", "clustersim");
	cJSON_AddStringToObject(root, "version", CLUSTERSIM_VERSION);
	cJSON_AddStringToObject(root, "revision", version_revision());
	/* Named from its own folder, as a run's manifest names it. */
	cJSON_AddStringToObject(root, "experiment", path_basename(sw->path));
	cJSON_AddStringToObject(root, "sha256", sw->sha256);
	cJSON *axes = cJSON_AddArrayToObject(root, "sweep");
	for (size_t a = 0; a < sw->naxes; a++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "axis", sw->axes[a].path);
		cJSON_AddStringToObject(o, "name", sw->axes[a].name);
		cJSON_AddItemToObject(o, "values",
				      cJSON_Duplicate(sw->axes[a].values,
						      true));
		cJSON_AddItemToArray(axes, o);
	}
	cJSON *runs = cJSON_AddArrayToObject(root, "runs");
	for (size_t k = 0; k < sw->nruns; k++) {
		const struct sweep_run *r = &sw->runs[k];
		cJSON *o = cJSON_CreateObject();
		char seed[24];
		fmt_seed_json(seed, r->seed);
		cJSON_AddStringToObject(o, "label", r->label);
		cJSON_AddStringToObject(o, "policy", r->policy);
		cJSON_AddStringToObject(o, "policy_label", r->plabel);
		cJSON_AddStringToObject(o, "workload", r->workload);
		cJSON_AddRawToObject(o, "seed", seed);
		cJSON_AddStringToObject(o, "dir", r->dir);
		cJSON *pt = cJSON_AddArrayToObject(o, "point");
		for (size_t a = 0; a < sw->naxes; a++)
			cJSON_AddItemToArray(pt, cJSON_CreateNumber((double)
				sweep_point_value(sw, r->point, a)));
		cJSON_AddItemToArray(runs, o);
	}
	char *text = cJSON_Print(root);
	char *path = path_join(outdir, "manifest.json");
	char *full = xasprintf("%s\n", text);
	int rc = mkdir_p(outdir, err);
	if (!rc)
		rc = write_file_atomic(path, full, err);
	free(full);
	free(path);
	cJSON_free(text);
	cJSON_Delete(root);
	return rc;
}

int sweep_claim(const struct sweep *sw, const struct sweep_opts *so,
		struct outdir *od, struct sim_error *err)
{
	const char **keep = xcalloc(sw->nruns + 1, sizeof(*keep));
	for (size_t k = 0; k < sw->nruns; k++)
		keep[k] = sw->runs[k].dir;
	int rc = outdir_want(so->outdir, "summary.csv", false, err);
	if (!rc)
		rc = runner_claim(od, so->outdir, so->shard_n != 0, keep,
				  sw->nruns, so->msg, err);
	if (!rc && (rc = sweep_write_manifest(sw, so->outdir, err)))
		outdir_unlock(od);
	free(keep);
	return rc;
}

/* ---- one run ---------------------------------------------------------- */

bool sweep_in_shard(const struct sweep_opts *so, size_t k)
{
	return so->shard_n == 0 || k % so->shard_n == so->shard_i - 1;
}

int sweep_exec(const struct sweep *sw, const struct sweep_opts *so,
	       size_t k, struct sim_error *err)
{
	const struct sweep_run *r = &sw->runs[k];
	char *dir = path_join(so->outdir, r->dir);
	char *epath = path_join(dir, "error.txt");
	char *text = NULL;
	int code = 2;
	unlink(epath);
	text = sweep_point_json(sw, r->point, err);
	if (!text)
		goto fail;
	struct run_opts o = {
		.file = sw->path,
		.text = text,
		.text_sha256 = sw->sha256,
		.outdir = so->outdir,
		.plugins = so->plugins,
		.nplugins = so->nplugins,
		.quiet = true,
		.check = so->check,
		.lenient = so->lenient,
		.stats = so->stats,
		.no_plots = true,
		.one = true,
		.one_policy = r->pidx,
		.one_seed = r->seed,
		.one_label = r->label,
		.out = stdout,
		.msg = stderr,
	};
	code = runner_run_one(&o, err);
	if (code == 0 || code == SWEEP_SKIPPED)
		goto out;
	name_point(sw, r->point, err);
fail:;
	/* The error is the run's record: the driver reads it back. */
	struct sim_error e2;
	char *msg = xasprintf("%s\n", err->msg);
	if (mkdir_p(dir, &e2) == 0)
		write_file_atomic(epath, msg, &e2);
	free(msg);
out:
	cJSON_free(text);
	free(epath);
	free(dir);
	return code;
}
