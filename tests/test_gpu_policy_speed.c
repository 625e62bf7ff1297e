/*
 * The GPU policies that keep their orders incrementally (srtf's ranked
 * waiting jobs, its running jobs re-sorted from their last order) make
 * the same decisions as the plain forms they replaced: srtf against a
 * reference that sorts every job at every call (sim_rank_by with the
 * same key), job by job, on random workloads over CPUs and over GPUs,
 * with estimates that differ from the run times.
 */
#include <criterion/criterion.h>

#include "policy/registry.h"
#include "testlib.h"

/* srtf's key, for the reference. */
static double ref_remaining(struct sim *sim, void *state, const struct job *j)
{
	(void)state;
	double left = (double)j->estimate - sim_job_work_done(sim, j);
	return left > 0 ? left : 0;
}

static void ref_schedule(struct sim *sim, void *state)
{
	(void)state;
	if (sim_queue_len(sim))
		sim_rank_by(sim, ref_remaining);
}

static const struct policy_ops ref_srtf = {
	.abi = CLUSTERSIM_ABI_VERSION,
	.size = sizeof(struct policy_ops),
	.name = "ref_srtf",
	.summary = "srtf by a full sort at every call",
	.schedule = ref_schedule,
};

/* Every job's start, end and preemptions agree. */
static void expect_same(const struct sim *a, const struct sim *b)
{
	size_t na, nb;
	const struct job *ja = sim_jobs(a, &na), *jb = sim_jobs(b, &nb);
	cr_assert_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		cr_expect_eq(ja[i].start, jb[i].start, "job %lld",
			     (long long)ja[i].id);
		cr_expect_eq(ja[i].end, jb[i].end, "job %lld",
			     (long long)ja[i].id);
		cr_expect_eq(ja[i].preemptions, jb[i].preemptions);
	}
}

/* Estimates from half to three times the run time, so that remaining
 * times cross. */
static void skew_estimates(struct workload *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct job *j = &w->jobs[i];
		j->estimate = j->run / 2 + (sim_time_t)(i * 7919 % 5) * j->run / 2;
		if (j->estimate < 1)
			j->estimate = 1;
	}
}

Test(gpu_policy_speed, srtf_matches_a_full_sort_on_cpus)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct workload w;
		struct cluster_spec c;
		tl_random_workload(&w, 400, 8, seed);
		skew_estimates(&w);
		tl_cluster(&c, 4, 8);
		struct sim *a = tl_run("srtf", &w, &c);
		struct sim *b = tl_run_ops(&ref_srtf, &w, &c);
		expect_same(a, b);
		cr_expect_gt(sim_counters(a)->preemptions, 0);
		sim_free(a);
		sim_free(b);
		workload_release(&w);
		cluster_spec_release(&c);
	}
}

Test(gpu_policy_speed, srtf_matches_a_full_sort_on_gpus)
{
	struct workload w;
	struct cluster_spec c;
	tl_random_workload(&w, 400, 8, 5);
	skew_estimates(&w);
	for (size_t i = 0; i < w.n; i++) {
		w.jobs[i].gpus = w.jobs[i].cpus;
		w.jobs[i].cpus = 0;
	}
	tl_gpu_cluster(&c, 4, 4, NULL, 0);
	struct sim *a = tl_run("srtf", &w, &c);
	struct sim *b = tl_run_ops(&ref_srtf, &w, &c);
	expect_same(a, b);
	cr_expect_gt(sim_counters(a)->preemptions, 0);
	sim_free(a);
	sim_free(b);
	workload_release(&w);
	cluster_spec_release(&c);
}
