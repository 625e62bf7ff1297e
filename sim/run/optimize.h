/*
 * `clustersim optimize`: schedules one batch of a workload offline with
 * the searches (search.h) and writes the schedules, scores, the lower
 * bound and the convergence of each method.  The experiment's "optimize"
 * object (experiments/README.md) says which jobs, which objective and
 * which methods with what budget.
 */
#ifndef CLUSTERSIM_OPTIMIZE_H
#define CLUSTERSIM_OPTIMIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "clustersim/clustersim.h"

/* The command: returns an exit code (0, 1 failed, 2 bad input). */
int optimize_main(const char *file, const char *outdir, bool quiet,
		  bool no_plots, FILE *out, struct sim_error *err);

#endif
