/*
 * The experiment's "workload": a trace with its loader options (which
 * processor field, overrun, cleaning, window, first N, load scale), or a
 * generated workload with its distributions (experiments/README.md,
 * "workload").  Part of the schema that exp.c reads; the generators
 * themselves are the workload wing's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp_json.h"
#include "exp/exp_schema.h"
#include "engine/sim.h"
#include "workload/gen_dl.h"
#include "speed/jobclass.h"
#include "base/input.h"
#include "base/util.h"

int exp_parse_dist(struct exp_ctx *c, const char *key, const cJSON *v,
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
	return exp_parse_dist(c, key, v, d);
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
			rc = exp_parse_dist(c, "runtime", f[2], &b->runtime);
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
			  const struct experiment *e, struct gen_spec *g)
{
	static const char *const keys[] = { "jobs", "interarrival", "runtime",
					    "cpus", "estimate_factor", "users",
					    "max_cpus", "preset", "gpus",
					    "cpus_per_gpu",
					    "runtime_by_gpus", "searches",
					    "large" };
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
	if (!rc && f[11])
		rc = exp_parse_searches(c, f[11], &g->searches);
	if (!rc && f[12])
		rc = exp_parse_large(c, f[12], e, &g->large);
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

/* The trace-only keys: the first six of parse_workload()'s keys[]. */
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
	int clean = o->clean;
	if (!rc)
		rc = exp_get_enum(c, "clean", f[5], swf_clean_names,
				  ARRAY_SIZE(swf_clean_names), &clean);
	if (!rc && f[5] && format != TRACE_SWF)
		rc = exp_fail(c, "clean", "applies to an SWF trace only "
			      "(format 'swf')");
	o->clean = (enum swf_clean)clean;
	o->format = (enum trace_format)format;
	o->procs = (enum procs_field)procs;
	o->overrun = (enum overrun_mode)overrun;
	return rc;
}

/* Which fields name a job's partition and QOS (docs/tenants.md). */
static int parse_slurm_from(struct exp_ctx *c, const cJSON *part,
			    const cJSON *qos, struct workload_spec *w)
{
	w->partition_from = SLURM_FROM_PARTITION;
	w->qos_from = SLURM_FROM_NONE;
	int rc = exp_get_enum(c, "partition_from", part, slurm_from_names,
			      SLURM_FROM_N, &w->partition_from);
	if (!rc)
		rc = exp_get_enum(c, "qos_from", qos, slurm_from_names,
				  SLURM_FROM_N, &w->qos_from);
	return rc;
}

int exp_parse_workload(struct exp_ctx *c, const cJSON *v,
		       struct experiment *e)
{
	struct workload_spec *w = &e->workload;
	/* The first six apply to a trace only. */
	static const char *const keys[] = { "format", "procs", "overrun",
					    "drop_invalid", "lenient", "clean",
					    "trace",
					    "generate", "limit", "window",
					    "load_scale", "reference_gpu",
					    "job_classes", "project_from",
					    "interactive_fraction", "skip",
					    "partition_from", "qos_from" };
	const cJSON *f[ARRAY_SIZE(keys)];
	struct trace_opts *o = &w->opts;
	const char *trace = NULL;
	size_t m = exp_jp_key(c, "workload");
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);

	if (rc)
		goto out;
	if (f[6] && f[7]) {
		rc = exp_fail(c, NULL, "give either 'trace' or 'generate', "
			      "not both");
		goto out;
	}
	if (!f[6] && !f[7]) {
		rc = exp_fail(c, NULL, "missing key 'trace' or 'generate'");
		goto out;
	}
	/* The reference type first: the large jobs' shapes may be fitted
	 * to it (an untyped node group's GPUs). */
	const char *ref = "v100";
	rc = exp_get_string(c, "reference_gpu", f[11], &ref);
	if (!rc) {
		struct sim_error e2;
		char names[256];
		jobclass_gpu_names(names, sizeof(names));
		if (jobclass_gpu_lookup(ref, &e2) < 0)
			rc = exp_fail(c, "reference_gpu", "%s (a built-in "
				      "type: %s)", e2.msg, names);
		else
			w->reference_gpu = xstrdup(ref);
	}
	if (rc)
		goto out;
	trace_opts_default(o);
	if (f[7]) {
		for (size_t i = 0; i < 6; i++) {
			if (f[i]) {
				rc = exp_fail(c, keys[i], "applies to a trace "
					      "only (not with 'generate')");
				goto out;
			}
		}
		w->generated = true;
		w->name = xstrdup("generated");
		rc = parse_generate(c, f[7], e, &w->gen);
	} else {
		rc = exp_get_string(c, "trace", f[6], &trace);
		if (!rc && str_has_control(trace))
			rc = exp_fail(c, "trace", "must not contain a control "
				      "character (a newline, a tab)");
		if (rc)
			goto out;
		w->trace = input_trace_path(c->dir, trace);
		w->name = xstrdup(path_basename(trace));
		if (str_ends_with(trace, ".csv") || str_ends_with(trace, ".csv.gz"))
			o->format = TRACE_CSV;
		rc = parse_trace_opts(c, f, o);
	}
	if (!rc)
		rc = exp_get_uint(c, "limit", f[8], 0, UINT64_MAX, &o->limit);
	if (!rc)
		rc = exp_get_uint(c, "skip", f[15], 0, UINT64_MAX, &o->skip);
	if (!rc && f[9])
		rc = parse_window(c, f[9], o);
	if (!rc)
		rc = exp_get_number(c, "load_scale", f[10], 0, true,
				    &o->load_scale);
	static const char *const class_names[] = { "trace", "draw" };
	int classes = 1;
	if (!rc)
		rc = exp_get_enum(c, "job_classes", f[12], class_names,
				  ARRAY_SIZE(class_names), &classes);
	w->draw_classes = classes == 1;
	w->project_from = TENANT_FROM_VC;
	if (!rc)
		rc = exp_get_enum(c, "project_from", f[13], tenant_from_names,
				  TENANT_FROM_N, &w->project_from);
	if (!rc)
		rc = exp_get_number_in(c, "interactive_fraction", f[14], 0,
				       false, 1, &w->interactive_fraction);
	if (!rc)
		rc = parse_slurm_from(c, f[16], f[17], w);
out:
	exp_jp_pop(c, m);
	return rc;
}

