/*
 * The steps of the single-pool free-resource profile (profile.c) as a
 * balanced search tree (profile_tree.c): a treap keyed by step start
 * time, each node one step and its free units, each subtree its least
 * and most free units and an add still owed to its children.  Every call
 * is O(log S) expected for S steps, where the array it replaces made
 * inserting a step and finding the first short one O(S).
 */
#ifndef CLUSTERSIM_PROFILE_TREE_H
#define CLUSTERSIM_PROFILE_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/sim.h"

/* One step: a node of the treap. */
struct ptree_node {
	sim_time_t t;   /* the step's start */
	int64_t f;      /* its free units, less the owed adds above it */
	int64_t lo, hi; /* least, most free in the subtree (same basis) */
	int64_t owed;   /* added to this subtree, not yet to its children */
	uint32_t l, r;  /* children; 0 = none */
	uint32_t pri;   /* heap priority, drawn at random */
};

/* The tree.  Node 0 is the empty child. */
struct ptree {
	struct ptree_node *node; /* node[1..n) in use */
	size_t n, cap;           /* nodes used (with node 0), allocated */
	uint32_t root;
	uint64_t rng;            /* priorities */
	sim_time_t last_t;       /* the latest step's start */
	int64_t last_f;          /* its free units */
};

void ptree_free(struct ptree *tr);
/* One step: free units f from t on. */
void ptree_reset(struct ptree *tr, sim_time_t t, int64_t f);
/* The free units of the step that holds t (t >= the first step's start). */
int64_t ptree_value_at(const struct ptree *tr, sim_time_t t);
/* A new latest step: f free units from t (after every step) on. */
void ptree_append(struct ptree *tr, sim_time_t t, int64_t f);
/* Makes t a step start (t >= the first step's start); the new step
 * takes the free units of the one it splits. */
void ptree_split_at(struct ptree *tr, sim_time_t t);
/* Adds v to every step that starts in [t, end). */
void ptree_add(struct ptree *tr, sim_time_t t, sim_time_t end, int64_t v);
/* The first step starting in (t, until) that holds fewer than d free
 * units (below = true) or at least d (below = false); false when none. */
bool ptree_next(const struct ptree *tr, sim_time_t t, sim_time_t until,
		int64_t d, bool below, sim_time_t *at);

#endif
