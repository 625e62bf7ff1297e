/*
 * Sweeps: an experiment file whose "sweep" object names axes (any key of
 * the file by its JSON path, each with a list of values).  The cross
 * product of the axes is the set of points; each point times the policies
 * times the seeds is the set of runs.  A point is made by writing the axis
 * values into the file's cJSON tree and loading the result like a
 * hand-written file, so every axis value is checked by the experiment
 * loader with its own JSON path in messages.
 *
 * Every driver (local processes, Open MPI, Slurm shards) executes runs
 * through sweep_exec(), which writes OUT/<label>-s<seed>/ with its
 * manifest.json last; sweep_merge() then builds OUT/summary.csv from the
 * run folders in the sweep's fixed run order, so the results are the same
 * bytes however the runs were spread.
 */
#ifndef CLUSTERSIM_SWEEP_H
#define CLUSTERSIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "base/input.h"
#include "clustersim/clustersim.h"

/* One axis: a JSON path and its values. */
struct sweep_axis {
	char *path;      /* as written in "sweep", without a leading "$." */
	char *name;      /* its short name in run labels ("load_scale") */
	cJSON *values;   /* the array of values (owned) */
	char **vlabels;  /* each value as label text ("0.5") */
	size_t nvalues;
};

/* One run: a point, a policy and a seed. */
struct sweep_run {
	char *label;     /* "<policy label>+<name>=<value>+..." */
	char *dir;       /* "<label>-s<seed>" */
	char *policy;    /* the policy's name */
	char *plabel;    /* the policy's label */
	char *workload;  /* the point's workload name */
	size_t point;    /* index of the point (odometer, last axis fastest) */
	size_t pidx;     /* index in $.policies */
	uint64_t seed;
};

struct sweep {
	char *path;               /* the experiment file as given */
	char *name;               /* the experiment's name */
	cJSON *base;              /* the file's tree without "sweep" */
	struct sweep_axis *axes;
	size_t naxes;
	size_t npoints;
	char *output;             /* the results folder ("output") */
	struct sweep_run *runs;   /* point-major, then policy, then seed */
	size_t nruns;
	char sha256[INPUT_SHA256_HEX]; /* of the file's bytes as read */
};

/* Options common to the drivers. */
struct sweep_opts {
	const char *outdir;       /* results folder (-o or "output") */
	const char **plugins;     /* --plugin paths */
	size_t nplugins;
	unsigned jobs;            /* local processes (-j) */
	unsigned shard_i;         /* --shard I/N: this shard, 1-based */
	unsigned shard_n;         /* number of shards; 0 = not sharded */
	bool quiet;               /* no progress line and no table */
	bool no_plots;            /* skip gnuplot in the merge */
	bool check;               /* invariant checker on */
	bool lenient;             /* skip malformed trace lines */
	bool stats;               /* each run prints its timing line */
	FILE *out;                /* summary (stdout) */
	FILE *msg;                /* progress and failures (stderr) */
};

/* sweep_exec() return value for a run whose results already exist. */
#define SWEEP_SKIPPED 3

/* Whether the JSON file at path has a top-level "sweep" key (false when it
 * cannot be read or parsed: the loader then says why). */
bool sweep_file_has_sweep(const char *path);

/*
 * Reads an experiment file, expands its sweep and loads every point (so
 * that bad input fails before any run).  A file without "sweep" is a sweep
 * of one point.  Returns 0 or a negative code ("FILE: $.path: message").
 */
int sweep_load(const char *path, struct sweep *sw, struct sim_error *err);
void sweep_release(struct sweep *sw);

/* The label of a point ("load_scale=0.5+count=64"; "" without axes); the
 * caller frees. */
char *sweep_point_label(const struct sweep *sw, size_t point);
/* The value index of axis a at a point. */
size_t sweep_point_value(const struct sweep *sw, size_t point, size_t a);
/* The JSON text of a point's experiment; the caller frees. */
char *sweep_point_json(const struct sweep *sw, size_t point,
		       struct sim_error *err);
/* An axis value as a summary.csv cell (a string as is, anything else as
 * JSON); the caller frees. */
char *sweep_value_text(const cJSON *v);

/* Writes OUT/manifest.json: the axes and the runs in their fixed order
 * (what sweep_merge() reads). */
int sweep_write_manifest(const struct sweep *sw, const char *outdir,
			 struct sim_error *err);

/*
 * Executes run k in this process: writes OUT/<dir>/ (results,
 * summary.csv of one row, manifest.json last) or, on failure,
 * OUT/<dir>/error.txt.  Returns 0, SWEEP_SKIPPED (a complete run folder
 * with the same manifest was there), 1 (the run failed) or 2 (bad input).
 */
int sweep_exec(const struct sweep *sw, const struct sweep_opts *so,
	       size_t k, struct sim_error *err);

/*
 * Takes the results folder for a sweep driver: runner_claim() (locked,
 * shared by a shard; the run folders of the previous results that the
 * sweep does not produce removed), then the sweep manifest.  Returns 0,
 * -SIM_EINPUT (the folder cannot be used) or -SIM_EIO; on success the
 * caller releases od with outdir_unlock().
 */
struct outdir;
int sweep_claim(const struct sweep *sw, const struct sweep_opts *so,
		struct outdir *od, struct sim_error *err);

/*
 * Runs runs[0..n) (indices of sw->runs) with sweep_exec(), each in a
 * forked child of the pool (base/pool.h), at most jobs at a time.  As
 * each ends, its code (sweep_ended()) goes to *last (may be NULL) and,
 * when t is not NULL, to the tally and progress line (so->msg, unless
 * so->quiet).  Returns 0, or a negative code when a process could not be
 * started (the started ones end first).
 */
struct sweep_tally;
int sweep_pool(const struct sweep *sw, const struct sweep_opts *so,
	       const size_t *runs, size_t n, unsigned jobs,
	       struct sweep_tally *t, int *last, struct sim_error *err);
/* How run k's child ended (its waitpid() status): 0, SWEEP_SKIPPED, 1 or
 * 2.  A child killed by a signal, or that exited with another status,
 * failed: its error.txt says how. */
int sweep_ended(const struct sweep *sw, const struct sweep_opts *so,
		size_t k, int status);

/* Whether run k belongs to this process's shard. */
bool sweep_in_shard(const struct sweep_opts *so, size_t k);

/*
 * The local driver: runs this shard's runs on so->jobs forked processes
 * (a crash takes down one run, not the sweep), with a progress line, then
 * (unless sharded) merges.  Returns the exit code: 0, 1 (some run failed)
 * or 2.
 */
int sweep_run_local(const struct sweep *sw, const struct sweep_opts *so,
		    struct sim_error *err);

/* What became of a driver's runs so far. */
struct sweep_tally {
	size_t total;    /* runs of this shard */
	size_t done;     /* ended (ran, skipped or failed) */
	size_t ran;      /* ran to the end */
	size_t skipped;  /* complete already */
	size_t failed;
	double t0;       /* start (monotonic seconds) */
	double last;     /* last progress line */
	bool tty;        /* progress redrawn in place */
};
/* The progress line "sweep: 37/200 runs (2 skipped, 1 failed), 12.3
 * runs/s, ETA 0:13": redrawn in place on a terminal, else printed every
 * 10 s (force: now). */
void sweep_progress(FILE *f, struct sweep_tally *t, bool force);
/* The closing report (failed runs with their errors), then the merge
 * unless sharded.  Returns the exit code. */
int sweep_finish(const struct sweep *sw, const struct sweep_opts *so,
		 const struct sweep_tally *t, struct sim_error *err);

/*
 * The Open MPI driver, when built with MPI and started by mpirun: rank 0
 * hands runs out one at a time and merges; the other ranks execute them.
 * Returns -1 when not under MPI (the caller runs locally), else the exit
 * code.
 */
int sweep_run_mpi(const struct sweep *sw, const struct sweep_opts *so,
		  struct sim_error *err);
/* Whether this binary was built with the MPI driver. */
bool sweep_have_mpi(void);

/*
 * Rebuilds OUT/summary.csv (and failed.csv, and the plots unless
 * no_plots) from the run folders, in the order of OUT/manifest.json.
 * *nfailed and *nmissing count the runs without results; a plotting
 * problem is a warning in warn (msg "" when none).  Returns 0 or a
 * negative code.
 */
int sweep_merge(const char *outdir, bool no_plots, size_t *nfailed,
		size_t *nmissing, struct sim_error *warn,
		struct sim_error *err);

/* Options of `clustersim sweep --slurm`. */
struct sweep_slurm_opts {
	unsigned tasks;           /* array size; 0 = min(runs, 100) */
	const char *time;         /* per task, Slurm syntax ("1:00:00") */
	const char *mem;          /* per task ("2G") */
	unsigned cpus;            /* per task; each task runs -j cpus */
	const char *partition;    /* or NULL */
	const char *account;      /* or NULL */
	bool submit;              /* also run sbatch */
};

/*
 * Writes OUT/slurm/sweep.sbatch (the job array: task i runs
 * `clustersim sweep FILE --shard i/N`) and OUT/slurm/merge.sbatch, and
 * with submit runs sbatch on both (the merge after the array, whatever
 * its outcome).  The scripts' paths and job ids go to *report (caller
 * frees).  Returns 0 or a negative code.
 */
int sweep_slurm(const struct sweep *sw, const struct sweep_opts *so,
		const struct sweep_slurm_opts *sl, const char *exe,
		char **report, struct sim_error *err);

/*
 * Checks every point as `clustersim validate` checks an experiment: the
 * policies and their parameters (with the plug-ins of so), the trace and
 * the cluster, so that a bad point fails before any run.  Returns 0, or
 * the exit code (2) with err naming the point.
 */
int sweep_validate(const struct sweep *sw, const struct sweep_opts *so,
		   struct sim_error *err);

#endif
