/*
 * themis: finish-time fairness with leases and a rho-ordered auction,
 * preemptive at lease boundaries, work conserving in between.
 *
 * What it models: a job's finish-time fairness is rho = T_shared /
 * T_isolated, the time it takes in the shared cluster over the time it
 * would take with a dedicated 1/N share of the cluster (N = the active
 * jobs).  Themis hands out resources in leases; when leases expire, the
 * jobs that are furthest behind (largest rho) are offered the resources
 * first, and a fairness knob f decides how many of them are offered.
 *
 * The estimate, at a decision at time now, for an active (running or
 * waiting) job j of demand d_j allocation units (GPUs on a GPU cluster,
 * else CPUs, or nodes when nodes are exclusive: sim_demand()):
 *   T_shared   = (now - submit) + max(0, estimate - work done): when it
 *                would end if it held its demand from now on (the restore
 *                overhead of a preempted job is unknown to the policy and
 *                left out);
 *   T_isolated = estimate x max(1, N x d_j / C): its run time in a 1/N
 *                share of the C units in service (free + held by running
 *                jobs: the whole cluster while no node is down); a job
 *                wider than its share is slowed in proportion;
 *   rho        = T_shared / T_isolated (an estimate of 0 counts as 1 us,
 *                so a waiting job of no length comes first).
 * Relation to the ftf metric of the results (stats_ftf(): (end - submit)
 * / run, with run the job's work at reference speed on its full demand):
 * that is the same ratio measured afterwards with N = 1.  For a job that
 * fits in its 1/N share (N x d_j <= C) and then runs undisturbed at
 * reference speed, with an exact estimate (the GPU traces), the policy's
 * rho is exactly its final ftf.  Otherwise the policy's rho is lower: by
 * the factor N x d_j / C for a job wider than its share (Themis does not
 * owe such a job a fast finish, the metric still counts it), and by what
 * the estimate leaves out (restore overheads, work lost since the last
 * checkpoint, a slower GPU type or communication, later preemptions).
 *
 * Leases: time is cut at the multiples of lease_s from the workload's
 * start; every active job's lease ends at the next boundary.  At a
 * boundary (the first decision at that time) the policy ranks every
 * active job by rho, largest first, ties by submit time then id.  The
 * offered set is the first k = ceil((1 - f) x N) of them (at least one;
 * computed with a 1e-9 tolerance so that (1 - 0.7) x 10 is 3).  The
 * ranking handed to the engine's preemptive allocation (sim_apply_ranking)
 * is: the offered jobs in rho order, then the other running jobs in rho
 * order (their leases are renewed with what the offered jobs leave), then
 * the other waiting jobs in rho order (they get the leftovers).  So only
 * an offered job can take resources from a running one - a running job
 * loses its lease when an offered job needs its units (lowest rho first);
 * a job that does not fit is skipped, not a barrier.  Anything still free
 * afterwards (a job kept by units but not placeable) goes to waiting jobs
 * in the same order.  f = 0 offers everyone: strict rho priority, the
 * most preemption; f near 1 offers only the worst job, and every other
 * running job keeps its resources: the fewest preemptions.
 *
 * Between boundaries (a job ends or arrives), free resources go to waiting
 * jobs in rho order, skipping those that do not fit, and nothing is
 * preempted: the policy is work conserving.  While there are active jobs
 * it asks to be woken at the next boundary.
 *
 * Difference from the paper: in Themis the offered jobs' agents bid
 * with utility curves (their rho for each bundle of GPUs, placement
 * included) and the arbiter runs a partial-allocation auction that
 * maximises the product of rho improvements and may withhold part of a
 * bundle; leases expire at staggered times; leftovers go to jobs outside
 * the auction.  Here there are no bids: the arbiter gives each offered
 * job its whole demand in rho order (the one that fits), leases all end
 * at common boundaries, and leftovers go first to running jobs outside
 * the offered set, then to waiting ones.  In the paper a larger f makes
 * the auction stricter (fewer, worse-off bidders); here the offered set
 * is already served in rho order, so a larger f mostly means fewer
 * preemptions.
 *
 * Cost: one sort of the active jobs at a boundary; between boundaries a
 * heap of the waiting jobs that could fit the free units (none when
 * nothing is free), taken in rho order only until the units run out;
 * O(running + waiting) besides.
 *
 * Source: Mahajan, Balasubramanian, Sivaraman, Shaikh, Chen, Sen, Salam,
 * "Themis: Fair and Efficient GPU Cluster Scheduling", NSDI 2020
 * (finish-time fairness, leases, the fairness knob f).
 *
 * Parameters:
 *   lease_s        lease length in seconds, > 0 (default 600)
 *   fairness_knob  f in [0, 1): the worst (1 - f) of the active jobs are
 *                  offered resources first (default 0.8, as the paper's
 *                  evaluation)
 *   min_run_s      a job that (re)starts is not preempted again before
 *                  it has run this long (the engine keeps it, policy.h);
 *                  the cure for a preemption livelock (default 0: off)
 *   (and "placement", as every policy)
 *
 * Example (one node of 2 GPUs, lease 100 s, f = 0.8; 1-GPU jobs): Y (1 s,
 * 200 s) starts at 50 when a 2-GPU job ends; W (60 s, 300 s) starts at 60;
 * Z (70 s, 200 s) waits.  At 100, N = 3: each share is 2/3 GPU, so
 * T_isolated = 1.5 x run: Y 249/300 = 0.83, Z 230/300 = 0.77, W 300/450
 * = 0.67.  Only Y is offered (k = 1): W keeps its GPU.  At 200 Z has
 * 330/300 = 1.1, the worst: Z is offered and takes W's GPU (W, 0.67, is
 * below Y, 0.83).  With f = 0 all three are offered at 100, and Z takes
 * W's GPU at once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

/* Longest lease accepted, seconds: keeps boundaries far from overflow. */
#define THEMIS_MAX_LEASE_S 1e9

struct themis {
	sim_time_t lease;     /* lease length, microseconds (>= 1) */
	double knob;          /* fairness knob f, in [0, 1) */
	sim_time_t auctioned; /* time of the last boundary ranking,
	                         SIM_TIME_NONE before the first */
	sim_time_t wake;      /* the wakeup asked for, SIM_TIME_NONE none */
	struct themis_entry *e;     /* scratch: jobs and their rho */
	struct themis_entry *tmp;   /* scratch: the sort's merge room */
	size_t ecap;
	const struct job **ranked;  /* scratch: the ranking handed over */
	size_t rcap;
};

/* A job and its key, for sorting. */
struct themis_entry {
	double rho;            /* estimated finish-time fairness */
	const struct job *job;
};

static int themis_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct themis *t = calloc(1, sizeof(*t));
	if (!t)
		return -1;
	*state = t;
	t->auctioned = SIM_TIME_NONE;
	t->wake = SIM_TIME_NONE;
	double lease_s = sim_param_double(sim, "lease_s");
	if (!(lease_s * 1e6 >= 1) || !(lease_s <= THEMIS_MAX_LEASE_S)) {
		snprintf(err->msg, sizeof(err->msg),
			 "lease_s must be seconds from 0.000001 to %g, got "
			 "'%g'", THEMIS_MAX_LEASE_S, lease_s);
		return -1;
	}
	t->lease = (sim_time_t)llround(lease_s * 1e6);
	t->knob = sim_param_double(sim, "fairness_knob");
	if (!(t->knob >= 0 && t->knob < 1)) {
		snprintf(err->msg, sizeof(err->msg),
			 "fairness_knob must be in [0, 1), got '%g'", t->knob);
		return -1;
	}
	return 0;
}

static void themis_fini(struct sim *sim, void *state)
{
	struct themis *t = state;
	if (t) {
		free(t->e);
		free(t->tmp);
		free(t->ranked);
	}
	free(t);
}

/* Makes room for n entries and n ranked jobs; false when out of memory. */
static bool themis_room(struct themis *t, size_t n)
{
	if (n > t->ecap) {
		size_t cap = n < 64 ? 64 : 2 * n;
		struct themis_entry *e = realloc(t->e, cap * sizeof(*e));
		if (!e)
			return false;
		t->e = e;
		e = realloc(t->tmp, cap * sizeof(*e));
		if (!e)
			return false;
		t->tmp = e;
		t->ecap = cap;
	}
	if (n > t->rcap) {
		size_t cap = n < 64 ? 64 : 2 * n;
		const struct job **r = realloc(t->ranked, cap * sizeof(*r));
		if (!r)
			return false;
		t->ranked = r;
		t->rcap = cap;
	}
	return true;
}

/* Largest rho first, then earlier submit, then lower id. */
static int themis_by_rho(const void *pa, const void *pb)
{
	const struct themis_entry *a = pa, *b = pb;
	if (a->rho != b->rho)
		return a->rho > b->rho ? -1 : 1;
	if (a->job->submit != b->job->submit)
		return a->job->submit < b->job->submit ? -1 : 1;
	return (a->job->id > b->job->id) - (a->job->id < b->job->id);
}

/* Sorts e[0..n) by themis_by_rho, stably (as qsort's merge sort did),
 * with room for n in tmp: by insertion when short, else the two halves
 * merged, the left first on ties. */
static void themis_sort(struct themis_entry *e, size_t n,
			struct themis_entry *tmp)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			struct themis_entry x = e[i];
			size_t k = i;
			for (; k > 0 && themis_by_rho(&x, &e[k - 1]) < 0; k--)
				e[k] = e[k - 1];
			e[k] = x;
		}
		return;
	}
	size_t h = n / 2, i = 0, j = h, k = 0;
	themis_sort(e, h, tmp);
	themis_sort(e + h, n - h, tmp);
	memcpy(tmp, e, h * sizeof(*e));
	while (i < h && j < n)
		e[k++] = themis_by_rho(&e[j], &tmp[i]) < 0 ? e[j++] : tmp[i++];
	while (i < h)
		e[k++] = tmp[i++];
}

/*
 * The job's rho at time now with nactive active jobs and cap units in
 * service (see the file comment).
 */
static double themis_rho(struct sim *sim, const struct job *j, sim_time_t now,
			 size_t nactive, uint64_t cap)
{
	double est = j->estimate > 0 ? (double)j->estimate : 1.0;
	double left = (double)j->estimate - sim_job_work_done(sim, j);
	double shared = (double)(now - j->submit) + (left > 0 ? left : 0);
	double share = cap ? (double)nactive * (double)sim_demand(sim, j) /
				     (double)cap
			   : 1.0;
	return shared / (est * (share > 1 ? share : 1));
}

/* Starts the waiting jobs of ranked[0..n) that fit, in order, while
 * anything may still fit; preempts nothing. */
static void themis_fill(struct sim *sim, const struct job *const *ranked,
			size_t n)
{
	uint64_t free_units = sim_free_units(sim);
	for (size_t i = 0; i < n; i++) {
		const struct job *j = ranked[i];
		if (j->state != JOB_PENDING || sim_demand(sim, j) > free_units)
			continue;
		if (sim_job_fits(sim, j) && sim_job_start(sim, j) == 0)
			free_units = sim_free_units(sim);
	}
}

/* The boundary decision: the offered set, then the rest (file comment). */
static void themis_auction(struct sim *sim, struct themis *t, sim_time_t now)
{
	size_t nrun = sim_running_len(sim), nq = sim_queue_len(sim);
	size_t n = nrun + nq;
	uint64_t cap = sim_free_units(sim);
	for (size_t i = 0; i < nrun; i++)
		cap += sim_demand(sim, sim_running_at(sim, i));
	for (size_t i = 0; i < n; i++) {
		const struct job *j = i < nrun ? sim_running_at(sim, i)
					       : sim_queue_at(sim, i - nrun);
		t->e[i] = (struct themis_entry){
			themis_rho(sim, j, now, n, cap), j };
	}
	themis_sort(t->e, n, t->tmp);
	size_t k = (size_t)ceil((1 - t->knob) * (double)n - 1e-9);
	if (k < 1)
		k = 1;
	if (k > n)
		k = n;
	size_t m = 0;
	for (size_t i = 0; i < k; i++)
		t->ranked[m++] = t->e[i].job;
	for (size_t i = k; i < n; i++)
		if (t->e[i].job->state == JOB_RUNNING)
			t->ranked[m++] = t->e[i].job;
	for (size_t i = k; i < n; i++)
		if (t->e[i].job->state != JOB_RUNNING)
			t->ranked[m++] = t->e[i].job;
	sim_apply_ranking(sim, t->ranked, n);
	themis_fill(sim, t->ranked, n);
}

/* Sifts e[i] down the heap e[0..n), the best by themis_by_rho on top. */
static void themis_sift(struct themis_entry *e, size_t n, size_t i)
{
	struct themis_entry x = e[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && themis_by_rho(&e[c + 1], &e[c]) < 0)
			c++;
		if (themis_by_rho(&e[c], &x) >= 0)
			break;
		e[i] = e[c];
		i = c;
	}
	e[i] = x;
}

/*
 * Between boundaries: free units to waiting jobs in rho order, as
 * themis_fill() starts them from a sorted list, but taken from a heap
 * one by one: once no unit is free and no job left asks for none, the
 * rest could not start and are not ordered.
 */
static void themis_conserve(struct sim *sim, struct themis *t, sim_time_t now)
{
	size_t nrun = sim_running_len(sim), nq = sim_queue_len(sim);
	uint64_t free_units = sim_free_units(sim);
	uint64_t cap = free_units;
	for (size_t i = 0; i < nrun; i++)
		cap += sim_demand(sim, sim_running_at(sim, i));
	/* Only jobs that could fit the free units are worth sorting. */
	size_t m = 0;
	for (size_t i = 0; i < nq; i++) {
		const struct job *j = sim_queue_at(sim, i);
		if (sim_demand(sim, j) <= free_units)
			t->e[m++] = (struct themis_entry){
				themis_rho(sim, j, now, nrun + nq, cap), j };
	}
	size_t zero = 0;
	for (size_t i = 0; i < m; i++)
		zero += sim_demand(sim, t->e[i].job) == 0;
	for (size_t i = m / 2; i-- > 0;)
		themis_sift(t->e, m, i);
	while (m && (free_units || zero)) {
		const struct job *j = t->e[0].job;
		t->e[0] = t->e[--m];
		themis_sift(t->e, m, 0);
		uint64_t d = sim_demand(sim, j);
		zero -= d == 0;
		if (j->state != JOB_PENDING || d > free_units)
			continue;
		if (sim_job_fits(sim, j) && sim_job_start(sim, j) == 0)
			free_units = sim_free_units(sim);
	}
}

/* The first lease boundary after now. */
static sim_time_t themis_next_boundary(const struct themis *t, sim_time_t now)
{
	sim_time_t q = now / t->lease;
	if (now % t->lease < 0)
		q--; /* floor, for a time before the workload's start */
	return (q + 1) * t->lease;
}

static void themis_schedule(struct sim *sim, void *state)
{
	struct themis *t = state;
	sim_time_t now = sim_now(sim);
	size_t n = sim_running_len(sim) + sim_queue_len(sim);
	if (n == 0)
		return;
	if (!themis_room(t, n)) {
		sim_start_head(sim); /* out of memory: degrade to fcfs */
		return;
	}
	if (now % t->lease == 0 && now != t->auctioned) {
		t->auctioned = now;
		themis_auction(sim, t, now);
	} else if (sim_queue_len(sim)) {
		themis_conserve(sim, t, now);
	}
	if (sim_running_len(sim) + sim_queue_len(sim) == 0 ||
	    (t->wake != SIM_TIME_NONE && t->wake > now) ||
	    now > SIM_TIME_MAX - 2 * t->lease)
		return;
	t->wake = themis_next_boundary(t, now);
	sim_wakeup_at(sim, t->wake);
}

static const struct policy_param themis_params[] = {
	{ "lease_s", PARAM_DOUBLE, "600",
	  "lease length, seconds: jobs are re-ranked at its multiples" },
	{ "fairness_knob", PARAM_DOUBLE, "0.8",
	  "f in [0, 1): the worst (1 - f) of the jobs by rho are offered "
	  "resources first" },
	{ "min_run_s", PARAM_DOUBLE, "0",
	  "a job that (re)starts is not preempted before it has run this "
	  "long, seconds (the engine keeps it: policy.h)" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(themis,
	.summary = "Themis finish-time fairness: leases, the worst jobs by "
		   "rho offered resources first, preemptive at lease ends",
	.params = themis_params,
	.init = themis_init,
	.fini = themis_fini,
	.schedule = themis_schedule);
