/*
 * Online search-based scheduling: what the policies ga, sa and ilp
 * (policies/ga.c, sa.c, ilp.c) share.  Their side of it is public
 * (clustersim/online.h); the batch built here is the engine's.  At a
 * scheduling point the engine state seen through policy.h becomes a
 * batch problem (eval_inst.h) -
 * the first `window` pending jobs, time 0 = now, whole seconds - which
 * a search re-plans within a bounded budget; the jobs the plan starts
 * at time 0 start now, the others wait for the next scheduling point.
 *
 * Also the run time of work at a speed in the problem's whole seconds,
 * which the offline builder (optimize.c) uses too: online and offline
 * plans scale a job's estimate by the same speeds (speed_class_rate,
 * which sim_job_type_rate gives policies) and round alike.
 */
#ifndef CLUSTERSIM_SEARCH_ONLINE_H
#define CLUSTERSIM_SEARCH_ONLINE_H

#include "clustersim/online.h"
#include "clustersim/policy.h"
#include "eval/eval_inst.h"

/* ---- run times (shared with optimize.c) -------------------------------- */

/* Whole seconds, rounded up and at least 1, that `work` microseconds of
 * work at reference speed take at `rate` (> 0; else rate 1). */
int64_t online_run_secs(sim_time_t work, double rate);

/* ---- the batch seen from a scheduling point --------------------------- */

struct online_batch {
	struct eval_inst in;     /* the problem; time 0 = now, in seconds */
	const struct job **job;  /* [in.p.n] the pending job of each
	                            problem job, in queue order */
	size_t job_cap;          /* room in job */
	const struct job **out;  /* pending jobs in the window that fit no
	                            single type (they start when they fit) */
	size_t nout, out_cap;
	bool typed;              /* the types are the cluster's GPU types
	                            (else one pool of allocation units) */
	bool can_start;          /* some job could start at time 0 */
};

/*
 * Builds the problem at sim's now: the first `window` pending jobs in
 * queue order (those that fit a type; the others go to b->out), each
 * with its remaining estimate in whole seconds rounded up, scaled on each
 * GPU type by sim_job_type_rate and EVAL_NOT_ALLOWED where its gpu_type
 * constraint or size forbids it; release 0, weight 1.  The running jobs
 * hold their units until their expected ends (rounded up, at least 1 s).
 * Types: the cluster's GPU types when it has 2 .. EVAL_MAX_TYPES of them,
 * else one pool of the allocation unit (sim_demand).  b is reset first
 * (it keeps its buffers); 0 or a negative code with err set.
 */
int online_build(struct sim *sim, uint32_t window, enum eval_objective obj,
		 struct online_batch *b, struct sim_error *err);
void online_batch_release(struct online_batch *b);

#endif
