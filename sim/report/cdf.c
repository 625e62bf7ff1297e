/*
 * CDF files.  A CDF plot of every job costs gnuplot far more than the
 * simulation on large traces (hundreds of thousands of jobs), and a
 * screen shows no more than a few thousand steps.  So each run folder
 * holds, per plotted value, the points of its empirical CDF at the order
 * statistics of ranks 1 and ceil(i n / CDF_POINTS), i = 1..CDF_POINTS:
 * evenly spaced in probability plus both extremes.  Each point is exact:
 * its value is one job's value and its fraction is the share of jobs at
 * or below it (a rank is moved to the last of its ties).
 *
 * The values are those of the jobs.csv columns the plots drew before:
 * wait and response for the jobs that started / ended, placement_slowdown
 * for ended jobs of more than one GPU.
 */
#include "report/cdf.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"

size_t cdf_ranks(const double *v, size_t n, size_t k, size_t *ranks)
{
	size_t m = 0;
	if (n == 0 || k == 0)
		return 0;
	for (size_t i = 0; i <= k; i++) {
		/* ceil(i n / k) in integers; i = 0 stands for the minimum. */
		size_t r = i == 0 ? 1 : (i * n + k - 1) / k;
		while (r < n && v[r] == v[r - 1])
			r++;
		if (m == 0 || r > ranks[m - 1])
			ranks[m++] = r;
	}
	return m;
}

static int cdf_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Which value of a job a file holds. */
enum cdf_kind { CDF_WAIT, CDF_RESPONSE, CDF_PSLOW };

/* The job's value of kind k, NaN when it has none (as in jobs.csv). */
static double cdf_value(const struct job *j, enum cdf_kind k)
{
	bool started = j->start != SIM_TIME_NONE;
	bool ended = started && j->end != SIM_TIME_NONE;
	switch (k) {
	case CDF_WAIT:
		/* jobs.csv's wait: the time queued in all, waits after
		 * preemptions included (docs/metrics.md). */
		return started ? (double)j->queued : NAN;
	case CDF_RESPONSE:
		return ended ? (double)(j->end - j->submit) : NAN;
	case CDF_PSLOW:
		return ended && j->gpus > 1 && j->placement_slowdown > 0 ?
			       j->placement_slowdown : NAN;
	}
	return NAN;
}

static int cdf_write_one(const char *path, const struct run_result *r,
			 enum cdf_kind k, struct sim_error *err)
{
	double *v = xmalloc((r->njobs + 1) * sizeof(*v));
	size_t *ranks = xmalloc((CDF_POINTS + 1) * sizeof(*ranks));
	size_t n = 0;
	for (size_t i = 0; i < r->njobs; i++) {
		double x = cdf_value(&r->jobs[i], k);
		if (!isnan(x) && stats_measured(r->window, &r->jobs[i]))
			v[n++] = x;
	}
	qsort(v, n, sizeof(*v), cdf_cmp);
	size_t m = cdf_ranks(v, n, CDF_POINTS, ranks);
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		goto out;
	fputs("value,rank,fraction\n", af.f);
	for (size_t i = 0; i < m; i++) {
		char buf[32];
		double x = v[ranks[i] - 1];
		if (k == CDF_PSLOW)
			fmt_double(buf, x);
		else
			fmt_time(buf, (sim_time_t)x);
		fprintf(af.f, "%s,%zu,%.9g\n", buf, ranks[i],
			(double)ranks[i] / (double)n);
	}
	rc = afile_commit(&af, err);
out:
	free(ranks);
	free(v);
	return rc;
}

int cdf_write_run(const char *dir, const struct run_result *r,
		  struct sim_error *err)
{
	static const char *const names[] = {
		[CDF_WAIT] = "cdf_wait.csv",
		[CDF_RESPONSE] = "cdf_response.csv",
		[CDF_PSLOW] = "cdf_placement_slowdown.csv",
	};
	int rc = 0;
	for (int k = CDF_WAIT; k <= CDF_PSLOW && !rc; k++) {
		char *path = path_join(dir, names[k]);
		rc = cdf_write_one(path, r, (enum cdf_kind)k, err);
		free(path);
	}
	return rc;
}
