/*
 * quota: guaranteed GPU quotas with borrowing and reclaim, the rule of
 * Run:AI's scheduler and of Kubernetes Kueue (docs/tenants.md).
 *
 * The cluster has tenants (cluster.tenants): departments and their
 * projects, each with a guaranteed quota, optional borrowing and lending
 * limits and a weight.  The engine keeps what each holds (sim_tenant);
 * this policy decides, at every scheduling point, in three steps:
 *
 * 1. Within quota.  The pending jobs in the queue order (the `order`
 *    parameter: fifo, sjf, or las - least attained service first) are
 *    walked; a job whose project would stay within its quota with it
 *    starts when it fits.  When it does not fit and other projects hold
 *    borrowed GPUs, they are reclaimed (2).  A job within quota that
 *    still cannot start blocks the later jobs of its project (a project
 *    is a queue, as a VC is under sim_start_head), so a big job is not
 *    passed for ever by small ones.
 * 2. Reclaim (`reclaim`, default on).  The victims are the running
 *    train jobs of the projects that hold more than their quota (Kueue:
 *    a ClusterQueue that borrows; Run:AI: over-quota jobs), in the
 *    order of the `victim` parameter: newest (the last started first,
 *    Kueue's "most recently admitted"), priority (the job of the project
 *    of lowest weight first, then newest: jobs carry no priority of their
 *    own, the project's weight stands for it), or progress (the least
 *    work since its last checkpoint first: what it would lose).  A victim
 *    is taken only while its project is still over its quota with the
 *    victims taken before (Kueue's rule), until the GPUs freed and the
 *    free ones cover the job; if all of them would not, nobody is
 *    preempted.  Preemption pays the experiment's checkpoint and restore
 *    costs (sim_job_preempt).  Interactive jobs are never victims.
 * 3. Borrowing (`borrowing`, default on; off gives hard partitions: no
 *    project above its quota).  The train jobs left, each of which would
 *    take its project over its quota, start while the idle GPUs that may
 *    be lent last, the project that would hold the least over-quota GPUs
 *    per weight after the start going first (progressive filling: the
 *    max-min fair division by weight of Run:AI's over-quota fair share
 *    and of Kueue's fair sharing, whose "share value" is the borrowed
 *    amount over the weight).  A job borrows only within its project's
 *    and its department's borrow_limit, and only GPUs that no tenant
 *    withholds: of a tenant's unused quota, at most its lend_limit is
 *    lent (Kueue's lendingLimit).  Interactive jobs never borrow.
 * 4. Rebalancing (`rebalance`, default off).  A borrower whose job still
 *    waits takes GPUs from another borrower by preemption while its
 *    share value with the job (its GPUs above quota over its weight)
 *    stays at most the other's without the victims: Kueue's fair-sharing
 *    preemption strategy LessThanOrEqualToFinalShare ("only preempt a
 *    workload if the share of the preemptor ClusterQueue with the
 *    preemptor workload is less than or equal to the share of the
 *    preemptee ClusterQueue without the workload to be preempted"), and
 *    Run:AI's reclaim between over-quota projects (KAI Scheduler's
 *    fairness documentation: queues below their fair share may evict
 *    workloads of queues above theirs, and a reclaim may not leave the
 *    reclaimer above the other).  The shares converge on the max-min fair
 *    division by weight that step 3 fills.  The borrower of least share
 *    value after its start goes first; victims go in the victim order,
 *    and as in a reclaim only as many as let its job be placed.  Off by
 *    default: Kueue's fair sharing is off unless enabled
 *    (fairSharing.enable defaults to false), so borrowers keep their GPUs
 *    until their jobs end, and the runs of earlier versions are
 *    reproduced.
 *
 * Sources: Run:AI documentation, "The Run:ai Scheduler: concepts and
 * principles" (deserved quota, over-quota fair share by weight,
 * interactive vs training workloads, reclaim of over-quota jobs);
 * Kubernetes Kueue documentation, "Cluster Queue" (nominalQuota,
 * borrowingLimit, lendingLimit, cohorts) and "Preemption" (reclaim
 * within a cohort, candidates from ClusterQueues that borrow, ordered by
 * priority then most recently admitted) and "Fair Sharing" (weights,
 * the share value, the preemption strategies); KAI Scheduler (Run:AI's
 * open scheduler), docs/fairness/README.md (fair share, reclaim
 * strategies).
 *
 * Example (8 GPUs, projects A and B of quota 4 each, 1-GPU jobs): A's 8
 * jobs arrive at 0 and all start, 4 borrowed from B.  B's job arrives at
 * 10: B is under its quota and nothing is free, so the newest of A's
 * borrowing jobs is preempted and B's job starts at 10.
 *
 * On a cluster without tenants every job is of one pool: the queue in
 * its order starts while its head fits (sim_start_head).
 *
 * Parameters:
 *   order      queue order inside a project: fifo, sjf (shortest
 *              estimate), las (least attained service) (default fifo)
 *   victim     newest, priority or progress (default newest)
 *   borrowing  start jobs above quota on idle GPUs (default true)
 *   reclaim    preempt borrowing jobs for a project under quota
 *              (default true)
 *   rebalance  preempt a borrower above its weighted share for one below
 *              it whose job waits (default false)
 *
 * Cost: each project keeps its waiting jobs in a list in the queue order
 * (linked through the engine's per-job slots); a point walks a project's
 * list only while it is under its quota, and in step 3 only past the
 * jobs larger than the idle GPUs, picking the next project in
 * O(projects); a reclaim walks the running jobs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

enum q_order { O_FIFO, O_SJF, O_LAS };
enum q_victim { V_NEWEST, V_PRIORITY, V_PROGRESS };

/* A reclaim candidate and its key (lower: preempted first). */
struct q_cand {
	const struct job *job;
	double key;
	double key2;
};

/* A project's waiting jobs, in the queue order: their slots, linked. */
struct q_list {
	struct quota_job *head, *tail;
};

/* The policy's slot per job. */
struct quota_job {
	struct quota_job *prev, *next; /* in its project's list */
	const struct job *job;
	sim_time_t started;           /* its last (re)start */
	uint64_t m;                   /* its demand, milli-GPUs */
	int32_t t;                    /* its project (tenant index) */
};

struct quota {
	enum q_order order;
	enum q_victim victim;
	bool borrowing, reclaim, rebalance;
	unsigned nt;                  /* tenants */
	unsigned ny;                  /* GPU types when the quotas are per
	                                 type, else 0 */
	const struct sim_tenant **ten; /* by tenant: the engine's view */
	struct q_list *wait;          /* by tenant: its waiting jobs */
	uint32_t *zero;               /* by tenant: waiting jobs of no GPU */
	bool *blocked;                /* by tenant, this point */
	int64_t *over;                /* by tenant, scratch: milli-GPUs over
	                                 quota with the victims taken so far */
	struct quota_job **cur;       /* by tenant: step 3's next job */
	struct quota_job *slots;      /* the engine's, by job idx */
	struct q_cand *cand;
	size_t candcap;
	const struct job **vict;      /* reclaim scratch: victims tried */
	size_t victcap;
};

static int quota_order(void *state, const struct job *a, const struct job *b)
{
	const struct quota *q = state;
	if (q->order == O_SJF)
		return (a->estimate > b->estimate) - (a->estimate < b->estimate);
	if (q->order == O_LAS)
		return (a->attained > b->attained) - (a->attained < b->attained);
	return 0;
}

/* The engine's queue order: the policy's, then submit, then index. */
static bool before(const struct quota *q, const struct job *a,
		   const struct job *b)
{
	int c = quota_order((void *)q, a, b);
	if (c)
		return c < 0;
	if (a->submit != b->submit)
		return a->submit < b->submit;
	return a->idx < b->idx;
}

static int pick(const char *v, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

static int quota_init(struct sim *sim, void **state, struct sim_error *err)
{
	static const char *const orders[] = { "fifo", "sjf", "las" };
	static const char *const victims[] = { "newest", "priority",
					       "progress" };
	struct quota *q = *state;
	const char *o = sim_param_str(sim, "order");
	const char *v = sim_param_str(sim, "victim");
	int oi = pick(o, orders, 3), vi = pick(v, victims, 3);
	if (oi < 0) {
		snprintf(err->msg, sizeof(err->msg), "order must be fifo, sjf "
			 "or las, got '%s'", o);
		return -1;
	}
	if (vi < 0) {
		snprintf(err->msg, sizeof(err->msg), "victim must be newest, "
			 "priority or progress, got '%s'", v);
		return -1;
	}
	q->nt = sim_tenant_count(sim);
	q->order = (enum q_order)oi;
	q->victim = (enum q_victim)vi;
	q->borrowing = sim_param_bool(sim, "borrowing");
	q->reclaim = sim_param_bool(sim, "reclaim");
	q->rebalance = sim_param_bool(sim, "rebalance");
	q->slots = sim_job_states(sim);
	q->ten = sim_alloc(sim, q->nt, sizeof(*q->ten));
	for (unsigned t = 0; t < q->nt; t++)
		q->ten[t] = sim_tenant(sim, t);
	q->wait = sim_alloc(sim, q->nt, sizeof(*q->wait));
	q->zero = sim_alloc(sim, q->nt, sizeof(*q->zero));
	q->blocked = sim_alloc(sim, q->nt, sizeof(*q->blocked));
	q->over = sim_alloc(sim, q->nt, sizeof(*q->over));
	q->cur = sim_alloc(sim, q->nt, sizeof(*q->cur));
	q->ny = q->nt && q->ten[0]->type_quota ? sim_gpu_types(sim) : 0;
	return 0;
}

static void quota_fini(struct sim *sim, void *state)
{
	struct quota *q = state;
	free(q->cand);
	free(q->vict);
}

/* A job that waits (again) joins its project's list in the queue order,
 * found from the back (arrivals come in submit order). */
static void enlist(struct quota *q, struct quota_job *s)
{
	struct q_list *ls = &q->wait[s->t];
	struct quota_job *o = ls->tail;
	while (o && before(q, s->job, o->job))
		o = o->prev;
	CLUSTERSIM_LIST_INSERT_AFTER(ls, o, s);
	q->zero[s->t] += !s->m;
}

static void quota_submitted(struct sim *sim, void *state, const struct job *j)
{
	struct quota *q = state;
	struct quota_job *s = &q->slots[j->idx];
	s->job = j;
	s->m = sim_job_milli(sim, j);
	s->t = sim_job_tenant(sim, j);
	if (q->nt && s->t >= 0)
		enlist(q, s);
}

static void quota_preempted(struct sim *sim, void *state, const struct job *j)
{
	struct quota *q = state;
	struct quota_job *s = &q->slots[j->idx];
	if (q->nt && s->t >= 0)
		enlist(q, s);
}

static void quota_started(struct sim *sim, void *state, const struct job *j)
{
	struct quota *q = state;
	struct quota_job *s = &q->slots[j->idx];
	s->started = sim_now(sim);
	if (!q->nt || s->t < 0)
		return;
	struct q_list *ls = &q->wait[s->t];
	if (q->cur[s->t] == s)
		q->cur[s->t] = s->next;
	CLUSTERSIM_LIST_REMOVE(ls, s);
	q->zero[s->t] -= !s->m;
}

/* Tenant t's quota, holding and limits on GPU type ty (ty < 0: all
 * types, the run's quotas being one number). */
static uint64_t quota_of(const struct sim_tenant *t, int ty)
{
	return ty < 0 ? t->quota : t->type_quota[ty];
}

static uint64_t used_of(const struct sim_tenant *t, int ty)
{
	return ty < 0 ? t->used : t->type_used[ty];
}

static uint64_t borrow_limit_of(const struct sim_tenant *t, int ty)
{
	return ty < 0 ? t->borrow_limit : t->type_borrow_limit[ty];
}

static uint64_t lend_limit_of(const struct sim_tenant *t, int ty)
{
	return ty < 0 ? t->lend_limit : t->type_lend_limit[ty];
}

/* Milli-GPUs tenant t holds above its quota on type ty (0 when within). */
static uint64_t over_on(const struct sim_tenant *t, int ty)
{
	uint64_t u = used_of(t, ty), k = quota_of(t, ty);
	return u > k ? u - k : 0;
}

/* ... and on all types together: the sum of each type's excess (with
 * one quota, the excess over it). */
static uint64_t over_of(const struct quota *q, const struct sim_tenant *t)
{
	if (!q->ny)
		return over_on(t, -1);
	uint64_t o = 0;
	for (unsigned y = 0; y < q->ny; y++)
		o += over_on(t, (int)y);
	return o;
}

/* Milli-GPUs idle on type ty (ty < 0: on the cluster). */
static uint64_t free_on(struct sim *sim, int ty)
{
	return (ty < 0 ? sim_free_units(sim)
		       : sim_gpu_type_free(sim, (unsigned)ty)) * 1000;
}

/* The types a job may count on, [*lo, *hi): its constraint's, or every
 * type; [-1, 0) when the quotas are one number. */
static void type_range(const struct quota *q, const struct job *j, int *lo,
		       int *hi)
{
	*lo = -1;
	*hi = 0;
	if (!q->ny)
		return;
	*lo = j->gpu_type ? j->gpu_type - 1 : 0;
	*hi = j->gpu_type ? j->gpu_type : (int)q->ny;
}

/* Does a job of demand m of tenant t stay within t's quota on ty? */
static bool within(const struct sim_tenant *t, int ty, uint64_t m)
{
	return used_of(t, ty) + m <= quota_of(t, ty);
}

/* Does the job fit now (on type ty), and start it there. */
static bool fits_on(struct sim *sim, const struct job *j, int ty)
{
	return ty < 0 || !j->gpus ? sim_job_fits(sim, j)
				  : sim_job_fits_on(sim, j, (unsigned)ty);
}

static bool start_on(struct sim *sim, const struct job *j, int ty)
{
	return (ty < 0 || !j->gpus ? sim_job_start(sim, j)
				   : sim_job_start_on(sim, j, (unsigned)ty)) == 0;
}

static int cmp_cand(const void *pa, const void *pb)
{
	const struct q_cand *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->key2 != b->key2)
		return a->key2 < b->key2 ? -1 : 1;
	return a->job->idx > b->job->idx ? -1 : a->job->idx < b->job->idx;
}

/* The running jobs that may be reclaimed from projects other than p on
 * type ty (ty < 0: any), sorted by the victim order; their count (0 on
 * no memory). */
static size_t candidates(struct sim *sim, struct quota *q, int p, int ty)
{
	size_t n = 0, nr = sim_running_len(sim);
	if (!clustersim_grow(&q->cand, &q->candcap, nr, sizeof(*q->cand)))
		return 0;
	for (size_t i = 0; i < nr; i++) {
		const struct job *r = sim_running_at(sim, i);
		const struct quota_job *s = &q->slots[r->idx];
		if (s->t < 0 || s->t == p || (r->flags & JOB_INTERACTIVE) ||
		    !s->m || !over_on(q->ten[s->t], ty) ||
		    (ty >= 0 && sim_job_quota_type(sim, r) != ty) ||
		    !sim_job_preemptible(sim, r))
			continue;
		double newest = -(double)s->started;
		struct q_cand *c = &q->cand[n++];
		c->job = r;
		c->key2 = newest;
		if (q->victim == V_PRIORITY)
			c->key = q->ten[s->t]->weight;
		else if (q->victim == V_PROGRESS)
			c->key = sim_job_unsaved(sim, r);
		else
			c->key = newest;
	}
	qsort(q->cand, n, sizeof(*q->cand), cmp_cand);
	return n;
}

/* The eligible victims among the n candidates, in q->vict in the victim
 * order: each taken only while its project is still over its quota (on
 * ty) with the victims taken before it (Kueue's rule); their count. */
static size_t eligible(struct quota *q, size_t n, int ty)
{
	size_t k = 0;
	if (!clustersim_grow(&q->vict, &q->victcap, n ? n : 1,
			     sizeof(*q->vict)))
		return 0;
	for (unsigned t = 0; t < q->nt; t++)
		q->over[t] = (int64_t)over_on(q->ten[t], ty);
	for (size_t i = 0; i < n; i++) {
		const struct job *r = q->cand[i].job;
		const struct quota_job *s = &q->slots[r->idx];
		if (q->over[s->t] <= 0)
			continue; /* no longer borrowing */
		q->over[s->t] -= (int64_t)s->m;
		q->vict[k++] = r;
	}
	return k;
}

/* Reclaims borrowed GPUs (of type ty; -1: any) for job j of project p,
 * which is within its quota there and does not fit; true when j then
 * started.  The victims are the fewest, first in the victim order, whose
 * preemption lets j be placed (the engine's placement answers:
 * sim_job_fits_after): the eligible ones are taken in order until j
 * fits, then any of them whose release the placement does not need is
 * given back, the last in the order first.  If all the eligible victims
 * together would not let j be placed, nobody is preempted. */
static bool preempt_for(struct sim *sim, struct quota *q, const struct job *j,
			size_t n, int ty);

static bool reclaim_for(struct sim *sim, struct quota *q, const struct job *j,
			int p, int ty)
{
	bool any = false;
	for (unsigned t = 0; t < q->nt && !any; t++)
		any = q->ten[t]->parent >= 0 && (int)t != p &&
		      over_on(q->ten[t], ty) > 0;
	if (!any)
		return false; /* nobody borrows */
	size_t n = eligible(q, candidates(sim, q, p, ty), ty);
	return preempt_for(sim, q, j, n, ty);
}

/* Job j (on type ty) with victims among q->vict[0 .. n), in order: the
 * fewest first ones whose preemption lets j be placed, less those the
 * placement does not need (the last first); they are preempted and j
 * started.  Nobody is preempted when all n would not let j be placed.
 * true when j started. */
static bool preempt_for(struct sim *sim, struct quota *q, const struct job *j,
			size_t n, int ty)
{
	const struct job **v = q->vict;
	size_t take = 0;
	if (!sim_job_fits_after(sim, j, v, n, ty))
		return false;
	uint64_t got = free_on(sim, ty), m = sim_job_milli(sim, j);
	while (take < n && got < m) /* too few GPUs cannot fit */
		got += q->slots[v[take++]->idx].m;
	while (take < n && !sim_job_fits_after(sim, j, v, take, ty))
		take++;
	for (size_t i = take; i-- > 0;) { /* drop those not needed */
		const struct job *r = v[i];
		memmove(v + i, v + i + 1, (take - i - 1) * sizeof(*v));
		if (sim_job_fits_after(sim, j, v, take - 1, ty)) {
			take--;
			continue;
		}
		memmove(v + i + 1, v + i, (take - i - 1) * sizeof(*v));
		v[i] = r;
	}
	for (size_t i = 0; i < take; i++)
		sim_job_preempt(sim, v[i]);
	return fits_on(sim, j, ty) && start_on(sim, j, ty);
}

/* Milli-GPUs of idle GPUs (of type ty) that tenants other than p and its
 * department d withhold: the unused quota beyond their lend_limit. */
static uint64_t withheld(const struct quota *q, int p, int d, int ty)
{
	uint64_t w = 0;
	for (unsigned t = 0; t < q->nt; t++) {
		const struct sim_tenant *x = q->ten[t];
		uint64_t lend = lend_limit_of(x, ty), k = quota_of(x, ty);
		uint64_t u = used_of(x, ty);
		if ((int)t == p || (int)t == d || lend == SIM_TENANT_NO_LIMIT ||
		    u >= k)
			continue;
		if (k - u > lend)
			w += k - u - lend;
	}
	return w;
}

/* Would a job of demand m (project p) on type ty take p over its quota
 * there within p's and its department's borrow_limit? */
static bool borrow_limits_allow(const struct quota *q, uint64_t m, int p,
				int ty)
{
	const struct sim_tenant *pt = q->ten[p], *dt = q->ten[pt->parent];
	uint64_t pu = used_of(pt, ty), pk = quota_of(pt, ty);
	uint64_t du = used_of(dt, ty), dk = quota_of(dt, ty);
	uint64_t pl = borrow_limit_of(pt, ty), dl = borrow_limit_of(dt, ty);
	if (pu + m <= pk)
		return false; /* within quota: step 1's */
	if (pl != SIM_TENANT_NO_LIMIT && pu + m - pk > pl)
		return false;
	return !(du + m > dk && dl != SIM_TENANT_NO_LIMIT && du + m - dk > dl);
}

/* May a job of demand m (project p) start borrowing now on type ty? */
static bool may_borrow(struct sim *sim, const struct quota *q, uint64_t m,
		       int p, int ty)
{
	const struct sim_tenant *pt = q->ten[p];
	uint64_t pu = used_of(pt, ty), pk = quota_of(pt, ty);
	uint64_t above = pu + m - pk, free_m = free_on(sim, ty);
	if (!borrow_limits_allow(q, m, p, ty))
		return false;
	uint64_t borrowed = pu >= pk ? m : above;
	uint64_t hold = withheld(q, p, pt->parent, ty);
	return free_m >= hold && borrowed <= free_m - hold;
}

/* Step 1 for one job s of project p: 0 started, 1 not within quota on
 * any type it may use, 2 within quota but it cannot start even with a
 * reclaim (it blocks its project). */
static int within_one(struct sim *sim, struct quota *q, struct quota_job *s,
		      unsigned p)
{
	const struct sim_tenant *pt = q->ten[p];
	int lo, hi, first = -2;
	type_range(q, s->job, &lo, &hi);
	for (int ty = lo; ty < hi; ty++) {
		if (!within(pt, ty, s->m))
			continue;
		if (first == -2)
			first = ty;
		if (fits_on(sim, s->job, ty) && start_on(sim, s->job, ty))
			return 0;
	}
	if (first == -2)
		return 1;
	for (int ty = first; q->reclaim && ty < hi; ty++)
		if (within(pt, ty, s->m) && reclaim_for(sim, q, s->job, (int)p,
							ty))
			return 0;
	return 2;
}

/* Steps 1 and 2 for project p: its jobs within quota in order, until
 * one that cannot start even with a reclaim blocks the rest. */
static void within_quota(struct sim *sim, struct quota *q, unsigned p)
{
	const struct sim_tenant *pt = q->ten[p];
	struct quota_job *s = q->wait[p].head, *next;
	q->blocked[p] = false;
	if (!q->ny && pt->used >= pt->quota && !q->zero[p])
		return; /* at its quota: no job of its is within */
	for (; s && !q->blocked[p]; s = next) {
		next = s->next; /* s leaves the list if it starts */
		q->blocked[p] = within_one(sim, q, s, p) == 2;
	}
}

/* Could job s of project p stay within its quota on a type it may use? */
static bool within_any(const struct quota *q, const struct quota_job *s,
		       unsigned p)
{
	int lo, hi;
	type_range(q, s->job, &lo, &hi);
	for (int ty = lo; ty < hi; ty++)
		if (within(q->ten[p], ty, s->m))
			return true;
	return false;
}

/* The next job of p that step 3 may consider (train, not larger than
 * what is idle, over quota), moving its cursor there; NULL when none. */
static struct quota_job *next_borrower(struct quota *q, unsigned p,
				       uint64_t free_m)
{
	struct quota_job *s = q->cur[p];
	while (s && (s->m > free_m || (s->job->flags & JOB_INTERACTIVE) ||
		     within_any(q, s, p)))
		s = s->next;
	q->cur[p] = s;
	return s;
}

/* Starts job s of project p borrowing, on the first type it may use
 * where the limits allow it and it fits. */
static void borrow_one(struct sim *sim, struct quota *q, struct quota_job *s,
		       unsigned p)
{
	int lo, hi;
	type_range(q, s->job, &lo, &hi);
	for (int ty = lo; ty < hi; ty++)
		if (may_borrow(sim, q, s->m, (int)p, ty) &&
		    fits_on(sim, s->job, ty) && start_on(sim, s->job, ty))
			return;
}

/* Step 3: the over-quota GPUs, the least served project per weight
 * first. */
static void borrow(struct sim *sim, struct quota *q)
{
	for (unsigned t = 0; t < q->nt; t++)
		q->cur[t] = q->blocked[t] || q->ten[t]->parent < 0
				    ? NULL : q->wait[t].head;
	for (;;) {
		uint64_t free_m = sim_free_units(sim) * 1000;
		int best = -1;
		double bkey = 0;
		for (unsigned t = 0; t < q->nt && free_m; t++) {
			struct quota_job *s = next_borrower(q, t, free_m);
			if (!s)
				continue;
			double key = (double)(over_of(q, q->ten[t]) + s->m) /
				     q->ten[t]->weight;
			if (best < 0 || key < bkey) {
				best = (int)t;
				bkey = key;
			}
		}
		if (best < 0)
			return;
		struct quota_job *s = q->cur[best];
		q->cur[best] = s->next;
		borrow_one(sim, q, s, (unsigned)best);
	}
}

/* Project t's share value on type ty with d milli-GPUs more (d may be
 * negative): its GPUs above its quota over its weight (Kueue's). */
static double share_of(const struct quota *q, unsigned t, int ty, int64_t d)
{
	int64_t u = (int64_t)used_of(q->ten[t], ty) + d;
	int64_t k = (int64_t)quota_of(q->ten[t], ty);
	return (double)(u > k ? u - k : 0) / q->ten[t]->weight;
}

/* The victims for borrowing job s of project p on type ty, in q->vict
 * in the victim order: running train jobs of other borrowers whose
 * project keeps a share value at least p's with s, without them and the
 * victims taken before (Kueue's LessThanOrEqualToFinalShare); their
 * count. */
static size_t fair_victims(struct sim *sim, struct quota *q,
			   const struct quota_job *s, unsigned p, int ty)
{
	size_t n = candidates(sim, q, (int)p, ty), k = 0;
	double mine = share_of(q, p, ty, (int64_t)s->m);
	if (!clustersim_grow(&q->vict, &q->victcap, n ? n : 1,
			     sizeof(*q->vict)))
		return 0;
	for (unsigned t = 0; t < q->nt; t++)
		q->over[t] = 0; /* milli-GPUs taken from t so far */
	for (size_t i = 0; i < n; i++) {
		const struct job *r = q->cand[i].job;
		const struct quota_job *rs = &q->slots[r->idx];
		int64_t less = q->over[rs->t] + (int64_t)rs->m;
		if (share_of(q, (unsigned)rs->t, ty, -less) < mine)
			continue;
		q->over[rs->t] = less;
		q->vict[k++] = r;
	}
	return k;
}

/* Step 4 for borrowing job s of project p: preempts other borrowers'
 * jobs by the share rule until s can be placed; true when s started. */
static bool rebalance_one(struct sim *sim, struct quota *q,
			  const struct quota_job *s, unsigned p)
{
	int lo, hi;
	type_range(q, s->job, &lo, &hi);
	for (int ty = lo; ty < hi; ty++) {
		if (!borrow_limits_allow(q, s->m, (int)p, ty) ||
		    fits_on(sim, s->job, ty))
			continue; /* what fits is step 3's to start or not */
		size_t n = fair_victims(sim, q, s, p, ty);
		if (n && preempt_for(sim, q, s->job, n, ty))
			return true;
	}
	return false;
}

/* p's first waiting job that could only borrow (train, over its quota
 * on every type it may use), NULL when none. */
static struct quota_job *first_borrower(const struct quota *q, unsigned p)
{
	struct quota_job *s = q->wait[p].head;
	while (s && ((s->job->flags & JOB_INTERACTIVE) || !s->m ||
		     within_any(q, s, p)))
		s = s->next;
	return s;
}

/* Step 4 (`rebalance`): a borrower whose job waits, and whose share
 * value with it would still be no more than another borrower's without
 * some of its jobs, takes GPUs from that one.  The project of least
 * share value after its start goes first; one whose first such job
 * cannot start is done for this point (a project is a queue). */
static void rebalance(struct sim *sim, struct quota *q)
{
	size_t guard = sim_running_len(sim) + sim_queue_len(sim);
	for (unsigned t = 0; t < q->nt; t++)
		q->cur[t] = q->blocked[t] || q->ten[t]->parent < 0
				    ? NULL : first_borrower(q, t);
	while (guard--) {
		int best = -1;
		double bkey = 0;
		for (unsigned t = 0; t < q->nt; t++) {
			if (!q->cur[t])
				continue;
			double key = (double)(over_of(q, q->ten[t]) +
					      q->cur[t]->m) / q->ten[t]->weight;
			if (best < 0 || key < bkey) {
				best = (int)t;
				bkey = key;
			}
		}
		if (best < 0)
			return;
		unsigned b = (unsigned)best;
		q->cur[b] = rebalance_one(sim, q, q->cur[b], b)
				    ? first_borrower(q, b) : NULL;
	}
}

static void quota_schedule(struct sim *sim, void *state)
{
	struct quota *q = state;
	if (!sim_queue_len(sim))
		return;
	if (!q->nt) { /* no tenants: one pool, a queue in its order */
		sim_start_head(sim);
		return;
	}
	for (unsigned t = 0; t < q->nt; t++)
		if (q->ten[t]->parent >= 0)
			within_quota(sim, q, t);
	if (q->borrowing)
		borrow(sim, q);
	if (q->borrowing && q->rebalance)
		rebalance(sim, q);
}

static const struct policy_param quota_params[] = {
	{ "order", PARAM_STRING, "fifo",
	  "queue order inside a project: fifo, sjf or las" },
	{ "victim", PARAM_STRING, "newest",
	  "which borrowing job a reclaim preempts first: newest, priority "
	  "(lowest project weight) or progress (least unsaved work)" },
	{ "borrowing", PARAM_BOOL, "true",
	  "start jobs above their project's quota on idle GPUs" },
	{ "reclaim", PARAM_BOOL, "true",
	  "preempt borrowing jobs for a project under its quota" },
	{ "rebalance", PARAM_BOOL, "false",
	  "preempt jobs of a borrower above its weighted share of the "
	  "over-quota GPUs for a borrower below it whose job waits" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(quota,
	.summary = "guaranteed GPU quotas per project with borrowing of idle "
		   "GPUs by weight and reclaim (Run:AI, Kueue)",
	.params = quota_params,
	.state_size = sizeof(struct quota),
	.job_state_size = sizeof(struct quota_job),
	.order = quota_order,
	.init = quota_init,
	.fini = quota_fini,
	.job_submitted = quota_submitted,
	.job_started = quota_started,
	.job_preempted = quota_preempted,
	.schedule = quota_schedule);
