/*
 * The genetic algorithm over permutations (+ placement genes) of a batch
 * problem, on the batch evaluator, with the population resident there.
 *
 * Each generation, within each island: the `elite` best candidates are
 * copied unchanged; every `migrate` generations the best of the previous
 * island (a ring) replaces the next slot; every other slot is bred by
 * eval_ga_child (tournament selection, order crossover, swap and insert
 * mutation, a gene change).  The evaluator picks elites and migrants
 * where the population lives (ties by lower index); only the best score
 * comes back, and a candidate is fetched only when it beats the best so
 * far.
 *
 * Source: Holland's GA with Davis' order crossover (Davis, "Applying
 * adaptive algorithms to epistatic domains", IJCAI 1985); islands after
 * Whitley et al., "The island model genetic algorithm", 1998.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"

static uint32_t prob32(double p)
{
	if (!(p > 0))
		return 0;
	if (p >= 1)
		return UINT32_MAX;
	return (uint32_t)(p * 4294967296.0);
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

/* Fetches the best candidate if it beats r's best. */
static int take_best(struct eval *e, const struct eval_problem *p,
		     const struct eval_top *best, struct search_result *r,
		     uint32_t *perm, uint8_t *genes, struct sim_error *err)
{
	if (best->score >= r->score)
		return 0;
	int rc = eval_pop_get(e, best->idx, false, perm, genes, err);
	if (!rc)
		search_result_offer(r, p->n, perm, genes, best->score);
	return rc;
}

int search_ga(const struct eval_problem *p, const struct search_opts *o,
	      const struct search_result *start, struct search_result *r,
	      struct sim_error *err)
{
	uint32_t pop = o->pop, isl = o->islands ? o->islands : 1;
	if (pop < 2 || pop % isl || pop / isl < 2 || o->tournament < 1 ||
	    o->elite >= pop / isl || o->elite > EVAL_MAX_KEEP)
		return err_set(err, "ga: population %u must be a multiple of "
			       "the %u islands, at least 2 each, with fewer "
			       "elites (%u, at most %d) and a tournament >= 1",
			       pop, isl, o->elite, EVAL_MAX_KEEP);
	double t0 = mono_seconds();
	size_t n = p->n, per = pop / isl;
	uint32_t *perms = xmalloc((size_t)pop * n * sizeof(*perms) + 4);
	uint8_t *genes = xmalloc((size_t)pop * n + 1);
	struct eval_top best;
	struct eval *e = eval_new(p, &o->eval, err);
	int rc = -SIM_EINPUT;
	if (!e)
		goto out_free;
	snprintf(r->backend, sizeof(r->backend), "%s", eval_backend(e));
	snprintf(r->note, sizeof(r->note), "%s", eval_note(e));
	first_population(p, o, start, pop, perms, genes);
	rc = eval_pop_set(e, perms, genes, pop, &best, err);
	if (rc)
		goto out;
	r->evals = pop;
	rc = take_best(e, p, &best, r, perms, genes, err);
	if (rc)
		goto out;
	search_trace(r, r->evals, mono_seconds() - t0);
	struct eval_ga_params g = {
		.seed = o->seed, .pop = pop, .island = (uint32_t)per,
		.tournament = o->tournament, .p_cross = prob32(o->p_cross),
		.p_swap = prob32(o->p_swap), .p_insert = prob32(o->p_insert),
		.p_gene = prob32(o->p_gene), .elite = o->elite,
	};
	for (uint32_t gen = 1; r->evals + pop <= o->evals; gen++) {
		if (o->wall_s > 0 && mono_seconds() - t0 >= o->wall_s) {
			r->reproducible = false;
			break;
		}
		g.gen = gen;
		g.migrate = isl > 1 && o->migrate && gen % o->migrate == 0;
		rc = eval_ga_step(e, &g, &best, err);
		if (rc)
			goto out;
		r->evals += pop;
		rc = take_best(e, p, &best, r, perms, genes, err);
		if (rc)
			goto out;
		search_trace(r, r->evals, mono_seconds() - t0);
	}
	r->wall_s = mono_seconds() - t0;
	rc = 0;
out:
	eval_free(e);
out_free:
	free(genes);
	free(perms);
	return rc;
}
