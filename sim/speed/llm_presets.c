/*
 * The preset table of published transformer models (llm.h), each with
 * its source: the GPT-3 sizes, Llama 2 and Llama 3, and the GPT
 * configurations of the Megatron-LM weak-scaling study.  Names are
 * lowercase, as an experiment file writes them ("gpt3-175b").
 *
 * Where a paper gives the parameter count it is kept (Llama's SwiGLU MLP
 * and grouped-query attention make the GPT formula of llm_parameters()
 * wrong for them); elsewhere 0 lets llm_parameters() derive it.  The
 * FLOP count of llm_step_flops() assumes GPT's 4h MLP and full
 * multi-head attention, so for Llama it is an approximation
 * (docs/parallelism.md).  Training settings are the defaults of
 * llm_model_defaults(): BF16 weights and gradients, Adam, full
 * recomputation.
 */
#include <string.h>

#include "speed/llm.h"

/* A preset: training defaults 2/2/12 bytes, ZeRO 0, full recomputation. */
#define LLM_PRESET(nm, P, l, h, a, s, V, src)                              \
	{ .name = nm, .parameters = P, .layers = l, .hidden = h, .heads = a, \
	  .seq_len = s, .vocab = V, .bytes_weights = 2, .bytes_grads = 2,  \
	  .bytes_optimizer = 12, .recompute = LLM_RECOMPUTE_FULL,         \
	  .source = src }

#define GPT3 "Brown et al. 2020, Language Models are Few-Shot Learners, " \
	     "Table 2.1 (vocabulary 50257, the GPT-2 BPE)"
#define LLAMA2 "Touvron et al. 2023, Llama 2: Open Foundation and " \
	       "Fine-Tuned Chat Models, Table 1 and the model cards " \
	       "(parameters 6.74/13.0/69.0 B)"
#define LLAMA3 "Meta 2024, The Llama 3 Herd of Models, Table 3 " \
	       "(vocabulary 128,000 in the table, 128,256 tokens)"
#define MEGATRON "Narayanan et al. SC'21, Efficient Large-Scale " \
		 "Language Model Training on GPU Clusters Using " \
		 "Megatron-LM, Table 1 (vocabulary 51,200, s = 2048)"

static const struct llm_model presets[] = {
	LLM_PRESET("gpt3-small", 125e6, 12, 768, 12, 2048, 50257, GPT3),
	LLM_PRESET("gpt3-medium", 350e6, 24, 1024, 16, 2048, 50257, GPT3),
	LLM_PRESET("gpt3-large", 760e6, 24, 1536, 16, 2048, 50257, GPT3),
	LLM_PRESET("gpt3-xl", 1.3e9, 24, 2048, 24, 2048, 50257, GPT3),
	LLM_PRESET("gpt3-2.7b", 2.7e9, 32, 2560, 32, 2048, 50257, GPT3),
	LLM_PRESET("gpt3-6.7b", 6.7e9, 32, 4096, 32, 2048, 50257, GPT3),
	LLM_PRESET("gpt3-13b", 13.0e9, 40, 5140, 40, 2048, 50257, GPT3),
	LLM_PRESET("gpt3-175b", 175.0e9, 96, 12288, 96, 2048, 50257, GPT3),
	LLM_PRESET("llama2-7b", 6.74e9, 32, 4096, 32, 4096, 32000, LLAMA2),
	LLM_PRESET("llama2-13b", 13.0e9, 40, 5120, 40, 4096, 32000, LLAMA2),
	LLM_PRESET("llama2-70b", 69.0e9, 80, 8192, 64, 4096, 32000, LLAMA2),
	LLM_PRESET("llama3-8b", 8.0e9, 32, 4096, 32, 8192, 128000, LLAMA3),
	LLM_PRESET("llama3-70b", 70.0e9, 80, 8192, 64, 8192, 128000, LLAMA3),
	LLM_PRESET("llama3-405b", 405.0e9, 126, 16384, 128, 8192, 128000,
		   LLAMA3),
	/* Megatron-LM SC'21 Table 1: the parameter counts are the table's
	 * (eq. 2 of the paper gives them from l, h, V, s). */
	LLM_PRESET("megatron-1.7b", 1.7e9, 24, 2304, 24, 2048, 51200,
		   MEGATRON),
	LLM_PRESET("megatron-3.6b", 3.6e9, 30, 3072, 32, 2048, 51200,
		   MEGATRON),
	LLM_PRESET("megatron-7.5b", 7.5e9, 36, 4096, 32, 2048, 51200,
		   MEGATRON),
	LLM_PRESET("megatron-18.4b", 18.4e9, 40, 6144, 48, 2048, 51200,
		   MEGATRON),
	LLM_PRESET("megatron-39.1b", 39.1e9, 48, 8192, 64, 2048, 51200,
		   MEGATRON),
	LLM_PRESET("megatron-76.1b", 76.1e9, 60, 10240, 80, 2048, 51200,
		   MEGATRON),
	LLM_PRESET("megatron-145.6b", 145.6e9, 80, 12288, 96, 2048, 51200,
		   MEGATRON),
	LLM_PRESET("megatron-310.1b", 310.1e9, 96, 16384, 128, 2048, 51200,
		   MEGATRON),
	LLM_PRESET("megatron-529.6b", 529.6e9, 105, 20480, 128, 2048, 51200,
		   MEGATRON),
	LLM_PRESET("megatron-1t", 1008.0e9, 128, 25600, 160, 2048, 51200,
		   MEGATRON),
};

size_t llm_preset_count(void)
{
	return sizeof(presets) / sizeof(presets[0]);
}

const struct llm_model *llm_preset(size_t i)
{
	return i < llm_preset_count() ? &presets[i] : NULL;
}

const struct llm_model *llm_preset_find(const char *name)
{
	for (size_t i = 0; name && i < llm_preset_count(); i++)
		if (strcmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}
