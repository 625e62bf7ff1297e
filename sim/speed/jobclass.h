/*
 * Job classes and GPU types: the default speed tables of GPU jobs.
 *
 * A job class is one deep-learning training job configuration (a model
 * and its per-GPU batch size).  For every class the table gives its
 * isolated training throughput (steps/s) on each GPU type at 1, 2, 4 and
 * 8 GPUs, with the GPUs in one server (consolidated) or spread across
 * servers (unconsolidated), and its model family, which fixes the bytes
 * of gradient that a data-parallel step all-reduces.
 *
 * Sources: the throughputs are Gavel's measurements (Narayanan et al.,
 * OSDI'20 artifact, gavel-throughputs.json), turned into C once by
 * scripts/gen-gpu-models.py; parameter counts are from the papers and
 * model summaries cited in jobclass.c.  docs/gpu-models.md explains the
 * tables, the mapping of models that Gavel did not measure (the Tiresias
 * trace's CNNs) and what is left out.
 *
 * Index 0 of the class table is JOB_CLASS_NONE.  GPU types are indexed
 * from 0.  (A job's gpu_type constraint is not one of these: it names one
 * of the cluster's own GPU types, cluster_gpu_type_index() + 1.)
 * Everything here is const data: no global mutable state.
 */
#ifndef CLUSTERSIM_JOBCLASS_H
#define CLUSTERSIM_JOBCLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clustersim/clustersim.h"
#include "speed/jobclass_gpu.h"

/* Measured scale factors (GPUs per job): 1, 2, 4, 8 = 1 << index. */
#define JOBCLASS_NSCALE 4

/* Model families: what fixes the gradient size.  The first group has
 * Gavel throughputs; the rest appear in traces (Tiresias) or are large
 * models kept for their gradient size.  The generated table names these
 * as JOBFAM_ + the family name upper-cased, non-alphanumerics as '_'. */
enum jobclass_family {
	JOBFAM_NONE = 0,
	JOBFAM_RESNET_18,       /* CIFAR-10 ResNet-18 (Gavel) */
	JOBFAM_RESNET_50,       /* ImageNet ResNet-50 */
	JOBFAM_TRANSFORMER,     /* Transformer base, Multi30k (Gavel) */
	JOBFAM_LM,              /* 2-layer LSTM, Wikitext-2 (Gavel) */
	JOBFAM_RECOMMENDATION,  /* autoencoder, ML-20M (Gavel) */
	JOBFAM_A3C,             /* A3C-LSTM, Pong (Gavel) */
	JOBFAM_CYCLEGAN,        /* CycleGAN, monet2photo (Gavel) */
	JOBFAM_RESNET_101,
	JOBFAM_RESNET_152,
	JOBFAM_VGG_11,
	JOBFAM_VGG_16,
	JOBFAM_VGG_19,
	JOBFAM_ALEXNET,
	JOBFAM_GOOGLENET,
	JOBFAM_INCEPTION_V3,
	JOBFAM_INCEPTION_V4,
	JOBFAM_BERT_LARGE,
	JOBFAM_GPT_2,
	JOBFAM_COUNT
};

/* One model family. */
struct jobclass_family_info {
	const char *name;   /* "ResNet-50" */
	double params;      /* trainable fp32 parameters; 0 = unknown */
	const char *source; /* paper or model summary that gives params */
};

/*
 * One job class.  A measured class (proxy == JOB_CLASS_NONE) has its own
 * throughputs in thr; a mapped class (a model Gavel did not measure)
 * borrows the throughputs of class `proxy`, times `factor`.
 */
struct jobclass {
	const char *name;  /* "ResNet-50 (batch size 64)" (Gavel's spelling) */
	uint16_t family;   /* enum jobclass_family */
	uint32_t batch;    /* per-GPU batch size; 0 = none (A3C, CycleGAN) */
	uint16_t proxy;    /* mapped classes: the measured class used */
	double factor;     /* mapped classes: steps/s = proxy's x factor */
	/* Isolated throughput, steps/s: [GPU type][log2 scale][0 =
	 * consolidated, 1 = unconsolidated].  NaN = not measured; 0 = Gavel
	 * recorded zero (the job cannot run there). */
	double thr[JOBCLASS_NGPU_GAVEL][JOBCLASS_NSCALE][2];
};

/* Classes generated from Gavel's measurements (jobclass_table.c, made by
 * scripts/gen-gpu-models.py): indices 1 .. JOBCLASS_NGAVEL. */
#define JOBCLASS_NGAVEL 26
extern const struct jobclass jobclass_gavel[JOBCLASS_NGAVEL];

/*
 * The explicit mapping of trace model names (the Tiresias trace's) to
 * classes, with the reason for each choice.  jobclass_find() accepts
 * every spelling listed here.
 */
struct jobclass_alias {
	const char *spelling; /* as the trace writes it: "vgg19" */
	const char *cls;      /* the class it names: "VGG-19" */
	const char *why;      /* why this class / proxy */
};
size_t jobclass_alias_count(void);
const struct jobclass_alias *jobclass_alias_get(size_t i);

/* Number of classes, JOB_CLASS_NONE included (valid indices < count). */
unsigned jobclass_count(void);
/* A class by index; NULL when out of range.  Index 0 is "none". */
const struct jobclass *jobclass_get(unsigned cls);

/* A class by its exact name; its index (>= 1) or -1. */
int jobclass_lookup(const char *name);
/*
 * A class by any accepted spelling: the exact name; the name compared
 * case-insensitively ignoring everything but letters and digits
 * ("resnet-50 (batch size 64)"); a trace alias ("resnet50",
 * "inception3"); or family + batch ("ResNet-50 bs64", "resnet18_bs128").
 * Returns the index (>= 1), or -SIM_EINPUT with "unknown job class
 * 'NAME'" in err (err may be NULL).
 */
int jobclass_find(const char *spelling, struct sim_error *err);

/* A GPU type by index; NULL when out of range. */
const struct jobclass_gpu_info *jobclass_gpu_get(int gpu);
/*
 * A built-in GPU type (jobclass_gpu.h) by name, case-insensitive,
 * ignoring "nvidia"/"tesla", punctuation and a memory or form-factor
 * suffix: "v100", "Tesla V100", "V100M32", "v100-sxm2-16gb" are all v100;
 * an exact name wins ("a100-80gb" is not a100-40gb).  The index, or -SIM_EINPUT
 * with "unknown gpu type 'NAME'" in err (err may be NULL).
 */
int jobclass_gpu_lookup(const char *name, struct sim_error *err);

/* A family by index (NULL when out of range) or by name (normalised as
 * in jobclass_find; the index or -1). */
const struct jobclass_family_info *jobclass_family_get(unsigned fam);
int jobclass_family_find(const char *name);
/* Gradient bytes of one data-parallel step: fp32 parameters x 4; 0 when
 * unknown (JOBFAM_NONE, or a family with no parameter count). */
uint64_t jobclass_family_grad_bytes(unsigned fam);
uint64_t jobclass_grad_bytes(unsigned cls);

/*
 * Isolated throughput (steps/s, summed over the job's GPUs) of class cls
 * on `scale` GPUs of type gpu, consolidated in one server or not.
 * Fallbacks, in order: an unmeasured unconsolidated figure takes the
 * consolidated one at the same scale; an unmeasured scale (not 1, 2, 4,
 * 8, or no figure) takes the 1-GPU figure x scale (linear scaling).  A
 * mapped class returns its proxy's figure x factor.  0 means the job
 * cannot run there (Gavel measured zero).  NaN for JOB_CLASS_NONE, an
 * index out of range, scale 0, or no 1-GPU figure to fall back on.
 */
double jobclass_throughput(unsigned cls, int gpu, unsigned scale,
			   bool consolidated);

/*
 * Speed of class cls on `scale` GPUs of type gpu relative to the
 * reference type ref: work in a trace is run time on the reference type,
 * so a job progresses at this many seconds of work per second.  =
 * throughput(cls, gpu, scale, consolidated) /
 *   throughput(cls, ref, scale, consolidated = true)
 * (a trace's run time is taken as measured on a consolidated placement).
 * JOB_CLASS_NONE runs at speed 1 on every type.  0 where the job cannot
 * run on gpu; NaN where an index is out of range, scale is 0 or the
 * reference throughput is 0 or unknown.
 */
double jobclass_speed(unsigned cls, int gpu, int ref, unsigned scale,
		      bool consolidated);

/*
 * Co-location (packing two jobs on the same GPUs, Gandiva-style): the
 * fraction of its isolated throughput that class a keeps while class b
 * shares its `scale` GPUs of type gpu, from Gavel's pairwise measurements
 * (jobclass_coloc.c, made by scripts/gen-coloc.py; both jobs of the pair
 * have the same scale).  A mapped class uses its proxy's figures.  0 when
 * the pair cannot share (Gavel measured zero: out of memory); NaN when
 * not measured (a class or scale outside the table).
 */
extern const float jobclass_coloc[JOBCLASS_NGPU_GAVEL][JOBCLASS_NSCALE]
				 [JOBCLASS_NGAVEL][JOBCLASS_NGAVEL];
double jobclass_coloc_speed(unsigned a, unsigned b, int gpu, unsigned scale);

#endif
