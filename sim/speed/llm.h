/*
 * Large-model training: a transformer's memory per GPU, FLOPs per step and
 * step time under data (dp), tensor (tp) and pipeline (pp) parallelism
 * (docs/parallelism.md has every formula with its source, the validation
 * against Megatron-LM and where the model departs).
 *
 * The model is analytic and stateless: the caller (the engine, a
 * generator, the `parallelism` command) gives a model, a shape, a GPU's
 * figures and a placement description, and gets figures back.  The
 * placement description is what the engine knows from its placement and
 * its fabric model (speed/net.h): for each of the tp, pp and dp groups,
 * how many nodes it spans, how many of its members sit on each node, and
 * the bandwidth each member's flow gets across the fabric.  llm_traffic()
 * says how many bytes each member sends per step in each group, so that
 * the engine can weigh the flows it makes; the rate it gets back goes in
 * the placement.
 *
 * Sources (full references in docs/parallelism.md):
 *  - FLOPs per step with full activation recomputation, bubble, the
 *    interleaved schedule, the tp/pp communication volumes: Narayanan et
 *    al., "Efficient Large-Scale Language Model Training on GPU Clusters
 *    Using Megatron-LM", SC'21 (arXiv:2104.04473), eq. 1-3 and section 3.
 *  - Activation memory per layer: Korthikanti et al., "Reducing
 *    Activation Recomputation in Large Transformer Models", 2022
 *    (arXiv:2205.05198), section 4.
 *  - ZeRO sharding: Rajbhandari et al., "ZeRO: Memory Optimizations
 *    Toward Training Trillion Parameter Models", SC'20, section 5.
 *
 * Units are in the names: _bytes, _Bps bytes/s, _s seconds, _usec
 * microseconds; FLOP/s are plain doubles (peak_flops).
 */
#ifndef CLUSTERSIM_LLM_H
#define CLUSTERSIM_LLM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clustersim/clustersim.h"
#include "speed/jobclass_gpu.h"

/* What the backward pass recomputes (Korthikanti et al. 2022). */
enum llm_recompute {
	LLM_RECOMPUTE_FULL = 0, /* only each layer's input is kept; the
	                           forward runs again (Megatron SC'21) */
	LLM_RECOMPUTE_SELECTIVE, /* the attention core is recomputed */
	LLM_RECOMPUTE_NONE,      /* every activation is kept */
	LLM_RECOMPUTE_COUNT
};

/* A GPT-style decoder-only transformer and how it is trained. */
struct llm_model {
	const char *name;        /* preset name or the caller's label */
	double parameters;       /* parameter count; 0 = derived from the
	                            shape by llm_parameters() */
	uint32_t layers;         /* transformer layers, l */
	uint32_t hidden;         /* hidden size, h */
	uint32_t heads;          /* attention heads, a */
	uint32_t seq_len;        /* sequence length, s */
	uint32_t vocab;          /* vocabulary size, V */
	double bytes_weights;    /* bytes per parameter: weights (2, BF16) */
	double bytes_grads;      /* gradients (2) */
	double bytes_optimizer;  /* optimizer state (12: FP32 master, Adam's
	                            two moments) */
	uint32_t zero_stage;     /* 0-3: what is sharded over dp (1: the
	                            optimizer, 2: + gradients, 3: + weights) */
	enum llm_recompute recompute; /* activation recomputation */
	double act_bytes;        /* activation bytes per micro-batch per
	                            layer on one GPU; 0 = Korthikanti's
	                            formula for the recomputation */
	double comm_overlap;     /* fraction 0-1 of the dp all-reduce hidden
	                            under the backward pass */
	uint32_t interleave;     /* model chunks per pipeline stage that a
	                            job of it runs by default, v (the
	                            interleaved schedule); 0 or 1 = plain
	                            1F1B */
	const char *source;      /* where the figures come from */
};

/* The defaults of a model's training settings: bytes 2/2/12, ZeRO 0,
 * full recomputation, derived activations, no overlap.  The architecture
 * fields are left as they are. */
void llm_model_defaults(struct llm_model *m);

/* How one job is split. */
struct llm_shape {
	uint32_t dp;           /* data-parallel replicas, d */
	uint32_t tp;           /* tensor-parallel degree, t */
	uint32_t pp;           /* pipeline stages, p */
	uint32_t microbatches; /* micro-batches per pipeline per step, m */
	uint32_t micro_batch;  /* sequences per micro-batch, b */
	uint32_t interleave;   /* model chunks per stage, v (1 = plain 1F1B) */
};

/* GPUs of the shape: dp x tp x pp. */
uint64_t llm_shape_gpus(const struct llm_shape *sh);
/* Sequences per step (the global batch): dp x m x b. */
uint64_t llm_shape_batch(const struct llm_shape *sh);

/* A GPU type's figures, from its datasheet (the GPU table of the cluster
 * comes later; these are inputs). */
struct llm_gpu {
	const char *name;       /* "A100-80GB" */
	double peak_flops;      /* dense FP16/BF16 tensor FLOP/s */
	double mem_bytes;       /* memory */
	double mem_Bps;         /* memory bandwidth (0: no memory-bound
	                           term in the step) */
	double nvlink_Bps;      /* NVLink bandwidth per GPU per direction */
	uint32_t per_node;      /* GPUs of a node sharing NVLink */
	const char *source;     /* the datasheet */
};

/* The figures of a GPU type of the table (jobclass_gpu.h: built-in
 * names such as "a100-80gb", "h100"), per_node of them sharing NVLink
 * in a node; the table's NVLink figure (both directions) is halved.
 * -SIM_EINPUT with "PREFIX: unknown gpu type 'x' (k80, ...)" for a name
 * the table does not have. */
int llm_gpu_of_type(const char *name, uint32_t per_node, const char *prefix,
		    struct llm_gpu *g, struct sim_error *err);
/* NVIDIA A100 80GB SXM of the table: 312 TFLOP/s dense BF16, 80 GB,
 * NVLink 3 at 600 GB/s both directions (300 per direction), 8 per HGX
 * node. */
void llm_gpu_a100_80gb(struct llm_gpu *g);

/* The nodes and bandwidth of one communication group. */
struct llm_group_place {
	uint32_t nodes;        /* nodes the group spans (1: inside a node) */
	uint32_t per_node;     /* members of the group on each such node */
	double fabric_Bps;     /* bytes/s each member's flow gets across the
	                          fabric (the engine's max-min share); unused
	                          when nodes == 1 */
	double latency_usec;   /* latency of one step across the fabric */
};

/* Where a job's groups sit. */
struct llm_place {
	struct llm_group_place tp; /* one tensor-parallel group */
	struct llm_group_place pp; /* one pipeline (its stages) */
	struct llm_group_place dp; /* one data-parallel group */
};

/*
 * The placement Megatron-LM's rank order gives on whole nodes of
 * gpus_per_node GPUs, every GPU with fabric_Bps of its own across the
 * fabric: ranks numbered tp fastest, then dp, then pp, nodes filled in
 * rank order.  -SIM_EINPUT when tp does not divide gpus_per_node or the
 * node size does not divide tp (the groups would straddle nodes
 * unevenly).
 */
int llm_place_packed(const struct llm_shape *sh, uint32_t gpus_per_node,
		     double fabric_Bps, double latency_usec,
		     struct llm_place *pl, struct sim_error *err);

/* Parameters from the architecture: 12 l h^2 (1 + 13/(12h) +
 * (V + s)/(12 l h)) (Narayanan et al. SC'21, eq. 2). */
double llm_parameters(const struct llm_model *m);
/* m->parameters, or llm_parameters() when it is 0. */
double llm_model_parameters(const struct llm_model *m);

/* Memory of one GPU, in bytes, by part. */
struct llm_memory {
	double weights;      /* its share of the weights */
	double grads;        /* of the gradients */
	double optimizer;    /* of the optimizer state */
	double activations;  /* activations of the micro-batches in flight
	                        on pipeline stage 0 (the most loaded) */
	double total;        /* the sum */
};
void llm_memory(const struct llm_model *m, const struct llm_shape *sh,
		struct llm_memory *mem);
/* One layer's whole activations for one micro-batch on one GPU,
 * s b h (10 + 24/t + 5 a s/(h t)) bytes (Korthikanti et al. 2022). */
double llm_act_full_layer(const struct llm_model *m,
			  const struct llm_shape *sh);
/* Activation bytes of one micro-batch for one layer on one GPU. */
double llm_act_bytes_layer(const struct llm_model *m,
			   const struct llm_shape *sh);

/* FLOPs of one training step of the whole job, as Megatron-LM counts
 * them: with full recomputation 96 B s l h^2 (1 + s/(6h) + V/(16 l h)),
 * without 72 B s l h^2 (1 + s/(6h) + V/(12 l h)), B = the global batch. */
double llm_step_flops(const struct llm_model *m, const struct llm_shape *sh);

/* The pipeline bubble as a fraction of the ideal compute time:
 * (p - 1) / (v m) (SC'21 section 2.2); 0 when p == 1. */
double llm_bubble_ratio(const struct llm_shape *sh);
/* The same as a fraction of the step: (p - 1) / (v m + p - 1). */
double llm_bubble_fraction(const struct llm_shape *sh);

/* Tensor-parallel all-reduces per layer per micro-batch: 2 forward + 2
 * backward (SC'21 sec. 3.2), + 2 when full recomputation reruns the
 * forward. */
unsigned llm_tp_allreduces(const struct llm_model *m);

/* Bytes each member of each group sends per step (what the engine's
 * flows carry). */
struct llm_traffic {
	double tp_bytes;  /* tensor-parallel all-reduces, whole step */
	double pp_bytes;  /* activation and gradient sends to neighbours */
	double dp_bytes;  /* the gradient all-reduce (ring volume) */
};
void llm_traffic(const struct llm_model *m, const struct llm_shape *sh,
		 struct llm_traffic *tr);

/* One step's time and its parts, seconds. */
struct llm_step {
	double flops;          /* llm_step_flops() */
	double compute_s;      /* FLOPs per GPU / (peak x efficiency) */
	double memory_s;       /* memory-bound element-wise work */
	double bubble_s;       /* pipeline fill and drain */
	double tp_s;           /* tensor-parallel all-reduces on the path */
	double pp_s;           /* pipeline sends on the path */
	double dp_s;           /* the gradient all-reduce, whole */
	double dp_exposed_s;   /* the part not hidden under backward */
	double step_s;         /* the step */
	double tflops_per_gpu; /* flops / (step_s x GPUs) / 1e12 */
};

/*
 * The step time of the model in the shape on gpu at compute efficiency
 * eff (0-1 of peak) with placement pl.  -SIM_EINPUT with a message when
 * the shape or placement is inconsistent (llm_shape_check()).
 */
int llm_step_time(const struct llm_model *m, const struct llm_shape *sh,
		  const struct llm_gpu *gpu, const struct llm_place *pl,
		  double eff, struct llm_step *st, struct sim_error *err);

/* Ring all-reduce of bytes over n members at bandwidth B with latency
 * alpha: 2 (n-1) alpha + 2 (n-1)/n bytes / B; 0 when n <= 1. */
double llm_ring_allreduce_s(uint32_t n, double bytes, double bw_Bps,
			    double latency_usec);

/*
 * Checks a model and a shape: positive sizes, layers divisible by pp x v,
 * heads and hidden by tp, the product of the shape equal to gpus (when
 * gpus is not 0), tp at most gpus_per_node (when not 0).  Messages are
 * "PREFIX.FIELD: reason 'value'" with PREFIX the caller's JSON path of the
 * job ("" for none).  0 or -SIM_EINPUT.
 */
int llm_shape_check(const struct llm_model *m, const struct llm_shape *sh,
		    uint64_t gpus, uint32_t gpus_per_node, const char *prefix,
		    struct sim_error *err);

/*
 * The smallest tp x pp (then the smallest tp) with tp dividing
 * gpu->per_node, pp dividing the layers, and dp = gpus / (tp x pp) whole,
 * whose memory per GPU fits gpu->mem_bytes; the global batch sh->dp x m x
 * b is kept as near as a whole m allows.  sh is read for micro_batch,
 * interleave and the batch, and rewritten.  -SIM_EINPUT when no shape
 * fits, saying the memory of the most split shape tried.
 */
int llm_fit_shape(const struct llm_model *m, const struct llm_gpu *gpu,
		  uint64_t gpus, uint64_t batch, struct llm_shape *sh,
		  const char *prefix, struct sim_error *err);

/*
 * What a large-model job of a workload trains (struct job's llm field is
 * an index + 1 into its workload's table of these): the model, and the
 * micro-batches and micro-batch size of its steps.  The shape is the
 * job's own (dp = gpus / (tp x pp)).
 */
struct llm_job {
	struct llm_model model; /* a copy; name and source point to the
	                           preset table or the workload's strings */
	uint32_t microbatches;  /* micro-batches per pipeline per step, m */
	uint32_t micro_batch;   /* sequences per micro-batch, b */
	uint32_t interleave;    /* model chunks per pipeline stage, v
	                           (0 or 1: plain 1F1B) */
};

/* The shape of job j (tp, pp and gpus) training lj, with lj's
 * micro-batches and interleave. */
void llm_job_shape(const struct job *j, const struct llm_job *lj,
		   struct llm_shape *sh);

/* The figures of GPU type t of the table (or of an experiment's own),
 * per_node of them sharing NVLink in a node (as llm_gpu_of_type). */
void llm_gpu_of_info(const struct jobclass_gpu_info *t, uint32_t per_node,
		     struct llm_gpu *g);

/* The preset table of published models. */
size_t llm_preset_count(void);
const struct llm_model *llm_preset(size_t i);
/* By name, or NULL. */
const struct llm_model *llm_preset_find(const char *name);

#endif
