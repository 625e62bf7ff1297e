/*
 * EASY's indexed candidate search against the plain scan it replaces.
 *
 * easy finds its backfill candidates by descending an index of the
 * waiting jobs (least demand and estimate by range of queue order) and
 * skips the passes whose waiting jobs still cannot start.  The reference
 * here is the rule without either: every pass recomputes the head's
 * shadow time and extra units from the profile and tries every waiting
 * job in queue order.  On random overloaded workloads (estimates 1-5x
 * the run, so that jobs end early and the queue grows past the index's
 * first size) every job must start at the same time under both.
 */
#include <criterion/criterion.h>

#include "clustersim/policy.h"
#include "testlib.h"

extern const struct policy_ops clustersim_policy_easy;

/* One pass of the plain scan. */
static void scan_schedule(struct sim *sim, void *state)
{
	sim_start_head(sim);
	if (sim_queue_len(sim) < 2)
		return;
	const struct job *head = sim_queue_at(sim, 0);
	struct profile *p = sim_profile(sim);
	sim_time_t t = profile_earliest(p, head, head->estimate);
	uint64_t extra = profile_free_at(p, t) - sim_demand(sim, head);
	sim_time_t horizon = t - sim_now(sim);
	uint64_t avail = sim_free_units(sim);
	for (size_t i = 1; i < sim_queue_len(sim) && avail > 0;) {
		const struct job *j = sim_queue_at(sim, i);
		bool ends_first = j->estimate <= horizon;
		uint64_t d = sim_demand(sim, j);
		if (d <= avail && (ends_first || d <= extra) &&
		    sim_job_fits(sim, j) && sim_job_start(sim, j) == 0) {
			avail -= d;
			if (!ends_first)
				extra -= d;
		} else {
			i++;
		}
	}
}

static const struct policy_ops easy_scan = {
	.abi = CLUSTERSIM_ABI_VERSION,
	.size = sizeof(struct policy_ops),
	.name = "easy_scan",
	.schedule = scan_schedule,
};

/* A random overloaded workload: n jobs of 1..max_cpus CPUs (powers of
 * two mostly), estimates 1-5x the run, every value from seed. */
static void random_jobs(struct workload *w, size_t n, uint32_t max_cpus,
			double gap, uint64_t seed)
{
	struct tjob *t = calloc(n, sizeof(*t));
	cr_assert_not_null(t);
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	double at = 0;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint32_t c = 1u << (x % 8);
		if (x % 5 == 0)
			c = 1 + (uint32_t)(x >> 8) % max_cpus;
		if (c > max_cpus)
			c = max_cpus;
		double run = 1 + (double)((x >> 16) % 2000);
		double f = 1 + (double)((x >> 32) % 400) / 100;
		at += (double)((x >> 40) % (uint64_t)(2 * gap + 1));
		t[i] = (struct tjob){ (int64_t)i + 1, at, run, run * f, c };
	}
	tl_workload(w, t, n);
	free(t);
}

static void same_starts(size_t n, uint32_t nodes, uint32_t cpus, double gap,
			uint64_t seed)
{
	struct workload w;
	struct cluster_spec c;
	random_jobs(&w, n, nodes * cpus, gap, seed);
	tl_cluster(&c, nodes, cpus);
	struct sim *a = tl_run_ops(&clustersim_policy_easy, &w, &c);
	struct sim *b = tl_run_ops(&easy_scan, &w, &c);
	size_t differ = 0;
	for (size_t i = 1; i <= n; i++) {
		double sa = tl_start(a, (int64_t)i), sb = tl_start(b, (int64_t)i);
		if (sa != sb && differ++ < 3)
			cr_expect_eq(sa, sb, "seed %llu job %zu: easy %g, scan %g",
				     (unsigned long long)seed, i, sa, sb);
	}
	cr_expect_eq(differ, 0, "seed %llu: %zu jobs start elsewhere",
		     (unsigned long long)seed, differ);
	sim_free(a);
	sim_free(b);
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(easy_index, same_starts_as_the_scan_on_one_node)
{
	for (uint64_t seed = 1; seed <= 20; seed++)
		same_starts(300, 1, 64, 40, seed);
}

Test(easy_index, same_starts_as_the_scan_on_several_nodes)
{
	for (uint64_t seed = 21; seed <= 30; seed++)
		same_starts(400, 4, 16, 25, seed);
}

/* Thousands waiting at once: the index grows past its first blocks. */
Test(easy_index, same_starts_with_a_long_queue)
{
	same_starts(6000, 2, 32, 4, 99);
}
