/*
 * The Megatron-LM validation (llm_megatron.h): Table 1 of Narayanan et
 * al. SC'21 as data, each row set up as the paper ran it, the
 * calibration of the compute efficiency on its first row, and eq. 4.
 *
 * Each Table 1 figure below is the paper's (arXiv:2104.04473, Table 1:
 * "Weak-scaling throughput for GPT models ranging from 1 billion to 1
 * trillion parameters"); the data-parallel size is GPUs / (t p) and the
 * micro-batches per pipeline batch / (d b).  Example, the 1 T row: 3,072
 * GPUs, t = 8, p = 64, so d = 6 and m = 3072 / 6 = 512 micro-batches of
 * one sequence.  The table gives neither b nor the schedule: b = 1 and
 * plain 1F1B (v = 1) are assumed; the interleaved variant with one layer
 * per chunk (v = layers / p) is the other column of the table.
 */
#include "speed/llm_megatron.h"

#include <math.h>

#include "base/util.h"

/* Table 1 of the paper: model, GPUs, t, p, batch, TFLOP/s per GPU. */
static const struct llm_megatron_row rows[] = {
	{ "megatron-1.7b", 32, 1, 1, 512, 137 },
	{ "megatron-3.6b", 64, 2, 1, 512, 138 },
	{ "megatron-7.5b", 128, 4, 1, 512, 142 },
	{ "megatron-18.4b", 256, 8, 1, 1024, 135 },
	{ "megatron-39.1b", 512, 8, 2, 1536, 138 },
	{ "megatron-76.1b", 1024, 8, 4, 1792, 140 },
	{ "megatron-145.6b", 1536, 8, 8, 2304, 148 },
	{ "megatron-310.1b", 1920, 8, 16, 2160, 155 },
	{ "megatron-529.6b", 2520, 8, 35, 2520, 163 },
	{ "megatron-1t", 3072, 8, 64, 3072, 163 },
};

size_t llm_megatron_rows(const struct llm_megatron_row **r)
{
	*r = rows;
	return sizeof(rows) / sizeof(rows[0]);
}

void llm_megatron_gpu(struct llm_gpu *gpu)
{
	llm_gpu_a100_80gb(gpu);
}

int llm_megatron_setup(const struct llm_megatron_row *r, uint32_t interleave,
		       struct llm_model *m, struct llm_shape *sh,
		       struct llm_place *pl, struct sim_error *err)
{
	const struct llm_model *pre = llm_preset_find(r->model);
	if (!pre)
		return err_set(err, "unknown model '%s'", r->model);
	*m = *pre;
	uint32_t q = r->tp * r->pp, b = LLM_MEGATRON_MICRO_BATCH;
	if (!q || r->gpus % q || r->batch % (r->gpus / q * b))
		return err_set(err, "row '%s': GPUs and batch do not split "
			       "over t x p", r->model);
	*sh = (struct llm_shape){
		.tp = r->tp, .pp = r->pp, .dp = r->gpus / q,
		.micro_batch = b,
	};
	sh->microbatches = r->batch / (sh->dp * b);
	if (!interleave)
		interleave = 1;
	sh->interleave = interleave;
	int rc = llm_shape_check(m, sh, r->gpus, 8, "", err);
	if (rc)
		return rc;
	return llm_place_packed(sh, 8, LLM_MEGATRON_FABRIC_BPS,
				LLM_MEGATRON_LATENCY_USEC, pl, err);
}

int llm_megatron_predict(const struct llm_megatron_row *r,
			 uint32_t interleave, double eff, struct llm_step *st,
			 struct sim_error *err)
{
	struct llm_model m;
	struct llm_shape sh;
	struct llm_place pl;
	struct llm_gpu gpu;
	int rc = llm_megatron_setup(r, interleave, &m, &sh, &pl, err);
	if (rc)
		return rc;
	llm_megatron_gpu(&gpu);
	return llm_step_time(&m, &sh, &gpu, &pl, eff, st, err);
}

double llm_megatron_calibrate(void)
{
	/* The predicted TFLOP/s grows with eff: bisect to the paper's. */
	double lo = 0.01, hi = 1;
	struct sim_error err;
	struct llm_step st;
	for (int i = 0; i < 60; i++) {
		double mid = (lo + hi) / 2;
		if (llm_megatron_predict(&rows[0], 0, mid, &st, &err))
			return NAN;
		if (st.tflops_per_gpu < rows[0].paper_tflops)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double llm_train_seconds(double tokens, double parameters, double gpus,
			 double flops_per_gpu)
{
	return 8 * tokens * parameters / (gpus * flops_per_gpu);
}
