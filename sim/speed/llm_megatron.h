/*
 * The validation of the large-model step time (llm.h) against the
 * Megatron-LM weak-scaling study: Narayanan et al., "Efficient
 * Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
 * SC'21 (arXiv:2104.04473), Table 1: GPT models from 1.7 B to 1 T
 * parameters on 32 to 3,072 A100-80GB GPUs of NVIDIA's Selene (DGX A100
 * nodes of 8 GPUs, 8 HDR InfiniBand HCAs of 200 Gb/s each per node).
 * The compute efficiency is calibrated on the 1.7 B row; the other rows
 * are predictions.  Also the paper's sensitivity studies (tensor against
 * pipeline split, interleaved schedule, micro-batch size) and its
 * end-to-end training-time estimates (eq. 4).  docs/parallelism.md shows
 * the tables (`clustersim parallelism` prints them).
 */
#ifndef CLUSTERSIM_LLM_MEGATRON_H
#define CLUSTERSIM_LLM_MEGATRON_H

#include "speed/llm.h"

/* One row of Table 1. */
struct llm_megatron_row {
	const char *model;     /* preset name (llm_preset_find) */
	uint32_t gpus;         /* GPUs */
	uint32_t tp;           /* tensor-parallel size */
	uint32_t pp;           /* pipeline-parallel size */
	uint32_t batch;        /* global batch size (sequences) */
	double paper_tflops;   /* achieved teraFLOP/s per GPU, Table 1 */
};

/* The rows of Table 1, the calibration row (1.7 B) first. */
size_t llm_megatron_rows(const struct llm_megatron_row **rows);

/* The cluster of the study: A100-80GB, 8 per node, 25 GB/s (200 Gb/s)
 * per GPU across the fabric, 2 us per fabric step (4 links of 0.5 us,
 * docs/network.md). */
void llm_megatron_gpu(struct llm_gpu *gpu);
#define LLM_MEGATRON_FABRIC_BPS 25e9
#define LLM_MEGATRON_LATENCY_USEC 2.0

/* The assumed micro-batch size of every Table 1 row (the table gives
 * none); the schedule assumed is plain 1F1B (docs/parallelism.md). */
#define LLM_MEGATRON_MICRO_BATCH 1

/*
 * A row's model, shape and placement (ranks packed as Megatron-LM
 * orders them); interleave 0 = plain 1F1B, else v chunks per stage.  -SIM_EINPUT for an
 * inconsistent row.
 */
int llm_megatron_setup(const struct llm_megatron_row *r, uint32_t interleave,
		       struct llm_model *m, struct llm_shape *sh,
		       struct llm_place *pl, struct sim_error *err);

/* A row's prediction at efficiency eff. */
int llm_megatron_predict(const struct llm_megatron_row *r,
			 uint32_t interleave, double eff, struct llm_step *st,
			 struct sim_error *err);

/* The efficiency (fraction of peak) at which the calibration row's
 * prediction equals the paper's figure. */
double llm_megatron_calibrate(void);

/* Eq. 4 of the paper: end-to-end training time in seconds,
 * 8 T P / (n X), for T tokens, P parameters, n GPUs at X FLOP/s each. */
double llm_train_seconds(double tokens, double parameters, double gpus,
			 double flops_per_gpu);

#endif
