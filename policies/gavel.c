/*
 * gavel: heterogeneity-aware max-min fairness, round-based (Gavel).
 *
 * What it does: decides what fraction of time each job should spend on
 * each GPU type, from a linear program that knows each job's speed on
 * each type, then realises those fractions in rounds: at each round
 * boundary the jobs furthest behind their fractions get GPUs, and jobs
 * that lost theirs are preempted.  A job that gains much from a V100
 * (ResNet) gets the V100s; one that runs as fast or faster on a K80
 * (the recommendation models) gets K80s - a heterogeneity-agnostic
 * scheduler would hand out GPUs regardless.
 *
 * Source: Narayanan, Santhanam, Kazhamiaka, Phanishayee, Zaharia,
 * "Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning
 * Workloads", OSDI 2020: section 3.1 (allocations X as time fractions,
 * effective throughput), section 4.1 (max-min fairness normalised by an
 * equal share), section 5 (round-based mechanism, priorities X / rounds
 * received).  Space sharing and placement-sensitivity of the paper are
 * not modelled.
 *
 * The program, for the M active GPU jobs and T GPU types (solved with
 * COIN-OR CLP by sim/search/gavel_lp.c):
 *
 *   maximise z  subject to, for every job m and type t,
 *     sum_t X[m][t] rate[m][t] / eq[m]  >=  z           (max-min fairness)
 *     sum_t X[m][t]                     <=  1           (one place at a time)
 *     sum_m X[m][t] gpus[m]             <=  cap[t]      (capacity)
 *     X[m][t] >= 0,  X[m][t] = 0 where m cannot run on t
 *
 * rate[m][t]: the job's speed on t relative to the reference type
 * (sim_job_type_rate: the throughput table's one-GPU ratio, no
 * communication); "cannot run": its own GPU-type constraint names another
 * type, or it needs more GPUs than t has.  eq[m]: the throughput the job
 * would get from an equal 1/N share of every type's GPUs, as time
 * fractions cap[t] / (N gpus[m]), scaled down together when they add up
 * to more than 1: eq[m] = sum_t cap[t] rate[m][t] / max(N gpus[m],
 * sum_t cap[t]) over the types it can use (with one GPU per type and
 * single-GPU jobs: a 1/N time share of each type).  Dividing by eq[m]
 * makes jobs of different speeds comparable; weights are equal.  Second
 * stage (parameter "throughput", on by default): keeping z at its
 * optimum (to 1e-7), maximise sum X[m][t] gpus[m] rate[m][t], the
 * cluster's throughput, so that capacity the bottleneck job cannot use
 * is not left idle.  Jobs of equal GPUs and rates are one variable row
 * in the solve (sim/search/gavel_lp.c): the program is symmetric in them, so
 * the optimum given is fair among them and its size is bounded by the
 * job classes, not the job count.
 *
 * The program is solved again when the set of active jobs changes (a
 * submit or an end), not every round.  Rounds: round_s long, on a grid
 * from the first time a job was active.  At each boundary, for every
 * pair (job m, type t) where it can run,
 *     priority = X[m][t] / (time m has run on t / time since its submit)
 * (X / 1e-9 where it has not run on t yet, so jobs not yet served go
 * first; 0 where X is 0).  Pairs are taken by decreasing priority (ties:
 * submit, job id, type), each job once, while its GPUs fit on that type
 * (counting every GPU of the type as free).  Running jobs not chosen, or
 * chosen for another type, are preempted; chosen jobs already running on
 * their type keep running; the others start with sim_job_start_on().
 * Between boundaries (a job ended or arrived) free GPUs are filled with
 * waiting jobs in the same order, preempting nobody.  Pairs with X = 0
 * come last but are taken, so no GPU idles while a job could use it.
 *
 * Jobs outside the program: on a cluster with GPU types, jobs without
 * GPUs and GPU jobs that fit no single type start in submit order when
 * they fit, and keep what they hold.  GPUs of a group with no type are
 * not used by the program.  With no GPU types (a CPU cluster, or GPUs
 * with no type) the cluster's allocation unit (CPUs, nodes when
 * exclusive, untyped GPUs) is one pool - one "type" at speed 1 for every
 * job - and the same rounds time-share it max-min fairly.  Should the
 * cluster be idle with jobs waiting (a job whose CPUs fit no type's
 * nodes), the head of the queue starts with the cluster's own placement.
 *
 * Objectives (parameter "objective", Gavel's policy names; the program's
 * forms are in sim/search/gavel_lp.c):
 *   max_min_fairness      the program above (the default)
 *   finish_time_fairness  Themis' finish-time fairness as Gavel writes it
 *                         as a program (its policies/finish_time_fairness.py,
 *                         FinishTimeFairnessPolicyWithPerf): the largest
 *                         expected rho made smallest, rho = (time since
 *                         submit + remaining / throughput) / (isolated
 *                         time so far + remaining / equal share)
 *   min_total_duration    the time by which every active job can finish
 *                         made smallest (policies/min_total_duration.py,
 *                         MinTotalDurationPolicyWithPerf)
 * Both read each job's remaining work, as Gavel's simulator hands its
 * policies the remaining steps (sim_job_work_done: the engine's figure),
 * and are solved with one row per job, not per class.  "Isolated time so
 * far" is Gavel's cumulative isolated time: at each solve, the work a job
 * did since the last one divided by the equal-share throughput that solve
 * gave it, summed.  Gavel's wrappers of the two (FinishTimeFairnessPolicy,
 * MinTotalDurationPolicy) copy every type's throughput from the V100's;
 * this is the heterogeneity-aware form, the same on a V100-only cluster.
 *
 * Parameters:
 *   objective    above (default max_min_fairness)
 *   round_s      round length, seconds (default 360, the paper's 6 min)
 *   throughput   second stage: most throughput at the max-min value
 *                (default true)
 *   min_run_s    a job that (re)starts is not preempted again before it
 *                has run this long: a round keeps it on its type
 *                (sim_job_preemptible); the cure for the livelock of
 *                rounds shorter than the checkpoint interval (default 0)
 *   (and "placement", as every policy: within the chosen type)
 *
 * Example (one V100 and one K80, both jobs single-GPU, rates relative to
 * the V100): A runs at 0.14 on the K80 (ResNet-50), B at 0.49
 * (Transformer).  Both prefer the V100, and the program gives each half
 * of each type (z = 1: neither can gain without the other losing below
 * an equal share).  Rounds alternate them: A on the V100 in rounds 0, 2,
 * 4, ..., B in 1, 3, ....  Were B a recommendation model (1.41 on the
 * K80), the optimum is A on the V100 and B on the K80 all the time, both
 * better than an equal share (tests/test_gavel.c works both out).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/gavel_lp.h"
#include "clustersim/policy.h"

/*
 * Memory for the policy's tables.  The policy keeps a row per job and per
 * class and cannot plan without them, so running out of memory stops the
 * run, as it does in the engine's own tables.
 */
static void *gv_realloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		abort();
	return q;
}

static void *gv_calloc(size_t n, size_t size)
{
	void *q = calloc(n ? n : 1, size);
	if (!q)
		abort();
	return q;
}

/* Room for want items of size sz in *pp (capacity *cap), doubling. */
static void gv_grow(void *pp, size_t *cap, size_t want, size_t sz)
{
	if (!clustersim_grow(pp, cap, want, sz))
		abort();
}

/* Priority of a pair whose job has not run on that type: X / this. */
#define GAVEL_EPS 1e-9

/* What the policy remembers of a job (by index). */
struct gv_job {
	sim_time_t run_from; /* when its current run started */
	int run_type;        /* type of its current run; -1 when not running */
	int cls;             /* its class (equal size and rates); -1: outside
	                        the program (it can run on no type) */
	int chosen;          /* scratch of a round: its chosen type, -1 */
};

/* A (job, type) pair and its priority. */
struct gv_pair {
	double prio;          /* priority, larger first */
	const struct job *job;
	unsigned t;           /* type */
};

struct gavel {
	enum gavel_objective obj; /* what the program optimises */
	sim_time_t round;     /* round length */
	bool throughput;      /* LP stage two */
	bool pool;            /* no GPU types: the allocation unit is one pool */
	unsigned T;           /* types in the program (1 in pool mode) */
	struct gavel_lp *lp;  /* the solver */
	bool dirty;           /* the active set changed since the last solve */
	bool anchored;        /* rounds have started */
	sim_time_t anchor;    /* the first round's start */
	sim_time_t next_round;/* the next boundary */
	sim_time_t wake;      /* the wake-up last asked for */
	uint64_t *cap;        /* [t]: capacity of each type (units) */
	/* Classes: jobs of equal size and rates, the program's rows. */
	double *crate;        /* [c * T + t]: speed on t, 0 = cannot run */
	uint32_t *csize;      /* [c]: size in the type's unit */
	uint32_t *cactive;    /* [c]: active jobs (submitted, not ended) */
	double *cx;           /* [c * T + t]: allocation of each such job */
	size_t ncls, cls_cap;
	/* Per job index, grown on submit: */
	struct gv_job *jobs;
	sim_time_t *on;       /* [idx * T + t]: time it ran on t (ended runs) */
	double *jx;           /* [idx * T + t]: its allocation, when solved
	                         per job (objectives other than max-min) */
	double *iso;          /* [idx]: isolated time so far, s */
	double *share;        /* [idx]: equal-share throughput at the last
	                         solve; 0 = not in it */
	double *done;         /* [idx]: work done at the last solve, us */
	size_t njobs_cap;
	/* Scratch: */
	const struct job **act; /* active program jobs */
	struct gv_pair *pairs;
	size_t act_cap, pair_cap;
};

static int gavel_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct gavel *g = gv_calloc(1, sizeof(*g));
	*state = g;
	double r = sim_param_double(sim, "round_s");
	if (!(r * SIM_SEC >= 1) || !(r <= 1e12)) {
		snprintf(err->msg, sizeof(err->msg),
			 "round_s must be a number of seconds from 1e-6 to "
			 "1e12, got '%g'", r);
		return -1;
	}
	g->round = (sim_time_t)llround(r * SIM_SEC);
	static const char *const names[GAVEL_NOBJECTIVES] = {
		[GAVEL_MAX_MIN_FAIRNESS] = "max_min_fairness",
		[GAVEL_FINISH_TIME_FAIRNESS] = "finish_time_fairness",
		[GAVEL_MIN_TOTAL_DURATION] = "min_total_duration",
	};
	const char *obj = sim_param_str(sim, "objective");
	g->obj = GAVEL_NOBJECTIVES;
	for (unsigned k = 0; k < GAVEL_NOBJECTIVES; k++)
		if (!strcmp(obj, names[k]))
			g->obj = (enum gavel_objective)k;
	if (g->obj == GAVEL_NOBJECTIVES) {
		snprintf(err->msg, sizeof(err->msg),
			 "objective must be 'max_min_fairness', "
			 "'finish_time_fairness' or 'min_total_duration', "
			 "got '%s'", obj);
		return -1;
	}
	g->throughput = sim_param_bool(sim, "throughput");
	g->pool = sim_gpu_types(sim) == 0;
	g->T = g->pool ? 1 : sim_gpu_types(sim);
	g->cap = gv_calloc(g->T, sizeof(*g->cap));
	for (unsigned t = 0; !g->pool && t < g->T; t++)
		g->cap[t] = sim_gpu_type_capacity(sim, t);
	g->lp = gavel_lp_new();
	return 0;
}

static void gavel_fini(struct sim *sim, void *state)
{
	struct gavel *g = state;
	if (!g)
		return;
	gavel_lp_free(g->lp);
	free(g->cap);
	free(g->crate);
	free(g->csize);
	free(g->cactive);
	free(g->cx);
	free(g->jobs);
	free(g->on);
	free(g->jx);
	free(g->iso);
	free(g->share);
	free(g->done);
	free(g->act);
	free(g->pairs);
	free(g);
}

/* The job's size in its type's unit: GPUs, or the pool's unit. */
static uint64_t size_of(const struct sim *sim, const struct gavel *g,
			const struct job *j)
{
	return g->pool ? sim_demand(sim, j) : j->gpus;
}

/* The class of size and rates (T of them), made when new. */
static int intern(struct gavel *g, uint32_t size, const double *rate)
{
	size_t T = g->T;
	for (size_t c = 0; c < g->ncls; c++)
		if (g->csize[c] == size &&
		    !memcmp(g->crate + c * T, rate, T * sizeof(*rate)))
			return (int)c;
	if (g->ncls == g->cls_cap) {
		size_t cap = g->cls_cap ? 2 * g->cls_cap : 16;
		g->crate = gv_realloc(g->crate, cap * T * sizeof(*g->crate));
		g->cx = gv_realloc(g->cx, cap * T * sizeof(*g->cx));
		g->csize = gv_realloc(g->csize, cap * sizeof(*g->csize));
		g->cactive = gv_realloc(g->cactive, cap * sizeof(*g->cactive));
		g->cls_cap = cap;
	}
	size_t c = g->ncls++;
	memcpy(g->crate + c * T, rate, T * sizeof(*rate));
	memset(g->cx + c * T, 0, T * sizeof(*g->cx));
	g->csize[c] = size;
	g->cactive[c] = 0;
	return (int)c;
}

static void gavel_submitted(struct sim *sim, void *state,
			    const struct job *j)
{
	struct gavel *g = state;
	size_t T = g->T;
	if (j->idx >= g->njobs_cap) {
		size_t cap = g->njobs_cap ? 2 * g->njobs_cap : 64;
		while (cap <= j->idx)
			cap *= 2;
		g->jobs = gv_realloc(g->jobs, cap * sizeof(*g->jobs));
		g->on = gv_realloc(g->on, cap * T * sizeof(*g->on));
		g->jx = gv_realloc(g->jx, cap * T * sizeof(*g->jx));
		g->iso = gv_realloc(g->iso, cap * sizeof(*g->iso));
		g->share = gv_realloc(g->share, cap * sizeof(*g->share));
		g->done = gv_realloc(g->done, cap * sizeof(*g->done));
		g->njobs_cap = cap;
	}
	double *rate = gv_realloc(NULL, T * sizeof(*rate));
	uint64_t size = size_of(sim, g, j);
	bool any = false;
	for (unsigned t = 0; t < T; t++) {
		double r = g->pool ? 1.0 : sim_job_type_rate(sim, j, t);
		bool ok = size > 0 && size <= UINT32_MAX &&
			  (g->pool || size <= g->cap[t]) &&
			  (g->pool || !j->gpu_type || j->gpu_type == t + 1) &&
			  r > 0 && isfinite(r);
		rate[t] = ok ? r : 0;
		any |= ok;
		g->on[(size_t)j->idx * T + t] = 0;
		g->jx[(size_t)j->idx * T + t] = 0;
	}
	g->iso[j->idx] = g->share[j->idx] = g->done[j->idx] = 0;
	struct gv_job *gj = &g->jobs[j->idx];
	*gj = (struct gv_job){ .run_type = -1, .cls = -1, .chosen = -1 };
	if (any) {
		gj->cls = intern(g, (uint32_t)size, rate);
		g->cactive[gj->cls]++;
		g->dirty = true;
	}
	free(rate);
}

static void gavel_finished(struct sim *sim, void *state,
			   const struct job *j)
{
	struct gavel *g = state;
	struct gv_job *gj = &g->jobs[j->idx];
	gj->run_type = -1;
	if (gj->cls >= 0) {
		g->cactive[gj->cls]--;
		g->dirty = true;
	}
}

/* Decreasing priority; ties by submit, id (= index order), type. */
static int pair_cmp(const struct gv_pair *a, const struct gv_pair *b)
{
	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	if (a->job->idx != b->job->idx)
		return a->job->idx < b->job->idx ? -1 : 1;
	return a->t < b->t ? -1 : a->t > b->t;
}

static int by_priority(const void *pa, const void *pb)
{
	return pair_cmp(pa, pb);
}

/* Collects the active program jobs (pending or running); in pool mode
 * also measures the pool.  Returns how many. */
static size_t collect(struct sim *sim, struct gavel *g)
{
	size_t nrun = sim_running_len(sim), nq = sim_queue_len(sim), n = 0;
	size_t c = g->act_cap;
	gv_grow(&g->act, &c, nrun + nq + 1, sizeof(*g->act));
	g->act_cap = c;
	c = g->pair_cap;
	gv_grow(&g->pairs, &c, (nrun + nq + 1) * g->T, sizeof(*g->pairs));
	g->pair_cap = c;
	uint64_t pool = sim_free_units(sim);
	for (size_t i = 0; i < nrun + nq; i++) {
		const struct job *j = i < nrun ? sim_running_at(sim, i)
					       : sim_queue_at(sim, i - nrun);
		if (i < nrun)
			pool += sim_demand(sim, j);
		if (g->jobs[j->idx].cls >= 0)
			g->act[n++] = j;
	}
	if (g->pool)
		g->cap[0] = pool;
	return n;
}

/* Solves the program over the classes with active jobs; on a solver
 * failure (it should not happen) the old allocations stay, and pairs
 * with X = 0 still keep GPUs busy. */
static void solve_classes(struct gavel *g)
{
	struct gavel_problem p = {
		.jobs = g->ncls, .types = g->T, .rate = g->crate,
		.gpus = g->csize, .count = g->cactive, .cap = g->cap,
		.throughput = g->throughput,
	};
	double *x = gv_realloc(NULL, (g->ncls * g->T + 1) * sizeof(*x)), z;
	struct sim_error err;
	if (gavel_lp_solve(g->lp, &p, x, &z, &err) == 0)
		memcpy(g->cx, x, g->ncls * g->T * sizeof(*x));
	free(x);
}

/* The per-job rows of the n active jobs (finish-time fairness, min total
 * duration): each job's class row, its work left, time since submit and
 * isolated time, which first takes in the work done since the last
 * solve at that solve's equal share. */
static void solve_jobs(struct sim *sim, struct gavel *g, size_t n)
{
	size_t T = g->T;
	double *rate = gv_realloc(NULL, (n * T + 1) * sizeof(*rate));
	double *x = gv_realloc(NULL, (n * T + 1) * sizeof(*x));
	double *v = gv_realloc(NULL, (4 * n + 1) * sizeof(*v));
	double *rem = v, *ela = v + n, *iso = v + 2 * n, *share = v + 3 * n;
	uint32_t *gpus = gv_realloc(NULL, (n + 1) * sizeof(*gpus));
	sim_time_t now = sim_now(sim);
	for (size_t k = 0; k < n; k++) {
		const struct job *j = g->act[k];
		size_t c = (size_t)g->jobs[j->idx].cls;
		double done = sim_job_work_done(sim, j);
		if (g->share[j->idx] > 0)
			g->iso[j->idx] += (done - g->done[j->idx]) / SIM_SEC /
					  g->share[j->idx];
		g->done[j->idx] = done;
		memcpy(rate + k * T, g->crate + c * T, T * sizeof(*rate));
		gpus[k] = g->csize[c];
		rem[k] = fmax(0, ((double)j->run - done) / SIM_SEC);
		ela[k] = (double)(now - j->submit) / SIM_SEC;
		iso[k] = g->iso[j->idx];
	}
	struct gavel_problem p = {
		.jobs = n, .types = T, .rate = rate, .gpus = gpus,
		.cap = g->cap, .throughput = g->throughput,
		.objective = g->obj, .remaining = rem, .elapsed = ela,
		.iso_done = iso, .share = share,
	};
	double z;
	struct sim_error err;
	if (gavel_lp_solve(g->lp, &p, x, &z, &err) == 0)
		for (size_t k = 0; k < n; k++) {
			uint32_t idx = g->act[k]->idx;
			memcpy(g->jx + (size_t)idx * T, x + k * T,
			       T * sizeof(*x));
			g->share[idx] = share[k];
		}
	free(rate);
	free(x);
	free(v);
	free(gpus);
}

static void solve(struct sim *sim, struct gavel *g, size_t n)
{
	if (g->obj == GAVEL_MAX_MIN_FAIRNESS)
		solve_classes(g);
	else
		solve_jobs(sim, g, n);
	g->dirty = false;
}

/* The allocation of job j on type t. */
static double alloc_of(const struct gavel *g, const struct job *j,
		       unsigned t)
{
	if (g->obj != GAVEL_MAX_MIN_FAIRNESS)
		return g->jx[(size_t)j->idx * g->T + t];
	return g->cx[(size_t)g->jobs[j->idx].cls * g->T + t];
}

/* The pair's priority now. */
static double priority(const struct sim *sim, const struct gavel *g,
		       const struct job *j, unsigned t)
{
	const struct gv_job *gj = &g->jobs[j->idx];
	double x = alloc_of(g, j, t);
	if (!(x > 0))
		return 0;
	sim_time_t now = sim_now(sim);
	double on = (double)g->on[(size_t)j->idx * g->T + t];
	if (gj->run_type == (int)t)
		on += (double)(now - gj->run_from);
	double elapsed = (double)(now - j->submit);
	double share = elapsed > 0 ? on / elapsed : 0;
	return share > 0 ? x / share : x / GAVEL_EPS;
}

/* Can the job's class run on t? */
static bool can_run(const struct gavel *g, const struct job *j, unsigned t)
{
	return g->crate[(size_t)g->jobs[j->idx].cls * g->T + t] > 0;
}

/* Free units of type t now. */
static uint64_t free_on(const struct sim *sim, const struct gavel *g,
			unsigned t)
{
	return g->pool ? sim_free_units(sim) : sim_gpu_type_free(sim, t);
}

static bool fits_on(const struct sim *sim, const struct gavel *g,
		    const struct job *j, unsigned t)
{
	return g->pool ? sim_job_fits(sim, j) : sim_job_fits_on(sim, j, t);
}

static void start_on(struct sim *sim, struct gavel *g, const struct job *j,
		     unsigned t)
{
	int rc = g->pool ? sim_job_start(sim, j) : sim_job_start_on(sim, j, t);
	if (rc == 0) {
		g->jobs[j->idx].run_from = sim_now(sim);
		g->jobs[j->idx].run_type = (int)t;
	}
}

static void preempt(struct sim *sim, struct gavel *g, const struct job *j)
{
	struct gv_job *gj = &g->jobs[j->idx];
	if (gj->run_type >= 0)
		g->on[(size_t)j->idx * g->T + (unsigned)gj->run_type] +=
			sim_now(sim) - gj->run_from;
	gj->run_type = -1;
	sim_job_preempt(sim, j);
}

/*
 * Starts waiting program jobs on free units, best pair first, preempting
 * nobody.  Only pairs whose job fits the type's free units count; the
 * best is found by a scan (a start or two per call is the common case:
 * a job ended), and after each start the pairs that no longer fit go.
 */
static void fill(struct sim *sim, struct gavel *g, size_t n)
{
	size_t np = 0;
	for (size_t k = 0; k < n; k++) {
		const struct job *j = g->act[k];
		if (j->state != JOB_PENDING)
			continue;
		for (unsigned t = 0; t < g->T; t++)
			if (can_run(g, j, t) &&
			    size_of(sim, g, j) <= free_on(sim, g, t))
				g->pairs[np++] = (struct gv_pair){
					priority(sim, g, j, t), j, t };
	}
	while (np) {
		size_t best = 0;
		for (size_t i = 1; i < np; i++)
			if (pair_cmp(&g->pairs[i], &g->pairs[best]) < 0)
				best = i;
		struct gv_pair pr = g->pairs[best];
		g->pairs[best] = g->pairs[--np];
		if (!fits_on(sim, g, pr.job, pr.t))
			continue;
		start_on(sim, g, pr.job, pr.t);
		size_t kept = 0;
		for (size_t i = 0; i < np; i++) {
			const struct gv_pair *q = &g->pairs[i];
			if (q->job->state == JOB_PENDING &&
			    size_of(sim, g, q->job) <= free_on(sim, g, q->t))
				g->pairs[kept++] = *q;
		}
		np = kept;
	}
}

/* A round boundary: the greedy choice, preemptions, starts. */
static void do_round(struct sim *sim, struct gavel *g, size_t n)
{
	size_t T = g->T, np = 0;
	uint64_t *left = gv_realloc(NULL, T * sizeof(*left));
	memcpy(left, g->cap, T * sizeof(*left));
	for (size_t k = 0; k < n; k++) {
		const struct job *j = g->act[k];
		g->jobs[j->idx].chosen = -1;
		for (unsigned t = 0; t < T; t++)
			if (can_run(g, j, t))
				g->pairs[np++] = (struct gv_pair){
					priority(sim, g, j, t), j, t };
	}
	/* A job min_run_s protects stays where it runs. */
	for (size_t k = 0; k < n; k++) {
		const struct job *j = g->act[k];
		struct gv_job *gj = &g->jobs[j->idx];
		if (j->state == JOB_RUNNING && gj->run_type >= 0 &&
		    !sim_job_preemptible(sim, j)) {
			gj->chosen = gj->run_type;
			uint64_t size = size_of(sim, g, j);
			unsigned t = (unsigned)gj->run_type;
			left[t] -= size < left[t] ? size : left[t];
		}
	}
	qsort(g->pairs, np, sizeof(*g->pairs), by_priority);
	for (size_t i = 0; i < np; i++) {
		const struct gv_pair *pr = &g->pairs[i];
		struct gv_job *gj = &g->jobs[pr->job->idx];
		uint64_t size = size_of(sim, g, pr->job);
		if (gj->chosen >= 0 || size > left[pr->t])
			continue;
		gj->chosen = (int)pr->t;
		left[pr->t] -= size;
	}
	free(left);
	for (size_t k = 0; k < n; k++) {
		const struct job *j = g->act[k];
		const struct gv_job *gj = &g->jobs[j->idx];
		if (j->state == JOB_RUNNING && gj->run_type != gj->chosen)
			preempt(sim, g, j);
	}
	/* The chosen that wait, in priority order. */
	for (size_t i = 0; i < np; i++) {
		const struct gv_pair *pr = &g->pairs[i];
		if (pr->job->state == JOB_PENDING &&
		    g->jobs[pr->job->idx].chosen == (int)pr->t &&
		    fits_on(sim, g, pr->job, pr->t))
			start_on(sim, g, pr->job, pr->t);
	}
}

/* Jobs outside the program, in queue order when they fit; and, should
 * the cluster be idle with jobs waiting, the queue's head anyway. */
static void start_others(struct sim *sim, struct gavel *g)
{
	for (size_t i = 0; i < sim_queue_len(sim);) {
		const struct job *j = sim_queue_at(sim, i);
		if (g->jobs[j->idx].cls < 0 && sim_job_fits(sim, j) &&
		    sim_job_start(sim, j) == 0)
			continue; /* it left the queue: same i */
		i++;
	}
	if (sim_running_len(sim) == 0 && sim_queue_len(sim) &&
	    sim_job_fits(sim, sim_queue_at(sim, 0))) {
		const struct job *j = sim_queue_at(sim, 0);
		if (sim_job_start(sim, j) == 0 && g->jobs[j->idx].cls >= 0) {
			g->jobs[j->idx].run_from = sim_now(sim);
			g->jobs[j->idx].run_type = g->pool || !j->gpu_type_used
				? 0 : (int)j->gpu_type_used - 1;
		}
	}
}

/* Does some type have a free unit? */
static bool any_free(const struct sim *sim, const struct gavel *g)
{
	for (unsigned t = 0; t < g->T; t++)
		if (free_on(sim, g, t))
			return true;
	return false;
}

static void gavel_schedule(struct sim *sim, void *state)
{
	struct gavel *g = state;
	sim_time_t now = sim_now(sim);
	size_t n = collect(sim, g);
	if (g->dirty)
		solve(sim, g, n);
	if (n && !g->anchored) {
		g->anchored = true;
		g->anchor = g->next_round = now;
	}
	if (n && now >= g->next_round) {
		do_round(sim, g, n);
		g->next_round = g->anchor +
				((now - g->anchor) / g->round + 1) * g->round;
	}
	if (n && any_free(sim, g))
		fill(sim, g, n);
	start_others(sim, g);
	if (n && g->wake != g->next_round &&
	    sim_wakeup_at(sim, g->next_round) == 0)
		g->wake = g->next_round;
}

static const struct policy_param gavel_params[] = {
	{ "objective", PARAM_STRING, "max_min_fairness",
	  "what the program optimises: max_min_fairness, "
	  "finish_time_fairness or min_total_duration (Gavel's policies)" },
	{ "round_s", PARAM_DOUBLE, "360", "round length, seconds" },
	{ "min_run_s", PARAM_DOUBLE, "0",
	  "a job that (re)starts is not preempted before it has run this "
	  "long, seconds (the engine keeps it: policy.h)" },
	{ "throughput", PARAM_BOOL, "true",
	  "second LP stage: most throughput at the max-min value" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(gavel,
	.summary = "Gavel heterogeneity-aware LP policies (max-min "
		   "fairness, finish-time fairness, min total duration): "
		   "time fractions per GPU type, realised in rounds (CLP)",
	.params = gavel_params,
	.init = gavel_init,
	.fini = gavel_fini,
	.job_submitted = gavel_submitted,
	.job_finished = gavel_finished,
	.schedule = gavel_schedule);
