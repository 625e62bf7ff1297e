/*
 * Experiment files: one JSON document that says everything needed to
 * reproduce a result (cluster, workload, policies, seeds, outputs).
 *
 * This file is the schema: the cJSON tree is checked key by key against
 * experiments/README.md (the single contract), turned into the typed
 * structs of exp.h and deleted before anything runs.  The typed reading
 * and the wording of every message ("FILE: $.json.path: message", with a
 * "did you mean" for a mistyped key) live in exp_json.c, so that a typo
 * never silently falls back to a default.  Relative paths are resolved
 * against the experiment file's folder (never canonicalised).  Finally the
 * resolved configuration, every default filled in, is printed back as
 * JSON for the results manifest (exp_resolved.c).
 */
#include "exp/exp.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp_json.h"
#include "exp/exp_schema.h"
#include "engine/sim.h"
#include "workload/gen_dl.h"
#include "speed/jobclass.h"
#include "base/util.h"

/* ---- names and paths -------------------------------------------------- */

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

/* A run label names a results folder: letters, digits and "_.+-". */
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

/* ---- workload --------------------------------------------------------- */

/* DIST at key (see experiments/README.md), then dist_check(). */
static int parse_dist(struct exp_ctx *c, const char *key, const cJSON *v,
		      struct dist *d)
{
	const char *keys[6] = { "dist" };
	const cJSON *f[6];
	const struct exp_dist_desc *dd;
	const char *names[DIST_NKINDS];
	char *prefix = NULL;
	size_t m = exp_jp_key(c, key), nkeys;
	int kind = -1, rc;

	if (!cJSON_IsObject(v)) {
		rc = exp_fail_type(c, NULL, "an object", v);
		goto out;
	}
	for (size_t i = 0; i < DIST_NKINDS; i++)
		names[i] = exp_dist_descs[i].name;
	const cJSON *kv = cJSON_GetObjectItemCaseSensitive(v, "dist");
	rc = exp_require(c, kv, "dist");
	if (!rc)
		rc = exp_get_enum(c, "dist", kv, names, DIST_NKINDS, &kind);
	if (rc)
		goto out;
	/* The keys follow from the kind: "dist" and its parameters, all
	 * required. */
	dd = &exp_dist_descs[kind];
	nkeys = 1 + (kind == DIST_DISCRETE ? 2 : dd->np);
	for (size_t i = 1; i < nkeys; i++)
		keys[i] = dd->params[i - 1];
	rc = exp_obj_fields(c, v, keys, nkeys, f);
	for (size_t i = 1; i < nkeys && !rc; i++)
		rc = exp_require(c, f[i], keys[i]);
	if (rc)
		goto out;
	d->kind = (enum dist_kind)kind;
	if (kind == DIST_DISCRETE) {
		size_t nw = 0;
		rc = exp_get_numbers(c, "values", f[1], &d->values,
				     &d->nvalues);
		if (!rc)
			rc = exp_get_numbers(c, "weights", f[2], &d->weights,
					     &nw);
		if (!rc && nw != d->nvalues)
			rc = exp_fail(c, "weights", "expected %zu weights (one "
				      "per value), got %zu", d->nvalues, nw);
	} else {
		for (size_t i = 0; i < dd->np && !rc; i++)
			rc = exp_get_number(c, keys[i + 1], f[i + 1],
					    -INFINITY, false, &d->p[i]);
	}
	if (rc)
		goto out;
	prefix = xasprintf("%s: %s", c->file, c->jp);
	rc = dist_check(d, prefix, c->err);
out:
	free(prefix);
	exp_jp_pop(c, m);
	return rc;
}

/* A DIST that replaces d (a preset's value, or nothing). */
static int parse_dist_over(struct exp_ctx *c, const char *key,
			   const cJSON *v, struct dist *d)
{
	dist_release(d);
	memset(d, 0, sizeof(*d));
	return parse_dist(c, key, v, d);
}

/* "runtime_by_gpus": an array of {"min", "max", "runtime"}. */
static int parse_buckets(struct exp_ctx *c, const cJSON *v,
			 struct gen_spec *g)
{
	static const char *const keys[] = { "min", "max", "runtime" };
	size_t m = exp_jp_key(c, "runtime_by_gpus"), n = 0, i = 0;
	char *prefix = NULL;
	int rc;

	for (i = 0; i < g->nbuckets; i++)
		dist_release(&g->runtime_by_gpus[i].runtime);
	free(g->runtime_by_gpus);
	g->runtime_by_gpus = NULL;
	g->nbuckets = 0;
	rc = exp_array(c, v, "an array of objects", false, &n);
	if (rc)
		goto out;
	g->runtime_by_gpus = xcalloc(n ? n : 1, sizeof(*g->runtime_by_gpus));
	i = 0;
	for (const cJSON *it = v->child; it && !rc; it = it->next, i++) {
		struct gen_bucket *b = &g->runtime_by_gpus[i];
		const cJSON *f[ARRAY_SIZE(keys)];
		size_t mi = exp_jp_index(c, i);
		g->nbuckets = i + 1;
		rc = exp_obj_fields(c, it, keys, ARRAY_SIZE(keys), f);
		if (!rc)
			rc = exp_require(c, f[0], "min");
		if (!rc)
			rc = exp_require(c, f[2], "runtime");
		if (!rc)
			rc = exp_get_u32(c, "min", f[0], 1, &b->min_gpus);
		if (!rc)
			rc = exp_get_u32(c, "max", f[1], 1, &b->max_gpus);
		if (!rc)
			rc = parse_dist(c, "runtime", f[2], &b->runtime);
		exp_jp_pop(c, mi);
	}
	if (rc)
		goto out;
	prefix = xasprintf("%s: %s", c->file, c->jp);
	rc = gen_buckets_check(g, prefix, c->err);
out:
	free(prefix);
	exp_jp_pop(c, m);
	return rc;
}

/*
 * "generate": a preset (gen_dl.h) fills every key first; each key given
 * alongside it replaces the preset's.  Without a preset, jobs,
 * interarrival and runtime are required, and cpus unless gpus is given.
 */
static int parse_generate(struct exp_ctx *c, const cJSON *v,
			  struct gen_spec *g)
{
	static const char *const keys[] = { "jobs", "interarrival", "runtime",
					    "cpus", "estimate_factor", "users",
					    "max_cpus", "preset", "gpus",
					    "cpus_per_gpu",
					    "runtime_by_gpus" };
	const cJSON *f[ARRAY_SIZE(keys)];
	size_t m = exp_jp_key(c, "generate");
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	int preset = -1;

	if (!rc)
		rc = exp_get_enum(c, "preset", f[7], gen_preset_names,
				  gen_preset_count, &preset);
	if (rc)
		goto out;
	if (preset >= 0) {
		gen_preset_apply(gen_preset_find(gen_preset_names[preset]), g);
	} else {
		size_t nreq = f[8] ? 3 : 4; /* cpus: unless gpus is given */
		for (size_t i = 0; i < nreq && !rc; i++)
			rc = exp_require(c, f[i], keys[i]);
		if (rc)
			goto out;
		g->estimate_factor.kind = DIST_CONSTANT;
		g->estimate_factor.p[0] = 1;
		g->cpus.kind = DIST_CONSTANT;
		g->cpus.p[0] = 1;
		g->gpus.kind = DIST_CONSTANT;
		g->gpus.p[0] = 0;
		g->cpus_per_gpu = GEN_CPUS_PER_GPU;
		g->users = 1;
		g->max_cpus = 0;
	}
	rc = exp_get_uint(c, "jobs", f[0], 1, UINT64_MAX, &g->jobs);
	if (!rc && f[1])
		rc = parse_dist_over(c, "interarrival", f[1], &g->interarrival);
	if (!rc && f[8])
		rc = parse_dist_over(c, "gpus", f[8], &g->gpus);
	if (!rc && f[2]) {
		rc = parse_dist_over(c, "runtime", f[2], &g->runtime);
		/* A runtime of its own replaces the preset's buckets too,
		 * unless the file gives buckets. */
		if (!f[10]) {
			for (size_t i = 0; i < g->nbuckets; i++)
				dist_release(&g->runtime_by_gpus[i].runtime);
			free(g->runtime_by_gpus);
			g->runtime_by_gpus = NULL;
			g->nbuckets = 0;
		}
	}
	if (!rc && f[10])
		rc = parse_buckets(c, f[10], g);
	if (!rc && f[3])
		rc = parse_dist_over(c, "cpus", f[3], &g->cpus);
	if (!rc)
		rc = exp_get_u32(c, "cpus_per_gpu", f[9], 0, &g->cpus_per_gpu);
	if (!rc && f[4])
		rc = parse_dist_over(c, "estimate_factor", f[4],
				     &g->estimate_factor);
	if (!rc)
		rc = exp_get_u32(c, "users", f[5], 1, &g->users);
	if (!rc)
		rc = exp_get_u32(c, "max_cpus", f[6], 0, &g->max_cpus);
out:
	exp_jp_pop(c, m);
	return rc;
}

static int parse_window(struct exp_ctx *c, const cJSON *v,
			struct trace_opts *o)
{
	static const char *const keys[] = { "start", "end" };
	const cJSON *f[ARRAY_SIZE(keys)];
	char s[EXP_SHOW_MAX], t[EXP_SHOW_MAX];
	size_t m = exp_jp_key(c, "window");
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = exp_get_seconds(c, "start", f[0], -INFINITY, false,
				     &o->window_start);
	if (!rc)
		rc = exp_get_seconds(c, "end", f[1], -INFINITY, false,
				     &o->window_end);
	if (!rc && f[0] && f[1] && o->window_end <= o->window_start) {
		exp_show(f[0], s);
		exp_show(f[1], t);
		rc = exp_fail(c, "end", "must be > start ('%s'), got '%s'", s,
			      t);
	}
	exp_jp_pop(c, m);
	return rc;
}

/* The trace-only keys: the first five of parse_workload()'s keys[]. */
static int parse_trace_opts(struct exp_ctx *c, const cJSON *const *f,
			    struct trace_opts *o)
{
	int format = o->format, procs = o->procs, overrun = o->overrun;
	int rc = exp_get_enum(c, "format", f[0], trace_format_names,
			      ARRAY_SIZE(trace_format_names), &format);
	if (!rc)
		rc = exp_get_enum(c, "procs", f[1], exp_procs_names,
				  ARRAY_SIZE(exp_procs_names), &procs);
	if (!rc)
		rc = exp_get_enum(c, "overrun", f[2], exp_overrun_names,
				  ARRAY_SIZE(exp_overrun_names), &overrun);
	if (!rc)
		rc = exp_get_bool(c, "drop_invalid", f[3], &o->drop_invalid);
	if (!rc)
		rc = exp_get_bool(c, "lenient", f[4], &o->lenient);
	o->format = (enum trace_format)format;
	o->procs = (enum procs_field)procs;
	o->overrun = (enum overrun_mode)overrun;
	return rc;
}

static int parse_workload(struct exp_ctx *c, const cJSON *v,
			  struct workload_spec *w)
{
	/* The first five apply to a trace only. */
	static const char *const keys[] = { "format", "procs", "overrun",
					    "drop_invalid", "lenient", "trace",
					    "generate", "limit", "window",
					    "load_scale", "reference_gpu",
					    "job_classes" };
	const cJSON *f[ARRAY_SIZE(keys)];
	struct trace_opts *o = &w->opts;
	const char *trace = NULL;
	size_t m = exp_jp_key(c, "workload");
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);

	if (rc)
		goto out;
	if (f[5] && f[6]) {
		rc = exp_fail(c, NULL, "give either 'trace' or 'generate', "
			      "not both");
		goto out;
	}
	if (!f[5] && !f[6]) {
		rc = exp_fail(c, NULL, "missing key 'trace' or 'generate'");
		goto out;
	}
	trace_opts_default(o);
	if (f[6]) {
		for (size_t i = 0; i < 5; i++) {
			if (f[i]) {
				rc = exp_fail(c, keys[i], "applies to a trace "
					      "only (not with 'generate')");
				goto out;
			}
		}
		w->generated = true;
		w->name = xstrdup("generated");
		rc = parse_generate(c, f[6], &w->gen);
	} else {
		rc = exp_get_string(c, "trace", f[5], &trace);
		if (!rc && str_has_control(trace))
			rc = exp_fail(c, "trace", "must not contain a control "
				      "character (a newline, a tab)");
		if (rc)
			goto out;
		w->trace = path_join(c->dir, trace);
		w->name = xstrdup(base_name(trace));
		if (ends_with(trace, ".csv") || ends_with(trace, ".csv.gz"))
			o->format = TRACE_CSV;
		rc = parse_trace_opts(c, f, o);
	}
	if (!rc)
		rc = exp_get_uint(c, "limit", f[7], 0, UINT64_MAX, &o->limit);
	if (!rc && f[8])
		rc = parse_window(c, f[8], o);
	if (!rc)
		rc = exp_get_number(c, "load_scale", f[9], 0, true,
				    &o->load_scale);
	static const char *const class_names[] = { "trace", "draw" };
	int classes = 1;
	if (!rc)
		rc = exp_get_enum(c, "job_classes", f[11], class_names,
				  ARRAY_SIZE(class_names), &classes);
	w->draw_classes = classes == 1;
	const char *ref = "v100";
	if (!rc)
		rc = exp_get_string(c, "reference_gpu", f[10], &ref);
	if (!rc) {
		struct sim_error e;
		if (jobclass_gpu_lookup(ref, &e) < 0)
			rc = exp_fail(c, "reference_gpu", "%s (the throughput "
				      "table knows k80, p100 and v100)",
				      e.msg);
		else
			w->reference_gpu = xstrdup(ref);
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

/* ---- policies --------------------------------------------------------- */

/* "params": any keys, each a number, boolean or string; the policy
 * registry checks them against the policy's declared parameters. */
static int parse_params(struct exp_ctx *c, const cJSON *v,
			struct policy_spec *p)
{
	size_t m = exp_jp_key(c, "params"), i = 0;
	int rc = 0;
	if (!cJSON_IsObject(v)) {
		rc = exp_fail_type(c, NULL, "an object", v);
		goto out;
	}
	p->params = xcalloc((size_t)cJSON_GetArraySize(v),
			    sizeof(*p->params));
	for (const cJSON *it = v->child; it && !rc; it = it->next, i++) {
		for (size_t j = 0; j < i; j++) {
			if (strcmp(p->params[j].key, it->string) == 0) {
				rc = exp_fail(c, NULL, "duplicate key '%s'",
					      it->string);
				goto out;
			}
		}
		struct param_value *pv = &p->params[p->nparams++];
		size_t mk = exp_jp_key(c, it->string);
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
			rc = exp_fail(c, NULL, "expected a finite number");
		} else {
			rc = exp_fail_type(c, NULL, "a number, boolean or "
					   "string", it);
		}
		exp_jp_pop(c, mk);
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

/* A policy: its name, or an object with "name", "label" and "params". */
static int parse_policy(struct exp_ctx *c, const cJSON *v,
			struct policy_spec *p)
{
	static const char *const keys[] = { "name", "label", "params" };
	const cJSON *f[ARRAY_SIZE(keys)] = { NULL };
	const char *name = NULL, *label = NULL;
	char shown[EXP_SHOW_MAX];
	int rc;

	p->json_path = xstrdup(c->jp);
	if (cJSON_IsString(v)) {
		rc = exp_get_string(c, NULL, v, &name);
	} else if (cJSON_IsObject(v)) {
		rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
		if (!rc)
			rc = exp_require(c, f[0], "name");
		if (!rc)
			rc = exp_get_string(c, "name", f[0], &name);
		if (!rc)
			rc = exp_get_string(c, "label", f[1], &label);
	} else {
		rc = exp_fail_type(c, NULL, "a policy name or an object", v);
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
		exp_show_str(p->label, shown);
		return exp_fail(c, f[1] ? "label" : NULL, "invalid label '%s': "
				"only letters, digits, '_', '.', '+' and '-' "
				"(it names a folder)%s", shown,
				f[1] ? "" : "; give a \"label\"");
	}
	return f[2] ? parse_params(c, f[2], p) : 0;
}

static int parse_policies(struct exp_ctx *c, const cJSON *v,
			  struct experiment *e)
{
	size_t m = exp_jp_key(c, "policies"), i = 0, n = 0;
	int rc = exp_array(c, v, "an array", true, &n);
	if (rc)
		goto out;
	e->policies = xcalloc(n, sizeof(*e->policies));
	for (const cJSON *it = v->child; it && !rc; it = it->next, i++) {
		struct policy_spec *p = &e->policies[e->npolicies++];
		size_t mi = exp_jp_index(c, i);
		rc = parse_policy(c, it, p);
		for (size_t j = 0; j < i && !rc; j++) {
			if (strcmp(e->policies[j].label, p->label) != 0)
				continue;
			bool explicit = cJSON_IsObject(it) &&
				cJSON_GetObjectItemCaseSensitive(it, "label");
			rc = exp_fail(c, explicit ? "label" : NULL,
				      "duplicate label '%s' (also %s)",
				      p->label, e->policies[j].json_path);
		}
		exp_jp_pop(c, mi);
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

/* ---- the rest --------------------------------------------------------- */

static int parse_seeds(struct exp_ctx *c, const cJSON *v,
		       struct experiment *e)
{
	size_t m = exp_jp_key(c, "seeds"), i = 0, n = 0;
	int rc = exp_array(c, v, "an array", true, &n);
	if (rc)
		goto out;
	e->seeds = xcalloc(n, sizeof(*e->seeds));
	for (const cJSON *it = v->child; it && !rc; it = it->next, i++) {
		size_t mi = exp_jp_index(c, i);
		uint64_t s = 0;
		rc = exp_get_uint(c, NULL, it, 0, UINT64_MAX, &s);
		for (size_t j = 0; j < i && !rc; j++)
			if (e->seeds[j] == s)
				rc = exp_fail(c, NULL, "duplicate seed '%llu' "
					      "(also $.seeds[%zu])",
					      (unsigned long long)s, j);
		exp_jp_pop(c, mi);
		if (!rc)
			e->seeds[e->nseeds++] = s;
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

static int parse_plugins(struct exp_ctx *c, const cJSON *v,
			 struct experiment *e)
{
	size_t m = exp_jp_key(c, "plugins"), i = 0, n = 0;
	int rc = exp_array(c, v, "an array", false, &n);
	if (rc)
		goto out;
	e->plugins = xcalloc(n, sizeof(*e->plugins));
	for (const cJSON *it = v->child; it && !rc; it = it->next, i++) {
		size_t mi = exp_jp_index(c, i);
		rc = exp_get_path(c, NULL, it, &e->plugins[e->nplugins++]);
		exp_jp_pop(c, mi);
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

/* "limits": the sizes a run may take; the defaults first. */
static int parse_limits(struct exp_ctx *c, const cJSON *v,
			struct exp_limits *l)
{
	static const char *const keys[] = { "nodes", "jobs",
					    "timeline_samples",
					    "input_bytes" };
	const cJSON *f[ARRAY_SIZE(keys)];
	*l = (struct exp_limits){
		.nodes = EXP_LIMIT_NODES, .jobs = TRACE_MAX_JOBS_DEFAULT,
		.timeline_samples = SIM_MAX_SAMPLES_DEFAULT,
		.input_bytes = EXP_LIMIT_INPUT_BYTES,
	};
	if (!v)
		return 0;
	size_t m = exp_jp_key(c, "limits");
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = exp_get_uint(c, "nodes", f[0], 1, CLUSTER_MAX_NODES,
				  &l->nodes);
	if (!rc)
		rc = exp_get_uint(c, "jobs", f[1], 1, UINT32_MAX, &l->jobs);
	if (!rc)
		rc = exp_get_uint(c, "timeline_samples", f[2], 3, UINT64_MAX,
				  &l->timeline_samples);
	if (!rc)
		rc = exp_get_uint(c, "input_bytes", f[3], 1, UINT64_MAX,
				  &l->input_bytes);
	exp_jp_pop(c, m);
	return rc;
}

/* The sizes known at load that pass a limit: the cluster's nodes (unless
 * sized from the trace: the run checks those) and the generated jobs. */
static int check_limits(struct exp_ctx *c, const struct experiment *e)
{
	const struct exp_limits *l = &e->limits;
	uint64_t nodes = 0;
	int rc = 0;
	for (size_t i = 0; i < e->cluster.ngroups; i++)
		nodes += e->cluster.groups[i].count;
	if (nodes > l->nodes)
		rc = exp_fail(c, "cluster", "%" PRIu64 " nodes, more than the "
			      "limit %" PRIu64 ": raise $.limits.nodes",
			      nodes, l->nodes);
	if (!rc && e->workload.generated && e->workload.gen.jobs > l->jobs) {
		size_t m = exp_jp_key(c, "workload");
		size_t m2 = exp_jp_key(c, "generate");
		rc = exp_fail(c, "jobs", "%" PRIu64 " jobs, more than the "
			      "limit %" PRIu64 ": raise $.limits.jobs",
			      e->workload.gen.jobs, l->jobs);
		exp_jp_pop(c, m2);
		exp_jp_pop(c, m);
	}
	return rc;
}

/* "preemption": what preempted jobs keep and pay (seconds). */
static int parse_preemption(struct exp_ctx *c, const cJSON *v,
			    struct experiment *e)
{
	static const char *const keys[] = { "checkpoint_interval",
					    "restore_overhead",
					    "restore_per_gpu",
					    "storage_GBps" };
	const cJSON *f[ARRAY_SIZE(keys)];
	size_t m = exp_jp_key(c, "preemption");
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = exp_get_seconds(c, "checkpoint_interval", f[0], 0, false,
				     &e->checkpoint_interval);
	if (!rc)
		rc = exp_get_seconds(c, "restore_overhead", f[1], 0, false,
				     &e->restore_overhead);
	if (!rc)
		rc = exp_get_seconds(c, "restore_per_gpu", f[2], 0, false,
				     &e->restore_per_gpu);
	if (!rc)
		rc = exp_get_number_in(c, "storage_GBps", f[3], 0, false,
				       EXP_BW_MAX, &e->storage_GBps);
	if (!rc && e->storage_GBps > 0 && e->storage_GBps < EXP_BW_MIN)
		rc = exp_fail(c, "storage_GBps", "must be 0 or >= 1e-06, got "
			      "'%g'", e->storage_GBps);
	exp_jp_pop(c, m);
	return rc;
}

/* The root keys of an experiment file, by name so that adding one
 * renumbers nothing. */
enum root_key {
	ROOT_NAME, ROOT_CLUSTER, ROOT_WORKLOAD, ROOT_POLICIES, ROOT_SEEDS,
	ROOT_OUTPUT, ROOT_PLUGINS, ROOT_TIMELINE, ROOT_BSLD_TAU, ROOT_CHECK,
	ROOT_PREEMPTION, ROOT_THROUGHPUTS, ROOT_SWEEP, ROOT_OPTIMIZE,
	ROOT_FILL, ROOT_LIMITS, ROOT_PROGRESS, ROOT_NKEYS
};

/* The experiment's name, which names the default folder results/<name>:
 * one folder name, printable. */
static int check_name(struct exp_ctx *c, const char *name)
{
	if (strchr(name, '/'))
		return exp_fail(c, "name", "must not contain '/', got '%s'",
				name);
	if (str_has_control(name))
		return exp_fail(c, "name", "must not contain a control "
				"character (a newline, a tab)");
	/* "." and ".." would put the results in results/ or in the
	 * current folder. */
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return exp_fail(c, "name", "must name a folder, not '%s'",
				name);
	return 0;
}

static int parse_root(struct exp_ctx *c, const cJSON *root,
		      struct experiment *e)
{
	static const char *const keys[ROOT_NKEYS] = {
		[ROOT_NAME] = "name", [ROOT_CLUSTER] = "cluster",
		[ROOT_WORKLOAD] = "workload", [ROOT_POLICIES] = "policies",
		[ROOT_SEEDS] = "seeds", [ROOT_OUTPUT] = "output",
		[ROOT_PLUGINS] = "plugins",
		[ROOT_TIMELINE] = "timeline_interval",
		[ROOT_BSLD_TAU] = "bounded_slowdown_tau",
		[ROOT_CHECK] = "check", [ROOT_PREEMPTION] = "preemption",
		[ROOT_THROUGHPUTS] = "throughputs", [ROOT_SWEEP] = "sweep",
		[ROOT_OPTIMIZE] = "optimize", [ROOT_FILL] = "fill",
		[ROOT_LIMITS] = "limits",
		[ROOT_PROGRESS] = "progress_timeout",
	};
	const cJSON *f[ROOT_NKEYS];
	const char *name = NULL;
	int rc = exp_obj_fields(c, root, keys, ARRAY_SIZE(keys), f);
	/* A fill experiment (exp_fill.c) names its own cluster and pods. */
	bool fill = f[ROOT_FILL] != NULL;
	for (size_t i = fill ? ROOT_POLICIES : ROOT_CLUSTER;
	     i <= ROOT_POLICIES && !rc; i++)
		rc = exp_require(c, f[i], keys[i]);
	for (size_t i = ROOT_CLUSTER; i <= ROOT_WORKLOAD && fill && !rc;
	     i++)
		if (f[i])
			rc = exp_fail(c, keys[i], "not used by a fill "
				      "experiment (\"fill\" names the "
				      "cluster and the pods)");
	if (!rc)
		rc = exp_get_string(c, "name", f[ROOT_NAME], &name);
	if (!rc && name)
		rc = check_name(c, name);
	/* Sweeps are expanded by sweep.c before they reach the loader. */
	if (!rc && f[ROOT_SWEEP])
		rc = exp_fail(c, "sweep", "this file is a sweep: run it with "
			      "'clustersim sweep'");
	if (rc)
		return rc;
	e->name = name ? xstrdup(name) : stem(e->path);
	if (!name && !f[ROOT_OUTPUT] && (!strcmp(e->name, ".") ||
					 !strcmp(e->name, "..")))
		return exp_fail(c, NULL, "the file name gives the experiment "
				"the name '%s', which cannot name its results "
				"folder: give \"name\" or \"output\"", e->name);

	/* The limits first: the cluster file is read within them. */
	rc = parse_limits(c, f[ROOT_LIMITS], &e->limits);
	if (rc)
		return rc;
	if (fill) {
		e->has_fill = true;
		rc = exp_parse_fill(c, f[ROOT_FILL], &e->fill);
	} else {
		rc = exp_parse_cluster(c, f[ROOT_CLUSTER], e);
	}
	if (!rc && !fill)
		rc = parse_workload(c, f[ROOT_WORKLOAD], &e->workload);
	e->workload.opts.max_jobs = e->limits.jobs;
	e->workload.opts.max_bytes = e->limits.input_bytes;
	if (!rc)
		rc = check_limits(c, e);
	if (!rc && e->cluster_from_trace && e->workload.generated)
		rc = exp_fail(c, "cluster", "'from_trace' needs a trace, not "
			      "a generated workload");
	if (!rc)
		rc = parse_policies(c, f[ROOT_POLICIES], e);
	if (!rc && f[ROOT_SEEDS]) {
		rc = parse_seeds(c, f[ROOT_SEEDS], e);
	} else if (!rc) {
		e->seeds = xmalloc(sizeof(*e->seeds));
		e->seeds[0] = 1;
		e->nseeds = 1;
	}
	if (!rc)
		rc = exp_get_path(c, "output", f[ROOT_OUTPUT], &e->output);
	if (!rc && !e->output)
		e->output = xasprintf("results/%s", e->name);
	if (!rc && f[ROOT_PLUGINS])
		rc = parse_plugins(c, f[ROOT_PLUGINS], e);
	e->timeline_interval = 0;
	e->bsld_tau = 10 * SIM_SEC;
	if (!rc)
		rc = exp_get_seconds(c, "timeline_interval", f[ROOT_TIMELINE], 0, false,
				     &e->timeline_interval);
	if (!rc)
		rc = exp_get_seconds(c, "bounded_slowdown_tau", f[ROOT_BSLD_TAU], 0, true,
				     &e->bsld_tau);
	if (!rc)
		rc = exp_get_bool(c, "check", f[ROOT_CHECK], &e->check);
	e->progress_timeout = SIM_PROGRESS_TIMEOUT;
	if (!rc)
		rc = exp_get_seconds(c, "progress_timeout", f[ROOT_PROGRESS], 0,
				     false, &e->progress_timeout);
	if (!rc && f[ROOT_PREEMPTION])
		rc = parse_preemption(c, f[ROOT_PREEMPTION], e);
	if (!rc && f[ROOT_THROUGHPUTS])
		rc = exp_parse_throughputs(c, f[ROOT_THROUGHPUTS], &e->throughputs);
	if (!rc && f[ROOT_OPTIMIZE]) {
		size_t m = exp_jp_key(c, "optimize");
		rc = exp_parse_optimize(c, f[ROOT_OPTIMIZE], &e->optimize);
		exp_jp_pop(c, m);
	}
	return rc;
}

/* ---- entry points ----------------------------------------------------- */

static int exp_parse_len(const char *text, size_t len, const char *path,
			 struct experiment *e, struct sim_error *err)
{
	struct exp_ctx c;
	cJSON *root = NULL;
	char *dir = path_dirname(path);
	int rc;

	memset(e, 0, sizeof(*e));
	e->path = xstrdup(path);
	exp_ctx_init(&c, path, dir, err);
	rc = exp_parse_json(text, len, path, &root, err);
	if (!rc)
		rc = parse_root(&c, root, e);
	if (!rc)
		e->resolved_json = exp_resolved_json(e);
	cJSON_Delete(root);
	exp_ctx_release(&c);
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
	char *text = NULL, sha[INPUT_SHA256_HEX];
	size_t len = 0;
	int rc = exp_read_text(path, 0, &text, &len, sha, err);
	if (rc) {
		memset(e, 0, sizeof(*e));
		return rc;
	}
	rc = exp_parse_len(text, len, path, e, err);
	if (!rc)
		exp_note_input(e, path, sha);
	free(text);
	return rc;
}

void exp_note_input(struct experiment *e, const char *path,
		    const char *sha256)
{
	size_t i = 0;
	while (i < e->ninputs && strcmp(e->inputs[i].path, path) != 0)
		i++;
	if (i == e->ninputs) {
		e->inputs = xrealloc(e->inputs, (i + 1) * sizeof(*e->inputs));
		e->inputs[i].path = xstrdup(path);
		e->ninputs++;
	}
	memcpy(e->inputs[i].sha256, sha256, INPUT_SHA256_HEX);
}

const char *exp_input_sha256(const struct experiment *e, const char *path)
{
	for (size_t i = 0; i < e->ninputs; i++)
		if (strcmp(e->inputs[i].path, path) == 0)
			return e->inputs[i].sha256;
	return NULL;
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
	free(e->workload.reference_gpu);
	gen_spec_release(&e->workload.gen);
	for (size_t i = 0; i < e->npolicies; i++)
		policy_spec_release(&e->policies[i]);
	free(e->policies);
	free(e->seeds);
	free(e->output);
	for (size_t i = 0; i < e->nplugins; i++)
		free(e->plugins[i]);
	free(e->plugins);
	jobclass_overrides_release(&e->throughputs);
	exp_fill_release(&e->fill);
	free(e->resolved_json);
	for (size_t i = 0; i < e->ninputs; i++)
		free(e->inputs[i].path);
	free(e->inputs);
	memset(e, 0, sizeof(*e));
}
