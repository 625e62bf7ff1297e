/*
 * Workloads: jobs read from a trace (SWF, native CSV) or generated from
 * named distributions.  A workload is loaded once, sorted by (submit, id)
 * and then shared read-only by every run of an experiment; each run copies
 * the job records it changes.
 */
#ifndef CLUSTERSIM_WORKLOAD_H
#define CLUSTERSIM_WORKLOAD_H

#include "base/input.h"
#include "clustersim/clustersim.h"
#include "speed/llm.h"
#include "workload/hpo.h"

struct jobclass_overrides;

enum trace_format {
	TRACE_SWF = 0,
	TRACE_CSV,
	TRACE_PHILLY,   /* Microsoft Philly job summary (Pollux's philly.csv) */
	TRACE_TIRESIAS, /* Tiresias testbed workload (tiresias-60job.csv) */
	TRACE_GAVEL,    /* Gavel physical-cluster workload (*.trace) */
	TRACE_SHOCKWAVE,/* Shockwave's 12-column traces (Gavel's + mode,
	                   duration) */
	TRACE_POLLUX,   /* Pollux artifact workload (workload-N.csv) */
	TRACE_NFORMATS
};

/* Which SWF processor count a job asks for. */
enum procs_field {
	PROCS_ALLOCATED = 0, /* allocated (field 5) when > 0, else requested */
	PROCS_REQUESTED,     /* requested (field 8) when > 0, else allocated */
};

/* What to do with a run time beyond the user estimate. */
enum overrun_mode {
	OVERRUN_CLIP = 0, /* run = estimate; the job finishes normally */
	OVERRUN_KILL,     /* run = estimate; the job ends killed */
	OVERRUN_ALLOW,    /* the job runs its whole run time */
};

/* An SWF input-cleaning preset: the rules another simulator applies to
 * an SWF line before it schedules it (traces/README.md, "Cleaning
 * presets"; swf_clean.c cites each rule). */
enum swf_clean {
	SWF_CLEAN_PWA = 0, /* none: the archive's fields as they are */
	SWF_CLEAN_PYSS,    /* pyss's _job_input_to_job */
	SWF_CLEAN_CQSIM,   /* CQSim's Filter_job_SWF.input_check */
	SWF_CLEAN_BATSIM,  /* Batsim's swf_to_batsim_workload_compute_only */
	SWF_CLEAN_N
};

/* Loader options, applied in this order: the SWF cleaning preset, then
 * per job (procs, drop, overrun),
 * then time window, skip the first N, first N jobs, load scaling. */
struct trace_opts {
	enum trace_format format;
	enum procs_field procs;
	enum overrun_mode overrun;
	enum swf_clean clean;    /* SWF only: preset applied first */
	bool drop_invalid;       /* drop run <= 0 or processors <= 0 (else
	                            such a job is an error) */
	bool lenient;            /* skip malformed lines, counting them */
	uint64_t skip;           /* drop the first N jobs (by submit), before
	                            limit: with it, one window of consecutive
	                            jobs (the RL environment's); 0 = none */
	uint64_t limit;          /* keep the first N jobs (by submit); 0 = all */
	sim_time_t window_start; /* keep submit >= this; SIM_TIME_NONE = open */
	sim_time_t window_end;   /* keep submit < this; SIM_TIME_NONE = open */
	double load_scale;       /* divide inter-arrival gaps by this; 1 = off */
	uint64_t max_jobs;       /* most job lines read (the "limits" key;
	                            TRACE_MAX_JOBS_DEFAULT unless set) */
	const struct jobclass_overrides *thr; /* the experiment's throughput
	                            overrides, for readers that turn steps into
	                            run time (Gavel); NULL = the defaults */
	const struct llm_model *models; /* the experiment's root "models"
	                            table, for the CSV `model` column; NULL =
	                            the presets alone */
	size_t nmodels;          /* entries in models */
	bool keep_qp;            /* SWF: keep each job's queue and partition
	                            fields (workload.qp), for partitions and
	                            QOS */
	uint64_t max_bytes;      /* refuse a trace file (or its inflated
	                            content) above this many bytes; 0 =
	                            INPUT_MAX_BYTES */
};

/* The default limit of a workload's jobs (experiments/README.md,
 * "limits"). */
#define TRACE_MAX_JOBS_DEFAULT UINT64_C(100000000)

/* Sets the documented defaults. */
void trace_opts_default(struct trace_opts *o);

/* What the loader did, every action counted; reported after loading. */
struct trace_report {
	uint64_t lines;          /* lines read (including comments) */
	uint64_t jobs_read;      /* job lines parsed */
	uint64_t malformed;      /* bad lines skipped under lenient */
	uint64_t dropped_run;    /* dropped: run time <= 0 */
	uint64_t dropped_procs;  /* dropped: processors <= 0 */
	uint64_t procs_fallback; /* chosen processor field missing, other used */
	uint64_t no_estimate;    /* no estimate: the run time was used */
	uint64_t clipped;        /* run cut to the estimate (clip) */
	uint64_t killed;         /* run cut to the estimate, ends killed */
	uint64_t overran;        /* run beyond the estimate, allowed */
	uint64_t outside_window; /* dropped by the time window */
	uint64_t beyond_limit;   /* dropped by the first-N limit */
	uint64_t skipped;        /* dropped by skip (the first N jobs) */
	uint64_t jobs;           /* jobs kept */
	uint64_t clean_dropped;  /* dropped by the cleaning preset */
	uint64_t clean_changed;  /* changed by the cleaning preset */
	uint64_t gpu_time_mismatch; /* Philly: gpu_time != duration x num_gpus
	                               (informational; the job is kept) */
};

struct workload {
	struct job *jobs;   /* sorted by (submit, id); jobs[i].idx == i */
	size_t n;
	int64_t max_procs;  /* SWF header MaxProcs, -1 when absent */
	int64_t max_nodes;  /* SWF header MaxNodes, -1 when absent */
	bool has_estimates; /* at least one job has a user estimate */
	struct trace_report report;
	char **groups;      /* names of groups (virtual clusters) by group
	                       id, owned; NULL when the trace numbers them */
	size_t ngroups;     /* entries in groups */
	int64_t epoch;      /* Unix time (s, UTC) of submit time 0 for traces
	                       that give date-times (Philly); 0 otherwise */
	char sha256[INPUT_SHA256_HEX]; /* of the trace file's bytes as read
	                       (for the manifest); "" when generated */
	struct hpo_set *hpo; /* its hyperparameter searches, owned; NULL =
	                        none (workload/hpo.h) */
	struct llm_job *llm; /* what its large-model jobs train (a job's llm
	                        field is an index + 1), owned; NULL = none */
	char **llm_names;    /* the model name of each entry, owned */
	size_t nllm;         /* entries in llm and llm_names */
	int32_t *qp;         /* SWF under keep_qp: the queue (field 15) and
	                        partition (field 16) of job idx at 2 idx and
	                        2 idx + 1, -1 unknown; owned; NULL = not
	                        read */
	/* A CSV trace's `project` column (workload.project_from "column",
	 * docs/tenants.md): each job's project name as an index into
	 * projects (-1: empty), aligned with jobs like qp; the names in the
	 * order they first appear, each with that line of the file.  All
	 * owned; NULL (0) when the trace has no such column. */
	int32_t *proj;
	char **projects;
	uint64_t *project_line;
	size_t nprojects;
	char *project_file;  /* the trace's path, for messages */
	uint64_t *qline;     /* with qp: the trace line of job idx (for
	                        the messages about its partition or QOS) */
};

/*
 * The entry of the workload's large-model table for model NAME trained in
 * microbatches micro-batches of micro_batch sequences (0: 1) with
 * interleave model chunks per pipeline stage (0: the model's), added
 * when it is not there yet: NAME is an entry of the experiment's models[0 .. n-1]
 * (root "models") or else a preset (speed/llm.h).  Its index + 1 in *idx,
 * or -SIM_EINPUT with "PREFIX: unknown model 'x' (...)".
 */
int workload_llm_add(struct workload *w, const struct llm_model *models,
		     size_t nmodels, const char *name, uint32_t microbatches,
		     uint32_t micro_batch, uint32_t interleave,
		     const char *prefix, uint16_t *idx,
		     struct sim_error *err);
/* The default micro-batches of a job of pp stages: 4 pp, so that the 1F1B
 * bubble (p - 1) / (m + p - 1) stays under a fifth. */
uint32_t workload_llm_default_microbatches(uint32_t pp);
/* Checks a large-model job's shape against its model (llm_shape_check):
 * "PREFIX: ..." messages. */
int workload_llm_check_job(const struct workload *w, const struct job *j,
			   const char *prefix, struct sim_error *err);
void workload_llm_free(struct workload *w);

/* The fields of one SWF line that a cleaning preset reads and rewrites
 * (times in sim_time_t, processors as read, -1 unknown). */
struct swf_fields {
	int64_t id;
	sim_time_t submit, run, est;
	int64_t alloc, req;
};

/* The names of the presets, by enum swf_clean (swf_clean.c). */
extern const char *const swf_clean_names[SWF_CLEAN_N];

/*
 * Applies preset p to one line's fields f in place; max_procs is the
 * header's MaxProcs (-1 unknown).  Returns 1 to keep the job, 0 when the
 * preset drops it; counts what it did in r.
 */
int swf_clean_job(enum swf_clean p, struct swf_fields *f, int64_t max_procs,
		  struct trace_report *r);

/* After the last line: the presets that move submit times (Batsim's, to
 * start at 0) do so over the kept jobs. */
void swf_clean_end(enum swf_clean p, struct workload *w);

/* The names experiment files give the formats, by enum trace_format
 * (trace.c). */
extern const char *const trace_format_names[TRACE_NFORMATS];

/*
 * Reads a trace (plain or .gz, by content) into w with the reader of
 * o->format (trace.c).  Errors are
 * "FILE:LINE: what is wrong"; returns 0 or a negative code.
 */
int trace_load(const char *path, const struct trace_opts *o,
	       struct workload *w, struct sim_error *err);
int trace_load_swf(const char *path, const struct trace_opts *o,
		   struct workload *w, struct sim_error *err);
int trace_load_csv(const char *path, const struct trace_opts *o,
		   struct workload *w, struct sim_error *err);
/* The deep-learning cluster traces; traces/README.md describes what each
 * reader takes from its columns. */
int trace_load_philly(const char *path, const struct trace_opts *o,
		      struct workload *w, struct sim_error *err);
int trace_load_tiresias(const char *path, const struct trace_opts *o,
			struct workload *w, struct sim_error *err);
int trace_load_gavel(const char *path, const struct trace_opts *o,
		     struct workload *w, struct sim_error *err);
int trace_load_shockwave(const char *path, const struct trace_opts *o,
			 struct workload *w, struct sim_error *err);
int trace_load_pollux(const char *path, const struct trace_opts *o,
		      struct workload *w, struct sim_error *err);

/*
 * Shared tail of every reader and the generator: sorts jobs by
 * (submit, id), rejects duplicate ids, applies window, limit and load
 * scale, and sets idx.  path names the source in error messages.
 */
int workload_finish(struct workload *w, const struct trace_opts *o,
		    const char *path, struct sim_error *err);
void workload_release(struct workload *w);
/* An empty workload: no jobs, no header values (-1). */
void workload_init(struct workload *w);

/* Opens a trace through the shared input reader (base/input.h: a regular
 * file within o->max_bytes, plain or gzip, checked to its end), with its
 * helper thread when threaded.  0 or a negative code with "PATH: ..." in
 * err. */
int trace_input_open(struct input *in, const char *path,
		     const struct trace_opts *o, bool threaded,
		     struct sim_error *err);
/* Closes it; after a read that succeeded (rc 0), keeps the digest of the
 * bytes read in w->sha256. */
void trace_input_close(struct input *in, struct workload *w, int rc);
/* One line per non-zero counter, "  name: N", into buf (NUL-terminated). */
void trace_report_format(const struct trace_report *r, char *buf, size_t n);

/*
 * For readers: applies the per-job options to a job whose fields were
 * read (run, estimate <= 0 meaning none): drops a job whose run or procs
 * (the processor count the reader chose) is <= 0, else sets the estimate
 * and applies the overrun mode; sets the engine fields.  Returns 1 to
 * keep the job, 0 when it was dropped (counted in r), or a negative code
 * with "FILE:LINE: ..." in err when drop_invalid is off.
 */
int trace_job_finish(struct job *j, int64_t procs, const struct trace_opts *o,
		     struct trace_report *r, const char *path, uint64_t line,
		     struct sim_error *err);

/*
 * Row reader shared by the GPU trace readers (sim/workload/trace_philly.c): one
 * line of a plain or gzip file at a time, numbered, cut into cells.
 * Comma-separated rows are parsed by libcsv (quotes allowed, a quoted
 * cell may not span lines); tab-separated rows are split at every tab,
 * as Gavel's own reader does.  Blank lines (CR LF included) are skipped.
 */
struct csv_parser;
struct trace_rows {
	const char *path;       /* for messages */
	struct input in;        /* the open file */
	bool open;              /* in is open */
	struct csv_parser *csv; /* comma-separated: the parser; else NULL */
	uint64_t line;          /* line number of the current row, from 1 */
	uint64_t *lines;        /* counter of lines read (a report's) */
	char *buf;              /* the current line (in in's buffer) */
	char *text;             /* the row's cells, NUL-terminated, back to back */
	size_t text_len, text_cap;
	size_t *off;            /* start of each cell in text */
	size_t ncell, off_cap;  /* cells in the current row; allocated */
};

/* trace_rows_next: a row whose quoting is broken (message in err). */
#define TRACE_ROW_BAD 2

/* Opens path (io: the input options; NULL = the defaults); sep is ',' or
 * '\t'.  lines (may be NULL) counts every line read.  0, or a negative
 * code with "PATH: ..." in err. */
int trace_rows_open(struct trace_rows *r, const char *path, char sep,
		    const struct input_opts *io, uint64_t *lines,
		    struct sim_error *err);
/* The next non-blank row: 1, 0 at the end of the file (r->in.sha256 then
 * holds the file's digest), TRACE_ROW_BAD, or a negative code when the
 * file cannot be read or holds a NUL byte. */
int trace_rows_next(struct trace_rows *r, struct sim_error *err);
/*
 * Runs job(ctx, bad) on every remaining row (bad: the row's quoting is
 * broken, so job must refuse it with a message), skipping the rows job
 * refuses with -SIM_EINPUT and counting them in *malformed when lenient.
 * 0 at the end of the file, or the first error.
 */
int trace_rows_each(struct trace_rows *r, bool lenient, uint64_t *malformed,
		    int (*job)(void *ctx, bool bad), void *ctx,
		    struct sim_error *err);
/*
 * What every row-based reader keeps; a reader's own struct starts with
 * it, so trace_rows_load() can drive any of them.
 */
struct trace_row_reader {
	const char *path;           /* for messages */
	const struct trace_opts *o; /* loader options */
	struct workload *w;         /* the output */
	struct trace_rows rows;     /* the file */
	size_t cap;                 /* allocated length of w->jobs */
	struct sim_error *err;      /* where a message goes */
};

/* "PATH:LINE: COLUMN 'CELL' WHAT" about cell i of the current row;
 * returns -SIM_EINPUT. */
int trace_row_bad(const struct trace_row_reader *b, const char *column,
		  int i, const char *what);

/*
 * A whole load by a row-based reader: empties w, fills b's common part
 * (o NULL = the defaults), opens path (cells split at sep), runs read(b)
 * - which reads the rows, e.g. with trace_rows_each() - closes the file
 * and ends with trace_load_end().
 */
int trace_rows_load(struct trace_row_reader *b, const char *path, char sep,
		    const struct trace_opts *o, struct workload *w,
		    struct sim_error *err,
		    int (*read)(struct trace_row_reader *b));
/* The end of a load: after a reader's rc, workload_finish() when rc is 0;
 * on any failure the workload is released (left empty).  Returns rc. */
int trace_load_end(struct workload *w, const struct trace_opts *o,
		   const char *path, int rc, struct sim_error *err);
/* Cell i of the current row; "" past the end (or for i < 0). */
const char *trace_rows_cell(const struct trace_rows *r, int i);
/*
 * Reads the header row and finds the n named columns in it: pos[k] is the
 * cell of names[k], or -1.  Columns not named are ignored; a duplicate,
 * or a missing column whose bit (1 << k) is set in required, is an error
 * "PATH:LINE: ...", as is a file without a header row.
 */
int trace_rows_header(struct trace_rows *r, const char *const *names,
		      size_t n, uint32_t required, int *pos,
		      struct sim_error *err);
void trace_rows_close(struct trace_rows *r);
/* A decimal integer cell ("12", "-3", "+4", "8.0" not accepted) within
 * [min, max]: 0, else -1. */
int trace_parse_int(const char *s, int64_t min, int64_t max, int64_t *out);

/* A named distribution with its parameters. */
enum dist_kind {
	DIST_CONSTANT = 0, /* p[0] = value */
	DIST_UNIFORM,      /* p[0] = min, p[1] = max */
	DIST_EXPONENTIAL,  /* p[0] = mean */
	DIST_LOGNORMAL,    /* p[0] = mu, p[1] = sigma (of the log) */
	DIST_WEIBULL,      /* p[0] = shape, p[1] = scale */
	DIST_GAMMA,        /* p[0] = shape, p[1] = scale */
	DIST_HYPERGAMMA,   /* p[0] = prob of first, p[1..2] = shape, scale of
	                      the first gamma, p[3..4] of the second */
	DIST_POW2,         /* 2^k, k uniform integer in [log2 p[0], log2 p[1]] */
	DIST_DISCRETE,     /* values[i] with probability weights[i] */
	DIST_LOGNORMAL2,   /* p[0] = prob of first, p[1..2] = mu, sigma of the
	                      first lognormal, p[3..4] of the second */
	DIST_NKINDS
};

struct dist {
	enum dist_kind kind;
	double p[5];
	double *values;  /* DIST_DISCRETE only, owned */
	double *weights; /* DIST_DISCRETE only, owned */
	size_t nvalues;
};

/* The run time of generated GPU jobs whose count is in [min, max]. */
struct gen_bucket {
	uint32_t min_gpus;   /* smallest GPU count, >= 1 */
	uint32_t max_gpus;   /* largest; 0 = no bound */
	struct dist runtime; /* run time, seconds */
};

/*
 * The generator's "large" section: large-model training jobs among the
 * generated ones, enough of them that jobs of min_gpus GPUs or more hold
 * `share` of the GPU-hours (gen_large.c; experiments/README.md, "large").
 */
struct gen_large {
	bool on;                 /* the section was given */
	double share;            /* of the GPU-hours in jobs of min_gpus or
	                            more GPUs, 0 <= share < 1 (0.5) */
	uint32_t min_gpus;       /* a large job's least GPUs (256) */
	struct dist gpus;        /* GPUs per large job, rounded up to whole
	                            nodes of gpu.per_node and to min_gpus */
	struct dist runtime;     /* run time, seconds at the ideal pace */
	char **models;           /* model names (root "models" or presets),
	                            owned */
	double *model_weights;   /* their weights, owned */
	size_t nmodels;          /* entries in models and model_weights */
	uint32_t dp, tp, pp;     /* degrees the file fixes; 0 = chosen (tp,
	                            pp: the smallest fitting tp x pp) */
	uint32_t microbatches;   /* per pipeline per step; 0 = 4 pp */
	char *gpu_type;          /* the type shapes are fitted to, owned */
	struct llm_gpu gpu;      /* its figures, per_node the GPUs of one of
	                            its nodes (the loader sets them) */
};

/* Sets the documented defaults (on stays false, no models, no GPU). */
void gen_large_default(struct gen_large *l);
void gen_large_release(struct gen_large *l);
/* Checks a section (not its models or GPU); err names the key under
 * json_path. */
int gen_large_check(const struct gen_large *l, const char *json_path,
		    struct sim_error *err);
/* The GPUs of a large job whose draw was v: rounded, then up to a whole
 * number of l->gpu.per_node and to at least l->min_gpus; dp x tp x pp
 * when the section fixes all three. */
uint64_t gen_large_gpus(const struct gen_large *l, double v);
/*
 * The shape of a large job of model m on gpus GPUs of l->gpu: the
 * section's fixed degrees, the others chosen as the smallest tp x pp
 * whose memory fits (llm_fit_shape(), or the same walk with tp or pp
 * held); microbatches the section's or 4 pp, one sequence each.
 * -SIM_EINPUT with "PREFIX: 'NAME' fits no shape ..." when nothing fits.
 */
int gen_large_shape(const struct gen_large *l, const struct llm_model *m,
		    uint64_t gpus, struct llm_shape *sh, const char *prefix,
		    struct sim_error *err);

/* Synthetic workload: times in seconds, sizes in CPUs and GPUs. */
struct gen_spec {
	uint64_t jobs;              /* number of jobs */
	struct dist interarrival;   /* seconds between submits */
	struct dist runtime;        /* run time, seconds (a GPU job in a
	                               bucket of runtime_by_gpus: that's) */
	struct dist cpus;           /* CPUs per CPU job (rounded, at least 1) */
	struct dist estimate_factor;/* estimate = run * factor (>= 1) */
	uint32_t users;             /* users drawn uniformly in [0, users) */
	uint32_t max_cpus;          /* clamp CPU jobs' sizes; 0 = none */
	struct dist gpus;           /* GPUs per job (rounded; < 1: a CPU
	                               job); constant 0 = CPU jobs only */
	uint32_t cpus_per_gpu;      /* a GPU job's CPUs = gpus x this */
	struct gen_bucket *runtime_by_gpus; /* disjoint buckets, owned */
	size_t nbuckets;            /* entries in runtime_by_gpus */
	char *preset;               /* the preset it started from, owned;
	                               NULL = none (informational) */
	struct hpo_spec searches;   /* hyperparameter searches among the
	                               jobs (searches.on: given) */
	struct gen_large large;     /* large-model jobs among them
	                               (large.on: given) */
};

/* Frees a DIST_DISCRETE's arrays (and leaves it without values). */
void dist_release(struct dist *d);
void gen_spec_release(struct gen_spec *g);
/* Validates parameters; err names the problem with a "$.path" prefix. */
int dist_check(const struct dist *d, const char *json_path,
	       struct sim_error *err);
/* The bucket of runtime_by_gpus holding gpus, or NULL. */
const struct gen_bucket *gen_bucket_find(const struct gen_spec *g,
					 uint32_t gpus);
/* Checks the buckets (each min >= 1, max 0 or >= min, no two overlap);
 * err names the problem with "$.path[i]" under json_path. */
int gen_buckets_check(const struct gen_spec *g, const char *json_path,
		      struct sim_error *err);
/*
 * Appends g->large's jobs to w's g->jobs ordinary ones (ids w->n + 1,
 * ...; before the searches' trials): enough that jobs of min_gpus or more
 * GPUs hold share of the GPU-hours of all of them, the last one's run cut
 * to meet it (gen_large.c).  Call before workload_finish().
 */
int gen_large_jobs(const struct gen_spec *g, uint64_t seed,
		   const struct trace_opts *o, struct workload *w,
		   struct sim_error *err);
/* Generates g->jobs jobs with seed (all 64 bits: Philox, gen_rng.h) into
 * w.  sim/workload/gen.c documents the draws. */
int gen_workload(const struct gen_spec *g, uint64_t seed,
		 const struct trace_opts *o, struct workload *w,
		 struct sim_error *err);

/* dst's tables and per-job fields borrowed from src, from src's job
 * first on (a window of src's jobs that dst holds its own copies of,
 * renumbered from 0): the queue, partition, line and project fields,
 * the group names, the large-model table, the header's sizes.  dst is
 * never given to workload_release().  A new per-job field of struct
 * workload is added here too. */
void workload_borrow(struct workload *dst, const struct workload *src,
		     size_t first);

struct cluster_spec; /* cluster/cluster.h */
/* cluster_tenants_bind() of the workload's jobs, with its group names
 * and its project column (workload.project_from, an enum tenant_from). */
int workload_bind_tenants(const struct workload *w,
			  const struct cluster_spec *s, int from,
			  const char *prefix, int32_t *out,
			  struct sim_error *err);

#endif
