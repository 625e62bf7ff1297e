/*
 * Tests of the run metrics (sim/report/stats.c) against values worked out by hand
 * from the definitions in docs/metrics.md, and of the GSL percentiles
 * against a second, naive implementation of GSL's interpolation rule.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "report/stats.h"
#include "base/util.h"

#define S(x) ((sim_time_t)((x) * (double)SIM_SEC))

static struct job stats_job(int64_t id, double submit, double start,
			    double end, uint32_t cpus, enum job_state st)
{
	struct job j = { 0 };
	j.id = id;
	j.cpus = cpus;
	j.user = j.group = -1;
	j.submit = S(submit);
	j.start = start < 0 ? SIM_TIME_NONE : S(start);
	j.end = end < 0 ? SIM_TIME_NONE : S(end);
	j.run = j.estimate = j.end - j.start;
	/* Never preempted: queued from submit to start, service its run. */
	if (start >= 0) {
		j.queued = j.start - j.submit;
		j.service = j.run;
	}
	j.state = (uint8_t)st;
	return j;
}

/*
 * The worked example, capacity 10 CPUs, tau = 10 s:
 *
 *  id submit start end  cpus state    wait run resp slowdown bsld
 *   1    0     0   100   4   finished   0  100  100  1        max(1,100/100)=1
 *   2   10    20    25   2   finished  10    5   15  3        15/max(5,10)=1.5
 *   3   20   100   160   8   killed    80   60  140  7/3      140/60=7/3
 *   4   30    50    50   1   finished  20    0   20  n/a      20/max(0,10)=2
 *   5   40     -     -  64   rejected   (takes no part but in jobs/rejected)
 *
 * GSL quantile of sorted x[0..n): i = (n-1) f, lo = floor(i),
 * q = (1 - (i - lo)) x[lo] + (i - lo) x[lo+1];  here n = 4, i = 3f.
 *
 * waits sorted 0 10 20 80: mean 110/4 = 27.5
 *   median i=1.5: 10 + .5(20-10) = 15;   p90 i=2.7: 20 + .7(60) = 62
 *   p95 i=2.85: 20 + .85(60) = 71;       p99 i=2.97: 20 + .97(60) = 78.2
 *   max 80
 * responses sorted 15 20 100 140: mean 275/4 = 68.75
 *   median 20 + .5(80) = 60; p95 100 + .85(40) = 134;
 *   p99 100 + .97(40) = 138.8; max 140
 * slowdown over 1, 3, 7/3 (job 4 has run 0): mean (1+3+7/3)/3 = 19/9
 * bsld sorted 1 1.5 2 7/3: mean (1+1.5+2+7/3)/4 = 41/24
 *   median 1.5 + .5(.5) = 1.75; p95 2 + .85(1/3); p99 2 + .97(1/3);
 *   max 7/3
 * makespan = last end 160 - first submit 0 = 160 s
 * utilization = (100x4 + 5x2 + 60x8 + 0x1) / (10 x 160) = 890/1600
 * counters busy_area 800, queue_area 320, queue_max 3:
 *   utilization_alloc = 800/1600 = 0.5; queue_mean = 320/160 = 2
 */
static void stats_example(struct job *j)
{
	j[0] = stats_job(1, 0, 0, 100, 4, JOB_FINISHED);
	j[1] = stats_job(2, 10, 20, 25, 2, JOB_FINISHED);
	j[2] = stats_job(3, 20, 100, 160, 8, JOB_KILLED);
	j[3] = stats_job(4, 30, 50, 50, 1, JOB_FINISHED);
	j[4] = stats_job(5, 40, -1, -1, 64, JOB_REJECTED);
}

#define EXPECT(m, id, val)                                                   \
	do {                                                                 \
		cr_expect((m).set[id], "%s not set", metric_defs[id].name); \
		cr_expect(fabs((m).v[id] - (val)) < 1e-9,                    \
			  "%s = %.12g, expected %.12g", metric_defs[id].name, \
			  (m).v[id], (double)(val));                         \
	} while (0)

Test(stats, worked_example)
{
	struct job j[5];
	struct run_counters rc = { .busy_area = 800, .queue_area = 320,
				   .queue_max = 3 };
	struct metrics m;
	stats_example(j);
	stats_compute(j, 5, 10, 0, 10 * SIM_SEC, &rc, &m);

	EXPECT(m, M_JOBS, 5);
	EXPECT(m, M_FINISHED, 3);
	EXPECT(m, M_KILLED, 1);
	EXPECT(m, M_REJECTED, 1);
	EXPECT(m, M_WAIT_MEAN, 27.5);
	EXPECT(m, M_WAIT_MEDIAN, 15);
	EXPECT(m, M_WAIT_P90, 62);
	EXPECT(m, M_WAIT_P95, 71);
	EXPECT(m, M_WAIT_P99, 78.2);
	EXPECT(m, M_WAIT_MAX, 80);
	EXPECT(m, M_RESP_MEAN, 68.75);
	EXPECT(m, M_RESP_MEDIAN, 60);
	EXPECT(m, M_RESP_P95, 134);
	EXPECT(m, M_RESP_P99, 138.8);
	EXPECT(m, M_RESP_MAX, 140);
	EXPECT(m, M_SLD_MEAN, 19.0 / 9);
	EXPECT(m, M_BSLD_MEAN, 41.0 / 24);
	EXPECT(m, M_BSLD_MEDIAN, 1.75);
	EXPECT(m, M_BSLD_P95, 2 + 0.85 / 3);
	EXPECT(m, M_BSLD_P99, 2 + 0.97 / 3);
	EXPECT(m, M_BSLD_MAX, 7.0 / 3);
	EXPECT(m, M_MAKESPAN, 160);
	EXPECT(m, M_UTIL, 890.0 / 1600);
	EXPECT(m, M_UTIL_ALLOC, 0.5);
	EXPECT(m, M_QUEUE_MEAN, 2);
	EXPECT(m, M_QUEUE_MAX, 3);
}

Test(stats, per_job_values)
{
	struct job j[5];
	stats_example(j);
	cr_expect_eq(stats_slowdown(&j[0]), 1.0);
	cr_expect_eq(stats_slowdown(&j[1]), 3.0);
	cr_expect(fabs(stats_slowdown(&j[2]) - 7.0 / 3) < 1e-12);
	cr_expect(isnan(stats_slowdown(&j[3])), "run 0: does not apply");
	cr_expect(isnan(stats_slowdown(&j[4])), "rejected: does not apply");
	cr_expect_eq(stats_bounded_slowdown(&j[0], 10 * SIM_SEC), 1.0);
	cr_expect_eq(stats_bounded_slowdown(&j[1], 10 * SIM_SEC), 1.5);
	cr_expect_eq(stats_bounded_slowdown(&j[3], 10 * SIM_SEC), 2.0);
	cr_expect(isnan(stats_bounded_slowdown(&j[4], 10 * SIM_SEC)));
	/* tau = 0: bsld is the slowdown floored at 1; a zero-length job
	 * divides by max(0, 0) and so does not apply. */
	cr_expect_eq(stats_bounded_slowdown(&j[1], 0), 3.0);
	cr_expect(isnan(stats_bounded_slowdown(&j[3], 0)));
	/* tau larger than the response: floored at 1 (100/200 -> 1). */
	cr_expect_eq(stats_bounded_slowdown(&j[0], 200 * SIM_SEC), 1.0);
}

Test(stats, nothing_ran_leaves_metrics_unset)
{
	struct job j[2];
	struct run_counters rc = { .queue_max = 0 };
	struct metrics m;
	j[0] = stats_job(1, 0, -1, -1, 64, JOB_REJECTED);
	j[1] = stats_job(2, 5, -1, -1, 64, JOB_REJECTED);
	stats_compute(j, 2, 10, 0, 10 * SIM_SEC, &rc, &m);
	EXPECT(m, M_JOBS, 2);
	EXPECT(m, M_FINISHED, 0);
	EXPECT(m, M_KILLED, 0);
	EXPECT(m, M_REJECTED, 2);
	EXPECT(m, M_QUEUE_MAX, 0);
	for (int i = M_WAIT_MEAN; i <= M_QUEUE_MEAN; i++)
		cr_expect(!m.set[i], "%s should not apply",
			  metric_defs[i].name);

	stats_compute(NULL, 0, 10, 0, 10 * SIM_SEC, NULL, &m);
	EXPECT(m, M_JOBS, 0);
	cr_expect(!m.set[M_QUEUE_MAX], "no counters: queue_max unset");
}

Test(stats, first_submit_counts_rejected_jobs)
{
	/* A rejected job submitted at 0, a job 10..20 on 2 of 4 CPUs:
	 * makespan 20 - 0 = 20; utilization 10x2 / (4 x 20) = 0.25. */
	struct job j[2];
	struct metrics m;
	j[0] = stats_job(1, 0, -1, -1, 64, JOB_REJECTED);
	j[1] = stats_job(2, 10, 10, 20, 2, JOB_FINISHED);
	stats_compute(j, 2, 4, 0, 10 * SIM_SEC, NULL, &m);
	EXPECT(m, M_MAKESPAN, 20);
	EXPECT(m, M_UTIL, 0.25);
	cr_expect(!m.set[M_UTIL_ALLOC] && !m.set[M_QUEUE_MEAN],
		  "no counters: counter metrics unset");
}

Test(stats, zero_makespan_has_no_utilization)
{
	/* One zero-length job at 0: makespan 0, utilization undefined;
	 * slowdown does not apply; bsld = max(1, 0 / 10) = 1. */
	struct job j = stats_job(1, 0, 0, 0, 1, JOB_FINISHED);
	struct run_counters rc = { 0 };
	struct metrics m;
	stats_compute(&j, 1, 4, 0, 10 * SIM_SEC, &rc, &m);
	EXPECT(m, M_MAKESPAN, 0);
	EXPECT(m, M_WAIT_MAX, 0);
	EXPECT(m, M_BSLD_MEAN, 1);
	cr_expect(!m.set[M_SLD_MEAN]);
	cr_expect(!m.set[M_UTIL] && !m.set[M_UTIL_ALLOC] &&
		  !m.set[M_QUEUE_MEAN]);
}

/* GSL's rule written out directly, on a copy sorted with qsort. */
static int stats_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double stats_naive_q(const double *s, size_t n, double f)
{
	double i = (double)(n - 1) * f;
	size_t lo = (size_t)floor(i);
	double d = i - (double)lo;
	if (lo + 1 >= n)
		return s[n - 1];
	return (1 - d) * s[lo] + d * s[lo + 1];
}

Test(stats, quantiles_match_naive_rule)
{
	enum { N = 997 };
	struct job *j = xcalloc(N, sizeof(*j));
	double *w = xmalloc(N * sizeof(*w));
	struct metrics m;
	uint64_t x = 12345;
	double sum = 0;
	for (size_t i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		/* -8 s .. 8.7 s: negative values exercise the sort's sign
		 * handling (the engine never starts a job before submit). */
		sim_time_t wait = (sim_time_t)(x >> 40) - 8 * SIM_SEC;
		j[i] = stats_job((int64_t)i, 0, 0, 1, 1, JOB_FINISHED);
		j[i].submit = (sim_time_t)i * SIM_SEC;
		j[i].start = j[i].submit + wait;
		j[i].end = j[i].start + SIM_SEC;
		j[i].queued = wait; /* never preempted */
		w[i] = (double)wait / SIM_SEC;
		sum += w[i];
	}
	qsort(w, N, sizeof(*w), stats_cmp);
	stats_compute(j, N, 8, 0, 10 * SIM_SEC, NULL, &m);
	EXPECT(m, M_WAIT_MEAN, sum / N);
	EXPECT(m, M_FWAIT_MEAN, sum / N);
	EXPECT(m, M_FWAIT_P95, stats_naive_q(w, N, 0.95));
	EXPECT(m, M_WAIT_MEDIAN, stats_naive_q(w, N, 0.5));
	EXPECT(m, M_WAIT_P90, stats_naive_q(w, N, 0.9));
	EXPECT(m, M_WAIT_P95, stats_naive_q(w, N, 0.95));
	EXPECT(m, M_WAIT_P99, stats_naive_q(w, N, 0.99));
	EXPECT(m, M_WAIT_MAX, w[N - 1]);
	free(w);
	free(j);
}

Test(stats, metric_names_are_unique_and_set)
{
	for (int i = 0; i < M_NMETRICS; i++) {
		cr_assert(metric_defs[i].name && metric_defs[i].doc,
			  "metric %d has no name or doc", i);
		for (int k = 0; k < i; k++)
			cr_expect_str_neq(metric_defs[i].name,
					  metric_defs[k].name);
	}
	cr_expect_str_eq(metric_defs[M_WAIT_MEAN].name, "wait_mean");
	cr_expect_str_eq(metric_defs[M_BSLD_P95].name, "bsld_p95");
	cr_expect_str_eq(metric_defs[M_QUEUE_MAX].name, "queue_max");
}

Test(stats, gpu_utilization)
{
	/* A: 0..10 s on 2 GPUs, B: 0..20 s on 1 GPU, on 4 GPUs (and 8 CPUs
	 * that nobody asks for).  Makespan 20; GPU utilization
	 * (10 x 2 + 20 x 1) / (4 x 20) = 0.5; CPU utilization 0.  Without
	 * GPUs in the cluster it does not apply. */
	struct job j[2];
	struct metrics m;
	j[0] = stats_job(1, 0, 0, 10, 0, JOB_FINISHED);
	j[1] = stats_job(2, 0, 0, 20, 0, JOB_FINISHED);
	j[0].gpus = 2;
	j[1].gpus = 1;
	stats_compute(j, 2, 8, 4, 10 * SIM_SEC, NULL, &m);
	EXPECT(m, M_UTIL_GPU, 0.5);
	EXPECT(m, M_UTIL, 0);
	stats_compute(j, 2, 8, 0, 10 * SIM_SEC, NULL, &m);
	cr_expect(!m.set[M_UTIL_GPU]);
}

Test(stats, preempted_jobs_count_their_service)
{
	/* A preempted job stayed 0..100 s on 2 GPUs but received 120 GPU-s
	 * (60 s held); B ran 0..100 on 2 GPUs.  On 4 GPUs over 100 s: GPU
	 * utilization (120 + 200) / (4 x 100) = 0.8, not (200 + 200) / 400.
	 * Mean total pending time: (A 40 s + B 0) / 2 = 20 s. */
	struct job j[2];
	struct metrics m;
	j[0] = stats_job(1, 0, 0, 100, 0, JOB_FINISHED);
	j[1] = stats_job(2, 0, 0, 100, 0, JOB_FINISHED);
	j[0].gpus = j[1].gpus = 2;
	j[0].preemptions = 1;
	j[0].attained = 120;
	j[0].queued = 40 * SIM_SEC;
	stats_compute(j, 2, 8, 4, 10 * SIM_SEC, NULL, &m);
	EXPECT(m, M_UTIL_GPU, 0.8);
	EXPECT(m, M_QUEUED_MEAN, 20);
}

Test(stats, finish_time_fairness_and_jain)
{
	/* User 0: A waits 10 s then runs 10 (response 20, rho 2), B runs at
	 * once (rho 1): mean 1.5.  User 1: C waits 20 then runs 10 (rho 3).
	 * ftf_mean = (2 + 1 + 3) / 3 = 2, ftf_max = 3; Jain over the users'
	 * means (1.5, 3): 4.5^2 / (2 x (2.25 + 9)) = 20.25 / 22.5 = 0.9.
	 * Without users, the groups count: all in group 7, one owner: 1. */
	struct job j[3];
	struct metrics m;
	j[0] = stats_job(1, 0, 10, 20, 1, JOB_FINISHED);
	j[1] = stats_job(2, 0, 0, 10, 1, JOB_FINISHED);
	j[2] = stats_job(3, 0, 20, 30, 1, JOB_FINISHED);
	j[0].user = j[1].user = 0;
	j[2].user = 1;
	stats_compute(j, 3, 4, 0, 10 * SIM_SEC, NULL, &m);
	/* At most 3 jobs active on 4 CPUs: no contention, rho as alone. */
	EXPECT(m, M_FTF_MEAN, 2);
	EXPECT(m, M_FTF_MAX, 3);
	EXPECT(m, M_FTF_ISO_MEAN, 2);
	EXPECT(m, M_FTF_ISO_MAX, 3);
	EXPECT(m, M_JAIN, 0.9);
	for (int i = 0; i < 3; i++) {
		j[i].user = -1;
		j[i].group = 7;
	}
	stats_compute(j, 3, 4, 0, 10 * SIM_SEC, NULL, &m);
	EXPECT(m, M_JAIN, 1);
}

Test(stats, finish_time_fairness_with_contention)
{
	/*
	 * One-GPU jobs of 10 s each: A submit 0, runs 0..10; B submit 0,
	 * runs 10..20; C submit 5, runs 20..30.  Active jobs: 2 in [0, 5),
	 * 3 in [5, 10), 2 in [10, 20), 1 in [20, 30).  N over each life:
	 *   A [0, 10]:  (2 x 5 + 3 x 5) / 10                 = 2.5
	 *   B [0, 20]:  (2 x 5 + 3 x 5 + 2 x 10) / 20        = 2.25
	 *   C [5, 30]:  (3 x 5 + 2 x 10 + 1 x 10) / 25       = 1.8
	 * On 1 GPU, rho = response / (10 x max(1, N / 1)):
	 *   A 10 / 25 = 0.4, B 20 / 22.5 = 8/9, C 25 / 18 = 25/18;
	 *   mean (0.4 + 8/9 + 25/18) / 3 = 48.2 / 54, max 25/18.
	 * Isolated (response / 10): 1, 2, 2.5: mean 11/6, max 2.5.
	 * On 2 GPUs the factors are 1.25, 1.125 and max(1, 0.9) = 1:
	 *   A 0.8, B 16/9, C 2.5: mean (0.8 + 16/9 + 2.5) / 3.
	 * A rejected job is never active and changes nothing.
	 */
	struct job j[4];
	struct metrics m;
	double rho[4];
	j[0] = stats_job(1, 0, 0, 10, 0, JOB_FINISHED);
	j[1] = stats_job(2, 0, 10, 20, 0, JOB_FINISHED);
	j[2] = stats_job(3, 5, 20, 30, 0, JOB_FINISHED);
	j[3] = stats_job(4, 1, -1, -1, 0, JOB_REJECTED);
	for (int i = 0; i < 4; i++)
		j[i].gpus = 1;
	j[3].run = S(10);
	stats_compute(j, 4, 0, 1, 10 * SIM_SEC, NULL, &m);
	EXPECT(m, M_FTF_MEAN, 48.2 / 54);
	EXPECT(m, M_FTF_MAX, 25.0 / 18);
	EXPECT(m, M_FTF_ISO_MEAN, 11.0 / 6);
	EXPECT(m, M_FTF_ISO_MAX, 2.5);
	stats_ftf_contention(j, 4, 1, rho);
	cr_expect(fabs(rho[0] - 0.4) < 1e-12 && fabs(rho[1] - 8.0 / 9) < 1e-12 &&
		  fabs(rho[2] - 25.0 / 18) < 1e-12 && isnan(rho[3]),
		  "rho %g %g %g %g", rho[0], rho[1], rho[2], rho[3]);
	stats_compute(j, 4, 0, 2, 10 * SIM_SEC, NULL, &m);
	EXPECT(m, M_FTF_MEAN, (0.8 + 16.0 / 9 + 2.5) / 3);
	EXPECT(m, M_FTF_MAX, 2.5);
	/* No GPUs: the CPUs are the units (here 1). */
	stats_compute(j, 4, 1, 0, 10 * SIM_SEC, NULL, &m);
	EXPECT(m, M_FTF_MAX, 25.0 / 18);
}

/*
 * The contention factor against its definition, summed directly: the
 * integral of the active jobs over a job's [a, b] is the sum over every
 * job k that ran of the length of [s_k, e_k) inside [a, b], so N = that
 * sum / (b - a), and rho = response / (work x max(1, N / units)).  Random
 * workloads of sizes around the prefix sums' stride (15, 16, 17, 32, 33,
 * 100 jobs), so sums read from a kept one and added up again are met at
 * every offset.
 */
Test(stats, ftf_contention_matches_direct_sum)
{
	static const size_t sizes[] = { 1, 15, 16, 17, 32, 33, 100 };
	uint64_t x = 12345;
	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		size_t n = sizes[si];
		struct job *j = calloc(n, sizeof(*j));
		double *rho = calloc(n, sizeof(*rho));
		cr_assert(j && rho);
		for (size_t i = 0; i < n; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			double sub = (double)(x >> 40 & 0xfff);
			double wait = (double)(x >> 20 & 0xff);
			double len = 1 + (double)(x >> 8 & 0x3ff);
			j[i] = stats_job((int64_t)i + 1, sub, sub + wait,
					 sub + wait + len, 1, JOB_FINISHED);
			j[i].gpus = 1;
		}
		stats_ftf_contention(j, n, 4, rho);
		for (size_t i = 0; i < n; i++) {
			double a = (double)j[i].submit / SIM_SEC;
			double b = (double)j[i].end / SIM_SEC, area = 0;
			for (size_t k = 0; k < n; k++) {
				double lo = fmax(a, (double)j[k].submit / SIM_SEC);
				double hi = fmin(b, (double)j[k].end / SIM_SEC);
				area += hi > lo ? hi - lo : 0;
			}
			double c = area / (b - a) / 4;
			double want = stats_ftf(&j[i]) / (c > 1 ? c : 1);
			cr_expect(fabs(rho[i] - want) <= 1e-9 * want,
				  "n %zu job %zu: rho %.12g, direct %.12g", n, i,
				  rho[i], want);
		}
		free(j);
		free(rho);
	}
}
