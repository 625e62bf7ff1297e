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
	M_NMETRICS
};

struct metric_def {
	const char *name; /* column / key name */
	enum metric_kind kind;
	const char *doc;  /* one line, with the unit */
};

extern const struct metric_def metric_defs[M_NMETRICS];

struct metrics {
	double v[M_NMETRICS];
	bool set[M_NMETRICS]; /* false: does not apply (empty cell) */
};

/*
 * Computes every metric.  capacity is the cluster's CPU count, gpus its
 * GPU count (0: GPU utilization does not apply); tau the bounded-slowdown
 * threshold.
 */
void stats_compute(const struct job *jobs, size_t n, uint64_t capacity,
		   uint64_t gpus, sim_time_t tau,
		   const struct run_counters *rc, struct metrics *m);

/* Finish-time fairness rho of a job: its response over its run time at
 * reference speed alone (its work), as Themis defines it; NaN when it
 * did not run or has no work. */
double stats_ftf(const struct job *j);

/* Per-job derived values, shared by the metrics and jobs.csv. */
double stats_slowdown(const struct job *j);               /* NaN if n/a */
double stats_bounded_slowdown(const struct job *j, sim_time_t tau);

#endif
