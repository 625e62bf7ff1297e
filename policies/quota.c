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
 *
 * Sources: Run:AI documentation, "The Run:ai Scheduler: concepts and
 * principles" (deserved quota, over-quota fair share by weight,
 * interactive vs training workloads, reclaim of over-quota jobs);
 * Kubernetes Kueue documentation, "Cluster Queue" (nominalQuota,
 * borrowingLimit, lendingLimit, cohorts) and "Preemption" (reclaim
 * within a cohort, candidates from ClusterQueues that borrow, ordered by
 * priority then most recently admitted) and "Fair Sharing" (weights).
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
	bool borrowing, reclaim;
	unsigned nt;                  /* tenants */
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
	q->slots = sim_job_states(sim);
	q->ten = sim_alloc(sim, q->nt, sizeof(*q->ten));
	for (unsigned t = 0; t < q->nt; t++)
		q->ten[t] = sim_tenant(sim, t);
	q->wait = sim_alloc(sim, q->nt, sizeof(*q->wait));
	q->zero = sim_alloc(sim, q->nt, sizeof(*q->zero));
	q->blocked = sim_alloc(sim, q->nt, sizeof(*q->blocked));
	q->over = sim_alloc(sim, q->nt, sizeof(*q->over));
	q->cur = sim_alloc(sim, q->nt, sizeof(*q->cur));
	return 0;
}

static void quota_fini(struct sim *sim, void *state)
{
	struct quota *q = state;
	free(q->cand);
}

/* A job that waits (again) joins its project's list in the queue order,
 * found from the back (arrivals come in submit order). */
static void enlist(struct quota *q, struct quota_job *s)
{
	struct q_list *ls = &q->wait[s->t];
	struct quota_job *o = ls->tail;
	while (o && before(q, s->job, o->job))
		o = o->prev;
	struct quota_job *after = o ? o->next : ls->head;
	s->prev = o;
	s->next = after;
	if (o)
		o->next = s;
	else
		ls->head = s;
	if (after)
		after->prev = s;
	else
		ls->tail = s;
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

/* Milli-GPUs tenant t holds above its quota (0 when within). */
static uint64_t over_of(const struct sim_tenant *t)
{
	return t->used > t->quota ? t->used - t->quota : 0;
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

/* The running jobs that may be reclaimed from projects other than p,
 * sorted by the victim order; their count (0 on no memory). */
static size_t candidates(struct sim *sim, struct quota *q, int p)
{
	size_t n = 0, nr = sim_running_len(sim);
	if (!clustersim_grow(&q->cand, &q->candcap, nr, sizeof(*q->cand)))
		return 0;
	for (size_t i = 0; i < nr; i++) {
		const struct job *r = sim_running_at(sim, i);
		const struct quota_job *s = &q->slots[r->idx];
		if (s->t < 0 || s->t == p || (r->flags & JOB_INTERACTIVE) ||
		    !s->m || !over_of(q->ten[s->t]) ||
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

/* Reclaims borrowed GPUs for job j of project p (which is within its
 * quota and does not fit); true when j then started. */
static bool reclaim_for(struct sim *sim, struct quota *q, const struct job *j,
			int p, uint64_t m)
{
	uint64_t free_m = sim_free_units(sim) * 1000;
	bool any = false;
	for (unsigned t = 0; t < q->nt && !any; t++)
		any = q->ten[t]->parent >= 0 && over_of(q->ten[t]) > 0 &&
		      (int)t != p;
	if (!any || free_m >= m)
		return false; /* nobody borrows, or a matter of placement */
	size_t n = candidates(sim, q, p), take = 0;
	for (unsigned t = 0; t < q->nt; t++)
		q->over[t] = (int64_t)over_of(q->ten[t]);
	uint64_t got = free_m;
	for (size_t i = 0; i < n && got < m; i++) {
		const struct job *r = q->cand[i].job;
		const struct quota_job *s = &q->slots[r->idx];
		if (q->over[s->t] <= 0)
			continue; /* no longer borrowing */
		q->over[s->t] -= (int64_t)s->m;
		got += s->m;
		q->cand[take++] = q->cand[i];
	}
	if (got < m)
		return false;
	for (size_t i = 0; i < take; i++)
		sim_job_preempt(sim, q->cand[i].job);
	return sim_job_fits(sim, j) && sim_job_start(sim, j) == 0;
}

/* Milli-GPUs of idle GPUs that tenants other than p and its department
 * d withhold: the unused quota beyond their lend_limit. */
static uint64_t withheld(const struct quota *q, int p, int d)
{
	uint64_t w = 0;
	for (unsigned t = 0; t < q->nt; t++) {
		const struct sim_tenant *x = q->ten[t];
		if ((int)t == p || (int)t == d ||
		    x->lend_limit == SIM_TENANT_NO_LIMIT || x->used >= x->quota)
			continue;
		uint64_t unused = x->quota - x->used;
		if (unused > x->lend_limit)
			w += unused - x->lend_limit;
	}
	return w;
}

/* May a job of demand m (project p) start borrowing now, free_m idle? */
static bool may_borrow(const struct quota *q, uint64_t m, int p,
		       uint64_t free_m)
{
	const struct sim_tenant *pt = q->ten[p], *dt = q->ten[pt->parent];
	uint64_t above = pt->used + m - pt->quota;
	if (pt->borrow_limit != SIM_TENANT_NO_LIMIT && above > pt->borrow_limit)
		return false;
	if (dt->used + m > dt->quota && dt->borrow_limit != SIM_TENANT_NO_LIMIT &&
	    dt->used + m - dt->quota > dt->borrow_limit)
		return false;
	uint64_t borrowed = pt->used >= pt->quota ? m : above;
	uint64_t hold = withheld(q, p, pt->parent);
	return free_m >= hold && borrowed <= free_m - hold;
}

/* Steps 1 and 2 for project p: its jobs within quota in order, until
 * one that cannot start even with a reclaim blocks the rest. */
static void within_quota(struct sim *sim, struct quota *q, unsigned p)
{
	const struct sim_tenant *pt = q->ten[p];
	struct quota_job *s = q->wait[p].head, *next;
	q->blocked[p] = false;
	if (pt->used >= pt->quota && !q->zero[p])
		return; /* at its quota: no job of its is within */
	for (; s && !q->blocked[p]; s = next) {
		next = s->next; /* s leaves the list if it starts */
		if (pt->used + s->m > pt->quota)
			continue;
		if (sim_job_fits(sim, s->job) && sim_job_start(sim, s->job) == 0)
			continue;
		if (q->reclaim && reclaim_for(sim, q, s->job, (int)p, s->m))
			continue;
		q->blocked[p] = true;
	}
}

/* The next job of p that step 3 may consider (train, not larger than
 * what is idle), moving its cursor there; NULL when none. */
static struct quota_job *next_borrower(struct quota *q, unsigned p,
				       uint64_t free_m)
{
	struct quota_job *s = q->cur[p];
	while (s && (s->m > free_m || (s->job->flags & JOB_INTERACTIVE) ||
		     q->ten[p]->used + s->m <= q->ten[p]->quota))
		s = s->next;
	q->cur[p] = s;
	return s;
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
			double key = (double)(over_of(q->ten[t]) + s->m) /
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
		if (may_borrow(q, s->m, best, free_m) && sim_job_fits(sim, s->job))
			sim_job_start(sim, s->job);
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
