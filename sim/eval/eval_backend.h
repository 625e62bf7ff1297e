/*
 * The evaluator's backends (eval.h): what a place that scores candidates
 * must do, as one table of calls that the CPU backend (eval_cpu.c, a pool
 * of threads) and the CUDA backend (eval_cuda.cu, built when nvcc is
 * found) both fill in.  eval.c picks one when an evaluator is made and
 * then only calls through its table, so the front checks its arguments
 * and keeps the bookkeeping once, and a new backend is one new table.
 *
 * Contract: a backend holds the problem it was opened for (not owned: it
 * outlives the backend) and, after pop_set, a resident population with
 * its scores, the annealing chains' bests (one chain per candidate) and
 * the island bests that its last tops call found.  Every call returns 0,
 * or -1 with a message in why (why_n bytes) and nothing promised of the
 * population; eval.c has checked the arguments the comment on eval.h
 * names, so a backend's own checks are for callers that use the table
 * directly (bench/gpu_check.cu).  Every candidate's work depends only on
 * its index, so every backend gives the same numbers.
 *
 * Plain C types only: eval_cuda.cu includes this from C++.
 */
#ifndef CLUSTERSIM_EVAL_BACKEND_H
#define CLUSTERSIM_EVAL_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "eval/eval_steps.h"

#ifdef __cplusplus
extern "C" {
#endif

struct eval_backend_ops {
	/* "cpu", "cuda": eval_backend() and the prefix of its errors. */
	const char *name;
	/* 1 when the backend can run here, else 0 with the reason in why. */
	int (*probe)(char *why, size_t why_n);
	/* The backend's state for p, decoding node-level when nodes, on
	 * threads CPU threads (0: all cores; a device backend ignores it);
	 * NULL with the reason in why. */
	void *(*open)(const struct eval_problem *p, int nodes,
		      unsigned threads, char *why, size_t why_n);
	/* Frees what open made; accepts NULL. */
	void (*close)(void *b);
	/* CPU threads in use (0 for a device). */
	unsigned (*threads)(const void *b);
	/* Scores count candidates given here (count x n; genes may be
	 * NULL: home types) into scores, leaving the population alone. */
	int (*score)(void *b, const uint32_t *perms, const uint8_t *genes,
		     size_t count, int64_t *scores, char *why, size_t why_n);
	/* Loads count candidates (genes may be NULL: home types) as the
	 * population, scores them and makes them the chains' bests. */
	int (*pop_set)(void *b, const uint32_t *perms, const uint8_t *genes,
		       size_t count, char *why, size_t why_n);
	/* The keep best of each of groups equal groups of the current
	 * scores (of the chains' bests when of_best), in order, kept for
	 * the next ga_step and copied to tops (groups x keep). */
	int (*tops)(void *b, int of_best, uint32_t groups, uint32_t keep,
		    struct eval_top *tops, char *why, size_t why_n);
	/* A generation bred (eval_ga_child) from the population and the
	 * island bests of the last tops call, which must be of g's islands
	 * and eval_ga_keep(g); the children become the population. */
	int (*ga_step)(void *b, const struct eval_ga_params *g, char *why,
		       size_t why_n);
	/* One annealing move of every chain (eval_sa_chain). */
	int (*sa_step)(void *b, const struct eval_sa_params *sp, char *why,
		       size_t why_n);
	/* Every chain's current candidate becomes chain from's best. */
	int (*sa_reset)(void *b, uint32_t from, char *why, size_t why_n);
	/* Copies candidate idx (its chain's best when best) out; genes may
	 * be NULL. */
	int (*pop_get)(void *b, size_t idx, int best, uint32_t *perm,
		       uint8_t *genes, char *why, size_t why_n);
	/* Copies every current score and chain best (either may be NULL). */
	int (*pop_scores)(void *b, int64_t *cur, int64_t *best, char *why,
			  size_t why_n);
};

/* The pool of CPU threads (eval_cpu.c); always built. */
extern const struct eval_backend_ops eval_cpu_ops;
/* The CUDA device (eval_cuda.cu); built when CLUSTERSIM_HAVE_CUDA. */
extern const struct eval_backend_ops eval_cuda_ops;

#ifdef __cplusplus
}
#endif

#endif
