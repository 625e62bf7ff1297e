/*
 * Metrics of one run, exactly as docs/metrics.md defines them:
 *   wait = total time queued; first wait = first start - submit;
 *   response = end - submit; run = end - start; service = run time alone
 *   (struct job); slowdown = response / service; bounded slowdown =
 *   max(1, response / max(service, tau)); utilization = sum(run x cpus) / (capacity x (last end -
 *   first submit)); GPU utilization likewise with GPUs; makespan = last end
 *   - first submit.  For a preempted job, run x resources is the service it
 *   received (its attained resource-seconds), not its whole stay.
 * Statistics over jobs (mean, median, p90, p95, p99, max) use GSL.  Jobs
 * that never started (rejected) take no part in wait/response/slowdown.
 * With a measurement window (struct stats_window) only the jobs submitted
 * inside it count, and utilization is taken over its span instead of the
 * makespan.
 */
#ifndef CLUSTERSIM_STATS_H
#define CLUSTERSIM_STATS_H

#include "clustersim/clustersim.h"
#include "engine/sim.h"

enum metric_kind { MK_COUNT, MK_SECONDS, MK_RATIO };

enum metric_id {
	M_JOBS, M_FINISHED, M_KILLED, M_REJECTED,
	M_WAIT_MEAN, M_WAIT_MEDIAN, M_WAIT_P90, M_WAIT_P95, M_WAIT_P99,
	M_WAIT_MAX,
	M_RESP_MEAN, M_RESP_MEDIAN, M_RESP_P95, M_RESP_P99, M_RESP_MAX,
	M_SLD_MEAN,
	M_BSLD_MEAN, M_BSLD_MEDIAN, M_BSLD_P95, M_BSLD_P99, M_BSLD_MAX,
	M_UTIL, M_UTIL_ALLOC, M_MAKESPAN,
	M_QUEUE_MEAN, M_QUEUE_MAX,
	M_UTIL_GPU, M_QUEUED_MEAN,
	M_FTF_MEAN, M_FTF_MAX, M_JAIN,
	M_PSLOW_MEAN,
	M_FWAIT_MEAN, M_FWAIT_P95, M_PREEMPT_MEAN, M_LOST_MEAN,
	M_FTF_ISO_MEAN, M_FTF_ISO_MAX,
	M_NMETRICS
};

struct metric_def {
	const char *name; /* column / key name */
	enum metric_kind kind;
	const char *doc;  /* one line, with the unit */
};

extern const struct metric_def metric_defs[M_NMETRICS];

/* What the measurement window was set by (summary's measure_basis). */
enum stats_basis {
	STATS_BASIS_MAKESPAN, /* no window: every job, utilization over
	                         first submit .. last end */
	STATS_BASIS_TIME,     /* jobs submitted in [start, end) */
	STATS_BASIS_JOBS,     /* jobs lo .. hi - 1 in submit order */
	STATS_NBASES
};
extern const char *const stats_basis_names[STATS_NBASES];

/*
 * A run's measurement window (docs/metrics.md): which jobs count in the
 * statistics, and the span utilization is taken over.  Set basis and
 * start/end (TIME) or skip_first/skip_last (JOBS), then resolve it with
 * stats_window_resolve() against the run's jobs before the run.
 */
struct stats_window {
	enum stats_basis basis;
	sim_time_t start, end;     /* TIME: given bounds, SIM_TIME_NONE =
	                              open (the first submit, the last end) */
	uint64_t skip_first, skip_last; /* JOBS: jobs left out */
	/* Resolved: */
	uint32_t lo, hi;           /* JOBS: measured idx in [lo, hi) */
	sim_time_t span_start;     /* utilization from here, SIM_TIME_NONE:
	                              the first submit */
	sim_time_t span_end;       /* to here, SIM_TIME_NONE: the last end */
};

/* Whether job j (of a window resolved for its run; NULL: no window)
 * counts in the statistics. */
static inline bool stats_measured(const struct stats_window *w,
				  const struct job *j)
{
	if (!w || w->basis == STATS_BASIS_MAKESPAN)
		return true;
	if (w->basis == STATS_BASIS_JOBS)
		return j->idx >= w->lo && j->idx < w->hi;
	return (w->start == SIM_TIME_NONE || j->submit >= w->start) &&
	       (w->end == SIM_TIME_NONE || j->submit < w->end);
}

/*
 * Resolves w against the jobs of its run (n of them, in idx order, as
 * the workload holds them): the JOBS range and the utilization span.
 * Returns the number of jobs it measures (0: an empty window, which
 * the caller refuses).
 */
size_t stats_window_resolve(struct stats_window *w, const struct job *jobs,
			    size_t n);

struct metrics {
	double v[M_NMETRICS];
	bool set[M_NMETRICS]; /* false: does not apply (empty cell) */
	enum stats_basis basis; /* the window's form */
	/* The span utilization was taken over (summary's measure_start,
	 * measure_end); span_set false when no job ran. */
	bool span_set;
	sim_time_t span_start, span_end;
};

/*
 * Computes every metric.  capacity is the cluster's CPU count, gpus its
 * GPU count (0: GPU utilization does not apply); tau the bounded-slowdown
 * threshold.
 */
void stats_compute(const struct job *jobs, size_t n, uint64_t capacity,
		   uint64_t gpus, sim_time_t tau,
		   const struct run_counters *rc, struct metrics *m);
/* The same over a resolved window w (NULL: none, as stats_compute):
 * only measured jobs count; utilization, utilization_alloc and
 * queue_mean are taken over w's span (rc's window areas, which the
 * engine integrated over the same span). */
void stats_compute_window(const struct job *jobs, size_t n,
			  uint64_t capacity, uint64_t gpus, sim_time_t tau,
			  const struct run_counters *rc,
			  const struct stats_window *w, struct metrics *m);

/* Finish-time fairness of a job without contention: its response over
 * its run time at reference speed alone (its work); NaN when it did not
 * run or has no work.  The metrics ftf_isolated_*, and Jain's index. */
double stats_ftf(const struct job *j);

/*
 * Finish-time fairness rho as Themis and Shockwave define it, for each of
 * the n jobs: response / (work x max(1, N / units)), N the number of
 * active jobs (submitted, not ended, among those that ran) averaged over
 * the job's [submit, end], units the cluster's GPUs (its CPUs when it has
 * none).  rho[i] is NaN where stats_ftf(&jobs[i]) is.  O(n log n).
 */
void stats_ftf_contention(const struct job *jobs, size_t n, uint64_t units,
			  double *rho);

/* Per-job derived values, shared by the metrics and jobs.csv. */
double stats_slowdown(const struct job *j);               /* NaN if n/a */
double stats_bounded_slowdown(const struct job *j, sim_time_t tau);

#endif
