/*
 * The generator's "large" section (experiments/README.md, "large"):
 * large-model training jobs among the generated ones, enough that jobs of
 * min_gpus or more GPUs hold `share` of the GPU-hours.  Parsed into the
 * gen_spec's struct gen_large, then resolved against the experiment: the
 * GPU type shapes are fitted to (the cluster's, or gpu_type's), and every
 * model must be an entry of the root "models" or a preset and fit that
 * type on the smallest large job, so that a model that fits no GPU, or a
 * tp beyond a node's GPUs, stops the load with its JSON path.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp_json.h"
#include "exp/exp_schema.h"
#include "base/util.h"
#include "speed/jobclass_override.h"

enum {
	LK_SHARE, LK_MIN_GPUS, LK_GPUS, LK_RUNTIME, LK_MODEL, LK_WEIGHTS,
	LK_DP, LK_TP, LK_PP, LK_MICRO, LK_GPU_TYPE, LK_N
};

static const char *const lk_keys[LK_N] = {
	[LK_SHARE] = "share", [LK_MIN_GPUS] = "min_gpus", [LK_GPUS] = "gpus",
	[LK_RUNTIME] = "runtime", [LK_MODEL] = "model",
	[LK_WEIGHTS] = "model_weights", [LK_DP] = "dp", [LK_TP] = "tp",
	[LK_PP] = "pp", [LK_MICRO] = "microbatches",
	[LK_GPU_TYPE] = "gpu_type",
};

/* The models a section without "model" draws from, equally. */
static const char *const default_models[] = { "gpt3-13b", "llama2-70b",
					      "gpt3-175b" };

/* "model": a name or a non-empty array of names; "model_weights" one
 * number each (default 1). */
static int parse_models(struct exp_ctx *c, const cJSON *v, const cJSON *wv,
			struct gen_large *l)
{
	size_t n = ARRAY_SIZE(default_models);
	const char *name = NULL;
	int rc = 0;
	if (v && cJSON_IsArray(v)) {
		size_t mk = exp_jp_key(c, "model");
		rc = exp_array(c, v, "a model name or an array of them", true,
			       &n);
		exp_jp_pop(c, mk);
	} else if (v) {
		n = 1;
		rc = exp_get_string(c, "model", v, &name);
	}
	if (rc)
		return rc;
	l->models = xcalloc(n, sizeof(*l->models));
	l->model_weights = xcalloc(n, sizeof(*l->model_weights));
	l->nmodels = n;
	const cJSON *it = v && cJSON_IsArray(v) ? v->child : NULL;
	for (size_t i = 0; i < n && !rc; i++) {
		l->model_weights[i] = 1;
		if (!v) {
			l->models[i] = xstrdup(default_models[i]);
			continue;
		}
		if (name) {
			l->models[i] = xstrdup(name);
			continue;
		}
		size_t mk = exp_jp_key(c, "model"), mi = exp_jp_index(c, i);
		rc = exp_get_string(c, NULL, it, &name);
		if (!rc)
			l->models[i] = xstrdup(name);
		name = NULL;
		exp_jp_pop(c, mi);
		exp_jp_pop(c, mk);
		it = it->next;
	}
	double *w = NULL;
	size_t nw = 0;
	if (!rc && wv) {
		rc = exp_get_numbers(c, "model_weights", wv, &w, &nw);
		if (!rc && nw != n)
			rc = exp_fail(c, "model_weights", "expected %zu weights "
				      "(one per model), got %zu", n, nw);
		for (size_t i = 0; i < nw && !rc; i++)
			l->model_weights[i] = w[i];
	}
	free(w);
	return rc;
}

/* The cluster's GPU type the shapes are fitted to: gpu_type's (which a
 * node group must have), else the one type of every GPU node group (an
 * untyped group's is reference_gpu's). */
static int resolve_gpu(struct exp_ctx *c, const struct experiment *e,
		       const char *want, struct gen_large *l)
{
	const struct cluster_spec *cs = &e->cluster;
	const struct jobclass_overrides *thr = &e->throughputs;
	const char *ref = e->workload.reference_gpu ?
		e->workload.reference_gpu : "v100";
	int wi = -1, found = -1, fi = -1;
	struct sim_error e2;
	if (want && (wi = jobclass_ovr_gpu_lookup(thr, want, &e2)) < 0)
		return exp_fail(c, "gpu_type", "%s", e2.msg);
	for (size_t g = 0; g < cs->ngroups; g++) {
		if (!cs->groups[g].gpus)
			continue;
		const char *t = cs->groups[g].gpu_type ?
			cs->groups[g].gpu_type : ref;
		int ti = jobclass_ovr_gpu_lookup(thr, t, NULL);
		if (ti < 0)
			continue; /* the cluster's own check says so */
		if (want && ti != wi)
			continue;
		if (found >= 0 && ti != fi)
			return exp_fail(c, NULL, "the cluster has GPU types "
					"'%s' and '%s': name the one the large "
					"jobs' shapes are fitted to in "
					"'gpu_type'",
					jobclass_ovr_gpu(thr, fi)->name,
					jobclass_ovr_gpu(thr, ti)->name);
		if (found < 0) {
			found = (int)g;
			fi = ti;
		}
	}
	if (found < 0 && want)
		return exp_fail(c, "gpu_type", "no node group of the cluster "
				"has GPUs of type '%s'", want);
	if (found < 0)
		return exp_fail(c, NULL, "the cluster has no GPUs for "
				"large-model jobs");
	const struct jobclass_gpu_info *info = jobclass_ovr_gpu(thr, fi);
	llm_gpu_of_info(info, cs->groups[found].gpus, &l->gpu);
	l->gpu_type = xstrdup(info->name);
	if (l->tp > l->gpu.per_node)
		return exp_fail(c, "tp", "must be at most the %" PRIu32 " GPUs "
				"of a node of %s (a tensor-parallel group is "
				"kept inside a node), got '%" PRIu32 "'",
				l->gpu.per_node, info->name, l->tp);
	return 0;
}

/* The least GPU count the section's gpus may draw, before rounding. */
static double least_draw(const struct dist *d)
{
	double m = INFINITY;
	switch (d->kind) {
	case DIST_CONSTANT:
	case DIST_UNIFORM:
	case DIST_POW2:
		return d->p[0];
	case DIST_DISCRETE:
		for (size_t i = 0; i < d->nvalues; i++)
			if (d->weights[i] > 0 && d->values[i] < m)
				m = d->values[i];
		return m;
	default:
		return 0; /* unbounded below: min_gpus */
	}
}

/* Every model is known and fits the type on the smallest large job. */
static int check_models(struct exp_ctx *c, const struct experiment *e,
			bool list, struct gen_large *l)
{
	uint64_t gpus = gen_large_gpus(l, least_draw(&l->gpus));
	int rc = 0;
	for (size_t i = 0; i < l->nmodels && !rc; i++) {
		size_t mk = exp_jp_key(c, "model");
		size_t mi = list ? exp_jp_index(c, i) : 0;
		const struct llm_model *m = NULL;
		for (size_t k = 0; k < e->nmodels && !m; k++)
			if (!strcmp(e->models[k].name, l->models[i]))
				m = &e->models[k];
		if (!m)
			m = llm_preset_find(l->models[i]);
		if (!m) {
			rc = exp_fail(c, NULL, "unknown model '%s' (an entry "
				      "of \"models\", or a preset: clustersim "
				      "parallelism lists them)", l->models[i]);
		} else {
			struct llm_shape sh;
			char *prefix = xasprintf("%s: %s", c->file, c->jp);
			rc = gen_large_shape(l, m, gpus, &sh, prefix, c->err);
			free(prefix);
		}
		if (list)
			exp_jp_pop(c, mi);
		exp_jp_pop(c, mk);
	}
	return rc;
}

/* The keys' values into l (defaults kept where absent). */
static int parse_keys(struct exp_ctx *c, const cJSON *const *f,
		      struct gen_large *l)
{
	int rc = exp_get_number_in(c, "share", f[LK_SHARE], 0, false, 1,
				   &l->share);
	if (!rc && l->share == 1)
		rc = exp_fail(c, "share", "must be below 1 (some GPU-hours "
			      "are the ordinary jobs'), got '1'");
	if (!rc)
		rc = exp_get_u32(c, "min_gpus", f[LK_MIN_GPUS], 1,
				 &l->min_gpus);
	if (!rc && f[LK_MIN_GPUS] && !f[LK_GPUS]) {
		/* pow2 from the power of two at or above min_gpus to 4x. */
		double p = 1;
		while (p < l->min_gpus)
			p *= 2;
		l->gpus.p[0] = p;
		l->gpus.p[1] = 4 * p;
	}
	if (!rc && f[LK_GPUS] && f[LK_DP])
		rc = exp_fail(c, "dp", "fixes each job's GPUs to dp x tp x "
			      "pp: give either gpus or dp");
	if (!rc && f[LK_GPUS]) {
		dist_release(&l->gpus);
		memset(&l->gpus, 0, sizeof(l->gpus));
		rc = exp_parse_dist(c, "gpus", f[LK_GPUS], &l->gpus);
	}
	if (!rc && f[LK_RUNTIME]) {
		dist_release(&l->runtime);
		memset(&l->runtime, 0, sizeof(l->runtime));
		rc = exp_parse_dist(c, "runtime", f[LK_RUNTIME], &l->runtime);
	}
	if (!rc)
		rc = parse_models(c, f[LK_MODEL], f[LK_WEIGHTS], l);
	if (!rc)
		rc = exp_get_u32(c, "dp", f[LK_DP], 1, &l->dp);
	if (!rc)
		rc = exp_get_u32(c, "tp", f[LK_TP], 1, &l->tp);
	if (!rc)
		rc = exp_get_u32(c, "pp", f[LK_PP], 1, &l->pp);
	if (!rc)
		rc = exp_get_u32(c, "microbatches", f[LK_MICRO], 1,
				 &l->microbatches);
	return rc;
}

int exp_parse_large(struct exp_ctx *c, const cJSON *v,
		    const struct experiment *e, struct gen_large *l)
{
	const cJSON *f[LK_N];
	const char *want = NULL;
	char *prefix = NULL;
	size_t m = exp_jp_key(c, "large");
	gen_large_release(l);
	gen_large_default(l);
	int rc = exp_obj_fields(c, v, lk_keys, LK_N, f);
	if (!rc)
		rc = parse_keys(c, f, l);
	if (!rc)
		rc = exp_get_string(c, "gpu_type", f[LK_GPU_TYPE], &want);
	if (!rc) {
		prefix = xasprintf("%s: %s", c->file, c->jp);
		rc = gen_large_check(l, prefix, c->err);
	}
	if (!rc)
		rc = resolve_gpu(c, e, want, l);
	if (!rc)
		rc = check_models(c, e, f[LK_MODEL] &&
				  cJSON_IsArray(f[LK_MODEL]), l);
	l->on = rc == 0;
	free(prefix);
	exp_jp_pop(c, m);
	return rc;
}

cJSON *exp_large_json(const struct gen_large *l)
{
	cJSON *o = cJSON_CreateObject(), *ms = cJSON_CreateArray();
	cJSON *ws = cJSON_CreateArray();
	cJSON_AddNumberToObject(o, "share", l->share);
	cJSON_AddNumberToObject(o, "min_gpus", l->min_gpus);
	for (size_t i = 0; i < l->nmodels; i++) {
		cJSON_AddItemToArray(ms, cJSON_CreateString(l->models[i]));
		cJSON_AddItemToArray(ws, cJSON_CreateNumber(
					     l->model_weights[i]));
	}
	cJSON_AddItemToObject(o, "model", ms);
	cJSON_AddItemToObject(o, "model_weights", ws);
	cJSON_AddNumberToObject(o, "dp", l->dp);
	cJSON_AddNumberToObject(o, "tp", l->tp);
	cJSON_AddNumberToObject(o, "pp", l->pp);
	cJSON_AddNumberToObject(o, "microbatches", l->microbatches);
	if (l->gpu_type)
		cJSON_AddStringToObject(o, "gpu_type", l->gpu_type);
	return o;
}
