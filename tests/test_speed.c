/*
 * The GPU speed model through the engine (speed.h), against figures
 * worked out by hand from Gavel's published throughputs (quoted from
 * gavel-throughputs.json, not read from the project's table) and the
 * ring all-reduce formula:
 *   ResNet-50 (batch size 64), 1 GPU: k80 0.6190282202246573 steps/s,
 *   v100 4.394774823323071 steps/s; 25,557,032 parameters (He et al.),
 *   so 102,228,128 gradient bytes per iteration.
 * Run times are on the reference type, V100.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "speed/jobclass.h"
#include "testlib.h"
#include "base/util.h"

#define K80_STEPS 0.6190282202246573
#define V100_STEPS 4.394774823323071
#define R50_BYTES 102228128.0

static double end_s(const struct sim *s, int64_t id)
{
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	for (size_t i = 0; i < n; i++)
		if (j[i].id == id)
			return (double)j[i].end / SIM_SEC;
	return -1;
}

/*
 * One GPU on a K80: no communication, so the rate is the throughput
 * ratio 0.6190282202246573 / 4.394774823323071 = 0.14085...; 100 s of
 * V100 work take 100 x 4.394774823323071 / 0.6190282202246573 =
 * 709.95... s.
 */
Test(speed, single_gpu_runs_at_the_throughput_ratio)
{
	struct tjob t[] = { { 1, 0, 100, 100, 0 } };
	uint32_t gpus[] = { 1 };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	tl_r50_jobs(&w, t, 1, gpus);
	tl_gpu_cluster(&c, 1, 4, "k80", 0);
	tl_speed_config(&sc);
	struct sim *s = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	double want = 100 * V100_STEPS / K80_STEPS;
	cr_expect(fabs(end_s(s, 1) - want) < 2e-6, "end %.9f, want %.9f",
		  end_s(s, 1), want);
	sim_free(s);
	/* On the reference type itself: exactly the trace's run time. */
	cluster_spec_release(&c);
	tl_gpu_cluster(&c, 1, 4, "v100", 0);
	s = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	cr_expect_eq(end_s(s, 1), 100.0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* rate of a 2-GPU ResNet-50 job over two racks at bandwidth B (bytes/s):
 * (t + a_ref) / (t + a) with t = 1 / 4.394774823323071 s per step,
 * a = 2(p-1) alpha + 2(p-1)/p bytes / B, p = 2, alpha = 4 links x 0.5 us
 * (NIC, leaf, spine, leaf... across racks), a_ref = bytes / 300 GB/s. */
static double rate2(double B)
{
	double t = 1 / V100_STEPS;
	double a = 2 * 2e-6 + R50_BYTES / B;
	double a_ref = R50_BYTES / 300e9;
	return (t + a_ref) / (t + a);
}

/*
 * Two V100 nodes of 1 GPU, each its own rack: a 2-GPU job spans both and
 * gets the whole 100 Gb/s = 12.5e9 B/s.  rate2(12.5e9) = 0.9660...: its
 * 100 s of work take 100 / rate2 s.
 */
Test(speed, communication_slows_a_job_across_nodes)
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
	double want = 100 / rate2(12.5e9);
	cr_expect(fabs(end_s(s, 1) - want) < 2e-6, "end %.9f, want %.9f",
		  end_s(s, 1), want);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Contention, and an end event moved when it ends.  Two nodes of 2 V100s,
 * each its own rack.  Spread places both 2-GPU jobs, A (10 s) and B
 * (100 s), one GPU per node: they share both NICs (and uplinks), 50 Gb/s
 * = 6.25e9 B/s each.  A ends at T1 = 10 / rate2(6.25e9).  Then B has the
 * fabric alone, at rate2(12.5e9): it ends at
 *   T1 + (100 - T1 x rate2(6.25e9)) / rate2(12.5e9).
 * Had its end event not moved, it would end at 100 / rate2(6.25e9).
 */
Test(speed, contention_and_rescheduled_end)
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
	double r50 = rate2(6.25e9), r100 = rate2(12.5e9);
	double t1 = 10 / r50;
	double t2 = t1 + (100 - t1 * r50) / r100;
	cr_expect(fabs(end_s(s, 1) - t1) < 2e-6, "A ends %.9f, want %.9f",
		  end_s(s, 1), t1);
	cr_expect(fabs(end_s(s, 2) - t2) < 4e-6, "B ends %.9f, want %.9f",
		  end_s(s, 2), t2);
	cr_expect(end_s(s, 2) < 100 / r50 - 1);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* A job of no known class (Philly's) runs at the reference speed. */
Test(speed, unknown_class_runs_at_reference_speed)
{
	struct tjob t[] = { { 1, 0, 100, 100, 0 } };
	uint32_t gpus[] = { 2 };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	tl_r50_jobs(&w, t, 1, gpus);
	w.jobs[0].job_class = JOB_CLASS_NONE;
	tl_gpu_cluster(&c, 2, 1, "k80", 1);
	tl_speed_config(&sc);
	struct sim *s = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	cr_expect_eq(end_s(s, 1), 100.0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* Classes drawn for jobs whose trace names none: every class of Gavel's
 * table, evenly (26,000 draws: each class 1,000 +- 20%), the same for the
 * same seed and index, and different seeds give different draws. */
Test(speed, drawn_classes_are_uniform_and_reproducible)
{
	unsigned count[JOBCLASS_NGAVEL + 1] = { 0 };
	for (uint32_t i = 0; i < 26000; i++) {
		unsigned c = speed_draw_class(42, i);
		cr_assert(c >= 1 && c <= JOBCLASS_NGAVEL);
		cr_assert_eq(c, speed_draw_class(42, i));
		count[c]++;
	}
	for (unsigned c = 1; c <= JOBCLASS_NGAVEL; c++)
		cr_expect(count[c] > 800 && count[c] < 1200, "class %u: %u", c,
			  count[c]);
	unsigned same = 0;
	for (uint32_t i = 0; i < 1000; i++)
		same += speed_draw_class(1, i) == speed_draw_class(2, i);
	cr_expect_lt(same, 100); /* about 1000 / 26 by chance */
}

/* A classless 1-GPU job on a K80 with classes drawn: it gets class
 * speed_draw_class(seed 1, idx 0) and runs at that class's K80/V100
 * throughput ratio; with "trace" classes it stays at reference speed. */
Test(speed, drawn_class_sets_the_speed)
{
	struct tjob t[] = { { 1, 0, 100, 100, 0 } };
	uint32_t gpus[] = { 1 };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	tl_r50_jobs(&w, t, 1, gpus);
	w.jobs[0].job_class = JOB_CLASS_NONE;
	tl_gpu_cluster(&c, 1, 4, "k80", 0);
	tl_speed_config(&sc);
	sc.draw_classes = true;
	struct sim *s = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	unsigned cls = speed_draw_class(1, 0);
	cr_expect_eq(j[0].job_class, cls);
	double ratio = jobclass_throughput(cls, JOBCLASS_GPU_K80, 1, true) /
		       jobclass_throughput(cls, JOBCLASS_GPU_V100, 1, true);
	cr_expect(fabs(end_s(s, 1) - 100 / ratio) < 2e-6, "end %f, want %f",
		  end_s(s, 1), 100 / ratio);
	sim_free(s);
	sc.draw_classes = false;
	s = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	cr_expect_eq(end_s(s, 1), 100.0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}
