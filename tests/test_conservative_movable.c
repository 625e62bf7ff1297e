/*
 * Conservative's "compress": "movable" (policies/conservative.c): a
 * compression re-plans only the promised jobs that profile_earlier()
 * says could move earlier, where "all" gives back and re-plans every
 * one.  A skipped job would have been reserved at its promise again,
 * so the two must give the same schedule: checked job for job, with
 * the promise counters, on hundreds of random workloads (sizes, bursts,
 * estimates 1-4x the run, zero-length jobs, jobs past their estimates),
 * under both compress_on settings and several cluster shapes.  A third
 * run re-plans all with the kept profile refused by the engine, so that
 * every pass rebuilds it and puts every promise back (the behaviour
 * before profiles were kept across job ends, sim_profile_kept).  A
 * fourth runs "movable" on a profile that walks its steps at every
 * profile_earlier (profile_set_walk_only), as before the runs of room
 * of each demand were kept between calls: the same schedule again.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "base/util.h"
#include "engine/sim.h"
#include "testlib.h"

extern const struct policy_ops clustersim_policy_conservative;

/* Conservative with compress = which and compress_on = on; the
 * invariant checker only when no job runs past its estimate (those
 * break promises whatever the policy does, which it would stop at). */
/* Conservative with every pass a full one: the engine refuses to keep
 * the profile. */
static int refusing_init(struct sim *sim, void **state, struct sim_error *err)
{
	sim_refuse_kept_profile(sim);
	return clustersim_policy_conservative.init(sim, state, err);
}

/* Conservative on a profile that walks its steps at every
 * profile_earlier. */
static int walking_init(struct sim *sim, void **state, struct sim_error *err)
{
	sim_profile_walk_only(sim);
	return clustersim_policy_conservative.init(sim, state, err);
}

static struct sim *run_cons(const char *which, const char *on,
			    const struct workload *w,
			    const struct cluster_spec *c, bool check)
{
	struct policy_ops rebuilt = clustersim_policy_conservative;
	rebuilt.init = refusing_init;
	struct policy_ops walked = clustersim_policy_conservative;
	walked.init = walking_init;
	bool refuse = strcmp(which, "rebuilt") == 0;
	bool walk = strcmp(which, "walked") == 0;
	if (refuse)
		which = "all";
	if (walk)
		which = "movable";
	struct param_value pv[2] = {
		{ .key = (char *)"compress", .json_path = (char *)"$.compress",
		  .type = PV_STRING, .str = (char *)which },
		{ .key = (char *)"compress_on",
		  .json_path = (char *)"$.compress_on",
		  .type = PV_STRING, .str = (char *)on },
	};
	const struct policy_ops *ops = refuse ? &rebuilt : walk ? &walked :
				       &clustersim_policy_conservative;
	struct pval *params;
	size_t np;
	struct sim_error err;
	cr_assert_eq(policy_params_resolve(ops, pv, 2, "", &params, &np,
					   &err), 0, "%s", err.msg);
	struct sim_config cfg = {
		.workload = w, .cluster = c, .policy = ops, .params = params,
		.nparams = np, .seed = 1, .check = check,
	};
	struct sim *s = sim_new(&cfg);
	int rc = sim_run(s, &err);
	free(params);
	cr_assert_eq(rc, 0, "%s/%s: %s", which, on, err.msg);
	return s;
}

Test(conservative_movable, same_schedule_as_replanning_all)
{
	static const char *const ons[] = { "pass", "end" };
	static const uint32_t shape[][3] = { /* nodes, cpus, max job */
		{ 4, 8, 32 }, { 1, 16, 16 }, { 8, 4, 20 }, { 2, 32, 64 },
	};
	size_t jobs = 0;
	for (uint64_t seed = 1; seed <= 240; seed++) {
		const uint32_t *sh = shape[seed % 4];
		bool overrun = seed % 3 == 0;
		struct workload w;
		struct cluster_spec c;
		tl_random_workload(&w, 120 + seed % 5 * 40, sh[2], seed);
		if (!overrun)
			for (size_t i = 0; i < w.n; i++)
				if (w.jobs[i].estimate < w.jobs[i].run)
					w.jobs[i].estimate = w.jobs[i].run;
		tl_cluster(&c, sh[0], sh[1]);
		const char *on = ons[seed / 4 % 2];
		struct sim *a = run_cons("movable", on, &w, &c, !overrun);
		struct sim *b = run_cons("all", on, &w, &c, !overrun);
		struct sim *r = run_cons("rebuilt", on, &w, &c, !overrun);
		struct sim *wk = run_cons("walked", on, &w, &c, !overrun);
		for (size_t i = 0; i < w.n; i++) {
			int64_t id = w.jobs[i].id;
			cr_assert_eq(tl_start(a, id), tl_start(b, id),
				     "seed %llu (%s) job %lld: %g vs %g",
				     (unsigned long long)seed, on,
				     (long long)id, tl_start(a, id),
				     tl_start(b, id));
			cr_assert_eq(tl_start(wk, id), tl_start(a, id),
				     "seed %llu (%s) job %lld walked: %g vs "
				     "%g", (unsigned long long)seed, on,
				     (long long)id, tl_start(wk, id),
				     tl_start(a, id));
			cr_assert_eq(tl_start(r, id), tl_start(b, id),
				     "seed %llu (%s) job %lld rebuilt: %g vs "
				     "%g", (unsigned long long)seed, on,
				     (long long)id, tl_start(r, id),
				     tl_start(b, id));
		}
		const struct run_counters *ca = sim_counters(a);
		const struct run_counters *cb = sim_counters(b);
		cr_assert_eq(ca->promises_broken, cb->promises_broken,
			     "seed %llu", (unsigned long long)seed);
		cr_assert_eq(ca->promises_missed, cb->promises_missed,
			     "seed %llu", (unsigned long long)seed);
		cr_assert_eq(sim_counters(r)->promises_broken,
			     cb->promises_broken);
		cr_assert_eq(sim_counters(r)->promises_missed,
			     cb->promises_missed);
		jobs += w.n;
		sim_free(a);
		sim_free(b);
		sim_free(r);
		sim_free(wk);
		workload_release(&w);
		cluster_spec_release(&c);
	}
	cr_expect_gt(jobs, 40000);
}

Test(conservative_movable, bad_value_is_refused)
{
	struct param_value pv = {
		.key = (char *)"compress", .json_path = (char *)"$.compress",
		.type = PV_STRING, .str = (char *)"some",
	};
	const struct policy_ops *ops = &clustersim_policy_conservative;
	struct pval *params;
	size_t np;
	struct sim_error err;
	cr_assert_eq(policy_params_resolve(ops, &pv, 1, "", &params, &np,
					   &err), 0, "%s", err.msg);
	struct workload w;
	struct cluster_spec c;
	tl_random_workload(&w, 5, 4, 1);
	tl_cluster(&c, 1, 4);
	struct sim_config cfg = {
		.workload = &w, .cluster = &c, .policy = ops,
		.params = params, .nparams = np, .seed = 1,
	};
	struct sim *s = sim_new(&cfg);
	cr_assert_neq(sim_run(s, &err), 0);
	cr_expect(strstr(err.msg, "compress must be 'movable' or 'all', "
			 "got 'some'"), "%s", err.msg);
	sim_free(s);
	free(params);
	workload_release(&w);
	cluster_spec_release(&c);
}
