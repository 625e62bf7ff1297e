/*
 * The root "models" key of an experiment file: large-model definitions
 * that a workload's jobs name (the CSV `model` column) beside the presets
 * of speed/llm.h.  experiments/README.md is the contract.
 *
 *   "models": {
 *     "gpt-20b": { "layers": 44, "hidden": 6144, "heads": 48,
 *                  "seq_len": 2048, "vocab": 51200, "zero_stage": 1,
 *                  "comm_overlap": 0.5 },
 *     "llama3-70b-zero3": { "like": "llama3-70b", "zero_stage": 3 }
 *   }
 *
 * "like" copies a preset's or an earlier entry's figures; without it the
 * architecture (layers, hidden, heads, seq_len, vocab) must be given.
 * "parameters" is the count (0 or absent: derived from the architecture,
 * Narayanan et al. SC'21 eq. 2); bytes per parameter default to mixed-
 * precision Adam's 2 + 2 + 12.  "interleave" is the model chunks per
 * pipeline stage its jobs run (Megatron-LM's interleaved schedule, v;
 * default 1, plain 1F1B; a trace's `interleave` cell overrides it per
 * job): it must divide the layers, and pp x v a job's.  A name must not
 * be a preset's.
 */
#include "exp/exp_schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "exp/exp_json.h"
#include "base/util.h"

enum {
	MD_LIKE, MD_SOURCE, MD_PARAMETERS, MD_LAYERS, MD_HIDDEN, MD_HEADS,
	MD_SEQ_LEN, MD_VOCAB, MD_BW, MD_BG, MD_BO, MD_ZERO, MD_OVERLAP,
	MD_INTERLEAVE, MD_NKEYS
};

static const char *const md_keys[MD_NKEYS] = {
	[MD_LIKE] = "like", [MD_SOURCE] = "source",
	[MD_PARAMETERS] = "parameters", [MD_LAYERS] = "layers",
	[MD_HIDDEN] = "hidden", [MD_HEADS] = "heads",
	[MD_SEQ_LEN] = "seq_len", [MD_VOCAB] = "vocab",
	[MD_BW] = "bytes_weights", [MD_BG] = "bytes_grads",
	[MD_BO] = "bytes_optimizer", [MD_ZERO] = "zero_stage",
	[MD_OVERLAP] = "comm_overlap", [MD_INTERLEAVE] = "interleave",
};

/* The model name: a preset's or an earlier entry's, or NULL. */
static const struct llm_model *known(const struct experiment *e,
				     const char *name)
{
	for (size_t i = 0; i < e->nmodels; i++)
		if (strcmp(e->models[i].name, name) == 0)
			return &e->models[i];
	return llm_preset_find(name);
}

/* An architecture size: required without "like", 1 .. 2^24. */
static int get_size(struct exp_ctx *c, const cJSON *const *f, int k,
		    bool like, uint32_t *out)
{
	uint64_t v = *out;
	if (!f[k] && !like)
		return exp_fail(c, NULL, "missing key '%s' (give the "
				"architecture, or copy a model's with "
				"\"like\")", md_keys[k]);
	int rc = exp_get_uint(c, md_keys[k], f[k], 1, 1u << 24, &v);
	*out = (uint32_t)v;
	return rc;
}

static int parse_figures(struct exp_ctx *c, const cJSON *const *f,
			 bool like, struct llm_model *m)
{
	uint64_t zero = m->zero_stage, v = m->interleave ? m->interleave : 1;
	int rc = exp_get_number_in(c, "parameters", f[MD_PARAMETERS], 0,
				   false, 1e16, &m->parameters);
	if (!rc)
		rc = get_size(c, f, MD_LAYERS, like, &m->layers);
	if (!rc)
		rc = get_size(c, f, MD_HIDDEN, like, &m->hidden);
	if (!rc)
		rc = get_size(c, f, MD_HEADS, like, &m->heads);
	if (!rc)
		rc = get_size(c, f, MD_SEQ_LEN, like, &m->seq_len);
	if (!rc)
		rc = get_size(c, f, MD_VOCAB, like, &m->vocab);
	if (!rc)
		rc = exp_get_number_in(c, "bytes_weights", f[MD_BW], 0, true,
				       64, &m->bytes_weights);
	if (!rc)
		rc = exp_get_number_in(c, "bytes_grads", f[MD_BG], 0, true,
				       64, &m->bytes_grads);
	if (!rc)
		rc = exp_get_number_in(c, "bytes_optimizer", f[MD_BO], 0,
				       false, 64, &m->bytes_optimizer);
	if (!rc)
		rc = exp_get_uint(c, "zero_stage", f[MD_ZERO], 0, 3, &zero);
	if (!rc)
		rc = exp_get_number_in(c, "comm_overlap", f[MD_OVERLAP], 0,
				       false, 1, &m->comm_overlap);
	if (!rc)
		rc = exp_get_uint(c, "interleave", f[MD_INTERLEAVE], 1, 1u << 16,
				  &v);
	if (!rc && m->layers % v)
		rc = exp_fail(c, "interleave", "must divide the layers %u, got "
			      "'%llu'", m->layers, (unsigned long long)v);
	m->zero_stage = (uint32_t)zero;
	m->interleave = (uint32_t)v;
	return rc;
}

/* One entry named name into *m (its strings newly allocated). */
static int parse_entry(struct exp_ctx *c, const struct experiment *e,
		       const cJSON *v, const char *name, struct llm_model *m)
{
	const cJSON *f[MD_NKEYS];
	const char *like = NULL, *source = NULL;
	char shown[EXP_SHOW_MAX];
	int rc = exp_obj_fields(c, v, md_keys, MD_NKEYS, f);
	if (!rc)
		rc = exp_get_string(c, "like", f[MD_LIKE], &like);
	if (!rc)
		rc = exp_get_string(c, "source", f[MD_SOURCE], &source);
	if (rc)
		return rc;
	memset(m, 0, sizeof(*m));
	llm_model_defaults(m);
	if (like) {
		const struct llm_model *src = known(e, like);
		if (!src) {
			exp_show_str(like, shown);
			return exp_fail(c, "like", "unknown model '%s' (a "
					"preset or an earlier entry of "
					"\"models\")", shown);
		}
		*m = *src;
	}
	/* A changed architecture makes a copied parameter count wrong. */
	for (int k = MD_LAYERS; k <= MD_VOCAB; k++)
		if (f[k] && !f[MD_PARAMETERS])
			m->parameters = 0;
	if ((rc = parse_figures(c, f, like != NULL, m)))
		return rc;
	m->name = xstrdup(name);
	m->source = source ? xstrdup(source)
		  : like ? xasprintf("the experiment file (figures not given "
				     "there: %s's)", like)
			 : xstrdup("the experiment file");
	return 0;
}

int exp_parse_models(struct exp_ctx *c, const cJSON *v, struct experiment *e)
{
	size_t mk = exp_jp_key(c, "models");
	int rc = 0;
	char shown[EXP_SHOW_MAX];
	if (!cJSON_IsObject(v)) {
		rc = exp_fail_type(c, NULL, "an object of models by name", v);
		goto out;
	}
	size_t n = (size_t)cJSON_GetArraySize(v);
	e->models = xcalloc(n ? n : 1, sizeof(*e->models));
	for (const cJSON *it = v->child; it && !rc; it = it->next) {
		size_t k = exp_jp_key(c, it->string);
		exp_show_str(it->string, shown);
		if (!it->string[0])
			rc = exp_fail(c, NULL, "a model's name must not be "
				      "empty");
		else if (known(e, it->string))
			rc = exp_fail(c, NULL, "'%s' is already a model (a "
				      "preset or an earlier entry): give the "
				      "new one another name, and copy the "
				      "other's figures with \"like\"", shown);
		if (!rc)
			rc = parse_entry(c, e, it, it->string,
					 &e->models[e->nmodels]);
		if (!rc)
			e->nmodels++;
		exp_jp_pop(c, k);
	}
out:
	exp_jp_pop(c, mk);
	return rc;
}

static cJSON *must(cJSON *j)
{
	if (!j)
		SIM_BUG("out of memory building JSON");
	return j;
}

static void add(cJSON *o, const char *key, double v)
{
	if (!cJSON_AddItemToObject(o, key, must(cJSON_CreateNumber(v))))
		SIM_BUG("out of memory building JSON");
}

cJSON *exp_models_json(const struct experiment *e)
{
	cJSON *root = must(cJSON_CreateObject());
	for (size_t i = 0; i < e->nmodels; i++) {
		const struct llm_model *m = &e->models[i];
		cJSON *o = must(cJSON_CreateObject());
		if (!cJSON_AddItemToObject(o, "source",
					   must(cJSON_CreateString(m->source))))
			SIM_BUG("out of memory building JSON");
		add(o, "parameters", llm_model_parameters(m));
		add(o, "layers", m->layers);
		add(o, "hidden", m->hidden);
		add(o, "heads", m->heads);
		add(o, "seq_len", m->seq_len);
		add(o, "vocab", m->vocab);
		add(o, "bytes_weights", m->bytes_weights);
		add(o, "bytes_grads", m->bytes_grads);
		add(o, "bytes_optimizer", m->bytes_optimizer);
		add(o, "zero_stage", m->zero_stage);
		add(o, "comm_overlap", m->comm_overlap);
		add(o, "interleave", m->interleave ? m->interleave : 1);
		if (!cJSON_AddItemToObject(root, m->name, o))
			SIM_BUG("out of memory building JSON");
	}
	return root;
}

void exp_models_release(struct experiment *e)
{
	for (size_t i = 0; i < e->nmodels; i++) {
		free((char *)e->models[i].name);
		free((char *)e->models[i].source);
	}
	free(e->models);
	e->models = NULL;
	e->nmodels = 0;
}
