/*
 * The measurement window of an event-engine run (docs/metrics.md): the
 * experiment's "measure" turned into the window the statistics, the
 * engine's integrals and jobs.csv's "measured" column use; and the table
 * `clustersim run` prints, with the line under it that says which jobs
 * and span its numbers cover.
 */
#ifndef CLUSTERSIM_RUN_MEASURE_H
#define CLUSTERSIM_RUN_MEASURE_H

#include <stdio.h>

#include "engine/sim.h"
#include "exp/exp.h"
#include "report/out.h"
#include "report/stats.h"

/* The window of e's "measure" over workload w, resolved; a window that
 * holds no job is an error "FILE: $.measure: ..." (-SIM_EINPUT). */
int run_measure_window(const struct experiment *e, const struct workload *w,
		       struct stats_window *win, struct sim_error *err);

/* Sets the engine's window integrals of cfg to win's span. */
void run_measure_engine(struct sim_config *cfg,
			const struct stats_window *win);

/* The summary table of the runs (mean wait, mean bounded slowdown,
 * utilization: the GPUs' on a GPU cluster), and under it the window m
 * its numbers cover. */
void run_print_table(FILE *f, const struct run_result *runs, size_t n,
		     const struct exp_measure *m);

#endif
