/*
 * Searches over the candidates of a batch problem (eval_decode.h):
 * greedy list scheduling, a genetic algorithm, simulated annealing (both
 * on the batch evaluator, eval.h) and a time-indexed ILP solved by COIN-OR
 * CBC.  Each returns the best candidate found, its exact score, and a
 * convergence trace (best score over evaluations and wall time).
 *
 * Reproducibility: with an evaluation budget the same seed gives the same
 * result on any thread count and backend.  A wall-clock budget (wall_s)
 * and the ILP's time limit are opt-ins; a result that stopped on time is
 * marked not reproducible.
 */
#ifndef CLUSTERSIM_SEARCH_H
#define CLUSTERSIM_SEARCH_H

#include <stdbool.h>

#include "eval/eval.h"

/* Parameters of every search (each uses its own). */
struct search_opts {
	uint64_t seed;         /* Philox key */
	uint64_t evals;        /* budget in evaluations */
	double wall_s;         /* wall-clock budget, 0 = none */
	struct eval_opts eval; /* backend, threads, node-level decoding */
	/* ga */
	uint32_t pop;          /* population, all islands */
	uint32_t islands;      /* islands (divides pop) */
	uint32_t tournament;   /* tournament size */
	uint32_t elite;        /* elites kept per island (at most
	                          EVAL_MAX_KEEP, 32) */
	uint32_t migrate;      /* generations between migrations, 0 = never */
	double p_cross;        /* crossover probability */
	double p_swap;         /* swap mutation probability */
	double p_insert;       /* insert mutation probability */
	double p_gene;         /* placement gene mutation probability */
	/* sa */
	uint32_t chains;       /* annealing chains */
	double t0;             /* start temperature, relative to score / n */
	double t_end;          /* end temperature, relative to t0 */
	uint32_t restart;      /* steps between restarts from the best, 0 =
	                          never */
	/* ilp */
	double time_limit_s;   /* CBC's time limit */
	uint32_t max_slots;    /* time slots of the time-indexed model */
	uint64_t max_vars;     /* refuse models larger than this */
	uint64_t max_nodes;    /* CBC's branch-and-bound node limit, 0 =
	                          none (deterministic, unlike the clock) */
};

/* Defaults for every field. */
void search_opts_default(struct search_opts *o);

/* One point of the convergence trace. */
struct search_point {
	uint64_t evals;   /* evaluations so far */
	double wall_s;    /* seconds since the search started */
	int64_t best;     /* best score so far */
};

struct search_result {
	uint32_t *perm;       /* [n] the best candidate */
	uint8_t *genes;       /* [n] its types */
	int64_t score;        /* its exact score */
	uint64_t evals;       /* evaluations spent */
	double wall_s;        /* seconds spent */
	bool reproducible;    /* false when it stopped on a clock */
	struct search_point *trace; /* convergence */
	size_t ntrace, trace_cap;
	int64_t bound;        /* a proven lower bound from the search (the
	                         ILP's, when exact), else -1 */
	double gap;           /* ILP: (score - bound) / score; else -1 */
	char backend[16];     /* "cpu", "cuda", "cbc", "host" */
	char note[256];       /* anything the output should say */
};

void search_result_init(struct search_result *r, uint32_t n);
void search_result_release(struct search_result *r);
/* Records a better candidate (copied) and a trace point. */
void search_result_offer(struct search_result *r, uint32_t n,
			 const uint32_t *perm, const uint8_t *genes,
			 int64_t score);
void search_trace(struct search_result *r, uint64_t evals, double wall_s);

/* A random permutation and genes for candidate c (Philox). */
void search_random_candidate(const struct eval_problem *p, uint64_t seed,
			     uint32_t c, uint32_t *perm, uint8_t *genes);

/*
 * greedy: jobs in index order and in order of work over weight (Smith's
 * rule), each placed on the type where it starts soonest (ties: least
 * leftover capacity, then lowest index); the better of the two.
 */
int search_greedy(const struct eval_problem *p, bool nodes,
		  struct search_result *r, struct sim_error *err);
/* ga and sa start from `start` (a result, e.g. greedy's) when not NULL. */
int search_ga(const struct eval_problem *p, const struct search_opts *o,
	      const struct search_result *start, struct search_result *r,
	      struct sim_error *err);
int search_sa(const struct eval_problem *p, const struct search_opts *o,
	      const struct search_result *start, struct search_result *r,
	      struct sim_error *err);
/*
 * ilp: the time-indexed model (see search_ilp.c) warm-started from
 * `start`; its solution is turned into a permutation by start time and
 * decoded exactly (pooled).  Sets bound and gap.
 */
int search_ilp(const struct eval_problem *p, const struct search_opts *o,
	       const struct search_result *start, struct search_result *r,
	       struct sim_error *err);

#endif
