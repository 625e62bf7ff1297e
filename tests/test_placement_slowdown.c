/*
 * The placement slowdown of GPU jobs (docs/metrics.md): time run / time
 * the same work takes at the rate of an ideal placement (all-reduce at
 * NVLink bandwidth, no latency, same GPU types) = the time-weighted
 * harmonic mean of rate_ideal / rate_actual over its run.
 *
 * Figures by hand from Gavel's published ResNet-50 (batch size 64)
 * throughputs (quoted from gavel-throughputs.json, not read from the
 * project's table) and the ring all-reduce formula: 1 GPU k80
 * 0.6190282202246573 steps/s, v100 4.394774823323071 steps/s; 25,557,032
 * parameters, so 102,228,128 gradient bytes per step.  Fabric: 100 Gb/s
 * NICs (12.5e9 B/s), non-blocking leaves, 0.5 us per link, one node per
 * rack, NVLink 300 GB/s.  A 2-GPU job across two racks: p = 2, alpha =
 * 4 links x 0.5 us, so a = 2(p-1) alpha + 2(p-1)/p bytes / B
 * = 4e-6 + bytes / B; a_ref = bytes / 300e9.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "speed/jobclass.h"
#include "report/stats.h"
#include "testlib.h"
#include "base/util.h"

#define PS_K80 0.6190282202246573
#define PS_V100 4.394774823323071
#define PS_BYTES 102228128.0

static const struct job *ps_job(const struct sim *s, int64_t id)
{
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	for (size_t i = 0; i < n; i++)
		if (j[i].id == id)
			return &j[i];
	cr_assert_fail("no job %lld", (long long)id);
	return NULL;
}

/* (t + a) / (t + a_ref) for a 2-GPU job across two racks at bandwidth B
 * with t seconds per step on its GPUs. */
static double ps_ratio(double t, double B)
{
	return (t + 4e-6 + PS_BYTES / B) / (t + PS_BYTES / 300e9);
}

/*
 * A 2-GPU job spread over two V100 nodes, alone on the fabric: one rate
 * all along, so its slowdown is (t + a) / (t + a_ref) with t = 1 /
 * 4.394774823323071 = 0.2275430 s, a = 4e-6 + 102228128 / 12.5e9 =
 * 0.0081823 s, a_ref = 102228128 / 300e9 = 0.0003408 s: 1.034410...
 * On two K80 nodes the ideal placement keeps the K80s: t = 1 /
 * 0.6190282202246573 = 1.615432 s, and the slowdown is only 1.004853...
 * (the rate itself is far lower, but that is the GPU type, not the
 * placement).
 */
Test(placement_slowdown, spread_job_alone_is_the_allreduce_ratio)
{
	struct tjob t[] = { { 1, 0, 100, 100, 0 } };
	uint32_t gpus[] = { 2 };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	tl_r50_jobs(&w, t, 1, gpus);
	tl_gpu_cluster(&c, 2, 1, "v100", 1);
	tl_speed_config(&sc);
	struct sim *s = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	double want = ps_ratio(1 / PS_V100, 12.5e9);
	cr_expect(fabs(want - 1.034410) < 1e-6, "hand figure %.9f", want);
	cr_expect(fabs(ps_job(s, 1)->placement_slowdown - want) < 1e-12,
		  "slowdown %.12f, want %.12f",
		  ps_job(s, 1)->placement_slowdown, want);
	sim_free(s);
	cluster_spec_release(&c);

	tl_gpu_cluster(&c, 2, 1, "k80", 1);
	s = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	want = ps_ratio(1 / PS_K80, 12.5e9);
	cr_expect(fabs(want - 1.004853) < 1e-6, "hand figure %.9f", want);
	cr_expect(fabs(ps_job(s, 1)->placement_slowdown - want) < 1e-12,
		  "slowdown %.12f, want %.12f",
		  ps_job(s, 1)->placement_slowdown, want);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* Consolidated in one node the all-reduce runs at NVLink speed with no
 * latency, exactly as the ideal: slowdown exactly 1.  So is a 1-GPU job's
 * (it does not communicate). */
Test(placement_slowdown, consolidated_and_single_gpu_jobs_are_1)
{
	struct tjob t[] = { { 1, 0, 100, 100, 0 }, { 2, 0, 50, 50, 0 } };
	uint32_t gpus[] = { 2, 1 };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	tl_r50_jobs(&w, t, 2, gpus);
	tl_gpu_cluster(&c, 1, 4, "v100", 1);
	tl_speed_config(&sc);
	struct sim *s = tl_run_speed("fcfs", "consolidate", &w, &c, &sc);
	cr_expect_eq(ps_job(s, 1)->placement_slowdown, 1.0);
	cr_expect_eq(ps_job(s, 2)->placement_slowdown, 1.0);
	cr_expect_eq(tl_start(s, 1), 0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Two rates over one run.  Two nodes of 2 V100s, one per rack; spread
 * puts A (10 s of work) and B (100 s), 2 GPUs each, one GPU per node:
 * they share the NICs, 6.25e9 B/s each, until A ends; then B has
 * 12.5e9 B/s.  On V100s t_gpu = t_ref, so the ideal rate is 1: the time
 * at ideal rates is the work done, and the slowdown is run / work.
 *   r1 = 1 / ps_ratio(t, 6.25e9), r2 = 1 / ps_ratio(t, 12.5e9)
 *   A: ends at T1 = 10 / r1; slowdown T1 / 10 = ps_ratio(t, 6.25e9)
 *   B: ends at T2 = T1 + (100 - T1 r1) / r2; slowdown T2 / 100 =
 *      (T1 + (100 - 10) / r2) / 100, the time-weighted mix of the two
 *      ratios (weights: the work done at each).
 * End times are rounded up to the microsecond, so the work done exceeds
 * the work by under one microsecond of rate: tolerance 1e-7.
 */
Test(placement_slowdown, time_weighted_over_rate_changes)
{
	struct tjob t[] = { { 1, 0, 10, 10, 0 }, { 2, 0, 100, 100, 0 } };
	uint32_t gpus[] = { 2, 2 };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	tl_r50_jobs(&w, t, 2, gpus);
	tl_gpu_cluster(&c, 2, 2, "v100", 1);
	tl_speed_config(&sc);
	struct sim *s = tl_run_speed("fcfs", "spread", &w, &c, &sc);
	double q1 = ps_ratio(1 / PS_V100, 6.25e9);
	double q2 = ps_ratio(1 / PS_V100, 12.5e9);
	double t1 = 10 * q1;
	double want_b = (t1 + 90 * q2) / 100;
	cr_expect(fabs(ps_job(s, 1)->placement_slowdown - q1) < 1e-7,
		  "A %.9f, want %.9f", ps_job(s, 1)->placement_slowdown, q1);
	cr_expect(fabs(ps_job(s, 2)->placement_slowdown - want_b) < 1e-7,
		  "B %.9f, want %.9f", ps_job(s, 2)->placement_slowdown,
		  want_b);
	cr_expect(want_b > q2 && want_b < q1);

	/* The summary metric: the mean over the two multi-GPU jobs. */
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	struct metrics m;
	stats_compute(j, n, 0, 4, 10 * SIM_SEC, sim_counters(s), &m);
	cr_expect(m.set[M_PSLOW_MEAN]);
	cr_expect(fabs(m.v[M_PSLOW_MEAN] - (q1 + want_b) / 2) < 1e-7);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* CPU jobs have none (0, an empty cell), and the summary metric does not
 * apply to a run with no multi-GPU job. */
Test(placement_slowdown, cpu_and_single_gpu_runs_have_no_metric)
{
	struct tjob t[] = { { 1, 0, 10, 10, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 1);
	tl_cluster(&c, 1, 4);
	struct sim *s = tl_run("fcfs", &w, &c);
	cr_expect_eq(ps_job(s, 1)->placement_slowdown, 0);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	struct metrics m;
	stats_compute(j, n, 4, 0, 10 * SIM_SEC, sim_counters(s), &m);
	cr_expect_not(m.set[M_PSLOW_MEAN]);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}
