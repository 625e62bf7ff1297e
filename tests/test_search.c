/*
 * The searches (search_*.c) against brute force: on instances small
 * enough to try every permutation (and every placement), GA, SA and the
 * ILP must reach the optimum that brute force finds; the same seed gives
 * the same result with 1 and with 3 threads.  The decoder is complete
 * (eval_decode.h), so the best permutation is the optimal schedule.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval_inst.h"
#include "search/search.h"
#include "testlib.h"

/* Random instance: n jobs, two types (8 and 4 units) when two. */
static void inst(struct eval_inst *in, uint32_t n, uint32_t types,
		 uint32_t seed, enum eval_objective obj, int64_t maxrun)
{
	int64_t cap[2] = { 8, 4 };
	struct eval_rng r;
	eval_rng_init(&r, seed, 9, 1, 0);
	eval_inst_init(in, n, types, cap, obj);
	for (uint32_t j = 0; j < n; j++) {
		in->demand[j] = 1 + eval_rng_below(&r, 5);
		for (uint32_t t = 0; t < types; t++)
			in->dur[j * types + t] =
				1 + eval_rng_below(&r, (uint32_t)maxrun);
		in->release[j] = eval_rng_below(&r, 4);
		in->weight[j] = 1 + eval_rng_below(&r, 4);
	}
	cr_assert_eq(eval_inst_finish(in, NULL), 0);
}

/* Next permutation in lexicographic order; false after the last. */
static bool next_perm(uint32_t *a, uint32_t n)
{
	int i = (int)n - 2;
	while (i >= 0 && a[i] >= a[i + 1])
		i--;
	if (i < 0)
		return false;
	int j = (int)n - 1;
	while (a[j] <= a[i])
		j--;
	uint32_t t = a[i];
	a[i] = a[j];
	a[j] = t;
	for (uint32_t l = (uint32_t)i + 1, h = n - 1; l < h; l++, h--) {
		t = a[l];
		a[l] = a[h];
		a[h] = t;
	}
	return true;
}

/* The optimum over every permutation and every gene vector. */
static int64_t brute_force(const struct eval_problem *p)
{
	uint32_t n = p->n, perm[8];
	uint8_t genes[8];
	int64_t best = INT64_MAX;
	uint32_t combos = 1;
	for (uint32_t j = 0; j < n; j++)
		combos *= p->ntypes;
	struct eval_scratch s = eval_scratch_new(p);
	for (uint32_t g = 0; g < combos; g++) {
		uint32_t x = g;
		for (uint32_t j = 0; j < n; j++) {
			genes[j] = (uint8_t)(x % p->ntypes);
			x /= p->ntypes;
		}
		for (uint32_t j = 0; j < n; j++)
			perm[j] = j;
		do {
			int64_t sc = eval_decode(p, perm, genes, &s, NULL,
						 NULL);
			best = sc < best ? sc : best;
		} while (next_perm(perm, n));
	}
	eval_scratch_free(&s);
	return best;
}

static void opts(struct search_opts *o, unsigned threads)
{
	search_opts_default(o);
	o->seed = 42;
	o->evals = 40000;
	o->pop = 64;
	o->islands = 2;
	o->chains = 16;
	o->eval.want = EVAL_WANT_CPU;
	o->eval.threads = threads;
}

static void reaches_optimum(uint32_t n, uint32_t types,
			    enum eval_objective obj, uint32_t seed)
{
	struct eval_inst in;
	struct search_opts o;
	struct search_result g, ga, sa;
	inst(&in, n, types, seed, obj, 20);
	int64_t opt = brute_force(&in.p);
	cr_assert_geq(opt, eval_lower_bound(&in.p));
	opts(&o, 2);
	search_result_init(&g, n);
	search_result_init(&ga, n);
	search_result_init(&sa, n);
	cr_assert_eq(search_greedy(&in.p, false, &g, NULL), 0);
	cr_assert_geq(g.score, opt);
	cr_assert_eq(search_ga(&in.p, &o, &g, &ga, NULL), 0);
	cr_assert_eq(search_sa(&in.p, &o, &g, &sa, NULL), 0);
	cr_assert_eq(ga.score, opt, "ga %lld, optimum %lld",
		     (long long)ga.score, (long long)opt);
	cr_assert_eq(sa.score, opt, "sa %lld, optimum %lld",
		     (long long)sa.score, (long long)opt);
	/* the candidate returned has the score returned */
	cr_assert_eq(eval_one(&in.p, false, ga.perm, ga.genes, NULL, NULL),
		     opt);
	cr_assert_eq(eval_one(&in.p, false, sa.perm, sa.genes, NULL, NULL),
		     opt);
	cr_assert(ga.reproducible && sa.reproducible);
	cr_assert_leq(ga.evals, o.evals);
	search_result_release(&g);
	search_result_release(&ga);
	search_result_release(&sa);
	eval_inst_release(&in);
}

Test(search, ga_sa_reach_optimum_8_jobs_makespan)
{
	reaches_optimum(8, 1, EVAL_MAKESPAN, 1);
}

Test(search, ga_sa_reach_optimum_8_jobs_weighted)
{
	reaches_optimum(8, 1, EVAL_TWCT, 2);
}

Test(search, ga_sa_reach_optimum_6_jobs_two_types)
{
	reaches_optimum(6, 2, EVAL_JCT, 3);
	reaches_optimum(6, 2, EVAL_MIX, 4);
}

Test(search, same_seed_same_result_on_1_and_3_threads)
{
	struct eval_inst in;
	struct search_opts o1, o3;
	inst(&in, 50, 2, 9, EVAL_TWCT, 100);
	opts(&o1, 1);
	opts(&o3, 3);
	o1.evals = o3.evals = 6000;
	for (int alg = 0; alg < 2; alg++) {
		struct search_result a, b;
		search_result_init(&a, 50);
		search_result_init(&b, 50);
		if (alg == 0) {
			cr_assert_eq(search_ga(&in.p, &o1, NULL, &a, NULL), 0);
			cr_assert_eq(search_ga(&in.p, &o3, NULL, &b, NULL), 0);
		} else {
			cr_assert_eq(search_sa(&in.p, &o1, NULL, &a, NULL), 0);
			cr_assert_eq(search_sa(&in.p, &o3, NULL, &b, NULL), 0);
		}
		tl_same_search(&a, &b, 50);
		search_result_release(&a);
		search_result_release(&b);
	}
	eval_inst_release(&in);
}

Test(search, ilp_matches_brute_force)
{
	for (int obj = 0; obj < EVAL_NOBJECTIVES; obj++) {
		struct eval_inst in;
		struct search_opts o;
		struct search_result g, r;
		inst(&in, 5, obj == EVAL_MIX ? 2 : 1, 20 + obj,
		     (enum eval_objective)obj, 5);
		int64_t opt = brute_force(&in.p);
		opts(&o, 1);
		o.max_slots = 1000; /* exact: one tick a slot */
		o.time_limit_s = 60;
		search_result_init(&g, 5);
		search_result_init(&r, 5);
		cr_assert_eq(search_greedy(&in.p, false, &g, NULL), 0);
		cr_assert_eq(search_ilp(&in.p, &o, &g, &r, NULL), 0);
		cr_assert_eq(r.score, opt, "objective %d: ilp %lld, brute "
			     "force %lld (%s)", obj, (long long)r.score,
			     (long long)opt, r.note);
		cr_assert_eq(r.bound, opt, "%s", r.note);
		cr_assert_float_eq(r.gap, 0, 1e-9);
		search_result_release(&g);
		search_result_release(&r);
		eval_inst_release(&in);
	}
}

/* n random jobs on two types of nodes (3 x 4 units, 3 x 2 units), with a
 * running job on each type. */
static void node_inst(struct eval_inst *in, uint32_t n, uint32_t seed)
{
	int64_t cap[2] = { 12, 6 };
	uint32_t ncap[6] = { 4, 4, 4, 2, 2, 2 };
	uint8_t nty[6] = { 0, 0, 0, 1, 1, 1 };
	struct eval_rng r;
	eval_rng_init(&r, seed, 9, 2, 0);
	eval_inst_init(in, n, 2, cap, EVAL_TWCT);
	for (uint32_t j = 0; j < n; j++) {
		in->demand[j] = 1 + eval_rng_below(&r, 5);
		in->dur[j * 2] = 1 + eval_rng_below(&r, 30);
		in->dur[j * 2 + 1] = in->demand[j] > 2 &&
			eval_rng_below(&r, 2) ? (int64_t)EVAL_NOT_ALLOWED :
			(int64_t)(1 + eval_rng_below(&r, 30));
		in->release[j] = eval_rng_below(&r, 10);
	}
	eval_inst_set_nodes(in, 6, ncap, nty);
	eval_inst_add_running(in, 0, 2, 12, 0);
	eval_inst_add_running(in, 1, 1, 7, 4);
	cr_assert_eq(eval_inst_finish(in, NULL), 0);
}

/* When job perm[k] starts on type t after perm[0, k) on their types,
 * decoded as a problem of those k + 1 jobs alone (renumbered in order). */
static int64_t prefix_start(const struct eval_inst *in, const uint32_t *perm,
			    const uint8_t *genes, uint32_t k, uint32_t t)
{
	struct eval_inst sub;
	uint32_t T = in->p.ntypes, m = k + 1, ord[64];
	uint8_t g[64];
	int64_t st[64];
	eval_inst_init(&sub, m, T, in->p.cap, in->p.objective);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t j = perm[i];
		sub.demand[i] = in->demand[j];
		for (uint32_t u = 0; u < T; u++)
			sub.dur[i * T + u] = in->dur[j * T + u];
		sub.release[i] = in->release[j];
		sub.weight[i] = in->weight[j];
		g[i] = i == k ? (uint8_t)t : genes[j];
		ord[i] = i;
	}
	eval_inst_set_nodes(&sub, in->p.nnodes, in->node_cap, in->node_type);
	for (uint32_t r = 0; r < in->p.nrun; r++)
		eval_inst_add_running(&sub, in->run_type[r], in->run_units[r],
				      in->run_end[r], in->run_node[r]);
	cr_assert_eq(eval_inst_finish(&sub, NULL), 0);
	eval_one(&sub.p, true, ord, g, st, NULL);
	eval_inst_release(&sub);
	return st[k];
}

/* Node-level greedy: each job goes on the type where it starts soonest
 * after the jobs before it (ties: least leftover capacity, then the lower
 * type), each start found by decoding that prefix as its own problem. */
Test(search, node_level_greedy_types_from_prefix_starts)
{
	for (uint32_t seed = 1; seed <= 20; seed++) {
		struct eval_inst in;
		struct search_result g;
		uint32_t n = 16;
		uint8_t want[16];
		node_inst(&in, n, seed);
		search_result_init(&g, n);
		cr_assert_eq(search_greedy(&in.p, true, &g, NULL), 0);
		for (uint32_t j = 0; j < n; j++)
			want[j] = in.home[j];
		for (uint32_t k = 0; k < n; k++) {
			uint32_t j = g.perm[k], best = in.home[j];
			int64_t bs = INT64_MAX, bleft = INT64_MAX;
			for (uint32_t t = 0; t < 2; t++) {
				if (in.dur[j * 2 + t] < 0)
					continue;
				int64_t st = prefix_start(&in, g.perm, want, k,
							  t);
				int64_t left = in.p.cap[t] - in.demand[j];
				if (st < bs || (st == bs && left < bleft)) {
					bs = st;
					bleft = left;
					best = t;
				}
			}
			want[j] = (uint8_t)best;
		}
		cr_assert_eq(memcmp(g.genes, want, n), 0, "seed %u", seed);
		cr_assert_eq(g.score, eval_one(&in.p, true, g.perm, g.genes,
					       NULL, NULL));
		search_result_release(&g);
		eval_inst_release(&in);
	}
}
