/*
 * `clustersim parallelism [SPEC]`: the large-model training model
 * (speed/llm.h).  Without SPEC, the validation against Megatron-LM
 * (speed/llm_megatron.h): Table 1 beside the paper with the error per
 * row, the sensitivity studies and the end-to-end estimates, as the
 * Markdown tables docs/parallelism.md quotes.  With SPEC, one model on one
 * shape: a comma-separated list of KEY=VALUE (model=gpt3-175b,gpus=1024,
 * tp=8,pp=16,batch=1536; docs/parallelism.md lists the keys); with
 * neither tp nor pp the smallest shape that fits is chosen
 * (llm_fit_shape()), with one of them the other is 1.
 * Bad input exits 2 with the key and the reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/cli.h"
#include "speed/llm_megatron.h"

static void print_table1(double eff)
{
	const struct llm_megatron_row *r;
	size_t n = llm_megatron_rows(&r);
	struct sim_error err;
	printf("| model | GPUs | t | p | d | m | paper TFLOP/s | ours, 1F1B "
	       "| error | ours, interleaved (v) | error |\n"
	       "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < n; i++) {
		struct llm_step a, b;
		struct llm_model m;
		struct llm_shape sh;
		struct llm_place pl;
		if (llm_megatron_setup(&r[i], 0, &m, &sh, &pl, &err) ||
		    llm_megatron_predict(&r[i], 0, eff, &a, &err))
			continue;
		uint32_t v = m.layers / r[i].pp;
		if (llm_megatron_predict(&r[i], r[i].pp > 1 ? v : 1, eff, &b,
					 &err))
			continue;
		char e[32] = "calibrated";
		if (i)
			snprintf(e, sizeof(e), "%+.1f%%", 100 *
				 (a.tflops_per_gpu / r[i].paper_tflops - 1));
		printf("| %s | %u | %u | %u | %u | %u | %.0f | %.1f | %s | "
		       "%.1f (%u) | %+.1f%% |\n", r[i].model, r[i].gpus,
		       r[i].tp, r[i].pp, sh.dp, sh.microbatches,
		       r[i].paper_tflops, a.tflops_per_gpu, e,
		       b.tflops_per_gpu, r[i].pp > 1 ? v : 1,
		       100 * (b.tflops_per_gpu / r[i].paper_tflops - 1));
	}
}

/* One model on one shape of the study's cluster: TFLOP/s per GPU. */
static double predict(const char *model, uint32_t tp, uint32_t pp,
		      uint32_t dp, uint32_t batch, uint32_t b, uint32_t v,
		      double eff)
{
	const struct llm_model *pre = llm_preset_find(model);
	if (!pre)
		return NAN;
	struct llm_model m = *pre;
	struct llm_shape sh = { .dp = dp, .tp = tp, .pp = pp,
				.micro_batch = b, .interleave = v };
	struct llm_place pl;
	struct llm_gpu gpu;
	struct llm_step st;
	struct sim_error err;
	sh.microbatches = batch / (dp * b);
	llm_megatron_gpu(&gpu);
	if (llm_place_packed(&sh, 8, LLM_MEGATRON_FABRIC_BPS,
			     LLM_MEGATRON_LATENCY_USEC, &pl, &err) ||
	    llm_step_time(&m, &sh, &gpu, &pl, eff, &st, &err))
		return NAN;
	return st.tflops_per_gpu;
}

static void print_sensitivity(double eff)
{
	static const uint32_t tps[] = { 2, 4, 8, 16, 32 };
	printf("\ntensor against pipeline split, megatron-145.6b on 64 GPUs, "
	       "batch 128, b = 1:\n\n| t x p | TFLOP/s per GPU |\n"
	       "|---|---:|\n");
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		if (80 % (64 / tps[i]) == 0)
			printf("| %u x %u | %.1f |\n", tps[i], 64 / tps[i],
			       predict("megatron-145.6b", tps[i], 64 / tps[i],
				       1, 128, 1, 1, eff));
	printf("\ninterleaved schedule, gpt3-175b on 96 GPUs (t = 8, p = 12),"
	       " b = 1:\n\n| batch | 1F1B | interleaved, v = 2 | gain |\n"
	       "|---:|---:|---:|---:|\n");
	for (uint32_t batch = 12; batch <= 60; batch += 12) {
		double a = predict("gpt3-175b", 8, 12, 1, batch, 1, 1, eff);
		double b = predict("gpt3-175b", 8, 12, 1, batch, 1, 2, eff);
		printf("| %u | %.1f | %.1f | %+.1f%% |\n", batch, a, b,
		       100 * (b / a - 1));
	}
	printf("\nmicro-batch size, megatron-145.6b on 64 GPUs (t = 8, p = "
	       "8), batch 128:\n\n| b | TFLOP/s per GPU |\n|---:|---:|\n");
	for (uint32_t b = 1; b <= 8; b *= 2)
		printf("| %u | %.1f |\n", b,
		       predict("megatron-145.6b", 8, 8, 1, 128, b, 1, eff));
}

static void print_end_to_end(double eff)
{
	const struct llm_megatron_row *r;
	size_t n = llm_megatron_rows(&r);
	struct llm_step st;
	struct sim_error err;
	double x175 = predict("gpt3-175b", 8, 16, 8, 1536, 1, 1, eff);
	double d175 = llm_train_seconds(300e9, 175e9, 1024, x175 * 1e12) /
		      86400;
	double d1t = NAN, x1t = NAN;
	if (!llm_megatron_predict(&r[n - 1], 0, eff, &st, &err)) {
		x1t = st.tflops_per_gpu;
		d1t = llm_train_seconds(450e9, 1e12, 3072, x1t * 1e12) /
		      86400;
	}
	printf("\nend-to-end training time, eq. 4 (8 T P / (n X)):\n\n"
	       "| model | GPUs | tokens | ours TFLOP/s | ours days | paper "
	       "days |\n|---|---:|---:|---:|---:|---:|\n"
	       "| gpt3-175b (t 8, p 16, batch 1536) | 1024 | 300e9 | %.1f | "
	       "%.1f | 34 |\n| megatron-1t (Table 1 row) | 3072 | 450e9 | "
	       "%.1f | %.1f | 84 |\n", x175, d175, x1t, d1t);
}

static int validation(void)
{
	double eff = llm_megatron_calibrate();
	printf("Megatron-LM (Narayanan et al. SC'21) Table 1 on A100-80GB, 8 "
	       "per node, 25 GB/s per GPU across the fabric; compute at %.3f "
	       "of 312 TFLOP/s, calibrated on the 1.7 B row; b = 1\n\n", eff);
	print_table1(eff);
	print_sensitivity(eff);
	print_end_to_end(eff);
	return 0;
}

/* What a SPEC sets. */
struct spec {
	struct llm_model m;     /* the model (a preset, then overrides) */
	struct llm_shape sh;    /* the shape; tp = pp = 0: choose */
	uint64_t gpus;          /* GPUs; 0 = dp x tp x pp */
	uint64_t batch;         /* global batch; 0 = dp x m x b */
	double eff;             /* efficiency; 0 = calibrated */
	char gpu[32];           /* GPU type of the table; "" = A100-80GB */
	uint32_t per_node;      /* GPUs per node; 0 = 8 */
};

/* Reads one KEY=VALUE into sp; 2 (printed) on a bad one. */
static int spec_key(struct spec *sp, const char *key, const char *val)
{
	static const char *const uk[] = { "dp", "tp", "pp", "microbatches",
		"micro_batch", "interleave", "layers", "hidden", "heads",
		"seq_len", "vocab", "zero_stage" };
	uint32_t *const up[] = { &sp->sh.dp, &sp->sh.tp, &sp->sh.pp,
		&sp->sh.microbatches, &sp->sh.micro_batch, &sp->sh.interleave,
		&sp->m.layers, &sp->m.hidden, &sp->m.heads, &sp->m.seq_len,
		&sp->m.vocab, &sp->m.zero_stage };
	char *end;
	double x = strtod(val, &end);
	bool num = *val && !*end && isfinite(x) && x >= 0;
	for (size_t i = 0; i < sizeof(uk) / sizeof(uk[0]); i++)
		if (strcmp(key, uk[i]) == 0) {
			if (!num || x != floor(x) || x > 1e6)
				goto bad;
			*up[i] = (uint32_t)x;
			return 0;
		}
	if (strcmp(key, "gpu") == 0 && strlen(val) < sizeof(sp->gpu)) {
		snprintf(sp->gpu, sizeof(sp->gpu), "%s", val);
		return 0;
	}
	if (strcmp(key, "per_node") == 0 && num && x == floor(x) && x >= 1 &&
	    x <= 64) {
		sp->per_node = (uint32_t)x;
		return 0;
	}
	if (strcmp(key, "model") == 0) {
		const struct llm_model *pre = llm_preset_find(val);
		if (!pre) {
			fprintf(stderr, "clustersim: parallelism: model: unknown "
				"preset '%s'\n", val);
			return 2;
		}
		sp->m = *pre;
		return 0;
	}
	if (!num)
		goto bad;
	if (strcmp(key, "gpus") == 0 && x == floor(x) && x >= 1 && x <= 1e9)
		sp->gpus = (uint64_t)x;
	else if (strcmp(key, "batch") == 0 && x == floor(x) && x <= 1e9)
		sp->batch = (uint64_t)x;
	else if (strcmp(key, "parameters") == 0)
		sp->m.parameters = x;
	else if (strcmp(key, "comm_overlap") == 0)
		sp->m.comm_overlap = x;
	else if (strcmp(key, "efficiency") == 0 && x > 0 && x <= 1)
		sp->eff = x;
	else
		goto bad;
	return 0;
bad:
	fprintf(stderr, "clustersim: parallelism: %s: unknown key or bad "
		"value '%s'\n", key, val);
	return 2;
}

static int spec_parse(const char *text, struct spec *sp)
{
	char *s = xstrdup(text), *save = NULL;
	int rc = 0;
	*sp = (struct spec){ .sh = { .micro_batch = 1, .interleave = 1 } };
	sp->m.name = "custom";
	llm_model_defaults(&sp->m);
	for (char *kv = strtok_r(s, ",", &save); kv && !rc;
	     kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq) {
			fprintf(stderr, "clustersim: parallelism: expected "
				"KEY=VALUE, got '%s'\n", kv);
			rc = 2;
			break;
		}
		*eq = '\0';
		rc = spec_key(sp, kv, eq + 1);
	}
	free(s);
	return rc;
}

static void print_one(const struct spec *sp, const struct llm_memory *mem,
		      const struct llm_step *st, double eff)
{
	const struct llm_shape *sh = &sp->sh;
	printf("model %s: %.4g parameters, %u layers, hidden %u\n",
	       sp->m.name, llm_model_parameters(&sp->m), sp->m.layers,
	       sp->m.hidden);
	printf("shape: dp %u x tp %u x pp %u = %llu GPUs, %u micro-batches "
	       "of %u, interleave %u, batch %llu\n", sh->dp, sh->tp, sh->pp,
	       (unsigned long long)llm_shape_gpus(sh), sh->microbatches,
	       sh->micro_batch, sh->interleave,
	       (unsigned long long)llm_shape_batch(sh));
	printf("memory per GPU: %.2f GB (weights %.2f, gradients %.2f, "
	       "optimizer %.2f, activations %.2f)\n", mem->total / 1e9,
	       mem->weights / 1e9, mem->grads / 1e9, mem->optimizer / 1e9,
	       mem->activations / 1e9);
	printf("step: %.4f s (compute %.4f, memory-bound %.4f, bubble %.4f, "
	       "tp %.4f, pp %.4f, dp %.4f of which exposed %.4f)\n",
	       st->step_s, st->compute_s, st->memory_s, st->bubble_s,
	       st->tp_s, st->pp_s, st->dp_s, st->dp_exposed_s);
	printf("%.4g FLOPs per step, %.1f TFLOP/s per GPU at efficiency "
	       "%.3f\n", st->flops, st->tflops_per_gpu, eff);
}

static int one(const char *text)
{
	struct spec sp;
	struct llm_gpu gpu;
	struct llm_place pl;
	struct llm_memory mem;
	struct llm_step st;
	struct sim_error err = { .msg = "" };
	int rc = spec_parse(text, &sp);
	if (rc)
		return rc;
	llm_megatron_gpu(&gpu);
	if ((sp.gpu[0] || sp.per_node) &&
	    llm_gpu_of_type(sp.gpu[0] ? sp.gpu : "a100-80gb",
			    sp.per_node ? sp.per_node : 8, "gpu", &gpu, &err))
		return cli_report(2, &err);
	if (sp.sh.tp || sp.sh.pp) { /* one given: the other is 1 */
		sp.sh.tp = sp.sh.tp ? sp.sh.tp : 1;
		sp.sh.pp = sp.sh.pp ? sp.sh.pp : 1;
	}
	if (!sp.sh.tp) {
		uint64_t gpus = sp.gpus ? sp.gpus : 0;
		uint64_t batch = sp.batch ? sp.batch : gpus;
		if (!gpus) {
			fprintf(stderr, "clustersim: parallelism: gpus: needed "
				"when tp or pp is not given\n");
			return 2;
		}
		if (llm_fit_shape(&sp.m, &gpu, gpus, batch, &sp.sh, "$", &err))
			return cli_report(2, &err);
	} else if (!sp.sh.dp && sp.gpus) {
		sp.sh.dp = (uint32_t)(sp.gpus / ((uint64_t)sp.sh.tp * sp.sh.pp));
	}
	if (!sp.sh.dp)
		sp.sh.dp = 1;
	if (sp.batch && !sp.sh.microbatches)
		sp.sh.microbatches = (uint32_t)(sp.batch /
			((uint64_t)sp.sh.dp * sp.sh.micro_batch));
	if (!sp.sh.microbatches)
		sp.sh.microbatches = 1;
	double eff = sp.eff > 0 ? sp.eff : llm_megatron_calibrate();
	if (llm_shape_check(&sp.m, &sp.sh, sp.gpus, gpu.per_node, "$", &err) ||
	    llm_place_packed(&sp.sh, gpu.per_node, LLM_MEGATRON_FABRIC_BPS,
			     LLM_MEGATRON_LATENCY_USEC, &pl, &err) ||
	    llm_step_time(&sp.m, &sp.sh, &gpu, &pl, eff, &st, &err))
		return cli_report(2, &err);
	llm_memory(&sp.m, &sp.sh, &mem);
	print_one(&sp, &mem, &st, eff);
	if (mem.total > gpu.mem_bytes) {
		fprintf(stderr, "clustersim: parallelism: the shape needs %.1f "
			"GB per GPU, more than the %s's %.1f GB\n",
			mem.total / 1e9, gpu.name, gpu.mem_bytes / 1e9);
		return 2;
	}
	return 0;
}

int cli_parallelism(const struct cli_args *a)
{
	return a->operand ? one(a->operand) : validation();
}
