/*
 * CPU-vs-CUDA parity: the CUDA backend must give every candidate, every
 * GA generation and every annealing step exactly what the CPU backend
 * gives, so that a search's result does not depend on where it ran.
 *
 * These tests run twice in `make test`: in the main runner, against a
 * real device (skipped, saying why, when there is none), and in a second
 * runner built with tests/cuda_host.h, where the same sim/eval/eval_cuda.cu
 * runs its kernels on the host.  The second run checks the backend's own
 * code on every machine; the first checks nvcc's device code where a GPU
 * is present.
 *
 * The instances have two types, running jobs, releases, types a job may
 * not use and, for node-level decoding, nodes of two sizes with jobs
 * larger than a node, so every branch of the decoders is taken.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "eval/eval_inst.h"
#include "search/search.h"
#include "testlib.h"

/* n random jobs on two types: 3 nodes x 4 units and 2 nodes x 2 units,
 * with two running jobs. */
static void parity_inst(struct eval_inst *in, uint32_t n, uint32_t seed,
			enum eval_objective obj)
{
	int64_t cap[2] = { 12, 4 };
	uint32_t ncap[5] = { 4, 4, 4, 2, 2 };
	uint8_t nty[5] = { 0, 0, 0, 1, 1 };
	struct eval_rng r;
	eval_rng_init(&r, seed, 5, 0, 0);
	eval_inst_init(in, n, 2, cap, obj);
	in->p.mix_makespan = 7;
	in->p.mix_twct = 1;
	for (uint32_t j = 0; j < n; j++) {
		/* over 4 units: type 0 only; else type 0, type 1 (its home
		 * then is type 1) or both */
		uint32_t d = 1 + eval_rng_below(&r, 6), where = d > 4 ? 0 :
			eval_rng_below(&r, 3);
		in->demand[j] = d;
		in->dur[j * 2] = where == 1 ? (int64_t)EVAL_NOT_ALLOWED :
			(int64_t)eval_rng_below(&r, 30);
		in->dur[j * 2 + 1] = where == 0 ? (int64_t)EVAL_NOT_ALLOWED :
			(int64_t)(1 + eval_rng_below(&r, 40));
		in->release[j] = eval_rng_below(&r, 25);
		in->weight[j] = 1 + eval_rng_below(&r, 5);
	}
	eval_inst_set_nodes(in, 5, ncap, nty);
	eval_inst_add_running(in, 0, 3, 17, 1);
	eval_inst_add_running(in, 1, 2, 9, 4);
	cr_assert_eq(eval_inst_finish(in, NULL), 0);
}

/* The CPU and CUDA evaluators of one problem, or a skip. */
static void both(const struct eval_problem *p, bool nodes, struct eval **cpu,
		 struct eval **gpu)
{
	char why[200] = "";
	if (!eval_cuda_present(why, sizeof(why)))
		cr_skip_test("cpu-vs-cuda parity needs a cuda device: %s", why);
	struct eval_opts oc = { .want = EVAL_WANT_CPU, .threads = 2,
				.nodes = nodes };
	struct eval_opts og = { .want = EVAL_WANT_CUDA, .nodes = nodes };
	*cpu = eval_new(p, &oc, NULL);
	*gpu = eval_new(p, &og, NULL);
	cr_assert_not_null(*cpu);
	cr_assert_not_null(*gpu);
	cr_assert_str_eq(eval_backend(*gpu), "cuda", "%s", eval_note(*gpu));
}

static void same_scores(const int64_t *a, const int64_t *b, size_t cnt,
			const char *what)
{
	for (size_t c = 0; c < cnt; c++)
		cr_assert_eq(a[c], b[c], "%s: candidate %zu: cpu %lld, cuda "
			     "%lld", what, c, (long long)a[c],
			     (long long)b[c]);
}

static void same_best(const struct eval_top *a, const struct eval_top *b,
		      const char *what)
{
	cr_assert(a->score == b->score && a->idx == b->idx,
		  "%s: cpu %lld (candidate %u), cuda %lld (candidate %u)",
		  what, (long long)a->score, a->idx, (long long)b->score,
		  b->idx);
}

/* Every current score and chain best is the same on both. */
static void same_population(struct eval *ec, struct eval *eg, size_t pop,
			    const char *what)
{
	int64_t *a = malloc(pop * 8), *b = malloc(pop * 8);
	int64_t *ab = malloc(pop * 8), *bb = malloc(pop * 8);
	cr_assert_eq(eval_pop_scores(ec, a, ab, NULL), 0);
	cr_assert_eq(eval_pop_scores(eg, b, bb, NULL), 0);
	same_scores(a, b, pop, what);
	same_scores(ab, bb, pop, what);
	free(a);
	free(b);
	free(ab);
	free(bb);
}

/* Candidate idx (or its chain's best) is the same on both. */
static void same_candidate(struct eval *ec, struct eval *eg, uint32_t n,
			   size_t idx, bool best)
{
	uint32_t pc[64], pg[64];
	uint8_t gc[64], gg[64];
	cr_assert_eq(eval_pop_get(ec, idx, best, pc, gc, NULL), 0);
	cr_assert_eq(eval_pop_get(eg, idx, best, pg, gg, NULL), 0);
	cr_assert_eq(memcmp(pc, pg, n * sizeof(*pc)), 0, "candidate %zu", idx);
	cr_assert_eq(memcmp(gc, gg, n), 0, "genes of candidate %zu", idx);
}

/* 1,000 random candidates, every objective, pooled and on nodes. */
Test(cuda_parity, scores)
{
	for (int nodes = 0; nodes < 2; nodes++) {
		for (int obj = 0; obj < EVAL_NOBJECTIVES; obj++) {
			struct eval_inst in;
			struct eval *ec, *eg;
			parity_inst(&in, 60, 3 + (uint32_t)obj,
				    (enum eval_objective)obj);
			both(&in.p, nodes, &ec, &eg);
			size_t cnt = 1000, n = in.p.n;
			uint32_t *perm = malloc(cnt * n * sizeof(*perm));
			uint8_t *genes = malloc(cnt * n);
			int64_t *sc = malloc(cnt * 8), *sg = malloc(cnt * 8);
			for (uint32_t c = 0; c < cnt; c++)
				search_random_candidate(&in.p, 11, c,
							perm + c * n,
							genes + c * n);
			cr_assert_eq(eval_score(ec, perm, genes, cnt, sc, NULL),
				     0);
			cr_assert_eq(eval_score(eg, perm, genes, cnt, sg, NULL),
				     0);
			same_scores(sc, sg, cnt, "score");
			/* and each is the decoder's own score */
			for (size_t c = 0; c < cnt; c += 97)
				cr_assert_eq(sc[c], eval_one(&in.p, nodes,
							     perm + c * n,
							     genes + c * n,
							     NULL, NULL));
			/* no genes: every job on its home type */
			cr_assert_eq(eval_score(ec, perm, NULL, cnt, sc, NULL),
				     0);
			cr_assert_eq(eval_score(eg, perm, NULL, cnt, sg, NULL),
				     0);
			same_scores(sc, sg, cnt, "score, home types");
			eval_free(ec);
			eval_free(eg);
			free(perm);
			free(genes);
			free(sc);
			free(sg);
			eval_inst_release(&in);
		}
	}
}

/* (score, index) order, for the plain sort the elites are checked by. */
static const int64_t *sort_scores;

static int by_score(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sort_scores[x] != sort_scores[y])
		return sort_scores[x] < sort_scores[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * gens GA generations of pop candidates (n jobs) in islands of per with
 * `elite` elites, migrating every other generation, on both backends:
 * every generation's best and scores, and the last population, are the
 * same; and each island's first `elite` slots hold its best parents and
 * the next slot, when migrating, the previous island's best - found by a
 * plain sort of the parents by (score, index), candidates compared whole.
 */
static void ga_parity(bool nodes, uint32_t n, uint32_t pop, uint32_t per,
		      uint32_t elite, uint32_t gens)
{
	struct eval_inst in;
	struct eval *ec, *eg;
	struct eval_top bc, bg;
	uint32_t isl = pop / per;
	parity_inst(&in, n, 21, EVAL_TWCT);
	both(&in.p, nodes, &ec, &eg);
	uint32_t *perm = malloc((size_t)pop * n * sizeof(*perm));
	uint32_t *par = malloc((size_t)pop * n * sizeof(*par));
	uint32_t *rank = malloc(pop * sizeof(*rank)), kid[64];
	uint8_t *genes = malloc((size_t)pop * n);
	int64_t *before = malloc(pop * 8);
	for (uint32_t c = 0; c < pop; c++)
		search_random_candidate(&in.p, 5, c, perm + c * n,
					genes + c * n);
	/* no genes given: both start from the home types */
	cr_assert_eq(eval_pop_set(ec, perm, NULL, pop, &bc, NULL), 0);
	cr_assert_eq(eval_pop_set(eg, perm, NULL, pop, &bg, NULL), 0);
	same_best(&bc, &bg, "first population");
	same_population(ec, eg, pop, "first population");
	struct eval_ga_params g = {
		.seed = 77, .pop = pop, .island = per, .tournament = 3,
		.p_cross = 3u << 30, .p_swap = 1u << 30, .p_insert = 1u << 30,
		.p_gene = 1u << 29, .elite = elite,
	};
	for (uint32_t gen = 1; gen <= gens; gen++) {
		g.gen = gen;
		g.migrate = gen % 2 == 0;
		cr_assert_eq(eval_pop_scores(ec, before, NULL, NULL), 0);
		for (uint32_t c = 0; c < pop; c++) {
			cr_assert_eq(eval_pop_get(ec, c, false, par + c * n,
						  NULL, NULL), 0);
			rank[c] = c;
		}
		sort_scores = before;
		for (uint32_t k = 0; k < isl; k++)
			qsort(rank + k * per, per, sizeof(*rank), by_score);
		cr_assert_eq(eval_ga_step(ec, &g, &bc, NULL), 0);
		cr_assert_eq(eval_ga_step(eg, &g, &bg, NULL), 0);
		same_best(&bc, &bg, "generation");
		same_population(ec, eg, pop, "generation");
		for (uint32_t k = 0; k < isl; k++) {
			for (uint32_t r = 0; r <= elite; r++) {
				uint32_t from = rank[k * per + r];
				if (r == elite && !g.migrate)
					break;
				if (r == elite)
					from = rank[(k + isl - 1) % isl * per];
				cr_assert_eq(eval_pop_get(eg, k * per + r,
							  false, kid, NULL,
							  NULL), 0);
				cr_assert_eq(memcmp(kid, par + from * n,
						    n * sizeof(*kid)), 0,
					     "island %u slot %u", k, r);
			}
		}
	}
	for (uint32_t c = 0; c < pop; c++)
		same_candidate(ec, eg, n, c, false);
	eval_free(ec);
	eval_free(eg);
	free(perm);
	free(par);
	free(rank);
	free(genes);
	free(before);
	eval_inst_release(&in);
}

/* Three islands of 32 with two elites; and two islands of 1,024 with 32
 * elites, so that on a device each slice of an island scans several
 * candidates before the merge. */
Test(cuda_parity, ga_generations)
{
	for (int nodes = 0; nodes < 2; nodes++) {
		ga_parity(nodes, 40, 96, 32, 2, 10);
		ga_parity(nodes, 12, 2048, 1024, 32, 3);
	}
}

/* 64 annealing chains, 200 steps with a falling temperature and a
 * restart from the best chain's best halfway: the best after every step,
 * every current score and chain best, and every chain's best candidate,
 * are the same. */
Test(cuda_parity, annealing_steps)
{
	for (int nodes = 0; nodes < 2; nodes++) {
		struct eval_inst in;
		struct eval *ec, *eg;
		struct eval_top bc, bg;
		parity_inst(&in, 40, 33, EVAL_MIX);
		both(&in.p, nodes, &ec, &eg);
		uint32_t chains = 64, n = in.p.n;
		uint32_t *perm = malloc((size_t)chains * n * sizeof(*perm));
		uint8_t *genes = malloc((size_t)chains * n);
		for (uint32_t c = 0; c < chains; c++)
			search_random_candidate(&in.p, 9, c, perm + c * n,
						genes + c * n);
		cr_assert_eq(eval_pop_set(ec, perm, genes, chains, &bc, NULL),
			     0);
		cr_assert_eq(eval_pop_set(eg, perm, genes, chains, &bg, NULL),
			     0);
		same_best(&bc, &bg, "chains");
		struct eval_sa_params sp = { .seed = 13, .chains = chains,
					     .p_gene = 1u << 30,
					     .temp = 400 };
		for (uint32_t step = 1; step <= 200; step++) {
			sp.step = step;
			sp.temp *= 0.98;
			cr_assert_eq(eval_sa_step(ec, &sp, &bc, NULL), 0);
			cr_assert_eq(eval_sa_step(eg, &sp, &bg, NULL), 0);
			same_best(&bc, &bg, "step");
			same_population(ec, eg, chains, "step");
			if (step == 100) {
				cr_assert_eq(eval_sa_reset(ec, bc.idx, NULL),
					     0);
				cr_assert_eq(eval_sa_reset(eg, bg.idx, NULL),
					     0);
			}
		}
		for (uint32_t c = 0; c < chains; c++) {
			same_candidate(ec, eg, n, c, false);
			same_candidate(ec, eg, n, c, true);
		}
		eval_free(ec);
		eval_free(eg);
		free(perm);
		free(genes);
		eval_inst_release(&in);
	}
}

/* Whole searches through the search API: same seed, same result. */
Test(cuda_parity, searches)
{
	char why[200] = "";
	if (!eval_cuda_present(why, sizeof(why)))
		cr_skip_test("cpu-vs-cuda parity needs a cuda device: %s", why);
	struct eval_inst in;
	parity_inst(&in, 30, 41, EVAL_JCT);
	for (int alg = 0; alg < 2; alg++) {
		struct search_opts oc, og;
		struct search_result a, b;
		search_opts_default(&oc);
		oc.seed = 3;
		oc.evals = 8000;
		oc.pop = 64;
		oc.islands = 2;
		oc.chains = 32;
		oc.restart = 50;
		og = oc;
		oc.eval.want = EVAL_WANT_CPU;
		og.eval.want = EVAL_WANT_CUDA;
		search_result_init(&a, in.p.n);
		search_result_init(&b, in.p.n);
		if (alg == 0) {
			cr_assert_eq(search_ga(&in.p, &oc, NULL, &a, NULL), 0);
			cr_assert_eq(search_ga(&in.p, &og, NULL, &b, NULL), 0);
		} else {
			cr_assert_eq(search_sa(&in.p, &oc, NULL, &a, NULL), 0);
			cr_assert_eq(search_sa(&in.p, &og, NULL, &b, NULL), 0);
		}
		cr_assert_str_eq(b.backend, "cuda");
		tl_same_search(&a, &b, in.p.n);
		search_result_release(&a);
		search_result_release(&b);
	}
	eval_inst_release(&in);
}
