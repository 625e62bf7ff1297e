/*
 * GPU types: the built-in table of GPU models with their data-sheet
 * figures (peak dense FP32 and FP16/BF16 tensor FLOP/s, memory and its
 * bandwidth, NVLink bandwidth), each row with its source.
 *
 * Two things read it.  The throughput tables (jobclass.h): Gavel
 * measured its 26 job classes on the first three types only (k80, p100,
 * v100); on any other type a class's throughput is carried over from the
 * nearest measured type by a rule of these figures (the experiment's
 * "derive_throughputs", jobclass_override.h), and is marked as derived
 * wherever it shows.  And a model of a job's step time from first
 * principles (peak FLOP/s, memory bytes, NVLink bandwidth), which reads
 * the figures alone.  An experiment extends the table with its own types
 * ("gpu_types", jobclass_override.h); docs/gpu-models.md lists the rows.
 * Everything here is const data.
 */
#ifndef CLUSTERSIM_JOBCLASS_GPU_H
#define CLUSTERSIM_JOBCLASS_GPU_H

#include <stdbool.h>
#include <stddef.h>

/* The built-in GPU types, indices from 0.  Gavel's three come first (the
 * class tables hold rows for them), then the others.  Fields only ever
 * appended. */
enum jobclass_gpu {
	JOBCLASS_GPU_K80 = 0,
	JOBCLASS_GPU_P100,
	JOBCLASS_GPU_V100,
	JOBCLASS_GPU_T4,
	JOBCLASS_GPU_A10,
	JOBCLASS_GPU_A100_40GB,
	JOBCLASS_GPU_A100_80GB,
	JOBCLASS_GPU_H100,
	JOBCLASS_GPU_H200,
	JOBCLASS_GPU_L40S,
	JOBCLASS_NGPU
};

/* The types the class tables (Gavel's measurements) have rows for: the
 * first three.  Every other type has no measured figure for Gavel's
 * classes unless an experiment's "throughputs" gives one. */
#define JOBCLASS_NGPU_GAVEL 3

/* Most GPU types one experiment may know: the built-in ones and its own
 * "gpu_types" entries together (an override's figure array is this
 * long). */
#define JOBCLASS_GPU_MAX 64

/*
 * One GPU type: one GPU as a job sees it (one GK210 of a K80 board).
 * Peak figures are dense (no structured sparsity), at boost clock, as
 * the data sheet gives them.
 */
struct jobclass_gpu_info {
	const char *name;    /* short name used in experiments: "v100" */
	const char *model;   /* the product: "NVIDIA Tesla V100 SXM2 16GB" */
	double mem_gb;       /* memory of one GPU, GB (10^9 bytes, as the
	                        data sheet writes it) */
	const char *source;  /* where the figures come from */
	double fp32_tflops;  /* peak FP32 (non-tensor), 10^12 FLOP/s */
	double fp16_tflops;  /* peak dense FP16/BF16, tensor cores where the
	                        GPU has them, else its FP16 rate (K80: none
	                        faster than FP32, so the FP32 figure) */
	double memory_GBps;  /* memory bandwidth, 10^9 bytes/s */
	double nvlink_GBps;  /* NVLink bandwidth of one GPU, all links, both
	                        directions, 10^9 bytes/s; 0 = no NVLink */
};

/* Number of built-in types (JOBCLASS_NGPU). */
size_t jobclass_gpu_count(void);
/* A built-in type by index; NULL when out of range. */
const struct jobclass_gpu_info *jobclass_gpu_at(size_t i);
/* A built-in type by its exact name, compared case-insensitively on
 * letters and digits only ("A100-80GB", "a100_80gb"); its index or -1.
 * (jobclass_gpu_lookup() also accepts vendor prefixes and suffixes.) */
int jobclass_gpu_find(const char *name);

/* Whether two type names are the same on letters and digits, case
 * ignored ("A100-80GB" and "a100_80gb"). */
bool jobclass_same_name(const char *a, const char *b);

/* The built-in names, "k80, p100, ..., l40s", into buf (cut to cap). */
void jobclass_gpu_names(char *buf, size_t cap);

/* The figures in the units a step-time model takes: peak dense FP16/BF16
 * FLOP/s, memory bytes, NVLink bytes/s of one GPU of type t. */
double jobclass_gpu_peak_flops(const struct jobclass_gpu_info *t);
double jobclass_gpu_mem_bytes(const struct jobclass_gpu_info *t);
double jobclass_gpu_nvlink_Bps(const struct jobclass_gpu_info *t);

#endif
