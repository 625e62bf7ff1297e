/*
 * Simulated annealing with many chains advanced in batches on the batch
 * evaluator (eval_sa_chain: one swap, insert or gene move per chain and
 * step, Metropolis acceptance).  The temperature falls geometrically from
 * t0 x (start score / n) to t_end of that over the budget; every
 * `restart` steps all chains restart from the best chain's best.
 *
 * Source: Kirkpatrick, Gelatt and Vecchi, "Optimization by simulated
 * annealing", Science 1983.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"

int search_sa(const struct eval_problem *p, const struct search_opts *o,
	      const struct search_result *start, struct search_result *r,
	      struct sim_error *err)
{
	uint32_t ch = o->chains;
	if (ch < 1 || !(o->t0 > 0) || !(o->t_end > 0) || o->t_end > 1)
		return err_set(err, "sa: needs chains >= 1, t0 > 0 and t_end "
			       "in (0, 1]");
	double t0 = mono_seconds();
	size_t n = p->n;
	uint32_t *perms = xmalloc((size_t)ch * n * sizeof(*perms) + 4);
	uint8_t *genes = xmalloc((size_t)ch * n + 1);
	struct eval_top best;
	struct eval *e = eval_new(p, &o->eval, err);
	int rc = -SIM_EINPUT;
	if (!e)
		goto out_free;
	snprintf(r->backend, sizeof(r->backend), "%s", eval_backend(e));
	snprintf(r->note, sizeof(r->note), "%s", eval_note(e));
	for (uint32_t c = 0; c < ch; c++)
		search_random_candidate(p, o->seed, c, perms + c * n,
					genes + c * n);
	if (start) {
		/* half the chains from the start, half random */
		for (uint32_t c = 0; c < ch; c += 2) {
			memcpy(perms + c * n, start->perm, n * sizeof(*perms));
			memcpy(genes + c * n, start->genes, n);
		}
	}
	rc = eval_pop_set(e, perms, genes, ch, &best, err);
	if (rc)
		goto out;
	r->evals = ch;
	int64_t first = best.score;
	double temp0 = o->t0 * (double)(first > 0 ? first : 1) /
		       (double)(n ? n : 1);
	uint64_t steps = o->evals > ch ? (o->evals - ch) / ch : 0;
	double alpha = steps ? pow(o->t_end, 1.0 / (double)steps) : 1.0;
	struct eval_sa_params sp = { .seed = o->seed, .chains = ch,
				     .p_gene = (uint32_t)(0.2 * 4294967296.0),
				     .temp = temp0 };
	if (p->ntypes <= 1)
		sp.p_gene = 0;
	rc = eval_pop_get(e, best.idx, true, perms, genes, err);
	if (rc)
		goto out;
	search_result_offer(r, p->n, perms, genes, best.score);
	search_trace(r, r->evals, mono_seconds() - t0);
	for (uint64_t s = 0; s < steps; s++) {
		if (o->wall_s > 0 && mono_seconds() - t0 >= o->wall_s) {
			r->reproducible = false;
			break;
		}
		sp.step = (uint32_t)(s + 1);
		rc = eval_sa_step(e, &sp, &best, err);
		if (rc)
			goto out;
		r->evals += ch;
		sp.temp *= alpha;
		if (best.score < r->score) {
			rc = eval_pop_get(e, best.idx, true, perms, genes, err);
			if (rc)
				goto out;
			search_result_offer(r, p->n, perms, genes, best.score);
		}
		if (o->restart && (s + 1) % o->restart == 0) {
			rc = eval_sa_reset(e, best.idx, err);
			if (rc)
				goto out;
		}
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
