/*
 * The runs of a results folder grouped over their seeds, for the plots:
 * a run of several seeds, or a sweep, has one run per (label, seed), and a
 * curve per run repeats each policy once per seed.  The plots draw one
 * curve per label instead, from the files written here into OUT/plots/:
 *
 *   seeds_summary.csv  per label: label, seeds, then M_mean, M_min, M_max
 *                      over its seeds for every metric M of summary.csv
 *                      (the bars' height and error bars);
 *   seeds_cdf_KIND.dat per label, one gnuplot data block (index = the
 *                      label's place in summary.csv): "value pooled min
 *                      max", the CDF of all its seeds' jobs together
 *                      (pooled) and the least and greatest of the seeds'
 *                      own CDFs at that value (the band), for KIND wait,
 *                      response and placement_slowdown; a label with
 *                      no such value has one row of NaN.
 *
 * docs/metrics.md ("Plots of several seeds") says how they are drawn.
 */
#ifndef CLUSTERSIM_REPORT_SEEDS_H
#define CLUSTERSIM_REPORT_SEEDS_H

#include <stddef.h>

#include "clustersim/clustersim.h"

/* One seed's CDF points as a cdf_*.csv file holds them: values
 * increasing, fractions rising to 1; njobs is the last rank. */
struct seeds_cdf {
	double *v;      /* values */
	double *f;      /* fraction of the seed's jobs at or below v[i] */
	size_t n;       /* points */
	size_t njobs;   /* jobs the CDF is over */
};

/*
 * The band of ns seeds' step CDFs, on the union of their values: at each
 * x[i], pooled[i] is the fraction of all their jobs at or below it (each
 * seed's CDF weighted by its jobs), lo[i] and hi[i] the least and the
 * greatest of the seeds' CDFs there.  A seed's CDF at x is the fraction
 * of its last point at or below x (0 before its first).  Seeds with no
 * job are left out.  The arrays hold the sum of the seeds' n; returns how
 * many points were written.
 */
size_t seeds_cdf_band(const struct seeds_cdf *s, size_t ns, double *x,
		      double *pooled, double *lo, double *hi);

/* Reads a cdf_*.csv file ("value,rank,fraction"); a missing file is no
 * points.  Release with seeds_cdf_release(). */
int seeds_cdf_read(const char *path, struct seeds_cdf *c,
		   struct sim_error *err);
void seeds_cdf_release(struct seeds_cdf *c);

/*
 * Writes OUT/plots/seeds_summary.csv and seeds_cdf_*.dat for the runs
 * runs[0..nruns) (folders under OUT), run i of the label group[i]
 * (0-based, labels ngroups of them).  0 or a negative code with err set.
 */
int seeds_write(const char *outdir, const char *const *runs,
		const size_t *group, size_t nruns, const char *const *labels,
		size_t ngroups, struct sim_error *err);

#endif
