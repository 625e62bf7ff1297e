/*
 * The ILP's size limits (search_ilp.c): a batch with more jobs than time
 * slots cannot be cut into max_slots slots (each job's run is one term of
 * the horizon and takes a slot however long slots are), so the ILP keeps
 * its start and says why instead of building a model; one with exactly
 * as many still builds, with slots several ticks long.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "eval/eval_inst.h"
#include "search/search.h"

/* Ten jobs that each take the whole 4-unit pool for 3 ticks: every order
 * runs them one after another, completions 3, 6, ..., 30, so the total
 * completion time (weights 1) is 3 x (1 + ... + 10) = 165. */
static void ilp_serial_inst(struct eval_inst *in)
{
	int64_t cap = 4;
	eval_inst_init(in, 10, 1, &cap, EVAL_TWCT);
	for (uint32_t j = 0; j < 10; j++) {
		in->demand[j] = 4;
		in->dur[j] = 3;
	}
	cr_assert_eq(eval_inst_finish(in, NULL), 0);
}

static void ilp_run(uint32_t slots, struct search_result *r)
{
	struct eval_inst in;
	struct search_opts o;
	struct search_result g;
	ilp_serial_inst(&in);
	search_opts_default(&o);
	o.max_slots = slots;
	o.time_limit_s = 60;
	search_result_init(&g, 10);
	search_result_init(r, 10);
	cr_assert_eq(search_greedy(&in.p, false, &g, NULL), 0);
	cr_assert_eq(g.score, 165);
	cr_assert_eq(search_ilp(&in.p, &o, &g, r, NULL), 0);
	search_result_release(&g);
	eval_inst_release(&in);
}

Test(search_ilp, more_jobs_than_slots_keeps_the_start)
{
	struct search_result r;
	ilp_run(8, &r);
	cr_assert_eq(r.score, 165);
	cr_assert_eq(r.bound, -1);
	cr_assert(strstr(r.note, "model too large: needs at least 10 time "
			 "slots, ilp_slots is 8"), "%s", r.note);
	search_result_release(&r);
}

Test(search_ilp, as_many_slots_as_jobs_builds_a_model)
{
	/* 10 slots: at D = 1 the horizon is 10 x 3 = 30 slots; the next D
	 * is max(2 x 1, ceil(30 / 10)) = 3, where it is 10 x 1 = 10.  Each
	 * job may start in slots 0..9 (a run of 1 slot): 10 x 10 = 100
	 * variables. */
	struct search_result r;
	ilp_run(10, &r);
	cr_assert_eq(r.score, 165);
	cr_assert(strstr(r.note, "ilp: 100 variables, 10 slots of 3 ticks"),
		  "%s", r.note);
	search_result_release(&r);
}
