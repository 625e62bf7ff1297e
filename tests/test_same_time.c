/*
 * Events at the same time: when the policy is called ("schedule_on") and
 * whether a job's end or a submission comes first ("same_time"), on a
 * case worked out by hand where the three settings that differ give
 * three schedules.
 */
#include <criterion/criterion.h>

#include "base/util.h"
#include "testlib.h"

/*
 * SJF on one node of 10 CPUs.  A (0 s, 10 CPUs, 10 s) runs.  At 10 A ends
 * and B (10 CPUs, 100 s) and C (10 CPUs, 5 s) arrive, B first.
 * timestamp: all three events, then one call: SJF starts C (shorter) at
 *   10 and B at 15, whatever the order of the events.
 * event, ends first: A's end, a call with nothing waiting; B's
 *   submission, a call: B starts at 10; C waits until 110.
 * event, submits first: B and C arrive while A runs (two calls, no
 *   room); A's end, a call: C at 10, B at 15.
 */
Test(same_time, schedule_on_and_same_time_by_hand)
{
	static const struct tjob t[] = {
		{ 1, 0, 10, 10, 10 }, { 2, 10, 100, 100, 10 },
		{ 3, 10, 5, 5, 10 },
	};
	static const struct {
		bool each, subs;
		double b, c;
		uint64_t calls;
	} want[] = {
		{ false, false, 15, 10, 4 }, /* at 0, 10, 15, 115 */
		{ false, true, 15, 10, 4 },
		{ true, false, 10, 110, 6 }, /* 0; 10 three times; 110, 115 */
		{ true, true, 15, 10, 6 },   /* 0; 10 three times; 15, 115 */
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	tl_cluster(&c, 1, 10);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		struct sim_config cfg = {
			.workload = &w, .cluster = &c,
			.schedule_each_event = want[k].each,
			.submits_first = want[k].subs,
		};
		struct sim *s = tl_run_cfg("sjf", NULL, 0, &cfg);
		cr_expect_eq(tl_start(s, 2), want[k].b, "case %zu: B at %g",
			     k, tl_start(s, 2));
		cr_expect_eq(tl_start(s, 3), want[k].c, "case %zu: C at %g",
			     k, tl_start(s, 3));
		cr_expect_eq(sim_counters(s)->schedule_calls, want[k].calls,
			     "case %zu: %llu calls", k,
			     (unsigned long long)sim_counters(s)->schedule_calls);
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}
