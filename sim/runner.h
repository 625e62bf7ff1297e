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
};

/*
 * Returns the process exit code: 0 ok, 1 a run or a write failed, 2 bad
 * usage or input.  Messages go to err.
 */
int runner_run(const struct run_opts *o, struct sim_error *err);

/* `clustersim policies`: names, summaries and parameters. */
int runner_list_policies(const char **plugins, size_t nplugins, FILE *out,
			 struct sim_error *err);

#endif
