/*
 * Narrow events (eval_decode.h, eval_narrow_fits): a pooled problem of
 * one type whose ends fit in 32 bits beside the units is decoded with
 * uint32 events (the avx512-32 form).  Checked here: which problems fit,
 * a hand-worked decode on each side of the limit, and random one-type
 * batches with many events in flight (ties, zero-tick runs, releases,
 * running jobs, every objective) against the portable decoder, start by
 * start, one by one and in the CPU pool's pairs.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "eval/eval.h"
#include "eval/eval_inst.h"
#include "search/search.h"

static void skip_without_avx512(void)
{
	if (!eval_isa_usable(EVAL_ISA_AVX512_32))
		cr_skip_test("this CPU has no AVX-512: narrow events never "
			     "run here");
}

/*
 * Two jobs that each take all 512 units (shift 10: ends must stay below
 * 2^22 - 1 = 4,194,303): job 0 runs 2,097,150, job 1 waits for it and
 * runs d1.  Weights 1: twct = 2,097,150 + (2,097,150 + d1).
 */
static void two_wide_jobs(struct eval_inst *in, int64_t d1)
{
	int64_t cap = 512;
	eval_inst_init(in, 2, 1, &cap, EVAL_TWCT);
	in->demand[0] = in->demand[1] = 512;
	in->dur[0] = 2097150;
	in->dur[1] = d1;
	cr_assert_eq(eval_inst_finish(in, NULL), 0);
}

Test(eval_narrow, limit_of_the_ends)
{
	skip_without_avx512();
	struct eval_inst in;
	const uint32_t perm[] = { 0, 1 };
	int64_t st[2];
	uint8_t ty[2];
	/* Latest end 4,194,301: fits, and decodes narrow. */
	two_wide_jobs(&in, 2097151);
	cr_assert_eq(eval_narrow_shift(&in.p), 10);
	cr_assert(eval_narrow_fits(&in.p));
	cr_assert_eq(eval_isa_for(&in.p, false, EVAL_ISA_AVX512_32),
		     EVAL_ISA_AVX512_32);
	cr_assert_eq(eval_isa_for(&in.p, true, EVAL_ISA_AVX512_32),
		     EVAL_ISA_AVX512);
	cr_assert_eq(eval_one_isa(&in.p, false, EVAL_ISA_AVX512_32, perm,
				  NULL, st, ty),
		     INT64_C(2097150) + INT64_C(4194301));
	cr_assert_eq(st[0], 0);
	cr_assert_eq(st[1], 2097150);
	eval_inst_release(&in);
	/* Latest end 4,194,303, the key that sorts last: too far, so the
	 * int64 events run, with the same rule. */
	two_wide_jobs(&in, 2097153);
	cr_assert(!eval_narrow_fits(&in.p));
	cr_assert_eq(eval_isa_for(&in.p, false, EVAL_ISA_AVX512_32),
		     EVAL_ISA_AVX512);
	cr_assert_eq(eval_one_isa(&in.p, false, EVAL_ISA_AVX512_32, perm,
				  NULL, st, ty),
		     INT64_C(2097150) + INT64_C(4194303));
	cr_assert_eq(st[1], 2097150);
	eval_inst_release(&in);
	/* Two types never fit. */
	int64_t caps[2] = { 8, 8 };
	eval_inst_init(&in, 1, 2, caps, EVAL_TWCT);
	in.demand[0] = 1;
	in.dur[0] = in.dur[1] = 1;
	cr_assert_eq(eval_inst_finish(&in, NULL), 0);
	cr_assert(!eval_narrow_fits(&in.p));
	eval_inst_release(&in);
}

/* Random one-type batch `seed`: 50 to 600 jobs of 1 to 64 units on 128
 * to 2,048, runs drawn from a few lengths (ties) or 0, releases on odd
 * seeds, up to 40 running jobs, objective seed % 4. */
static void narrow_inst(struct eval_inst *in, uint32_t seed)
{
	static const uint32_t sizes[] = { 1, 1, 2, 4, 8, 16, 32, 64 };
	struct eval_rng r;
	eval_rng_init(&r, 43, 9, seed, 0);
	int64_t cap = 128 << eval_rng_below(&r, 5);
	uint32_t n = 50 + eval_rng_below(&r, 551);
	eval_inst_init(in, n, 1, &cap, (enum eval_objective)(seed % 4));
	in->p.mix_makespan = 1 + eval_rng_below(&r, 3);
	in->p.mix_twct = 1 + eval_rng_below(&r, 3);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t k = eval_rng_below(&r, 10);
		in->demand[j] = sizes[eval_rng_below(&r, 8)];
		in->dur[j] = k == 0 ? 0 : k < 5 ? 100 * k :
			1 + eval_rng_below(&r, 3000);
		in->release[j] = seed & 1 ? eval_rng_below(&r, 5000) : 0;
		in->weight[j] = 1 + eval_rng_below(&r, 5);
	}
	uint32_t nrun = eval_rng_below(&r, 41), held = 0;
	for (uint32_t k = 0; k < nrun && held + 8 <= cap; k++) {
		uint32_t u = 1 + eval_rng_below(&r, 8);
		held += u;
		eval_inst_add_running(in, 0, u, 1 + eval_rng_below(&r, 4000),
				      0);
	}
	cr_assert_eq(eval_inst_finish(in, NULL), 0);
}

Test(eval_narrow, random_batches_match_the_portable_decoder)
{
	skip_without_avx512();
	uint32_t objs[4] = { 0 }, running = 0;
	for (uint32_t seed = 0; seed < 40; seed++) {
		struct eval_inst in;
		narrow_inst(&in, seed);
		const struct eval_problem *p = &in.p;
		uint32_t n = p->n;
		cr_assert(eval_narrow_fits(p), "instance %u", seed);
		objs[p->objective]++;
		running += p->nrun > 0;
		enum { CNT = 5 };
		uint32_t *perm = malloc(CNT * n * sizeof(*perm));
		uint8_t *genes = malloc(CNT * n), *ty0 = malloc(n),
			*ty = malloc(n);
		int64_t *st0 = malloc(n * 8), *st = malloc(n * 8);
		int64_t want[CNT], got[CNT];
		for (uint32_t c = 0; c < CNT; c++) {
			uint32_t *pc = perm + c * n;
			search_random_candidate(p, seed, c, pc, genes + c * n);
			want[c] = eval_one_isa(p, false, EVAL_ISA_PLAIN, pc,
					       NULL, st0, ty0);
			cr_assert_eq(eval_one_isa(p, false,
						  EVAL_ISA_AVX512_32, pc,
						  genes + c * n, st, ty),
				     want[c], "instance %u candidate %u",
				     seed, c);
			cr_assert_arr_eq(st, st0, n * 8);
			cr_assert_arr_eq(ty, ty0, n);
		}
		/* The pool on one thread: pairs, and the odd one alone. */
		struct eval_opts o = { .want = EVAL_WANT_CPU, .threads = 1 };
		struct eval *e = eval_new(p, &o, NULL);
		cr_assert_not_null(e);
		cr_assert_eq(eval_score(e, perm, genes, CNT, got, NULL), 0);
		cr_assert_arr_eq(got, want, sizeof(want), "instance %u",
				 seed);
		eval_free(e);
		free(perm);
		free(genes);
		free(ty0);
		free(ty);
		free(st0);
		free(st);
		eval_inst_release(&in);
	}
	for (int k = 0; k < 4; k++)
		cr_assert_eq(objs[k], 10);
	cr_assert_gt(running, 30);
}
