/*
 * The batch evaluator (eval.h): the CPU backend, a pool of POSIX threads
 * that each take chunks of candidate indexes, and the switch to the CUDA
 * backend when one is built and a device answers.
 *
 * Determinism: a task's result for candidate i depends only on i (its
 * Philox counter) and on read-only inputs, so which thread takes which
 * chunk changes nothing.
 *
 * The decoders are compiled here once per instruction set of their event
 * queue (eval_decode.h), and the best one the CPU runs is used; they give
 * the same scores.
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval/eval.h"
#include "eval/eval_cuda.h"

struct eval;

/* Work given to the pool: fn(e, i, scratch) for i in [0, count). */
typedef void (*eval_task_fn)(struct eval *e, size_t i, unsigned tid);

/* A decoder call, pooled or node level (type: pooled only). */
typedef int64_t (*eval_decode_fn)(const struct eval_problem *p, bool nodes,
				  const uint32_t *perm, const uint8_t *genes,
				  struct eval_scratch *s, int64_t *start,
				  uint8_t *type);

/* One worker's decoder scratch. */
struct eval_worker {
	struct eval_scratch s; /* decoder scratch */
	uint8_t *mark;         /* crossover marks, n bytes */
};

struct eval {
	const struct eval_problem *p; /* the problem (not owned) */
	bool nodes;                   /* node-level decoding */
	eval_decode_fn decode;        /* the CPU decoder (eval_isa_best) */
	struct eval_cuda *cuda;       /* the device backend, or NULL */
	char note[256];               /* why not cuda, when it could be */
	/* Pool. */
	unsigned nthreads;            /* workers, the caller included */
	pthread_t *threads;           /* nthreads - 1 helpers */
	struct eval_worker *w;        /* [nthreads] */
	pthread_mutex_t mu;           /* guards the fields below */
	pthread_cond_t go;            /* a new task, or quit */
	pthread_cond_t done;          /* the helpers finished */
	uint64_t epoch;               /* task number */
	unsigned busy;                /* helpers still on the task */
	bool quit;                    /* helpers exit */
	eval_task_fn fn;              /* the task */
	size_t count;                 /* its indexes */
	size_t next;                  /* the next chunk (atomic) */
	/* Population (CPU backend). */
	size_t pop;                   /* candidates */
	uint32_t *perm[2];            /* [pop * n]: current and next */
	uint8_t *gene[2];             /* [pop * n] */
	int64_t *score[2];            /* [pop] */
	uint32_t *best;               /* annealing: each chain's best */
	uint8_t *bgene;
	int64_t *bscore;
	struct eval_top *tops;        /* [pop] each group's bests, in order */
	uint32_t tops_groups;         /* groups and length of each list the */
	uint32_t tops_keep;           /* tops hold (0: not for the scores) */
	/* Arguments of the task running. */
	const uint32_t *in_perm;
	const uint8_t *in_gene;
	int64_t *out;
	struct eval_ga_params ga;
	struct eval_sa_params sa;
};

struct eval_scratch eval_scratch_new(const struct eval_problem *p)
{
	struct eval_scratch_size z = eval_scratch_size_of(p);
	struct eval_scratch s;
	s.ev = xcalloc(z.ev, sizeof(*s.ev));
	s.node_free = xcalloc(z.node_free, sizeof(*s.node_free));
	s.node_list = xcalloc(z.node_list, sizeof(*s.node_list));
	s.node_bits = xcalloc(z.node_bits, sizeof(*s.node_bits));
	return s;
}

void eval_scratch_free(struct eval_scratch *s)
{
	free(s->ev);
	free(s->node_free);
	free(s->node_list);
	free(s->node_bits);
	memset(s, 0, sizeof(*s));
}

/* ---- the decoders, one per instruction set ---------------------------- */

static int64_t decode_plain(const struct eval_problem *p, bool nodes,
			    const uint32_t *perm, const uint8_t *genes,
			    struct eval_scratch *s, int64_t *start,
			    uint8_t *type)
{
	return nodes ? eval_decode_nodes(p, perm, genes, s, start) :
		       eval_decode(p, perm, genes, s, start, type);
}

#ifdef EVAL_X86
__attribute__((target("avx2")))
static int64_t decode_avx2(const struct eval_problem *p, bool nodes,
			   const uint32_t *perm, const uint8_t *genes,
			   struct eval_scratch *s, int64_t *start,
			   uint8_t *type)
{
	return nodes ? eval_decode_nodes_isa(p, perm, genes, s, start,
					     EVAL_ISA_AVX2) :
		       eval_decode_isa(p, perm, genes, s, start, type,
				       EVAL_ISA_AVX2);
}

__attribute__((target("avx512f")))
static int64_t decode_avx512(const struct eval_problem *p, bool nodes,
			     const uint32_t *perm, const uint8_t *genes,
			     struct eval_scratch *s, int64_t *start,
			     uint8_t *type)
{
	return nodes ? eval_decode_nodes_isa(p, perm, genes, s, start,
					     EVAL_ISA_AVX512) :
		       eval_decode_isa(p, perm, genes, s, start, type,
				       EVAL_ISA_AVX512);
}
#endif

static const struct {
	const char *name;  /* for eval_isa_name */
	eval_decode_fn fn; /* NULL: not built for this host */
} isa_table[] = {
	[EVAL_ISA_PLAIN] = { "plain", decode_plain },
#ifdef EVAL_X86
	[EVAL_ISA_AVX2] = { "avx2", decode_avx2 },
	[EVAL_ISA_AVX512] = { "avx512", decode_avx512 },
#else
	[EVAL_ISA_AVX2] = { "avx2", NULL },
	[EVAL_ISA_AVX512] = { "avx512", NULL },
#endif
};
static_assert(ARRAY_SIZE(isa_table) == EVAL_NISAS,
	      "one decoder entry per instruction set");

bool eval_isa_usable(enum eval_isa isa)
{
	if ((unsigned)isa >= EVAL_NISAS || !isa_table[isa].fn)
		return false;
#ifdef EVAL_X86
	/* These also check that the OS saves the vector registers. */
	if (isa == EVAL_ISA_AVX2)
		return __builtin_cpu_supports("avx2");
	if (isa == EVAL_ISA_AVX512)
		return __builtin_cpu_supports("avx512f");
#endif
	return true;
}

enum eval_isa eval_isa_best(void)
{
	for (int isa = EVAL_NISAS - 1; isa > EVAL_ISA_PLAIN; isa--)
		if (eval_isa_usable((enum eval_isa)isa))
			return (enum eval_isa)isa;
	return EVAL_ISA_PLAIN;
}

const char *eval_isa_name(enum eval_isa isa)
{
	return (unsigned)isa < EVAL_NISAS ? isa_table[isa].name : "?";
}

int64_t eval_one_isa(const struct eval_problem *p, bool nodes,
		     enum eval_isa isa, const uint32_t *perm,
		     const uint8_t *genes, int64_t *start, uint8_t *type)
{
	if (!eval_isa_usable(isa))
		SIM_BUG("decoder '%s' cannot run here", eval_isa_name(isa));
	struct eval_scratch s = eval_scratch_new(p);
	int64_t sc = isa_table[isa].fn(p, nodes, perm, genes, &s, start,
				       type);
	if (nodes && type)
		for (uint32_t j = 0; j < p->n; j++)
			type[j] = (uint8_t)eval_job_type(p, genes, j);
	eval_scratch_free(&s);
	return sc;
}

int64_t eval_one(const struct eval_problem *p, bool nodes,
		 const uint32_t *perm, const uint8_t *genes, int64_t *start,
		 uint8_t *type)
{
	return eval_one_isa(p, nodes, eval_isa_best(), perm, genes, start,
			    type);
}

static int64_t decode(struct eval *e, const uint32_t *perm,
		      const uint8_t *genes, struct eval_scratch *s)
{
	return e->decode(e->p, e->nodes, perm, genes, s, NULL, NULL);
}

/* ---- the pool ------------------------------------------------------- */

static void run_chunks(struct eval *e, unsigned tid)
{
	const size_t chunk = 16;
	for (;;) {
		size_t lo = __atomic_fetch_add(&e->next, chunk,
					       __ATOMIC_RELAXED);
		if (lo >= e->count)
			break;
		size_t hi = lo + chunk < e->count ? lo + chunk : e->count;
		for (size_t i = lo; i < hi; i++)
			e->fn(e, i, tid);
	}
}

struct eval_thread_arg {
	struct eval *e;
	unsigned tid;
};

static void *worker_main(void *arg)
{
	struct eval_thread_arg *a = arg;
	struct eval *e = a->e;
	unsigned tid = a->tid;
	uint64_t seen = 0;
	free(a);
	pthread_mutex_lock(&e->mu);
	for (;;) {
		while (!e->quit && e->epoch == seen)
			pthread_cond_wait(&e->go, &e->mu);
		if (e->quit)
			break;
		seen = e->epoch;
		pthread_mutex_unlock(&e->mu);
		run_chunks(e, tid);
		pthread_mutex_lock(&e->mu);
		if (--e->busy == 0)
			pthread_cond_signal(&e->done);
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

static void pool_run(struct eval *e, eval_task_fn fn, size_t count)
{
	e->fn = fn;
	e->count = count;
	e->next = 0;
	if (e->nthreads > 1) {
		pthread_mutex_lock(&e->mu);
		e->busy = e->nthreads - 1;
		e->epoch++;
		pthread_cond_broadcast(&e->go);
		pthread_mutex_unlock(&e->mu);
	}
	run_chunks(e, 0);
	if (e->nthreads > 1) {
		pthread_mutex_lock(&e->mu);
		while (e->busy > 0)
			pthread_cond_wait(&e->done, &e->mu);
		pthread_mutex_unlock(&e->mu);
	}
}

/* ---- tasks ------------------------------------------------------------ */

static void task_score(struct eval *e, size_t i, unsigned tid)
{
	size_t n = e->p->n;
	e->out[i] = decode(e, e->in_perm + i * n,
			   e->in_gene ? e->in_gene + i * n : NULL, &e->w[tid].s);
}

static void task_ga(struct eval *e, size_t i, unsigned tid)
{
	size_t n = e->p->n;
	uint32_t *child = e->perm[1] + i * n;
	uint8_t *cgen = e->gene[1] + i * n;
	eval_ga_child(e->p, &e->ga, e->perm[0], e->gene[0], e->score[0],
		      eval_ga_source(&e->ga, e->tops, (uint32_t)i),
		      (uint32_t)i, child, cgen, e->w[tid].mark);
	e->score[1][i] = decode(e, child, cgen, &e->w[tid].s);
}

static void task_sa(struct eval *e, size_t i, unsigned tid)
{
	size_t n = e->p->n;
	uint32_t *cur = e->perm[0] + i * n;
	uint8_t *cgen = e->gene[0] + i * n;
	struct eval_sa_move m;
	if (!eval_sa_propose(e->p, &e->sa, (uint32_t)i, cur, cgen, &m))
		return;
	int64_t sc = decode(e, cur, cgen, &e->w[tid].s);
	eval_sa_settle(&m, &e->sa, n, sc, cur, cgen, &e->score[0][i],
		       e->best + i * n, e->bgene + i * n, &e->bscore[i]);
}

/* ---- the interface ---------------------------------------------------- */

bool eval_cuda_present(char *why, size_t n)
{
#ifdef CLUSTERSIM_HAVE_CUDA
	return eval_cuda_probe(why, n) == 1;
#else
	snprintf(why, n, "this build has no CUDA backend (nvcc was not "
		 "found at build time)");
	return false;
#endif
}

struct eval *eval_new(const struct eval_problem *p, const struct eval_opts *o,
		      struct sim_error *err)
{
	if (o->nodes && p->nnodes == 0) {
		err_set(err, "node-level decoding needs the problem's nodes");
		return NULL;
	}
	for (uint32_t r = 0; o->nodes && r < p->nrun; r++) {
		if (p->run_node[r] >= p->nnodes ||
		    p->run_units[r] > p->node_cap[p->run_node[r]]) {
			err_set(err, "batch problem: running job %u is not on "
				"a node that holds it", r);
			return NULL;
		}
	}
	if (eval_latest_end(p) >= eval_end_limit(p)) {
		err_set(err, "batch problem: ends may pass %lld ticks, the "
			"latest the decoder holds",
			(long long)eval_end_limit(p) - 1);
		return NULL;
	}
	struct eval *e = xcalloc(1, sizeof(*e));
	e->p = p;
	e->nodes = o->nodes;
	e->decode = isa_table[eval_isa_best()].fn;
	if (o->want != EVAL_WANT_CPU) {
		char why[200] = "";
		if (eval_cuda_present(why, sizeof(why))) {
#ifdef CLUSTERSIM_HAVE_CUDA
			e->cuda = eval_cuda_new(p, o->nodes, why, sizeof(why));
#endif
		}
		if (!e->cuda)
			snprintf(e->note, sizeof(e->note),
				 "cuda backend not used: %s; running on the "
				 "cpu", why);
	}
	if (e->cuda)
		return e;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	e->nthreads = o->threads ? o->threads : (cores > 0 ? (unsigned)cores : 1);
	e->w = xcalloc(e->nthreads, sizeof(*e->w));
	for (unsigned t = 0; t < e->nthreads; t++) {
		e->w[t].s = eval_scratch_new(p);
		e->w[t].mark = xcalloc((size_t)p->n + 1, 1);
	}
	pthread_mutex_init(&e->mu, NULL);
	pthread_cond_init(&e->go, NULL);
	pthread_cond_init(&e->done, NULL);
	e->threads = xcalloc(e->nthreads, sizeof(*e->threads));
	for (unsigned t = 1; t < e->nthreads; t++) {
		struct eval_thread_arg *a = xmalloc(sizeof(*a));
		a->e = e;
		a->tid = t;
		if (pthread_create(&e->threads[t], NULL, worker_main, a) != 0)
			SIM_BUG("cannot start an evaluator thread");
	}
	return e;
}

void eval_free(struct eval *e)
{
	if (!e)
		return;
#ifdef CLUSTERSIM_HAVE_CUDA
	eval_cuda_free(e->cuda);
#endif
	if (e->w) {
		pthread_mutex_lock(&e->mu);
		e->quit = true;
		pthread_cond_broadcast(&e->go);
		pthread_mutex_unlock(&e->mu);
		for (unsigned t = 1; t < e->nthreads; t++)
			pthread_join(e->threads[t], NULL);
		for (unsigned t = 0; t < e->nthreads; t++) {
			eval_scratch_free(&e->w[t].s);
			free(e->w[t].mark);
		}
		pthread_mutex_destroy(&e->mu);
		pthread_cond_destroy(&e->go);
		pthread_cond_destroy(&e->done);
	}
	free(e->threads);
	free(e->w);
	for (int k = 0; k < 2; k++) {
		free(e->perm[k]);
		free(e->gene[k]);
		free(e->score[k]);
	}
	free(e->best);
	free(e->bgene);
	free(e->bscore);
	free(e->tops);
	free(e);
}

const char *eval_backend(const struct eval *e)
{
	return e->cuda ? "cuda" : "cpu";
}

const char *eval_note(const struct eval *e)
{
	return e->note;
}

unsigned eval_threads(const struct eval *e)
{
	return e->cuda ? 0 : e->nthreads;
}

/* On the CUDA backend: call, returning its error from the caller. */
#ifdef CLUSTERSIM_HAVE_CUDA
#define CUDA_TRY(call)                                                       \
	do {                                                                 \
		char why_[256];                                              \
		if ((call) != 0)                                             \
			return err_set(err, "cuda: %s", why_);               \
	} while (0)
#define WHY why_, sizeof(why_)
#else
#define CUDA_TRY(call) SIM_BUG("this build has no cuda backend")
#endif

int eval_score(struct eval *e, const uint32_t *perms, const uint8_t *genes,
	       size_t count, int64_t *scores, struct sim_error *err)
{
	if (e->cuda) {
		CUDA_TRY(eval_cuda_score(e->cuda, perms, genes, count, scores,
					 WHY));
		return 0;
	}
	e->in_perm = perms;
	e->in_gene = genes;
	e->out = scores;
	pool_run(e, task_score, count);
	return 0;
}

/*
 * The `keep` best of each of `groups` equal groups of the resident
 * scores (of the chains' bests when of_best), kept for the next
 * generation's elites; *best (when not NULL) gets the best of all.
 */
static int pop_tops(struct eval *e, bool of_best, uint32_t groups,
		    uint32_t keep, struct eval_top *best,
		    struct sim_error *err)
{
	uint32_t per = (uint32_t)(e->pop / groups);
	if (e->cuda) {
		CUDA_TRY(eval_cuda_tops(e->cuda, of_best, groups, keep, e->tops,
					WHY));
	} else {
		const int64_t *sc = of_best ? e->bscore : e->score[0];
		for (uint32_t k = 0; k < groups; k++)
			eval_top_scan(sc, k * per, (k + 1) * per, 1,
				      e->tops + (size_t)k * keep, keep);
	}
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
	if (count == 0 || count > UINT32_MAX / 2)
		return err_set(err, "a population of %zu candidates", count);
	e->tops_groups = 0;
	if (e->cuda) {
		CUDA_TRY(eval_cuda_pop_set(e->cuda, perms, genes, count, WHY));
		if (count != e->pop) {
			free(e->tops);
			e->tops = xmalloc(count * sizeof(*e->tops));
			e->pop = count;
		}
		return pop_tops(e, false, 1, 1, best, err);
	}
	size_t n = e->p->n, cells = count * n;
	if (count != e->pop) {
		for (int k = 0; k < 2; k++) {
			free(e->perm[k]);
			free(e->gene[k]);
			free(e->score[k]);
			e->perm[k] = xmalloc(cells * sizeof(uint32_t) + 1);
			e->gene[k] = xmalloc(cells + 1);
			e->score[k] = xmalloc(count * sizeof(int64_t) + 1);
		}
		free(e->best);
		free(e->bgene);
		free(e->bscore);
		e->best = xmalloc(cells * sizeof(uint32_t) + 1);
		e->bgene = xmalloc(cells + 1);
		e->bscore = xmalloc(count * sizeof(int64_t) + 1);
		free(e->tops);
		e->tops = xmalloc(count * sizeof(*e->tops));
		e->pop = count;
	}
	memcpy(e->perm[0], perms, cells * sizeof(uint32_t));
	if (genes)
		memcpy(e->gene[0], genes, cells);
	else
		for (size_t c = 0; c < count; c++)
			memcpy(e->gene[0] + c * n, e->p->home, n);
	e->in_perm = e->perm[0];
	e->in_gene = e->gene[0];
	e->out = e->score[0];
	pool_run(e, task_score, count);
	memcpy(e->best, e->perm[0], cells * sizeof(uint32_t));
	memcpy(e->bgene, e->gene[0], cells);
	memcpy(e->bscore, e->score[0], count * sizeof(int64_t));
	return pop_tops(e, false, 1, 1, best, err);
}

int eval_ga_step(struct eval *e, const struct eval_ga_params *g,
		 struct eval_top *best, struct sim_error *err)
{
	if (g->pop != e->pop || g->island < 2 || g->pop % g->island ||
	    g->elite >= g->island || g->elite > EVAL_MAX_KEEP)
		return err_set(err, "ga step: population %u (%zu loaded) in "
			       "islands of %u with %u elites (at most %d, "
			       "fewer than an island)", g->pop, e->pop,
			       g->island, g->elite, EVAL_MAX_KEEP);
	uint32_t groups = g->pop / g->island, keep = eval_ga_keep(g);
	int rc;
	if (e->tops_groups != groups || e->tops_keep != keep) {
		rc = pop_tops(e, false, groups, keep, NULL, err);
		if (rc)
			return rc;
	}
	/* The bests are of the parents until the children's are found. */
	e->tops_groups = 0;
	if (e->cuda) {
		CUDA_TRY(eval_cuda_ga_step(e->cuda, g, WHY));
		return pop_tops(e, false, groups, keep, best, err);
	}
	e->ga = *g;
	pool_run(e, task_ga, e->pop);
	uint32_t *tp = e->perm[0];
	uint8_t *tg = e->gene[0];
	int64_t *ts = e->score[0];
	e->perm[0] = e->perm[1];
	e->gene[0] = e->gene[1];
	e->score[0] = e->score[1];
	e->perm[1] = tp;
	e->gene[1] = tg;
	e->score[1] = ts;
	return pop_tops(e, false, groups, keep, best, err);
}

int eval_sa_step(struct eval *e, const struct eval_sa_params *sp,
		 struct eval_top *best, struct sim_error *err)
{
	if (sp->chains != e->pop)
		return err_set(err, "sa step: %u chains, %zu loaded",
			       sp->chains, e->pop);
	e->tops_groups = 0;
	if (e->cuda) {
		CUDA_TRY(eval_cuda_sa_step(e->cuda, sp, WHY));
	} else {
		e->sa = *sp;
		pool_run(e, task_sa, e->pop);
	}
	return pop_tops(e, true, 1, 1, best, err);
}

int eval_sa_reset(struct eval *e, uint32_t from, struct sim_error *err)
{
	if (from >= e->pop)
		return err_set(err, "sa reset: no chain %u", from);
	e->tops_groups = 0;
	if (e->cuda) {
		CUDA_TRY(eval_cuda_sa_reset(e->cuda, from, WHY));
		return 0;
	}
	size_t n = e->p->n;
	for (size_t c = 0; c < e->pop; c++) {
		memcpy(e->perm[0] + c * n, e->best + from * n,
		       n * sizeof(uint32_t));
		memcpy(e->gene[0] + c * n, e->bgene + from * n, n);
		e->score[0][c] = e->bscore[from];
	}
	return 0;
}

int eval_pop_get(struct eval *e, size_t idx, bool best, uint32_t *perm,
		 uint8_t *genes, struct sim_error *err)
{
	if (idx >= e->pop)
		return err_set(err, "no candidate %zu of %zu", idx, e->pop);
	if (e->cuda) {
		CUDA_TRY(eval_cuda_pop_get(e->cuda, idx, best, perm, genes,
					   WHY));
		return 0;
	}
	size_t n = e->p->n;
	memcpy(perm, (best ? e->best : e->perm[0]) + idx * n,
	       n * sizeof(uint32_t));
	if (genes)
		memcpy(genes, (best ? e->bgene : e->gene[0]) + idx * n, n);
	return 0;
}

int eval_pop_scores(struct eval *e, int64_t *cur, int64_t *best,
		    struct sim_error *err)
{
	if (e->cuda) {
		CUDA_TRY(eval_cuda_pop_scores(e->cuda, cur, best, WHY));
		return 0;
	}
	if (cur)
		memcpy(cur, e->score[0], e->pop * sizeof(int64_t));
	if (best)
		memcpy(best, e->bscore, e->pop * sizeof(int64_t));
	return 0;
}
