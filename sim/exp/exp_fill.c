/*
 * The "fill" key of an experiment file (experiments/README.md): a fill
 * experiment of the FGD paper (fill.h) on an openb node list and pod
 * lists, instead of a replay.
 *
 *   "fill": { "nodes": "openb_node_list_gpu_node.csv",
 *             "pods": ["openb_pod_list_default.csv", ...],
 *             "target": 1.3 }
 *
 * "pods" is one path or a non-empty array of them (each list is run under
 * every policy and seed); "target" is the share of the GPU capacity the
 * arrivals stop at, in (0, 10].  Paths are relative to the file's folder.
 *
 * "mode" chooses the experiment: "fill" (the default, above) or "replay"
 * (fill_replay.h: pods arrive at their creation time and leave after
 * their run time), which takes "step" (seconds > 0, default 3600: the
 * timeline's sampling step) and "load_scale" (> 0, at most 1e9, default
 * 1: arrivals at creation time / load_scale, run times kept) instead of
 * "target".  Each key of the other mode is an error.
 *
 * "score" (both modes): "integer" (the default: Kubernetes' integer
 * scores in [0, 100] as the FGD paper's simulator computes them, its tie
 * rule and its "share-gpu" pod kind; clustersim/score.h score_integer) or
 * "double" (exact scores, ties to the lowest node, one kind per GPU
 * demand: clustersim before 0.3).
 */
#include "exp/exp.h"

#include <stdlib.h>
#include <string.h>

#include "exp/exp_json.h"
#include "base/util.h"

int exp_parse_fill(struct exp_ctx *c, const cJSON *v, struct fill_spec *f)
{
	static const char *const keys[] = { "nodes", "pods", "target",
					    "mode", "step", "load_scale",
					    "score" };
	static const char *const modes[] = { "fill", "replay" };
	static const char *const scores[] = { "integer", "double" };
	int score = 0;
	const cJSON *k[ARRAY_SIZE(keys)];
	size_t m = exp_jp_key(c, "fill");
	int mode = 0;
	f->target = 1.3;
	f->step = 3600 * SIM_SEC;
	f->load_scale = 1;
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), k);
	if (!rc)
		rc = exp_get_enum(c, "mode", k[3], modes, ARRAY_SIZE(modes),
				  &mode);
	if (!rc)
		rc = exp_get_enum(c, "score", k[6], scores, ARRAY_SIZE(scores),
				  &score);
	f->replay = mode == 1;
	f->score_double = score == 1;
	if (!rc && f->replay && k[2])
		rc = exp_fail(c, "target", "not used in replay mode (the "
			      "pods' own times say when they arrive)");
	for (size_t i = 4; i <= 5 && !rc && !f->replay; i++)
		if (k[i])
			rc = exp_fail(c, keys[i], "only used in replay mode "
				      "(\"mode\": \"replay\")");
	if (!rc)
		rc = exp_get_seconds(c, "step", k[4], 0, true, &f->step);
	if (!rc)
		rc = exp_get_number(c, "load_scale", k[5], 0, true,
				    &f->load_scale);
	if (!rc && f->load_scale > 1e9)
		rc = exp_fail(c, "load_scale", "must be at most 1e9, got '%g'",
			      f->load_scale);
	if (!rc)
		rc = exp_require(c, k[0], "nodes");
	if (!rc)
		rc = exp_require(c, k[1], "pods");
	if (!rc)
		rc = exp_get_path(c, "nodes", k[0], &f->nodes);
	if (!rc && cJSON_IsArray(k[1])) {
		size_t n = 0, i = 0;
		size_t mp = exp_jp_key(c, "pods");
		rc = exp_array(c, k[1], "a path or an array of paths", true,
			       &n);
		if (!rc)
			f->pods = xcalloc(n, sizeof(*f->pods));
		for (const cJSON *it = k[1]->child; it && !rc;
		     it = it->next, i++) {
			size_t mi = exp_jp_index(c, i);
			rc = exp_get_path(c, NULL, it, &f->pods[f->npods]);
			if (!rc)
				f->npods++;
			exp_jp_pop(c, mi);
		}
		exp_jp_pop(c, mp);
	} else if (!rc) {
		f->pods = xcalloc(1, sizeof(*f->pods));
		rc = exp_get_path(c, "pods", k[1], &f->pods[0]);
		if (!rc)
			f->npods = 1;
	}
	if (!rc)
		rc = exp_get_number(c, "target", k[2], 0, true, &f->target);
	if (!rc && f->target > 10)
		rc = exp_fail(c, "target", "must be at most 10 (1000%% of the "
			      "GPU capacity), got '%g'", f->target);
	exp_jp_pop(c, m);
	return rc;
}

void exp_fill_release(struct fill_spec *f)
{
	if (!f)
		return;
	free(f->nodes);
	for (size_t i = 0; i < f->npods; i++)
		free(f->pods[i]);
	free(f->pods);
	memset(f, 0, sizeof(*f));
}

cJSON *exp_fill_json(const struct fill_spec *f)
{
	cJSON *o = cJSON_CreateObject(), *pods = cJSON_CreateArray();
	if (!o || !pods)
		SIM_BUG("out of memory building JSON");
	for (size_t i = 0; i < f->npods; i++)
		cJSON_AddItemToArray(pods, cJSON_CreateString(f->pods[i]));
	cJSON_AddStringToObject(o, "mode", f->replay ? "replay" : "fill");
	cJSON_AddStringToObject(o, "nodes", f->nodes);
	cJSON_AddItemToObject(o, "pods", pods);
	cJSON_AddStringToObject(o, "score",
				f->score_double ? "double" : "integer");
	if (f->replay) {
		cJSON_AddNumberToObject(o, "step", (double)f->step / SIM_SEC);
		cJSON_AddNumberToObject(o, "load_scale", f->load_scale);
	} else {
		cJSON_AddNumberToObject(o, "target", f->target);
	}
	return o;
}
