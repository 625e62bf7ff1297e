/*
 * The cluster model: node groups, per-node free CPUs, and first-fit
 * placement.
 *
 * Nodes are numbered densely, group after group, and cut into blocks of 64
 * consecutive nodes (the last block may be shorter).  A block keeps two
 * 64-bit masks: "has free CPUs" and "is idle" (completely free; a subset
 * of the first).  A node's free CPUs are then its capacity when its idle
 * bit is set, 0 when its free bit is clear, and a stored count only when
 * it is partly used (free set, idle clear).  Taking or giving back a run of
 * whole nodes inside a block is therefore a mask operation: no per-node
 * count is written, and no lazy "all full" / "all idle" state is needed.
 *
 * Above the blocks sits a summary bitmap, 64-ary: bit b of level 0 says
 * that block b has a free unit (a node with free CPUs, or an idle node when
 * exclusive), and bit w of level k that word w of level k - 1 is not zero.
 * Finding the first block at or after a position with something free
 * costs a few word reads (2 levels for Curie's 1,458 blocks, at most 5 for
 * 2^31 nodes), and the whole index of Curie is 24 words.  Totals (free
 * CPUs, idle nodes) are plain counters.
 *
 * Why: this is the simulator's hot spot, every job start and end of a
 * trace replay.  The segment tree it replaces visited ~115 tree nodes per
 * allocation on Curie's 93,312 one-CPU nodes (17 levels).  Here a first
 * fit finds its blocks through the summary and its extents with count-
 * trailing-zeros on the masks: one-CPU nodes are never partly used, so on
 * Curie every extent is one run of idle bits.  A job spanning many blocks
 * costs one mask write per block (an 80,000-CPU job: 1,250 of them, a few
 * microseconds), which is cheaper in practice than lazy range tags.
 * Measured on the recorded alloc/release sequences of the Curie EASY
 * replay and a 1M-job run on 10,000 x 16 CPUs: 3.5-4x faster than the
 * tree, with the same placements.  Memory: 8 bytes per node and 24 per
 * block, against 32 per leaf for the tree.
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
 * of CPUs merge into one slot, whatever blocks or groups they lie in.
 * Release gives back exactly what the slots say: where a slot's CPUs per
 * node equal the capacity of every node of a block, those nodes were taken
 * whole and become idle with one mask operation; anything else is added
 * back node by node.
 *
 * A job of 0 CPUs needs nothing: it fits, gets an empty placement, and its
 * release does nothing.
 *
 * Whole GPUs (a job with gpus > 0; docs/placement.md has the rules and
 * the strategies) have an index of their own beside the CPU one, touched
 * by GPU jobs only, so the CPU path costs what it did.  Each node keeps a
 * mask of its free GPUs and their count; for every count c = 1 .. the
 * most GPUs of a node, the set of nodes with exactly c free is a bitset
 * with a 64-ary summary (the same idea as the CPU blocks' summary, with
 * the node bits as level 0), and set 0 holds the nodes with any free GPU.
 * "The first node at or after x with exactly c free" is then a few word
 * reads, and "a node of rack r with c free" the same search bounded by
 * the rack.  Counters keep the free GPUs per GPU type, per rack and type,
 * and the nodes per type and free count.  GPU types restrict a search to
 * the node ranges of their groups.  Strategies plan on an index (pick
 * nodes and counts without changing it), then the plan is applied;
 * a job that also wants CPUs plans on a temporary index of what each
 * node can give it with its CPUs (rebuilt per call, O(nodes)).
 */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "util.h"

#define CL_BITS 64	/* nodes per block, bits per summary word */
#define CL_MAXLEV 6	/* summary levels at most (2^31 nodes need 5) */
#define CL_NONE UINT32_MAX /* cl_next: no block */

/* 64 consecutive nodes, b * 64 .. b * 64 + 63. */
struct cl_block {
	uint64_t free; /* bit i: node i has free CPUs */
	uint64_t idle; /* bit i: node i is completely free (implies free) */
	uint32_t cap;  /* CPUs of each node when all are equal, else 0 */
};

/* One node. */
struct cl_node {
	uint32_t part; /* free CPUs while partly used; stale otherwise */
	uint32_t cap;  /* CPUs */
};

struct cluster {
	uint32_t n;             /* nodes */
	uint32_t ngroups;       /* node groups */
	uint32_t *gstart;       /* first node of each group; [ngroups] = n */
	uint32_t *gcpus;        /* CPUs per node of each group */
	uint32_t *ggpus;        /* GPUs per node of each group */
	uint32_t nblocks;       /* ceil(n / 64) */
	struct cl_block *blk;   /* nblocks blocks */
	struct cl_node *node;   /* n nodes */
	unsigned nlev;          /* summary levels; the top one is one word */
	uint64_t *sum[CL_MAXLEV]; /* level k of the summary bitmap */
	uint32_t nwords[CL_MAXLEV]; /* words of each level */
	uint64_t *sumbuf;       /* storage of all levels */
	uint64_t free_cpus;     /* free CPUs in all */
	uint32_t idle_nodes;    /* idle nodes in all */
	uint64_t total_cpus;    /* sum of all capacities (< 2^32) */
	bool exclusive;         /* jobs take whole nodes */
	/* Whole GPUs; the arrays are NULL when no node has GPUs. */
	uint32_t maxg;          /* most GPUs of a node (0: no GPUs) */
	uint32_t ntypes;        /* distinct named GPU types */
	uint32_t ncls;          /* GPU classes: the types, then "untyped"
	                           when some group with GPUs has no type */
	char **tname;           /* name of each type, owned */
	uint32_t *gcls;         /* GPU class of each group */
	uint32_t *ncl;          /* GPU class of each node */
	uint8_t *gcap;          /* GPUs of each node */
	uint64_t *gmask;        /* free GPUs of each node, bit i = GPU i */
	uint64_t *ctotal;       /* GPUs of each class */
	uint64_t total_gpus;    /* GPUs in all */
	uint32_t rack_nodes;    /* nodes per rack (n or less) */
	uint32_t nracks;        /* ceil(n / rack_nodes) */
	struct cl_range *crange; /* node ranges of each class, in order */
	uint32_t *crange_at;    /* class k: crange[crange_at[k] ..
	                           crange_at[k + 1]) */
	struct gx *gx;          /* the free-GPU index */
	struct gx *view;        /* scratch index for jobs that want CPUs */
	struct gp_pick *picks;  /* scratch: a strategy's plan */
	size_t pcap;            /* picks allocated */
	struct gp_rack *rk;     /* scratch: racks in order of preference */
};

/* ---- node groups ------------------------------------------------------ */

void cluster_spec_release(struct cluster_spec *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ngroups && s->groups; i++) {
		free(s->groups[i].name);
		free(s->groups[i].gpu_type);
	}
	free(s->groups);
	s->groups = NULL;
	s->ngroups = 0;
}

void cluster_spec_copy(struct cluster_spec *dst,
		       const struct cluster_spec *src)
{
	*dst = *src;
	dst->groups = NULL;
	if (!src->ngroups || !src->groups)
		return;
	dst->groups = xcalloc(src->ngroups, sizeof(*dst->groups));
	for (size_t i = 0; i < src->ngroups; i++) {
		const struct node_group *g = &src->groups[i];

		dst->groups[i] = *g;
		dst->groups[i].name = g->name ? xstrdup(g->name) : NULL;
		dst->groups[i].gpu_type = g->gpu_type ? xstrdup(g->gpu_type) :
					  NULL;
	}
}

int cluster_spec_check(const struct cluster_spec *s, const char *prefix,
		       struct sim_error *err)
{
	const char *p = prefix ? prefix : "";
	uint64_t nodes = 0, cpus = 0, gpus = 0;

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
		/* The placement index counts CPUs in 32 bits. */
		cpus += (uint64_t)g->count * g->cpus;
		if (cpus > UINT32_MAX)
			return err_set(err, "%s$.cluster.nodes: too many CPUs "
				       "in total, got '%" PRIu64 "' (at most "
				       "'4294967295')", p, cpus);
		if (g->gpus > CLUSTER_MAX_NODE_GPUS)
			return err_set(err, "%s$.cluster.nodes[%zu].gpus: at "
				       "most '64' GPUs per node, got '%" PRIu32
				       "'", p, i, g->gpus);
		gpus += (uint64_t)g->count * g->gpus;
		if (gpus > UINT32_MAX)
			return err_set(err, "%s$.cluster.nodes: too many GPUs "
				       "in total, got '%" PRIu64 "' (at most "
				       "'4294967295')", p, gpus);
		if (g->gpu_type && !g->gpus)
			return err_set(err, "%s$.cluster.nodes[%zu].gpu_type: "
				       "a group without gpus has no gpu_type, "
				       "got '%s'", p, i, g->gpu_type);
		if (g->gpu_type && !g->gpu_type[0])
			return err_set(err, "%s$.cluster.nodes[%zu].gpu_type: "
				       "must not be empty, got ''", p, i);
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

/* ---- blocks and the summary ------------------------------------------- */

/* Bits lo .. lo + k - 1 (1 <= k, lo + k <= 64). */
static inline uint64_t cl_mask(unsigned lo, unsigned k)
{
	return (k == CL_BITS ? ~UINT64_C(0) : (UINT64_C(1) << k) - 1) << lo;
}

/* Length of the run of set bits of m that starts at bit i (which is set). */
static inline unsigned cl_run(uint64_t m, unsigned i)
{
	uint64_t rest = ~(m >> i);

	/* rest is 0 only when i is 0 and every bit is set. */
	return rest ? (unsigned)__builtin_ctzll(rest) : CL_BITS - i;
}

/* The nodes of block b (all bits, but fewer in a short last block). */
static uint64_t cl_valid(const struct cluster *c, uint32_t b)
{
	uint32_t left = c->n - b * CL_BITS;

	return cl_mask(0, left < CL_BITS ? left : CL_BITS);
}

/* What the summary indexes: nodes with free CPUs, or idle nodes. */
static inline uint64_t cl_avail(const struct cluster *c,
				const struct cl_block *k)
{
	return c->exclusive ? k->idle : k->free;
}

/* Block b has gained its first free unit: set its bit in the summary. */
static void cl_mark(struct cluster *c, uint32_t b)
{
	for (unsigned lev = 0; lev < c->nlev; lev++) {
		uint64_t *w = &c->sum[lev][b / CL_BITS];
		uint64_t old = *w;

		*w = old | UINT64_C(1) << (b % CL_BITS);
		if (old)
			break;
		b /= CL_BITS;
	}
}

/* Block b has lost its last free unit. */
static void cl_unmark(struct cluster *c, uint32_t b)
{
	for (unsigned lev = 0; lev < c->nlev; lev++) {
		uint64_t *w = &c->sum[lev][b / CL_BITS];

		*w &= ~(UINT64_C(1) << (b % CL_BITS));
		if (*w)
			break;
		b /= CL_BITS;
	}
}

/*
 * The first block at or after pos with a free unit, or CL_NONE: up the
 * summary until a word has a set bit at or after the position, then down
 * along the lowest set bits.
 */
static uint32_t cl_next(const struct cluster *c, uint32_t pos)
{
	unsigned lev = 0;
	uint32_t w;
	uint64_t m;

	for (;;) {
		w = pos / CL_BITS;
		if (w >= c->nwords[lev])
			return CL_NONE;
		m = c->sum[lev][w] & (~UINT64_C(0) << (pos % CL_BITS));
		if (m)
			break;
		if (++lev == c->nlev)
			return CL_NONE;
		pos = w + 1;
	}
	pos = w * CL_BITS + (uint32_t)__builtin_ctzll(m);
	while (lev--)
		pos = pos * CL_BITS + (uint32_t)__builtin_ctzll(c->sum[lev][pos]);
	return pos;
}

/* What word w of summary level lev must hold, from the level below. */
static uint64_t cl_sum_word(const struct cluster *c, unsigned lev,
			    uint32_t w)
{
	uint64_t m = 0;

	for (unsigned j = 0; j < CL_BITS; j++) {
		uint64_t i = (uint64_t)w * CL_BITS + j;
		bool set;

		if (lev == 0)
			set = i < c->nblocks && cl_avail(c, &c->blk[i]);
		else
			set = i < c->nwords[lev - 1] && c->sum[lev - 1][i];
		m |= (uint64_t)set << j;
	}
	return m;
}

/* The free CPUs of node v. */
static inline uint32_t cl_node_free(const struct cluster *c, uint32_t v)
{
	const struct cl_block *k = &c->blk[v / CL_BITS];
	uint64_t bit = UINT64_C(1) << (v % CL_BITS);

	if (k->idle & bit)
		return c->node[v].cap;
	return k->free & bit ? c->node[v].part : 0;
}

/* Makes room for one more slot in out. */
static void cl_grow(struct placement *out)
{
	size_t cap = out->cap;

	xgrow(&out->slots, &cap, (size_t)out->n + 1, sizeof(*out->slots));
	SIM_ASSERT(cap <= UINT32_MAX);
	out->cap = (uint32_t)cap;
}

/* Appends an extent, merging it into the last slot when it continues it. */
static inline void cl_emit(struct placement *out, uint32_t node,
			   uint32_t count, uint32_t cpus)
{
	if (out->n) {
		struct place_slot *last = &out->slots[out->n - 1];

		if (last->node + last->count == node && last->cpus == cpus &&
		    last->gpus == 0) {
			last->count += count;
			return;
		}
	}
	if (out->n == out->cap)
		cl_grow(out);
	out->slots[out->n++] = (struct place_slot){
		.node = node, .count = count, .cpus = cpus, .gpus = 0,
	};
}

/* ---- first fit -------------------------------------------------------- */

/* Takes min(free, need) CPUs of node v, which has some; returns them. */
static uint32_t cl_take_node(struct cluster *c, uint32_t v, uint32_t need,
			     struct placement *out)
{
	struct cl_block *k = &c->blk[v / CL_BITS];
	struct cl_node *nd = &c->node[v];
	uint64_t bit = UINT64_C(1) << (v % CL_BITS);
	uint32_t fr = cl_node_free(c, v);
	uint32_t take = fr < need ? fr : need;

	cl_emit(out, v, 1, take);
	if (k->idle & bit) {
		k->idle &= ~bit;
		c->idle_nodes--;
	}
	fr -= take;
	if (fr)
		nd->part = fr;
	else
		k->free &= ~bit;
	c->free_cpus -= take;
	return take;
}

/* Takes the idle nodes first .. first + count - 1 of block k whole. */
static void cl_take_whole(struct cluster *c, struct cl_block *k,
			  uint32_t first, unsigned count, struct placement *out)
{
	uint64_t bits = cl_mask(first % CL_BITS, count);

	cl_emit(out, first, count, k->cap);
	k->free &= ~bits;
	k->idle &= ~bits;
	c->idle_nodes -= count;
	c->free_cpus -= (uint64_t)count * k->cap;
}

/*
 * Shared mode: takes up to need CPUs from block b, lowest node first;
 * returns what is still needed.  In a block of equal nodes a run of idle
 * nodes goes in one step (all of it, or as many whole nodes as need
 * covers and part of the next); partly used nodes, and every node of a
 * block that mixes node sizes, go one by one.
 */
static uint32_t cl_take_shared(struct cluster *c, uint32_t b, uint32_t need,
			       struct placement *out)
{
	struct cl_block *k = &c->blk[b];
	uint32_t base = b * CL_BITS;
	uint64_t m = k->free;

	while (m) {
		unsigned i = (unsigned)__builtin_ctzll(m);

		if (k->cap && (k->idle >> i & 1)) {
			unsigned run = cl_run(k->idle, i);
			uint32_t whole = need / k->cap;

			if (whole > run)
				whole = run;
			if (whole) {
				cl_take_whole(c, k, base + i, whole, out);
				need -= whole * k->cap;
			}
			if (whole < run && need) {
				/* need < cap: part of the next idle node. */
				need -= cl_take_node(c, base + i + whole, need,
						     out);
			}
			m &= ~cl_mask(i, run);
		} else {
			need -= cl_take_node(c, base + i, need, out);
			m &= m - 1;
		}
		if (!need)
			break;
	}
	if (!k->free)
		cl_unmark(c, b);
	return need;
}

/* Exclusive mode: takes up to need idle nodes of block b, lowest first;
 * returns how many are still needed.  Every block has equal nodes. */
static uint32_t cl_take_excl(struct cluster *c, uint32_t b, uint32_t need,
			     struct placement *out)
{
	struct cl_block *k = &c->blk[b];
	uint64_t m = k->idle;

	while (m && need) {
		unsigned i = (unsigned)__builtin_ctzll(m);
		unsigned run = cl_run(m, i);
		unsigned take = run < need ? run : need;

		cl_take_whole(c, k, b * CL_BITS + i, take, out);
		need -= take;
		m &= ~cl_mask(i, run);
	}
	if (!k->idle)
		cl_unmark(c, b);
	return need;
}

/* First fit of need units; the caller has checked that they are free. */
static void cl_take(struct cluster *c, uint32_t need, struct placement *out)
{
	uint32_t b = 0;

	for (;;) {
		b = cl_next(c, b);
		SIM_ASSERT(b != CL_NONE);
		if (c->exclusive)
			need = cl_take_excl(c, b, need, out);
		else
			need = cl_take_shared(c, b, need, out);
		if (!need)
			break;
		b++;
	}
}

/* ---- release ---------------------------------------------------------- */

/* Gives cpus back to node v. */
static void cl_give_node(struct cluster *c, uint32_t v, uint32_t cpus)
{
	struct cl_block *k = &c->blk[v / CL_BITS];
	struct cl_node *nd = &c->node[v];
	uint64_t bit = UINT64_C(1) << (v % CL_BITS);
	uint64_t fr = (uint64_t)cl_node_free(c, v) + cpus;

	SIM_ASSERT(fr <= nd->cap);
	k->free |= bit;
	if (fr == nd->cap) {
		/* cpus > 0, so the node was not idle before. */
		k->idle |= bit;
		c->idle_nodes++;
	} else {
		nd->part = (uint32_t)fr;
	}
	c->free_cpus += cpus;
}

/*
 * Gives cpus back to each of count nodes of block b from bit lo on.  When
 * that is every node's capacity, the nodes were taken whole (a node
 * cannot give more than it has, so nobody else holds a CPU there) and
 * become idle together.
 */
static void cl_give(struct cluster *c, uint32_t b, unsigned lo,
		    unsigned count, uint32_t cpus)
{
	struct cl_block *k = &c->blk[b];
	bool had = cl_avail(c, k) != 0;

	if (k->cap == cpus) {
		uint64_t bits = cl_mask(lo, count);

		SIM_ASSERT(!(k->free & bits));
		k->free |= bits;
		k->idle |= bits;
		c->idle_nodes += count;
		c->free_cpus += (uint64_t)count * cpus;
	} else {
		for (unsigned i = lo; i < lo + count; i++)
			cl_give_node(c, b * CL_BITS + i, cpus);
	}
	if (!had && cl_avail(c, k))
		cl_mark(c, b);
}

/* ---- GPU node sets ---------------------------------------------------- */

#define GS_MAXLEV 7	/* levels of a node set at most (2^31 nodes: 6) */

/*
 * A set of nodes: level 0 has one bit per node, bit w of level k says
 * that word w of level k - 1 is not zero, and the top level is one word.
 */
struct gs {
	unsigned nlev;                /* levels */
	uint64_t *lev[GS_MAXLEV];     /* the words of each level */
	uint32_t nwords[GS_MAXLEV];   /* words of each level */
	uint64_t *buf;                /* storage of all levels */
	size_t total;                 /* words in buf */
};

static void gs_init(struct gs *s, uint32_t n)
{
	uint32_t bits = n;
	size_t at = 0;

	s->nlev = 0;
	s->total = 0;
	do {
		SIM_ASSERT(s->nlev < GS_MAXLEV);
		bits = (bits + CL_BITS - 1) / CL_BITS;
		s->nwords[s->nlev++] = bits;
		s->total += bits;
	} while (bits > 1);
	s->buf = xcalloc(s->total, sizeof(*s->buf));
	for (unsigned l = 0; l < s->nlev; l++) {
		s->lev[l] = s->buf + at;
		at += s->nwords[l];
	}
}

static void gs_clear(struct gs *s)
{
	memset(s->buf, 0, s->total * sizeof(*s->buf));
}

static void gs_add(struct gs *s, uint32_t i)
{
	for (unsigned l = 0; l < s->nlev; l++) {
		uint64_t *w = &s->lev[l][i / CL_BITS];
		uint64_t old = *w;

		*w = old | UINT64_C(1) << (i % CL_BITS);
		if (old)
			break;
		i /= CL_BITS;
	}
}

static void gs_del(struct gs *s, uint32_t i)
{
	for (unsigned l = 0; l < s->nlev; l++) {
		uint64_t *w = &s->lev[l][i / CL_BITS];

		*w &= ~(UINT64_C(1) << (i % CL_BITS));
		if (*w)
			break;
		i /= CL_BITS;
	}
}

/* The first member at or after pos, or CL_NONE (cl_next's walk). */
static uint32_t gs_next(const struct gs *s, uint32_t pos)
{
	unsigned l = 0;
	uint32_t w;
	uint64_t m;

	for (;;) {
		w = pos / CL_BITS;
		if (w >= s->nwords[l])
			return CL_NONE;
		m = s->lev[l][w] & (~UINT64_C(0) << (pos % CL_BITS));
		if (m)
			break;
		if (++l == s->nlev)
			return CL_NONE;
		pos = w + 1;
	}
	pos = w * CL_BITS + (uint32_t)__builtin_ctzll(m);
	while (l--)
		pos = pos * CL_BITS + (uint32_t)__builtin_ctzll(s->lev[l][pos]);
	return pos;
}

/* ---- the GPU index ---------------------------------------------------- */

/* Consecutive nodes first .. end - 1. */
struct cl_range {
	uint32_t first; /* first node */
	uint32_t end;   /* one past the last node */
};

/* Free GPUs by node, count, class and rack: the cluster's, or a view of
 * what each node can give one job. */
struct gx {
	uint8_t *nf;     /* free GPUs of each node */
	struct gs *set;  /* [c], c = 1 .. maxg: nodes with exactly c free;
	                    [0]: nodes with any free */
	uint32_t *cnt;   /* [cls * (maxg + 1) + c]: nodes of class cls with
	                    exactly c free, c >= 1 */
	uint64_t *rfree; /* [rack * ncls + cls]: free GPUs */
	uint64_t *cfree; /* [cls]: free GPUs */
	uint64_t free;   /* free GPUs in all */
};

/* One node of a plan: take count GPUs of node. */
struct gp_pick {
	uint32_t node;  /* the node */
	uint32_t count; /* GPUs to take there */
	uint64_t mask;  /* which, once taken */
	uint32_t cpus;  /* CPUs to take there */
};

/* A rack and its free GPUs for the job being placed. */
struct gp_rack {
	uint32_t rack; /* rack number */
	uint64_t free; /* its free GPUs of the job's class(es) */
};

static struct gx *gx_new(const struct cluster *c)
{
	struct gx *x = xcalloc(1, sizeof(*x));

	x->nf = xcalloc(c->n, sizeof(*x->nf));
	x->set = xcalloc(c->maxg + 1, sizeof(*x->set));
	for (uint32_t k = 0; k <= c->maxg; k++)
		gs_init(&x->set[k], c->n);
	x->cnt = xcalloc((size_t)c->ncls * (c->maxg + 1), sizeof(*x->cnt));
	x->rfree = xcalloc((size_t)c->nracks * c->ncls, sizeof(*x->rfree));
	x->cfree = xcalloc(c->ncls, sizeof(*x->cfree));
	return x;
}

static void gx_free(const struct cluster *c, struct gx *x)
{
	if (!x)
		return;
	for (uint32_t k = 0; k <= c->maxg; k++)
		free(x->set[k].buf);
	free(x->set);
	free(x->nf);
	free(x->cnt);
	free(x->rfree);
	free(x->cfree);
	free(x);
}

/* Empties the index: every node 0 free. */
static void gx_clear(const struct cluster *c, struct gx *x)
{
	memset(x->nf, 0, c->n * sizeof(*x->nf));
	for (uint32_t k = 0; k <= c->maxg; k++)
		gs_clear(&x->set[k]);
	memset(x->cnt, 0, (size_t)c->ncls * (c->maxg + 1) * sizeof(*x->cnt));
	memset(x->rfree, 0, (size_t)c->nracks * c->ncls * sizeof(*x->rfree));
	memset(x->cfree, 0, c->ncls * sizeof(*x->cfree));
	x->free = 0;
}

/* Node v now has f free GPUs. */
static void gx_set(const struct cluster *c, struct gx *x, uint32_t v,
		   uint32_t f)
{
	uint32_t old = x->nf[v], cls = c->ncl[v];
	uint32_t *cnt = &x->cnt[(size_t)cls * (c->maxg + 1)];
	uint32_t r = v / c->rack_nodes;

	if (old == f)
		return;
	SIM_ASSERT(f <= c->maxg);
	if (old) {
		gs_del(&x->set[old], v);
		cnt[old]--;
	} else {
		gs_add(&x->set[0], v);
	}
	if (f) {
		gs_add(&x->set[f], v);
		cnt[f]++;
	} else {
		gs_del(&x->set[0], v);
	}
	x->rfree[(size_t)r * c->ncls + cls] += (uint64_t)f - old;
	x->cfree[cls] += (uint64_t)f - old;
	x->free += (uint64_t)f - old;
	x->nf[v] = (uint8_t)f;
}

/* What node v can give a job of gpus GPUs and cpus CPUs (> 0): its free
 * GPUs, but no more than ceil(cpus * g / gpus) <= free CPUs allows. */
static uint32_t gx_can_give(const struct cluster *c, uint32_t v,
			    uint32_t free_gpus, uint32_t free_cpus,
			    const struct job *j)
{
	uint64_t g = (uint64_t)free_cpus * j->gpus / j->cpus;

	return g < free_gpus ? (uint32_t)g : free_gpus;
}

/* ---- planning --------------------------------------------------------- */

/* One placement being planned. */
struct gp_ctx {
	struct cluster *c;
	struct gx *x;              /* the index planned on */
	const struct cl_range *rg; /* the nodes of the job's GPU type */
	uint32_t nrg;              /* ranges */
	uint32_t cls;              /* the job's class, or ncls = any */
	uint32_t n;                /* picks so far */
};

/* The job's node ranges: all nodes, or those of its type. */
static void gp_ranges(const struct cluster *c, const struct job *j,
		      const struct cl_range **rg, uint32_t *nrg,
		      uint32_t *cls, struct cl_range *all)
{
	*all = (struct cl_range){ .first = 0, .end = c->n };
	if (j->gpu_type == 0) {
		*rg = all;
		*nrg = 1;
		*cls = c->ncls;
	} else {
		uint32_t k = (uint32_t)j->gpu_type - 1;

		*rg = c->crange + c->crange_at[k];
		*nrg = c->crange_at[k + 1] - c->crange_at[k];
		*cls = k;
	}
}

/* The first node of set k at or after pos and before end, in the job's
 * ranges, or CL_NONE. */
static uint32_t gp_find(const struct gp_ctx *p, uint32_t k, uint32_t pos,
			uint32_t end)
{
	for (uint32_t i = 0; i < p->nrg; i++) {
		const struct cl_range *r = &p->rg[i];
		uint32_t v;

		if (r->end <= pos)
			continue;
		if (r->first > pos)
			pos = r->first;
		if (pos >= end)
			break;
		v = gs_next(&p->x->set[k], pos);
		if (v == CL_NONE || v >= end)
			break;
		if (v < r->end)
			return v;
		pos = v;
	}
	return CL_NONE;
}

/* Nodes of the job's class(es) with exactly k free. */
static uint64_t gp_cnt(const struct gp_ctx *p, uint32_t k)
{
	const struct cluster *c = p->c;
	uint64_t s = 0;

	if (p->cls < c->ncls)
		return p->x->cnt[(size_t)p->cls * (c->maxg + 1) + k];
	for (uint32_t i = 0; i < c->ncls; i++)
		s += p->x->cnt[(size_t)i * (c->maxg + 1) + k];
	return s;
}

/* Free GPUs of the job's class(es) in rack r; in all when r is nracks. */
static uint64_t gp_free(const struct gp_ctx *p, uint32_t r)
{
	const struct cluster *c = p->c;
	const uint64_t *f = r < c->nracks ? &p->x->rfree[(size_t)r * c->ncls]
					  : p->x->cfree;
	uint64_t s = 0;

	if (p->cls < c->ncls)
		return f[p->cls];
	for (uint32_t i = 0; i < c->ncls; i++)
		s += f[i];
	return s;
}

static void gp_pick(struct gp_ctx *p, uint32_t v, uint32_t count)
{
	struct cluster *c = p->c;

	if (p->n == c->pcap)
		xgrow(&c->picks, &c->pcap, (size_t)p->n + 1,
		      sizeof(*c->picks));
	c->picks[p->n++] = (struct gp_pick){ .node = v, .count = count };
}

static uint32_t gp_rack_end(const struct cluster *c, uint32_t r)
{
	uint64_t e = (uint64_t)(r + 1) * c->rack_nodes;

	return e < c->n ? (uint32_t)e : c->n;
}

/* The node with the fewest free GPUs that still holds need (lowest
 * number on ties), or CL_NONE. */
static uint32_t gp_tightest(const struct gp_ctx *p, uint32_t need)
{
	for (uint32_t k = need; k <= p->c->maxg; k++) {
		uint32_t v = gp_find(p, k, 0, p->c->n);

		if (v != CL_NONE)
			return v;
	}
	return CL_NONE;
}

/*
 * Nodes first .. end - 1 with the most free GPUs first (lowest number on
 * ties) until need is covered: with take, picks them (the last one only
 * for what is left) and returns what is still needed; without, returns
 * how many nodes it would use, or CL_NONE when more than limit or the
 * nodes do not hold need.
 */
static uint32_t gp_fill(struct gp_ctx *p, uint32_t first, uint32_t end,
			uint32_t need, bool take, uint32_t limit)
{
	uint32_t nodes = 0;

	for (uint32_t k = p->c->maxg; k >= 1 && need; k--) {
		uint32_t v = first;

		while (need && (v = gp_find(p, k, v, end)) != CL_NONE) {
			uint32_t t = k < need ? k : need;

			if (take)
				gp_pick(p, v, t);
			else if (++nodes > limit)
				return CL_NONE;
			need -= t;
			v++;
		}
	}
	if (take)
		return need;
	return need ? CL_NONE : nodes;
}

static void gp_first_fit(struct gp_ctx *p, uint32_t need)
{
	uint32_t v = 0;

	while (need) {
		uint32_t t;

		v = gp_find(p, 0, v, p->c->n);
		SIM_ASSERT(v != CL_NONE);
		t = p->x->nf[v] < need ? p->x->nf[v] : need;
		gp_pick(p, v, t);
		need -= t;
		v++;
	}
}

/* The tightest node when one holds what is left, else the fullest node
 * whole; again. */
static void gp_best_fit(struct gp_ctx *p, uint32_t need)
{
	uint32_t cur[CLUSTER_MAX_NODE_GPUS + 1] = { 0 };
	uint32_t maxg = p->c->maxg;

	while (need) {
		uint32_t k, v = CL_NONE;

		for (k = need; k <= maxg && v == CL_NONE; k++)
			v = gp_find(p, k, cur[k], p->c->n);
		if (v != CL_NONE) {
			gp_pick(p, v, need);
			return;
		}
		for (k = maxg; k >= 1; k--) {
			v = gp_find(p, k, cur[k], p->c->n);
			if (v != CL_NONE)
				break;
		}
		SIM_ASSERT(v != CL_NONE);
		gp_pick(p, v, k);
		cur[k] = v + 1;
		need -= k;
	}
}

/* Fewest nodes a placement of need can use: the fullest nodes first. */
static uint32_t gp_min_nodes(const struct gp_ctx *p, uint32_t need)
{
	uint64_t m = 0, left = need;

	for (uint32_t k = p->c->maxg; k >= 1; k--) {
		uint64_t n = gp_cnt(p, k);

		if (n * k >= left)
			return (uint32_t)(m + (left + k - 1) / k);
		m += n;
		left -= n * k;
	}
	SIM_BUG("gpu placement: '%" PRIu32 "' gpus do not fit", need);
}

static int gp_rack_cmp(const void *a, const void *b)
{
	const struct gp_rack *x = a, *y = b;

	if (x->free != y->free)
		return x->free > y->free ? -1 : 1;
	return x->rack < y->rack ? -1 : x->rack > y->rack;
}

/*
 * Consolidate (fewest nodes, then one rack) and topology (fewest racks,
 * then nodes): one node when one holds the job (the tightest); else one
 * rack, filled fullest nodes first: for consolidate only a rack that
 * needs no more nodes than the fewest possible, the one with the fewest
 * free GPUs; for topology any rack that holds the job, the one needing
 * the fewest nodes, then with the fewest free GPUs.  Else consolidate
 * takes the fullest nodes of the cluster, topology the racks with the
 * most free GPUs first, each filled fullest nodes first.
 */
static void gp_pack(struct gp_ctx *p, uint32_t need, bool topology)
{
	struct cluster *c = p->c;
	uint32_t best = CL_NONE, best_nodes = CL_NONE, limit, min_nodes;
	uint64_t best_free = 0;
	uint32_t v = need <= c->maxg ? gp_tightest(p, need) : CL_NONE;

	if (v != CL_NONE) {
		gp_pick(p, v, need);
		return;
	}
	/* No rack does with fewer nodes than the cluster; consolidate
	 * wants no more.  A rack that cannot beat the best so far is not
	 * filled: consolidate's candidates all need min_nodes, so only
	 * fewer free GPUs wins; topology's must need fewer nodes, or as
	 * many with fewer free GPUs. */
	min_nodes = gp_min_nodes(p, need);
	for (uint32_t r = 0; r < c->nracks; r++) {
		uint64_t f = gp_free(p, r);
		uint32_t m;

		if (f < need)
			continue;
		limit = topology ? UINT32_MAX - 1 : min_nodes;
		if (best != CL_NONE) {
			limit = f < best_free ? best_nodes : best_nodes - 1;
			if (limit < min_nodes)
				continue;
		}
		m = gp_fill(p, r * c->rack_nodes, gp_rack_end(c, r), need,
			    false, limit);
		if (m == CL_NONE)
			continue;
		if (best == CL_NONE || m < best_nodes ||
		    (m == best_nodes && f < best_free)) {
			best = r;
			best_nodes = m;
			best_free = f;
		}
	}
	if (best != CL_NONE) {
		need = gp_fill(p, best * c->rack_nodes, gp_rack_end(c, best),
			       need, true, 0);
	} else if (!topology) {
		need = gp_fill(p, 0, c->n, need, true, 0);
	} else {
		uint32_t n = 0;

		if (!c->rk)
			c->rk = xmalloc(c->nracks * sizeof(*c->rk));
		for (uint32_t r = 0; r < c->nracks; r++) {
			uint64_t f = gp_free(p, r);

			if (f)
				c->rk[n++] = (struct gp_rack){ r, f };
		}
		qsort(c->rk, n, sizeof(*c->rk), gp_rack_cmp);
		for (uint32_t i = 0; i < n && need; i++) {
			uint32_t r = c->rk[i].rack;

			need = gp_fill(p, r * c->rack_nodes, gp_rack_end(c, r),
				       need, true, 0);
		}
	}
	SIM_ASSERT(need == 0);
}

/*
 * Spread: rounds of one GPU from every node with one left, the fullest
 * first (lowest number on ties), until need is met.  After K full rounds
 * a node with k free has given min(k, K); the last, partial round takes
 * one more from the fullest nodes with more than K.  K and the partial
 * round follow from the per-count node counts.
 */
static void gp_spread(struct gp_ctx *p, uint32_t need)
{
	uint32_t maxg = p->c->maxg, K = 0;
	uint64_t done = 0, rem;

	for (;;) {
		uint64_t next = done;

		/* One more full round: every node with more than K gives 1. */
		for (uint32_t k = K + 1; k <= maxg; k++)
			next += gp_cnt(p, k);
		if (next > need || next == done)
			break;
		done = next;
		K++;
	}
	rem = need - done;
	for (uint32_t k = maxg; k >= 1; k--) {
		uint32_t v = 0;

		if (K == 0 && rem == 0)
			break;
		while ((v = gp_find(p, k, v, p->c->n)) != CL_NONE) {
			uint32_t t = k < K ? k : K;

			if (k > K && rem) {
				t++;
				rem--;
			}
			if (t)
				gp_pick(p, v, t);
			else
				break;
			v++;
		}
	}
	SIM_ASSERT(rem == 0);
}

/* Uniform in [0, n), n > 0: Lemire's multiply-shift with rejection. */
static uint64_t gp_uniform(uint64_t *rng, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)place_rng_next(rng) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t t = -n % n;

		while (lo < t) {
			m = (unsigned __int128)place_rng_next(rng) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* The node of rank i (from 0) among the job's nodes with free GPUs. */
static uint32_t gp_select(const struct gp_ctx *p, uint64_t i)
{
	const struct gs *s = &p->x->set[0];

	for (uint32_t r = 0; r < p->nrg; r++) {
		uint32_t a = p->rg[r].first, e = p->rg[r].end;

		for (uint32_t w = a / CL_BITS; w * CL_BITS < e; w++) {
			uint64_t m = s->lev[0][w];
			unsigned lo = w * CL_BITS < a ? a % CL_BITS : 0;
			unsigned n;

			m &= ~UINT64_C(0) << lo;
			if (e - w * CL_BITS < CL_BITS)
				m &= cl_mask(0, e - w * CL_BITS);
			n = (unsigned)__builtin_popcountll(m);
			if (i >= n) {
				i -= n;
				continue;
			}
			while (i--)
				m &= m - 1;
			return w * CL_BITS + (uint32_t)__builtin_ctzll(m);
		}
	}
	SIM_BUG("gpu placement: random rank past the free nodes");
}

/* Random: nodes with free GPUs drawn uniformly (without replacement),
 * min(free, still needed) from each.  Drawn nodes leave set 0 while
 * drawing and come back after. */
static void gp_random(struct gp_ctx *p, uint32_t need, uint64_t *rng)
{
	uint64_t left = 0;
	uint32_t first = p->n;

	for (uint32_t k = 1; k <= p->c->maxg; k++)
		left += gp_cnt(p, k);
	while (need) {
		uint32_t v, t;

		SIM_ASSERT(left > 0);
		v = gp_select(p, gp_uniform(rng, left--));
		t = p->x->nf[v] < need ? p->x->nf[v] : need;
		gp_pick(p, v, t);
		gs_del(&p->x->set[0], v);
		need -= t;
	}
	for (uint32_t i = first; i < p->n; i++)
		gs_add(&p->x->set[0], p->c->picks[i].node);
}

/* ---- applying a plan -------------------------------------------------- */

/* Takes cpus CPUs of node v, which has them. */
static void cl_take_cpus(struct cluster *c, uint32_t v, uint32_t cpus)
{
	uint32_t b = v / CL_BITS;
	struct cl_block *k = &c->blk[b];
	uint64_t bit = UINT64_C(1) << (v % CL_BITS);
	uint32_t fr = cl_node_free(c, v);
	bool had = cl_avail(c, k) != 0;

	if (!cpus)
		return;
	SIM_ASSERT(fr >= cpus);
	if (k->idle & bit) {
		k->idle &= ~bit;
		c->idle_nodes--;
	}
	fr -= cpus;
	if (fr)
		c->node[v].part = fr;
	else
		k->free &= ~bit;
	c->free_cpus -= cpus;
	if (had && !cl_avail(c, k))
		cl_unmark(c, b);
}

static int gp_pick_cmp(const void *a, const void *b)
{
	const struct gp_pick *x = a, *y = b;

	return x->node < y->node ? -1 : x->node > y->node;
}

/* Takes the planned GPUs (the lowest-numbered free ones of each node)
 * and CPUs, and writes the placement in node order. */
static void gp_apply(struct cluster *c, const struct job *j, uint32_t n,
		     struct placement *out)
{
	struct gp_pick *pk = c->picks;
	uint64_t sum = 0, prev = 0;

	qsort(pk, n, sizeof(*pk), gp_pick_cmp);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = pk[i].node;
		uint64_t m = c->gmask[v];

		SIM_ASSERT(i == 0 || pk[i - 1].node < v);
		SIM_ASSERT(pk[i].count >= 1 && pk[i].count <= c->gx->nf[v]);
		for (uint32_t t = 0; t < pk[i].count; t++) {
			pk[i].mask |= m & -m;
			m &= m - 1;
		}
		c->gmask[v] = m;
		gx_set(c, c->gx, v, c->gx->nf[v] - pk[i].count);
		sum += pk[i].count;
		pk[i].cpus = (uint32_t)((uint64_t)j->cpus * sum / j->gpus -
					prev);
		prev += pk[i].cpus;
		cl_take_cpus(c, v, pk[i].cpus);
	}
	SIM_ASSERT(sum == j->gpus && prev == j->cpus);
	out->n = 0;
	if (out->cap < n) {
		size_t cap = out->cap;

		xgrow(&out->slots, &cap, n, sizeof(*out->slots));
		SIM_ASSERT(cap <= UINT32_MAX);
		out->cap = (uint32_t)cap;
	}
	for (uint32_t i = 0; i < n; i++)
		out->slots[out->n++] = (struct place_slot){
			.node = pk[i].node, .count = 1, .cpus = pk[i].cpus,
			.gpus = pk[i].count, .gpu_mask = pk[i].mask,
		};
}

/* Builds the view: what each node of the job's type can give it with
 * its CPUs.  Returns the GPUs the job could get in all. */
static uint64_t gp_build_view(struct cluster *c, const struct gp_ctx *p,
			      const struct job *j)
{
	if (!c->view)
		c->view = gx_new(c);
	gx_clear(c, c->view);
	for (uint32_t r = 0; r < p->nrg; r++)
		for (uint32_t v = p->rg[r].first; v < p->rg[r].end; v++)
			if (c->gx->nf[v])
				gx_set(c, c->view, v,
				       gx_can_give(c, v, c->gx->nf[v],
						   cl_node_free(c, v), j));
	return c->view->free;
}

/* Gives a GPU slot's GPUs back to node v (the lowest busy ones when the
 * slot does not say which). */
static void gp_give(struct cluster *c, uint32_t v, uint32_t gpus,
		    uint64_t mask)
{
	uint64_t busy;

	SIM_ASSERT(c->maxg && gpus <= c->gcap[v]);
	busy = cl_mask(0, c->gcap[v]) & ~c->gmask[v];
	if (!mask) {
		uint64_t m = busy;

		for (uint32_t t = 0; t < gpus; t++) {
			mask |= m & -m;
			m &= m - 1;
		}
	}
	SIM_ASSERT((uint32_t)__builtin_popcountll(mask) == gpus);
	SIM_ASSERT((mask & busy) == mask);
	c->gmask[v] |= mask;
	gx_set(c, c->gx, v, c->gx->nf[v] + gpus);
}

/* Sets up the GPU index of a new cluster from its spec. */
static void gp_setup(struct cluster *c, const struct cluster_spec *s)
{
	bool untyped = false;
	uint32_t nr = 0;

	for (size_t g = 0; g < s->ngroups; g++)
		if (s->groups[g].gpus > c->maxg)
			c->maxg = s->groups[g].gpus;
	c->rack_nodes = s->rack_nodes && s->rack_nodes < c->n ?
			s->rack_nodes : c->n;
	c->nracks = (c->n + c->rack_nodes - 1) / c->rack_nodes;
	c->gcls = xcalloc(c->ngroups, sizeof(*c->gcls));
	c->tname = xcalloc(c->ngroups, sizeof(*c->tname));
	for (uint32_t g = 0; g < c->ngroups; g++) {
		const char *t = s->groups[g].gpu_type;
		uint32_t k = 0;

		if (!s->groups[g].gpus)
			continue;
		if (!t) {
			untyped = true;
			continue;
		}
		while (k < c->ntypes && strcmp(c->tname[k], t))
			k++;
		if (k == c->ntypes)
			c->tname[c->ntypes++] = xstrdup(t);
		c->gcls[g] = k;
	}
	c->ncls = c->ntypes + untyped;
	for (uint32_t g = 0; g < c->ngroups; g++)
		if (s->groups[g].gpus && !s->groups[g].gpu_type)
			c->gcls[g] = c->ntypes;
	if (!c->maxg)
		return;
	SIM_ASSERT(c->maxg <= CLUSTER_MAX_NODE_GPUS);
	c->ctotal = xcalloc(c->ncls, sizeof(*c->ctotal));
	c->ncl = xcalloc(c->n, sizeof(*c->ncl));
	c->gcap = xcalloc(c->n, sizeof(*c->gcap));
	c->gmask = xcalloc(c->n, sizeof(*c->gmask));
	for (uint32_t g = 0; g < c->ngroups; g++) {
		for (uint32_t v = c->gstart[g]; v < c->gstart[g + 1]; v++) {
			c->ncl[v] = c->gcls[g];
			c->gcap[v] = (uint8_t)c->ggpus[g];
		}
		c->ctotal[c->gcls[g]] += (uint64_t)(c->gstart[g + 1] -
						    c->gstart[g]) * c->ggpus[g];
		c->total_gpus += (uint64_t)(c->gstart[g + 1] - c->gstart[g]) *
				 c->ggpus[g];
	}
	/* Node ranges of each class: its groups, neighbours merged. */
	c->crange = xcalloc(c->ngroups, sizeof(*c->crange));
	c->crange_at = xcalloc(c->ncls + 1, sizeof(*c->crange_at));
	for (uint32_t k = 0; k < c->ncls; k++) {
		c->crange_at[k] = nr;
		for (uint32_t g = 0; g < c->ngroups; g++) {
			if (!c->ggpus[g] || c->gcls[g] != k)
				continue;
			if (nr > c->crange_at[k] &&
			    c->crange[nr - 1].end == c->gstart[g])
				c->crange[nr - 1].end = c->gstart[g + 1];
			else
				c->crange[nr++] = (struct cl_range){
					c->gstart[g], c->gstart[g + 1] };
		}
	}
	c->crange_at[c->ncls] = nr;
	c->gx = gx_new(c);
}

static void gp_reset(struct cluster *c)
{
	if (!c->maxg)
		return;
	gx_clear(c, c->gx);
	for (uint32_t v = 0; v < c->n; v++) {
		c->gmask[v] = cl_mask(0, c->gcap[v]);
		if (c->gcap[v])
			gx_set(c, c->gx, v, c->gcap[v]);
	}
}

/* ---- GPU invariants --------------------------------------------------- */

/* Level 0 of set k against the nodes, then every level against the one
 * below. */
static int gp_check_set(const struct cluster *c, uint32_t k,
			struct sim_error *err)
{
	const struct gs *s = &c->gx->set[k];

	for (uint32_t w = 0; w < s->nwords[0]; w++) {
		uint64_t m = 0;

		for (uint32_t i = 0; i < CL_BITS; i++) {
			uint64_t v = (uint64_t)w * CL_BITS + i;
			uint32_t f = v < c->n ? c->gx->nf[v] : 0;

			m |= (uint64_t)(k ? f == k : f > 0) << i;
		}
		if (s->lev[0][w] != m)
			return err_setc(err, -SIM_ESTATE, "cluster: gpu set '%"
					PRIu32 "' word '%" PRIu32 "' is wrong",
					k, w);
	}
	for (unsigned l = 1; l < s->nlev; l++)
		for (uint32_t w = 0; w < s->nwords[l]; w++) {
			uint64_t m = 0;

			for (uint32_t i = 0; i < CL_BITS; i++) {
				uint64_t u = (uint64_t)w * CL_BITS + i;

				m |= (uint64_t)(u < s->nwords[l - 1] &&
						s->lev[l - 1][u]) << i;
			}
			if (s->lev[l][w] != m)
				return err_setc(err, -SIM_ESTATE, "cluster: "
						"gpu set '%" PRIu32 "' summary "
						"level '%u' word '%" PRIu32
						"' is wrong", k, l, w);
		}
	if (s->nwords[s->nlev - 1] != 1)
		return err_setc(err, -SIM_ESTATE, "cluster: gpu set '%" PRIu32
				"' has no single top word", k);
	return 0;
}

static int gp_check(const struct cluster *c, struct sim_error *err)
{
	size_t ncnt = (size_t)c->ncls * (c->maxg + 1);
	size_t nrf = (size_t)c->nracks * c->ncls;
	uint32_t *cnt = NULL;
	uint64_t *rf = NULL, *cf = NULL, all = 0, total = 0;
	uint32_t g = 0;
	int rc = 0;

	if (!c->maxg)
		return c->total_gpus ? err_setc(err, -SIM_ESTATE, "cluster: "
						"no gpu index for '%" PRIu64
						"' gpus", c->total_gpus) : 0;
	cnt = xcalloc(ncnt, sizeof(*cnt));
	rf = xcalloc(nrf, sizeof(*rf));
	cf = xcalloc(c->ncls, sizeof(*cf));
	for (uint32_t v = 0; v < c->n; v++) {
		uint32_t f = c->gx->nf[v], cls = c->ncl[v];

		while (v >= c->gstart[g + 1])
			g++;
		if (c->gcap[v] != c->ggpus[g] ||
		    (c->ggpus[g] && cls != c->gcls[g])) {
			rc = err_setc(err, -SIM_ESTATE, "cluster: node '%"
				      PRIu32 "' has '%u' gpus of class '%"
				      PRIu32 "', its group '%" PRIu32 "' of '%"
				      PRIu32 "'", v, c->gcap[v], cls,
				      c->ggpus[g], c->gcls[g]);
			goto out;
		}
		if ((c->gmask[v] & ~cl_mask(0, c->gcap[v])) ||
		    (uint32_t)__builtin_popcountll(c->gmask[v]) != f) {
			rc = err_setc(err, -SIM_ESTATE, "cluster: node '%"
				      PRIu32 "' gpu mask '%#" PRIx64 "' does "
				      "not match '%" PRIu32 "' free of '%u'",
				      v, c->gmask[v], f, c->gcap[v]);
			goto out;
		}
		total += c->gcap[v];
		if (!f)
			continue;
		cnt[(size_t)cls * (c->maxg + 1) + f]++;
		rf[(size_t)(v / c->rack_nodes) * c->ncls + cls] += f;
		cf[cls] += f;
		all += f;
	}
	if (total != c->total_gpus || all != c->gx->free ||
	    memcmp(cnt, c->gx->cnt, ncnt * sizeof(*cnt)) ||
	    memcmp(rf, c->gx->rfree, nrf * sizeof(*rf)) ||
	    memcmp(cf, c->gx->cfree, c->ncls * sizeof(*cf))) {
		rc = err_setc(err, -SIM_ESTATE, "cluster: gpu counters (free '%"
			      PRIu64 "' of '%" PRIu64 "') do not match the "
			      "nodes ('%" PRIu64 "' of '%" PRIu64 "')",
			      c->gx->free, c->total_gpus, all, total);
		goto out;
	}
	for (uint32_t k = 0; k <= c->maxg && !rc; k++)
		rc = gp_check_set(c, k, err);
out:
	free(cnt);
	free(rf);
	free(cf);
	return rc;
}

/* ---- the cluster ------------------------------------------------------ */

struct cluster *cluster_new(const struct cluster_spec *s)
{
	struct cluster *c = xcalloc(1, sizeof(*c));
	uint64_t n = 0;
	size_t words = 0;
	uint32_t bits;

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

	c->nblocks = (c->n + CL_BITS - 1) / CL_BITS;
	c->blk = xcalloc(c->nblocks, sizeof(*c->blk));
	c->node = xcalloc(c->n, sizeof(*c->node));
	for (uint32_t g = 0; g < c->ngroups; g++)
		for (uint32_t i = c->gstart[g]; i < c->gstart[g + 1]; i++)
			c->node[i].cap = c->gcpus[g];
	for (uint32_t b = 0; b < c->nblocks; b++) {
		uint32_t end = c->n - b * CL_BITS < CL_BITS ?
			       c->n : b * CL_BITS + CL_BITS;
		uint32_t cap = c->node[b * CL_BITS].cap;

		for (uint32_t i = b * CL_BITS; i < end; i++)
			if (c->node[i].cap != cap)
				cap = 0;
		c->blk[b].cap = cap;
	}
	/* Exclusive mode takes whole runs, which needs equal nodes. */
	for (uint32_t b = 0; b < c->nblocks; b++)
		SIM_ASSERT(!c->exclusive || c->blk[b].cap);

	bits = c->nblocks;
	do {
		SIM_ASSERT(c->nlev < CL_MAXLEV);
		bits = (bits + CL_BITS - 1) / CL_BITS;
		c->nwords[c->nlev++] = bits;
		words += bits;
	} while (bits > 1);
	c->sumbuf = xcalloc(words, sizeof(*c->sumbuf));
	for (unsigned lev = 0, at = 0; lev < c->nlev; lev++) {
		c->sum[lev] = c->sumbuf + at;
		at += c->nwords[lev];
	}
	gp_setup(c, s);
	cluster_reset(c);
	return c;
}

void cluster_free(struct cluster *c)
{
	if (!c)
		return;
	free(c->blk);
	free(c->node);
	free(c->sumbuf);
	free(c->gstart);
	free(c->gcpus);
	free(c->ggpus);
	for (uint32_t k = 0; k < c->ntypes; k++)
		free(c->tname[k]);
	free(c->tname);
	free(c->gcls);
	free(c->ncl);
	free(c->gcap);
	free(c->gmask);
	free(c->ctotal);
	free(c->crange);
	free(c->crange_at);
	gx_free(c, c->gx);
	gx_free(c, c->view);
	free(c->picks);
	free(c->rk);
	free(c);
}

void cluster_reset(struct cluster *c)
{
	for (uint32_t b = 0; b < c->nblocks; b++)
		c->blk[b].free = c->blk[b].idle = cl_valid(c, b);
	for (unsigned lev = 0; lev < c->nlev; lev++)
		for (uint32_t w = 0; w < c->nwords[lev]; w++)
			c->sum[lev][w] = cl_sum_word(c, lev, w);
	c->free_cpus = c->total_cpus;
	c->idle_nodes = c->n;
	gp_reset(c);
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
	return c->free_cpus;
}

uint32_t cluster_idle_nodes(const struct cluster *c)
{
	return c->idle_nodes;
}

uint32_t cluster_node_cpus(const struct cluster *c, uint32_t node)
{
	SIM_ASSERT(node < c->n);
	return c->node[node].cap;
}

uint32_t cluster_node_free_cpus(const struct cluster *c, uint32_t node)
{
	SIM_ASSERT(node < c->n);
	return cl_node_free(c, node);
}

bool cluster_exclusive(const struct cluster *c)
{
	return c->exclusive;
}

uint64_t cluster_demand(const struct cluster *c, const struct job *j)
{
	uint64_t per;

	if (j->gpus)
		return j->gpus;
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
	return c->exclusive ? c->idle_nodes : c->free_cpus;
}

/*
 * Could a GPU job get its GPUs, each node giving min(free GPUs, what its
 * CPUs allow), with free as the cluster is now or empty?  O(1) for a job
 * without CPUs, O(nodes of its type) with.
 */
static bool gp_fits(const struct cluster *c, const struct job *j, bool now)
{
	const struct cl_range *rg;
	struct cl_range all;
	uint32_t nrg, cls;
	uint64_t sum = 0;

	if (!c->maxg || j->gpu_type > c->ntypes)
		return false;
	gp_ranges(c, j, &rg, &nrg, &cls, &all);
	if (cls < c->ncls ? (now ? c->gx->cfree[cls] : c->ctotal[cls]) < j->gpus
			  : (now ? c->gx->free : c->total_gpus) < j->gpus)
		return false;
	if (!j->cpus)
		return true;
	if ((now ? c->free_cpus : c->total_cpus) < j->cpus)
		return false;
	for (uint32_t r = 0; r < nrg; r++)
		for (uint32_t v = rg[r].first; v < rg[r].end; v++) {
			uint32_t f = now ? c->gx->nf[v] : c->gcap[v];

			if (!f)
				continue;
			sum += gx_can_give(c, v, f, now ? cl_node_free(c, v) :
					   c->node[v].cap, j);
			if (sum >= j->gpus)
				return true;
		}
	return false;
}

bool cluster_can_ever_fit(const struct cluster *c, const struct job *j)
{
	if (j->gpus)
		return gp_fits(c, j, false);
	return cluster_demand(c, j) <= cluster_capacity(c);
}

bool cluster_fits(const struct cluster *c, const struct job *j)
{
	if (j->gpus)
		return gp_fits(c, j, true);
	return cluster_demand(c, j) <= cluster_free_units(c);
}

int cluster_alloc(struct cluster *c, const struct job *j,
		  struct placement *out)
{
	uint64_t need = cluster_demand(c, j);

	if (j->gpus)
		return cluster_alloc_gpus(c, j, PLACE_FIRST_FIT, NULL, out);

	if (need > cluster_free_units(c))
		return -SIM_ESTATE;
	out->n = 0;
	/* Below the free units, so below 2^32. */
	if (need)
		cl_take(c, (uint32_t)need, out);
	return 0;
}

/* Slots go back one by one, in any order, block part by block part; empty
 * ones are skipped. */
void cluster_release(struct cluster *c, const struct placement *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		const struct place_slot *s = &p->slots[i];
		uint32_t v = s->node, left = s->count;

		if (!s->count)
			continue;
		SIM_ASSERT(s->node < c->n && s->count <= c->n - s->node);
		if (s->gpus)
			for (uint32_t k = 0; k < s->count; k++)
				gp_give(c, s->node + k, s->gpus,
					s->count == 1 ? s->gpu_mask : 0);
		if (!s->cpus)
			continue;
		while (left) {
			unsigned lo = v % CL_BITS;
			unsigned k = CL_BITS - lo < left ? CL_BITS - lo : left;

			cl_give(c, v / CL_BITS, lo, k, s->cpus);
			v += k;
			left -= k;
		}
	}
}

/* ---- invariant check -------------------------------------------------- */

/* Block b against its nodes: sizes, masks, partly used counts; adds its
 * free CPUs and idle nodes to the sums. */
static int cl_check_block(const struct cluster *c, uint32_t b,
			  uint32_t *g, uint64_t *free_sum, uint32_t *idle,
			  struct sim_error *err)
{
	const struct cl_block *k = &c->blk[b];
	uint64_t valid = cl_valid(c, b);
	uint32_t cap = c->node[b * CL_BITS].cap;

	if ((k->free | k->idle) & ~valid)
		return err_setc(err, -SIM_ESTATE, "cluster: block '%" PRIu32
				"' has bits past the last node", b);
	if (k->idle & ~k->free)
		return err_setc(err, -SIM_ESTATE, "cluster: block '%" PRIu32
				"' has idle nodes without free cpus", b);
	for (unsigned i = 0; i < CL_BITS && (valid >> i & 1); i++) {
		uint32_t v = b * CL_BITS + i;
		const struct cl_node *nd = &c->node[v];
		uint64_t bit = UINT64_C(1) << i;

		while (v >= c->gstart[*g + 1])
			(*g)++;
		if (nd->cap != c->gcpus[*g])
			return err_setc(err, -SIM_ESTATE, "cluster: node '%"
					PRIu32 "' has '%" PRIu32 "' cpus, its "
					"group '%" PRIu32 "'", v, nd->cap,
					c->gcpus[*g]);
		if (nd->cap != cap)
			cap = 0;
		if ((k->free & bit) && !(k->idle & bit) &&
		    (nd->part == 0 || nd->part >= nd->cap))
			return err_setc(err, -SIM_ESTATE, "cluster: node '%"
					PRIu32 "' is partly used with '%" PRIu32
					"' free cpus of '%" PRIu32 "'", v,
					nd->part, nd->cap);
		*free_sum += cl_node_free(c, v);
		*idle += (k->idle & bit) != 0;
	}
	if (k->cap != cap)
		return err_setc(err, -SIM_ESTATE, "cluster: block '%" PRIu32
				"' says node size '%" PRIu32 "', nodes say '%"
				PRIu32 "'", b, k->cap, cap);
	return 0;
}

int cluster_check(const struct cluster *c, struct sim_error *err)
{
	uint64_t free_sum = 0, total = 0;
	uint32_t idle = 0, g = 0;
	int rc;

	for (uint32_t b = 0; b < c->nblocks; b++) {
		rc = cl_check_block(c, b, &g, &free_sum, &idle, err);
		if (rc)
			return rc;
	}
	for (uint32_t v = 0; v < c->n; v++)
		total += c->node[v].cap;
	if (total != c->total_cpus)
		return err_setc(err, -SIM_ESTATE, "cluster: nodes have '%"
				PRIu64 "' cpus, total says '%" PRIu64 "'",
				total, c->total_cpus);
	if (free_sum != c->free_cpus || idle != c->idle_nodes)
		return err_setc(err, -SIM_ESTATE, "cluster: totals say '%"
				PRIu64 "' free cpus and '%" PRIu32 "' idle "
				"nodes, nodes say '%" PRIu64 "' and '%" PRIu32
				"'", c->free_cpus, c->idle_nodes, free_sum,
				idle);
	/* Bottom up, each level against the one below (or the blocks). */
	for (unsigned lev = 0; lev < c->nlev; lev++)
		for (uint32_t w = 0; w < c->nwords[lev]; w++)
			if (c->sum[lev][w] != cl_sum_word(c, lev, w))
				return err_setc(err, -SIM_ESTATE, "cluster: "
						"summary level '%u' word '%"
						PRIu32 "' is wrong", lev, w);
	if (c->nwords[c->nlev - 1] != 1)
		return err_setc(err, -SIM_ESTATE, "cluster: summary has no "
				"single top word");
	return gp_check(c, err);
}

/* ---- whole GPUs: the API ---------------------------------------------- */

static const char *const place_names[] = {
	[PLACE_FIRST_FIT] = "first_fit",
	[PLACE_BEST_FIT] = "best_fit",
	[PLACE_CONSOLIDATE] = "consolidate",
	[PLACE_SPREAD] = "spread",
	[PLACE_RANDOM] = "random",
	[PLACE_TOPOLOGY] = "topology",
};
static_assert(ARRAY_SIZE(place_names) == PLACE_NSTRATEGIES,
	      "a name for every placement strategy");

const char *place_strategy_name(enum place_strategy s)
{
	return (unsigned)s < PLACE_NSTRATEGIES ? place_names[s] : NULL;
}

int place_strategy_parse(const char *name, enum place_strategy *out,
			 struct sim_error *err)
{
	for (unsigned i = 0; i < PLACE_NSTRATEGIES; i++)
		if (name && !strcmp(name, place_names[i])) {
			*out = (enum place_strategy)i;
			return 0;
		}
	return err_set(err, "unknown placement '%s' (first_fit, best_fit, "
		       "consolidate, spread, random, topology)",
		       name ? name : "");
}

uint64_t place_rng_next(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

uint64_t cluster_total_gpus(const struct cluster *c)
{
	return c->total_gpus;
}

uint64_t cluster_free_gpus(const struct cluster *c)
{
	return c->maxg ? c->gx->free : 0;
}

uint32_t cluster_node_gpus(const struct cluster *c, uint32_t node)
{
	SIM_ASSERT(node < c->n);
	return c->maxg ? c->gcap[node] : 0;
}

uint32_t cluster_node_free_gpus(const struct cluster *c, uint32_t node)
{
	SIM_ASSERT(node < c->n);
	return c->maxg ? c->gx->nf[node] : 0;
}

uint64_t cluster_node_free_gpu_mask(const struct cluster *c, uint32_t node)
{
	SIM_ASSERT(node < c->n);
	return c->maxg ? c->gmask[node] : 0;
}

uint32_t cluster_racks(const struct cluster *c)
{
	return c->nracks;
}

uint32_t cluster_rack_of(const struct cluster *c, uint32_t node)
{
	SIM_ASSERT(node < c->n);
	return node / c->rack_nodes;
}

uint64_t cluster_rack_free_gpus(const struct cluster *c, uint32_t rack)
{
	uint64_t s = 0;

	SIM_ASSERT(rack < c->nracks);
	for (uint32_t k = 0; c->maxg && k < c->ncls; k++)
		s += c->gx->rfree[(size_t)rack * c->ncls + k];
	return s;
}

uint32_t cluster_gpu_type_count(const struct cluster *c)
{
	return c->ntypes;
}

int cluster_gpu_type_index(const struct cluster *c, const char *name)
{
	for (uint32_t k = 0; name && k < c->ntypes; k++)
		if (!strcmp(c->tname[k], name))
			return (int)k;
	return -1;
}

const char *cluster_gpu_type_name(const struct cluster *c, uint32_t idx)
{
	SIM_ASSERT(idx < c->ntypes);
	return c->tname[idx];
}

int cluster_alloc_gpus(struct cluster *c, const struct job *j,
		       enum place_strategy strategy, uint64_t *rng,
		       struct placement *out)
{
	struct gp_ctx p = { .c = c };
	struct cl_range all;

	if ((unsigned)strategy >= PLACE_NSTRATEGIES ||
	    (strategy == PLACE_RANDOM && !rng))
		return -SIM_EINPUT;
	if (!j->gpus)
		return cluster_alloc(c, j, out);
	if (!cluster_fits(c, j))
		return -SIM_ESTATE;
	gp_ranges(c, j, &p.rg, &p.nrg, &p.cls, &all);
	p.x = c->gx;
	if (j->cpus) {
		gp_build_view(c, &p, j);
		p.x = c->view;
	}
	switch (strategy) {
	case PLACE_FIRST_FIT:
		gp_first_fit(&p, j->gpus);
		break;
	case PLACE_BEST_FIT:
		gp_best_fit(&p, j->gpus);
		break;
	case PLACE_CONSOLIDATE:
		gp_pack(&p, j->gpus, false);
		break;
	case PLACE_TOPOLOGY:
		gp_pack(&p, j->gpus, true);
		break;
	case PLACE_SPREAD:
		gp_spread(&p, j->gpus);
		break;
	case PLACE_RANDOM:
		gp_random(&p, j->gpus, rng);
		break;
	default:
		SIM_BUG("placement strategy '%d'", (int)strategy);
	}
	gp_apply(c, j, p.n, out);
	return 0;
}
