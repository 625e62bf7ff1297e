/*
 * `clustersim optimize`: schedules one batch of a workload offline with
 * the searches (search.h) and writes the schedules, scores, the lower
 * bound and the convergence of each method.  The experiment's "optimize"
 * object (experiments/README.md) says which jobs, which objective and
 * which methods with what budget.
 */
#ifndef CLUSTERSIM_OPTIMIZE_H
#define CLUSTERSIM_OPTIMIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "clustersim/clustersim.h"

/* The "optimize" object of an experiment file. */
struct optimize_spec {
	bool given;           /* the file has one */
	uint64_t jobs;        /* the first N jobs of the workload */
	bool releases;        /* keep submit times as releases (else all 0) */
	int objective;        /* enum eval_objective */
	uint64_t mix_makespan;/* weights of "mix" */
	uint64_t mix_twct;
	uint32_t methods;     /* bit i: optimize_methods[i] */
	uint64_t evals;       /* budget of ga and sa, in evaluations */
	double wall_s;        /* opt-in clock budget (not reproducible) */
	int backend;          /* enum eval_want */
	uint32_t threads;     /* 0 = all cores */
	bool nodes;           /* node-level decoding */
	uint32_t pop;         /* ga population */
	uint32_t islands;     /* ga islands */
	uint32_t chains;      /* sa chains */
	double ilp_time_s;    /* CBC time limit */
	uint32_t ilp_slots;   /* time slots of the ILP */
};

/* Method names, in bit order. */
extern const char *const optimize_methods[4];

struct exp_ctx;
struct cJSON;
/* Reads the "optimize" object (v not NULL) at the current JSON path. */
int exp_parse_optimize(struct exp_ctx *c, const struct cJSON *v,
		       struct optimize_spec *o);

/* The command: returns an exit code (0, 1 failed, 2 bad input). */
int optimize_main(const char *file, const char *outdir, bool quiet,
		  bool no_plots, FILE *out, struct sim_error *err);
/* `clustersim bench-eval`: evaluations/s table (make bench). */
int optimize_bench_eval(FILE *out, struct sim_error *err);

#endif
