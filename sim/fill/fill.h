/*
 * The openb readers and the fill experiment of Weng et al., "Beware of
 * Fragmentation" (USENIX ATC 2023, section 6): GPU-sharing pods arrive one
 * by one, never leave, and are placed at once by a score plugin (frag.h)
 * or fail; the GPU allocation ratio and the fragmentation are recorded
 * against the arrived GPU load.
 */
#ifndef CLUSTERSIM_FILL_H
#define CLUSTERSIM_FILL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fill/frag.h"

/*
 * Reads an openb node list (columns sn, cpu_milli, memory_mib, gpu, model;
 * other columns ignored) into an empty cluster c.  Errors "FILE:LINE:
 * message", or "FILE: message" for a file with no node; returns 0 or a
 * negative code.  lenient skips malformed rows, counting them in
 * *malformed (may be NULL).
 */
int openb_load_nodes(const char *path, bool lenient, uint64_t *malformed,
		     struct frag_cluster *c, struct sim_error *err);
/*
 * Reads an openb pod list (name, cpu_milli, memory_mib, num_gpu,
 * gpu_milli required; gpu_spec, creation_time, deletion_time optional) into
 * a new array *pods of *n.  GPU model names in gpu_spec are resolved
 * against c's models (a pod naming none of them fits nowhere).  Pod kinds
 * (gpu_clustering) are numbered in order of first appearance; *nkinds is
 * their count.  Errors as openb_load_nodes().
 */
int openb_load_pods(const char *path, bool lenient, uint64_t *malformed,
		    const struct frag_cluster *c, struct frag_pod **pods,
		    size_t *n, uint32_t *nkinds, struct sim_error *err);

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
int fill_run(struct frag_cluster *c, const struct frag_pod *pods, size_t n,
	     frag_score_fn score, double target, uint64_t seed,
	     struct fill_result *res);
void fill_result_release(struct fill_result *res);

struct run_opts;
/* The stem of a pod list's path: "a/b/openb_pod_list_default.csv" ->
 * "openb_pod_list_default"; caller frees. */
char *fill_list_stem(const char *path);
/* v as fmt_double() writes it, then sep. */
void fill_put_double(FILE *f, double v, const char *sep);

/* One cell of a band file: the mean, least and greatest of the values
 * the seeds give (a seed whose run is shorter gives none). */
struct fill_band {
	double sum, lo, hi;
	size_t n;
};
void fill_band_add(struct fill_band *b, double v);
/* ",mean,min,max", or ",,," when no seed gave a value. */
void fill_band_put(FILE *f, const struct fill_band *b);
/* The header: first, then LABEL_WHAT_mean,_min,_max for each of the npol
 * labels and the nwhat measures, and a newline. */
void fill_band_header(FILE *f, const char *first, const char *const *labels,
		      size_t npol, const char *const *what, size_t nwhat);

/*
 * Draws plots/fill/SCRIPT.gp for each of scripts[] over one pod list's
 * OUTDIR/MODE-STEM.csv (MODE "fill" or "replay"), one curve per label,
 * PNG and SVG, into OUTDIR/plots/SCRIPT-STEM.*; gnuplot's messages go to
 * plots/gnuplot.log.  0 or a negative code with err set.
 */
int fill_plot(const char *outdir, const char *mode, const char *stem,
	      const char *const *scripts, size_t nscripts,
	      const char *const *labels, size_t npol, struct sim_error *err);

struct experiment;
/*
 * Runs the fill experiment of an experiment file (fill_run.c) with the
 * resolved policies (labels and "$.policies[i]" paths in the same order)
 * into outdir; with o->validate_only only checks.  Returns the process
 * exit code (0, 1 a run or write failed, 2 bad input), message in err.
 */
int fill_experiment(const struct run_opts *o, const struct experiment *e,
		    const struct policy_ops *const *ops,
		    const char *const *labels, const char *const *json_paths,
		    size_t npol, const char *outdir, struct sim_error *err);

#endif
