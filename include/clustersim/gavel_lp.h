/*
 * The allocation linear program of Gavel's heterogeneity-aware max-min
 * fairness (Narayanan et al., "Heterogeneity-Aware Cluster Scheduling
 * Policies for Deep Learning Workloads", OSDI 2020, section 4.1), solved
 * with COIN-OR CLP.  policies/gavel.c states the program and uses it; it
 * is public API (implemented in sim/search/gavel_lp.c), apart from the
 * policy, so that tests can solve it alone, because every file of
 * policies/ is registered as a policy, and so that a plug-in can use it
 * as the built-in policy does.
 *
 * The program knows nothing of the simulation: jobs, GPU types, each
 * job's speed on each type, its GPUs and the types' capacities in; the
 * time fractions X[m][t] out.
 */
#ifndef CLUSTERSIM_GAVEL_LP_H
#define CLUSTERSIM_GAVEL_LP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clustersim.h"

/*
 * What the program optimises (Gavel's policy names, the files of its
 * scheduler/policies/ of those names):
 *   max_min_fairness     the smallest throughput normalised by the
 *                        equal share (policies/gavel.c states it)
 *   finish_time_fairness Themis' finish-time fairness as a program: the
 *                        largest expected rho = (elapsed + remaining /
 *                        throughput) / (isolated time so far + remaining
 *                        / equal share) made smallest
 *   min_total_duration   the time T by which every active job can finish
 *                        (throughput >= remaining / T) made smallest
 */
enum gavel_objective {
	GAVEL_MAX_MIN_FAIRNESS = 0,
	GAVEL_FINISH_TIME_FAIRNESS,
	GAVEL_MIN_TOTAL_DURATION,
	GAVEL_NOBJECTIVES
};

/* One allocation problem; arrays are the caller's. */
struct gavel_problem {
	size_t jobs;          /* M */
	size_t types;         /* T */
	const double *rate;   /* [m * T + t]: job m's work per second on
	                         type t; <= 0 or not finite: cannot run there */
	const uint32_t *gpus; /* [m]: GPUs the job takes while it runs */
	const uint32_t *count;/* [m]: jobs row m stands for, all alike
	                         (NULL: one each); they count in N and
	                         share x[m] */
	const uint64_t *cap;  /* [t]: GPUs of type t */
	bool throughput;      /* second stage: most total throughput that
	                         keeps the max-min value */
	/* Appended for the other objectives (zero: max-min fairness).  Rows
	 * are merged only under max_min_fairness: the others give each job
	 * its own row (count must be NULL). */
	enum gavel_objective objective;
	const double *remaining; /* [m]: work left, seconds at rate 1
	                            (finish_time_fairness,
	                            min_total_duration) */
	const double *elapsed;   /* [m]: seconds since its submit
	                            (finish_time_fairness) */
	const double *iso_done;  /* [m]: its progress so far in seconds of
	                            its equal share (finish_time_fairness) */
	double *share;           /* [m], out, or NULL: the work per second
	                            the job's equal share gives (its isolated
	                            throughput); 0 where it is left out */
};

/* X is quantised to multiples of this (CLP's tolerances are 1e-7), so
 * that allocations equal by hand compare equal. */
#define GAVEL_LP_QUANTUM 1e-6

struct gavel_lp;

/* A solver, its CLP model and scratch reused from one solve to the next. */
struct gavel_lp *gavel_lp_new(void);
void gavel_lp_free(struct gavel_lp *lp);

/*
 * Solves p.  Writes x[m * T + t] (0 for a type the job cannot use, and
 * for every type of a job that can use none) and *z: under
 * max_min_fairness the max-min value, the smallest normalised
 * throughput, 1 meaning what an equal share gives; under
 * finish_time_fairness the smallest largest expected rho; under
 * min_total_duration the smallest T, seconds.  Returns 0, or -SIM_ESTATE
 * with a message when CLP does not reach an optimum (it always should:
 * X = 0 is feasible and z <= max of any job's normalised throughput).
 */
int gavel_lp_solve(struct gavel_lp *lp, const struct gavel_problem *p,
		   double *x, double *z, struct sim_error *err);

/* How many CLP solves (stage one and two each count) lp has made. */
uint64_t gavel_lp_solves(const struct gavel_lp *lp);

#endif
