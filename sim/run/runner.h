/*
 * Running an experiment: load and check everything first (so that bad
 * input fails before any run), then every policy x seed, then results,
 * summary, manifest and plots.
 */
#ifndef CLUSTERSIM_RUNNER_H
#define CLUSTERSIM_RUNNER_H

#include <stdbool.h>
#include <stdio.h>

#include "clustersim/clustersim.h"

struct run_opts {
	const char *file;        /* experiment file */
	const char *outdir;      /* -o: overrides "output"; NULL = the file's */
	const char *only;        /* --policy: run only this label or name */
	const char **plugins;    /* --plugin paths */
	size_t nplugins;
	bool quiet;              /* no report, no table */
	bool check;              /* force the invariant checker on */
	bool lenient;            /* skip malformed trace lines */
	bool stats;              /* print timing lines (for make bench) */
	bool validate_only;      /* check the file, run nothing */
	bool no_plots;           /* skip gnuplot */
	bool allocations;        /* write each run's allocations.csv */
	unsigned jobs;           /* -j: runs at a time, each in a worker
	                            process when above 1 (0, 1: one after
	                            another in this process) */
	FILE *out;               /* table and report (stdout) */
	FILE *msg;               /* warnings and progress (stderr) */
	const char *text;        /* the experiment as JSON text (file names
	                            it in messages); NULL = read file */
	const char *text_sha256; /* with text: the SHA-256 of the bytes of
	                            file it was made from, for the manifest;
	                            NULL = hash file when writing it */
	/* For runner_run_one() (sweeps): */
	bool one;                /* run one policy x seed only */
	size_t one_policy;       /* index in $.policies */
	uint64_t one_seed;       /* the seed */
	const char *one_label;   /* the run's label (its folder's stem) */
};

/* runner_run_one(): the run folder was already complete. */
#define RUNNER_SKIPPED 3

/*
 * Returns the process exit code: 0 ok, 1 a run or a write failed, 2 bad
 * usage or input.  Messages go to err.
 */
int runner_run(const struct run_opts *o, struct sim_error *err);

/*
 * One run of a sweep (o->one): policy o->one_policy with seed o->one_seed,
 * labelled o->one_label, into OUT/<label>-s<seed>/ with its own
 * summary.csv (one row) and manifest.json, written last: a run folder
 * with a manifest is complete.  When that manifest already holds what
 * this run would write, nothing runs: RUNNER_SKIPPED.  Else the exit code
 * as runner_run().
 */
int runner_run_one(const struct run_opts *o, struct sim_error *err);

/*
 * Removes the run folders that OUT/manifest.json (the previous results)
 * lists and keep[0..nkeep) does not: only folders named like run folders,
 * holding nothing but result files (base/outdir.h).  What it keeps for
 * holding other files is a warning on msg (NULL: none).  Returns how
 * many it removed.  The caller holds OUT's lock.
 */
size_t runner_prune(const char *outdir, const char *const *keep,
		    size_t nkeep, FILE *msg);

struct outdir;
/*
 * Takes a results folder for a command that writes it (base/outdir.h):
 * locked (shared: by one shard of a sweep), no file in the way of
 * manifest.json or of the run folders keep[0..nkeep), and the previous
 * results' run folders not in keep removed (runner_prune()).  Returns 0,
 * -SIM_EINPUT (the folder cannot be used: exit code 2) or -SIM_EIO; on
 * success the caller releases od with outdir_unlock().
 */
int runner_claim(struct outdir *od, const char *outdir, bool shared,
		 const char *const *keep, size_t nkeep, FILE *msg,
		 struct sim_error *err);

/* `clustersim policies`: names, summaries and parameters. */
int runner_list_policies(const char **plugins, size_t nplugins, FILE *out,
			 struct sim_error *err);

#endif
