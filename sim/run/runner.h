/*
 * Running an experiment: load and check everything first (so that bad
 * input fails before any run), then every policy x seed, then results,
 * summary, manifest and plots.
 */
#ifndef CLUSTERSIM_RUNNER_H
#define CLUSTERSIM_RUNNER_H

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

/* `clustersim policies`: names, summaries and parameters. */
int runner_list_policies(const char **plugins, size_t nplugins, FILE *out,
			 struct sim_error *err);

#endif
