/*
 * The Gantt chart's data (gantt.c), for plot.c: a run's allocations.csv
 * as one gnuplot line per box.
 */
#ifndef CLUSTERSIM_GANTT_H
#define CLUSTERSIM_GANTT_H

#include "clustersim/clustersim.h"

/* The most jobs a run may have for its Gantt chart to be drawn. */
#define GANTT_MAX_JOBS 5000

/*
 * Writes dat from the allocations.csv at csv: 1 when written, 0 when
 * there is no chart to draw (no such file, or more than GANTT_MAX_JOBS
 * jobs in it), or a negative code with err filled.
 */
int gantt_data(const char *csv, const char *dat, struct sim_error *err);

#endif
