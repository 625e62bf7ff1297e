/*
 * The batch evaluator: scores many candidates of one batch problem
 * (eval_decode.h) at once and keeps a search's population where it is
 * scored, so a GA generation or an annealing step needs no copy of the
 * candidates or their scores between host and device: the selection of
 * elites and migrants happens there too, and only the best comes back.
 *
 * Backends: "cpu", a pool of threads over all cores (or as many as asked),
 * and "cuda", built when the Makefile finds nvcc and chosen at run time
 * when a device is present; otherwise the CPU backend runs and
 * eval_note() says why.  Every candidate's work depends only on its own
 * index, so results are the same for any thread count and on both.
 */
#ifndef CLUSTERSIM_EVAL_H
#define CLUSTERSIM_EVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "eval/eval_steps.h"
#include "base/util.h"

enum eval_want { EVAL_WANT_AUTO = 0, EVAL_WANT_CPU, EVAL_WANT_CUDA };

struct eval_opts {
	enum eval_want want; /* backend; AUTO = cuda when a device is here */
	unsigned threads;    /* CPU threads; 0 = all online cores */
	bool nodes;          /* node-level decoding (p->nnodes > 0) */
};

struct eval;

/*
 * A new evaluator for p (which must outlive it).  EVAL_WANT_CUDA with no
 * device (or no CUDA build) falls back to the CPU with a note, as AUTO
 * does.  Returns NULL with err set on bad options.
 */
struct eval *eval_new(const struct eval_problem *p, const struct eval_opts *o,
		      struct sim_error *err);
void eval_free(struct eval *e);
/* "cpu" or "cuda". */
const char *eval_backend(const struct eval *e);
/* Why the CPU runs when CUDA was possible ("" when nothing to say). */
const char *eval_note(const struct eval *e);
/* CPU threads in use (0 on cuda). */
unsigned eval_threads(const struct eval *e);
/* Scratch sizes a decoder call needs, for callers decoding themselves. */
struct eval_scratch eval_scratch_new(const struct eval_problem *p);
void eval_scratch_free(struct eval_scratch *s);
/* Decodes one candidate here (not on the backend) with start times. */
int64_t eval_one(const struct eval_problem *p, bool nodes,
		 const uint32_t *perm, const uint8_t *genes, int64_t *start,
		 uint8_t *type);
/* The CPU decoders by the instruction set of their queue (eval_decode.h):
 * can this host run isa, the best it can (what eval_one and the CPU
 * backend use), its name, and eval_one with a given one (which must be
 * usable). */
bool eval_isa_usable(enum eval_isa isa);
enum eval_isa eval_isa_best(void);
const char *eval_isa_name(enum eval_isa isa);
/* The form a decode of p with isa runs: avx512-32 (narrow events) only
 * where p's ends fit (eval_narrow_fits) and not at node level, else
 * avx512; any other isa unchanged. */
enum eval_isa eval_isa_for(const struct eval_problem *p, bool nodes,
			   enum eval_isa isa);
int64_t eval_one_isa(const struct eval_problem *p, bool nodes,
		     enum eval_isa isa, const uint32_t *perm,
		     const uint8_t *genes, int64_t *start, uint8_t *type);

/* Scores count candidates (perms and genes: count x n, genes may be
 * NULL). */
int eval_score(struct eval *e, const uint32_t *perms, const uint8_t *genes,
	       size_t count, int64_t *scores, struct sim_error *err);

/*
 * The resident population.  Only the best comes back from each call (its
 * score and index): the population, its scores and the selection of
 * elites stay where it is scored.
 *
 * eval_pop_set() loads count candidates (genes may be NULL: home types),
 * scores them and starts the annealing chains' bests.  eval_ga_step()
 * breeds a generation: each island's `elite` best are copied, the
 * previous island's best migrates when g->migrate, the rest are bred
 * (eval_ga_source, eval_ga_child).  eval_sa_step() advances every chain
 * once; its best is that of the chains' bests.  eval_sa_reset() sets
 * every chain's current candidate to the best of chain `from`.
 * eval_pop_get() copies candidate idx (its chain best when best) out;
 * eval_pop_scores() copies every current score and chain best (either
 * may be NULL), for tests and for callers that want them all.  Ties
 * between equal scores go to the lower index.
 */
int eval_pop_set(struct eval *e, const uint32_t *perms, const uint8_t *genes,
		 size_t count, struct eval_top *best, struct sim_error *err);
int eval_ga_step(struct eval *e, const struct eval_ga_params *g,
		 struct eval_top *best, struct sim_error *err);
int eval_sa_step(struct eval *e, const struct eval_sa_params *sp,
		 struct eval_top *best, struct sim_error *err);
int eval_sa_reset(struct eval *e, uint32_t from, struct sim_error *err);
int eval_pop_get(struct eval *e, size_t idx, bool best, uint32_t *perm,
		 uint8_t *genes, struct sim_error *err);
int eval_pop_scores(struct eval *e, int64_t *cur, int64_t *best,
		    struct sim_error *err);

/* Is a CUDA device usable?  why gets the reason when not. */
bool eval_cuda_present(char *why, size_t n);

#endif
