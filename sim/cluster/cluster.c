/*
 * The cluster model: node groups, the cluster object, per-node free CPUs
 * and their first-fit placement index.
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
 * Above the blocks sits a summary bitmap, 64-ary (a struct bset, see
 * base/bitset.h): bit b of level 0 says that block b has a free unit (a
 * node with free CPUs, or an idle node when exclusive), and bit w of level
 * k that word w of level k - 1 is not zero.  Finding the first block at or
 * after a position with something free costs a few word reads (2 levels
 * for Curie's 1,458 blocks, at most 5 for 2^31 nodes), and the whole index
 * of Curie is 24 words.  Totals (free CPUs, idle nodes) are plain counters.
 *
 * Why: this is the simulator's hot spot, every job start and end of a
 * trace replay.  The segment tree it replaces visited ~115 tree nodes per
 * allocation on Curie's 93,312 one-CPU nodes (17 levels).  Here a first
 * fit finds its blocks through the summary and its extents with count-
 * trailing-zeros on the masks: one-CPU nodes are never partly used, so on
 * Curie every extent is one run of idle bits.  A job spanning many blocks
 * takes the whole idle ones in a run ("whole blocks" below): two stores
 * per block and the summary one word of 64 blocks at a time (an
 * 80,000-CPU job: 1,250 blocks, about a microsecond), and gives them back
 * the same way, which is cheaper in practice than lazy range tags.
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
 * Whole GPUs (a job with gpus > 0) have an index of their own beside this
 * one, in cluster_gpu.c, touched by GPU jobs only, so the CPU path costs
 * what it did.  This file keeps what both kinds of job go through: the
 * node groups and their checks, the cluster object, and the public
 * functions that look at a job and hand a GPU job to cluster_gpu.c
 * (fits, alloc, release, reset, check).  struct cluster and the helpers
 * both files use are in cluster_impl.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_impl.h"

/* ---- node groups ------------------------------------------------------ */

void cluster_spec_release(struct cluster_spec *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ngroups && s->groups; i++) {
		free(s->groups[i].name);
		free(s->groups[i].gpu_type);
		free(s->groups[i].vc);
	}
	free(s->groups);
	s->groups = NULL;
	s->ngroups = 0;
	cluster_tenants_release(s);
	cluster_slurm_release(s);
}

void cluster_spec_copy(struct cluster_spec *dst,
		       const struct cluster_spec *src)
{
	*dst = *src;
	dst->groups = NULL;
	cluster_tenants_copy(dst, src);
	cluster_slurm_copy(dst, src);
	if (!src->ngroups || !src->groups)
		return;
	dst->groups = xcalloc(src->ngroups, sizeof(*dst->groups));
	for (size_t i = 0; i < src->ngroups; i++) {
		const struct node_group *g = &src->groups[i];

		dst->groups[i] = *g;
		dst->groups[i].name = g->name ? xstrdup(g->name) : NULL;
		dst->groups[i].gpu_type = g->gpu_type ? xstrdup(g->gpu_type) :
					  NULL;
		dst->groups[i].vc = g->vc ? xstrdup(g->vc) : NULL;
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
		/* VCs partition the GPU index only: CPU jobs are placed by
		 * the CPU first fit over every node. */
		if (g->vc && !g->gpus)
			return err_set(err, "%s$.cluster.nodes[%zu].vc: "
				       "virtual clusters partition gpu nodes "
				       "only, the group has no gpus (vc '%s')",
				       p, i, g->vc);
		if (g->vc && !g->vc[0])
			return err_set(err, "%s$.cluster.nodes[%zu].vc: "
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

/* What word w of summary level lev must hold, from the blocks or the
 * level below. */
static uint64_t cl_sum_word(const struct cluster *c, unsigned lev,
			    uint32_t w)
{
	uint64_t m = 0;

	if (lev)
		return bset_word_below(&c->sum, lev, w);
	for (unsigned j = 0; j < CL_BITS; j++) {
		uint64_t i = (uint64_t)w * CL_BITS + j;

		m |= (uint64_t)(i < c->nblocks && cl_avail(c, &c->blk[i])) << j;
	}
	return m;
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
		cl_reserve(out, (size_t)out->n + 1);
	out->slots[out->n++] = (struct place_slot){
		.node = node, .count = count, .cpus = cpus, .gpus = 0,
	};
}

/* ---- first fit -------------------------------------------------------- */

/* Takes take (1 .. fr) of the fr free CPUs of node v, bit bit of block
 * k; the summary is the caller's. */
static inline void cl_node_sub(struct cluster *c, struct cl_block *k,
			       uint32_t v, uint64_t bit, uint32_t fr,
			       uint32_t take)
{
	if (k->idle & bit) {
		k->idle &= ~bit;
		c->idle_nodes--;
	}
	fr -= take;
	if (fr)
		c->node[v].part = fr;
	else
		k->free &= ~bit;
	c->free_cpus -= take;
}

/* Takes min(free, need) CPUs of node v, which has some; returns them. */
static uint32_t cl_take_node(struct cluster *c, uint32_t v, uint32_t need,
			     struct placement *out)
{
	struct cl_block *k = &c->blk[v / CL_BITS];
	uint64_t bit = UINT64_C(1) << (v % CL_BITS);
	uint32_t fr = cl_node_free(c, v);
	uint32_t take = fr < need ? fr : need;

	cl_emit(out, v, 1, take);
	cl_node_sub(c, k, v, bit, fr, take);
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
		bset_del(&c->sum, b);
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
		bset_del(&c->sum, b);
	return need;
}

/* ---- whole blocks ------------------------------------------------------
 *
 * A job wider than a block takes most of its nodes as whole idle blocks,
 * and gives them back the same way.  Block by block that was a summary
 * search, a mask loop and a summary update each (on 10^6 one-CPU nodes,
 * 90% of EASY's time); here a run of whole blocks costs two stores per
 * block, and the summary is updated one word of 64 blocks at a time.
 */

/* Clears (set false) or sets the summary's bits b .. b + nb - 1, a word
 * of level 0 at a time; the levels above change as bset_del and
 * bset_add would change them. */
static void cl_sum_run(struct bset *s, uint32_t b, uint32_t nb, bool set)
{
	for (uint32_t end = b + nb; b < end;) {
		uint32_t w = b / CL_BITS;
		unsigned lo = b % CL_BITS;
		unsigned k = CL_BITS - lo < end - b ? CL_BITS - lo : end - b;
		uint64_t *p = &s->lev[0][w], old = *p;

		*p = set ? old | cl_mask(lo, k) : old & ~cl_mask(lo, k);
		b += k;
		if ((set && old) || (!set && *p))
			continue;
		for (unsigned l = 1; l < s->nlev; l++, w /= CL_BITS) {
			p = &s->lev[l][w / CL_BITS];
			old = *p;
			uint64_t bit = UINT64_C(1) << (w % CL_BITS);
			*p = set ? old | bit : old & ~bit;
			if ((set && old) || (!set && *p))
				break;
		}
	}
}

/* Takes whole idle blocks from b on while need covers them (64 nodes of
 * block b's capacity each, idle); returns the units taken (0: block b is
 * not one, or need is less). */
static uint32_t cl_take_blocks(struct cluster *c, uint32_t b, uint32_t need,
			       struct placement *out)
{
	uint32_t cap = c->blk[b].cap;
	uint32_t per = c->exclusive ? CL_BITS : CL_BITS * cap;
	uint32_t end = c->n / CL_BITS, nb = 0; /* blocks of 64 nodes */

	if (!cap || b >= end)
		return 0;
	if (end - b > need / per)
		end = b + need / per;
	for (struct cl_block *k = &c->blk[b]; b + nb < end; k++, nb++) {
		if (k->cap != cap || k->idle != ~UINT64_C(0))
			break;
		k->free = k->idle = 0;
	}
	if (!nb)
		return 0;
	cl_emit(out, b * CL_BITS, nb * CL_BITS, cap);
	c->idle_nodes -= nb * CL_BITS;
	c->free_cpus -= (uint64_t)nb * CL_BITS * cap;
	cl_sum_run(&c->sum, b, nb, false);
	return nb * per;
}

/* Gives whole blocks back from block b on, while left nodes of cpus
 * CPUs cover them and they are blocks of 64 nodes of that capacity
 * (nobody else holds a CPU there: a node cannot give more than it has);
 * returns the nodes given. */
static uint32_t cl_give_blocks(struct cluster *c, uint32_t b, uint32_t left,
			       uint32_t cpus)
{
	uint32_t end = c->n / CL_BITS, nb = 0;

	if (b >= end)
		return 0;
	if (end - b > left / CL_BITS)
		end = b + left / CL_BITS;
	for (struct cl_block *k = &c->blk[b]; b + nb < end; k++, nb++) {
		if (k->cap != cpus)
			break;
		SIM_ASSERT(!k->free);
		k->free = k->idle = ~UINT64_C(0);
	}
	if (!nb)
		return 0;
	c->idle_nodes += nb * CL_BITS;
	c->free_cpus += (uint64_t)nb * CL_BITS * cpus;
	cl_sum_run(&c->sum, b, nb, true);
	return nb * CL_BITS;
}

/* First fit of need units; the caller has checked that they are free. */
static void cl_take(struct cluster *c, uint32_t need, struct placement *out)
{
	uint32_t b = 0;

	for (;;) {
		b = bset_next(&c->sum, b);
		SIM_ASSERT(b != CL_NONE);
		uint32_t got = cl_take_blocks(c, b, need, out);
		if (got) {
			need -= got;
			b += got / (c->exclusive ? CL_BITS : CL_BITS * c->blk[b].cap);
			if (!need)
				break;
			continue;
		}
		if (c->exclusive)
			need = cl_take_excl(c, b, need, out);
		else
			need = cl_take_shared(c, b, need, out);
		if (!need)
			break;
		b++;
	}
}

/* Takes cpus CPUs of node v, which has them: a GPU job's CPUs beside its
 * GPUs (cluster_gpu.c). */
void cl_take_cpus(struct cluster *c, uint32_t v, uint32_t cpus)
{
	uint32_t b = v / CL_BITS;
	struct cl_block *k = &c->blk[b];
	uint64_t bit = UINT64_C(1) << (v % CL_BITS);
	uint32_t fr = cl_node_free(c, v);
	bool had = cl_avail(c, k) != 0;

	if (!cpus)
		return;
	SIM_ASSERT(fr >= cpus);
	cl_node_sub(c, k, v, bit, fr, cpus);
	if (had && !cl_avail(c, k))
		bset_del(&c->sum, b);
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
		bset_add(&c->sum, b);
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

	bset_init(&c->sum, c->nblocks);
	gp_setup(c, s);
	cluster_reset(c);
	return c;
}

void cluster_free(struct cluster *c)
{
	if (!c)
		return;
	cp_release(c);
	free(c->blk);
	free(c->node);
	bset_release(&c->sum);
	gp_release(c);
	free(c->gstart);
	free(c->gcpus);
	free(c->ggpus);
	free(c);
}

void cluster_reset(struct cluster *c)
{
	for (uint32_t b = 0; b < c->nblocks; b++)
		c->blk[b].free = c->blk[b].idle = cl_valid(c, b);
	for (unsigned lev = 0; lev < c->sum.nlev; lev++)
		for (uint32_t w = 0; w < c->sum.nwords[lev]; w++)
			c->sum.lev[lev][w] = cl_sum_word(c, lev, w);
	c->free_cpus = c->total_cpus;
	c->idle_nodes = c->n;
	gp_reset(c);
	cp_reset(c);
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

bool cluster_can_ever_fit(const struct cluster *c, const struct job *j)
{
	struct place_shape s;

	if (cp_job(c, j) >= 0) /* bound to a partition: its nodes alone */
		return cp_fits(c, j, false);
	if (j->gpus && !c->shape_blind && job_shape(j, &s))
		return cluster_fits_shape(c, j, &s, false);
	if (j->gpus)
		return gp_fits(c, j, false);
	return cluster_demand(c, j) <= cluster_capacity(c);
}

bool cluster_fits(const struct cluster *c, const struct job *j)
{
	struct place_shape s;

	if (cp_job(c, j) >= 0)
		return cp_fits(c, j, true);
	if (j->gpus && !c->shape_blind && job_shape(j, &s))
		return cluster_fits_shape(c, j, &s, true);
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
	if (cp_job(c, j) >= 0)
		return cp_alloc(c, j, out);
	if (need > cluster_free_units(c))
		return -SIM_ESTATE;
	out->n = 0;
	/* Below the free units, so below 2^32. */
	if (need)
		cl_take(c, (uint32_t)need, out);
	cp_account(c, out, -1);
	return 0;
}

/* Slots go back one by one, in any order, block part by block part; empty
 * ones are skipped. */
void cluster_release(struct cluster *c, const struct placement *p)
{
	cp_account(c, p, 1);
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
			uint32_t whole = lo ? 0 : cl_give_blocks(c, v / CL_BITS,
								 left, s->cpus);

			if (whole) {
				v += whole;
				left -= whole;
				continue;
			}
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
	for (unsigned lev = 0; lev < c->sum.nlev; lev++)
		for (uint32_t w = 0; w < c->sum.nwords[lev]; w++)
			if (c->sum.lev[lev][w] != cl_sum_word(c, lev, w))
				return err_setc(err, -SIM_ESTATE, "cluster: "
						"summary level '%u' word '%"
						PRIu32 "' is wrong", lev, w);
	if (c->sum.nwords[c->sum.nlev - 1] != 1)
		return err_setc(err, -SIM_ESTATE, "cluster: summary has no "
				"single top word");
	return gp_check(c, err);
}
