/*
 * Online re-planning for the search policies ga, sa and ilp
 * (search_online.h; the policy files say what each search is).
 *
 * At a scheduling point where a job ended, or one was submitted into the
 * window, since the last plan, the first `window` pending jobs become a
 * batch problem
 * (online_build): time 0 is now, run times are the jobs' remaining
 * estimates in whole seconds rounded up, scaled on each GPU type by the
 * job's speed there, and the running jobs hold their units until their
 * expected ends.  Greedy list scheduling (search_greedy) solves it first
 * and the policy's search improves on that within its budget,
 * warm-started from it.  The best plan is decoded (serial list scheduling,
 * eval_decode.h): the jobs it starts at time 0 start now, on the plan's
 * GPU type when the cluster has several; the others wait.  Until the next
 * end, or a submit into the window, nothing can change what may start
 * now (no units come back, the window is the same), so scheduling points
 * with neither are skipped.
 * When starts moved the window on to jobs the plan did not see, the
 * policy plans again at once.
 *
 * The problem pools each type's units, so a job it starts now may not fit
 * the nodes (CPUs per node, node counts, virtual clusters, which it does
 * not model): a planned start is made only when sim_job_fits(_on) agrees,
 * else the job waits for the next plan.  Jobs too large for any single
 * GPU type start in queue order when they fit, and should the cluster be
 * left idle with jobs waiting, the head of the queue starts as FCFS
 * would, so a run always ends.
 *
 * Reproducibility: budgets count evaluations, and each plan's seed is the
 * run's seed mixed with the number of plans so far, so a run depends on
 * neither the thread count nor the clock - except the ILP's when CBC stops
 * at its time limit (a small model normally proves optimality first).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/splitmix.h"
#include "search/search.h"
#include "search/search_online.h"

int64_t online_run_secs(sim_time_t work, double rate)
{
	if (!(rate > 0) || !isfinite(rate))
		rate = 1;
	if (work < 1)
		work = 1;
	if (rate == 1.0)
		return (work + SIM_SEC - 1) / SIM_SEC; /* exact */
	double x = (double)work / ((double)SIM_SEC * rate);
	if (x > 1e15)
		return (int64_t)1e15;
	/* a ratio of throughputs is inexact: 400.0000000001 s is 400 s */
	int64_t s = (int64_t)ceil(x - 1e-9 * x);
	return s < 1 ? 1 : s;
}

/* ---- the batch ---------------------------------------------------------- */

static int64_t secs_up(sim_time_t t)
{
	return t <= 0 ? 0 : (t + SIM_SEC - 1) / SIM_SEC;
}

/* A job's units in the problem: GPUs per type, else the allocation unit. */
static uint64_t job_units(struct sim *sim, bool typed, const struct job *j)
{
	if (!typed)
		return sim_demand(sim, j);
	return j->gpus ? j->gpus : (j->gpu_milli ? 1 : 0);
}

/* May j run on type t (its constraint, and its size against cap)? */
static bool job_allowed(bool typed, const struct job *j, uint64_t units,
			uint32_t t, const int64_t *cap)
{
	if (typed && j->gpu_type && j->gpu_type != t + 1)
		return false;
	return units <= (uint64_t)cap[t];
}

/* Its speed on type t relative to the reference (1 for CPU jobs). */
static double job_rate(struct sim *sim, bool typed, const struct job *j,
		       uint32_t t)
{
	if (!j->gpus)
		return 1.0;
	if (typed)
		return sim_job_type_rate(sim, j, t);
	return sim_gpu_types(sim) == 1 ? sim_job_type_rate(sim, j, 0) : 1.0;
}

int online_build(struct sim *sim, uint32_t window, enum eval_objective obj,
		 struct online_batch *b, struct sim_error *err)
{
	sim_time_t now = sim_now(sim);
	unsigned ng = sim_gpu_types(sim);
	bool typed = ng >= 2 && ng <= EVAL_MAX_TYPES;
	uint32_t T = typed ? ng : 1, n = 0;
	int64_t cap[EVAL_MAX_TYPES] = { 0 }, held[EVAL_MAX_TYPES] = { 0 };
	size_t nrun = sim_running_len(sim);

	eval_inst_release(&b->in);
	b->typed = typed;
	b->nout = 0;
	b->can_start = false;
	if (typed) {
		for (uint32_t t = 0; t < T; t++) {
			cap[t] = (int64_t)sim_gpu_type_capacity(sim, t);
			held[t] = cap[t] - (int64_t)sim_gpu_type_free(sim, t);
		}
	} else {
		uint64_t used = 0;
		for (size_t i = 0; i < nrun; i++)
			used += sim_demand(sim, sim_running_at(sim, i));
		cap[0] = (int64_t)(sim_free_units(sim) + used);
		held[0] = (int64_t)used;
	}

	/* The window: jobs that fit some type, the others aside. */
	for (size_t i = 0; i < sim_queue_len(sim) && n < window; i++) {
		const struct job *j = sim_queue_at(sim, i);
		uint64_t u = job_units(sim, typed, j);
		bool fits = false;
		for (uint32_t t = 0; t < T && !fits; t++)
			fits = job_allowed(typed, j, u, t, cap);
		if (fits) {
			xgrow(&b->job, &b->job_cap, n + 1, sizeof(*b->job));
			b->job[n++] = j;
		} else {
			xgrow(&b->out, &b->out_cap, b->nout + 1,
			      sizeof(*b->out));
			b->out[b->nout++] = j;
		}
	}

	eval_inst_init(&b->in, n, T, cap, obj);
	for (uint32_t k = 0; k < n; k++) {
		const struct job *j = b->job[k];
		uint64_t u = job_units(sim, typed, j);
		sim_time_t rem = j->estimate -
				 (sim_time_t)sim_job_work_done(sim, j);
		b->in.demand[k] = (uint32_t)u;
		for (uint32_t t = 0; t < T; t++) {
			if (!job_allowed(typed, j, u, t, cap))
				continue;
			b->in.dur[(size_t)k * T + t] =
				online_run_secs(rem, job_rate(sim, typed, j, t));
			if ((int64_t)u <= cap[t] - held[t])
				b->can_start = true;
		}
	}

	/* Running jobs hold their units until their expected ends; units
	 * held that no job accounts for (a job over several types, a GPU
	 * share) until the last of them. */
	int64_t last = 1;
	for (size_t i = 0; i < nrun; i++) {
		const struct job *j = sim_running_at(sim, i);
		int64_t end = secs_up(sim_expected_end(sim, j) - now);
		uint32_t t = 0;
		uint64_t u;
		end = end < 1 ? 1 : end;
		last = end > last ? end : last;
		if (typed) {
			if (!j->gpus || !j->gpu_type_used ||
			    j->gpu_type_used > T)
				continue;
			t = j->gpu_type_used - 1u;
			u = j->gpus;
		} else {
			u = sim_demand(sim, j);
		}
		if (u > (uint64_t)held[t])
			u = (uint64_t)held[t];
		if (u) {
			eval_inst_add_running(&b->in, t, (uint32_t)u, end, 0);
			held[t] -= (int64_t)u;
		}
	}
	for (uint32_t t = 0; t < T; t++)
		if (held[t] > 0)
			eval_inst_add_running(&b->in, t, (uint32_t)held[t],
					      last, 0);
	return eval_inst_finish(&b->in, err);
}

void online_batch_release(struct online_batch *b)
{
	if (!b)
		return;
	eval_inst_release(&b->in);
	free(b->job);
	free(b->out);
	memset(b, 0, sizeof(*b));
}

/* ---- the policies ------------------------------------------------------- */

struct online {
	enum online_method m;   /* the search */
	uint32_t window;        /* pending jobs planned */
	uint64_t exact_max;     /* batches of at most this many candidates
	                           are enumerated instead of searched */
	struct search_opts so;  /* its budget and settings */
	enum eval_objective obj;/* what the plan minimises */
	bool dirty;             /* a submit or end since the last plan */
	uint64_t plans;         /* plans so far: mixed into each seed */
	struct online_batch b;  /* the problem, buffers kept */
	int64_t *start;         /* [n] the plan's start of each job */
	uint8_t *type;          /* [n] and its type */
	size_t cap;             /* room in each of start and type */
};

static const char *const objective_names[] = { "makespan", "twct", "jct" };

int online_init(struct sim *sim, enum online_method m, void **state,
		struct sim_error *err)
{
	struct online *o = calloc(1, sizeof(*o));
	const char *obj = sim_param_str(sim, "objective");
	int64_t window = sim_param_int(sim, "window");
	size_t k;
	if (!o)
		return -1;
	*state = o;
	o->m = m;
	o->dirty = true;
	search_opts_default(&o->so);
	o->so.eval.want = EVAL_WANT_CPU; /* batches are small */
	for (k = 0; k < ARRAY_SIZE(objective_names); k++)
		if (!strcmp(obj, objective_names[k]))
			break;
	if (k == ARRAY_SIZE(objective_names))
		return err_set(err, "objective must be 'twct', 'jct' or "
			       "'makespan', got '%s'", obj);
	o->obj = (enum eval_objective)k;
	if (window < 1 || window > 100000)
		return err_set(err, "window must be in 1 .. 100000, got "
			       "'%lld'", (long long)window);
	o->window = (uint32_t)window;
	int64_t exact = sim_param_int(sim, "exact_max");
	if (exact < 0)
		return err_set(err, "exact_max must be >= 0, got '%lld'",
			       (long long)exact);
	o->exact_max = (uint64_t)exact;
	if (m == ONLINE_ILP) {
		double tl = sim_param_double(sim, "time_limit_s");
		int64_t slots = sim_param_int(sim, "slots");
		int64_t vars = sim_param_int(sim, "max_vars");
		int64_t nodes = sim_param_int(sim, "max_nodes");
		if (!(tl > 0) || !isfinite(tl))
			return err_set(err, "time_limit_s must be > 0, got "
				       "'%g'", tl);
		if (slots < 2 || slots > 100000)
			return err_set(err, "slots must be in 2 .. 100000, "
				       "got '%lld'", (long long)slots);
		if (vars < 1)
			return err_set(err, "max_vars must be >= 1, got "
				       "'%lld'", (long long)vars);
		if (nodes < 0)
			return err_set(err, "max_nodes must be >= 0, got "
				       "'%lld'", (long long)nodes);
		o->so.time_limit_s = tl;
		o->so.max_slots = (uint32_t)slots;
		o->so.max_vars = (uint64_t)vars;
		o->so.max_nodes = (uint64_t)nodes;
		return 0;
	}
	int64_t evals = sim_param_int(sim, "evals");
	int64_t threads = sim_param_int(sim, "threads");
	if (evals < 1)
		return err_set(err, "evals must be >= 1, got '%lld'",
			       (long long)evals);
	if (threads < 0 || threads > 4096)
		return err_set(err, "threads must be in 0 .. 4096, got "
			       "'%lld'", (long long)threads);
	o->so.evals = (uint64_t)evals;
	o->so.eval.threads = (unsigned)threads;
	if (m == ONLINE_GA) {
		int64_t pop = sim_param_int(sim, "population");
		if (pop < 4 || pop > (1 << 20))
			return err_set(err, "population must be in 4 .. "
				       "1048576, got '%lld'", (long long)pop);
		o->so.pop = (uint32_t)pop;
		o->so.islands = 1;
	} else {
		int64_t ch = sim_param_int(sim, "chains");
		if (ch < 1 || ch > (1 << 20))
			return err_set(err, "chains must be in 1 .. 1048576, "
				       "got '%lld'", (long long)ch);
		o->so.chains = (uint32_t)ch;
	}
	return 0;
}

void online_fini(struct sim *sim, void *state)
{
	struct online *o = state;
	if (!o)
		return;
	online_batch_release(&o->b);
	free(o->start);
	free(o->type);
	free(o);
}

void online_submitted(struct sim *sim, void *state, const struct job *job)
{
	struct online *o = state;
	/* a job behind a full window changes no plan: the queue is in
	 * submit order, so it joins at the end */
	if (sim_queue_len(sim) <= o->window)
		o->dirty = true;
}

void online_finished(struct sim *sim, void *state, const struct job *job)
{
	((struct online *)state)->dirty = true;
}

/* The number of candidates of p (n! x ntypes^n), capped above max.
 * Batches of at most the policy's exact_max are enumerated: exact, and
 * cheaper than the search (a CBC solve of even a 7-job model costs more
 * than decoding its 5,040 orders). */
static uint64_t enum_count(const struct eval_problem *p, uint64_t max)
{
	uint64_t c = 1;
	for (uint32_t k = 1; k <= p->n && c <= max; k++)
		c *= (uint64_t)k * p->ntypes;
	return c;
}

/* Next permutation in lexicographic order; false after the last. */
static bool next_perm(uint32_t *a, uint32_t n)
{
	uint32_t i = n - 1, j = n - 1, t;
	while (i > 0 && a[i - 1] >= a[i])
		i--;
	if (i == 0)
		return false;
	while (a[j] <= a[i - 1])
		j--;
	t = a[i - 1];
	a[i - 1] = a[j];
	a[j] = t;
	for (uint32_t l = i, h = n - 1; l < h; l++, h--) {
		t = a[l];
		a[l] = a[h];
		a[h] = t;
	}
	return true;
}

/* Next gene vector (an odometer over the types); false after the last. */
static bool next_genes(uint8_t *g, uint32_t n, uint32_t ntypes)
{
	for (uint32_t j = 0; j < n; j++) {
		if (++g[j] < ntypes)
			return true;
		g[j] = 0;
	}
	return false;
}

/* The best of every candidate, first found on ties (queue order first). */
static void enumerate(const struct eval_problem *p, struct search_result *r)
{
	uint32_t perm[8];
	uint8_t genes[8] = { 0 };
	struct eval_scratch s = eval_scratch_new(p);
	for (uint32_t k = 0; k < p->n; k++)
		perm[k] = k;
	do {
		do {
			int64_t sc = eval_decode(p, perm, genes, &s, NULL,
						 NULL);
			r->evals++;
			if (sc < r->score) {
				/* its real types: a type not allowed is home */
				uint8_t real[8];
				for (uint32_t j = 0; j < p->n; j++)
					real[j] = (uint8_t)eval_job_type(p,
								genes, j);
				search_result_offer(r, p->n, perm, real, sc);
			}
		} while (next_genes(genes, p->n, p->ntypes));
	} while (next_perm(perm, p->n));
	eval_scratch_free(&s);
}

/* Starts what plan r starts at time 0; returns how many started. */
static size_t start_planned(struct sim *sim, struct online *o,
			    const struct search_result *r)
{
	const struct eval_problem *p = &o->b.in.p;
	size_t started = 0;
	size_t cap = o->cap;
	xgrow(&o->start, &cap, p->n, sizeof(*o->start));
	cap = o->cap;
	xgrow(&o->type, &cap, p->n, sizeof(*o->type));
	o->cap = cap;
	eval_one(p, false, r->perm, r->genes, o->start, o->type);
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = r->perm[k];
		const struct job *job = o->b.job[j];
		if (o->start[j] > 0)
			break; /* starts never decrease along the order */
		if (o->b.typed && job->gpus) {
			if (sim_job_fits_on(sim, job, o->type[j]) &&
			    sim_job_start_on(sim, job, o->type[j]) == 0)
				started++;
		} else if (sim_job_fits(sim, job) &&
			   sim_job_start(sim, job) == 0) {
			started++;
		}
	}
	return started;
}

/* Plans once and starts what starts now; returns how many started. */
static size_t plan_and_start(struct sim *sim, struct online *o)
{
	struct sim_error err;
	struct online_batch *b = &o->b;
	struct search_result g, r;
	size_t started = 0;
	if (online_build(sim, o->window, o->obj, b, &err))
		return sim_start_head(sim); /* cannot happen: queue order */
	uint32_t n = b->in.p.n;
	search_result_init(&g, n);
	search_result_init(&r, n);
	if (n > 0 && b->can_start) {
		const struct search_result *best = &g;
		int rc = search_greedy(&b->in.p, false, &g, &err);
		/* A seed per plan from the run's. */
		o->so.seed = splitmix64_hash(sim_seed(sim) ^
					     splitmix64_hash(o->plans++));
		if (rc) {
			best = NULL;
		} else if (g.score <= eval_lower_bound(&b->in.p)) {
			; /* greedy's plan is optimal */
		} else if (enum_count(&b->in.p, o->exact_max) <=
			   o->exact_max) {
			enumerate(&b->in.p, &r);
		} else if (o->m == ONLINE_GA) {
			rc = search_ga(&b->in.p, &o->so, &g, &r, &err);
		} else if (o->m == ONLINE_SA) {
			rc = search_sa(&b->in.p, &o->so, &g, &r, &err);
		} else {
			rc = search_ilp(&b->in.p, &o->so, &g, &r, &err);
		}
		/* a search that failed leaves greedy's plan */
		if (best && !rc && r.score <= g.score)
			best = &r;
		if (best)
			started = start_planned(sim, o, best);
	}
	/* jobs no single type holds: in queue order when they fit */
	for (size_t i = 0; i < b->nout; i++)
		if (sim_job_fits(sim, b->out[i]) &&
		    sim_job_start(sim, b->out[i]) == 0)
			started++;
	search_result_release(&g);
	search_result_release(&r);
	return started;
}

void online_schedule(struct sim *sim, void *state)
{
	struct online *o = state;
	while (o->dirty) {
		size_t before = sim_queue_len(sim);
		o->dirty = false;
		/* starts moved the window on: plan the jobs it reached */
		if (plan_and_start(sim, o) > 0 && before > o->window)
			o->dirty = true;
	}
	/* never idle with jobs waiting */
	if (sim_running_len(sim) == 0 && sim_queue_len(sim) > 0)
		sim_start_head(sim);
}
