/*
 * The batch decoder (eval_decode.h), its lower bound, the random numbers
 * and the evaluator backends (eval.c): scores of hand-worked schedules
 * and results that do not depend on the thread count.  CPU-vs-CUDA
 * parity has its own file (test_cuda_parity.c).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "eval/eval_inst.h"
#include "search/search.h"

/*
 * One type of 4 units.  Jobs (demand, run, release): A (2, 3, 0),
 * B (3, 2, 0), C (1, 4, 1), D (2, 1, 0); weights 1, 2, 3, 4.
 */
static void four_jobs(struct eval_inst *in, enum eval_objective obj)
{
	int64_t cap = 4;
	const uint32_t dem[] = { 2, 3, 1, 2 };
	const int64_t run[] = { 3, 2, 4, 1 }, rel[] = { 0, 0, 1, 0 };
	eval_inst_init(in, 4, 1, &cap, obj);
	for (uint32_t j = 0; j < 4; j++) {
		in->demand[j] = dem[j];
		in->dur[j] = run[j];
		in->release[j] = rel[j];
		in->weight[j] = j + 1;
	}
}

static int64_t score_of(enum eval_objective obj, const uint32_t *perm,
			int64_t *start)
{
	struct eval_inst in;
	four_jobs(&in, obj);
	cr_assert_eq(eval_inst_finish(&in, NULL), 0);
	int64_t s = eval_one(&in.p, false, perm, NULL, start, NULL);
	eval_inst_release(&in);
	return s;
}

Test(eval_decode, hand_worked_order_abcd)
{
	/* A at 0 (free 2); B needs 3: waits for A's end, 3..5 (free 1);
	 * C (released at 1) at 3..7 (free 0); D waits for B: 5..6.
	 * Completions 3, 5, 7, 6: makespan 7, sum 21, JCT 21 - 1 = 20,
	 * weighted 3 + 10 + 21 + 24 = 58. */
	const uint32_t perm[] = { 0, 1, 2, 3 };
	int64_t st[4];
	cr_assert_eq(score_of(EVAL_MAKESPAN, perm, st), 7);
	cr_assert_eq(st[0], 0);
	cr_assert_eq(st[1], 3);
	cr_assert_eq(st[2], 3);
	cr_assert_eq(st[3], 5);
	cr_assert_eq(score_of(EVAL_JCT, perm, NULL), 20);
	cr_assert_eq(score_of(EVAL_TWCT, perm, NULL), 58);
	/* mix 1 x 7 + 1 x 58 */
	cr_assert_eq(score_of(EVAL_MIX, perm, NULL), 65);
}

Test(eval_decode, hand_worked_order_dacb)
{
	/* D 0..1, A 0..3 (free 0); C at 1 when D ends: 1..5 (free 1);
	 * B needs 3: at 3 when A ends, 3..5.  Makespan 5; completions
	 * 3, 5, 5, 1: JCT 3 + 5 + 4 + 1 = 13, weighted 3+10+15+4 = 32. */
	const uint32_t perm[] = { 3, 0, 2, 1 };
	int64_t st[4];
	cr_assert_eq(score_of(EVAL_MAKESPAN, perm, st), 5);
	cr_assert_eq(st[2], 1);
	cr_assert_eq(st[1], 3);
	cr_assert_eq(score_of(EVAL_JCT, perm, NULL), 13);
	cr_assert_eq(score_of(EVAL_TWCT, perm, NULL), 32);
}

Test(eval_decode, running_jobs_hold_units)
{
	/* A running job holds 2 units until 2.  A at 0 (free 0); B needs 3:
	 * at 2 only 2 free, at 3 (A ends) 4: 3..5; C 3..7; D at 5..6. */
	struct eval_inst in;
	const uint32_t perm[] = { 0, 1, 2, 3 };
	int64_t st[4];
	four_jobs(&in, EVAL_MAKESPAN);
	eval_inst_add_running(&in, 0, 2, 2, 0);
	cr_assert_eq(eval_inst_finish(&in, NULL), 0);
	cr_assert_eq(eval_one(&in.p, false, perm, NULL, st, NULL), 7);
	cr_assert_eq(st[1], 3);
	cr_assert_eq(st[3], 5);
	eval_inst_release(&in);
}

Test(eval_decode, placement_genes)
{
	/* Two types of 2 units; A runs 2 on type 0 or 4 on type 1, B 2 on
	 * either; both need 2.  Both on 0: 0..2, 2..4; A on 0 and B on 1:
	 * both 0..2; A on 1: 0..4. */
	int64_t cap[2] = { 2, 2 };
	struct eval_inst in;
	eval_inst_init(&in, 2, 2, cap, EVAL_MAKESPAN);
	in.demand[0] = in.demand[1] = 2;
	in.dur[0] = 2;
	in.dur[1] = 4;
	in.dur[2] = 2;
	in.dur[3] = 2;
	cr_assert_eq(eval_inst_finish(&in, NULL), 0);
	const uint32_t perm[] = { 0, 1 };
	const uint8_t g00[] = { 0, 0 }, g01[] = { 0, 1 }, g10[] = { 1, 0 };
	cr_assert_eq(eval_one(&in.p, false, perm, g00, NULL, NULL), 4);
	cr_assert_eq(eval_one(&in.p, false, perm, g01, NULL, NULL), 2);
	cr_assert_eq(eval_one(&in.p, false, perm, g10, NULL, NULL), 4);
	eval_inst_release(&in);
}

Test(eval_decode, node_level_fragmentation)
{
	/* Two nodes of 4 units; jobs of 3, 3 and 2 units, 10 long.  Pooled
	 * (8 units) all start at 0: makespan 10.  On nodes, 3 goes to node
	 * 0 (a tie, lowest index), 3 to node 1, and 2 fits on neither
	 * (1 left each) until 10: makespan 20. */
	int64_t cap = 8;
	const uint32_t ncap[] = { 4, 4 };
	const uint8_t ntype[] = { 0, 0 };
	struct eval_inst in;
	eval_inst_init(&in, 3, 1, &cap, EVAL_MAKESPAN);
	in.demand[0] = 3;
	in.demand[1] = 3;
	in.demand[2] = 2;
	for (int j = 0; j < 3; j++)
		in.dur[j] = 10;
	eval_inst_set_nodes(&in, 2, ncap, ntype);
	cr_assert_eq(eval_inst_finish(&in, NULL), 0);
	const uint32_t perm[] = { 0, 1, 2 }, alt[] = { 0, 2, 1 };
	int64_t st[3];
	cr_assert_eq(eval_one(&in.p, false, perm, NULL, NULL, NULL), 10);
	cr_assert_eq(eval_one(&in.p, true, perm, NULL, st, NULL), 20);
	cr_assert_eq(st[2], 10);
	/* Order 0, 2, 1: 3 on node 0, then 2 on node 1 (node 0 has 1 free,
	 * too few), then the other 3 fits nowhere until 10. */
	cr_assert_eq(eval_one(&in.p, true, alt, NULL, st, NULL), 20);
	cr_assert_eq(st[2], 0);
	cr_assert_eq(st[1], 10);
	eval_inst_release(&in);
}

Test(eval_decode, node_level_multi_node_job)
{
	/* Nodes of 4; J0 (3, 10), J1 (2, 5), J2 (2, 5), J3 (8, 1).  J0 on
	 * node 0, J1 and J2 on node 1; J3 needs both nodes idle: node 1 at
	 * 5, node 0 at 10, so 10..11. */
	int64_t cap = 8;
	const uint32_t ncap[] = { 4, 4 };
	const uint8_t ntype[] = { 0, 0 };
	const uint32_t dem[] = { 3, 2, 2, 8 };
	const int64_t run[] = { 10, 5, 5, 1 };
	struct eval_inst in;
	eval_inst_init(&in, 4, 1, &cap, EVAL_MAKESPAN);
	for (int j = 0; j < 4; j++) {
		in.demand[j] = dem[j];
		in.dur[j] = run[j];
	}
	eval_inst_set_nodes(&in, 2, ncap, ntype);
	cr_assert_eq(eval_inst_finish(&in, NULL), 0);
	const uint32_t perm[] = { 0, 1, 2, 3 };
	int64_t st[4];
	cr_assert_eq(eval_one(&in.p, true, perm, NULL, st, NULL), 11);
	cr_assert_eq(st[1], 0);
	cr_assert_eq(st[2], 0);
	cr_assert_eq(st[3], 10);
	eval_inst_release(&in);
}

Test(eval_decode, lower_bound)
{
	/* Work 2x3 + 3x2 + 1x4 + 2x1 = 18 over 4 units: 4.5 -> 5; the
	 * latest release + run is 1 + 4 = 5.  Makespan bound 5, reached by
	 * D, A, C, B above. */
	struct eval_inst in;
	four_jobs(&in, EVAL_MAKESPAN);
	cr_assert_eq(eval_inst_finish(&in, NULL), 0);
	cr_assert_eq(eval_lower_bound(&in.p), 5);
	/* Weighted: areas/weights A 6/1, B 6/2, C 4/3, D 2/4: Smith order
	 * D, C, B, A; prefixes 2, 6, 12, 18; weighted 4x2 + 3x6 + 2x12 +
	 * 1x18 = 68, over 4 = 17.  Trivial: 1x3 + 2x2 + 3x5 + 4x1 = 26. */
	in.p.objective = EVAL_TWCT;
	cr_assert_eq(eval_lower_bound(&in.p), 26);
	eval_inst_release(&in);
}

Test(eval_decode, bad_problems_are_refused)
{
	struct eval_inst in;
	struct sim_error err;
	four_jobs(&in, EVAL_MAKESPAN);
	in.demand[1] = 5; /* over the 4 units */
	cr_assert_lt(eval_inst_finish(&in, &err), 0);
	cr_assert(strstr(err.msg, "job 1"), "%s", err.msg);
	eval_inst_release(&in);
	/* Runs that could end past what the packed events hold. */
	four_jobs(&in, EVAL_MAKESPAN);
	in.dur[2] = eval_end_limit(&in.p) - 5;
	cr_assert_lt(eval_inst_finish(&in, &err), 0);
	cr_assert(strstr(err.msg, "ends may pass"), "%s", err.msg);
	eval_inst_release(&in);
	/* On nodes of 2 units each: running jobs over a node's units
	 * (within the type's 4), and on a node that is not there. */
	const uint32_t ncap[] = { 2, 2 };
	const uint8_t nty[] = { 0, 0 };
	four_jobs(&in, EVAL_MAKESPAN);
	in.demand[1] = 2;
	eval_inst_set_nodes(&in, 2, ncap, nty);
	eval_inst_add_running(&in, 0, 1, 5, 1);
	eval_inst_add_running(&in, 0, 2, 5, 1);
	cr_assert_lt(eval_inst_finish(&in, &err), 0);
	cr_assert(strstr(err.msg, "3 units of node 1"), "%s", err.msg);
	eval_inst_release(&in);
	four_jobs(&in, EVAL_MAKESPAN);
	in.demand[1] = 2;
	eval_inst_set_nodes(&in, 2, ncap, nty);
	eval_inst_add_running(&in, 0, 1, 5, 2);
	cr_assert_lt(eval_inst_finish(&in, &err), 0);
	cr_assert(strstr(err.msg, "node 2 of 2"), "%s", err.msg);
	eval_inst_release(&in);
	/* Just inside: A at 0, B at 3, D at 5, then C at 5 ends at the
	 * limit less 3, whichever queue runs. */
	four_jobs(&in, EVAL_MAKESPAN);
	int64_t lim = eval_end_limit(&in.p);
	in.dur[2] = lim - 1 - (1 + 3 + 2 + 1);
	cr_assert_eq(eval_inst_finish(&in, &err), 0, "%s", err.msg);
	const uint32_t perm[] = { 0, 1, 3, 2 };
	for (int isa = 0; isa < EVAL_NISAS; isa++)
		if (eval_isa_usable((enum eval_isa)isa))
			cr_assert_eq(eval_one_isa(&in.p, false,
						  (enum eval_isa)isa, perm,
						  NULL, NULL, NULL), lim - 3);
	eval_inst_release(&in);
}

/* An evaluator is not made for a problem that skipped eval_inst_finish's
 * checks and could not be decoded: ends past the packed events, or a
 * running job on no node (node level). */
Test(eval_backend, eval_new_refuses_what_cannot_be_decoded)
{
	struct eval_inst in;
	struct sim_error err;
	struct eval_opts o = { .want = EVAL_WANT_CPU, .threads = 1 };
	four_jobs(&in, EVAL_MAKESPAN);
	cr_assert_eq(eval_inst_finish(&in, NULL), 0);
	in.dur[2] = eval_end_limit(&in.p) - 5;
	cr_assert_null(eval_new(&in.p, &o, &err));
	cr_assert(strstr(err.msg, "ends may pass"), "%s", err.msg);
	eval_inst_release(&in);
	uint32_t ncap[2] = { 2, 2 };
	uint8_t nty[2] = { 0, 0 };
	four_jobs(&in, EVAL_MAKESPAN);
	in.demand[1] = 2;
	eval_inst_set_nodes(&in, 2, ncap, nty);
	eval_inst_add_running(&in, 0, 1, 5, 1);
	cr_assert_eq(eval_inst_finish(&in, NULL), 0);
	in.run_node[0] = 2; /* past the last node */
	o.nodes = true;
	cr_assert_null(eval_new(&in.p, &o, &err));
	cr_assert(strstr(err.msg, "running job 0"), "%s", err.msg);
	in.run_node[0] = 1;
	struct eval *e = eval_new(&in.p, &o, &err);
	cr_assert_not_null(e, "%s", err.msg);
	eval_free(e);
	eval_inst_release(&in);
}

/*
 * The forms of the event queue (eval_decode.h) against the portable one
 * on batches with many events in flight: long windows, thousands of
 * units, ties and zero-tick runs, running jobs and releases.
 */
Test(eval_decode, every_queue_form_agrees)
{
	if (!eval_isa_usable(EVAL_ISA_AVX2))
		cr_skip_test("this CPU has no AVX2: only the portable event "
			     "queue runs here, and the reference test checks "
			     "it");
	static const uint32_t sizes[] = { 1, 1, 2, 4, 8, 16, 32, 64 };
	int64_t cap[3] = { 2048, 512, 96 };
	uint32_t ncap[48];
	uint8_t nty[48];
	for (uint32_t i = 0; i < 48; i++) {
		ncap[i] = 64;
		nty[i] = i < 32 ? 0 : i < 40 ? 1 : 2;
	}
	for (uint32_t seed = 0; seed < 6; seed++) {
		struct eval_inst in;
		struct eval_rng r;
		uint32_t n = seed < 3 ? 400 : 1500;
		eval_rng_init(&r, 41, 3, seed, 0);
		eval_inst_init(&in, n, 3, cap, (enum eval_objective)(seed % 4));
		for (uint32_t j = 0; j < n; j++) {
			in.demand[j] = sizes[eval_rng_below(&r, 8)];
			for (uint32_t t = 0; t < 3; t++) {
				uint32_t k = eval_rng_below(&r, 10);
				/* a few lengths often, so that ends tie */
				in.dur[j * 3 + t] = k == 0 ? 0 : k < 5 ?
					100 * k :
					1 + eval_rng_below(&r, 5000);
			}
			in.release[j] = seed & 1 ?
				eval_rng_below(&r, 20000) : 0;
			in.weight[j] = 1 + eval_rng_below(&r, 5);
		}
		for (uint32_t k = 0; k < 30; k++)
			eval_inst_add_running(&in, 0, 1 + eval_rng_below(&r, 8),
					      1 + eval_rng_below(&r, 3000), k);
		eval_inst_set_nodes(&in, 48, ncap, nty);
		cr_assert_eq(eval_inst_finish(&in, NULL), 0);
		uint32_t *perm = malloc(n * sizeof(*perm));
		uint8_t *genes = malloc(n), *ty0 = malloc(n), *ty = malloc(n);
		int64_t *st0 = malloc(n * 8), *st = malloc(n * 8);
		for (uint32_t c = 0; c < 4; c++) {
			search_random_candidate(&in.p, seed, c, perm, genes);
			bool nodes = c & 1;
			int64_t want = eval_one_isa(&in.p, nodes,
						    EVAL_ISA_PLAIN, perm,
						    genes, st0, ty0);
			for (int isa = 1; isa < EVAL_NISAS; isa++) {
				enum eval_isa e = (enum eval_isa)isa;
				if (!eval_isa_usable(e))
					continue;
				cr_assert_eq(eval_one_isa(&in.p, nodes, e, perm,
							  genes, st, ty), want,
					     "%s seed %u candidate %u",
					     eval_isa_name(e), seed, c);
				cr_assert_arr_eq(st, st0, n * 8);
				cr_assert_arr_eq(ty, ty0, n);
			}
		}
		free(perm);
		free(genes);
		free(ty0);
		free(ty);
		free(st0);
		free(st);
		eval_inst_release(&in);
	}
}

/*
 * The selection both backends make for the GA (eval_steps.h): each
 * island's bests by score, equal scores by the lower index whatever the
 * order they are offered in, and the slot each is copied to.
 */
Test(eval_steps, bests_and_sources_break_ties_by_index)
{
	/* islands of 4: [5 3 3 7] and [3 1 1 9] */
	static const int64_t sc[8] = { 5, 3, 3, 7, 3, 1, 1, 9 };
	struct eval_top t[4];
	eval_top_scan(sc, 0, 4, 1, t, 2);
	cr_assert(t[0].score == 3 && t[0].idx == 1);
	cr_assert(t[1].score == 3 && t[1].idx == 2);
	eval_top_scan(sc, 4, 8, 1, t + 2, 2);
	cr_assert(t[2].score == 1 && t[2].idx == 5);
	cr_assert(t[3].score == 1 && t[3].idx == 6);
	/* every other score from index 1: 3, 7, 1, 9 */
	struct eval_top u[3];
	eval_top_scan(sc, 1, 8, 2, u, 3);
	cr_assert(u[0].idx == 5 && u[1].idx == 1 && u[2].idx == 3);
	/* equal scores offered from the highest index down */
	eval_top_clear(u, 2);
	eval_top_offer(u, 2, 3, 9);
	eval_top_offer(u, 2, 3, 4);
	eval_top_offer(u, 2, 3, 2);
	eval_top_offer(u, 2, 4, 0);
	cr_assert(u[0].idx == 2 && u[1].idx == 4, "%u %u", u[0].idx, u[1].idx);
	/* two elites each; slot 2 takes the other island's best when
	 * migrating, the rest are bred */
	struct eval_ga_params g = { .pop = 8, .island = 4, .elite = 2,
				    .migrate = 1 };
	static const uint32_t want[8] = { 1, 2, 5, EVAL_BREED,
					  5, 6, 1, EVAL_BREED };
	for (uint32_t c = 0; c < 8; c++)
		cr_assert_eq(eval_ga_source(&g, t, c), want[c], "slot %u", c);
	g.migrate = 0;
	cr_assert_eq(eval_ga_source(&g, t, 2), EVAL_BREED);
	cr_assert_eq(eval_ga_source(&g, t, 6), EVAL_BREED);
	/* no elites: each list is just the best, and it migrates to slot 0 */
	struct eval_top b[2] = { t[0], t[2] };
	g.elite = 0;
	g.migrate = 1;
	cr_assert_eq(eval_ga_keep(&g), 1);
	cr_assert_eq(eval_ga_source(&g, b, 0), 5);
	cr_assert_eq(eval_ga_source(&g, b, 4), 1);
	cr_assert_eq(eval_ga_source(&g, b, 1), EVAL_BREED);
}

Test(eval_rng, philox_known_answer_and_exp)
{
	/* Random123's known-answer vector for philox4x32-10, zero key and
	 * counter. */
	struct eval_rng r;
	eval_rng_init(&r, 0, 0, 0, 0);
	cr_assert_eq(eval_rng_next(&r), 0x6627e8d5u);
	cr_assert_eq(eval_rng_next(&r), 0xe169c58du);
	cr_assert_eq(eval_rng_next(&r), 0xbc57ac4cu);
	cr_assert_eq(eval_rng_next(&r), 0x9b00dbd8u);
	for (double x = -30; x <= 0; x += 0.37)
		cr_assert_lt(fabs(eval_exp_neg(x) - exp(x)),
			     1e-9 * exp(x) + 1e-300, "x %g", x);
	cr_assert_eq(eval_exp_neg(-100), 0);
}

/* A random instance: n jobs on two types (8 and 4 units). */
static void random_inst(struct eval_inst *in, uint32_t n, uint32_t seed,
			enum eval_objective obj)
{
	int64_t cap[2] = { 8, 4 };
	struct eval_rng r;
	eval_rng_init(&r, seed, 9, 0, 0);
	eval_inst_init(in, n, 2, cap, obj);
	for (uint32_t j = 0; j < n; j++) {
		in->demand[j] = 1 + eval_rng_below(&r, 4);
		in->dur[j * 2] = 1 + eval_rng_below(&r, 20);
		in->dur[j * 2 + 1] = eval_rng_below(&r, 3) == 0 ?
			(int64_t)EVAL_NOT_ALLOWED :
			(int64_t)(1 + eval_rng_below(&r, 20));
		in->release[j] = eval_rng_below(&r, 10);
		in->weight[j] = 1 + eval_rng_below(&r, 5);
	}
	cr_assert_eq(eval_inst_finish(in, NULL), 0);
}

Test(eval_backend, same_scores_on_any_thread_count)
{
	/* 200 random candidates scored by the pool with 1 and 3 threads and
	 * one by one on the host (a second, serial path): all equal. */
	struct eval_inst in;
	random_inst(&in, 40, 7, EVAL_TWCT);
	size_t cnt = 200, n = in.p.n;
	uint32_t *perm = malloc(cnt * n * sizeof(*perm));
	uint8_t *genes = malloc(cnt * n);
	int64_t *s1 = malloc(cnt * 8), *s3 = malloc(cnt * 8);
	for (uint32_t c = 0; c < cnt; c++)
		search_random_candidate(&in.p, 5, c, perm + c * n,
					genes + c * n);
	struct eval_opts o1 = { .want = EVAL_WANT_CPU, .threads = 1 };
	struct eval_opts o3 = { .want = EVAL_WANT_CPU, .threads = 3 };
	struct eval *e1 = eval_new(&in.p, &o1, NULL);
	struct eval *e3 = eval_new(&in.p, &o3, NULL);
	cr_assert_eq(eval_score(e1, perm, genes, cnt, s1, NULL), 0);
	cr_assert_eq(eval_score(e3, perm, genes, cnt, s3, NULL), 0);
	for (size_t c = 0; c < cnt; c++) {
		cr_assert_eq(s1[c], s3[c]);
		cr_assert_eq(s1[c], eval_one(&in.p, false, perm + c * n,
					     genes + c * n, NULL, NULL));
	}
	eval_free(e1);
	eval_free(e3);
	free(perm);
	free(genes);
	free(s1);
	free(s3);
	eval_inst_release(&in);
}
