/*
 * FCFS, SJF, EASY and conservative backfilling on small cases worked out
 * by hand, where backfilling must and must not happen.  One node of 10
 * CPUs unless said otherwise; times in seconds; estimates exact unless
 * given.
 */
#include <criterion/criterion.h>

#include "base/util.h"
#include "policy/registry.h"
#include "testlib.h"

extern const struct policy_ops clustersim_policy_easy;

struct expect {
	const char *policy;
	double start[5]; /* jobs with ids 1..5 */
};

static void check_case(const struct tjob *t, size_t n, uint32_t cpus,
		       const struct expect *e, size_t ne)
{
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, n);
	tl_cluster(&c, 1, cpus);
	for (size_t k = 0; k < ne; k++) {
		struct sim *s = tl_run(e[k].policy, &w, &c);
		for (size_t i = 0; i < n; i++)
			cr_expect_eq(tl_start(s, (int64_t)i + 1), e[k].start[i],
				     "%s: job %zu starts at %g, expected %g",
				     e[k].policy, i + 1,
				     tl_start(s, (int64_t)i + 1), e[k].start[i]);
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * A (0 s, 6 CPUs, 100 s), B (1 s, 8 CPUs, 50 s), C (2 s, 4 CPUs, 200 s),
 * D (3 s, 2 CPUs, 20 s).
 * fcfs: A 0; B waits for A: 100; C fits beside B? 8 + 4 > 10: at 150;
 *   D (2) fits beside C at 150.
 * easy: B's shadow time is 100 with 10 - 8 = 2 extra CPUs.  C fits now
 *   (4 free) but ends at 202 > 100 and needs 4 > 2: must NOT backfill.
 *   D fits and ends at 23 <= 100: MUST backfill at 3.  B 100, C 150.
 * conservative: B reserved [100, 150); C needs 4 during [t, t+200): at 2
 *   it would overlap B (2 free): reserved at 150.  D fits [3, 23): 3.
 */
Test(backfill, short_job_backfills_before_the_shadow_time)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 6 }, { 2, 1, 50, 50, 8 },
		{ 3, 2, 200, 200, 4 }, { 4, 3, 20, 20, 2 },
	};
	struct expect e[] = {
		{ "fcfs", { 0, 100, 150, 150 } },
		{ "easy", { 0, 100, 150, 3 } },
		{ "conservative", { 0, 100, 150, 3 } },
	};
	check_case(t, 4, 10, e, 3);
}

/*
 * A (0 s, 6 CPUs, 100 s), B (1 s, 8 CPUs, 50 s), C (2 s, 2 CPUs, 200 s).
 * easy: shadow 100, extra 2.  C ends after the shadow time (202) but
 *   needs only 2 <= 2 extra CPUs: MUST backfill at 2.  At 100, 10 - 2 = 8
 *   free: B starts on time.
 * conservative: C during [2, 202) needs 2: free 4 before 100, 2 during
 *   B's [100, 150), 10 after: fits, starts at 2.
 * fcfs: C waits behind B: B 100, C 100 too (8 + 2 <= 10).
 */
Test(backfill, long_job_backfills_on_extra_processors)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 6 }, { 2, 1, 50, 50, 8 },
		{ 3, 2, 200, 200, 2 },
	};
	struct expect e[] = {
		{ "fcfs", { 0, 100, 100 } },
		{ "easy", { 0, 100, 2 } },
		{ "conservative", { 0, 100, 2 } },
	};
	check_case(t, 3, 10, e, 3);
}

/*
 * Where EASY and conservative differ: EASY protects only the head.
 * A (0 s, 4 CPUs, 100 s), B (1 s, 8 CPUs, 100 s), C (2 s, 10 CPUs,
 * 100 s), D (3 s, 2 CPUs, 300 s).
 * easy: B's shadow 100, extra 2.  C does not fit now.  D needs 2 <= 2
 *   extra: backfills at 3 (ends 303).  B 100 (ends 200).  At 200 C needs
 *   all 10 CPUs but D holds 2 until 303: C starts at 303, delayed by D.
 * conservative: B [100, 200), C reserved [200, 300).  D during [3, 303)
 *   would overlap C's reservation (0 free): its earliest slot is 300.
 * fcfs: the same as conservative here.
 */
Test(backfill, easy_may_delay_a_later_job_conservative_may_not)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 4 }, { 2, 1, 100, 100, 8 },
		{ 3, 2, 100, 100, 10 }, { 4, 3, 300, 300, 2 },
	};
	struct expect e[] = {
		{ "fcfs", { 0, 100, 200, 300 } },
		{ "easy", { 0, 100, 303, 3 } },
		{ "conservative", { 0, 100, 200, 300 } },
	};
	check_case(t, 4, 10, e, 3);
}

/*
 * Backfilling plans with estimates, not run times.  A (0 s, 6 CPUs, runs
 * 40 s, estimate 100 s), B (1 s, 8 CPUs, 50 s), C (2 s, 4 CPUs, runs 10 s,
 * estimate 150 s).
 * easy: shadow by A's estimate = 100, extra 2; C's estimate ends at 152 >
 *   100 and 4 > 2: not backfilled, although it would really end at 12.
 *   A really ends at 40: B starts at 40, C (4) does not fit beside B (8):
 *   C starts when B ends at 90.
 */
Test(backfill, plans_with_estimates_not_run_times)
{
	struct tjob t[] = {
		{ 1, 0, 40, 100, 6 }, { 2, 1, 50, 50, 8 },
		{ 3, 2, 10, 150, 4 },
	};
	struct expect e[] = {
		{ "easy", { 0, 40, 90 } },
		{ "conservative", { 0, 40, 90 } },
	};
	check_case(t, 3, 10, e, 2);
}

/*
 * A job past its estimate is expected to end at the next microsecond.
 * A (0 s, 8 CPUs, runs 100 s, estimate 50 s: overruns), B (1 s, 10 CPUs,
 * 10 s), C (60 s, 2 CPUs, 5 s).
 * easy at 60: A is past its estimate, so B's shadow time is 60 s + 1 us
 *   with 0 extra CPUs; C (2 free CPUs now) would end at 65: not
 *   backfilled.  (Were A expected at its real end, 100, C would start at
 *   60.)  A ends at 100; B runs [100, 110); C starts at 110.
 */
Test(backfill, job_past_its_estimate_ends_at_the_next_microsecond)
{
	struct tjob t[] = {
		{ 1, 0, 100, 50, 8 }, { 2, 1, 10, 10, 10 },
		{ 3, 60, 5, 5, 2 },
	};
	struct expect e[] = {
		{ "easy", { 0, 100, 110 } },
		{ "conservative", { 0, 100, 110 } },
	};
	check_case(t, 3, 10, e, 2);
}

/*
 * The shadow time is planned at each pass from the running jobs' expected
 * ends then, so a head waiting on jobs past their estimates gets a later
 * shadow time, and more extra CPUs, at a later pass although no job ended.
 * One node of 16 CPUs.  A (0 s, 6 CPUs, runs 300 s, estimate 50 s) and
 * B (0 s, 4 CPUs, runs 300 s, estimate 100 s) overrun; H (1 s, 12 CPUs,
 * 100 s), C (2 s, 2 CPUs, runs 50 s, estimate 1000 s), E (200 s, 2 CPUs,
 * runs 50 s, estimate 1000 s).
 * easy at 1: A and B run, 6 CPUs free; H (12) waits.  At 50 A is expected
 *   to end (6 + 6 = 12 free): shadow time 50, extra 12 - 12 = 0.
 * easy at 2: C fits (2 <= 6) but ends at 1002 > 50 and 2 > 0 extra:
 *   waits.
 * easy at 200 (E submitted; no job ended, A and B are past their
 *   estimates): both are expected at 200 s + 1 us, when all 16 CPUs are
 *   free: shadow time 200 s + 1 us, extra 16 - 12 = 4.  C (2 <= 6 free,
 *   2 <= 4 extra) starts at 200, leaving 4 free and 2 extra; E (2 <= 4,
 *   2 <= 2) starts at 200 too.  (Keeping the shadow time of the pass at
 *   2, 50 with 0 extra, refuses both: they would start at 300 beside H.)
 * At 250 C and E end; at 300 A and B end and H starts.
 */
Test(backfill, overrun_shadow_time_is_planned_afresh)
{
	struct tjob t[] = {
		{ 1, 0, 300, 50, 6 }, { 2, 0, 300, 100, 4 },
		{ 3, 1, 100, 100, 12 }, { 4, 2, 50, 1000, 2 },
		{ 5, 200, 50, 1000, 2 },
	};
	struct expect e[] = {
		{ "easy", { 0, 0, 300, 200, 200 } },
	};
	check_case(t, 5, 16, e, 1);
}

/*
 * SJF orders the queue by estimate: A (0 s, 10 CPUs, 10 s) runs; B (1 s,
 * 6 CPUs, 100 s) and C (2 s, 6 CPUs, 5 s) wait.  At 10 C goes first
 * (shorter), B does not fit beside it (12 > 10) and starts at 15.  fcfs
 * runs B at 10 and C at 110.
 */
Test(backfill, sjf_runs_the_shortest_estimate_first)
{
	struct tjob t[] = {
		{ 1, 0, 10, 10, 10 }, { 2, 1, 100, 100, 6 },
		{ 3, 2, 5, 5, 6 },
	};
	struct expect e[] = {
		{ "sjf", { 0, 15, 10 } },
		{ "fcfs", { 0, 10, 110 } },
	};
	check_case(t, 3, 10, e, 2);
}

/*
 * EASY's backfill order.  A (0 s, 8 CPUs, 100 s) and E (0 s, 2 CPUs, 5 s)
 * fill the 10 CPUs; B (1 s, 10 CPUs, 50 s) is the head with shadow time
 * 100 and no extra CPUs; C (2 s, 2 CPUs, 90 s) and D (3 s, 2 CPUs, 30 s)
 * wait.  At 5 E ends and 2 CPUs are free: both C and D would end before
 * 100, but only one fits.
 * backfill_order "queue": C (ahead in the queue) starts at 5; D, which
 *   would end at 95 + 30 > 100 once C is done, waits for B: 150.
 * backfill_order "sjf": D (shorter estimate) starts at 5 and ends at 35;
 *   C would then end at 125 > 100: it waits for B: 150.
 */
Test(backfill, easy_backfill_order_queue_or_shortest_first)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 8 }, { 5, 0, 5, 5, 2 }, { 2, 1, 50, 50, 10 },
		{ 3, 2, 90, 90, 2 }, { 4, 3, 30, 30, 2 },
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 5);
	tl_cluster(&c, 1, 10);
	const char *order[] = { "queue", "sjf" };
	double want_c[] = { 5, 150 }, want_d[] = { 150, 5 };
	for (int k = 0; k < 2; k++) {
		struct param_value pv = {
			.key = (char *)"backfill_order",
			.json_path = (char *)"$.policies[0].params.backfill_order",
			.type = PV_STRING, .str = (char *)order[k],
		};
		struct sim *s = tl_run_with(&clustersim_policy_easy, &pv, 1,
					    &w, &c);
		cr_expect_eq(tl_start(s, 2), 100.0);
		cr_expect_eq(tl_start(s, 3), want_c[k], "%s: C at %g", order[k],
			     tl_start(s, 3));
		cr_expect_eq(tl_start(s, 4), want_d[k], "%s: D at %g", order[k],
			     tl_start(s, 4));
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * The profile counts GPUs, not their types or the CPUs beside them: a job
 * it admits may still not fit, and backfilling must not try to start it
 * (a refused engine call).  One node of 2 V100s, one of 4 K80s.
 * A (0 s, 100 s, 2 V100s) runs; B (1 s, 100 s, 2 V100s) waits: the head,
 * which the profile places at once on the 4 free K80s, leaving 2 extra.
 * C (2 s, 10 s, 1 V100) fits the profile beside it, but no V100 is
 * free.  Both policies: B at 100, C at 200, and no bad call (each used
 * to try to start C, and conservative B too, while the V100s were busy).
 */
Test(backfill, profile_fit_is_not_enough_for_typed_gpus)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 2 }, { 2, 1, 100, 100, 2 },
		{ 3, 2, 10, 10, 1 },
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	for (size_t i = 0; i < w.n; i++) {
		w.jobs[i].gpus = w.jobs[i].cpus;
		w.jobs[i].cpus = 0;
		w.jobs[i].gpu_type = 1; /* v100, the first type */
	}
	tl_gpu_cluster(&c, 1, 2, "v100", 0);
	c.groups = xrealloc(c.groups, 2 * sizeof(*c.groups));
	c.groups[1] = (struct node_group){ .name = xstrdup("k80"), .count = 1,
					   .cpus = 8, .gpus = 4,
					   .gpu_type = xstrdup("k80") };
	c.ngroups = 2;
	const char *pol[] = { "easy", "conservative" };
	for (int k = 0; k < 2; k++) {
		struct sim *s = tl_run(pol[k], &w, &c);
		cr_expect_eq(tl_start(s, 2), 100.0, "%s", pol[k]);
		cr_expect_eq(tl_start(s, 3), 200.0, "%s: C at %g", pol[k],
			     tl_start(s, 3));
		cr_expect_eq(sim_counters(s)->bad_calls, 0, "%s: %llu bad calls",
			     pol[k],
			     (unsigned long long)sim_counters(s)->bad_calls);
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}
