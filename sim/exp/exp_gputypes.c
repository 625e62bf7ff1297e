/*
 * The "gpu_types" and "derive_throughputs" keys of an experiment file:
 * GPU types of the experiment's own, which extend the built-in table
 * (jobclass_gpu.h), and the rule that carries a job class's measured
 * throughput to a type nobody measured (jobclass_override.h).  Both are
 * read into the experiment's overlay of the class tables and printed back
 * for the manifest.  experiments/README.md is the contract.
 *
 *   "gpu_types": {
 *     "a100-pcie": { "like": "a100-80gb", "memory_GBps": 1935,
 *                    "nvlink_GBps": 0, "source": "A100 PCIe data sheet" }
 *   },
 *   "derive_throughputs": "fp32_membw"
 *
 * A type is named by its key; a name that is a built-in type's (compared
 * on letters and digits) or another entry's is an error.  "like" copies a
 * built-in type's or an earlier entry's figures; without it every figure
 * must be given.  Figures are finite numbers: memory, FP32 peak and memory
 * bandwidth > 0 (the rule divides by them), FP16 peak and NVLink >= 0.
 */
#include "exp/exp_schema.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp_json.h"
#include "base/util.h"

enum {
	GT_LIKE, GT_MODEL, GT_SOURCE, GT_MEMORY, GT_FP32, GT_FP16, GT_MEMBW,
	GT_NVLINK, GT_NKEYS
};

static const char *const gt_keys[GT_NKEYS] = {
	[GT_LIKE] = "like", [GT_MODEL] = "model", [GT_SOURCE] = "source",
	[GT_MEMORY] = "memory_gb", [GT_FP32] = "fp32_tflops",
	[GT_FP16] = "fp16_tflops", [GT_MEMBW] = "memory_GBps",
	[GT_NVLINK] = "nvlink_GBps",
};

/* The largest figure accepted (10^9 of any unit: TFLOP/s, GB, GB/s). */
#define GT_FIG_MAX 1e9

/* True when name has a letter or digit (else it matches nothing). */
static bool has_alnum(const char *s)
{
	for (; *s; s++)
		if (isalnum((unsigned char)*s))
			return true;
	return false;
}

/* "like": the figures of a built-in type or an earlier entry, into *t. */
static int parse_like(struct exp_ctx *c, const cJSON *v,
		      const struct jobclass_overrides *o,
		      struct jobclass_gpu_info *t, const char **like_name)
{
	const char *like = NULL;
	char shown[EXP_SHOW_MAX], names[256];
	int rc = exp_get_string(c, "like", v, &like);
	if (rc || !like)
		return rc;
	int g = jobclass_ovr_gpu_lookup(o, like, NULL);
	if (g < 0) {
		exp_show_str(like, shown);
		jobclass_gpu_names(names, sizeof(names));
		return exp_fail(c, "like", "unknown gpu type '%s' (expected a "
				"built-in type, %s, or an earlier entry of "
				"\"gpu_types\")", shown, names);
	}
	const struct jobclass_gpu_info *src = jobclass_ovr_gpu(o, g);
	t->mem_gb = src->mem_gb;
	t->fp32_tflops = src->fp32_tflops;
	t->fp16_tflops = src->fp16_tflops;
	t->memory_GBps = src->memory_GBps;
	t->nvlink_GBps = src->nvlink_GBps;
	*like_name = src->name;
	return 0;
}

/* One figure: required without "like", > 0 or >= 0. */
static int parse_fig(struct exp_ctx *c, const cJSON *const *f, int k,
		     bool have_like, bool positive, double *out)
{
	if (!f[k] && !have_like)
		return exp_fail(c, NULL, "missing key '%s' (give every figure, "
				"or copy a type's with \"like\")", gt_keys[k]);
	return exp_get_number_in(c, gt_keys[k], f[k], 0, positive,
				 GT_FIG_MAX, out);
}

/* One entry, named name, into *t (its strings newly allocated). */
static int parse_entry(struct exp_ctx *c, const cJSON *v, const char *name,
		       const struct jobclass_overrides *o,
		       struct jobclass_gpu_info *t)
{
	const cJSON *f[GT_NKEYS];
	const char *like = NULL, *model = NULL, *source = NULL;
	int rc = exp_obj_fields(c, v, gt_keys, GT_NKEYS, f);
	if (!rc)
		rc = parse_like(c, f[GT_LIKE], o, t, &like);
	if (!rc)
		rc = exp_get_string(c, "model", f[GT_MODEL], &model);
	if (!rc)
		rc = exp_get_string(c, "source", f[GT_SOURCE], &source);
	if (!rc)
		rc = parse_fig(c, f, GT_MEMORY, like, true, &t->mem_gb);
	if (!rc)
		rc = parse_fig(c, f, GT_FP32, like, true, &t->fp32_tflops);
	if (!rc)
		rc = parse_fig(c, f, GT_FP16, like, false, &t->fp16_tflops);
	if (!rc)
		rc = parse_fig(c, f, GT_MEMBW, like, true, &t->memory_GBps);
	if (!rc)
		rc = parse_fig(c, f, GT_NVLINK, like, false, &t->nvlink_GBps);
	if (rc)
		return rc;
	t->name = xstrdup(name);
	t->model = xstrdup(model ? model : name);
	if (source)
		t->source = xstrdup(source);
	else if (like)
		t->source = xasprintf("the experiment file (figures not given "
				      "there: %s's)", like);
	else
		t->source = xstrdup("the experiment file");
	return 0;
}

/* A new entry's name: not empty, not a built-in type's, not taken. */
static int check_name(struct exp_ctx *c, const char *name,
		      const struct jobclass_overrides *o)
{
	char shown[EXP_SHOW_MAX];
	exp_show_str(name, shown);
	if (!has_alnum(name))
		return exp_fail(c, NULL, "a gpu type's name needs a letter or "
				"a digit, got '%s'", shown);
	int b = jobclass_gpu_find(name);
	if (b >= 0)
		return exp_fail(c, NULL, "'%s' is the built-in type '%s': give "
				"the new type another name (copy its figures "
				"with \"like\")", shown,
				jobclass_gpu_at((size_t)b)->name);
	int g = jobclass_ovr_gpu_lookup(o, name, NULL);
	if (g >= JOBCLASS_NGPU)
		return exp_fail(c, NULL, "names the same gpu type as '%s'",
				jobclass_ovr_gpu(o, g)->name);
	return 0;
}

int exp_parse_gpu_types(struct exp_ctx *c, const cJSON *v,
			struct jobclass_overrides *o)
{
	size_t m = exp_jp_key(c, "gpu_types");
	int rc = 0;
	if (!cJSON_IsObject(v)) {
		rc = exp_fail_type(c, NULL, "an object of gpu types by name",
				   v);
		goto out;
	}
	size_t n = (size_t)cJSON_GetArraySize(v);
	if (n > JOBCLASS_GPU_MAX - JOBCLASS_NGPU) {
		rc = exp_fail(c, NULL, "%zu gpu types, more than the %d an "
			      "experiment may add", n,
			      JOBCLASS_GPU_MAX - JOBCLASS_NGPU);
		goto out;
	}
	o->types = xcalloc(n ? n : 1, sizeof(*o->types));
	for (const cJSON *it = v->child; it && !rc; it = it->next) {
		size_t mk = exp_jp_key(c, it->string);
		struct jobclass_gpu_info t = { 0 };
		rc = check_name(c, it->string, o);
		if (!rc)
			rc = parse_entry(c, it, it->string, o, &t);
		if (!rc)
			o->types[o->ntypes++] = t;
		exp_jp_pop(c, mk);
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

int exp_parse_derive(struct exp_ctx *c, const cJSON *v,
		     struct jobclass_overrides *o)
{
	int rule = JOBCLASS_DERIVE_FP32_MEMBW;
	int rc = exp_get_enum(c, "derive_throughputs", v,
			      jobclass_derive_names, JOBCLASS_NDERIVE, &rule);
	o->derive = (enum jobclass_derive)rule;
	return rc;
}

static cJSON *must(cJSON *j)
{
	if (!j)
		SIM_BUG("out of memory building JSON");
	return j;
}

static void add(cJSON *o, const char *key, cJSON *v)
{
	if (!cJSON_AddItemToObject(o, key, must(v)))
		SIM_BUG("out of memory building JSON");
}

cJSON *exp_gpu_types_json(const struct jobclass_overrides *o)
{
	cJSON *root = must(cJSON_CreateObject());
	for (size_t i = 0; i < o->ntypes; i++) {
		const struct jobclass_gpu_info *t = &o->types[i];
		cJSON *e = must(cJSON_CreateObject());
		add(e, "model", cJSON_CreateString(t->model));
		add(e, "source", cJSON_CreateString(t->source));
		add(e, "memory_gb", cJSON_CreateNumber(t->mem_gb));
		add(e, "fp32_tflops", cJSON_CreateNumber(t->fp32_tflops));
		add(e, "fp16_tflops", cJSON_CreateNumber(t->fp16_tflops));
		add(e, "memory_GBps", cJSON_CreateNumber(t->memory_GBps));
		add(e, "nvlink_GBps", cJSON_CreateNumber(t->nvlink_GBps));
		add(root, t->name, e);
	}
	return root;
}

/* Adds the derived figures of type g (named as the cluster names it)
 * to arr, one object per class. */
static void add_derived(cJSON *arr, const struct jobclass_overrides *o,
			int g)
{
	for (unsigned cls = 1; cls < jobclass_count(); cls++) {
		struct jobclass_origin why;
		double v = jobclass_thr1_origin(o, cls, g, &why);
		if (why.kind != JOBCLASS_FIG_DERIVED)
			continue;
		cJSON *e = must(cJSON_CreateObject());
		add(e, "job_class", cJSON_CreateString(jobclass_get(cls)->name));
		add(e, "gpu_type", cJSON_CreateString(jobclass_ovr_gpu(o, g)->name));
		add(e, "source_type", cJSON_CreateString(
				      jobclass_ovr_gpu(o, why.source)->name));
		add(e, "rule",
		    cJSON_CreateString(jobclass_derive_names[o->derive]));
		add(e, "factor", cJSON_CreateNumber(why.factor));
		add(e, "throughput", cJSON_CreateNumber(v));
		if (!cJSON_AddItemToArray(arr, e))
			SIM_BUG("out of memory building JSON");
	}
}

cJSON *exp_derived_json(const struct experiment *e)
{
	const struct cluster_spec *cs = &e->cluster;
	const struct jobclass_overrides *o = &e->throughputs;
	cJSON *arr = must(cJSON_CreateArray());
	bool seen[JOBCLASS_GPU_MAX] = { false };
	for (size_t i = 0; i < cs->ngroups; i++) {
		const char *t = cs->groups[i].gpu_type;
		int g = t && cs->groups[i].gpus ?
			jobclass_ovr_gpu_lookup(o, t, NULL) : -1;
		if (g < 0 || seen[g])
			continue;
		seen[g] = true;
		add_derived(arr, o, g);
	}
	return arr;
}
