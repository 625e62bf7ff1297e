/*
 * The genetic algorithm over permutations (+ placement genes) of a batch
 * problem, on the batch evaluator, with the population resident there.
 *
 * Each generation, within each island: the `elite` best candidates are
 * copied unchanged; every `migrate` generations the best of the previous
 * island (a ring) replaces the next slot; every other slot is bred by
 * eval_ga_child (tournament selection, order crossover, swap and insert
 * mutation, a gene change).  Only the scores come back to the host, which
 * picks elites and migrants from them (ties by lower index) and fetches a
 * candidate only when it beats the best so far.
 *
 * Source: Holland's GA with Davis' order crossover (Davis, "Applying
 * adaptive algorithms to epistatic domains", IJCAI 1985); islands after
 * Whitley et al., "The island model genetic algorithm", 1998.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

static uint32_t prob32(double p)
{
	if (!(p > 0))
		return 0;
	if (p >= 1)
		return UINT32_MAX;
	return (uint32_t)(p * 4294967296.0);
}

struct rank_ctx {
	const int64_t *score; /* scores being ranked */
};

static int rank_cmp(const void *a, const void *b, void *ctx)
{
	const int64_t *s = ((const struct rank_ctx *)ctx)->score;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (s[x] != s[y])
		return s[x] < s[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/* Loads the first population: `start` as candidate 0, random others. */
static void first_population(const struct eval_problem *p,
			     const struct search_opts *o,
			     const struct search_result *start, uint32_t count,
			     uint32_t *perms, uint8_t *genes)
{
	size_t n = p->n;
	for (uint32_t c = 0; c < count; c++)
		search_random_candidate(p, o->seed, c, perms + c * n,
					genes + c * n);
	if (start) {
		memcpy(perms, start->perm, n * sizeof(*perms));
		memcpy(genes, start->genes, n);
	}
}

/* Fetches candidate idx if its score beats r's best. */
static int take_best(struct eval *e, const struct eval_problem *p,
		     const int64_t *score, size_t count, bool chain_best,
		     struct search_result *r, uint32_t *perm, uint8_t *genes,
		     struct sim_error *err)
{
	size_t bi = 0;
	for (size_t i = 1; i < count; i++)
		if (score[i] < score[bi])
			bi = i;
	if (count == 0 || score[bi] >= r->score)
		return 0;
	int rc = eval_pop_get(e, bi, chain_best, perm, genes, err);
	if (!rc)
		search_result_offer(r, p->n, perm, genes, score[bi]);
	return rc;
}

int search_ga(const struct eval_problem *p, const struct search_opts *o,
	      const struct search_result *start, struct search_result *r,
	      struct sim_error *err)
{
	uint32_t pop = o->pop, isl = o->islands ? o->islands : 1;
	if (pop < 2 || pop % isl || pop / isl < 2 || o->tournament < 1 ||
	    o->elite >= pop / isl)
		return err_set(err, "ga: population %u must be a multiple of "
			       "the %u islands, at least 2 each, with fewer "
			       "elites (%u) and a tournament >= 1", pop, isl,
			       o->elite);
	double t0 = mono_seconds();
	size_t n = p->n, per = pop / isl;
	uint32_t *perms = xmalloc((size_t)pop * n * sizeof(*perms) + 4);
	uint8_t *genes = xmalloc((size_t)pop * n + 1);
	uint32_t *copy = xmalloc(pop * sizeof(*copy));
	uint32_t *rank = xmalloc(pop * sizeof(*rank));
	int64_t *score = xmalloc(pop * sizeof(*score));
	struct eval *e = eval_new(p, &o->eval, err);
	int rc = -SIM_EINPUT;
	if (!e)
		goto out_free;
	snprintf(r->backend, sizeof(r->backend), "%s", eval_backend(e));
	snprintf(r->note, sizeof(r->note), "%s", eval_note(e));
	first_population(p, o, start, pop, perms, genes);
	rc = eval_pop_set(e, perms, genes, pop, score, err);
	if (rc)
		goto out;
	r->evals = pop;
	rc = take_best(e, p, score, pop, false, r, perms, genes, err);
	if (rc)
		goto out;
	search_trace(r, r->evals, mono_seconds() - t0);
	struct eval_ga_params g = {
		.seed = o->seed, .pop = pop, .island = (uint32_t)per,
		.tournament = o->tournament, .p_cross = prob32(o->p_cross),
		.p_swap = prob32(o->p_swap), .p_insert = prob32(o->p_insert),
		.p_gene = prob32(o->p_gene),
	};
	struct rank_ctx rc_ctx = { score };
	for (uint32_t gen = 1; r->evals + pop <= o->evals; gen++) {
		if (o->wall_s > 0 && mono_seconds() - t0 >= o->wall_s) {
			r->reproducible = false;
			break;
		}
		for (uint32_t i = 0; i < pop; i++) {
			copy[i] = EVAL_BREED;
			rank[i] = i;
		}
		for (uint32_t k = 0; k < isl; k++)
			qsort_r(rank + k * per, per, sizeof(*rank), rank_cmp,
				&rc_ctx);
		for (uint32_t k = 0; k < isl; k++) {
			for (uint32_t i = 0; i < o->elite; i++)
				copy[k * per + i] = rank[k * per + i];
			if (isl > 1 && o->migrate && gen % o->migrate == 0)
				copy[k * per + o->elite] =
					rank[(k + isl - 1) % isl * per];
		}
		g.gen = gen;
		rc = eval_ga_step(e, &g, copy, score, err);
		if (rc)
			goto out;
		r->evals += pop;
		rc = take_best(e, p, score, pop, false, r, perms, genes, err);
		if (rc)
			goto out;
		search_trace(r, r->evals, mono_seconds() - t0);
	}
	r->wall_s = mono_seconds() - t0;
	rc = 0;
out:
	eval_free(e);
out_free:
	free(score);
	free(rank);
	free(copy);
	free(genes);
	free(perms);
	return rc;
}
