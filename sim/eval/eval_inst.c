/*
 * Batch problems that own their arrays (eval_inst.h), their checks, and
 * a combinatorial lower bound for every instance, so that heuristic
 * results can show how far from optimal they are at most.
 */
#include <stdlib.h>
#include <string.h>

#include "eval/eval_inst.h"

static void inst_sync(struct eval_inst *in)
{
	struct eval_problem *p = &in->p;
	p->demand = in->demand;
	p->dur = in->dur;
	p->release = in->release;
	p->weight = in->weight;
	p->home = in->home;
	p->run_type = in->run_type;
	p->run_units = in->run_units;
	p->run_end = in->run_end;
	p->run_node = in->run_node;
	p->node_cap = in->node_cap;
	p->node_type = in->node_type;
	p->node_off = in->node_off;
}

void eval_inst_init(struct eval_inst *in, uint32_t n, uint32_t ntypes,
		    const int64_t *cap, enum eval_objective obj)
{
	memset(in, 0, sizeof(*in));
	in->p.n = n;
	in->p.ntypes = ntypes;
	in->p.objective = obj;
	in->p.mix_makespan = 1;
	in->p.mix_twct = 1;
	for (uint32_t t = 0; t < ntypes && t < EVAL_MAX_TYPES; t++)
		in->p.cap[t] = cap[t];
	in->demand = xcalloc((size_t)n + 1, sizeof(*in->demand));
	in->dur = xmalloc(((size_t)n * ntypes + 1) * sizeof(*in->dur));
	for (size_t i = 0; i < (size_t)n * ntypes; i++)
		in->dur[i] = EVAL_NOT_ALLOWED;
	in->release = xcalloc((size_t)n + 1, sizeof(*in->release));
	in->weight = xmalloc(((size_t)n + 1) * sizeof(*in->weight));
	for (uint32_t j = 0; j < n; j++)
		in->weight[j] = 1;
	in->home = xcalloc((size_t)n + 1, 1);
	in->node_off = xcalloc((size_t)n + 1, sizeof(*in->node_off));
	inst_sync(in);
}

void eval_inst_release(struct eval_inst *in)
{
	if (!in)
		return;
	free(in->demand);
	free(in->dur);
	free(in->release);
	free(in->weight);
	free(in->home);
	free(in->run_type);
	free(in->run_units);
	free(in->run_end);
	free(in->run_node);
	free(in->node_cap);
	free(in->node_type);
	free(in->node_off);
	memset(in, 0, sizeof(*in));
}

void eval_inst_add_running(struct eval_inst *in, uint32_t t, uint32_t units,
			   int64_t end, uint32_t node)
{
	size_t k = in->p.nrun, cap = in->run_cap;
	xgrow(&in->run_type, &cap, k + 1, sizeof(*in->run_type));
	cap = in->run_cap;
	xgrow(&in->run_units, &cap, k + 1, sizeof(*in->run_units));
	cap = in->run_cap;
	xgrow(&in->run_end, &cap, k + 1, sizeof(*in->run_end));
	cap = in->run_cap;
	xgrow(&in->run_node, &cap, k + 1, sizeof(*in->run_node));
	in->run_cap = cap;
	in->run_type[k] = (uint8_t)t;
	in->run_units[k] = units;
	in->run_end[k] = end;
	in->run_node[k] = node;
	in->p.nrun++;
	inst_sync(in);
}

void eval_inst_set_nodes(struct eval_inst *in, uint32_t nnodes,
			 const uint32_t *cap, const uint8_t *type)
{
	free(in->node_cap);
	free(in->node_type);
	in->node_cap = xmalloc(((size_t)nnodes + 1) * sizeof(*cap));
	in->node_type = xmalloc((size_t)nnodes + 1);
	memcpy(in->node_cap, cap, nnodes * sizeof(*cap));
	memcpy(in->node_type, type, nnodes);
	in->p.nnodes = nnodes;
	inst_sync(in);
}

/*
 * On nodes, running jobs must name a node and fit in it: the decoder
 * counts each node's free units down from its capacity, and its node
 * index has no place for a node with more free units than that.
 */
static int check_run_nodes(const struct eval_inst *in, struct sim_error *err)
{
	const struct eval_problem *p = &in->p;
	uint64_t *held = xcalloc((size_t)p->nnodes + 1, sizeof(*held));
	int rc = 0;
	for (uint32_t r = 0; r < p->nrun && rc == 0; r++) {
		uint32_t i = in->run_node[r];
		if (i >= p->nnodes)
			rc = err_set(err, "batch problem: running job %u: node "
				     "%u of %u", r, i, p->nnodes);
		else
			held[i] += in->run_units[r];
	}
	for (uint32_t i = 0; i < p->nnodes && rc == 0; i++)
		if (held[i] > in->node_cap[i])
			rc = err_set(err, "batch problem: running jobs hold "
				     "%llu units of node %u, which has %u",
				     (unsigned long long)held[i], i,
				     in->node_cap[i]);
	free(held);
	return rc;
}

int eval_inst_finish(struct eval_inst *in, struct sim_error *err)
{
	struct eval_problem *p = &in->p;
	int64_t used[EVAL_MAX_TYPES] = { 0 };
	if (p->ntypes < 1 || p->ntypes > EVAL_MAX_TYPES)
		return err_set(err, "batch problem: %u resource types (1 to "
			       "%d)", p->ntypes, EVAL_MAX_TYPES);
	for (uint32_t r = 0; r < p->nrun; r++) {
		if (in->run_type[r] >= p->ntypes || in->run_end[r] <= 0)
			return err_set(err, "batch problem: running job %u: "
				       "bad type or end", r);
		used[in->run_type[r]] += in->run_units[r];
	}
	for (uint32_t t = 0; t < p->ntypes; t++)
		if (used[t] > p->cap[t])
			return err_set(err, "batch problem: running jobs hold "
				       "%lld units of type %u, which has %lld",
				       (long long)used[t], t,
				       (long long)p->cap[t]);
	int rc = p->nnodes ? check_run_nodes(in, err) : 0;
	if (rc != 0)
		return rc;
	in->node_off[0] = 0;
	for (uint32_t j = 0; j < p->n; j++) {
		int home = -1;
		uint32_t slots = 1;
		for (uint32_t t = 0; t < p->ntypes; t++) {
			int64_t d = in->dur[(size_t)j * p->ntypes + t];
			if (d < 0)
				continue;
			if (in->demand[j] > p->cap[t])
				in->dur[(size_t)j * p->ntypes + t] =
					EVAL_NOT_ALLOWED;
			else if (home < 0 || p->cap[t] > p->cap[home])
				home = (int)t;
			uint32_t cnt = 0, big = 0;
			for (uint32_t i = 0; i < p->nnodes; i++) {
				if (in->node_type[i] != t)
					continue;
				cnt++;
				if (in->node_cap[i] > big)
					big = in->node_cap[i];
			}
			if (in->demand[j] > big && cnt > slots)
				slots = cnt;
		}
		if (home < 0)
			return err_set(err, "batch problem: job %u (%u units) "
				       "fits on no type it may use", j,
				       in->demand[j]);
		if (in->release[j] < 0 || in->weight[j] < 1)
			return err_set(err, "batch problem: job %u: negative "
				       "release or weight below 1", j);
		in->home[j] = (uint8_t)home;
		in->node_off[j + 1] = in->node_off[j] + slots;
	}
	/* Every end must fit the decoder's packed events. */
	int64_t lim = eval_end_limit(p);
	if (eval_latest_end(p) >= lim)
		return err_set(err, "batch problem: ends may pass %lld "
			       "ticks, the latest the decoder holds",
			       (long long)lim - 1);
	/* On nodes, a job must fit its home type's nodes too. */
	for (uint32_t j = 0; p->nnodes && j < p->n; j++) {
		uint64_t tot = 0, big = 0;
		for (uint32_t i = 0; i < p->nnodes; i++) {
			if (in->node_type[i] != in->home[j])
				continue;
			tot += in->node_cap[i];
			big = in->node_cap[i] > big ? in->node_cap[i] : big;
		}
		if (in->demand[j] > tot)
			return err_set(err, "batch problem: job %u (%u units) "
				       "fits on no nodes of its type", j,
				       in->demand[j]);
	}
	inst_sync(in);
	return 0;
}

/* ---- lower bound ------------------------------------------------------ */

/* Jobs for Smith's rule: area and weight. */
struct lb_job {
	__int128 area;  /* demand x shortest run */
	int64_t w;      /* weight */
};

static int lb_cmp(const void *a, const void *b)
{
	const struct lb_job *x = a, *y = b;
	/* x before y when x.area / x.w < y.area / y.w */
	__int128 l = x->area * y->w, r = y->area * x->w;
	return (l > r) - (l < r);
}

static int64_t min_dur(const struct eval_problem *p, uint32_t j)
{
	int64_t best = -1;
	for (uint32_t t = 0; t < p->ntypes; t++) {
		int64_t d = p->dur[(size_t)j * p->ntypes + t];
		if (d >= 0 && (best < 0 || d < best))
			best = d;
	}
	return best < 0 ? 0 : best;
}

static __int128 ceil_div(__int128 a, __int128 b)
{
	return b > 0 ? (a + b - 1) / b : 0;
}

int64_t eval_lower_bound(const struct eval_problem *p)
{
	__int128 cap = 0, area = 0, mk = 0, trivial = 0, sum_r = 0, sum_p = 0;
	for (uint32_t t = 0; t < p->ntypes; t++)
		cap += p->cap[t];
	for (uint32_t r = 0; r < p->nrun; r++) {
		area += (__int128)p->run_units[r] * p->run_end[r];
		if (p->run_end[r] > mk)
			mk = p->run_end[r];
	}
	struct lb_job *lj = xcalloc((size_t)p->n + 1, sizeof(*lj));
	for (uint32_t j = 0; j < p->n; j++) {
		int64_t d = min_dur(p, j);
		lj[j].area = (__int128)p->demand[j] * d;
		lj[j].w = p->objective == EVAL_JCT ? 1 : p->weight[j];
		area += lj[j].area;
		if (p->release[j] + d > mk)
			mk = p->release[j] + d;
		trivial += (__int128)lj[j].w * (p->release[j] + d);
		sum_r += p->release[j];
		sum_p += d;
	}
	if (ceil_div(area, cap) > mk)
		mk = ceil_div(area, cap);
	qsort(lj, p->n, sizeof(*lj), lb_cmp);
	__int128 prefix = 0, smith = 0;
	for (uint32_t j = 0; j < p->n; j++) {
		prefix += lj[j].area;
		smith += (__int128)lj[j].w * prefix;
	}
	free(lj);
	smith = ceil_div(smith, cap);
	__int128 wc = trivial > smith ? trivial : smith, out;
	switch (p->objective) {
	case EVAL_MAKESPAN:
		out = mk;
		break;
	case EVAL_TWCT:
		out = wc;
		break;
	case EVAL_JCT:
		out = wc - sum_r > sum_p ? wc - sum_r : sum_p;
		break;
	default:
		out = p->mix_makespan * mk + p->mix_twct * wc;
		break;
	}
	return (int64_t)out;
}
