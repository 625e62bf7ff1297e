/*
 * Online search-based scheduling, the policy side: what the built-in
 * policies ga, sa and ilp (policies/ga.c, sa.c, ilp.c) are made of, and a
 * plug-in may be made of too.  At each scheduling point the engine turns
 * the first `window` pending jobs and the running ones into a batch
 * problem (time 0 = now, whole seconds), re-plans it with a genetic
 * algorithm, simulated annealing or an ILP within a bounded budget, and
 * starts the jobs the plan starts at time 0; the others wait for the next
 * scheduling point.  Implemented by the engine (sim/search/search_online.c).
 *
 * A policy declares its parameters with the rows below (the callbacks
 * read them by these names) and sets its callbacks to the online_*()
 * functions, e.g.
 *
 *   static int ga_init(struct sim *s, void **st, struct sim_error *e)
 *   { return online_init(s, ONLINE_GA, st, e); }
 *   CLUSTERSIM_POLICY(ga, .params = ga_params, .init = ga_init,
 *           .fini = online_fini, .job_submitted = online_submitted,
 *           .job_finished = online_finished, .schedule = online_schedule);
 */
#ifndef CLUSTERSIM_ONLINE_H
#define CLUSTERSIM_ONLINE_H

#include "policy.h"

/* ---- parameters ---------------------------------------------------- */

/* The first rows of every online search policy's parameter table: the
 * window planned and the enumeration bound (defaults as strings), and
 * the objective. */
#define ONLINE_PARAMS(window, exact_max)                                      \
	{ "window", PARAM_INT, window,                                        \
	  "pending jobs planned, from the head" },                            \
	{ "exact_max", PARAM_INT, exact_max,                                  \
	  "batches of at most this many candidates are enumerated" },         \
	{ "objective", PARAM_STRING, "twct",                                  \
	  "\"twct\", \"jct\" or \"makespan\"" }

/* The rows the metaheuristics (ga, sa) add: their budget and threads. */
#define ONLINE_SEARCH_PARAMS                                                  \
	{ "evals", PARAM_INT, "2000", "evaluations per plan" },              \
	{ "threads", PARAM_INT, "1", "evaluator threads, 0 = all cores" }

/* ---- the callbacks ------------------------------------------------------ */

enum online_method { ONLINE_GA = 0, ONLINE_SA, ONLINE_ILP };

/* init() of policy ga, sa or ilp: reads the parameters the policy file
 * declares: window and objective; ga and sa evals and threads too). */
int online_init(struct sim *sim, enum online_method m, void **state,
		struct sim_error *err);
void online_fini(struct sim *sim, void *state);
/* job_submitted (into the window) and job_finished: the next call
 * re-plans. */
void online_submitted(struct sim *sim, void *state, const struct job *job);
void online_finished(struct sim *sim, void *state, const struct job *job);
/* schedule(): re-plan when something changed, start what starts now. */
void online_schedule(struct sim *sim, void *state);

#endif
