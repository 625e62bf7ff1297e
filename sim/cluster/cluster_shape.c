/*
 * Shaped placement: where the GPUs of a large-model training job go when
 * the job says how it splits its work (docs/placement.md, "Shaped jobs").
 *
 * A job of tp x pp x dp GPUs runs dp replicas (pipelines) of a model cut
 * into pp stages, each stage a group of tp GPUs that split every layer.
 * The three kinds of traffic differ by orders of magnitude: the tp group
 * all-reduces activations several times per layer, the pipeline sends
 * one activation tensor per micro-batch between neighbouring stages, the
 * replicas all-reduce gradients once per step (and overlap it with the
 * backward pass).  So the placement keeps a tp group inside one node
 * (NVLink), a pipeline inside one node or one rack (its stage-to-stage
 * sends under one leaf switch), and puts replicas wherever whole
 * pipelines fit.
 *
 * The unit is the slot: tp free GPUs of one node.  A node with f free
 * GPUs holds floor(f / tp) slots (with CPUs wanted: of what it can give
 * the job), and floor(slots / pp) whole pipelines.  The job first
 * chooses where its whole pipelines go, as many as the nodes hold (up
 * to dp), on as few racks and then as few nodes as can hold them:
 *
 *   a. one rack, if one holds them all: the one that needs the fewest
 *      nodes (then the fewest whole pipelines, then the lowest);
 *   b. else all the racks together;
 *
 * and inside that range, while no node holds the rest, the node with
 * the most whole pipelines (lowest number on ties), then the node with
 * the fewest that holds the rest.  Taking the nodes with the most first
 * gives the fewest nodes; the last one chosen tightest keeps the larger
 * holes for other jobs.  Pipelines 0, 1, ... go to the chosen nodes in
 * node order.  A pipeline that no node holds whole (only when the nodes
 * hold fewer than dp whole pipelines) takes pp slots:
 *
 *   1. one rack, if one holds pp slots: the one with the fewest slots
 *      that does, its nodes with the most slots first;
 *   2. else the racks with the most slots first, each the same way.
 *
 * So every pipeline that could lie inside one node does, as before; what
 * the whole-job choice changes is that a job of small tp x pp no longer
 * spreads one pipeline per node over the tightest nodes of the cluster.
 * A pipeline's stages then go to its slots in node order, so stage s and
 * s + 1 are on the same or the next node used.  The job fits when its
 * nodes hold pp x dp slots in all; a node with fewer GPUs than tp holds
 * none, so a job whose tp exceeds every node's GPUs never fits.
 *
 * Ranks follow Megatron-LM's default order (tp fastest, then dp, then
 * pp): GPU t of stage s of replica d is rank t + tp (d + dp s).  The
 * placement itself is a plain GPU placement (one slot per node, node
 * order, the lowest free GPUs); rank_node says which node each rank is on.
 * The speed model reads the traffic's path off rank_node.
 *
 * A shape-blind placement (the "shape_blind" strategy) places the GPUs
 * as consolidate does and numbers the ranks in node order, as a launcher
 * that knows nothing of the shape would; a tp group may then straddle
 * two nodes.
 *
 * Costs are O(nodes of the job's ranges) per call, plus O(nodes x nodes
 * chosen) for the whole pipelines and O(nodes + rack nodes x slots per
 * node) per pipeline: shaped jobs are few and large.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_impl.h"

/* The slots of one job's placement being planned. */
struct sh_plan {
	const struct cluster *c;
	const struct place_shape *s;
	uint32_t *slots;  /* [node]: free slots left for the job */
	uint32_t *took;   /* [node]: slots taken by the job */
	uint64_t *rslots; /* [rack]: free slots left */
	uint32_t *order;  /* one pipeline's nodes, one entry per slot */
	uint32_t *whole;  /* [node]: whole pipelines chosen for it */
	uint8_t *mark;    /* [node]: chosen in the current count */
	uint32_t *picked; /* the nodes marked */
	uint32_t maxs;    /* the most slots a node holds */
	uint32_t cursor;  /* no node below it has whole pipelines left */
};

/*
 * Whole pipelines for nodes first .. end - 1: want of them on as few
 * nodes as hold them (while none holds the rest, the one with the most,
 * lowest on ties; then the one with the fewest that holds the rest).
 * The nodes it takes, or CL_NONE when the range holds fewer; with commit
 * the plan's whole[] counts are set, else nothing changes.
 */
static uint32_t sh_whole_in(struct sh_plan *p, uint32_t first, uint32_t end,
			    uint32_t want, bool commit)
{
	uint32_t pp = p->s->pp, used = 0;

	while (want) {
		uint32_t most = CL_NONE, fit = CL_NONE, qm = 0, qf = 0;
		for (uint32_t v = first; v < end; v++) {
			uint32_t q = p->slots[v] / pp;
			if (!q || p->mark[v])
				continue;
			if (q > qm) {
				most = v;
				qm = q;
			}
			if (q >= want && (fit == CL_NONE || q < qf)) {
				fit = v;
				qf = q;
			}
		}
		uint32_t v = fit != CL_NONE ? fit : most;
		if (v == CL_NONE)
			break;
		uint32_t take = fit != CL_NONE ? want : qm;
		p->mark[v] = 1;
		p->picked[used++] = v;
		if (commit)
			p->whole[v] = take;
		want -= take;
	}
	for (uint32_t i = 0; i < used; i++)
		p->mark[p->picked[i]] = 0;
	return want ? CL_NONE : used;
}

/* Chooses the nodes of the job's whole pipelines (the rule above). */
static void sh_choose_whole(struct sh_plan *p)
{
	const struct cluster *c = p->c;
	uint64_t total = 0;
	uint32_t best = CL_NONE, bn = 0, want;
	uint64_t bq = 0;

	for (uint32_t v = 0; v < c->n; v++)
		total += p->slots[v] / p->s->pp;
	want = total < p->s->dp ? (uint32_t)total : p->s->dp;
	if (!want)
		return;
	for (uint32_t r = 0; r < c->nracks; r++) {
		uint32_t first = r * c->rack_nodes;
		uint64_t e = (uint64_t)first + c->rack_nodes, q = 0;
		uint32_t end = e < c->n ? (uint32_t)e : c->n;
		for (uint32_t v = first; v < end; v++)
			q += p->slots[v] / p->s->pp;
		if (q < want)
			continue;
		uint32_t k = sh_whole_in(p, first, end, want, false);
		if (best == CL_NONE || k < bn || (k == bn && q < bq)) {
			best = r;
			bn = k;
			bq = q;
		}
	}
	if (best != CL_NONE) {
		uint64_t e = (uint64_t)best * c->rack_nodes + c->rack_nodes;
		sh_whole_in(p, best * c->rack_nodes,
			    e < c->n ? (uint32_t)e : c->n, want, true);
	} else {
		sh_whole_in(p, 0, c->n, want, true);
	}
}

/* Takes need slots from rack r, its nodes with the most slots first
 * (lowest number on ties), appending one entry per slot to order at *k.
 * Returns what is still needed. */
static uint32_t sh_fill_rack(struct sh_plan *p, uint32_t r, uint32_t need,
			     uint32_t *k)
{
	const struct cluster *c = p->c;
	uint32_t first = r * c->rack_nodes;
	uint64_t e = (uint64_t)first + c->rack_nodes;
	uint32_t end = e < c->n ? (uint32_t)e : c->n;

	for (uint32_t m = p->maxs; m >= 1 && need; m--)
		for (uint32_t v = first; v < end && need; v++) {
			uint32_t t;

			if (p->slots[v] != m)
				continue;
			t = m < need ? m : need;
			p->slots[v] -= t;
			p->took[v] += t;
			p->rslots[r] -= t;
			need -= t;
			while (t--)
				p->order[(*k)++] = v;
		}
	return need;
}

static int sh_node_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The rack with the fewest slots >= need (lowest on ties), or with
 * most false, the most slots (> 0); CL_NONE when none. */
static uint32_t sh_rack(const struct sh_plan *p, uint32_t need, bool most)
{
	uint32_t best = CL_NONE;

	for (uint32_t r = 0; r < p->c->nracks; r++) {
		uint64_t f = p->rslots[r];

		if (most ? f == 0 : f < need)
			continue;
		if (best == CL_NONE ||
		    (most ? f > p->rslots[best] : f < p->rslots[best]))
			best = r;
	}
	return best;
}

/* Places pipeline d: its pp slots, then its ranks. */
static void sh_pipeline(struct sh_plan *p, uint32_t d, uint32_t *rank_node)
{
	const struct place_shape *s = p->s;
	uint32_t k = 0, need = s->pp, v = p->cursor, r;

	while (v < p->c->n && !p->whole[v])
		v++;
	p->cursor = v;
	if (v < p->c->n) {
		p->whole[v]--;
		p->slots[v] -= need;
		p->took[v] += need;
		p->rslots[cluster_rack_of(p->c, v)] -= need;
		while (k < need)
			p->order[k++] = v;
		need = 0;
	} else if ((r = sh_rack(p, need, false)) != CL_NONE) {
		need = sh_fill_rack(p, r, need, &k);
	}
	while (need) {
		r = sh_rack(p, need, true);
		SIM_ASSERT(r != CL_NONE);
		need = sh_fill_rack(p, r, need, &k);
	}
	qsort(p->order, s->pp, sizeof(*p->order), sh_node_cmp);
	for (uint32_t st = 0; rank_node && st < s->pp; st++)
		for (uint32_t t = 0; t < s->tp; t++)
			rank_node[t + (size_t)s->tp *
				      (d + (size_t)s->dp * st)] = p->order[st];
}

bool job_shape(const struct job *j, struct place_shape *s)
{
	if (!j->gpus || !j->tp || !j->pp || (j->tp == 1 && j->pp == 1))
		return false;
	s->tp = j->tp;
	s->pp = j->pp;
	s->dp = j->gpus / ((uint32_t)j->tp * j->pp);
	return true;
}

void cluster_set_shape_blind(struct cluster *c, bool blind)
{
	c->shape_blind = blind;
}

bool cluster_shape_blind(const struct cluster *c)
{
	return c->shape_blind;
}

static bool sh_valid(const struct cluster *c, const struct job *j,
		     const struct place_shape *s)
{
	return c->maxg && s->tp && s->pp && s->dp &&
	       (uint64_t)s->tp * s->pp * s->dp == j->gpus &&
	       j->gpu_type <= c->ntypes;
}

/* Slots node v holds for the job: of its free GPUs (now) or all, no more
 * than its CPUs allow. */
static uint32_t sh_node_slots(const struct cluster *c, uint32_t v,
			      const struct job *j, uint32_t tp, bool now)
{
	uint32_t f = now ? c->gx->nf[v] : c->gcap[v];

	if (f && j->cpus)
		f = gx_can_give(c, v, f, now ? cl_node_free(c, v) :
				c->node[v].cap, j);
	return f / tp;
}

bool cluster_fits_shape(const struct cluster *c, const struct job *j,
			const struct place_shape *s, bool now)
{
	const struct cl_range *rg;
	const uint32_t *cls;
	uint32_t nrg, ncls;
	uint64_t need, sum = 0;

	if (!sh_valid(c, j, s) || !gp_fits(c, j, now))
		return false;
	gp_ranges(c, j, &rg, &nrg, &cls, &ncls);
	need = (uint64_t)s->pp * s->dp;
	for (uint32_t i = 0; i < nrg; i++)
		for (uint32_t v = rg[i].first; v < rg[i].end; v++) {
			sum += sh_node_slots(c, v, j, s->tp, now);
			if (sum >= need)
				return true;
		}
	return false;
}

/* A plan for shape s on c with no slots yet. */
static void sh_plan_init(struct sh_plan *p, const struct cluster *c,
			 const struct place_shape *s)
{
	*p = (struct sh_plan){ .c = c, .s = s };
	p->slots = xcalloc(c->n, sizeof(*p->slots));
	p->took = xcalloc(c->n, sizeof(*p->took));
	p->rslots = xcalloc(c->nracks, sizeof(*p->rslots));
	p->order = xmalloc(s->pp * sizeof(*p->order));
	p->whole = xcalloc(c->n, sizeof(*p->whole));
	p->mark = xcalloc(c->n, sizeof(*p->mark));
	p->picked = xcalloc(c->n, sizeof(*p->picked));
}

/* Node v holds k slots for the plan. */
static void sh_plan_slots(struct sh_plan *p, uint32_t v, uint32_t k)
{
	p->slots[v] = k;
	p->rslots[cluster_rack_of(p->c, v)] += k;
	if (k > p->maxs)
		p->maxs = k;
}

static void sh_plan_release(struct sh_plan *p)
{
	free(p->picked);
	free(p->mark);
	free(p->whole);
	free(p->order);
	free(p->rslots);
	free(p->took);
	free(p->slots);
}

/*
 * Two steps: the slots, pipeline by pipeline, out of the free GPUs; then
 * the ranks, by the same rule over the slots taken (cluster_shape_ranks),
 * so that they are a function of the placement alone and can be found
 * again from it.
 */
int cluster_alloc_shape(struct cluster *c, const struct job *j,
			const struct place_shape *s, struct placement *out,
			uint32_t *rank_node)
{
	const struct cl_range *rg;
	const uint32_t *cls;
	uint32_t nrg, ncls, n = 0;
	struct sh_plan p;

	if (!sh_valid(c, j, s))
		return -SIM_EINPUT;
	if (!cluster_fits_shape(c, j, s, true))
		return -SIM_ESTATE;
	gp_ranges(c, j, &rg, &nrg, &cls, &ncls);
	sh_plan_init(&p, c, s);
	for (uint32_t i = 0; i < nrg; i++)
		for (uint32_t v = rg[i].first; v < rg[i].end; v++)
			sh_plan_slots(&p, v, sh_node_slots(c, v, j, s->tp,
							   true));
	sh_choose_whole(&p);
	for (uint32_t d = 0; d < s->dp; d++)
		sh_pipeline(&p, d, NULL);
	for (uint32_t v = 0; v < c->n; v++) {
		if (!p.took[v])
			continue;
		if (n == c->pcap)
			xgrow(&c->picks, &c->pcap, (size_t)n + 1,
			      sizeof(*c->picks));
		c->picks[n++] = (struct gp_pick){
			.node = v, .count = p.took[v] * s->tp };
	}
	gp_apply(c, j, n, out);
	sh_plan_release(&p);
	if (rank_node)
		cluster_shape_ranks(c, out, s, rank_node);
	return 0;
}

void cluster_shape_ranks(const struct cluster *c, const struct placement *pl,
			 const struct place_shape *s, uint32_t *rank_node)
{
	struct sh_plan p;

	sh_plan_init(&p, c, s);
	for (uint32_t i = 0; i < pl->n; i++)
		for (uint32_t k = 0; k < pl->slots[i].count; k++)
			sh_plan_slots(&p, pl->slots[i].node + k,
				      pl->slots[i].gpus / s->tp);
	sh_choose_whole(&p);
	for (uint32_t d = 0; d < s->dp; d++)
		sh_pipeline(&p, d, rank_node);
	sh_plan_release(&p);
}

void place_shape_ranks(const struct placement *p, uint32_t *rank_node)
{
	size_t r = 0;

	for (uint32_t i = 0; i < p->n; i++)
		for (uint32_t k = 0; k < p->slots[i].count; k++)
			for (uint32_t g = 0; g < p->slots[i].gpus; g++)
				rank_node[r++] = p->slots[i].node + k;
}

/* The type index (+ 1) of group g: the distinct gpu_type names of the
 * groups in group order, as cluster_gpu_type_index numbers them. */
uint32_t cluster_spec_group_type(const struct cluster_spec *s, size_t g)
{
	uint32_t t = 0;

	if (!s->groups[g].gpu_type)
		return 0;
	for (size_t i = 0; i < g; i++) {
		bool seen = false;

		if (!s->groups[i].gpu_type)
			continue;
		for (size_t k = 0; k < i && !seen; k++)
			seen = s->groups[k].gpu_type &&
			       !strcmp(s->groups[k].gpu_type,
				       s->groups[i].gpu_type);
		if (seen)
			continue;
		t++;
		if (!strcmp(s->groups[i].gpu_type, s->groups[g].gpu_type))
			return t;
	}
	return t + 1;
}

int cluster_spec_check_shapes(const struct cluster_spec *s,
			      const char *prefix, const struct job *jobs,
			      size_t njobs, struct sim_error *err)
{
	for (size_t i = 0; i < njobs; i++) {
		const struct job *j = &jobs[i];
		uint32_t most = 0;

		if (j->tp <= 1 || !j->gpus)
			continue;
		for (size_t g = 0; g < s->ngroups; g++)
			if (s->groups[g].gpus > most &&
			    (!j->gpu_type ||
			     cluster_spec_group_type(s, g) == j->gpu_type))
				most = s->groups[g].gpus;
		if (j->tp > most)
			return err_setc(err, -SIM_EINPUT, "%s$.workload: job "
					"%" PRId64 " asks tp '%u', more GPUs "
					"than any node of its type has ('%"
					PRIu32 "'): a tensor-parallel group "
					"is kept inside one node", prefix,
					j->id, (unsigned)j->tp, most);
	}
	return 0;
}
