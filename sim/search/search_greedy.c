/*
 * What every search shares (options, results, random candidates) and the
 * greedy heuristic: list scheduling in a fixed order where each job goes
 * to the type it can start on soonest, ties to the least leftover
 * capacity (best fit), then the lowest type index.  Two orders are tried:
 * the jobs' own (submit) order and Smith's rule (work / weight), which is
 * optimal on one machine for weighted completion time.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "search/search.h"

void search_opts_default(struct search_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->evals = 200000;
	o->pop = 256;
	o->islands = 4;
	o->tournament = 3;
	o->elite = 2;
	o->migrate = 10;
	o->p_cross = 0.9;
	o->p_swap = 0.3;
	o->p_insert = 0.3;
	o->p_gene = 0.2;
	o->chains = 64;
	o->t0 = 0.05;
	o->t_end = 1e-4;
	o->restart = 0;
	o->time_limit_s = 10;
	o->max_slots = 64;
	o->max_vars = 200000;
}

void search_result_init(struct search_result *r, uint32_t n)
{
	memset(r, 0, sizeof(*r));
	r->perm = xcalloc((size_t)n + 1, sizeof(*r->perm));
	r->genes = xcalloc((size_t)n + 1, 1);
	r->score = INT64_MAX;
	r->reproducible = true;
	r->bound = -1;
	r->gap = -1;
}

void search_result_release(struct search_result *r)
{
	if (!r)
		return;
	free(r->perm);
	free(r->genes);
	free(r->trace);
	memset(r, 0, sizeof(*r));
}

void search_result_offer(struct search_result *r, uint32_t n,
			 const uint32_t *perm, const uint8_t *genes,
			 int64_t score)
{
	if (score >= r->score)
		return;
	r->score = score;
	memcpy(r->perm, perm, n * sizeof(*perm));
	memcpy(r->genes, genes, n);
}

void search_trace(struct search_result *r, uint64_t evals, double wall_s)
{
	if (r->ntrace > 0 && r->trace[r->ntrace - 1].best == r->score &&
	    r->ntrace > 1 && r->trace[r->ntrace - 2].best == r->score) {
		/* a flat stretch keeps its two ends */
		r->trace[r->ntrace - 1].evals = evals;
		r->trace[r->ntrace - 1].wall_s = wall_s;
		return;
	}
	xgrow(&r->trace, &r->trace_cap, r->ntrace + 1, sizeof(*r->trace));
	r->trace[r->ntrace].evals = evals;
	r->trace[r->ntrace].wall_s = wall_s;
	r->trace[r->ntrace].best = r->score;
	r->ntrace++;
}

void search_random_candidate(const struct eval_problem *p, uint64_t seed,
			     uint32_t c, uint32_t *perm, uint8_t *genes)
{
	struct eval_rng r;
	eval_rng_init(&r, seed, EVAL_STREAM_INIT, c, 0);
	for (uint32_t i = 0; i < p->n; i++)
		perm[i] = i;
	for (uint32_t i = p->n; i > 1; i--) {
		uint32_t k = eval_rng_below(&r, i), t = perm[i - 1];
		perm[i - 1] = perm[k];
		perm[k] = t;
	}
	for (uint32_t j = 0; j < p->n; j++)
		genes[j] = p->ntypes > 1 ? eval_random_type(p, j, &r) :
					   p->home[j];
}

static int64_t work_of(const struct eval_problem *p, uint32_t j)
{
	int64_t best = -1;
	for (uint32_t t = 0; t < p->ntypes; t++) {
		int64_t d = p->dur[(size_t)j * p->ntypes + t];
		if (d >= 0 && (best < 0 || d < best))
			best = d;
	}
	return best * (int64_t)(p->demand[j] ? p->demand[j] : 1);
}

/* Order of Smith's rule: demand x shortest run / weight, ties by index. */
static int smith_cmp(const void *a, const void *b, void *ctx)
{
	const struct eval_problem *smith_p = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	__int128 l = (__int128)work_of(smith_p, x) * smith_p->weight[y];
	__int128 r = (__int128)work_of(smith_p, y) * smith_p->weight[x];
	if (l != r)
		return l < r ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * Places each job of perm on its soonest type (genes out).  A job's start
 * depends only on the jobs before it in perm, so decoding the whole of
 * perm (the later jobs still on their home types) gives the start it
 * would have after the jobs placed so far.  (The problem itself is not
 * cut to a prefix: node-level events name jobs by index, and an index
 * past a cut n would read as a running job.)
 */
static void place_types(const struct eval_problem *p, bool nodes,
			const uint32_t *perm, uint8_t *genes,
			struct eval_scratch *s, int64_t *start)
{
	for (uint32_t j = 0; j < p->n; j++)
		genes[j] = p->home[j];
	if (p->ntypes == 1)
		return;
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = perm[k], best = p->home[j];
		int64_t bs = INT64_MAX, bleft = INT64_MAX;
		for (uint32_t t = 0; t < p->ntypes; t++) {
			if (p->dur[(size_t)j * p->ntypes + t] < 0)
				continue;
			genes[j] = (uint8_t)t;
			if (nodes)
				eval_decode_nodes(p, perm, genes, s, start);
			else
				eval_decode(p, perm, genes, s, start, NULL);
			int64_t left = p->cap[t] - p->demand[j];
			if (start[j] < bs || (start[j] == bs && left < bleft)) {
				bs = start[j];
				bleft = left;
				best = t;
			}
		}
		genes[j] = (uint8_t)best;
	}
}

int search_greedy(const struct eval_problem *p, bool nodes,
		  struct search_result *r, struct sim_error *err)
{
	double t0 = mono_seconds();
	uint32_t n = p->n;
	uint32_t *perm = xcalloc((size_t)n + 1, sizeof(*perm));
	uint8_t *genes = xcalloc((size_t)n + 1, 1);
	int64_t *start = xcalloc((size_t)n + 1, sizeof(*start));
	struct eval_scratch s = eval_scratch_new(p);
	(void)err;
	snprintf(r->backend, sizeof(r->backend), "host");
	for (int order = 0; order < 2; order++) {
		for (uint32_t i = 0; i < n; i++)
			perm[i] = i;
		if (order == 1) {
			qsort_r(perm, n, sizeof(*perm), smith_cmp,
				(void *)p);
		}
		place_types(p, nodes, perm, genes, &s, start);
		int64_t sc = nodes ? eval_decode_nodes(p, perm, genes, &s, NULL) :
				     eval_decode(p, perm, genes, &s, NULL, NULL);
		r->evals++;
		search_result_offer(r, n, perm, genes, sc);
		search_trace(r, r->evals, mono_seconds() - t0);
	}
	r->wall_s = mono_seconds() - t0;
	eval_scratch_free(&s);
	free(start);
	free(genes);
	free(perm);
	return 0;
}
