/*
 * How `clustersim run` carries out an experiment's runs (policy x seed)
 * and shows them: one after another in this process, with a progress
 * line per run on a terminal (-j 1, the default), or in N worker
 * processes at once (-j N, base/pool.h), with one line of runs done.
 */
#ifndef CLUSTERSIM_RUN_JOBS_H
#define CLUSTERSIM_RUN_JOBS_H

#include <stdbool.h>
#include <stdio.h>

#include "report/out.h"

struct sim;

/* The progress line of a run on a terminal (stderr): which run of how
 * many, jobs ended, simulated time (that of the last timeline sample),
 * jobs per second of wall time and the run's ETA; drawn at most four
 * times a second, and once at the end.  Zero-initialise, then set label,
 * run, nruns and t0; s once the sim exists. */
struct run_progress {
	const char *label;  /* the run's label */
	struct sim *s;      /* the run (its timeline) */
	size_t run, nruns;  /* this run, 1-based, of how many */
	double t0, last;    /* when the run started, the line was drawn */
	bool done;          /* the last line is drawn */
};
/* The engine's progress callback (struct sim_config.progress) drawing
 * it; ctx is the struct run_progress. */
void run_progress_draw(void *ctx, size_t ended, size_t total);

/* Run k of a run_jobs(): fills *res (its pointers into memory that
 * existed before the run, its job and sample arrays NULL), writes the
 * run folder, prints its warnings to msg, and returns the exit code: 0,
 * 1 (the run failed) or 2 (bad input), err saying why. */
typedef int (*run_jobs_fn)(void *ctx, size_t k, struct run_result *res,
			   FILE *msg, struct sim_error *err);

/*
 * Runs 0..n-1 by one(), each in a worker process, at most jobs at a time,
 * and fills runs[k] with run k's result; names[k] is run k's folder name,
 * for the message of a run whose process was killed.  What a run prints to msg is
 * kept and printed to msg in run order (so it reads as with -j 1);
 * with show, a line "runs: K/N done" on msg, redrawn in place.  Returns
 * 0; or the exit code of the first run in order that failed, err
 * holding its message (the runs after it are stopped; their folders may
 * be there or not); or 1 when no worker could be started.
 */
int run_jobs(unsigned jobs, size_t n, run_jobs_fn one, void *ctx,
	     const char *const *names, struct run_result *runs, FILE *msg,
	     bool show, struct sim_error *err);

#endif
