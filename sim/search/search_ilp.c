/*
 * The time-indexed ILP of a pooled batch problem, solved with COIN-OR CBC
 * through its C interface.
 *
 * Time is cut into S slots of D ticks (D = 1 when the horizon fits in
 * max_slots, which makes the model exact).  x[j,t,s] = 1 when job j starts
 * on type t at slot s (s >= its release, rounded up; s + its run in slots
 * <= S).  Each job starts once; in every slot and type the demands of the
 * jobs running there stay within the capacity left by the running jobs.
 * The objective is the problem's, on slot completion times (makespan
 * through one continuous variable above every completion).  Run times are
 * rounded up to whole slots, so any solution is feasible in real time;
 * its jobs ordered by start (ties by index) are decoded exactly, which
 * never makes a job later.  The horizon bounds every list schedule
 * (latest release + latest running end + the sum of the runs), so with
 * D = 1 CBC's bound is a lower bound of the problem itself.
 *
 * Source: the time-indexed formulation of Dyer and Wolsey, "Formulating
 * the single machine sequencing problem with release dates as a mixed
 * integer program", Discrete Appl. Math. 1990.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <coin/Cbc_C_Interface.h>

#include "eval/eval_inst.h"
#include "search/search.h"

struct ilp_var {
	uint32_t job, type, slot; /* x[job, type, slot] */
};

struct start_ctx {
	const int64_t *start; /* start slot of each job */
};

static int by_start(const void *a, const void *b, void *ctx)
{
	const int64_t *st = ((const struct start_ctx *)ctx)->start;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (st[x] != st[y])
		return st[x] < st[y] ? -1 : 1;
	return (x > y) - (x < y);
}

static int64_t div_up(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/*
 * Gives CBC the start's schedule as a complete, feasible solution of the
 * model: its order decoded in slot time (runs, releases and running ends
 * rounded up to slots, as the model has them), so every slot's demand is
 * within capacity and every start has its variable (S bounds every such
 * list schedule).  Rounding the real schedule's starts instead can
 * overload a slot when D > 1, and CBC then spends most of a small
 * solve repairing the start (computeCompleteSolution).
 */
static void warm_start(Cbc_Model *m, const struct eval_problem *p,
		       const struct search_result *start,
		       const struct ilp_var *var, size_t nv, int64_t D,
		       bool mk, int *cols, double *coef)
{
	uint32_t n = p->n, T = p->ntypes;
	struct eval_inst sl;
	eval_inst_init(&sl, n, T, p->cap, (enum eval_objective)p->objective);
	for (uint32_t j = 0; j < n; j++) {
		sl.demand[j] = p->demand[j];
		for (uint32_t t = 0; t < T; t++) {
			int64_t d = p->dur[(size_t)j * T + t];
			sl.dur[(size_t)j * T + t] = d < 0 ? d : div_up(d, D);
		}
		sl.release[j] = div_up(p->release[j], D);
		sl.weight[j] = p->weight[j];
	}
	for (uint32_t k = 0; k < p->nrun; k++)
		eval_inst_add_running(&sl, p->run_type[k], p->run_units[k],
				      div_up(p->run_end[k], D), 0);
	if (eval_inst_finish(&sl, NULL) == 0) {
		int64_t *st = xmalloc((n + 1) * sizeof(*st));
		uint8_t *ty = xmalloc(n + 1);
		int64_t cmax = 0;
		eval_one(&sl.p, false, start->perm, start->genes, st, ty);
		for (size_t v = 0; v < nv; v++) {
			uint32_t j = var[v].job;
			bool on = var[v].type == ty[j] &&
				  (int64_t)var[v].slot == st[j];
			cols[v] = (int)v;
			coef[v] = on;
			if (on) {
				int64_t c = (st[j] + sl.dur[(size_t)j * T +
							    ty[j]]) * D;
				cmax = c > cmax ? c : cmax;
			}
		}
		size_t q = nv;
		if (mk) {
			cols[q] = (int)nv;
			coef[q++] = (double)cmax;
		}
		Cbc_setMIPStartI(m, (int)q, cols, coef);
		free(ty);
		free(st);
	}
	eval_inst_release(&sl);
}

/* The longest run of job j on any type (0 when it runs on none). */
static int64_t max_dur(const struct eval_problem *p, uint32_t j)
{
	uint32_t T = p->ntypes;
	int64_t dmax = 0;
	for (uint32_t t = 0; t < T; t++)
		if (p->dur[(size_t)j * T + t] > dmax)
			dmax = p->dur[(size_t)j * T + t];
	return dmax;
}

/* The model being built: the slots and the variables. */
struct ilp_model {
	const struct eval_problem *p; /* the problem */
	int64_t D;                    /* ticks per slot */
	int64_t S;                    /* slots */
	bool mk;                      /* a makespan variable after the x */
	struct ilp_var *var;          /* the x variables, by job, type, slot */
	size_t nv;                    /* their number */
	size_t cap;                   /* room in var */
};

/* Ticks of job j's run on type t, rounded up to slots. */
static int64_t run_slots(const struct ilp_model *md, uint32_t j, uint32_t t)
{
	return div_up(md->p->dur[(size_t)j * md->p->ntypes + t], md->D);
}

/*
 * D and S: slots for every list schedule with runs rounded up, doubling D
 * (or more) until they are at most maxs.  With D = 1 an optimal makespan
 * is no later than the start's.
 */
static void choose_slots(struct ilp_model *md, const struct search_result *start,
			 uint32_t maxs, int64_t maxrel, int64_t runmax)
{
	const struct eval_problem *p = md->p;
	int64_t D = 1, S;
	for (;;) {
		S = div_up(maxrel, D) + div_up(runmax, D);
		for (uint32_t j = 0; j < p->n; j++)
			S += div_up(max_dur(p, j), D);
		if (D == 1 && start && start->score < INT64_MAX &&
		    p->objective == EVAL_MAKESPAN && start->score < S)
			S = start->score;
		if (S <= maxs)
			break;
		D = D * 2 > div_up(S * D, maxs) ? D * 2 : div_up(S * D, maxs);
	}
	md->D = D;
	md->S = S;
}

/* Every x[j, t, s] that fits the horizon; false past max_vars. */
static bool make_vars(struct ilp_model *md, uint64_t max_vars)
{
	const struct eval_problem *p = md->p;
	for (uint32_t j = 0; j < p->n; j++)
		for (uint32_t t = 0; t < p->ntypes; t++) {
			if (p->dur[(size_t)j * p->ntypes + t] < 0)
				continue;
			int64_t ds = run_slots(md, j, t);
			int64_t s0 = div_up(p->release[j], md->D);
			for (int64_t s = s0; s + ds <= md->S; s++) {
				if (md->nv >= max_vars)
					return false;
				xgrow(&md->var, &md->cap, md->nv + 1,
				      sizeof(*md->var));
				md->var[md->nv].job = j;
				md->var[md->nv].type = t;
				md->var[md->nv].slot = (uint32_t)s;
				md->nv++;
			}
		}
	return true;
}

/* The columns: each x with its completion's share of the objective, then
 * the makespan when the objective has one. */
static void add_cols(Cbc_Model *m, const struct ilp_model *md)
{
	const struct eval_problem *p = md->p;
	int64_t wmk = p->objective == EVAL_MIX ? p->mix_makespan : 1;
	for (size_t v = 0; v < md->nv; v++) {
		uint32_t j = md->var[v].job, t = md->var[v].type;
		int64_t c = ((int64_t)md->var[v].slot + run_slots(md, j, t)) *
			    md->D;
		double obj = 0;
		if (p->objective == EVAL_TWCT)
			obj = (double)(p->weight[j] * c);
		else if (p->objective == EVAL_JCT)
			obj = (double)(c - p->release[j]);
		else if (p->objective == EVAL_MIX)
			obj = (double)(p->mix_twct * p->weight[j] * c);
		Cbc_addCol(m, "", 0, 1, obj, 1, 0, NULL, NULL);
	}
	if (md->mk)
		Cbc_addCol(m, "", 0, (double)(md->S * md->D) * 2, (double)wmk,
			   0, 0, NULL, NULL);
}

/* Each job starts once; the makespan is above each job's completion. */
static void add_job_rows(Cbc_Model *m, const struct ilp_model *md, int *cols,
			 double *coef)
{
	size_t v0 = 0, nv = md->nv;
	for (uint32_t j = 0; j < md->p->n; j++) {
		size_t k = 0, v = v0;
		for (; v < nv && md->var[v].job == j; v++) {
			cols[k] = (int)v;
			coef[k++] = 1;
		}
		Cbc_addRow(m, "", (int)k, cols, coef, 'E', 1);
		if (md->mk) {
			/* Cmax >= sum c x over j's variables */
			size_t q = 0;
			for (size_t u = v0; u < v; u++) {
				cols[q] = (int)u;
				coef[q++] = -(double)(((int64_t)md->var[u].slot +
					run_slots(md, j, md->var[u].type)) *
					md->D);
			}
			cols[q] = (int)nv;
			coef[q++] = 1;
			Cbc_addRow(m, "", (int)q, cols, coef, 'G', 0);
		}
		v0 = v;
	}
}

/* In every slot and type, the demands running there stay within the
 * capacity that the running jobs leave. */
static void add_cap_rows(Cbc_Model *m, const struct ilp_model *md, int *cols,
			 double *coef)
{
	const struct eval_problem *p = md->p;
	for (uint32_t t = 0; t < p->ntypes; t++)
		for (int64_t u = 0; u < md->S; u++) {
			int64_t left = p->cap[t];
			for (uint32_t k = 0; k < p->nrun; k++)
				if (p->run_type[k] == t &&
				    div_up(p->run_end[k], md->D) > u)
					left -= p->run_units[k];
			size_t q = 0;
			for (size_t v = 0; v < md->nv; v++) {
				uint32_t j = md->var[v].job;
				if (md->var[v].type != t || !p->demand[j])
					continue;
				int64_t ds = run_slots(md, j, t);
				if (md->var[v].slot <= u &&
				    u < md->var[v].slot + ds) {
					cols[q] = (int)v;
					coef[q++] = p->demand[j];
				}
			}
			if (q)
				Cbc_addRow(m, "", (int)q, cols, coef, 'L',
					   (double)left);
		}
}

/* CBC's solution, when it has one for every job: its jobs by start slot
 * (ties by index), decoded exactly, offered to r. */
static void offer_solution(Cbc_Model *m, const struct ilp_model *md,
			   struct search_result *r)
{
	const struct eval_problem *p = md->p;
	uint32_t n = p->n;
	const double *x = Cbc_getColSolution(m);
	bool have = x && Cbc_numberSavedSolutions(m) >= 0 &&
		    (Cbc_isProvenOptimal(m) || Cbc_getObjValue(m) < 1e300);
	int64_t *st = xcalloc((size_t)n + 1, sizeof(*st));
	uint32_t *perm = xcalloc((size_t)n + 1, sizeof(*perm));
	uint8_t *genes = xcalloc((size_t)n + 1, 1);
	bool all = have;
	for (uint32_t j = 0; j < n; j++)
		st[j] = -1;
	for (size_t v = 0; have && v < md->nv; v++)
		if (x[v] > 0.5) {
			st[md->var[v].job] = md->var[v].slot;
			genes[md->var[v].job] = (uint8_t)md->var[v].type;
		}
	for (uint32_t j = 0; j < n; j++) {
		perm[j] = j;
		all = all && st[j] >= 0;
	}
	if (all) {
		struct start_ctx sc = { st };
		qsort_r(perm, n, sizeof(*perm), by_start, &sc);
		search_result_offer(r, n, perm, genes,
				    eval_one(p, false, perm, genes, NULL, NULL));
	}
	free(genes);
	free(perm);
	free(st);
}

/* The bound (exact slots only), the gap and the note of a solve. */
static void report_solve(Cbc_Model *m, const struct ilp_model *md,
			 struct search_result *r)
{
	double bound = Cbc_getBestPossibleObjValue(m);
	if (md->D == 1 && isfinite(bound)) {
		r->bound = (int64_t)ceil(bound - 1e-6);
		if (r->bound > r->score)
			r->bound = r->score;
		r->gap = r->score > 0 ? (double)(r->score - r->bound) /
					(double)r->score : 0;
	}
	if (Cbc_isSecondsLimitReached(m))
		r->reproducible = false;
	snprintf(r->note, sizeof(r->note), "ilp: %zu variables, %lld slots "
		 "of %lld ticks%s%s", md->nv, (long long)md->S,
		 (long long)md->D,
		 Cbc_isProvenOptimal(m) ? ", proven optimal" : "",
		 Cbc_isSecondsLimitReached(m) ? ", stopped at the time limit" :
		 Cbc_isNodeLimitReached(m) ? ", stopped at the node limit" :
						"");
}

/* Builds the model of md and solves it, warm-started from start. */
static void solve(const struct ilp_model *md, const struct search_opts *o,
		  const struct search_result *start, struct search_result *r)
{
	Cbc_Model *m = Cbc_newModel();
	Cbc_setLogLevel(m, 0);
	Cbc_setParameter(m, "threads", "1");
	Cbc_setMaximumSeconds(m, o->time_limit_s > 0 ? o->time_limit_s : 10);
	if (o->max_nodes)
		Cbc_setMaximumNodes(m, o->max_nodes < INT32_MAX ?
				       (int)o->max_nodes : INT32_MAX);
	add_cols(m, md);
	int *cols = xmalloc((md->nv + 2) * sizeof(*cols));
	double *coef = xmalloc((md->nv + 2) * sizeof(*coef));
	add_job_rows(m, md, cols, coef);
	add_cap_rows(m, md, cols, coef);
	if (start && start->score < INT64_MAX)
		warm_start(m, md->p, start, md->var, md->nv, md->D, md->mk,
			   cols, coef);
	Cbc_solve(m);
	offer_solution(m, md, r);
	if (start)
		search_result_offer(r, md->p->n, start->perm, start->genes,
				    start->score);
	r->evals = 1;
	report_solve(m, md, r);
	free(cols);
	free(coef);
	Cbc_deleteModel(m);
}

int search_ilp(const struct eval_problem *p, const struct search_opts *o,
	       const struct search_result *start, struct search_result *r,
	       struct sim_error *err)
{
	double t0 = mono_seconds();
	uint32_t n = p->n;
	int64_t maxrel = 0, runmax = 0;
	for (uint32_t j = 0; j < n; j++)
		maxrel = p->release[j] > maxrel ? p->release[j] : maxrel;
	for (uint32_t k = 0; k < p->nrun; k++)
		runmax = p->run_end[k] > runmax ? p->run_end[k] : runmax;
	uint32_t maxs = o->max_slots ? o->max_slots : 64;
	/* Each term of the horizon takes a slot however long the slots are:
	 * with more terms than max_slots no D fits (and D would grow until
	 * it overflowed). */
	int64_t smin = (maxrel > 0) + (runmax > 0);
	for (uint32_t j = 0; j < n; j++)
		smin += max_dur(p, j) > 0;
	struct ilp_model md = {
		.p = p,
		.mk = p->objective == EVAL_MAKESPAN ||
		      p->objective == EVAL_MIX,
	};
	snprintf(r->backend, sizeof(r->backend), "cbc");
	if (smin > maxs) {
		snprintf(r->note, sizeof(r->note), "ilp: model too large: "
			 "needs at least %lld time slots, ilp_slots is %u; "
			 "kept the start", (long long)smin, maxs);
		goto keep_start;
	}
	choose_slots(&md, start, maxs, maxrel, runmax);
	if (!make_vars(&md, o->max_vars)) {
		snprintf(r->note, sizeof(r->note), "ilp: model over %llu "
			 "variables; kept the start",
			 (unsigned long long)o->max_vars);
		goto keep_start;
	}
	solve(&md, o, start, r);
	r->wall_s = mono_seconds() - t0;
	search_trace(r, r->evals, r->wall_s);
	goto out;
keep_start:
	if (start)
		search_result_offer(r, n, start->perm, start->genes,
				    start->score);
	r->wall_s = mono_seconds() - t0;
out:
	free(md.var);
	(void)err;
	return 0;
}
