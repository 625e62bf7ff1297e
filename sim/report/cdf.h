/*
 * CDF points of a run: the empirical CDF of a per-job value reduced to at
 * most CDF_POINTS exact points, so a plot of millions of jobs hands
 * gnuplot a few thousand rows (docs/metrics.md, "CDF files").
 */
#ifndef CLUSTERSIM_REPORT_CDF_H
#define CLUSTERSIM_REPORT_CDF_H

#include <stddef.h>

#include "report/out.h"

#define CDF_POINTS 2000 /* probability levels k / CDF_POINTS drawn */

/*
 * The ranks (1-based) of the points kept from n sorted values v[0..n-1],
 * for k levels: rank 1 (the minimum) and ceil(i n / k) for i = 1..k, each
 * moved up to the last of its ties (so rank / n is the CDF at that value),
 * duplicates dropped.  ranks must hold k + 1 entries; returns how many
 * were written, increasing; the last is n.  0 when n is 0.
 */
size_t cdf_ranks(const double *v, size_t n, size_t k, size_t *ranks);

/* Writes DIR/cdf_wait.csv, cdf_response.csv and
 * cdf_placement_slowdown.csv for run r (header "value,rank,fraction"). */
int cdf_write_run(const char *dir, const struct run_result *r,
		  struct sim_error *err);

#endif
