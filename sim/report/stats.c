/*
 * Metrics of one run, computed from the job records once the run is over.
 *
 * The definitions are the contract of docs/metrics.md:
 *   wait = queued, the total time pending (the first wait and every wait
 *   after a preemption), first wait = first start - submit,
 *   response = end - submit, run = end - start (time preempted included),
 *   service = the job's run time alone at the speed of its first
 *   placement (its work for a job the speed model does not slow),
 *   slowdown = response / service (does not apply when service == 0),
 *   bounded slowdown = max(1, response / max(service, tau)),
 *   utilization = sum(run x cpus) / (capacity x makespan),
 *   makespan = last end - first submit.
 * A job "ran" when it ended FINISHED or KILLED; only those take part in
 * the statistics over jobs.  REJECTED jobs count in "jobs" and "rejected"
 * only.  With a measurement window, only the jobs submitted inside it
 * (stats_measured) count at all, and utilization divides the
 * resource-seconds held inside the window's span by its length
 * (window_use): the drain after the last arrival no longer dilutes it.
 * Statistics over jobs use GSL: the mean is gsl_stats_mean, the
 * percentiles are gsl_stats_quantile_from_sorted_data (linear
 * interpolation between the two nearest order statistics at (n - 1) x f),
 * the median is the 0.5 quantile.  Time metrics are seconds as doubles.
 *
 * Sorting: gsl_sort is a heapsort, ~0.17 s per million values, and a run
 * sorts four arrays; a radix sort on the IEEE-754 bit patterns gives the
 * same order (no NaN ever reaches it) in linear time.
 */
#include "report/stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include <string.h>
#include <gsl/gsl_statistics_double.h>

#include "base/util.h"

const struct metric_def metric_defs[M_NMETRICS] = {
	[M_JOBS] = { "jobs", MK_COUNT, "jobs in the workload" },
	[M_FINISHED] = { "finished", MK_COUNT, "jobs that ended normally" },
	[M_KILLED] = { "killed", MK_COUNT, "jobs ended at their walltime" },
	[M_REJECTED] = { "rejected", MK_COUNT,
			 "jobs that could never fit, never run" },
	[M_WAIT_MEAN] = { "wait_mean", MK_SECONDS,
			  "mean wait (total time queued), s" },
	[M_WAIT_MEDIAN] = { "wait_median", MK_SECONDS, "median wait, s" },
	[M_WAIT_P90] = { "wait_p90", MK_SECONDS, "90th percentile wait, s" },
	[M_WAIT_P95] = { "wait_p95", MK_SECONDS, "95th percentile wait, s" },
	[M_WAIT_P99] = { "wait_p99", MK_SECONDS, "99th percentile wait, s" },
	[M_WAIT_MAX] = { "wait_max", MK_SECONDS, "longest wait, s" },
	[M_RESP_MEAN] = { "response_mean", MK_SECONDS,
			  "mean response time (JCT), s" },
	[M_RESP_MEDIAN] = { "response_median", MK_SECONDS,
			    "median response time, s" },
	[M_RESP_P95] = { "response_p95", MK_SECONDS,
			 "95th percentile response time, s" },
	[M_RESP_P99] = { "response_p99", MK_SECONDS,
			 "99th percentile response time, s" },
	[M_RESP_MAX] = { "response_max", MK_SECONDS,
			 "longest response time, s" },
	[M_SLD_MEAN] = { "slowdown_mean", MK_RATIO,
			 "mean slowdown (response / service) over jobs with "
			 "service > 0" },
	[M_BSLD_MEAN] = { "bsld_mean", MK_RATIO, "mean bounded slowdown" },
	[M_BSLD_MEDIAN] = { "bsld_median", MK_RATIO,
			    "median bounded slowdown" },
	[M_BSLD_P95] = { "bsld_p95", MK_RATIO,
			 "95th percentile bounded slowdown" },
	[M_BSLD_P99] = { "bsld_p99", MK_RATIO,
			 "99th percentile bounded slowdown" },
	[M_BSLD_MAX] = { "bsld_max", MK_RATIO, "largest bounded slowdown" },
	[M_UTIL] = { "utilization", MK_RATIO,
		     "sum(run x cpus) / (capacity x makespan)" },
	[M_UTIL_ALLOC] = { "utilization_alloc", MK_RATIO,
			   "allocated CPU-seconds / (capacity x makespan)" },
	[M_MAKESPAN] = { "makespan", MK_SECONDS,
			 "last end - first submit, s" },
	[M_QUEUE_MEAN] = { "queue_mean", MK_RATIO,
			   "time-averaged pending jobs over the makespan" },
	[M_QUEUE_MAX] = { "queue_max", MK_COUNT, "longest queue, jobs" },
	[M_UTIL_GPU] = { "utilization_gpu", MK_RATIO,
			 "sum(run x gpus) / (GPUs x makespan)" },
	[M_QUEUED_MEAN] = { "queued_mean", MK_SECONDS,
			    "mean total time pending (waits after "
			    "preemptions included), s" },
	[M_FTF_MEAN] = { "ftf_mean", MK_RATIO,
			 "mean finish-time fairness rho = response / (work x "
			 "max(1, N / GPUs)), N the active jobs over its life" },
	[M_FTF_MAX] = { "ftf_max", MK_RATIO, "largest finish-time fairness" },
	[M_JAIN] = { "jain", MK_RATIO,
		     "Jain's index over users (groups when no job has a "
		     "user) of their mean rho" },
	[M_PSLOW_MEAN] = { "placement_slowdown_mean", MK_RATIO,
			   "mean placement slowdown of the GPU jobs of more "
			   "than one GPU" },
	[M_FWAIT_MEAN] = { "first_wait_mean", MK_SECONDS,
			   "mean first wait (first start - submit), s" },
	[M_FWAIT_P95] = { "first_wait_p95", MK_SECONDS,
			  "95th percentile first wait, s" },
	[M_PREEMPT_MEAN] = { "preemptions_mean", MK_RATIO,
			     "mean preemptions per job" },
	[M_LOST_MEAN] = { "lost_work_mean", MK_SECONDS,
			  "mean work redone per job after preemptions, s" },
	[M_FTF_ISO_MEAN] = { "ftf_isolated_mean", MK_RATIO,
			     "mean response / work (finish-time fairness "
			     "without the contention factor)" },
	[M_FTF_ISO_MAX] = { "ftf_isolated_max", MK_RATIO,
			    "largest response / work" },
};
static_assert(ARRAY_SIZE(metric_defs) == M_NMETRICS,
	      "metric_defs must name every metric");

static bool job_ran(const struct job *j)
{
	return (j->state == JOB_FINISHED || j->state == JOB_KILLED) &&
	       j->start != SIM_TIME_NONE && j->end != SIM_TIME_NONE;
}

const char *const stats_basis_names[STATS_NBASES] = {
	[STATS_BASIS_MAKESPAN] = "makespan",
	[STATS_BASIS_TIME] = "time",
	[STATS_BASIS_JOBS] = "jobs",
};

size_t stats_window_resolve(struct stats_window *w, const struct job *jobs,
			    size_t n)
{
	size_t k = 0;
	switch (w->basis) {
	case STATS_BASIS_JOBS:
		w->lo = w->hi = 0;
		w->span_start = w->span_end = SIM_TIME_NONE;
		if (w->skip_first >= n || w->skip_last >= n - w->skip_first)
			return 0;
		w->lo = (uint32_t)w->skip_first;
		w->hi = (uint32_t)(n - w->skip_last);
		/* From the first measured arrival to the last: the span in
		 * which the measured jobs arrive (docs/metrics.md). */
		w->span_start = jobs[w->lo].submit;
		w->span_end = jobs[w->hi - 1].submit;
		return w->hi - w->lo;
	case STATS_BASIS_TIME:
		w->span_start = w->start;
		w->span_end = w->end;
		for (size_t i = 0; i < n; i++)
			k += stats_measured(w, &jobs[i]);
		return k;
	case STATS_BASIS_MAKESPAN:
	case STATS_NBASES:
		break;
	}
	w->span_start = w->span_end = SIM_TIME_NONE;
	return n;
}

/* A job that takes part in the statistics over jobs: it ran, and it was
 * submitted inside the window (w NULL: every job). */
static bool counted(const struct stats_window *w, const struct job *j)
{
	return job_ran(j) && stats_measured(w, j);
}

double stats_ftf(const struct job *j)
{
	if (!job_ran(j) || j->run <= 0)
		return NAN;
	return (double)(j->end - j->submit) / (double)j->run;
}

double stats_slowdown(const struct job *j)
{
	if (!job_ran(j) || j->service <= 0)
		return NAN;
	return (double)(j->end - j->submit) / (double)j->service;
}

double stats_bounded_slowdown(const struct job *j, sim_time_t tau)
{
	if (!job_ran(j))
		return NAN;
	sim_time_t d = j->service > tau ? j->service : tau;
	/* Only reachable with tau <= 0 and a zero-length job. */
	if (d <= 0)
		return NAN;
	double v = (double)(j->end - j->submit) / (double)d;
	return v > 1.0 ? v : 1.0;
}

static void set(struct metrics *m, enum metric_id id, double v)
{
	m->v[id] = v;
	m->set[id] = true;
}

/* An order-preserving map of a double (not NaN) to an unsigned integer:
 * flip all bits of negatives, only the sign bit of the rest. */
static uint64_t dbl_key(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	return u >> 63 ? ~u : u | (uint64_t)1 << 63;
}

static double key_dbl(uint64_t u)
{
	double d;
	u = u >> 63 ? u & ~((uint64_t)1 << 63) : ~u;
	memcpy(&d, &u, sizeof(d));
	return d;
}

static inline uint64_t word_at(const double *x, size_t i)
{
	uint64_t u;
	memcpy(&u, &x[i], sizeof(u));
	return u;
}

static inline void word_put(double *x, size_t i, uint64_t u)
{
	memcpy(&x[i], &u, sizeof(u));
}

/* Sorts x[0..n) ascending: LSD radix sort, one pass per byte that is not
 * the same in every key.  The keys are made in x's own storage, so the
 * sort needs one scratch array, not two (the statistics of a long trace
 * are the run's peak of memory). */
static void sort_doubles(double *x, size_t n)
{
	double *b = xmalloc((n ? n : 1) * sizeof(*b));
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = dbl_key(x[i]);
		word_put(x, i, k);
		all_or |= k;
		all_and &= k;
	}
	double *a = x;
	for (int shift = 0; shift < 64; shift += 8) {
		if (((all_or ^ all_and) >> shift & 0xff) == 0)
			continue;
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[(word_at(a, i) >> shift & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++) {
			uint64_t k = word_at(a, i);
			word_put(b, count[k >> shift & 0xff]++, k);
		}
		double *t = a;
		a = b;
		b = t;
	}
	for (size_t i = 0; i < n; i++)
		x[i] = key_dbl(word_at(a, i));
	free(a == x ? b : a);
}

/*
 * Sorts x[0..n) in place and sets mean, then each (metric, quantile) pair
 * of q (quantile 1 = the maximum).  Nothing is set when n == 0.
 */
struct quantile {
	enum metric_id id; /* metric to set */
	double f;          /* fraction in [0, 1] */
};

static void describe(struct metrics *m, double *x, size_t n,
		     enum metric_id mean, const struct quantile *q, size_t nq)
{
	if (n == 0)
		return;
	sort_doubles(x, n);
	set(m, mean, gsl_stats_mean(x, 1, n));
	for (size_t i = 0; i < nq; i++)
		set(m, q[i].id,
		    gsl_stats_quantile_from_sorted_data(x, 1, n, q[i].f));
}

/*
 * Jain's index (sum x)^2 / (n sum x^2) over the owners' mean rho: 1 when
 * every owner fares the same, 1/n when one gets all the pain.  Owners are
 * users, or groups when no job names a user.  Each owner's sum is kept in
 * an open-addressing table and added to in job order, so the result is
 * the same bits on every run, in O(jobs).
 */
struct owner_sum {
	int64_t key;   /* the owner; INT64_MIN = empty slot */
	double sum;    /* of its jobs' rho */
	uint64_t n;    /* jobs */
};

static void jain(const struct job *jobs, size_t n,
		 const struct stats_window *w, struct metrics *m)
{
	bool users = false;
	for (size_t i = 0; i < n && !users; i++)
		users = jobs[i].user >= 0 && stats_measured(w, &jobs[i]);
	size_t cap = 1024, used = 0;
	struct owner_sum *t = xmalloc(cap * sizeof(*t));
	for (size_t i = 0; i < cap; i++)
		t[i].key = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		double rho = stats_ftf(&jobs[i]);
		if (isnan(rho) || !stats_measured(w, &jobs[i]))
			continue;
		if (2 * (used + 1) > cap) { /* grow: rehash in slot order */
			struct owner_sum *old = t;
			size_t oc = cap;
			cap *= 2;
			t = xmalloc(cap * sizeof(*t));
			for (size_t k = 0; k < cap; k++)
				t[k].key = INT64_MIN;
			for (size_t k = 0; k < oc; k++) {
				if (old[k].key == INT64_MIN)
					continue;
				size_t h = (uint64_t)old[k].key *
					   0x9e3779b97f4a7c15ull % cap;
				while (t[h].key != INT64_MIN)
					h = (h + 1) & (cap - 1);
				t[h] = old[k];
			}
			free(old);
		}
		int64_t key = users ? jobs[i].user : jobs[i].group;
		size_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull % cap;
		while (t[h].key != INT64_MIN && t[h].key != key)
			h = (h + 1) & (cap - 1);
		if (t[h].key == INT64_MIN) {
			t[h] = (struct owner_sum){ key, 0, 0 };
			used++;
		}
		t[h].sum += rho;
		t[h].n++;
	}
	double sum = 0, sum2 = 0;
	for (size_t k = 0; k < cap; k++) {
		if (t[k].key == INT64_MIN)
			continue;
		double x = t[k].sum / (double)t[k].n;
		sum += x;
		sum2 += x * x;
	}
	if (used && sum2 > 0)
		set(m, M_JAIN, sum * sum / ((double)used * sum2));
	free(t);
}

/* What one pass over the jobs adds up. */
struct job_totals {
	uint64_t measured;                   /* jobs in the window */
	uint64_t finished, killed, rejected; /* jobs by end state */
	sim_time_t first_submit;             /* of the jobs submitted */
	sim_time_t last_end;                 /* of the jobs that ran */
	double area;     /* sum of run x cpus, CPU x microseconds */
	double gpu_area; /* sum of run x gpus, GPU x microseconds */
	double queued;   /* total time pending of the jobs that ran, s */
	double preemptions; /* of the jobs that ran */
	double lost;     /* work they redo, s */
	size_t nran;     /* jobs that ran */
};

/* Time job j (that ran) held its resources, microseconds: its whole
 * stay, unless it was preempted or shared its GPUs (then its service
 * over its width: a job sharing GPUs is charged half of them). */
static double held_time(const struct job *j)
{
	double held = (double)(j->end - j->start);
	double width = j->gpus ? j->gpus : j->cpus;
	if ((j->preemptions || (j->gpus && j->attained > 0)) && width > 0)
		held = j->attained / width * SIM_SEC;
	return held;
}

static void add_up(const struct job *jobs, size_t n,
		   const struct stats_window *w, struct job_totals *t)
{
	*t = (struct job_totals){ .first_submit = SIM_TIME_MAX,
				  .last_end = SIM_TIME_NONE };
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &jobs[i];
		if (!stats_measured(w, j))
			continue;
		t->measured++;
		if (j->state == JOB_FINISHED)
			t->finished++;
		else if (j->state == JOB_KILLED)
			t->killed++;
		else if (j->state == JOB_REJECTED)
			t->rejected++;
		if (j->state != JOB_FUTURE && j->submit < t->first_submit)
			t->first_submit = j->submit;
		if (!job_ran(j))
			continue;
		t->nran++;
		if (j->end > t->last_end)
			t->last_end = j->end;
		double held = held_time(j);
		t->area += held * j->cpus;
		t->gpu_area += held * j->gpus;
		t->queued += (double)j->queued / SIM_SEC;
		t->preemptions += j->preemptions;
		t->lost += j->lost_work;
	}
}

/* Means and quantiles of wait, response and (bounded) slowdown, over the
 * nran jobs that ran. */
static void describe_jobs(const struct job *jobs, size_t n, size_t nran,
			  const struct stats_window *w, sim_time_t tau,
			  struct metrics *m)
{
	static const struct quantile wait_q[] = {
		{ M_WAIT_MEDIAN, 0.5 }, { M_WAIT_P90, 0.9 },
		{ M_WAIT_P95, 0.95 },   { M_WAIT_P99, 0.99 },
		{ M_WAIT_MAX, 1.0 },
	};
	static const struct quantile fwait_q[] = { { M_FWAIT_P95, 0.95 } };
	static const struct quantile resp_q[] = {
		{ M_RESP_MEDIAN, 0.5 }, { M_RESP_P95, 0.95 },
		{ M_RESP_P99, 0.99 },   { M_RESP_MAX, 1.0 },
	};
	static const struct quantile bsld_q[] = {
		{ M_BSLD_MEDIAN, 0.5 }, { M_BSLD_P95, 0.95 },
		{ M_BSLD_P99, 0.99 },   { M_BSLD_MAX, 1.0 },
	};
	/* One scratch array, reused for each per-job quantity. */
	double *x = xmalloc(nran * sizeof(*x));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (counted(w, &jobs[i]))
			x[k++] = (double)jobs[i].queued / SIM_SEC;
	describe(m, x, k, M_WAIT_MEAN, wait_q, ARRAY_SIZE(wait_q));

	k = 0;
	for (size_t i = 0; i < n; i++)
		if (counted(w, &jobs[i]))
			x[k++] = (double)(jobs[i].start - jobs[i].submit) /
				 SIM_SEC;
	describe(m, x, k, M_FWAIT_MEAN, fwait_q, ARRAY_SIZE(fwait_q));

	k = 0;
	for (size_t i = 0; i < n; i++)
		if (counted(w, &jobs[i]))
			x[k++] = (double)(jobs[i].end - jobs[i].submit) /
				 SIM_SEC;
	describe(m, x, k, M_RESP_MEAN, resp_q, ARRAY_SIZE(resp_q));

	k = 0;
	for (size_t i = 0; i < n; i++) {
		double s = stats_slowdown(&jobs[i]);
		if (!isnan(s) && stats_measured(w, &jobs[i]))
			x[k++] = s;
	}
	describe(m, x, k, M_SLD_MEAN, NULL, 0);

	k = 0;
	for (size_t i = 0; i < n; i++) {
		double s = stats_bounded_slowdown(&jobs[i], tau);
		if (!isnan(s) && stats_measured(w, &jobs[i]))
			x[k++] = s;
	}
	describe(m, x, k, M_BSLD_MEAN, bsld_q, ARRAY_SIZE(bsld_q));
	free(x);
}

/* Seconds since t0, for the contention integrals. */
static double ftf_sec(sim_time_t t, sim_time_t t0)
{
	return (double)(t - t0) / SIM_SEC;
}

/* How many of the sorted x[0..n) are < t. */
static size_t below(const double *x, size_t n, double t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Prefix sums of a ramp's sorted times are kept only every this many
 * entries; the rest are added up again from the last one kept, in the
 * same order, so each sum is the same double as a full prefix array's.
 * The arrays of a long trace's statistics are the run's peak of memory. */
#define RAMP_STRIDE 16

/* The sorted x[0..n) with the prefix sums ck[c] = x[0] + ... +
 * x[c * RAMP_STRIDE - 1], added in that order. */
struct ramp {
	double *x;
	double *ck;
	size_t n;
};

static void ramp_init(struct ramp *r, double *x, size_t n, double *ck)
{
	sort_doubles(x, n);
	double sum = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i % RAMP_STRIDE == 0)
			ck[i / RAMP_STRIDE] = sum;
		if (i < n)
			sum += x[i];
	}
	r->x = x;
	r->ck = ck;
	r->n = n;
}

/* Integral over [0, t) of #{k: x[k] <= t'}: sum over x[k] < t of
 * (t - x[k]). */
static double ramp(const struct ramp *r, double t)
{
	size_t k = below(r->x, r->n, t);
	double ps = r->ck[k / RAMP_STRIDE];
	for (size_t i = k - k % RAMP_STRIDE; i < k; i++)
		ps += r->x[i];
	return (double)k * t - ps;
}

/* The active jobs' integrals of one workload: see
 * stats_ftf_contention(). */
struct contention {
	struct ramp sub, end;
	sim_time_t t0;
	uint64_t units;
	double *mem;
};

static void contention_init(struct contention *c, const struct job *jobs,
			    size_t n, uint64_t units)
{
	size_t k = 0;
	c->t0 = 0;
	c->units = units;
	for (size_t i = 0; i < n; i++)
		if (job_ran(&jobs[i]) && (!k++ || jobs[i].submit < c->t0))
			c->t0 = jobs[i].submit;
	size_t nck = k / RAMP_STRIDE + 1;
	c->mem = xmalloc((2 * k + 2 * nck) * sizeof(*c->mem));
	double *s = c->mem, *e = s + k;
	k = 0;
	for (size_t i = 0; i < n; i++)
		if (job_ran(&jobs[i])) {
			s[k] = ftf_sec(jobs[i].submit, c->t0);
			e[k++] = ftf_sec(jobs[i].end, c->t0);
		}
	ramp_init(&c->sub, s, k, e + k);
	ramp_init(&c->end, e, k, e + k + nck);
}

/* rho of job j with the contention factor. */
static double contention_rho(const struct contention *c, const struct job *j)
{
	double rho = stats_ftf(j);
	if (isnan(rho) || j->end <= j->submit || !c->units)
		return rho;
	double a = ftf_sec(j->submit, c->t0), b = ftf_sec(j->end, c->t0);
	double area = ramp(&c->sub, b) - ramp(&c->end, b) -
		      (ramp(&c->sub, a) - ramp(&c->end, a));
	double f = area / (b - a) / (double)c->units;
	return rho / (f > 1 ? f : 1);
}

/*
 * The number of active jobs at t' is #{submit <= t'} - #{end <= t'}, so
 * its integral up to t is ramp(submits, t) - ramp(ends, t), evaluated by
 * binary search in the sorted submits and ends and their prefix sums,
 * and N of a job is the difference at its end and submit over its
 * response.  Times are seconds since the earliest submit.
 */
void stats_ftf_contention(const struct job *jobs, size_t n, uint64_t units,
			  double *rho)
{
	struct contention c;
	contention_init(&c, jobs, n, units);
	for (size_t i = 0; i < n; i++)
		rho[i] = contention_rho(&c, &jobs[i]);
	free(c.mem);
}

/* The mean and largest of the finite values of measured jobs, added one
 * job at a time in job order. */
struct mean_max {
	double sum, hi;
	size_t k;
};

static void mean_max_add(struct mean_max *a, const struct stats_window *w,
			 const struct job *j, double x)
{
	if (isnan(x) || !stats_measured(w, j))
		return;
	a->sum += x;
	a->hi = a->k++ ? fmax(a->hi, x) : x;
}

static void mean_max_set(const struct mean_max *a, enum metric_id mean,
			 enum metric_id max, struct metrics *m)
{
	if (a->k) {
		set(m, mean, a->sum / (double)a->k);
		set(m, max, a->hi);
	}
}

/* Finish-time fairness (with and without the contention factor, Jain's
 * index) and the mean placement slowdown of the multi-GPU jobs that the
 * speed model ran. */
static void fairness(const struct job *jobs, size_t n, uint64_t units,
		     const struct stats_window *w, struct metrics *m)
{
	struct mean_max iso = { 0 }, ftf = { 0 };
	for (size_t i = 0; i < n; i++)
		mean_max_add(&iso, w, &jobs[i], stats_ftf(&jobs[i]));
	mean_max_set(&iso, M_FTF_ISO_MEAN, M_FTF_ISO_MAX, m);
	struct contention c;
	contention_init(&c, jobs, n, units);
	for (size_t i = 0; i < n; i++)
		mean_max_add(&ftf, w, &jobs[i], contention_rho(&c, &jobs[i]));
	free(c.mem);
	mean_max_set(&ftf, M_FTF_MEAN, M_FTF_MAX, m);
	jain(jobs, n, w, m);
	double psum = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!counted(w, &jobs[i]) || jobs[i].gpus < 2 ||
		    !(jobs[i].placement_slowdown > 0))
			continue;
		psum += jobs[i].placement_slowdown;
		k++;
	}
	if (k)
		set(m, M_PSLOW_MEAN, psum / (double)k);
}

/* Utilization over a window's span [s0, s1] (s1 > s0): the time each
 * job that ran (measured or not: the cluster was busy with it) held its
 * resources inside the span; a preempted or sharing job's held time is
 * spread evenly over its stay, from its first start to its last end. */
static void window_use(const struct job *jobs, size_t n, sim_time_t s0,
		       sim_time_t s1, uint64_t capacity, uint64_t gpus,
		       const struct run_counters *rc, struct metrics *m)
{
	double area = 0, gpu_area = 0;
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &jobs[i];
		if (!job_ran(j) || j->end <= j->start || j->end <= s0 ||
		    j->start >= s1)
			continue;
		sim_time_t a = j->start > s0 ? j->start : s0;
		sim_time_t b = j->end < s1 ? j->end : s1;
		double held = held_time(j) *
			      ((double)(b - a) / (double)(j->end - j->start));
		area += held * j->cpus;
		gpu_area += held * j->gpus;
	}
	double span = (double)(s1 - s0) / SIM_SEC;
	if (gpus > 0)
		set(m, M_UTIL_GPU, gpu_area / SIM_SEC / ((double)gpus * span));
	if (capacity > 0) {
		set(m, M_UTIL, area / SIM_SEC / ((double)capacity * span));
		if (rc)
			set(m, M_UTIL_ALLOC,
			    rc->win_busy_area / ((double)capacity * span));
	}
	if (rc)
		set(m, M_QUEUE_MEAN, rc->win_queue_area / span);
}

/* The span of a window, its open bounds closed by the first submit and
 * the last end of the run. */
static void window_span(const struct job *jobs, size_t n,
			const struct stats_window *w, sim_time_t *s0,
			sim_time_t *s1)
{
	struct job_totals all;
	add_up(jobs, n, NULL, &all);
	*s0 = w->span_start != SIM_TIME_NONE ? w->span_start
					     : all.first_submit;
	*s1 = w->span_end != SIM_TIME_NONE ? w->span_end : all.last_end;
}

void stats_compute(const struct job *jobs, size_t n, uint64_t capacity,
		   uint64_t gpus, sim_time_t tau,
		   const struct run_counters *rc, struct metrics *m)
{
	stats_compute_window(jobs, n, capacity, gpus, tau, rc, NULL, m);
}

void stats_compute_window(const struct job *jobs, size_t n,
			  uint64_t capacity, uint64_t gpus, sim_time_t tau,
			  const struct run_counters *rc,
			  const struct stats_window *w, struct metrics *m)
{
	struct job_totals t;
	if (w && w->basis == STATS_BASIS_MAKESPAN)
		w = NULL;
	for (size_t i = 0; i < M_NMETRICS; i++) {
		m->v[i] = 0;
		m->set[i] = false;
	}
	m->basis = w ? w->basis : STATS_BASIS_MAKESPAN;
	m->span_set = false;
	add_up(jobs, n, w, &t);
	set(m, M_JOBS, (double)t.measured);
	set(m, M_FINISHED, (double)t.finished);
	set(m, M_KILLED, (double)t.killed);
	set(m, M_REJECTED, (double)t.rejected);
	if (rc)
		set(m, M_QUEUE_MAX, (double)(w ? rc->win_queue_max
					       : rc->queue_max));
	if (t.nran == 0)
		return;
	describe_jobs(jobs, n, t.nran, w, tau, m);
	fairness(jobs, n, gpus ? gpus : capacity, w, m);

	/* A job cannot end before it was submitted, so this is >= 0. */
	double makespan = (double)(t.last_end - t.first_submit) / SIM_SEC;
	set(m, M_MAKESPAN, makespan);
	set(m, M_QUEUED_MEAN, t.queued / (double)t.nran);
	set(m, M_PREEMPT_MEAN, t.preemptions / (double)t.nran);
	set(m, M_LOST_MEAN, t.lost / (double)t.nran);
	if (w) {
		sim_time_t s0, s1;
		window_span(jobs, n, w, &s0, &s1);
		m->span_set = true;
		m->span_start = s0;
		m->span_end = s1;
		if (s1 > s0)
			window_use(jobs, n, s0, s1, capacity, gpus, rc, m);
		return;
	}
	m->span_set = true;
	m->span_start = t.first_submit;
	m->span_end = t.last_end;
	if (makespan > 0 && gpus > 0)
		set(m, M_UTIL_GPU,
		    t.gpu_area / SIM_SEC / ((double)gpus * makespan));
	if (makespan > 0 && capacity > 0) {
		set(m, M_UTIL,
		    t.area / SIM_SEC / ((double)capacity * makespan));
		if (rc)
			set(m, M_UTIL_ALLOC,
			    rc->busy_area / ((double)capacity * makespan));
	}
	if (makespan > 0 && rc)
		set(m, M_QUEUE_MEAN, rc->queue_area / makespan);
}
