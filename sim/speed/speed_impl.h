/*
 * The speed model's private state, shared by speed.c (the job classes'
 * throughputs and the fabric) and speed_llm.c (large-model jobs).
 */
#ifndef CLUSTERSIM_SPEED_IMPL_H
#define CLUSTERSIM_SPEED_IMPL_H

#include "speed/llm.h"
#include "speed/speed.h"

/* Where a started large-model job's groups sit (speed_llm.c). */
struct speed_llm_place {
	struct llm_place pl;   /* the spans of its widest tp, pp and dp
	                          groups; bandwidths filled at each rate */
	bool racks[3];         /* tp, pp, dp: a group crosses racks */
	uint32_t gmax;         /* most of its GPUs on one node */
	int gpu;               /* table type of its slowest GPU */
	uint32_t node_gpus;    /* GPUs per node of its first node */
	double step_ref;       /* its step on an ideal placement of
	                          reference GPUs: the pace work counts in */
	double step_ideal;     /* the same on its own GPU type */
};

struct speed {
	struct net *net;   /* the fabric, job ids = job indexes */
	const struct jobclass_overrides *thr; /* table overrides, or NULL */
	int ref;           /* reference GPU type (table index) */
	double nvlink_Bps; /* NVLink bandwidth, bytes/s */
	size_t ngroups;
	uint32_t *gstart;  /* first node of each group; [ngroups] = nodes */
	int *gtype;        /* table GPU type of each group (ref if untyped) */
	uint32_t *nodes;   /* scratch for the fabric: a job's nodes */
	uint32_t *gpus;    /* and its GPUs on each */
	size_t cap;
	uint32_t *ggpus;   /* GPUs per node of each group */
	/* Large-model jobs (speed_llm.c): the workload's table, the
	 * compute efficiency, and each started job's group spans. */
	const struct llm_job *llm; /* NULL = no large-model jobs */
	size_t nllm;
	double llm_eff;    /* fraction of peak (the Megatron calibration) */
	struct speed_llm_place *lp; /* by job index, grown as jobs start */
	size_t lp_cap;
	uint32_t *scratch; /* a group's nodes, for counting */
	size_t scratch_cap;
};

/* A large-model job's rates (speed_llm.c): what the rate, alone and
 * ideal functions of speed.h give such a job. */
enum speed_llm_mode { SPEED_LLM_NOW, SPEED_LLM_ALONE, SPEED_LLM_IDEAL };
double speed_llm_rate(struct speed *sp, const struct job *j,
		      enum speed_llm_mode mode);
/* The table GPU type of a node. */
int speed_node_type(const struct speed *sp, uint32_t node);

#endif
