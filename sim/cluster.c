/*
 * The cluster model: node groups, per-node free CPUs, and first-fit
 * placement.
 *
 * Nodes are numbered densely, group after group.  Their free CPUs live in
 * the leaves of an array-based segment tree (root at 1, leaves at
 * size..2*size-1, size = the next power of two >= nodes; padding leaves
 * have no capacity).  Every tree node keeps, for its subtree, the sum of
 * free CPUs and the number of idle nodes; with its static capacity and
 * node count that also says whether the subtree is completely idle
 * (idle == nodes) or completely full (free == 0).  Two lazy range tags,
 * "all full" and "all idle", set a whole subtree in O(1); a tag is pushed
 * to the children only when an operation goes below it, so a tag on an
 * ancestor always overrides what lies under it.
 *
 * Why: a trace job of 80,000 processors on 93,312 one-CPU nodes would cost
 * 80,000 node updates per start and per end with plain arrays.  Here the
 * first-fit walk skips full subtrees, takes a completely idle subtree that
 * it needs whole with one tag, and visits single nodes only where they are
 * partly used, so allocation and release cost O(extents * log n) tree
 * nodes, plus O(log n) per partly used node touched.
 *
 * Shared mode (exclusive false): the unit is the CPU.  A job of k CPUs
 * fits iff at least k CPUs are free anywhere; it takes min(free, still
 * needed) from each node with free CPUs, lowest index first.
 *
 * Exclusive mode: the unit is the node, and every group has the same CPUs
 * per node (cluster_spec_check enforces it).  A job of k CPUs takes
 * ceil(k / cpus per node) idle nodes, the lowest-numbered first, each
 * whole (its slots say cpus = the node's capacity even when k is smaller).
 *
 * Placements are extents: consecutive nodes that each give the same number
 * of CPUs merge into one slot.  Release gives back exactly what the slots
 * say: the part of a slot whose nodes were taken whole (cpus == capacity)
 * is set back to idle with one range tag; any other part is added back
 * node by node.  All slots of a placement go back in one walk of the tree.
 *
 * Speed: this is the simulator's hot spot (every job start and end of a
 * trace replay), so the layout is chosen for the cache.  The per-visit
 * state of a tree node is 8 bytes (free CPUs and idle nodes, both 32-bit:
 * cluster_spec_check caps a cluster at 2^32 - 1 CPUs), the tags are a
 * separate byte array, and the static capacities, needed only to set a
 * subtree idle or to add CPUs to a node, are a third array.  The
 * allocation walk is a loop, not a recursion.
 *
 * A job of 0 CPUs needs nothing: it fits, gets an empty placement, and its
 * release does nothing.  GPUs are carried but nothing allocates them yet.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "util.h"

/* Lazy range tags on inner tree nodes. */
enum {
	CL_TAG_NONE = 0,
	CL_TAG_FULL, /* every node below has 0 free CPUs */
	CL_TAG_IDLE, /* every node below is completely free */
};

/*
 * The changing half of a segment-tree node, read on every visit.  Kept to
 * 8 bytes so that the whole tree of the largest trace clusters (262,144
 * tree nodes for Curie) is 2 MiB rather than 8 MiB, and a node and its
 * sibling share a cache line.  Both values are valid unless an ancestor
 * holds a tag.
 */
struct cl_hot {
	uint32_t free; /* free CPUs in the subtree */
	uint32_t idle; /* completely free nodes in the subtree */
};

/* The static half, read only to set a subtree idle or to give CPUs back
 * to a node. */
struct cl_cold {
	uint32_t cap;   /* CPUs in the subtree */
	uint32_t nodes; /* real (non-padding) nodes in the subtree */
};

struct cluster {
	uint32_t n;             /* nodes */
	uint32_t ngroups;       /* node groups */
	uint32_t *gstart;       /* first node of each group; [ngroups] = n */
	uint32_t *gcpus;        /* CPUs per node of each group */
	uint32_t *ggpus;        /* GPUs per node of each group */
	size_t size;            /* leaves in the tree: power of two >= n */
	unsigned depth;         /* log2(size) */
	struct cl_hot *t;       /* 2 * size tree nodes; t[1] is the root */
	struct cl_cold *cold;   /* 2 * size: capacities of the tree nodes */
	uint8_t *tag;           /* size: CL_TAG_* of the inner nodes */
	uint64_t total_cpus;    /* sum of all capacities (< 2^32) */
	bool exclusive;         /* jobs take whole nodes */
};

/* ---- node groups ------------------------------------------------------ */

void cluster_spec_release(struct cluster_spec *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ngroups && s->groups; i++)
		free(s->groups[i].name);
	free(s->groups);
	s->groups = NULL;
	s->ngroups = 0;
}

int cluster_spec_check(const struct cluster_spec *s, const char *prefix,
		       struct sim_error *err)
{
	const char *p = prefix ? prefix : "";
	uint64_t nodes = 0, cpus = 0;

	if (!s->ngroups || !s->groups)
		return err_set(err, "%s$.cluster.nodes: must have at least one "
			       "node group", p);
	for (size_t i = 0; i < s->ngroups; i++) {
		const struct node_group *g = &s->groups[i];

		if (g->count == 0)
			return err_set(err, "%s$.cluster.nodes[%zu].count: "
				       "must be positive, got '0'", p, i);
		if (g->cpus == 0)
			return err_set(err, "%s$.cluster.nodes[%zu].cpus: "
				       "must be positive, got '0'", p, i);
		/* count and cpus are 32-bit, so neither sum can wrap before
		 * it is checked. */
		nodes += g->count;
		if (nodes >= (UINT64_C(1) << 31))
			return err_set(err, "%s$.cluster.nodes: too many nodes "
				       "in total, got '%" PRIu64 "' (at most "
				       "'2147483647')", p, nodes);
		/* The placement tree counts CPUs in 32 bits. */
		cpus += (uint64_t)g->count * g->cpus;
		if (cpus > UINT32_MAX)
			return err_set(err, "%s$.cluster.nodes: too many CPUs "
				       "in total, got '%" PRIu64 "' (at most "
				       "'4294967295')", p, cpus);
		if (s->exclusive && g->cpus != s->groups[0].cpus)
			return err_set(err, "%s$.cluster.exclusive: exclusive "
				       "nodes need equal cpus in every group "
				       "('%" PRIu32 "' vs '%" PRIu32 "')", p,
				       s->groups[0].cpus, g->cpus);
	}
	return 0;
}

int cluster_spec_from_header(struct cluster_spec *s, int64_t max_procs,
			     int64_t max_nodes, struct sim_error *err)
{
	int64_t count, cpus;

	memset(s, 0, sizeof(*s));
	if (max_procs <= 0)
		return err_set(err, "trace has no MaxProcs header: give "
			       "$.cluster.nodes");
	if (max_nodes > 0 && max_procs % max_nodes == 0) {
		count = max_nodes;
		cpus = max_procs / max_nodes;
	} else {
		count = max_procs;
		cpus = 1;
	}
	if (count >= ((int64_t)1 << 31) || max_procs > (int64_t)UINT32_MAX)
		return err_set(err, "trace header MaxProcs '%" PRId64 "' "
			       "with MaxNodes '%" PRId64 "' is too large for "
			       "a cluster: give $.cluster.nodes", max_procs,
			       max_nodes);
	s->groups = xcalloc(1, sizeof(*s->groups));
	s->ngroups = 1;
	s->groups[0].name = xstrdup("trace");
	s->groups[0].count = (uint32_t)count;
	s->groups[0].cpus = (uint32_t)cpus;
	return 0;
}

void placement_release(struct placement *p)
{
	if (!p)
		return;
	free(p->slots);
	p->slots = NULL;
	p->n = p->cap = 0;
}

/* ---- the tree --------------------------------------------------------- */

static inline bool cl_leaf(const struct cluster *c, size_t v)
{
	return v >= c->size;
}

/* Real nodes under a tree node whose leaves start at lo and span width:
 * computed rather than loaded, so that the first-fit walk reads nothing
 * but the hot half of the tree. */
static inline uint32_t cl_span(const struct cluster *c, uint32_t lo,
			       size_t width)
{
	if (lo >= c->n)
		return 0;
	return c->n - lo < width ? c->n - lo : (uint32_t)width;
}

/* Sets every node under v full or idle. */
static inline void cl_apply(struct cluster *c, size_t v, uint8_t tag)
{
	struct cl_hot *t = &c->t[v];

	if (tag == CL_TAG_FULL) {
		t->free = 0;
		t->idle = 0;
	} else {
		t->free = c->cold[v].cap;
		t->idle = c->cold[v].nodes;
	}
	if (!cl_leaf(c, v))
		c->tag[v] = tag;
}

/* Hands v's tag down to its children before an operation goes below v. */
static inline void cl_push(struct cluster *c, size_t v)
{
	uint8_t tag = c->tag[v];

	if (tag) {
		cl_apply(c, 2 * v, tag);
		cl_apply(c, 2 * v + 1, tag);
		c->tag[v] = CL_TAG_NONE;
	}
}

/* Recomputes v from its children after an operation below v. */
static inline void cl_pull(struct cluster *c, size_t v)
{
	struct cl_hot *t = &c->t[v];
	const struct cl_hot *l = &c->t[2 * v];

	t->free = l[0].free + l[1].free;
	t->idle = l[0].idle + l[1].idle;
}

/* The group that node belongs to (binary search; groups are few). */
static uint32_t cl_group_of(const struct cluster *c, uint32_t node)
{
	uint32_t lo = 0, hi = c->ngroups - 1;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;

		if (c->gstart[mid] <= node)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Appends an extent, merging it into the last slot when it continues it. */
static void cl_emit(struct placement *out, uint32_t node, uint32_t count,
		    uint32_t cpus)
{
	if (out->n) {
		struct place_slot *last = &out->slots[out->n - 1];

		if (last->node + last->count == node && last->cpus == cpus &&
		    last->gpus == 0) {
			last->count += count;
			return;
		}
	}
	if (out->n == out->cap) {
		size_t cap = out->cap;

		xgrow(&out->slots, &cap, (size_t)out->n + 1,
		      sizeof(*out->slots));
		SIM_ASSERT(cap <= UINT32_MAX);
		out->cap = (uint32_t)cap;
	}
	out->slots[out->n++] = (struct place_slot){
		.node = node, .count = count, .cpus = cpus, .gpus = 0,
	};
}

/* Emits count whole nodes from node on: one extent per group part. */
static void cl_emit_whole(const struct cluster *c, uint32_t node,
			  uint32_t count, struct placement *out)
{
	uint32_t g = c->ngroups == 1 ? 0 : cl_group_of(c, node);

	while (count) {
		uint32_t part = c->gstart[g + 1] - node;

		if (part > count)
			part = count;
		cl_emit(out, node, part, c->gcpus[g]);
		node += part;
		count -= part;
		g++;
	}
}

/*
 * First fit: takes need units (CPUs, or idle nodes when exclusive) from
 * the lowest-numbered nodes; the caller has checked that they are there.
 *
 * A depth-first walk, left to right, without recursion: the tree is an
 * array, so the parent of v is v / 2 and its right sibling v + 1.  At each
 * tree node the walk either skips it (nothing free), takes it whole with
 * one tag (completely idle and no more than still needed), takes part of a
 * leaf, or goes down into it.  A node is pulled once, when the walk leaves
 * its subtree for good; when need reaches 0, the rest of the path to the
 * root is pulled.
 */
static void cl_take(struct cluster *c, uint32_t need, struct placement *out)
{
	bool excl = c->exclusive;
	size_t v = 1, width = c->size;
	uint32_t lo = 0;

	for (;;) {
		struct cl_hot *t = &c->t[v];
		uint32_t avail = excl ? t->idle : t->free;

		if (avail == 0) {
			/* Full (or padding): nothing here. */
		} else if (avail <= need && t->idle == cl_span(c, lo, width)) {
			need -= avail;
			cl_emit_whole(c, lo, t->idle, out);
			cl_apply(c, v, CL_TAG_FULL);
		} else if (cl_leaf(c, v)) {
			/* Shared only: a partly used node, or the last one,
			 * partly taken.  (When exclusive, a leaf with an
			 * idle node has avail == 1 <= need.) */
			uint32_t take = avail < need ? avail : need;

			SIM_ASSERT(!excl);
			cl_emit(out, lo, 1, take);
			t->free -= take;
			t->idle = 0;
			need -= take;
		} else {
			cl_push(c, v);
			v = 2 * v;
			width /= 2;
			continue;
		}
		if (!need)
			break;
		/* Up past every subtree finished here, then right. */
		while (v & 1) {
			SIM_ASSERT(v > 1);
			v >>= 1;
			lo -= (uint32_t)width;
			width *= 2;
			cl_pull(c, v);
		}
		v++;
		lo += (uint32_t)width;
	}
	for (v >>= 1; v; v >>= 1)
		cl_pull(c, v);
}

/*
 * Gives back the ns slots s[] under v, whose leaves start at lo and span
 * width: sorted, non-overlapping, non-empty slots that all overlap v's
 * range.  One walk for all slots of a placement shares the tree nodes
 * above them (a placement's slots are near each other), and pulls each
 * tree node once however many slots lie below it.
 *
 * A subtree that one slot covers, and whose nodes all gave that slot's
 * cpus whole (its capacity is cpus times its nodes; a node cannot give
 * more than it has, so no node can have more or less), was completely
 * full and becomes completely idle with one tag.  Anything else goes down
 * to the nodes, which get cpus added one by one.
 */
static void cl_give(struct cluster *c, size_t v, uint32_t lo, size_t width,
		    const struct place_slot *s, uint32_t ns)
{
	uint32_t mid, k;

	if (ns == 1 && s->node <= lo &&
	    (uint64_t)s->node + s->count >= (uint64_t)lo + width) {
		const struct cl_cold *k0 = &c->cold[v];
		struct cl_hot *t = &c->t[v];

		if ((uint64_t)s->cpus * k0->nodes == k0->cap) {
			/* Taken whole means nobody else can hold a CPU
			 * here. */
			SIM_ASSERT(t->free == 0);
			cl_apply(c, v, CL_TAG_IDLE);
			return;
		}
		if (cl_leaf(c, v)) {
			SIM_ASSERT((uint64_t)t->free + s->cpus <= k0->cap);
			t->free += s->cpus;
			t->idle = t->free == k0->cap;
			return;
		}
	}
	/* Slots do not overlap, so a leaf is covered by its one slot. */
	SIM_ASSERT(!cl_leaf(c, v));
	cl_push(c, v);
	mid = lo + (uint32_t)(width / 2);
	/* The left child gets the slots that start before mid, the right
	 * one those that end after it: the last of the first kind may be
	 * both. */
	for (k = 0; k < ns && s[k].node < mid; k++)
		;
	if (k)
		cl_give(c, 2 * v, lo, width / 2, s, k);
	if (k && s[k - 1].node + s[k - 1].count > mid)
		k--;
	if (k < ns)
		cl_give(c, 2 * v + 1, mid, width / 2, s + k, ns - k);
	cl_pull(c, v);
}

/* ---- the cluster ------------------------------------------------------ */

struct cluster *cluster_new(const struct cluster_spec *s)
{
	struct cluster *c = xcalloc(1, sizeof(*c));
	uint64_t n = 0;

	SIM_ASSERT(s->ngroups > 0 && s->ngroups < UINT32_MAX);
	c->ngroups = (uint32_t)s->ngroups;
	c->gstart = xmalloc((s->ngroups + 1) * sizeof(*c->gstart));
	c->gcpus = xmalloc(s->ngroups * sizeof(*c->gcpus));
	c->ggpus = xmalloc(s->ngroups * sizeof(*c->ggpus));
	/* The spec has passed cluster_spec_check. */
	for (size_t g = 0; g < s->ngroups; g++) {
		SIM_ASSERT(s->groups[g].count > 0 && s->groups[g].cpus > 0);
		SIM_ASSERT(!s->exclusive ||
			   s->groups[g].cpus == s->groups[0].cpus);
		c->gstart[g] = (uint32_t)n;
		c->gcpus[g] = s->groups[g].cpus;
		c->ggpus[g] = s->groups[g].gpus;
		n += s->groups[g].count;
		c->total_cpus += (uint64_t)s->groups[g].count *
				 s->groups[g].cpus;
		SIM_ASSERT(n < (UINT64_C(1) << 31));
	}
	SIM_ASSERT(n > 0 && c->total_cpus <= UINT32_MAX);
	c->n = (uint32_t)n;
	c->gstart[s->ngroups] = c->n;
	c->exclusive = s->exclusive;

	c->size = 1;
	c->depth = 0;
	while (c->size < c->n) {
		c->size *= 2;
		c->depth++;
	}
	c->t = xcalloc(2 * c->size, sizeof(*c->t));
	c->cold = xcalloc(2 * c->size, sizeof(*c->cold));
	c->tag = xcalloc(c->size, sizeof(*c->tag));
	for (uint32_t g = 0; g < c->ngroups; g++) {
		for (uint32_t i = c->gstart[g]; i < c->gstart[g + 1]; i++) {
			c->cold[c->size + i].cap = c->gcpus[g];
			c->cold[c->size + i].nodes = 1;
		}
	}
	/* Sums fit: the total is below 2^32. */
	for (size_t v = c->size - 1; v >= 1; v--) {
		c->cold[v].cap = c->cold[2 * v].cap + c->cold[2 * v + 1].cap;
		c->cold[v].nodes = c->cold[2 * v].nodes +
				   c->cold[2 * v + 1].nodes;
	}
	cluster_reset(c);
	return c;
}

void cluster_free(struct cluster *c)
{
	if (!c)
		return;
	free(c->t);
	free(c->cold);
	free(c->tag);
	free(c->gstart);
	free(c->gcpus);
	free(c->ggpus);
	free(c);
}

void cluster_reset(struct cluster *c)
{
	cl_apply(c, 1, CL_TAG_IDLE);
}

uint32_t cluster_nodes(const struct cluster *c)
{
	return c->n;
}

uint64_t cluster_total_cpus(const struct cluster *c)
{
	return c->total_cpus;
}

uint64_t cluster_free_cpus(const struct cluster *c)
{
	return c->t[1].free;
}

uint32_t cluster_idle_nodes(const struct cluster *c)
{
	return c->t[1].idle;
}

uint32_t cluster_node_cpus(const struct cluster *c, uint32_t node)
{
	SIM_ASSERT(node < c->n);
	return c->cold[c->size + node].cap;
}

uint32_t cluster_node_free_cpus(const struct cluster *c, uint32_t node)
{
	size_t leaf;

	SIM_ASSERT(node < c->n);
	leaf = c->size + node;
	/* The topmost tag on the path from the root is the newest. */
	for (unsigned s = c->depth; s > 0; s--) {
		uint8_t tag = c->tag[leaf >> s];

		if (tag == CL_TAG_FULL)
			return 0;
		if (tag == CL_TAG_IDLE)
			return c->cold[leaf].cap;
	}
	return c->t[leaf].free;
}

bool cluster_exclusive(const struct cluster *c)
{
	return c->exclusive;
}

uint64_t cluster_demand(const struct cluster *c, const struct job *j)
{
	uint64_t per;

	if (!c->exclusive)
		return j->cpus;
	per = c->gcpus[0];
	return ((uint64_t)j->cpus + per - 1) / per;
}

uint64_t cluster_capacity(const struct cluster *c)
{
	return c->exclusive ? c->n : c->total_cpus;
}

uint64_t cluster_free_units(const struct cluster *c)
{
	return c->exclusive ? c->t[1].idle : c->t[1].free;
}

bool cluster_can_ever_fit(const struct cluster *c, const struct job *j)
{
	return cluster_demand(c, j) <= cluster_capacity(c);
}

bool cluster_fits(const struct cluster *c, const struct job *j)
{
	return cluster_demand(c, j) <= cluster_free_units(c);
}

int cluster_alloc(struct cluster *c, const struct job *j,
		  struct placement *out)
{
	uint64_t need = cluster_demand(c, j);

	if (need > cluster_free_units(c))
		return -SIM_ESTATE;
	out->n = 0;
	/* Below the free units, so below 2^32. */
	if (need)
		cl_take(c, (uint32_t)need, out);
	return 0;
}

/*
 * Can the slots go back in one walk?  They can when they are what
 * cluster_alloc makes: non-empty and in increasing node order without
 * overlap.
 */
static bool cl_sorted(const struct cluster *c, const struct placement *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		const struct place_slot *s = &p->slots[i];

		if (!s->count || !s->cpus)
			return false;
		SIM_ASSERT(s->node < c->n && s->count <= c->n - s->node);
		if (i && s->node < s[-1].node + s[-1].count)
			return false;
	}
	return true;
}

void cluster_release(struct cluster *c, const struct placement *p)
{
	if (!p->n)
		return;
	if (cl_sorted(c, p)) {
		cl_give(c, 1, 0, c->size, p->slots, p->n);
		return;
	}
	/* Any other list of slots: one walk per slot. */
	for (uint32_t i = 0; i < p->n; i++) {
		const struct place_slot *s = &p->slots[i];

		if (!s->count || !s->cpus)
			continue;
		SIM_ASSERT(s->node < c->n && s->count <= c->n - s->node);
		cl_give(c, 1, 0, c->size, s, 1);
	}
}

/* ---- invariant check -------------------------------------------------- */

/*
 * Recomputes the subtree of v from its per-node free counts (as the tags
 * above and in it make them) into *free and *idle, and compares them with
 * what v stores where nothing above v overrides it.
 */
static int cl_check_rec(const struct cluster *c, size_t v, uint8_t inherit,
			uint64_t *free_out, uint32_t *idle_out,
			struct sim_error *err)
{
	const struct cl_hot *t = &c->t[v];
	const struct cl_cold *k0 = &c->cold[v];
	uint64_t free_sum, cap;
	uint32_t idle, nodes;

	if (cl_leaf(c, v)) {
		size_t node = v - c->size;
		uint64_t want_cap = 0;

		if (node < c->n)
			want_cap = c->gcpus[cl_group_of(c, (uint32_t)node)];
		if (k0->cap != want_cap || k0->nodes != (node < c->n))
			return err_setc(err, -SIM_ESTATE, "cluster: node '%zu' "
					"has a broken tree leaf", node);
		free_sum = inherit == CL_TAG_FULL ? 0 :
			   inherit == CL_TAG_IDLE ? k0->cap : t->free;
		/* Free counts are unsigned: "below zero" shows up here as a
		 * huge value. */
		if (free_sum > k0->cap)
			return err_setc(err, -SIM_ESTATE, "cluster: node '%zu' "
					"has '%" PRIu64 "' free cpus of '%"
					PRIu32 "'", node, free_sum, k0->cap);
		idle = node < c->n && free_sum == k0->cap;
		if (!inherit && t->idle != idle)
			return err_setc(err, -SIM_ESTATE, "cluster: node '%zu' "
					"idle flag is '%" PRIu32 "', want '%"
					PRIu32 "'", node, t->idle, idle);
	} else {
		uint64_t f[2];
		uint32_t id[2];
		uint8_t tag = c->tag[v];
		uint8_t below = inherit ? inherit : tag;
		int rc;

		if (tag > CL_TAG_IDLE)
			return err_setc(err, -SIM_ESTATE, "cluster: tree node "
					"'%zu' has a bad tag '%u'", v,
					(unsigned)tag);
		for (int k = 0; k < 2; k++) {
			rc = cl_check_rec(c, 2 * v + k, below, &f[k], &id[k],
					  err);
			if (rc)
				return rc;
		}
		cap = (uint64_t)c->cold[2 * v].cap + c->cold[2 * v + 1].cap;
		nodes = c->cold[2 * v].nodes + c->cold[2 * v + 1].nodes;
		if (k0->cap != cap || k0->nodes != nodes)
			return err_setc(err, -SIM_ESTATE, "cluster: tree node "
					"'%zu' has wrong capacity", v);
		free_sum = f[0] + f[1];
		idle = id[0] + id[1];
		if (!inherit && (t->free != free_sum || t->idle != idle))
			return err_setc(err, -SIM_ESTATE, "cluster: tree node "
					"'%zu' says '%" PRIu32 "' free cpus and "
					"'%" PRIu32 "' idle nodes, nodes say '%"
					PRIu64 "' and '%" PRIu32 "'", v,
					t->free, t->idle, free_sum, idle);
	}
	*free_out = free_sum;
	*idle_out = idle;
	return 0;
}

int cluster_check(const struct cluster *c, struct sim_error *err)
{
	uint64_t free_sum;
	uint32_t idle;
	int rc = cl_check_rec(c, 1, CL_TAG_NONE, &free_sum, &idle, err);

	if (rc)
		return rc;
	if (c->cold[1].cap != c->total_cpus || c->cold[1].nodes != c->n)
		return err_setc(err, -SIM_ESTATE, "cluster: root capacity "
				"'%" PRIu32 "' differs from total cpus '%"
				PRIu64 "'", c->cold[1].cap, c->total_cpus);
	return 0;
}
