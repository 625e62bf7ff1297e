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

/* The runs of steps with at least d units free from `from` on, as far
 * as a walk went (psteps_earlier): each run's start (from at the
 * earliest) and end (the start of the short step after it), and the
 * longest of the runs up to each. */
struct prun {
	sim_time_t start, end, best;
};

struct pruns {
	int64_t d;
	sim_time_t from;
	uint64_t ver;      /* the steps' version it was made from */
	size_t next;       /* the next step to scan */
	bool in;           /* the steps scanned end in a run ... */
	sim_time_t rs;     /* ... that started here */
	struct prun *run;
	size_t n, cap;
};

/* Demands whose runs are kept at once. */
#define PSTEPS_RUNS 8

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
	/* The array's runs by demand, for psteps_earlier: kept while no
	 * step changes (an append at the end leaves them true). */
	struct pruns runs[PSTEPS_RUNS];
	size_t runs_next;  /* the slot to take next */
	uint64_t ver;      /* bumped by every change but an append */
	bool walk_only;    /* psteps_earlier walks the steps each call,
	                      as before the runs were kept (tests) */
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
/* Does the step that holds t - 1 hold at least d free units, or is
 * there a stretch of at least len within [from, t) where every step
 * does (profile_earlier)?  The array only, as psteps_run (*known false
 * with the tree).  The runs of steps with room for d from `from` are
 * kept between calls while the steps do not change, so the promised
 * jobs of one demand that a compression asks about in a row cost one
 * walk, as far as the latest promise, and a search each. */
bool psteps_earlier(struct psteps *s, sim_time_t from, sim_time_t t,
		    int64_t d, sim_time_t len, bool *known);
/* psteps_earlier walks the steps at every call instead (on = true):
 * the reference the kept runs are tested against. */
void psteps_walk_only(struct psteps *s, bool on);
/* Is there a stretch of at least len within [from, until) where every
 * step holds at least d free units?  Answered by the array only (*known
 * false with the tree: the caller searches). */
bool psteps_run(struct psteps *s, sim_time_t from, sim_time_t until,
		int64_t d, sim_time_t len, bool *known);

#endif
