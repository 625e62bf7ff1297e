/*
 * Gavel's max-min fairness program (policies/gavel.c states it) as a CLP
 * model.
 *
 * Rows of equal GPUs and rates are merged first into groups of k jobs
 * (a row's count, or 1 each): the program is symmetric in such jobs, so
 * averaging an optimum over their permutations gives an optimum where
 * they are equal, and one variable per group and type finds it.  The
 * program's size is then bounded by the job classes, not the job count
 * (thousands of active jobs of Gavel's 26 classes solve in milliseconds;
 * docs/gavel.md).
 *
 * Columns: z, then one Y[g][t] for each group g and type t it can run on
 * (a positive, finite rate and gpus <= cap[t]); the other pairs are fixed
 * at 0 by leaving them out.  Rows that can run nowhere are left out
 * altogether (they would pin z at 0).  Rows, for the G groups kept and
 * the T types:
 *   fair[g]:  sum_t a[g][t] Y[g][t] - z >= 0
 *   time[g]:  sum_t Y[g][t] <= 1
 *   cap[t]:   sum_g k[g] gpus[g] Y[g][t] <= cap[t]
 * with a[g][t] = rate[g][t] / eq[g], eq[g] the throughput under an
 * equal share (below).  Stage one maximises z (dual simplex).  Stage
 * two, when asked, keeps z >= z* (1 - 1e-7) and maximises
 * sum k[g] gpus[g] rate[g][t] Y[g][t], the cluster's throughput in
 * reference GPU-seconds of work per second, warm-started from stage
 * one's basis (primal simplex: the basis stays feasible when only the
 * objective and z's lower bound change).
 *
 * Equal share: each of the N jobs (all groups' k together) gets 1/N of
 * every type's GPUs, as time fractions cap[t] / (N gpus) over the types
 * it can use, scaled down together when they add up to more than 1 (a
 * job cannot run more than all the time): eq = sum_t cap[t] rate[t] /
 * max(N gpus, sum_t cap[t]).  With one GPU of each type and single-GPU
 * jobs this is the 1/N time share of every type.
 *
 * The other objectives (gavel_lp.h) keep these rows with other weights
 * in place of 1 / eq[g], one row per job (their weights differ job by
 * job, so merging would rarely find two alike):
 *   min_total_duration (Gavel's scheduler/policies/min_total_duration.py):
 *     every job's throughput >= remaining / T, T smallest.  With
 *     a[m][t] = rate[m][t] r0 / remaining[m] (r0 the largest remaining,
 *     a scale that keeps z near 1 for CLP's tolerances), z = r0 / T and
 *     maximising z is that program exactly, in one solve.  Gavel bisects
 *     on T instead (from [100, 1e6] s, stopping within 5%) and takes any
 *     allocation feasible at that T: its T is up to 5% above this one.
 *   finish_time_fairness (policies/finish_time_fairness.py, Gavel's and
 *     Shockwave's copy): rho[m] = (c[m] + d[m] / y[m]) / e[m], with
 *     y[m] = sum_t rate[m][t] X[m][t], c = elapsed, d = remaining,
 *     e = iso_done + d / eq, the largest rho smallest.  rho[m] <= R iff
 *     y[m] (R e[m] - c[m]) / d[m] >= 1, so R is feasible iff the
 *     program with a[m][t] = rate[m][t] (R e[m] - c[m]) / d[m] reaches
 *     z >= 1; the smallest such R is where z(R) = 1, found by regula
 *     falsi (ftf_search) to z <= 1 + 1e-6 (Gavel hands the convex
 *     program to a conic solver through cvxpy; the optimum is the
 *     same).  The allocation is the one at the last feasible R.
 * The second stage (most throughput) then works as for max-min fairness.
 *
 * The model is rebuilt for each solve (Clp_loadProblem into the same
 * ClpSimplex, arrays reused): the groups change between solves, and with
 * merged rows a cold solve is already cheap.  CLP's log is off: library
 * code never prints.
 */
#include "clustersim/gavel_lp.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <coin/Clp_C_Interface.h>
#pragma GCC diagnostic pop

#include "base/util.h"

struct lp_key;

struct gavel_lp {
	Clp_Simplex *clp;       /* the model, reloaded for each problem */
	uint64_t solves;        /* CLP solves so far */
	/* Scratch, grown as needed. */
	CoinBigIndex *start;    /* column starts, ncols + 1 */
	int *index;             /* row of each element */
	double *value;          /* each element */
	double *collb, *colub, *obj; /* column bounds and objective */
	double *rowlb, *rowub;  /* row bounds */
	int *col_of;            /* [g * T + t]: its column, or -1 */
	struct lp_key *keys;    /* the jobs kept, sorted into groups */
	int *group;             /* [m]: its group, or -1 (left out) */
	size_t *gfirst;         /* [g]: a job of the group */
	size_t *gsize;          /* [g]: jobs in it */
	double *eq;             /* [g]: its equal-share throughput */
	double *w;              /* [g]: its fairness row's weight */
	size_t ngroups;         /* groups of the last solve */
	size_t cap_pairs, cap_cols, cap_elems, cap_rows, cap_jobs;
};

struct gavel_lp *gavel_lp_new(void)
{
	struct gavel_lp *lp = xcalloc(1, sizeof(*lp));
	lp->clp = Clp_newModel();
	Clp_setLogLevel(lp->clp, 0);
	return lp;
}

void gavel_lp_free(struct gavel_lp *lp)
{
	if (!lp)
		return;
	Clp_deleteModel(lp->clp);
	free(lp->start);
	free(lp->index);
	free(lp->value);
	free(lp->collb);
	free(lp->colub);
	free(lp->obj);
	free(lp->rowlb);
	free(lp->rowub);
	free(lp->col_of);
	free(lp->keys);
	free(lp->group);
	free(lp->gfirst);
	free(lp->gsize);
	free(lp->eq);
	free(lp->w);
	free(lp);
}

uint64_t gavel_lp_solves(const struct gavel_lp *lp)
{
	return lp->solves;
}

static bool can_run(const struct gavel_problem *p, size_t m, size_t t)
{
	double r = p->rate[m * p->types + t];
	return r > 0 && isfinite(r) && p->gpus[m] <= p->cap[t] && p->cap[t];
}

/* A job's sort key for grouping. */
struct lp_key {
	const double *rate; /* its row of rates (T of them) */
	uint32_t gpus;      /* its GPUs */
	uint32_t m;         /* the job */
	uint32_t types;     /* T */
};

static int key_cmp(const void *pa, const void *pb)
{
	const struct lp_key *a = pa, *b = pb;
	if (a->gpus != b->gpus)
		return a->gpus < b->gpus ? -1 : 1;
	for (uint32_t t = 0; t < a->types; t++)
		if (a->rate[t] != b->rate[t])
			return a->rate[t] < b->rate[t] ? -1 : 1;
	return a->m < b->m ? -1 : a->m > b->m;
}

static bool same_group(const struct lp_key *a, const struct lp_key *b)
{
	if (a->gpus != b->gpus)
		return false;
	for (uint32_t t = 0; t < a->types; t++)
		if (a->rate[t] != b->rate[t])
			return false;
	return true;
}

/* Makes room for ncols columns, nelems elements, nrows rows. */
static void reserve(struct gavel_lp *lp, size_t ncols, size_t nelems,
		    size_t nrows)
{
	size_t c = lp->cap_cols;
	xgrow(&lp->start, &c, ncols + 1, sizeof(*lp->start));
	c = lp->cap_cols;
	xgrow(&lp->collb, &c, ncols + 1, sizeof(*lp->collb));
	c = lp->cap_cols;
	xgrow(&lp->colub, &c, ncols + 1, sizeof(*lp->colub));
	c = lp->cap_cols;
	xgrow(&lp->obj, &c, ncols + 1, sizeof(*lp->obj));
	lp->cap_cols = c;
	c = lp->cap_elems;
	xgrow(&lp->index, &c, nelems, sizeof(*lp->index));
	c = lp->cap_elems;
	xgrow(&lp->value, &c, nelems, sizeof(*lp->value));
	lp->cap_elems = c;
	c = lp->cap_rows;
	xgrow(&lp->rowlb, &c, nrows, sizeof(*lp->rowlb));
	c = lp->cap_rows;
	xgrow(&lp->rowub, &c, nrows, sizeof(*lp->rowub));
	lp->cap_rows = c;
}

/* Did CLP stop at an optimum? */
static int solved(struct gavel_lp *lp, const char *stage,
		  struct sim_error *err)
{
	lp->solves++;
	if (Clp_status(lp->clp) == 0)
		return 0;
	return err_setc(err, -SIM_ESTATE,
			"gavel: clp %s stopped with status %d (secondary %d)",
			stage, Clp_status(lp->clp),
			Clp_secondaryStatus(lp->clp));
}

/*
 * Groups the rows that can run somewhere by (gpus, rates): fills
 * lp->group[m] (-1: left out), the groups' first row and their jobs.
 * Returns the jobs kept (N, counting each row's count).
 */
static size_t group_jobs(struct gavel_lp *lp, const struct gavel_problem *p)
{
	size_t M = p->jobs, T = p->types, n = 0, jobs = 0, c;
	c = lp->cap_jobs;
	xgrow(&lp->keys, &c, M ? M : 1, sizeof(*lp->keys));
	c = lp->cap_jobs;
	xgrow(&lp->group, &c, M ? M : 1, sizeof(*lp->group));
	c = lp->cap_jobs;
	xgrow(&lp->gfirst, &c, M ? M : 1, sizeof(*lp->gfirst));
	c = lp->cap_jobs;
	xgrow(&lp->gsize, &c, M ? M : 1, sizeof(*lp->gsize));
	c = lp->cap_jobs;
	xgrow(&lp->eq, &c, M ? M : 1, sizeof(*lp->eq));
	c = lp->cap_jobs;
	xgrow(&lp->w, &c, M ? M : 1, sizeof(*lp->w));
	lp->cap_jobs = c;
	bool merge = p->objective == GAVEL_MAX_MIN_FAIRNESS;
	for (size_t m = 0; m < M; m++) {
		bool any = false;
		for (size_t t = 0; t < T; t++)
			any |= can_run(p, m, t);
		lp->group[m] = -1;
		if (p->count && !p->count[m])
			continue;
		if (any)
			lp->keys[n++] = (struct lp_key){ p->rate + m * T,
				p->gpus[m], (uint32_t)m, (uint32_t)T };
	}
	if (merge)
		qsort(lp->keys, n, sizeof(*lp->keys), key_cmp);
	lp->ngroups = 0;
	for (size_t i = 0; i < n; i++) {
		if (!i || !merge ||
		    !same_group(&lp->keys[i - 1], &lp->keys[i])) {
			lp->gfirst[lp->ngroups] = lp->keys[i].m;
			lp->gsize[lp->ngroups++] = 0;
		}
		uint32_t k = p->count ? p->count[lp->keys[i].m] : 1;
		lp->gsize[lp->ngroups - 1] += k;
		lp->group[lp->keys[i].m] = (int)lp->ngroups - 1;
		jobs += k;
	}
	return jobs;
}

/*
 * The max-min stage's matrix, by columns: z (in every fairness row with
 * -1), then each group's Y on each type it can run on (its normalised
 * rate in its fairness row, 1 in its time row, its GPUs in the type's
 * capacity row), and the rows' bounds.
 */
static void fill_matrix(struct gavel_lp *lp, const struct gavel_problem *p,
			size_t ncols)
{
	size_t T = p->types, G = lp->ngroups;
	size_t e = 0;
	lp->start[0] = 0;
	for (size_t g = 0; g < G; g++) {
		lp->index[e] = (int)g;
		lp->value[e++] = -1;
	}
	lp->collb[0] = 0;
	lp->colub[0] = DBL_MAX;
	lp->obj[0] = 1;
	for (size_t g = 0; g < G; g++) {
		const double *rate = p->rate + lp->gfirst[g] * T;
		double gpus = p->gpus[lp->gfirst[g]];
		for (size_t t = 0; t < T; t++) {
			int col = lp->col_of[g * T + t];
			if (col < 0)
				continue;
			lp->start[col] = (CoinBigIndex)e;
			lp->index[e] = (int)g;
			/* (max-min: divided, as it always was, to the bit) */
			lp->value[e++] = p->objective == GAVEL_MAX_MIN_FAIRNESS
					 ? rate[t] / lp->eq[g]
					 : rate[t] * lp->w[g];
			lp->index[e] = (int)(G + g);
			lp->value[e++] = 1;
			if (gpus > 0) {
				lp->index[e] = (int)(2 * G + t);
				lp->value[e++] = gpus * (double)lp->gsize[g];
			}
			lp->collb[col] = 0;
			lp->colub[col] = 1;
			lp->obj[col] = 0;
		}
	}
	lp->start[ncols] = (CoinBigIndex)e;
	for (size_t g = 0; g < G; g++) {
		lp->rowlb[g] = 0;
		lp->rowub[g] = DBL_MAX;
		lp->rowlb[G + g] = -DBL_MAX;
		lp->rowub[G + g] = 1;
	}
	for (size_t t = 0; t < T; t++) {
		lp->rowlb[2 * G + t] = -DBL_MAX;
		lp->rowub[2 * G + t] = (double)p->cap[t];
	}
}

/* Each group's equal-share throughput (above): into lp->eq. */
static void equal_shares(struct gavel_lp *lp, const struct gavel_problem *p,
			 size_t N)
{
	size_t T = p->types;
	for (size_t g = 0; g < lp->ngroups; g++) {
		const double *rate = p->rate + lp->gfirst[g] * T;
		double gpus = p->gpus[lp->gfirst[g]], capsum = 0, eq = 0;
		for (size_t t = 0; t < T; t++)
			if (lp->col_of[g * T + t] >= 0) {
				capsum += (double)p->cap[t];
				eq += (double)p->cap[t] * rate[t];
			}
		lp->eq[g] = eq / fmax((double)N * gpus, capsum);
	}
}

/* Work left of group g's job, at least a microsecond. */
static double left(const struct gavel_lp *lp, const struct gavel_problem *p,
		   size_t g)
{
	return fmax(p->remaining[lp->gfirst[g]], 1e-6);
}

/* Expected isolated time e of group g's job (finish_time_fairness). */
static double iso_time(const struct gavel_lp *lp,
		       const struct gavel_problem *p, size_t g)
{
	return p->iso_done[lp->gfirst[g]] + left(lp, p, g) / lp->eq[g];
}

/* The fairness rows' weights: 1 / eq, r0 / remaining, or (finish-time
 * fairness at bound R) (R e - c) / d, none below 0. */
static void set_weights(struct gavel_lp *lp, const struct gavel_problem *p,
			double R)
{
	double r0 = 0;
	for (size_t g = 0; g < lp->ngroups; g++)
		if (p->objective == GAVEL_MIN_TOTAL_DURATION)
			r0 = fmax(r0, left(lp, p, g));
	for (size_t g = 0; g < lp->ngroups; g++) {
		size_t m = lp->gfirst[g];
		switch (p->objective) {
		case GAVEL_MIN_TOTAL_DURATION:
			lp->w[g] = r0 / left(lp, p, g);
			break;
		case GAVEL_FINISH_TIME_FAIRNESS:
			lp->w[g] = fmax(0, (R * iso_time(lp, p, g) -
					    p->elapsed[m]) / left(lp, p, g));
			break;
		case GAVEL_MAX_MIN_FAIRNESS:
		case GAVEL_NOBJECTIVES:
			lp->w[g] = 1 / lp->eq[g];
			break;
		}
	}
}

/* Stage one with the current weights: loads the model, maximises z. */
static int stage_one(struct gavel_lp *lp, const struct gavel_problem *p,
		     size_t ncols, size_t nrows, double *z,
		     struct sim_error *err)
{
	fill_matrix(lp, p, ncols);
	Clp_loadProblem(lp->clp, (int)ncols, (int)nrows, lp->start, lp->index,
			lp->value, lp->collb, lp->colub, lp->obj, lp->rowlb,
			lp->rowub);
	Clp_setOptimizationDirection(lp->clp, -1); /* maximise */
	Clp_dual(lp->clp, 0);
	int rc = solved(lp, "max-min stage", err);
	if (rc == 0)
		*z = Clp_getColSolution(lp->clp)[0];
	return rc;
}

/*
 * Finish-time fairness: the smallest feasible bound R (above), the model
 * left loaded and solved at it; *R out.  z(R), the max-min value at R,
 * rises with R, is 0 at lo = max c / e (that job's weight is 0) and 1 at
 * the optimum.  A feasible R (z >= 1) is found by doubling from
 * max(1, 2 lo); then the root of z(R) = 1 is bracketed and found by
 * regula falsi with the Illinois rule (an end kept twice has its offset
 * from 1 halved), to z(R) <= 1 + 1e-6 at the feasible end: z is near
 * linear in R, so a few solves do.
 */
static int ftf_search(struct gavel_lp *lp, const struct gavel_problem *p,
		      size_t ncols, size_t nrows, double *R,
		      struct sim_error *err)
{
	double lo = 0, zlo = 0, hi, zhi = 0, z = 0;
	int rc, side = 0;
	for (size_t g = 0; g < lp->ngroups; g++)
		lo = fmax(lo, p->elapsed[lp->gfirst[g]] / iso_time(lp, p, g));
	hi = fmax(1, 2 * lo);
	for (int k = 0; k < 64; k++) {
		set_weights(lp, p, hi);
		rc = stage_one(lp, p, ncols, nrows, &zhi, err);
		if (rc)
			return rc;
		if (zhi >= 1)
			break;
		lo = hi;
		zlo = zhi;
		hi *= 2;
	}
	bool at_hi = true;
	for (int k = 0; k < 100 && zhi > 1 + 1e-6 && hi - lo > 1e-9 * hi;
	     k++) {
		double span = hi - lo;
		double mid = lo + (1 - zlo) * span / (zhi - zlo);
		mid = fmin(fmax(mid, lo + 1e-3 * span), hi - 1e-3 * span);
		set_weights(lp, p, mid);
		rc = stage_one(lp, p, ncols, nrows, &z, err);
		if (rc)
			return rc;
		at_hi = z >= 1;
		if (at_hi) {
			hi = mid;
			zhi = z;
			if (side > 0)
				zlo = 1 - (1 - zlo) / 2;
			side = 1;
		} else {
			lo = mid;
			zlo = z;
			if (side < 0)
				zhi = 1 + (zhi - 1) / 2;
			side = -1;
		}
	}
	*R = hi;
	if (at_hi)
		return 0;
	set_weights(lp, p, hi);
	return stage_one(lp, p, ncols, nrows, &z, err);
}

/* Stage two: keeps z at its optimum, maximises the throughput. */
static int stage_two(struct gavel_lp *lp, const struct gavel_problem *p)
{
	size_t T = p->types;
	lp->collb[0] = Clp_getColSolution(lp->clp)[0] * (1 - 1e-7);
	lp->obj[0] = 0;
	for (size_t g = 0; g < lp->ngroups; g++)
		for (size_t t = 0; t < T; t++) {
			int col = lp->col_of[g * T + t];
			size_t m = lp->gfirst[g];
			if (col >= 0)
				lp->obj[col] = (double)lp->gsize[g] * p->gpus[m] *
					       p->rate[m * T + t];
		}
	/* Through the change calls, which tell CLP what changed. */
	Clp_chgColumnLower(lp->clp, lp->collb);
	Clp_chgObjCoefficients(lp->clp, lp->obj);
	Clp_primal(lp->clp, 0);
	return 0;
}

int gavel_lp_solve(struct gavel_lp *lp, const struct gavel_problem *p,
		   double *x, double *z, struct sim_error *err)
{
	size_t M = p->jobs, T = p->types;
	int rc = 0;

	*z = 0;
	for (size_t i = 0; i < M * T; i++)
		x[i] = 0;
	for (size_t m = 0; p->share && m < M; m++)
		p->share[m] = 0;
	size_t N = group_jobs(lp, p), G = lp->ngroups;
	if (!N)
		return 0;
	size_t c = lp->cap_pairs;
	xgrow(&lp->col_of, &c, G * T, sizeof(*lp->col_of));
	lp->cap_pairs = c;
	size_t ncols = 1;
	for (size_t g = 0; g < G; g++)
		for (size_t t = 0; t < T; t++)
			lp->col_of[g * T + t] = can_run(p, lp->gfirst[g], t)
						? (int)ncols++ : -1;
	size_t nrows = 2 * G + T;
	/* z: G elements; each Y: fair, time and (gpus > 0) cap rows. */
	reserve(lp, ncols, G + 3 * (ncols - 1), nrows);
	equal_shares(lp, p, N);

	if (p->objective == GAVEL_FINISH_TIME_FAIRNESS) {
		rc = ftf_search(lp, p, ncols, nrows, z, err);
	} else {
		set_weights(lp, p, 0);
		rc = stage_one(lp, p, ncols, nrows, z, err);
		if (!rc && p->objective == GAVEL_MIN_TOTAL_DURATION)
			*z = lp->w[0] * left(lp, p, 0) / *z; /* r0 / z = T */
	}
	if (rc)
		return rc;
	if (p->throughput) {
		stage_two(lp, p);
		rc = solved(lp, "throughput stage", err);
		if (rc)
			return rc;
	}
	const double *sol = Clp_getColSolution(lp->clp);
	for (size_t m = 0; m < M; m++) {
		int g = lp->group[m];
		if (g >= 0 && p->share)
			p->share[m] = lp->eq[g];
		for (size_t t = 0; g >= 0 && t < T; t++) {
			int col = lp->col_of[(size_t)g * T + t];
			if (col < 0)
				continue;
			double v = round(sol[col] / GAVEL_LP_QUANTUM) *
				   GAVEL_LP_QUANTUM;
			x[m * T + t] = v < 0 ? 0 : v > 1 ? 1 : v;
		}
	}
	return 0;
}
