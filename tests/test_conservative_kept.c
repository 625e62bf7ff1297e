/*
 * Conservative's quiet passes (policies/conservative.c): a pass after one
 * that moved no promise, with no job ended since, places only the new
 * jobs, in the profile the last pass left (sim_profile_kept), instead of
 * rebuilding it and moving every promised job again.  Checked two ways
 * on random workloads (estimates 1-4x the run):
 * whenever the engine hands the kept profile over and every waiting
 * job's promise is still to come, it answers as a fresh build with the
 * promises put back does; and every job starts when it does under a
 * policy that never keeps it (the same calls with the kept profile
 * refused by the engine: a full pass every time).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "base/util.h"
#include "engine/sim.h"
#include "testlib.h"

extern const struct policy_ops clustersim_policy_conservative;

static size_t kept_seen;   /* passes that found the profile kept */
static size_t kept_probes; /* answers compared */

/* Every waiting job has no promise or one still to come. */
static bool all_to_come(struct sim *sim)
{
	for (size_t i = 0; i < sim_queue_len(sim); i++) {
		sim_time_t t = sim_job_promised(sim, sim_queue_at(sim, i));
		if (t != SIM_TIME_NONE && t <= sim_now(sim))
			return false;
	}
	return true;
}

enum { KP_PROBES = 6 };

/* Earliest starts of the first waiting jobs and free units ahead. */
static void probe(struct sim *sim, struct profile *p, sim_time_t *out)
{
	size_t n = sim_queue_len(sim);
	for (size_t i = 0; i < KP_PROBES; i++) {
		const struct job *j = i < n ? sim_queue_at(sim, i) : NULL;
		out[2 * i] = j ? profile_earliest(p, j, j->estimate) : 0;
		out[2 * i + 1] = (sim_time_t)profile_free_at(
			p, sim_now(sim) + (sim_time_t)i * 77 * SIM_SEC);
	}
}

/* Conservative, after checking the kept profile against a rebuild. */
static void checking_schedule(struct sim *sim, void *state)
{
	struct profile *k = sim_profile_kept(sim);
	if (k && all_to_come(sim)) {
		sim_time_t a[2 * KP_PROBES], b[2 * KP_PROBES];
		kept_seen++;
		probe(sim, k, a);
		struct profile *p = sim_profile(sim);
		for (size_t i = 0; i < sim_queue_len(sim); i++) {
			const struct job *j = sim_queue_at(sim, i);
			sim_time_t t = sim_job_promised(sim, j);
			if (t != SIM_TIME_NONE)
				profile_reserve_again(p, j, t, j->estimate);
		}
		probe(sim, p, b);
		for (size_t i = 0; i < 2 * KP_PROBES; i++)
			cr_assert_eq(a[i], b[i], "probe %zu at %lld", i,
				     (long long)sim_now(sim));
		kept_probes += 2 * KP_PROBES;
	}
	clustersim_policy_conservative.schedule(sim, state);
}

/* Conservative with every pass a full one: the engine refuses to keep
 * the profile. */
static int refusing_init(struct sim *sim, void **state, struct sim_error *err)
{
	sim_refuse_kept_profile(sim);
	return clustersim_policy_conservative.init(sim, state, err);
}

Test(conservative_kept, quiet_passes_change_nothing)
{
	struct policy_ops check = clustersim_policy_conservative;
	struct policy_ops full = clustersim_policy_conservative;
	check.name = "conservative_checked";
	check.schedule = checking_schedule;
	full.name = "conservative_rebuilt";
	full.init = refusing_init;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct workload w;
		struct cluster_spec c;
		tl_random_workload(&w, 500, 32, seed);
		/* No job past its estimate: those break promises whatever
		 * the policy does, which the checker would stop at. */
		for (size_t i = 0; i < w.n; i++)
			if (w.jobs[i].estimate < w.jobs[i].run)
				w.jobs[i].estimate = w.jobs[i].run;
		tl_cluster(&c, 4, 8);
		struct sim *a = tl_run_ops(&check, &w, &c);
		struct sim *b = tl_run_ops(&full, &w, &c);
		for (size_t i = 0; i < w.n; i++)
			cr_assert_eq(tl_start(a, w.jobs[i].id),
				     tl_start(b, w.jobs[i].id),
				     "seed %llu job %lld",
				     (unsigned long long)seed,
				     (long long)w.jobs[i].id);
		cr_expect_eq(sim_counters(a)->promises_broken,
			     sim_counters(b)->promises_broken);
		sim_free(a);
		sim_free(b);
		workload_release(&w);
		cluster_spec_release(&c);
	}
	cr_expect_gt(kept_seen, 50, "the kept profile was used %zu times",
		     kept_seen);
	cr_expect_gt(kept_probes, 0);
}
