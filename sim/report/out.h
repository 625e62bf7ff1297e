/*
 * Results: one folder per experiment with manifest.json and summary.csv,
 * and one folder per run "<label>-s<seed>/" with jobs.csv, timeline.csv
 * and summary.json.  Every file is written to a temporary name and renamed.
 * Times are seconds as exact decimals, trailing zeros trimmed; a value that
 * does not apply is an empty cell (CSV) or null (JSON).
 */
#ifndef CLUSTERSIM_OUT_H
#define CLUSTERSIM_OUT_H

#include <stdio.h>

#include "exp/exp.h"
#include "engine/sim.h"
#include "report/stats.h"

/* One finished run. */
struct run_result {
	const char *label;     /* unique run label */
	const char *policy;    /* policy name */
	const char *workload;  /* workload name */
	uint64_t seed;
	const struct job *jobs;/* sorted by idx; written sorted by id */
	size_t njobs;
	const struct sample *samples;
	size_t nsamples;
	struct run_counters counters;
	struct metrics metrics;
	const struct pval *params; /* every parameter of the policy, with
	                              defaults filled in (for the manifest) */
	size_t nparams;
	const struct stats_window *window; /* which jobs are measured (jobs.csv
	                              "measured", the CDFs); NULL: all */
	const char *const *gpu_types; /* the cluster's GPU type names, by
	                                 index (jobs.csv gpu_type) */
	size_t ngpu_types;
	const char *const *groups; /* the trace's group (VC) names, by group
	                              id (jobs.csv group); NULL = numbers */
	size_t ngroups;
	uint32_t nodes;        /* the cluster's nodes, CPUs and GPUs (the */
	uint64_t cpus, gpus;   /* header of jobs.swf) */
	bool allocations;      /* write allocations.csv from: */
	const struct alloc_interval *allocs; /* the placement log */
	size_t nallocs;
	const struct place_slot *alloc_slots; /* the extents it names */
	const struct hpo_set *hpo; /* the workload's searches; NULL = none
	                              (then no file says anything of them) */
	const struct hpo_outcome *hpo_out; /* what became of each trial */
	const struct llm_job *llm; /* what the workload's large-model jobs
	                              train (job.llm - 1); NULL = none (then
	                              jobs.csv has no columns of them) */
	size_t nllm;
	const struct tenant_books *tenants; /* the quota books; NULL = no
	                              tenants (then no file says anything
	                              of them) */
	const struct slurm_books *slurm; /* partitions and QOS; NULL = none
	                              (no partitions.csv) */
	bool tenant_run;       /* the run had tenants: its figures for */
	double jain_quota;     /* summary.csv, kept by out_result_release */
	uint64_t reclaims;     /* (NaN: no project with a quota) */
};

/*
 * The results of a finished simulation into r: its jobs, samples and
 * counters, the cluster's size and GPU type names, the workload's group
 * names and, when the run kept it, the placement log.  The caller sets
 * label, policy, workload, seed and params.  r borrows from s and w
 * until out_result_release(), which frees what this allocated and drops
 * the borrowed pointers (the counters and metrics stay).
 */
void out_result_from_sim(struct run_result *r, const struct sim *s,
			 const struct workload *w, bool allocations);
void out_result_release(struct run_result *r);
/* "<label>-s<seed>" into buf (n bytes). */
void out_run_dirname(const struct run_result *r, char *buf, size_t n);
/* Writes OUT/<label>-s<seed>/{jobs.csv,jobs.swf,timeline.csv,
 * summary.json}, allocations.csv when r->allocations, and the cdf_*.csv
 * files (report/cdf.h). */
int out_write_run(const char *outdir, const struct run_result *r,
		  sim_time_t tau, struct sim_error *err);
/* out_hpo.c, for runs with searches: the trial cells appended to a
 * jobs.csv row (OUT_HPO_JOB_HEADER), searches.csv, and summary.json's
 * "searches" object into root. */
#define OUT_HPO_JOB_HEADER ",search,trial,bracket,rung,stopped_at,loss"
/* A run with large-model jobs: their model and shape at the end of every
 * jobs.csv row (docs/metrics.md), empty for other jobs. */
#define OUT_LLM_JOB_HEADER ",model,tp,pp,dp,microbatches,interleave"
char *out_hpo_job_cells(char *p, const struct job *j,
			const struct run_result *r);
int out_write_searches(const char *path, const struct run_result *r,
		       struct sim_error *err);
struct cJSON;
void out_hpo_summary(struct cJSON *root, const struct run_result *r);
/* out_tenant.c, for runs with tenants: projects.csv, projects_gpus.csv
 * (mean GPUs held per project in OUT_TENANT_BINS bins), summary.json's
 * "tenants" object, and the figures summary.csv appends
 * (OUT_TENANT_TAIL) when some run has tenants. */
int out_write_projects(const char *path, const struct run_result *r,
		       struct sim_error *err);
int out_write_projects_gpus(const char *path, const struct run_result *r,
			    struct sim_error *err);
void out_tenant_summary(struct cJSON *root, const struct run_result *r);
/* Jain's index of the projects' GPU-hours over quota; NaN = none. */
double out_tenant_jain(const struct tenant_books *b);
uint64_t out_tenant_reclaims(const struct tenant_books *b);
#define OUT_TENANT_TAIL ",jain_quota,reclaims"
/* out_slurm.c, for runs on a cluster with partitions: partitions.csv. */
int out_write_partitions(const char *path, const struct run_result *r,
			 struct sim_error *err);
/* The columns summary.csv has after the metrics: the measurement
 * window's bounds (s) and its basis word (docs/metrics.md). */
#define OUT_SUMMARY_TAIL ",measure_start,measure_end,measure_basis"
/* out_sched.c: allocations.csv (one row per placement interval) and
 * jobs.swf (the schedule in the Standard Workload Format), to path. */
int out_write_allocations(const char *path, const struct run_result *r,
			  struct sim_error *err);
int out_write_swf(const char *path, const struct run_result *r,
		  struct sim_error *err);
/* The nodes of the extents slots[0..n) that give gpus GPUs per node, as
 * a Batsim / evalys interval set ("0-3,7": sorted, adjacent extents
 * joined), NUL-terminated at p; returns its length.  p needs room for
 * 24 bytes per extent; scratch for n extents. */
size_t out_node_set(char *p, const struct place_slot *slots, size_t n,
		    uint32_t gpus, struct place_slot *scratch);
/* Writes OUT/summary.csv, one row per run in the order given. */
int out_write_summary(const char *outdir, const struct run_result *runs,
		      size_t nruns, struct sim_error *err);
/* Writes OUT/manifest.json: tool version and source revision, input file
 * hashes (SHA-256),
 * seeds, runs (with every policy parameter, defaults included) and the
 * fully resolved configuration.  No wall-clock time,
 * so equal inputs give equal bytes. */
int out_write_manifest(const char *outdir, const struct experiment *e,
		       const struct run_result *runs, size_t nruns,
		       struct sim_error *err);

/* The text out_write_manifest() writes (final newline included), or NULL
 * with err filled; the caller frees. */
char *out_manifest_text(const struct experiment *e,
			const struct run_result *runs, size_t nruns,
			struct sim_error *err);
/* Whether two manifest texts describe the same run: equal JSON once the
 * "revision" (the source the binary was built from) is set aside, so a
 * rebuild at another commit still resumes a sweep.  An unparsable text is
 * never the same. */
bool out_manifest_same(const char *a, const char *b);

/*
 * Draws the plots of a results folder with gnuplot (PNG and SVG under
 * OUT/plots/).  Returns 0, 1 when gnuplot is missing (warning in err,
 * results intact), or a negative code.
 */
int plot_results(const char *outdir, struct sim_error *err);
/*
 * The variables a gnuplot script gets on its command line (gnuplot -e):
 * every value, whatever its source (a path, a label, a name from an
 * experiment file), goes through plot_def(), which quotes it so that
 * gnuplot runs nothing from it, or refuses it.  Zero-initialise; release
 * with plot_defs_release().
 */
struct plot_defs {
	char *s;          /* NAME='VALUE'; ... */
	size_t len, cap;
	const char *bad;  /* the first name whose value could not be quoted
	                     (a control character), or NULL */
};
void plot_def(struct plot_defs *d, const char *name, const char *val);
void plot_defs_release(struct plot_defs *d);
/* Appends the definitions of src to d (a bad one of src stays bad). */
void plot_defs_append(struct plot_defs *d, const struct plot_defs *src);
/* The same literal written to a script file f (a file that gnuplot
 * loads): 0, or -1 and nothing written for a value with a control
 * character. */
int plot_put_literal(FILE *f, const char *val);
/* The gnuplot scripts folder (caller frees), and one gnuplot run of
 * script with the definitions d, then when d2 is not NULL (in the same
 * process, after a reset of the session) with d2, output to logfd (named
 * log in messages): 0, 1 when gnuplot is missing, or a negative code
 * (also when a value of d or d2 was refused). */
char *plot_scripts_dir(void);
/* Whether gnuplot is on $PATH. */
bool plot_gnuplot_found(void);
int plot_gnuplot(const struct plot_defs *d, const struct plot_defs *d2,
		 const char *script, int logfd, const char *log,
		 struct sim_error *err);

#endif
