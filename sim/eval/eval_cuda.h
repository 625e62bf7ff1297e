/*
 * The CUDA evaluator backend (eval_cuda.cu), as plain C calls for
 * eval.c.  Built only when the Makefile finds nvcc (CLUSTERSIM_HAVE_CUDA);
 * the same kernels run eval_decode.h and eval_steps.h on the device, with
 * the population resident there.  Functions return 0 or -1 with a
 * message in why (why_n bytes).
 */
#ifndef CLUSTERSIM_EVAL_CUDA_H
#define CLUSTERSIM_EVAL_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "eval/eval_steps.h"

#ifdef __cplusplus
extern "C" {
#endif

struct eval_cuda;

/* 1 when a device is usable, else 0 with the reason in why. */
int eval_cuda_probe(char *why, size_t why_n);
struct eval_cuda *eval_cuda_new(const struct eval_problem *p, int nodes,
				char *why, size_t why_n);
void eval_cuda_free(struct eval_cuda *c);
int eval_cuda_score(struct eval_cuda *c, const uint32_t *perms,
		    const uint8_t *genes, size_t count, int64_t *scores,
		    char *why, size_t why_n);
int eval_cuda_pop_set(struct eval_cuda *c, const uint32_t *perms,
		      const uint8_t *genes, size_t count, char *why,
		      size_t why_n);
/* A generation bred from the parents and the island bests that
 * eval_cuda_tops last left on the device. */
int eval_cuda_ga_step(struct eval_cuda *c, const struct eval_ga_params *g,
		      char *why, size_t why_n);
int eval_cuda_sa_step(struct eval_cuda *c, const struct eval_sa_params *sp,
		      char *why, size_t why_n);
int eval_cuda_sa_reset(struct eval_cuda *c, uint32_t from, char *why,
		       size_t why_n);
/* The keep best of each of groups equal groups of the current scores
 * (the chains' bests when of_best), left on the device for the next
 * generation and copied to tops (groups x keep). */
int eval_cuda_tops(struct eval_cuda *c, int of_best, uint32_t groups,
		   uint32_t keep, struct eval_top *tops, char *why,
		   size_t why_n);
int eval_cuda_pop_scores(struct eval_cuda *c, int64_t *cur, int64_t *best,
			 char *why, size_t why_n);
int eval_cuda_pop_get(struct eval_cuda *c, size_t idx, int best,
		      uint32_t *perm, uint8_t *genes, char *why,
		      size_t why_n);

#ifdef __cplusplus
}
#endif

#endif
