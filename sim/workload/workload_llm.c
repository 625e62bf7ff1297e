/*
 * The large-model table of a workload: what each large-model job trains
 * (docs/parallelism.md, "Large-model jobs in a run").  A job names a model
 * (an entry of the experiment's root "models" table, or a preset of
 * speed/llm.h), its micro-batches and its interleave (model chunks per
 * pipeline stage; default the model's); the entries a workload uses are
 * kept once each, and a job holds the index + 1 of its entry in the 16 bits of
 * struct job's llm field.  The engine's speed model reads the table to
 * give each such job its step time on its placement.
 */
#include "workload/workload.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

uint32_t workload_llm_default_microbatches(uint32_t pp)
{
	return 4 * (pp ? pp : 1);
}

/* The model called name: the experiment's, else a preset; NULL if none. */
static const struct llm_model *find_model(const struct llm_model *models,
					  size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (models[i].name && strcmp(models[i].name, name) == 0)
			return &models[i];
	return llm_preset_find(name);
}

/* "gpt3-1.3b, gpt3-2.7b, ..." of the presets into buf. */
static void preset_names(char *buf, size_t cap)
{
	size_t k = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < llm_preset_count() && k + 1 < cap; i++) {
		int w = snprintf(buf + k, cap - k, "%s%s", i ? ", " : "",
				 llm_preset(i)->name);
		if (w < 0 || (size_t)w >= cap - k)
			break;
		k += (size_t)w;
	}
}

int workload_llm_add(struct workload *w, const struct llm_model *models,
		     size_t nmodels, const char *name, uint32_t microbatches,
		     uint32_t micro_batch, uint32_t interleave,
		     const char *prefix, uint16_t *idx, struct sim_error *err)
{
	const struct llm_model *m = find_model(models, nmodels, name);
	if (!m) {
		char names[512];
		preset_names(names, sizeof(names));
		return err_setc(err, -SIM_EINPUT, "%s: unknown model '%.60s' "
				"(an entry of \"models\", or a preset: %s)",
				prefix, name, names);
	}
	if (!interleave)
		interleave = m->interleave ? m->interleave : 1;
	if (!micro_batch)
		micro_batch = 1;
	for (size_t i = 0; i < w->nllm; i++)
		if (strcmp(w->llm_names[i], name) == 0 &&
		    w->llm[i].microbatches == microbatches &&
		    w->llm[i].micro_batch == micro_batch &&
		    w->llm[i].interleave == interleave) {
			*idx = (uint16_t)(i + 1);
			return 0;
		}
	if (w->nllm >= UINT16_MAX)
		return err_setc(err, -SIM_EINPUT, "%s: more than %u distinct "
				"(model, microbatches, interleave) entries in "
				"one workload",
				prefix, (unsigned)UINT16_MAX);
	w->llm = xrealloc(w->llm, (w->nllm + 1) * sizeof(*w->llm));
	w->llm_names = xrealloc(w->llm_names,
				(w->nllm + 1) * sizeof(*w->llm_names));
	w->llm_names[w->nllm] = xstrdup(name);
	w->llm[w->nllm] = (struct llm_job){
		.model = *m,
		.microbatches = microbatches,
		.micro_batch = micro_batch,
		.interleave = interleave,
	};
	w->llm[w->nllm].model.name = w->llm_names[w->nllm];
	w->llm[w->nllm].model.source = m->source ? m->source : "";
	*idx = (uint16_t)++w->nllm;
	return 0;
}

int workload_llm_check_job(const struct workload *w, const struct job *j,
			   const char *prefix, struct sim_error *err)
{
	if (!j->llm)
		return 0;
	SIM_ASSERT(j->llm <= w->nllm);
	const struct llm_job *lj = &w->llm[j->llm - 1];
	struct llm_shape sh;
	llm_job_shape(j, lj, &sh);
	return llm_shape_check(&lj->model, &sh, j->gpus, 0, prefix, err);
}

void workload_llm_free(struct workload *w)
{
	for (size_t i = 0; i < w->nllm; i++)
		free(w->llm_names[i]);
	free(w->llm_names);
	free(w->llm);
	w->llm_names = NULL;
	w->llm = NULL;
	w->nllm = 0;
}
