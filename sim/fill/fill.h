/*
 * The openb readers and the fill experiment of Weng et al., "Beware of
 * Fragmentation" (USENIX ATC 2023, section 6): GPU-sharing pods arrive one
 * by one, never leave, and are placed at once by a score plugin (score.h)
 * or fail; the GPU allocation ratio and the fragmentation are recorded
 * against the arrived GPU load.
 */
#ifndef CLUSTERSIM_FILL_H
#define CLUSTERSIM_FILL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fill/frag.h"

/* How an openb list is read (NULL: strict, the default size limit). */
struct openb_opts {
	bool lenient;       /* skip malformed rows, counting them */
	uint64_t max_bytes; /* refuse a file above this; 0 = INPUT_MAX_BYTES */
	uint64_t max_nodes; /* refuse more nodes than this; 0 = any */
	uint64_t max_pods;  /* refuse more pods in a list than this; 0 = any */
};

/*
 * Reads an openb node list (columns sn, cpu_milli, memory_mib, gpu, model;
 * other columns ignored) into an empty cluster c.  Errors "FILE:LINE:
 * message", or "FILE: message" for a file with no node (or one that is not
 * a regular file, or too big: base/input.h); returns 0 or a negative code.
 * Malformed rows skipped under o->lenient are counted in *malformed (may
 * be NULL).  The SHA-256 of the file's bytes as read goes to sha256
 * (INPUT_SHA256_HEX bytes; may be NULL).
 */
int openb_load_nodes(const char *path, const struct openb_opts *o,
		     uint64_t *malformed, struct frag_cluster *c,
		     char *sha256, struct sim_error *err);
/*
 * Reads an openb pod list (name, cpu_milli, memory_mib, num_gpu,
 * gpu_milli required; gpu_spec, creation_time, deletion_time optional) into
 * a new array *pods of *n.  GPU model names in gpu_spec are resolved
 * against c's models (a pod naming none of them fits nowhere).  Pod kinds
 * (gpu_clustering) are numbered in order of first appearance; *nkinds is
 * their count.  Errors as openb_load_nodes().
 */
int openb_load_pods(const char *path, const struct openb_opts *o,
		    uint64_t *malformed, const struct frag_cluster *c,
		    struct score_pod **pods, size_t *n, uint32_t *nkinds,
		    char *sha256, struct sim_error *err);

/*
 * Renumbers pods[0..n)'s kinds as the FGD paper's simulator defines them
 * for gpu_clustering: one "share-gpu" kind for every pod asking a share
 * of one GPU, one kind per whole-GPU count, in order of first appearance
 * (CPU-only pods: kind 0, counted nowhere).  Returns the number of kinds.
 */
uint32_t fill_kinds_share_gpu(struct score_pod *pods, size_t n);

/* One recorded point of a fill run: when the arrived GPU demand first
 * reached step percent of the cluster's GPU capacity. */
struct fill_point {
	uint32_t pct;        /* arrived load, percent of GPU capacity */
	uint64_t arrived;    /* GPU demand arrived so far, thousandths */
	uint64_t allocated;  /* GPU share allocated, thousandths */
	double frag;         /* cluster fragmentation, thousandths */
	uint64_t pods;       /* pods arrived */
	uint64_t failed;     /* pods that found no node */
};

/* The result of one fill run. */
struct fill_result {
	struct fill_point *points; /* one per percent, 1 .. target */
	size_t npoints;
	uint64_t pods;             /* pods that arrived */
	uint64_t failed;           /* of them, not placed */
	uint64_t failed_gpu;       /* failed pods that asked for GPUs */
	uint64_t allocated;        /* GPU share allocated at the end
	                              (thousandths); arrivals may go on past
	                              the last point when the list alone
	                              asks more than the target */
};

/*
 * One fill run: all of pods[0..n), plus pods drawn with replacement from
 * them until the total GPU demand reaches target (a share of the GPU
 * capacity, e.g. 1.3), in a random order (both from seed), each placed by
 * score or failed.  c must be ready (frag_cluster_ready) with the target
 * workload; it is reset first and left filled.  Returns 0, or -1 when the
 * pods ask no GPU at all or the cluster has no GPU.
 */
int fill_run(struct frag_cluster *c, const struct score_pod *pods, size_t n,
	     const struct score_ops *score, double target, uint64_t seed,
	     struct fill_result *res);
void fill_result_release(struct fill_result *res);

#endif
