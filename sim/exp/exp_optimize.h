/*
 * The "optimize" section of an experiment file: the batch, the methods
 * and their budgets (sim/exp/exp_optimize.c parses it).
 */
#ifndef CLUSTERSIM_EXP_OPTIMIZE_H
#define CLUSTERSIM_EXP_OPTIMIZE_H

#include <stdbool.h>
#include <stdint.h>

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
extern const char *const optimize_objectives[]; /* by enum eval_objective */

struct exp_ctx;
struct cJSON;
/* Reads the "optimize" object (v not NULL) at the current JSON path. */
int exp_parse_optimize(struct exp_ctx *c, const struct cJSON *v,
		       struct optimize_spec *o);

#endif
