/*
 * The steps of the single-pool free-resource profile as a treap
 * (profile_tree.h): a binary search tree by step start time that is a
 * heap by random priority, so its depth is O(log S) expected whatever
 * order the steps come in.  Backfilling inserts steps anywhere (a
 * reservation's two ends), adds to a run of steps (a reservation takes
 * its demand from every step it spans) and asks for the first step
 * after a time that is short of a demand, or that is not; each is one or
 * two walks from the root.
 *
 * Each node keeps its subtree's least and most free units, so a walk
 * prunes a subtree that cannot hold the answer; and an add owed to its
 * children, so an add to a run of steps touches O(log S) nodes: the run
 * is cut out (split by key), the add marked on its root, and the tree
 * joined again (merge).  A node's values are true once the owed adds of
 * its ancestors are added; read-only walks sum them on the way down.
 *
 * The shape depends on the priorities only, never the answers: every
 * answer is a function of the step function alone.
 */
#include <stdlib.h>

#include "engine/profile_tree.h"
#include "base/util.h"

#define PT_NONE INT64_MAX /* least free of the empty subtree */

void ptree_free(struct ptree *tr)
{
	free(tr->node);
	tr->node = NULL;
	tr->n = tr->cap = 0;
}

static struct ptree_node *N(const struct ptree *tr, uint32_t x)
{
	return &tr->node[x];
}

static uint32_t new_node(struct ptree *tr, sim_time_t t, int64_t f)
{
	xgrow(&tr->node, &tr->cap, tr->n + 1, sizeof(*tr->node));
	uint32_t x = (uint32_t)tr->n++;
	/* xorshift64: any sequence of priorities gives a valid treap */
	tr->rng ^= tr->rng << 13;
	tr->rng ^= tr->rng >> 7;
	tr->rng ^= tr->rng << 17;
	tr->node[x] = (struct ptree_node){ .t = t, .f = f, .lo = f, .hi = f,
					   .pri = (uint32_t)(tr->rng >> 32) };
	return x;
}

void ptree_reset(struct ptree *tr, sim_time_t t, int64_t f)
{
	xgrow(&tr->node, &tr->cap, 2, sizeof(*tr->node));
	tr->node[0] = (struct ptree_node){ .lo = PT_NONE, .hi = -PT_NONE };
	tr->n = 1;
	tr->rng = 0x9e3779b97f4a7c15ull;
	tr->root = new_node(tr, t, f);
	tr->last_t = t;
	tr->last_f = f;
}

static void apply(struct ptree *tr, uint32_t x, int64_t v)
{
	if (!x)
		return;
	struct ptree_node *a = N(tr, x);
	a->f += v;
	a->lo += v;
	a->hi += v;
	a->owed += v;
}

static void push(struct ptree *tr, uint32_t x)
{
	struct ptree_node *a = N(tr, x);
	if (a->owed) {
		apply(tr, a->l, a->owed);
		apply(tr, a->r, a->owed);
		a->owed = 0;
	}
}

static void pull(struct ptree *tr, uint32_t x)
{
	struct ptree_node *a = N(tr, x);
	const struct ptree_node *l = N(tr, a->l), *r = N(tr, a->r);
	int64_t lo = a->f, hi = a->f;
	if (l->lo < lo)
		lo = l->lo;
	if (r->lo < lo)
		lo = r->lo;
	if (l->hi > hi)
		hi = l->hi;
	if (r->hi > hi)
		hi = r->hi;
	a->lo = lo;
	a->hi = hi;
}

/* Cuts subtree x into the steps before key (*a) and the others (*b). */
static void split(struct ptree *tr, uint32_t x, sim_time_t key, uint32_t *a,
		  uint32_t *b)
{
	if (!x) {
		*a = *b = 0;
		return;
	}
	push(tr, x);
	if (N(tr, x)->t < key) {
		uint32_t r;
		split(tr, N(tr, x)->r, key, &r, b);
		N(tr, x)->r = r;
		*a = x;
	} else {
		uint32_t l;
		split(tr, N(tr, x)->l, key, a, &l);
		N(tr, x)->l = l;
		*b = x;
	}
	pull(tr, x);
}

/* Joins a and b, every key of a before every key of b. */
static uint32_t merge(struct ptree *tr, uint32_t a, uint32_t b)
{
	if (!a || !b)
		return a ? a : b;
	if (N(tr, a)->pri >= N(tr, b)->pri) {
		push(tr, a);
		N(tr, a)->r = merge(tr, N(tr, a)->r, b);
		pull(tr, a);
		return a;
	}
	push(tr, b);
	N(tr, b)->l = merge(tr, a, N(tr, b)->l);
	pull(tr, b);
	return b;
}

/* The step that holds t: its start (*at) and free units. */
static int64_t find(const struct ptree *tr, sim_time_t t, sim_time_t *at)
{
	int64_t acc = 0, v = 0;
	*at = SIM_TIME_NONE;
	for (uint32_t x = tr->root; x;) {
		const struct ptree_node *a = N(tr, x);
		if (a->t <= t) {
			v = a->f + acc;
			*at = a->t;
			acc += a->owed;
			x = a->r;
		} else {
			acc += a->owed;
			x = a->l;
		}
	}
	return v;
}

int64_t ptree_value_at(const struct ptree *tr, sim_time_t t)
{
	if (t >= tr->last_t)
		return tr->last_f;
	sim_time_t at;
	return find(tr, t, &at);
}

void ptree_append(struct ptree *tr, sim_time_t t, int64_t f)
{
	SIM_ASSERT(t > tr->last_t);
	uint32_t x = new_node(tr, t, f);
	tr->root = merge(tr, tr->root, x);
	tr->last_t = t;
	tr->last_f = f;
}

void ptree_split_at(struct ptree *tr, sim_time_t t)
{
	if (t > tr->last_t) {
		ptree_append(tr, t, tr->last_f);
		return;
	}
	sim_time_t at;
	int64_t v = find(tr, t, &at);
	if (at == t)
		return;
	uint32_t x = new_node(tr, t, v), a, b;
	split(tr, tr->root, t, &a, &b);
	tr->root = merge(tr, merge(tr, a, x), b);
}

void ptree_add(struct ptree *tr, sim_time_t t, sim_time_t end, int64_t v)
{
	if (t >= end || t > tr->last_t)
		return;
	if (tr->last_t < end)
		tr->last_f += v;
	uint32_t a, m, b = 0;
	split(tr, tr->root, t, &a, &m);
	if (end <= tr->last_t)
		split(tr, m, end, &m, &b);
	apply(tr, m, v);
	tr->root = merge(tr, a, merge(tr, m, b));
}

/* The first step of subtree x (its ancestors owe acc) that starts in
 * (t, until) and holds fewer than d units (below) or at least d. */
static bool next_in(const struct ptree *tr, uint32_t x, int64_t acc,
		    sim_time_t t, sim_time_t until, int64_t d, bool below,
		    sim_time_t *at)
{
	while (x) {
		const struct ptree_node *a = N(tr, x);
		if (below ? a->lo + acc >= d : a->hi + acc < d)
			return false; /* nothing in this subtree */
		int64_t down = acc + a->owed;
		if (a->t <= t) {
			x = a->r;
			acc = down;
			continue;
		}
		if (a->t >= until) { /* only its left subtree is early enough */
			x = a->l;
			acc = down;
			continue;
		}
		if (next_in(tr, a->l, down, t, until, d, below, at))
			return true;
		if (below ? a->f + acc < d : a->f + acc >= d) {
			*at = a->t;
			return true;
		}
		x = a->r;
		acc = down;
	}
	return false;
}

bool ptree_next(const struct ptree *tr, sim_time_t t, sim_time_t until,
		int64_t d, bool below, sim_time_t *at)
{
	return next_in(tr, tr->root, 0, t, until, d, below, at);
}
