/*
 * `clustersim bench-eval`: evaluations per second of the batch
 * evaluator's CPU backend (eval/eval.h) on synthetic 100- and 1,000-job
 * batches on 64 nodes x 8 GPUs, pooled and node-level, on one thread and
 * on all cores.  make bench prints it; docs/validation.md keeps the
 * figures.
 */
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/util.h"
#include "eval/eval_inst.h"
#include "search/search.h"

/* A synthetic batch on 64 nodes x 8 GPUs of one type. */
static void bench_inst(struct eval_inst *in, uint32_t n)
{
	int64_t cap = 512;
	uint32_t ncap[64];
	uint8_t nty[64] = { 0 };
	static const uint32_t sizes[] = { 1, 1, 1, 2, 4, 8, 16, 32 };
	struct eval_rng r;
	eval_rng_init(&r, 2024, 7, n, 0);
	eval_inst_init(in, n, 1, &cap, EVAL_TWCT);
	for (uint32_t j = 0; j < n; j++) {
		in->demand[j] = sizes[eval_rng_below(&r, 8)];
		in->dur[j] = 60 + eval_rng_below(&r, 36000);
		in->weight[j] = 1 + eval_rng_below(&r, 4);
	}
	for (int i = 0; i < 64; i++)
		ncap[i] = 8;
	eval_inst_set_nodes(in, 64, ncap, nty);
	if (eval_inst_finish(in, NULL) != 0)
		SIM_BUG("the bench-eval batch is not a valid problem");
}

/* The four rows of an n-job batch: cnt random candidates scored (five
 * times over when pooled) by each decoder on 1 and on all threads. */
static int bench_size(uint32_t n, unsigned cores, struct sim_error *err)
{
	struct eval_inst in;
	bench_inst(&in, n);
	size_t cnt = n == 100 ? 20000 : 2000;
	uint32_t *perm = xmalloc(cnt * n * sizeof(*perm));
	uint8_t *genes = xmalloc(cnt * n);
	int64_t *sc = xmalloc(cnt * sizeof(*sc));
	int code = 0;
	for (uint32_t c = 0; c < cnt; c++)
		search_random_candidate(&in.p, 1, c, perm + (size_t)c * n,
					genes + (size_t)c * n);
	for (int row = 0; row < 4 && !code; row++) {
		bool nodes = row >= 2;
		unsigned th = row % 2 ? cores : 1;
		struct eval_opts eo = { EVAL_WANT_CPU, th, nodes };
		struct eval *e = eval_new(&in.p, &eo, err);
		if (!e) {
			code = 1;
			break;
		}
		size_t reps = nodes ? 1 : 5, done = 0;
		double t0 = mono_seconds();
		for (size_t k = 0; k < reps; k++, done += cnt)
			eval_score(e, perm, genes, cnt, sc, err);
		double dt = mono_seconds() - t0;
		printf("%-6u %-8s %7u %12zu %14.0f %14.0f\n", n,
		       nodes ? "nodes" : "pooled", th, done, done / dt,
		       done / dt / th);
		eval_free(e);
	}
	free(perm);
	free(genes);
	free(sc);
	eval_inst_release(&in);
	return code;
}

int cli_bench_eval(const struct cli_args *a)
{
	static const uint32_t sizes[] = { 100, 1000 };
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	struct sim_error err = { .msg = "" };
	int code = 0;
	printf("cpu decoders' event queue: %s\n",
	       eval_isa_name(eval_isa_best()));
	printf("%-6s %-8s %7s %12s %14s %14s\n", "jobs", "decode", "threads",
	       "candidates", "evals/s", "evals/s/core");
	for (size_t s = 0; s < ARRAY_SIZE(sizes) && !code; s++)
		code = bench_size(sizes[s], cores > 0 ? (unsigned)cores : 1,
				  &err);
	return cli_report(code, &err);
}
