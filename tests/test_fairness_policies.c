/*
 * The fairness policies on small cases worked out by hand: drf (dominant
 * resource fairness, Ghodsi et al. NSDI 2011) and fairshare (decayed
 * usage, Slurm style).  Times in seconds, estimates exact; jobs' users
 * and groups are set after tl_workload.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/registry.h"
#include "testlib.h"
#include "base/util.h"

extern const struct policy_ops clustersim_policy_drf;
extern const struct policy_ops clustersim_policy_fairshare;
extern const struct policy_ops clustersim_policy_fcfs;

/* The job with this id in a workload built by tl_workload. */
static struct job *fp_job(struct workload *w, int64_t id)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->jobs[i].id == id)
			return &w->jobs[i];
	cr_assert_fail("no job %lld", (long long)id);
	return NULL;
}

/* Sets the users of jobs 1..n (users[i] for id i + 1). */
static void fp_users(struct workload *w, const int32_t *users, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fp_job(w, (int64_t)i + 1)->user = users[i];
}

static struct param_value fp_str(const char *key, const char *v)
{
	return (struct param_value){ .key = (char *)key,
				     .json_path = (char *)"$.policies[0].params.x",
				     .type = PV_STRING, .str = (char *)v };
}

static struct param_value fp_num(const char *key, double v)
{
	return (struct param_value){ .key = (char *)key,
				     .json_path = (char *)"$.policies[0].params.x",
				     .type = PV_NUMBER, .num = v };
}

static struct param_value fp_bool(const char *key, bool v)
{
	return (struct param_value){ .key = (char *)key,
				     .json_path = (char *)"$.policies[0].params.x",
				     .type = PV_BOOL, .b = v };
}

/* Runs and checks the start times of jobs 1..n. */
static void fp_expect(const struct policy_ops *ops,
		      const struct param_value *pv, size_t npv,
		      const struct workload *w, const struct cluster_spec *c,
		      const double *start, size_t n, const char *what)
{
	struct sim *s = tl_run_with(ops, pv, npv, w, c);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(tl_start(s, (int64_t)i + 1), start[i],
			     "%s %s: job %zu starts at %g, expected %g",
			     ops->name, what, i + 1,
			     tl_start(s, (int64_t)i + 1), start[i]);
	cr_expect_eq(sim_counters(s)->bad_calls, 0);
	sim_free(s);
}

/* Runs expecting init() to refuse; returns the run's error message. */
static void fp_refused(const struct policy_ops *ops,
		       const struct param_value *pv, size_t npv,
		       struct sim_error *err)
{
	struct tjob t[] = { { 1, 0, 10, 10, 1 } };
	struct workload w;
	struct cluster_spec c;
	struct pval *params;
	size_t np;
	tl_workload(&w, t, 1);
	tl_cluster(&c, 1, 4);
	cr_assert_eq(policy_params_resolve(ops, pv, npv, "", &params, &np,
					   err), 0, "%s", err->msg);
	struct sim_config cfg = {
		.workload = &w, .cluster = &c, .policy = ops,
		.params = params, .nparams = np, .seed = 1, .check = true,
	};
	struct sim *s = sim_new(&cfg);
	cr_expect_neq(sim_run(s, err), 0, "%s ran", ops->name);
	sim_free(s);
	free(params);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* One node of cpus CPUs and gpus GPUs. */
static void fp_gpu_cluster(struct cluster_spec *c, uint32_t cpus,
			   uint32_t gpus)
{
	tl_cluster(c, 1, cpus);
	c->groups[0].gpus = gpus;
	c->groups[0].gpu_type = xstrdup("v100");
}

/* ---- drf ---------------------------------------------------------------- */

/*
 * The paper's example (section 4), GPUs for memory: one node of 9 CPUs
 * and 18 GPUs.  User 1 submits jobs 1-5 of <1 CPU, 4 GPUs>, user 2 jobs
 * 6-10 of <3 CPUs, 1 GPU>, all at 0, all 100 s.
 * drf at 0, shares (user 1, user 2):
 *   (0, 0) tie -> user 1 starts 1: 1 CPU, 4 GPUs: max(1/9, 4/18) = 2/9
 *   (2/9, 0)   -> user 2 starts 6: 3 CPUs: 3/9
 *   (2/9, 3/9) -> user 1 starts 2: 4/9
 *   (4/9, 3/9) -> user 2 starts 7: 6/9
 *   (4/9, 6/9) -> user 1 starts 3: <3 CPUs, 12 GPUs>: 6/9
 *   9 CPUs taken: nothing fits.  3 jobs for user 1, 2 for user 2, equal
 *   dominant shares 2/3: the paper's allocation.
 * At 100 all end; the same steps start 4, 8, 5, 9 (user 1 has no more);
 *   then 8 CPUs are taken and 10 (3 CPUs) waits for 200.
 * fcfs: 1-4 at 0 (4 CPUs, 16 GPUs); 5 needs 4 GPUs, 2 free: blocks.  At
 *   100: 5, 6, 7 (7 CPUs); 8 needs 3, 2 free: blocks.  200: 8, 9, 10.
 */
Test(drf, paper_example_with_cpus_and_gpus)
{
	struct tjob t[10];
	for (int i = 0; i < 10; i++)
		t[i] = (struct tjob){ i + 1, 0, 100, 100, i < 5 ? 1 : 3 };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 10);
	for (int i = 0; i < 10; i++) {
		struct job *j = fp_job(&w, i + 1);
		j->user = i < 5 ? 1 : 2;
		j->gpus = i < 5 ? 4 : 1;
	}
	fp_gpu_cluster(&c, 9, 18);
	double drf[] = { 0, 0, 0, 100, 100, 0, 0, 100, 100, 200 };
	double fcfs[] = { 0, 0, 0, 0, 100, 100, 100, 200, 200, 200 };
	fp_expect(&clustersim_policy_drf, NULL, 0, &w, &c, drf, 10, "");
	fp_expect(&clustersim_policy_fcfs, NULL, 0, &w, &c, fcfs, 10, "");
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Freed resources go to the user furthest behind, and to that user's
 * first pending job that fits.  4 CPUs (no GPUs: max-min in CPUs).
 * User 1: jobs 1-6 of 1 CPU at 0, running 10, 20, 30, 1000, 1000, 1000.
 * User 2: at 1, job 7 (2 CPUs, 10 s) and job 8 (1 CPU, 1000 s).
 *   0: only user 1: 1-4 start, 4 CPUs taken.
 *  10: 1 ends, 1 CPU free.  Shares 3/4 and 0: user 2; its 7 does not fit,
 *      its 8 does: starts at 10.
 *  20: 2 ends.  Shares 2/4, 1/4: user 2 first, but 7 does not fit: user
 *      1's 5 starts at 20.
 *  30: 3 ends: the same, user 1's 6 starts at 30.
 * 1000: 4 ends, 1 free: 7 still does not fit.  1010: 8 ends: 7 starts.
 */
Test(drf, freed_resources_go_to_the_lowest_share_that_fits)
{
	struct tjob t[] = {
		{ 1, 0, 10, 10, 1 }, { 2, 0, 20, 20, 1 },
		{ 3, 0, 30, 30, 1 }, { 4, 0, 1000, 1000, 1 },
		{ 5, 0, 1000, 1000, 1 }, { 6, 0, 1000, 1000, 1 },
		{ 7, 1, 10, 10, 2 }, { 8, 1, 1000, 1000, 1 },
	};
	int32_t users[] = { 1, 1, 1, 1, 1, 1, 2, 2 };
	double want[] = { 0, 0, 0, 0, 20, 30, 1010, 10 };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 8);
	fp_users(&w, users, 8);
	tl_cluster(&c, 1, 4);
	fp_expect(&clustersim_policy_drf, NULL, 0, &w, &c, want, 8, "");
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Equal shares go to the lower user id, and unknown users (-1) are one
 * user, -1.  One CPU; jobs 1 (user 5), 2 (user 3), 3 (user -1), 4 (user
 * -1), all at 0, 10 s.  Every share is 0 whenever the CPU frees: -1
 * first (job 3, then its job 4), then user 3, then user 5 - the reverse
 * of queue order for the first three.
 */
Test(drf, ties_go_to_the_lower_user_id)
{
	struct tjob t[] = {
		{ 1, 0, 10, 10, 1 }, { 2, 0, 10, 10, 1 },
		{ 3, 0, 10, 10, 1 }, { 4, 0, 10, 10, 1 },
	};
	int32_t users[] = { 5, 3, -1, -1 };
	double want[] = { 30, 20, 0, 10 };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 4);
	fp_users(&w, users, 4);
	tl_cluster(&c, 1, 1);
	fp_expect(&clustersim_policy_drf, NULL, 0, &w, &c, want, 4, "");
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * "by": "group".  2 CPUs.  Job 1 (user 1, group 10, 100 s) and job 4
 * (user 3, group 20, 10 s) start at 0.  At 1 job 2 (user 2, group 10) and
 * job 3 (user 3, group 20) arrive, 1 CPU, 10 s each.  At 10 job 4 ends.
 * by user: user 1 holds 1/2, users 2 and 3 nothing: user 2 (lower id)
 *   starts 2 at 10, 3 starts at 20.
 * by group: group 10 holds 1/2 (job 1), group 20 nothing: 3 at 10, 2 at
 *   20.
 */
Test(drf, by_group_evens_out_groups)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 1 }, { 2, 1, 10, 10, 1 },
		{ 3, 1, 10, 10, 1 }, { 4, 0, 10, 10, 1 },
	};
	int32_t users[] = { 1, 2, 3, 3 }, groups[] = { 10, 10, 20, 20 };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 4);
	fp_users(&w, users, 4);
	for (int i = 0; i < 4; i++)
		fp_job(&w, i + 1)->group = groups[i];
	tl_cluster(&c, 1, 2);
	struct param_value user = fp_str("by", "user");
	struct param_value group = fp_str("by", "group");
	double by_user[] = { 0, 10, 20, 0 }, by_group[] = { 0, 20, 10, 0 };
	fp_expect(&clustersim_policy_drf, NULL, 0, &w, &c, by_user, 4,
		  "default");
	fp_expect(&clustersim_policy_drf, &user, 1, &w, &c, by_user, 4,
		  "by user");
	fp_expect(&clustersim_policy_drf, &group, 1, &w, &c, by_group, 4,
		  "by group");
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(drf, bad_by_is_refused_at_init)
{
	struct param_value pv = fp_str("by", "users");
	struct sim_error err;
	fp_refused(&clustersim_policy_drf, &pv, 1, &err);
	cr_expect(strstr(err.msg, "by must be 'user' or 'group', got 'users'"),
		  "message: %s", err.msg);
}

/* ---- fairshare ---------------------------------------------------------- */

/*
 * The light user goes first.  4 CPUs.  User 1 ran job 1 (4 CPUs) over
 * [0, 100).  At 200 jobs 2 (user 1) and 3 (user 2) arrive, 4 CPUs, 10 s.
 * User 1's usage at 200 is 4 h/ln 2 (2^(-100/h) - 2^(-200/h)) > 0 for
 * any half-life h (144.27 CPU-s for h = 100, about 400 for 7 days), user
 * 2's is 0: job 3 starts at 200, job 2 at 210 although it is ahead in
 * the queue.  fcfs: job 2 at 200, job 3 at 210.
 */
Test(fairshare, light_user_starts_first)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 4 }, { 2, 200, 10, 10, 4 },
		{ 3, 200, 10, 10, 4 },
	};
	int32_t users[] = { 1, 1, 2 };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	fp_users(&w, users, 3);
	tl_cluster(&c, 1, 4);
	struct param_value h = fp_num("half_life_s", 100);
	double want[] = { 0, 210, 200 }, fcfs[] = { 0, 200, 210 };
	fp_expect(&clustersim_policy_fairshare, NULL, 0, &w, &c, want, 3,
		  "default");
	fp_expect(&clustersim_policy_fairshare, &h, 1, &w, &c, want, 3,
		  "h 100");
	fp_expect(&clustersim_policy_fcfs, NULL, 0, &w, &c, fcfs, 3, "");
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * Half-life arithmetic against the closed form.  One CPU.  User 1 runs
 * over [0, 100) (100 CPU-s), user 2 over [100, 160) (60 CPU-s).  At 200
 * job 3 (user 1) and job 4 (user 2) arrive, 10 s each.  Usage at 200,
 * with K = h / ln 2 and x = 2^(-20/h):
 *   user 1: K (2^(-100/h) - 2^(-200/h)) = K (x^5 - x^10)
 *   user 2: K (2^(-40/h) - 2^(-100/h))  = K (x^2 - x^5)
 * user 1 > user 2 iff 2x^3 - x^8 - 1 > 0 (divided by K x^2).  On (0, 1)
 * that has one root, x* = 0.8776279 (bisection), h* = -20 / log2(x*) =
 * 106.2029 s.  Above it the raw amounts dominate (user 1 has more:
 * user 2 first); below it user 1's older usage has decayed enough to be
 * the smaller (user 1 first).  Values:
 *   h = 104:  user 1 37.4827, user 2 37.8813 -> job 3 at 200, 4 at 210
 *   h = 108:  user 1 38.8446, user 2 38.5229 -> job 4 at 200, 3 at 210
 *   h = 7 d:  user 1 99.983,  user 2 59.995  -> job 4 first
 * A decay by e^(-t/h) instead of 2^(-t/h) moves h* to 106.2 / ln 2 = 153
 * and fails the h = 108 case; a plain sum fails h = 104.  User 1's time
 * is run once as one job, once as two back-to-back jobs of 50 s (job 2
 * waits in the queue meanwhile, so the accumulator is brought up to date
 * at more points): the closed form is the same.
 */
Test(fairshare, half_life_matches_the_closed_form)
{
	struct tjob one[] = {
		{ 1, 0, 100, 100, 1 }, { 2, 100, 60, 60, 1 },
		{ 3, 200, 10, 10, 1 }, { 4, 200, 10, 10, 1 },
	};
	struct tjob two[] = {
		{ 1, 0, 50, 50, 1 }, { 5, 0, 50, 50, 1 },
		{ 2, 100, 60, 60, 1 },
		{ 3, 200, 10, 10, 1 }, { 4, 200, 10, 10, 1 },
	};
	struct cluster_spec c;
	tl_cluster(&c, 1, 1);
	for (int split = 0; split < 2; split++) {
		struct workload w;
		tl_workload(&w, split ? two : one, split ? 5 : 4);
		int32_t users[] = { 1, 2, 1, 2 };
		fp_users(&w, users, 4);
		if (split)
			fp_job(&w, 5)->user = 1;
		struct param_value h104 = fp_num("half_life_s", 104);
		struct param_value h108 = fp_num("half_life_s", 108);
		double first1[] = { 0, 100, 200, 210 };
		double first2[] = { 0, 100, 210, 200 };
		const char *what = split ? "split" : "one job";
		fp_expect(&clustersim_policy_fairshare, &h104, 1, &w, &c,
			  first1, 4, what);
		fp_expect(&clustersim_policy_fairshare, &h108, 1, &w, &c,
			  first2, 4, what);
		fp_expect(&clustersim_policy_fairshare, NULL, 0, &w, &c,
			  first2, 4, what);
		workload_release(&w);
	}
	cluster_spec_release(&c);
}

/*
 * GPU-seconds for GPU jobs, CPU-seconds for the rest.  One node of 8 CPUs
 * and 1 GPU.  User 1's job 1 holds 1 GPU and 4 CPUs over [0, 100): 100
 * GPU-s (400 CPU-s, not counted).  User 2's job 2 holds 1 CPU over
 * [0, 150): 150 CPU-s.  At 300 job 3 (user 2) and job 4 (user 1) each
 * ask 1 GPU and 8 CPUs for 10 s.  Decay over 300 s of a 7-day half-life
 * changes usage by under 0.04%: user 1 about 100, user 2 about 150, so
 * job 4 starts at 300 and job 3 at 310.  (Counting CPU-seconds, user 1
 * would have 400 and go second.)
 */
Test(fairshare, gpu_jobs_count_gpu_seconds)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 4 }, { 2, 0, 150, 150, 1 },
		{ 3, 300, 10, 10, 8 }, { 4, 300, 10, 10, 8 },
	};
	int32_t users[] = { 1, 2, 2, 1 };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 4);
	fp_users(&w, users, 4);
	fp_job(&w, 1)->gpus = 1;
	fp_job(&w, 3)->gpus = 1;
	fp_job(&w, 4)->gpus = 1;
	fp_gpu_cluster(&c, 8, 1);
	double want[] = { 0, 0, 310, 300 };
	fp_expect(&clustersim_policy_fairshare, NULL, 0, &w, &c, want, 4, "");
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * "backfill".  4 CPUs.  User 1's job 1 (2 CPUs) runs over [0, 100).  At
 * 50 job 2 (user 2, 4 CPUs, 10 s) and job 3 (user 1, 2 CPUs, 10 s)
 * arrive.  User 2 (usage 0) goes first: job 2 does not fit (2 free).
 * true: job 3 is tried next and starts at 50 (ends 60); job 2 at 100.
 * false: job 2 blocks job 3.  At 100 job 2 (user 2 still lighter) starts;
 *   job 3 does not fit beside it: 110.
 */
Test(fairshare, backfill_skips_or_stops)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 2 }, { 2, 50, 10, 10, 4 },
		{ 3, 50, 10, 10, 2 },
	};
	int32_t users[] = { 1, 2, 1 };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	fp_users(&w, users, 3);
	tl_cluster(&c, 1, 4);
	struct param_value on = fp_bool("backfill", true);
	struct param_value off = fp_bool("backfill", false);
	double skip[] = { 0, 100, 50 }, stop[] = { 0, 100, 110 };
	fp_expect(&clustersim_policy_fairshare, NULL, 0, &w, &c, skip, 3,
		  "default");
	fp_expect(&clustersim_policy_fairshare, &on, 1, &w, &c, skip, 3,
		  "backfill true");
	fp_expect(&clustersim_policy_fairshare, &off, 1, &w, &c, stop, 3,
		  "backfill false");
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * "by": "group", and equal usage broken by submit then id.  One CPU.  Job
 * 1 (user 1, group 10) runs over [0, 100).  At 200 job 2 (user 2, group
 * 10) and job 3 (user 3, group 20) arrive, 10 s each.
 * by user: users 2 and 3 both have usage 0: job 2 (lower id) at 200, job
 *   3 at 210.
 * by group: group 10 has job 1's usage, group 20 none: job 3 at 200, job
 *   2 at 210.
 */
Test(fairshare, by_group_counts_the_group)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 1 }, { 2, 200, 10, 10, 1 },
		{ 3, 200, 10, 10, 1 },
	};
	int32_t users[] = { 1, 2, 3 }, groups[] = { 10, 10, 20 };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	fp_users(&w, users, 3);
	for (int i = 0; i < 3; i++)
		fp_job(&w, i + 1)->group = groups[i];
	tl_cluster(&c, 1, 1);
	struct param_value group = fp_str("by", "group");
	double by_user[] = { 0, 200, 210 }, by_group[] = { 0, 210, 200 };
	fp_expect(&clustersim_policy_fairshare, NULL, 0, &w, &c, by_user, 3,
		  "by user");
	fp_expect(&clustersim_policy_fairshare, &group, 1, &w, &c, by_group,
		  3, "by group");
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(fairshare, bad_parameters_are_refused_at_init)
{
	struct sim_error err;
	struct param_value by = fp_str("by", "account");
	fp_refused(&clustersim_policy_fairshare, &by, 1, &err);
	cr_expect(strstr(err.msg, "by must be 'user' or 'group', got 'account'"),
		  "message: %s", err.msg);
	double bad[] = { 0, -5 };
	for (int i = 0; i < 2; i++) {
		struct param_value h = fp_num("half_life_s", bad[i]);
		fp_refused(&clustersim_policy_fairshare, &h, 1, &err);
		cr_expect(strstr(err.msg, "half_life_s must be a positive"),
			  "message: %s", err.msg);
	}
	cr_expect(strstr(err.msg, "got '-5'"), "message: %s", err.msg);
}
