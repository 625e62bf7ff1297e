/*
 * Whole-GPU placement: the free-GPU index and the placement strategies
 * (docs/placement.md has the rules and the strategies).
 *
 * A GPU job (gpus > 0) goes through this index, which sits beside the
 * CPU one of cluster.c and is touched by GPU jobs only, so the CPU path
 * costs what it did.  Each node keeps a mask of its free GPUs and their
 * count; for every count c = 1 .. the most GPUs of a node, the set of
 * nodes with exactly c free is a bit set with a 64-ary summary (struct
 * bset, base/bitset.h: the same structure as the CPU blocks' summary,
 * with the node bits as level 0), and set 0 holds the nodes with any free
 * GPU.  "The first node at or after x with exactly c free" is then a few
 * word reads, and "a node of rack r with c free" the same search bounded
 * by the rack.  Counters keep the free GPUs per class, per rack and
 * class, and the nodes per class and free count, a class being a (GPU
 * type, virtual cluster) pair of the groups.  A job's GPU type and VC
 * (its key) restrict a search to the node ranges of the groups of its
 * classes, precomputed per key: that is the one placement constraint
 * mechanism, whatever the constraint.
 *
 * Strategies plan on an index (pick nodes and counts without changing
 * it), then the plan is applied: the lowest-numbered free GPUs of each
 * picked node, and the job's CPUs there through cluster.c.  A job that
 * also wants CPUs plans on a temporary index of what each node can give
 * it with its CPUs (rebuilt per call, O(nodes)).
 *
 * Why a file of its own: the strategies and their index are a separate
 * responsibility from the CPU first fit, and most of the cluster model's
 * code; cluster.c calls in here only for GPU jobs (gp_fits, gp_give, ...;
 * see cluster_impl.h).  Making the index, the set-up of the GPU part of a
 * cluster and the invariant checks are in cluster_gpu_setup.c.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/splitmix.h"
#include "cluster/cluster_impl.h"

/* ---- planning --------------------------------------------------------- */

/* One placement being planned. */
struct gp_ctx {
	struct cluster *c;
	struct gx *x;              /* the index planned on */
	const struct cl_range *rg; /* the nodes the job may use */
	uint32_t nrg;              /* ranges */
	const uint32_t *cls;       /* the job's classes */
	uint32_t ncls;             /* classes */
	uint32_t n;                /* picks so far */
};

/* The job's key (gpu_type <= ntypes: checked by gp_fits). */
static uint32_t gp_key(const struct cluster *c, const struct job *j)
{
	int v = cluster_job_vc(c, j);

	return (uint32_t)j->gpu_type * (c->nvc + 1) +
	       (v < 0 ? c->nvc : (uint32_t)v);
}

/* The job's node ranges and classes: those of its key. */
void gp_ranges(const struct cluster *c, const struct job *j,
	       const struct cl_range **rg, uint32_t *nrg,
	       const uint32_t **cls, uint32_t *ncls)
{
	uint32_t k = gp_key(c, j);

	*rg = c->krange + c->krange_at[k];
	*nrg = c->krange_at[k + 1] - c->krange_at[k];
	*cls = c->kcls + c->kcls_at[k];
	*ncls = c->kcls_at[k + 1] - c->kcls_at[k];
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
		v = bset_next(&p->x->set[k], pos);
		if (v == CL_NONE || v >= end)
			break;
		if (v < r->end)
			return v;
		pos = v;
	}
	return CL_NONE;
}

/* Nodes of the job's classes with exactly k free. */
static uint64_t gp_cnt(const struct gp_ctx *p, uint32_t k)
{
	const struct cluster *c = p->c;
	uint64_t s = 0;

	for (uint32_t i = 0; i < p->ncls; i++)
		s += p->x->cnt[(size_t)p->cls[i] * (c->maxg + 1) + k];
	return s;
}

/* Free GPUs of the job's classes in rack r; in all when r is nracks. */
static uint64_t gp_free(const struct gp_ctx *p, uint32_t r)
{
	const struct cluster *c = p->c;
	const uint64_t *f = r < c->nracks ? &p->x->rfree[(size_t)r * c->ncls]
					  : p->x->cfree;
	uint64_t s = 0;

	for (uint32_t i = 0; i < p->ncls; i++)
		s += f[p->cls[i]];
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
	const struct bset *s = &p->x->set[0];

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
		bset_del(&p->x->set[0], v);
		need -= t;
	}
	for (uint32_t i = first; i < p->n; i++)
		bset_add(&p->x->set[0], p->c->picks[i].node);
}

/* ---- applying a plan -------------------------------------------------- */

/* The lowest t set bits of m (which has at least t). */
static uint64_t gp_lowest(uint64_t m, uint32_t t)
{
	uint64_t r = 0;

	while (t--) {
		r |= m & -m;
		m &= m - 1;
	}
	return r;
}

static int gp_pick_cmp(const void *a, const void *b)
{
	const struct gp_pick *x = a, *y = b;

	return x->node < y->node ? -1 : x->node > y->node;
}

/* Takes the planned GPUs (the lowest-numbered free ones of each node)
 * and CPUs, and writes the placement in node order. */
void gp_apply(struct cluster *c, const struct job *j, uint32_t n,
	      struct placement *out)
{
	struct gp_pick *pk = c->picks;
	uint64_t sum = 0, prev = 0;

	qsort(pk, n, sizeof(*pk), gp_pick_cmp);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t v = pk[i].node;

		SIM_ASSERT(i == 0 || pk[i - 1].node < v);
		SIM_ASSERT(pk[i].count >= 1 && pk[i].count <= c->gx->nf[v]);
		pk[i].mask = gp_lowest(c->gmask[v], pk[i].count);
		c->gmask[v] &= ~pk[i].mask;
		gx_set(c, c->gx, v, c->gx->nf[v] - pk[i].count);
		sum += pk[i].count;
		pk[i].cpus = (uint32_t)((uint64_t)j->cpus * sum / j->gpus -
					prev);
		prev += pk[i].cpus;
		cl_take_cpus(c, v, pk[i].cpus);
	}
	SIM_ASSERT(sum == j->gpus && prev == j->cpus);
	out->n = 0;
	if (out->cap < n)
		cl_reserve(out, n);
	for (uint32_t i = 0; i < n; i++)
		out->slots[out->n++] = (struct place_slot){
			.node = pk[i].node, .count = 1, .cpus = pk[i].cpus,
			.gpus = pk[i].count, .gpu_mask = pk[i].mask,
		};
}

/* Builds the view: what each node of the job's type can give it with
 * its CPUs.  Returns the GPUs the job could get in all. */
uint64_t gp_build_view(struct cluster *c, const struct cl_range *rg,
		       uint32_t nrg, const struct job *j)
{
	if (!c->view)
		c->view = gx_new(c);
	gx_clear(c, c->view);
	for (uint32_t r = 0; r < nrg; r++)
		for (uint32_t v = rg[r].first; v < rg[r].end; v++)
			if (c->gx->nf[v])
				gx_set(c, c->view, v,
				       gx_can_give(c, v, c->gx->nf[v],
						   cl_node_free(c, v), j));
	return c->view->free;
}

/* Gives a GPU slot's GPUs back to node v (the lowest busy ones when the
 * slot does not say which). */
void gp_give(struct cluster *c, uint32_t v, uint32_t gpus, uint64_t mask)
{
	uint64_t busy;

	SIM_ASSERT(c->maxg && gpus <= c->gcap[v]);
	busy = cl_mask(0, c->gcap[v]) & ~c->gmask[v];
	if (!mask)
		mask = gp_lowest(busy, gpus);
	SIM_ASSERT((uint32_t)__builtin_popcountll(mask) == gpus);
	SIM_ASSERT((mask & busy) == mask);
	c->gmask[v] |= mask;
	gx_set(c, c->gx, v, c->gx->nf[v] + gpus);
}

bool cluster_retakable(const struct placement *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		const struct place_slot *s = &p->slots[i];
		if (s->count && (s->count != 1 || !s->gpus || !s->gpu_mask))
			return false;
	}
	return true;
}

void cluster_retake(struct cluster *c, const struct placement *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		const struct place_slot *s = &p->slots[i];
		uint32_t v = s->node;

		if (!s->count)
			continue;
		SIM_ASSERT((c->gmask[v] & s->gpu_mask) == s->gpu_mask);
		c->gmask[v] &= ~s->gpu_mask;
		gx_set(c, c->gx, v, c->gx->nf[v] - s->gpus);
		cl_take_cpus(c, v, s->cpus);
	}
}

/* ---- whole GPUs: the API ---------------------------------------------- */

static const char *const place_names[] = {
	[PLACE_FIRST_FIT] = "first_fit",
	[PLACE_BEST_FIT] = "best_fit",
	[PLACE_CONSOLIDATE] = "consolidate",
	[PLACE_SPREAD] = "spread",
	[PLACE_RANDOM] = "random",
	[PLACE_TOPOLOGY] = "topology",
	[PLACE_SHAPE_BLIND] = "shape_blind",
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
	char names[160] = "";
	for (unsigned i = 0; i < PLACE_NSTRATEGIES; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", i ? ", " : "", place_names[i]);
	return err_set(err, "unknown placement '%s' (%s)", name ? name : "",
		       names);
}

uint64_t place_rng_next(uint64_t *state)
{
	return splitmix64_next(state);
}

uint64_t cluster_total_gpus(const struct cluster *c)
{
	return c->total_gpus;
}

const uint64_t *gp_class_free(const struct cluster *c)
{
	return c->maxg ? c->gx->cfree : NULL;
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

int cluster_node_gpu_type(const struct cluster *c, uint32_t node)
{
	SIM_ASSERT(node < c->n);
	if (!c->ncl || !c->gcap[node])
		return -1;
	uint32_t k = c->cltype[c->ncl[node]];
	return k < c->ntypes ? (int)k : -1;
}

const char *cluster_gpu_type_name(const struct cluster *c, uint32_t idx)
{
	SIM_ASSERT(idx < c->ntypes);
	return c->tname[idx];
}

uint64_t cluster_gpu_type_total(const struct cluster *c, uint32_t idx)
{
	SIM_ASSERT(idx < c->ntypes);
	return c->ctotal[idx];
}

uint64_t cluster_gpu_type_free(const struct cluster *c, uint32_t idx)
{
	SIM_ASSERT(idx < c->ntypes);
	return c->gx->cfree[idx];
}

/*
 * Could a GPU job get its GPUs, each node giving min(free GPUs, what its
 * CPUs allow), with free as the cluster is now or empty?  O(1) for a job
 * without CPUs, O(nodes of its type) with.
 */
bool gp_fits(const struct cluster *c, const struct job *j, bool now)
{
	const struct cl_range *rg;
	const uint32_t *cls;
	uint32_t nrg, ncls;
	uint64_t sum = 0;

	if (!c->maxg || j->gpu_type > c->ntypes)
		return false;
	gp_ranges(c, j, &rg, &nrg, &cls, &ncls);
	for (uint32_t i = 0; i < ncls; i++)
		sum += now ? c->gx->cfree[cls[i]] : c->ctotal[cls[i]];
	if (sum < j->gpus)
		return false;
	if (!j->cpus)
		return true;
	if ((now ? c->free_cpus : c->total_cpus) < j->cpus)
		return false;
	sum = 0;
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

int cluster_alloc_gpus(struct cluster *c, const struct job *j,
		       enum place_strategy strategy, uint64_t *rng,
		       struct placement *out)
{
	struct gp_ctx p = { .c = c };
	struct place_shape shape;

	if ((unsigned)strategy >= PLACE_NSTRATEGIES ||
	    (strategy == PLACE_RANDOM && !rng))
		return -SIM_EINPUT;
	if (!j->gpus)
		return cluster_alloc(c, j, out);
	bool bound = cp_job(c, j) >= 0;
	if (!bound && strategy != PLACE_SHAPE_BLIND && !c->shape_blind &&
	    job_shape(j, &shape)) {
		int rc = cluster_alloc_shape(c, j, &shape, out, NULL);
		if (!rc)
			cp_account(c, out, -1);
		return rc;
	}
	if (!(strategy == PLACE_SHAPE_BLIND && !bound ? gp_fits(c, j, true) :
	      cluster_fits(c, j)))
		return -SIM_ESTATE;
	gp_ranges(c, j, &p.rg, &p.nrg, &p.cls, &p.ncls);
	if (bound) { /* first fit on its partition's nodes */
		cp_narrow(c, j, &p.rg, &p.nrg);
		strategy = PLACE_FIRST_FIT;
	}
	p.x = c->gx;
	if (j->cpus) {
		gp_build_view(c, p.rg, p.nrg, j);
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
	case PLACE_SHAPE_BLIND:
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
	cp_account(c, out, -1);
	return 0;
}
