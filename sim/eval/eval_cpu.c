/*
 * The evaluator's CPU backend (eval_backend.h): a pool of POSIX threads
 * that each take chunks of candidate indexes, with the population in host
 * memory; and the host's decoders, one per instruction set of their event
 * queue (eval_decode.h), of which the best the CPU runs is used (they
 * give the same scores), for the pool and for eval_one.  A pooled batch
 * is scored two candidates to a loop (eval_pooled.h), whose chains of
 * dependent steps the core then overlaps; with AVX-512 and a problem of
 * one type whose ends fit in 32 bits, with narrow events (avx512-32,
 * chosen once a problem by eval_isa_for).
 *
 * Determinism: a task's result for candidate i depends only on i (its
 * Philox counter) and on read-only inputs, so which thread takes which
 * chunk changes nothing.
 */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval/eval.h"
#include "eval/eval_backend.h"

struct eval_cpu;

/* Work given to the pool: fn(c, i, tid) for i in [0, count). */
typedef void (*eval_task_fn)(struct eval_cpu *c, size_t i, unsigned tid);

/* A decoder call, pooled or node level (type: pooled only). */
typedef int64_t (*eval_decode_fn)(const struct eval_problem *p, bool nodes,
				  const uint32_t *perm, const uint8_t *genes,
				  struct eval_scratch *s, int64_t *start,
				  uint8_t *type);

/* Two pooled decoder calls in one loop (eval_decode2_isa). */
typedef void (*eval_decode2_fn)(const struct eval_problem *p,
				const uint32_t *pa, const uint8_t *ga,
				struct eval_scratch *sa, const uint32_t *pb,
				const uint8_t *gb, struct eval_scratch *sb,
				int64_t *sc);

/* One worker's decoder scratch. */
struct eval_worker {
	struct eval_scratch s; /* decoder scratch */
	struct eval_scratch s2; /* the second candidate's, when paired */
	uint8_t *mark;         /* crossover marks, n bytes */
};

struct eval_cpu {
	const struct eval_problem *p; /* the problem (not owned) */
	bool nodes;                   /* node-level decoding */
	eval_decode_fn decode;        /* the decoder (eval_isa_best) */
	eval_decode2_fn decode2;      /* its paired form (pooled only) */
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
	/* Population. */
	size_t pop;                   /* candidates */
	uint32_t *perm[2];            /* [pop * n]: current and next */
	uint8_t *gene[2];             /* [pop * n] */
	int64_t *score[2];            /* [pop] */
	uint32_t *best;               /* annealing: each chain's best */
	uint8_t *bgene;
	int64_t *bscore;
	struct eval_top *tops;        /* [pop] each group's bests, in order */
	uint32_t tops_groups;         /* groups and length of each list in */
	uint32_t tops_keep;           /* tops, of the current scores (0: none) */
	/* Arguments of the task running. */
	const uint32_t *in_perm;
	const uint8_t *in_gene;
	int64_t *out;
	size_t score_n;               /* candidates of a paired score task */
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
__attribute__((target("avx2"), flatten))
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

__attribute__((target("avx512f"), flatten))
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

/* Narrow events: only for problems that eval_narrow_fits (eval_isa_for
 * picks avx512 for the others and for node level, which it never gets). */
__attribute__((target("avx512f"), flatten))
static int64_t decode_avx512_32(const struct eval_problem *p, bool nodes,
				const uint32_t *perm, const uint8_t *genes,
				struct eval_scratch *s, int64_t *start,
				uint8_t *type)
{
	(void)nodes;
	(void)genes;
	return eval_decode_narrow(p, perm, s, start, type);
}
#endif

static void decode2_plain(const struct eval_problem *p, const uint32_t *pa,
			  const uint8_t *ga, struct eval_scratch *sa,
			  const uint32_t *pb, const uint8_t *gb,
			  struct eval_scratch *sb, int64_t *sc)
{
	eval_decode2_isa(p, pa, ga, sa, pb, gb, sb, sc, EVAL_ISA_PLAIN);
}

#ifdef EVAL_X86
__attribute__((target("avx2"), flatten))
static void decode2_avx2(const struct eval_problem *p, const uint32_t *pa,
			 const uint8_t *ga, struct eval_scratch *sa,
			 const uint32_t *pb, const uint8_t *gb,
			 struct eval_scratch *sb, int64_t *sc)
{
	eval_decode2_isa(p, pa, ga, sa, pb, gb, sb, sc, EVAL_ISA_AVX2);
}

__attribute__((target("avx512f"), flatten))
static void decode2_avx512(const struct eval_problem *p, const uint32_t *pa,
			   const uint8_t *ga, struct eval_scratch *sa,
			   const uint32_t *pb, const uint8_t *gb,
			   struct eval_scratch *sb, int64_t *sc)
{
	eval_decode2_isa(p, pa, ga, sa, pb, gb, sb, sc, EVAL_ISA_AVX512);
}

__attribute__((target("avx512f"), flatten))
static void decode2_avx512_32(const struct eval_problem *p,
			      const uint32_t *pa, const uint8_t *ga,
			      struct eval_scratch *sa, const uint32_t *pb,
			      const uint8_t *gb, struct eval_scratch *sb,
			      int64_t *sc)
{
	(void)ga;
	(void)gb;
	eval_decode2_narrow(p, pa, sa, pb, sb, sc);
}
#endif

static const struct {
	const char *name;    /* for eval_isa_name */
	eval_decode_fn fn;   /* NULL: not built for this host */
	eval_decode2_fn fn2; /* two pooled candidates in one loop */
} isa_table[] = {
	[EVAL_ISA_PLAIN] = { "plain", decode_plain, decode2_plain },
#ifdef EVAL_X86
	[EVAL_ISA_AVX2] = { "avx2", decode_avx2, decode2_avx2 },
	[EVAL_ISA_AVX512] = { "avx512", decode_avx512, decode2_avx512 },
	[EVAL_ISA_AVX512_32] = { "avx512-32", decode_avx512_32,
				 decode2_avx512_32 },
#else
	[EVAL_ISA_AVX2] = { "avx2", NULL, NULL },
	[EVAL_ISA_AVX512] = { "avx512", NULL, NULL },
	[EVAL_ISA_AVX512_32] = { "avx512-32", NULL, NULL },
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
	if (isa == EVAL_ISA_AVX512 || isa == EVAL_ISA_AVX512_32)
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

enum eval_isa eval_isa_for(const struct eval_problem *p, bool nodes,
			   enum eval_isa isa)
{
	if (isa == EVAL_ISA_AVX512_32 && (nodes || !eval_narrow_fits(p)))
		return EVAL_ISA_AVX512;
	return isa;
}

int64_t eval_one_isa(const struct eval_problem *p, bool nodes,
		     enum eval_isa isa, const uint32_t *perm,
		     const uint8_t *genes, int64_t *start, uint8_t *type)
{
	if (!eval_isa_usable(isa))
		SIM_BUG("decoder '%s' cannot run here", eval_isa_name(isa));
	struct eval_scratch s = eval_scratch_new(p);
	isa = eval_isa_for(p, nodes, isa);
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

static int64_t decode(struct eval_cpu *c, const uint32_t *perm,
		      const uint8_t *genes, struct eval_scratch *s)
{
	return c->decode(c->p, c->nodes, perm, genes, s, NULL, NULL);
}

/* ---- the pool ------------------------------------------------------- */

static void run_chunks(struct eval_cpu *c, unsigned tid)
{
	const size_t chunk = 16;
	for (;;) {
		size_t lo = __atomic_fetch_add(&c->next, chunk,
					       __ATOMIC_RELAXED);
		if (lo >= c->count)
			break;
		size_t hi = lo + chunk < c->count ? lo + chunk : c->count;
		for (size_t i = lo; i < hi; i++)
			c->fn(c, i, tid);
	}
}

struct eval_thread_arg {
	struct eval_cpu *c;
	unsigned tid;
};

static void *worker_main(void *arg)
{
	struct eval_thread_arg *a = arg;
	struct eval_cpu *c = a->c;
	unsigned tid = a->tid;
	uint64_t seen = 0;
	free(a);
	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->quit && c->epoch == seen)
			pthread_cond_wait(&c->go, &c->mu);
		if (c->quit)
			break;
		seen = c->epoch;
		pthread_mutex_unlock(&c->mu);
		run_chunks(c, tid);
		pthread_mutex_lock(&c->mu);
		if (--c->busy == 0)
			pthread_cond_signal(&c->done);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

static void pool_run(struct eval_cpu *c, eval_task_fn fn, size_t count)
{
	c->fn = fn;
	c->count = count;
	c->next = 0;
	if (c->nthreads > 1) {
		pthread_mutex_lock(&c->mu);
		c->busy = c->nthreads - 1;
		c->epoch++;
		pthread_cond_broadcast(&c->go);
		pthread_mutex_unlock(&c->mu);
	}
	run_chunks(c, 0);
	if (c->nthreads > 1) {
		pthread_mutex_lock(&c->mu);
		while (c->busy > 0)
			pthread_cond_wait(&c->done, &c->mu);
		pthread_mutex_unlock(&c->mu);
	}
}

/* ---- tasks ------------------------------------------------------------ */

static void task_score(struct eval_cpu *c, size_t i, unsigned tid)
{
	size_t n = c->p->n;
	c->out[i] = decode(c, c->in_perm + i * n,
			   c->in_gene ? c->in_gene + i * n : NULL, &c->w[tid].s);
}

/* Candidates 2i and 2i + 1 (when there is one) of a pooled batch of
 * c->score_n, decoded together (eval_pooled.h). */
static void task_score2(struct eval_cpu *c, size_t i, unsigned tid)
{
	size_t n = c->p->n, a = 2 * i;
	const uint8_t *g = c->in_gene;
	if (a + 1 >= c->score_n) {
		task_score(c, a, tid);
		return;
	}
	c->decode2(c->p, c->in_perm + a * n, g ? g + a * n : NULL,
		   &c->w[tid].s, c->in_perm + (a + 1) * n,
		   g ? g + (a + 1) * n : NULL, &c->w[tid].s2, c->out + a);
}

static void task_ga(struct eval_cpu *c, size_t i, unsigned tid)
{
	size_t n = c->p->n;
	uint32_t *child = c->perm[1] + i * n;
	uint8_t *cgen = c->gene[1] + i * n;
	eval_ga_child(c->p, &c->ga, c->perm[0], c->gene[0], c->score[0],
		      eval_ga_source(&c->ga, c->tops, (uint32_t)i),
		      (uint32_t)i, child, cgen, c->w[tid].mark);
	c->score[1][i] = decode(c, child, cgen, &c->w[tid].s);
}

static void task_sa(struct eval_cpu *c, size_t i, unsigned tid)
{
	size_t n = c->p->n;
	uint32_t *cur = c->perm[0] + i * n;
	uint8_t *cgen = c->gene[0] + i * n;
	struct eval_sa_move m;
	if (!eval_sa_propose(c->p, &c->sa, (uint32_t)i, cur, cgen, &m))
		return;
	int64_t sc = decode(c, cur, cgen, &c->w[tid].s);
	eval_sa_settle(&m, &c->sa, n, sc, cur, cgen, &c->score[0][i],
		       c->best + i * n, c->bgene + i * n, &c->bscore[i]);
}

/* Scores count candidates from in_perm/in_gene into out: pooled ones in
 * pairs, node-level ones one by one. */
static void score_all(struct eval_cpu *c, size_t count)
{
	if (c->nodes) {
		pool_run(c, task_score, count);
		return;
	}
	c->score_n = count;
	pool_run(c, task_score2, (count + 1) / 2);
}

/* ---- the backend's calls ---------------------------------------------- */

static int cpu_probe(char *why, size_t why_n)
{
	(void)why;
	(void)why_n;
	return 1;
}

static void *cpu_open(const struct eval_problem *p, int nodes,
		      unsigned threads, char *why, size_t why_n)
{
	(void)why;
	(void)why_n;
	struct eval_cpu *c = xcalloc(1, sizeof(*c));
	c->p = p;
	c->nodes = nodes;
	enum eval_isa isa = eval_isa_for(p, nodes, eval_isa_best());
	c->decode = isa_table[isa].fn;
	c->decode2 = isa_table[isa].fn2;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	c->nthreads = threads ? threads : (cores > 0 ? (unsigned)cores : 1);
	c->w = xcalloc(c->nthreads, sizeof(*c->w));
	for (unsigned t = 0; t < c->nthreads; t++) {
		c->w[t].s = eval_scratch_new(p);
		c->w[t].s2 = eval_scratch_new(p);
		c->w[t].mark = xcalloc((size_t)p->n + 1, 1);
	}
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->go, NULL);
	pthread_cond_init(&c->done, NULL);
	c->threads = xcalloc(c->nthreads, sizeof(*c->threads));
	for (unsigned t = 1; t < c->nthreads; t++) {
		struct eval_thread_arg *a = xmalloc(sizeof(*a));
		a->c = c;
		a->tid = t;
		if (pthread_create(&c->threads[t], NULL, worker_main, a) != 0)
			SIM_BUG("cannot start an evaluator thread");
	}
	return c;
}

static void free_pop(struct eval_cpu *c)
{
	for (int k = 0; k < 2; k++) {
		free(c->perm[k]);
		free(c->gene[k]);
		free(c->score[k]);
	}
	free(c->best);
	free(c->bgene);
	free(c->bscore);
	free(c->tops);
}

static void cpu_close(void *b)
{
	struct eval_cpu *c = b;
	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->quit = true;
	pthread_cond_broadcast(&c->go);
	pthread_mutex_unlock(&c->mu);
	for (unsigned t = 1; t < c->nthreads; t++)
		pthread_join(c->threads[t], NULL);
	for (unsigned t = 0; t < c->nthreads; t++) {
		eval_scratch_free(&c->w[t].s);
		eval_scratch_free(&c->w[t].s2);
		free(c->w[t].mark);
	}
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->go);
	pthread_cond_destroy(&c->done);
	free(c->threads);
	free(c->w);
	free_pop(c);
	free(c);
}

static unsigned cpu_threads(const void *b)
{
	const struct eval_cpu *c = b;
	return c->nthreads;
}

static int cpu_score(void *b, const uint32_t *perms, const uint8_t *genes,
		     size_t count, int64_t *scores, char *why, size_t why_n)
{
	struct eval_cpu *c = b;
	(void)why;
	(void)why_n;
	c->in_perm = perms;
	c->in_gene = genes;
	c->out = scores;
	score_all(c, count);
	return 0;
}

static int cpu_pop_set(void *b, const uint32_t *perms, const uint8_t *genes,
		       size_t count, char *why, size_t why_n)
{
	struct eval_cpu *c = b;
	size_t n = c->p->n, cells = count * n;
	(void)why;
	(void)why_n;
	if (count != c->pop) {
		free_pop(c);
		for (int k = 0; k < 2; k++) {
			c->perm[k] = xmalloc(cells * sizeof(uint32_t) + 1);
			c->gene[k] = xmalloc(cells + 1);
			c->score[k] = xmalloc(count * sizeof(int64_t) + 1);
		}
		c->best = xmalloc(cells * sizeof(uint32_t) + 1);
		c->bgene = xmalloc(cells + 1);
		c->bscore = xmalloc(count * sizeof(int64_t) + 1);
		c->tops = xmalloc(count * sizeof(*c->tops));
		c->pop = count;
	}
	c->tops_groups = 0;
	memcpy(c->perm[0], perms, cells * sizeof(uint32_t));
	if (genes)
		memcpy(c->gene[0], genes, cells);
	else
		for (size_t k = 0; k < count; k++)
			memcpy(c->gene[0] + k * n, c->p->home, n);
	c->in_perm = c->perm[0];
	c->in_gene = c->gene[0];
	c->out = c->score[0];
	score_all(c, count);
	memcpy(c->best, c->perm[0], cells * sizeof(uint32_t));
	memcpy(c->bgene, c->gene[0], cells);
	memcpy(c->bscore, c->score[0], count * sizeof(int64_t));
	return 0;
}

static int cpu_tops(void *b, int of_best, uint32_t groups, uint32_t keep,
		    struct eval_top *tops, char *why, size_t why_n)
{
	struct eval_cpu *c = b;
	if (groups == 0 || c->pop % groups || keep == 0 ||
	    (size_t)groups * keep > c->pop) {
		snprintf(why, why_n, "tops: %u groups of %u in %zu", groups,
			 keep, c->pop);
		return -1;
	}
	uint32_t per = (uint32_t)(c->pop / groups);
	const int64_t *sc = of_best ? c->bscore : c->score[0];
	for (uint32_t k = 0; k < groups; k++)
		eval_top_scan(sc, k * per, (k + 1) * per, 1,
			      c->tops + (size_t)k * keep, keep);
	c->tops_groups = of_best ? 0 : groups;
	c->tops_keep = keep;
	memcpy(tops, c->tops, (size_t)groups * keep * sizeof(*tops));
	return 0;
}

static int cpu_ga_step(void *b, const struct eval_ga_params *g, char *why,
		       size_t why_n)
{
	struct eval_cpu *c = b;
	if (g->pop != c->pop || g->island == 0 || g->pop % g->island ||
	    c->tops_groups != g->pop / g->island ||
	    c->tops_keep != eval_ga_keep(g)) {
		snprintf(why, why_n, "ga step: population %u (%zu loaded) in "
			 "islands of %u, without their bests", g->pop, c->pop,
			 g->island);
		return -1;
	}
	c->tops_groups = 0;
	c->ga = *g;
	pool_run(c, task_ga, c->pop);
	uint32_t *tp = c->perm[0];
	uint8_t *tg = c->gene[0];
	int64_t *ts = c->score[0];
	c->perm[0] = c->perm[1];
	c->gene[0] = c->gene[1];
	c->score[0] = c->score[1];
	c->perm[1] = tp;
	c->gene[1] = tg;
	c->score[1] = ts;
	return 0;
}

static int cpu_sa_step(void *b, const struct eval_sa_params *sp, char *why,
		       size_t why_n)
{
	struct eval_cpu *c = b;
	if (sp->chains != c->pop) {
		snprintf(why, why_n, "sa step: %u chains, %zu loaded",
			 sp->chains, c->pop);
		return -1;
	}
	c->tops_groups = 0;
	c->sa = *sp;
	pool_run(c, task_sa, c->pop);
	return 0;
}

static int cpu_sa_reset(void *b, uint32_t from, char *why, size_t why_n)
{
	struct eval_cpu *c = b;
	size_t n = c->p->n;
	if (from >= c->pop) {
		snprintf(why, why_n, "sa reset: no chain %u", from);
		return -1;
	}
	c->tops_groups = 0;
	for (size_t k = 0; k < c->pop; k++) {
		memcpy(c->perm[0] + k * n, c->best + from * n,
		       n * sizeof(uint32_t));
		memcpy(c->gene[0] + k * n, c->bgene + from * n, n);
		c->score[0][k] = c->bscore[from];
	}
	return 0;
}

static int cpu_pop_get(void *b, size_t idx, int best, uint32_t *perm,
		       uint8_t *genes, char *why, size_t why_n)
{
	struct eval_cpu *c = b;
	size_t n = c->p->n;
	if (idx >= c->pop) {
		snprintf(why, why_n, "no candidate %zu of %zu", idx, c->pop);
		return -1;
	}
	memcpy(perm, (best ? c->best : c->perm[0]) + idx * n,
	       n * sizeof(uint32_t));
	if (genes)
		memcpy(genes, (best ? c->bgene : c->gene[0]) + idx * n, n);
	return 0;
}

static int cpu_pop_scores(void *b, int64_t *cur, int64_t *best, char *why,
			  size_t why_n)
{
	struct eval_cpu *c = b;
	(void)why;
	(void)why_n;
	if (cur)
		memcpy(cur, c->score[0], c->pop * sizeof(int64_t));
	if (best)
		memcpy(best, c->bscore, c->pop * sizeof(int64_t));
	return 0;
}

const struct eval_backend_ops eval_cpu_ops = {
	.name = "cpu",
	.probe = cpu_probe,
	.open = cpu_open,
	.close = cpu_close,
	.threads = cpu_threads,
	.score = cpu_score,
	.pop_set = cpu_pop_set,
	.tops = cpu_tops,
	.ga_step = cpu_ga_step,
	.sa_step = cpu_sa_step,
	.sa_reset = cpu_sa_reset,
	.pop_get = cpu_pop_get,
	.pop_scores = cpu_pop_scores,
};
