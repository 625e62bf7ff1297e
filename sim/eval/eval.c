/*
 * The batch evaluator (eval.h): the front that every caller uses.  It
 * checks the arguments, picks a backend (eval_backend.h: the pool of CPU
 * threads, or the CUDA device when one is built and answers) and calls
 * only through that backend's table.  What does not depend on where the
 * candidates are scored lives here once: the checks of a GA or annealing
 * step, which island bests the backend holds, the best of a generation
 * from them, and the messages of the errors a backend returns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "eval/eval_backend.h"

/* The device backend, when this build has one. */
#ifdef CLUSTERSIM_HAVE_CUDA
static const struct eval_backend_ops *const device_ops = &eval_cuda_ops;
#else
static const struct eval_backend_ops *const device_ops = NULL;
#endif

struct eval {
	const struct eval_problem *p;     /* the problem (not owned) */
	const struct eval_backend_ops *ops; /* the backend */
	void *b;                          /* its state */
	char note[256];                   /* why not cuda, when it could be */
	size_t pop;                       /* candidates resident */
	struct eval_top *tops;            /* [pop] each group's bests, in order */
	uint32_t tops_groups;             /* groups and length of each list */
	uint32_t tops_keep;               /* the backend holds (0: none) */
};

/* Why size of a backend's messages. */
enum { WHY_N = 256 };

/* A backend's error, named after it. */
static int backend_err(const struct eval *e, const char *why,
		       struct sim_error *err)
{
	return err_set(err, "%s: %s", e->ops->name, why);
}

bool eval_cuda_present(char *why, size_t n)
{
	if (!device_ops) {
		snprintf(why, n, "this build has no CUDA backend (nvcc was "
			 "not found at build time)");
		return false;
	}
	return device_ops->probe(why, n) == 1;
}

/* Checks p for o; 0 or an error. */
static int check_problem(const struct eval_problem *p,
			 const struct eval_opts *o, struct sim_error *err)
{
	if (o->nodes && p->nnodes == 0)
		return err_set(err, "node-level decoding needs the problem's "
			       "nodes");
	for (uint32_t r = 0; o->nodes && r < p->nrun; r++)
		if (p->run_node[r] >= p->nnodes ||
		    p->run_units[r] > p->node_cap[p->run_node[r]])
			return err_set(err, "batch problem: running job %u is "
				       "not on a node that holds it", r);
	if (eval_latest_end(p) >= eval_end_limit(p))
		return err_set(err, "batch problem: ends may pass %lld ticks, "
			       "the latest the decoder holds",
			       (long long)eval_end_limit(p) - 1);
	return 0;
}

struct eval *eval_new(const struct eval_problem *p, const struct eval_opts *o,
		      struct sim_error *err)
{
	if (check_problem(p, o, err))
		return NULL;
	struct eval *e = xcalloc(1, sizeof(*e));
	char why[WHY_N] = "";
	e->p = p;
	e->ops = &eval_cpu_ops;
	if (o->want != EVAL_WANT_CPU) {
		if (eval_cuda_present(why, sizeof(why))) {
			e->b = device_ops->open(p, o->nodes, o->threads, why,
						sizeof(why));
			if (e->b)
				e->ops = device_ops;
		}
		if (!e->b)
			snprintf(e->note, sizeof(e->note),
				 "cuda backend not used: %s; running on the "
				 "cpu", why);
	}
	if (!e->b)
		e->b = e->ops->open(p, o->nodes, o->threads, why, sizeof(why));
	if (!e->b) {
		backend_err(e, why, err);
		free(e);
		return NULL;
	}
	return e;
}

void eval_free(struct eval *e)
{
	if (!e)
		return;
	e->ops->close(e->b);
	free(e->tops);
	free(e);
}

const char *eval_backend(const struct eval *e)
{
	return e->ops->name;
}

const char *eval_note(const struct eval *e)
{
	return e->note;
}

unsigned eval_threads(const struct eval *e)
{
	return e->ops->threads(e->b);
}

int eval_score(struct eval *e, const uint32_t *perms, const uint8_t *genes,
	       size_t count, int64_t *scores, struct sim_error *err)
{
	char why[WHY_N] = "";
	if (e->ops->score(e->b, perms, genes, count, scores, why, sizeof(why)))
		return backend_err(e, why, err);
	return 0;
}

/*
 * The `keep` best of each of `groups` equal groups of the resident
 * scores (of the chains' bests when of_best), kept by the backend for the
 * next generation's elites; *best (when not NULL) gets the best of all.
 */
static int pop_tops(struct eval *e, bool of_best, uint32_t groups,
		    uint32_t keep, struct eval_top *best,
		    struct sim_error *err)
{
	char why[WHY_N] = "";
	if (e->ops->tops(e->b, of_best, groups, keep, e->tops, why,
			 sizeof(why)))
		return backend_err(e, why, err);
	e->tops_groups = of_best ? 0 : groups;
	e->tops_keep = keep;
	if (best) {
		eval_top_clear(best, 1);
		for (uint32_t k = 0; k < groups; k++)
			eval_top_offer(best, 1, e->tops[(size_t)k * keep].score,
				       e->tops[(size_t)k * keep].idx);
	}
	return 0;
}

int eval_pop_set(struct eval *e, const uint32_t *perms, const uint8_t *genes,
		 size_t count, struct eval_top *best, struct sim_error *err)
{
	char why[WHY_N] = "";
	if (count == 0 || count > UINT32_MAX / 2)
		return err_set(err, "a population of %zu candidates", count);
	e->tops_groups = 0;
	if (e->ops->pop_set(e->b, perms, genes, count, why, sizeof(why)))
		return backend_err(e, why, err);
	if (count != e->pop) {
		free(e->tops);
		e->tops = xmalloc(count * sizeof(*e->tops));
		e->pop = count;
	}
	return pop_tops(e, false, 1, 1, best, err);
}

int eval_ga_step(struct eval *e, const struct eval_ga_params *g,
		 struct eval_top *best, struct sim_error *err)
{
	char why[WHY_N] = "";
	if (g->pop != e->pop || g->island < 2 || g->pop % g->island ||
	    g->elite >= g->island || g->elite > EVAL_MAX_KEEP)
		return err_set(err, "ga step: population %u (%zu loaded) in "
			       "islands of %u with %u elites (at most %d, "
			       "fewer than an island)", g->pop, e->pop,
			       g->island, g->elite, EVAL_MAX_KEEP);
	uint32_t groups = g->pop / g->island, keep = eval_ga_keep(g);
	if (e->tops_groups != groups || e->tops_keep != keep) {
		int rc = pop_tops(e, false, groups, keep, NULL, err);
		if (rc)
			return rc;
	}
	/* The bests are of the parents until the children's are found. */
	e->tops_groups = 0;
	if (e->ops->ga_step(e->b, g, why, sizeof(why)))
		return backend_err(e, why, err);
	return pop_tops(e, false, groups, keep, best, err);
}

int eval_sa_step(struct eval *e, const struct eval_sa_params *sp,
		 struct eval_top *best, struct sim_error *err)
{
	char why[WHY_N] = "";
	if (sp->chains != e->pop)
		return err_set(err, "sa step: %u chains, %zu loaded",
			       sp->chains, e->pop);
	e->tops_groups = 0;
	if (e->ops->sa_step(e->b, sp, why, sizeof(why)))
		return backend_err(e, why, err);
	return pop_tops(e, true, 1, 1, best, err);
}

int eval_sa_reset(struct eval *e, uint32_t from, struct sim_error *err)
{
	char why[WHY_N] = "";
	if (from >= e->pop)
		return err_set(err, "sa reset: no chain %u", from);
	e->tops_groups = 0;
	if (e->ops->sa_reset(e->b, from, why, sizeof(why)))
		return backend_err(e, why, err);
	return 0;
}

int eval_pop_get(struct eval *e, size_t idx, bool best, uint32_t *perm,
		 uint8_t *genes, struct sim_error *err)
{
	char why[WHY_N] = "";
	if (idx >= e->pop)
		return err_set(err, "no candidate %zu of %zu", idx, e->pop);
	if (e->ops->pop_get(e->b, idx, best, perm, genes, why, sizeof(why)))
		return backend_err(e, why, err);
	return 0;
}

int eval_pop_scores(struct eval *e, int64_t *cur, int64_t *best,
		    struct sim_error *err)
{
	char why[WHY_N] = "";
	if (e->ops->pop_scores(e->b, cur, best, why, sizeof(why)))
		return backend_err(e, why, err);
	return 0;
}
