/*
 * Building a batch problem (eval_decode.h) that owns its arrays, and its
 * combinatorial lower bound.  The offline optimizer fills one from a
 * trace and the cluster; the online policies from the pending queue and
 * the running jobs.
 */
#ifndef CLUSTERSIM_EVAL_INST_H
#define CLUSTERSIM_EVAL_INST_H

#include "eval/eval_decode.h"
#include "base/util.h"

/* A problem with its arrays. */
struct eval_inst {
	struct eval_problem p; /* points into the arrays below */
	uint32_t *demand;      /* [n] */
	int64_t *dur;          /* [n * ntypes], EVAL_NOT_ALLOWED = not there */
	int64_t *release;      /* [n] */
	int64_t *weight;       /* [n], 1 unless set */
	uint8_t *home;         /* [n], set by eval_inst_finish */
	uint8_t *run_type;     /* running jobs, [nrun] each */
	uint32_t *run_units;
	int64_t *run_end;
	uint32_t *run_node;
	size_t run_cap;        /* room in the run arrays */
	uint32_t *node_cap;    /* [nnodes] */
	uint8_t *node_type;    /* [nnodes] */
	uint32_t *node_off;    /* [n + 1] */
};

/* n jobs, ntypes types with cap[] units each; every job is allowed on no
 * type until dur is filled, weight 1, release 0. */
void eval_inst_init(struct eval_inst *in, uint32_t n, uint32_t ntypes,
		    const int64_t *cap, enum eval_objective obj);
void eval_inst_release(struct eval_inst *in);
/* A running job holding units of type t until end (on node, when the
 * problem has nodes; else 0). */
void eval_inst_add_running(struct eval_inst *in, uint32_t t, uint32_t units,
			   int64_t end, uint32_t node);
/* Node-level data: nnodes nodes of cap units and a type each (copied). */
void eval_inst_set_nodes(struct eval_inst *in, uint32_t nnodes,
			 const uint32_t *cap, const uint8_t *type);
/*
 * Checks the problem and sets the home types (the allowed type of most
 * capacity, ties by lowest index) and node slots.  A job allowed nowhere,
 * larger than every type it may use, or a running job over capacity is an
 * error naming the job's index; so are runs long enough that an end could
 * pass what the decoder holds (eval_end_limit).
 */
int eval_inst_finish(struct eval_inst *in, struct sim_error *err);

/*
 * A lower bound on the score of any schedule: for makespan the larger of
 * the longest release + run and the total work (with the running jobs'
 * remaining work) over the total capacity; for completion times the
 * larger of sum w (r + p) and Smith's rule on one machine of the whole
 * capacity (every job's work divided by it); the mix adds its parts.
 */
int64_t eval_lower_bound(const struct eval_problem *p);

#endif
