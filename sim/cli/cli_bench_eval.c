/*
 * `clustersim bench-eval`: evaluations per second of the batch
 * evaluator's CPU backend (eval/eval.h) on synthetic 100- and 1,000-job
 * batches on 64 nodes x 8 GPUs of one type, pooled and node-level, on one
 * thread and on all cores.  make bench prints it; docs/gpu.md and
 * docs/validation.md keep the figures.
 *
 * An evaluation is the decode of one candidate (a permutation of the
 * batch's jobs) to its score.  Pooled: the type's 512 GPUs are one pool
 * (a job waits for enough free units, not for room on a node); nodes:
 * each job is placed on nodes by best fit.  Every row is timed the same
 * way: a warm-up pass over its candidates, then BENCH_EVAL_ROUNDS rounds
 * in which each of the batch's four rows makes one timed pass (rows
 * alternated, so that a busy spell of the machine slows all alike), and
 * the least pass time is kept: wall time for evals/s, the CPU time of
 * the process (every thread's) for evals/s/core, which time spent
 * waiting for a core shared with other work does not count.  One-thread
 * rows also make a pass in slices and report the fastest slice (wall
 * time): on a shared machine that is the nearest to what the core does
 * undisturbed.  Every candidate of a pass
 * is a different one: scoring the same few candidates over and over lets
 * the branch predictor learn them and reads about 40% high.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/util.h"
#include "eval/eval_inst.h"
#include "search/search.h"

#define BENCH_EVAL_ROUNDS 3

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

/* One batch's candidates and its four rows' timings. */
struct bench_batch {
	struct eval_inst in;
	size_t cnt, slice;   /* candidates, and of a timed slice */
	uint32_t *perm;      /* [cnt * n] */
	uint8_t *genes;      /* [cnt * n] */
	int64_t *sc;         /* [cnt] */
	struct eval *e[4];   /* pooled 1, pooled all, nodes 1, nodes all */
	unsigned th[4];      /* threads of each row */
	double pass[4];      /* least pass time */
	double cpu[4];       /* least pass CPU time, all threads */
	double slice_s[4];   /* least slice time (one-thread rows) */
};

/* CPU seconds of the process so far, every thread's. */
static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One timed pass of row r: the whole batch in one call, then (one
 * thread) the batch again in slices. */
static int bench_pass(struct bench_batch *b, int r, struct sim_error *err)
{
	uint32_t n = b->in.p.n;
	double c0 = cpu_seconds(), t0 = mono_seconds();
	if (eval_score(b->e[r], b->perm, b->genes, b->cnt, b->sc, err) != 0)
		return -1;
	double dt = mono_seconds() - t0, dc = cpu_seconds() - c0;
	b->pass[r] = dt < b->pass[r] ? dt : b->pass[r];
	b->cpu[r] = dc < b->cpu[r] ? dc : b->cpu[r];
	if (b->th[r] != 1)
		return 0;
	for (size_t c = 0; c + b->slice <= b->cnt; c += b->slice) {
		t0 = mono_seconds();
		if (eval_score(b->e[r], b->perm + c * n, b->genes + c * n,
			       b->slice, b->sc, err) != 0)
			return -1;
		dt = mono_seconds() - t0;
		if (dt < b->slice_s[r])
			b->slice_s[r] = dt;
	}
	return 0;
}

static void bench_print(const struct bench_batch *b, int r)
{
	bool nodes = r >= 2;
	double rate = (double)b->cnt / b->pass[r];
	double core = (double)b->cnt / b->cpu[r];
	char slice[32] = "-";
	if (b->th[r] == 1)
		snprintf(slice, sizeof(slice), "%.0f",
			 (double)b->slice / b->slice_s[r]);
	printf("%-6u %-8s %-10s %7u %10zu %12.0f %13.0f %12s\n", b->in.p.n,
	       nodes ? "nodes" : "pooled",
	       eval_isa_name(eval_isa_for(&b->in.p, nodes, eval_isa_best())),
	       b->th[r], b->cnt, rate, core, slice);
}

/* The four rows of an n-job batch, alternated over the rounds. */
static int bench_size(uint32_t n, unsigned cores, struct sim_error *err)
{
	struct bench_batch b = { .cnt = n == 100 ? 50000 : 4000,
				 .slice = n == 100 ? 1000 : 100 };
	int code = 0;
	bench_inst(&b.in, n);
	b.perm = xmalloc(b.cnt * n * sizeof(*b.perm));
	b.genes = xmalloc(b.cnt * n);
	b.sc = xmalloc(b.cnt * sizeof(*b.sc));
	for (uint32_t c = 0; c < b.cnt; c++)
		search_random_candidate(&b.in.p, 1, c, b.perm + (size_t)c * n,
					b.genes + (size_t)c * n);
	for (int r = 0; r < 4 && !code; r++) {
		struct eval_opts eo = { EVAL_WANT_CPU, r % 2 ? cores : 1,
					r >= 2 };
		b.th[r] = eo.threads;
		b.pass[r] = b.cpu[r] = b.slice_s[r] = 1e30;
		b.e[r] = eval_new(&b.in.p, &eo, err);
		/* The warm-up pass. */
		if (!b.e[r] || eval_score(b.e[r], b.perm, b.genes, b.cnt, b.sc,
					  err) != 0)
			code = 1;
	}
	for (int k = 0; k < BENCH_EVAL_ROUNDS && !code; k++)
		for (int r = 0; r < 4 && !code; r++)
			code = bench_pass(&b, r, err) != 0;
	for (int r = 0; r < 4 && !code; r++)
		bench_print(&b, r);
	for (int r = 0; r < 4; r++)
		eval_free(b.e[r]);
	free(b.perm);
	free(b.genes);
	free(b.sc);
	eval_inst_release(&b.in);
	return code;
}

int cli_bench_eval(const struct cli_args *a)
{
	static const uint32_t sizes[] = { 100, 1000 };
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	struct sim_error err = { .msg = "" };
	int code = 0;
	(void)a;
	printf("batch evaluator, one type of 512 GPUs on 64 nodes x 8; "
	       "pooled: the type's GPUs as one pool, nodes: best fit on "
	       "nodes\n");
	printf("each row: the least of %d passes over all its candidates "
	       "(warm, rows alternated); evals/s: wall time,\nevals/s/core: "
	       "CPU time of all threads; slice/s: the fastest slice of 1,000 "
	       "(100 jobs) or 100\n(1,000 jobs) candidates, one thread, "
	       "wall time\n", BENCH_EVAL_ROUNDS);
	printf("%-6s %-8s %-10s %7s %10s %12s %13s %12s\n", "jobs", "decode",
	       "queue", "threads", "candidates", "evals/s", "evals/s/core",
	       "slice/s");
	for (size_t s = 0; s < ARRAY_SIZE(sizes) && !code; s++)
		code = bench_size(sizes[s], cores > 0 ? (unsigned)cores : 1,
				  &err);
	return cli_report(code, &err);
}
