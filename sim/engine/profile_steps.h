/*
 * The step function of the single-pool free-resource profile
 * (profile.c): an array while it has few steps, where a linear scan
 * and a memmove beat any tree, and the balanced tree of profile_tree.c
 * once it grows past a limit (a long queue under conservative
 * backfilling), where they would make every call O(S).  Both give the
 * same answers; profile_steps.c switches within a pass, once.
 */
#ifndef CLUSTERSIM_PROFILE_STEPS_H
#define CLUSTERSIM_PROFILE_STEPS_H

#include "engine/profile_tree.h"

/* Steps beyond which the tree takes over (profile_steps.c says why). */
#define PSTEPS_TREE_AT 2048

struct psteps {
	sim_time_t *t;     /* array: step starts, ascending */
	int64_t *f;        /* array: free units of each step */
	size_t n, cap;     /* array: steps, allocated */
	size_t hint;       /* array: the step last looked up */
	struct ptree tree; /* the steps once they are many */
	bool big;          /* the tree holds them */
	size_t limit;      /* steps beyond which the tree takes over */
	sim_time_t last_t; /* the latest step's start */
	int64_t last_f;    /* its free units */
};

void psteps_free(struct psteps *s);
/* One step, f free units from t on; the tree takes over past limit
 * steps (0: PSTEPS_TREE_AT). */
void psteps_reset(struct psteps *s, sim_time_t t, int64_t f, size_t limit);
/* Drops the steps before the one that holds now and joins neighbours
 * of equal free units (the array only: the tree keeps its steps).  The
 * function is the same from now on, but a bound of a reservation may
 * no longer be a step: add to one with psteps_take. */
void psteps_trim(struct psteps *s, sim_time_t now);
/* As in profile_tree.h. */
int64_t psteps_value_at(struct psteps *s, sim_time_t t);
void psteps_append(struct psteps *s, sim_time_t t, int64_t f);
void psteps_split_at(struct psteps *s, sim_time_t t);
void psteps_add(struct psteps *s, sim_time_t t, sim_time_t end, int64_t v);
/* Makes t and end (unless SIM_TIME_MAX) step starts and adds v to the
 * steps in [t, end): a reservation (v < 0). */
void psteps_take(struct psteps *s, sim_time_t t, sim_time_t end, int64_t v);
bool psteps_next(struct psteps *s, sim_time_t t, sim_time_t until,
		 int64_t d, bool below, sim_time_t *at);
/* Is there a stretch of at least len within [from, until) where every
 * step holds at least d free units?  Answered by the array only (*known
 * false with the tree: the caller searches). */
bool psteps_run(struct psteps *s, sim_time_t from, sim_time_t until,
		int64_t d, sim_time_t len, bool *known);

#endif
