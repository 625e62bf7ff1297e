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
 * Cost: each point walks the pending queue once and, in step 3, picks
 * the next project in O(projects); a reclaim walks the running jobs.
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

struct quota {
	enum q_order order;
	enum q_victim victim;
	bool borrowing, reclaim;
	unsigned nt;                  /* tenants */
	bool *blocked;                /* by tenant, this point */
	int64_t *over;                /* by tenant, scratch: milli-GPUs over
	                                 quota with the victims taken so far */
	uint32_t *first, *last;       /* by tenant: its step-3 list */
	const struct job **snap;      /* the pending jobs at this point */
	uint32_t *next;               /* snapshot index -> next of its list */
	size_t snapcap, nextcap;
	struct q_cand *cand;
	size_t candcap;
};

/* The policy's slot per job. */
struct quota_job {
	sim_time_t started;           /* its last (re)start */
};

#define Q_NONE UINT32_MAX

static int quota_order(void *state, const struct job *a, const struct job *b)
{
	const struct quota *q = state;
	if (q->order == O_SJF)
		return (a->estimate > b->estimate) - (a->estimate < b->estimate);
	if (q->order == O_LAS)
		return (a->attained > b->attained) - (a->attained < b->attained);
	return 0;
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
	q->blocked = sim_alloc(sim, q->nt, sizeof(*q->blocked));
	q->over = sim_alloc(sim, q->nt, sizeof(*q->over));
	q->first = sim_alloc(sim, q->nt, sizeof(*q->first));
	q->last = sim_alloc(sim, q->nt, sizeof(*q->last));
	return 0;
}

static void quota_fini(struct sim *sim, void *state)
{
	struct quota *q = state;
	free(q->snap);
	free(q->next);
	free(q->cand);
}

static void quota_started(struct sim *sim, void *state, const struct job *j)
{
	struct quota_job *s = sim_job_state(sim, j);
	s->started = sim_now(sim);
}

/* Milli-GPUs tenant t holds above its quota (0 when within). */
static uint64_t over_of(const struct sim_tenant *t)
{
	return t->used > t->quota ? t->used - t->quota : 0;
}

/* Would job j (of project p, demand m) stay within p's quota? */
static bool within(const struct sim_tenant *p, uint64_t m)
{
	return p->used + m <= p->quota;
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
		int t = sim_job_tenant(sim, r);
		if (t < 0 || t == p || (r->flags & JOB_INTERACTIVE) ||
		    !sim_job_milli(sim, r) ||
		    !over_of(sim_tenant(sim, (unsigned)t)) ||
		    !sim_job_preemptible(sim, r))
			continue;
		const struct quota_job *s = sim_job_state(sim, r);
		double newest = -(double)s->started;
		struct q_cand *c = &q->cand[n++];
		c->job = r;
		c->key2 = newest;
		if (q->victim == V_PRIORITY)
			c->key = sim_tenant(sim, (unsigned)t)->weight;
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
			int p)
{
	uint64_t m = sim_job_milli(sim, j), free_m = sim_free_units(sim) * 1000;
	bool any = false;
	for (unsigned t = 0; t < q->nt && !any; t++)
		any = sim_tenant(sim, t)->parent >= 0 &&
		      over_of(sim_tenant(sim, t)) > 0 && (int)t != p;
	if (!any || free_m >= m)
		return false; /* nobody borrows, or a matter of placement */
	size_t n = candidates(sim, q, p), take = 0;
	for (unsigned t = 0; t < q->nt; t++)
		q->over[t] = (int64_t)over_of(sim_tenant(sim, t));
	uint64_t got = free_m;
	for (size_t i = 0; i < n && got < m; i++) {
		const struct job *r = q->cand[i].job;
		int t = sim_job_tenant(sim, r);
		if (q->over[t] <= 0)
			continue; /* no longer borrowing */
		q->over[t] -= (int64_t)sim_job_milli(sim, r);
		got += sim_job_milli(sim, r);
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
static uint64_t withheld(struct sim *sim, const struct quota *q, int p, int d)
{
	uint64_t w = 0;
	for (unsigned t = 0; t < q->nt; t++) {
		const struct sim_tenant *x = sim_tenant(sim, t);
		if ((int)t == p || (int)t == d ||
		    x->lend_limit == SIM_TENANT_NO_LIMIT || x->used >= x->quota)
			continue;
		uint64_t unused = x->quota - x->used;
		if (unused > x->lend_limit)
			w += unused - x->lend_limit;
	}
	return w;
}

/* May job j (project p) start borrowing now? */
static bool may_borrow(struct sim *sim, const struct quota *q,
		       const struct job *j, int p)
{
	const struct sim_tenant *pt = sim_tenant(sim, (unsigned)p);
	const struct sim_tenant *dt = sim_tenant(sim, (unsigned)pt->parent);
	uint64_t m = sim_job_milli(sim, j);
	uint64_t above = pt->used + m - pt->quota;
	if (pt->borrow_limit != SIM_TENANT_NO_LIMIT && above > pt->borrow_limit)
		return false;
	if (dt->used + m > dt->quota && dt->borrow_limit != SIM_TENANT_NO_LIMIT &&
	    dt->used + m - dt->quota > dt->borrow_limit)
		return false;
	uint64_t borrowed = pt->used >= pt->quota ? m : above;
	uint64_t free_m = sim_free_units(sim) * 1000;
	uint64_t hold = withheld(sim, q, p, pt->parent);
	if (free_m < hold || borrowed > free_m - hold)
		return false;
	return sim_job_fits(sim, j);
}

/* Step 1 and 2 over the snapshot; links the jobs left for step 3. */
static void within_quota(struct sim *sim, struct quota *q, size_t n)
{
	for (unsigned t = 0; t < q->nt; t++) {
		q->blocked[t] = false;
		q->first[t] = q->last[t] = Q_NONE;
	}
	for (size_t i = 0; i < n; i++) {
		const struct job *j = q->snap[i];
		int p = sim_job_tenant(sim, j);
		uint64_t m = sim_job_milli(sim, j);
		q->next[i] = Q_NONE;
		if (p < 0 || q->blocked[p])
			continue;
		if (!within(sim_tenant(sim, (unsigned)p), m)) {
			if (!(j->flags & JOB_INTERACTIVE) && q->borrowing) {
				if (q->last[p] == Q_NONE)
					q->first[p] = (uint32_t)i;
				else
					q->next[q->last[p]] = (uint32_t)i;
				q->last[p] = (uint32_t)i;
			}
			continue;
		}
		if (sim_job_fits(sim, j) && sim_job_start(sim, j) == 0)
			continue;
		if (q->reclaim && reclaim_for(sim, q, j, p))
			continue;
		q->blocked[p] = true;
	}
}

/* Step 3: the over-quota GPUs, the least served project per weight
 * first. */
static void borrow(struct sim *sim, struct quota *q)
{
	for (;;) {
		int best = -1;
		double bkey = 0;
		for (unsigned t = 0; t < q->nt; t++) {
			if (q->first[t] == Q_NONE || q->blocked[t])
				continue;
			const struct sim_tenant *x = sim_tenant(sim, t);
			const struct job *j = q->snap[q->first[t]];
			double key = (double)(over_of(x) + sim_job_milli(sim, j)) /
				     x->weight;
			if (best < 0 || key < bkey) {
				best = (int)t;
				bkey = key;
			}
		}
		if (best < 0 || sim_free_units(sim) == 0)
			return;
		uint32_t i = q->first[best];
		const struct job *j = q->snap[i];
		q->first[best] = q->next[i];
		if (j->state == JOB_PENDING && may_borrow(sim, q, j, best))
			sim_job_start(sim, j);
	}
}

static void quota_schedule(struct sim *sim, void *state)
{
	struct quota *q = state;
	size_t n = sim_queue_len(sim);
	if (!n)
		return;
	if (!q->nt) { /* no tenants: one pool, a queue in its order */
		sim_start_head(sim);
		return;
	}
	if (!clustersim_grow(&q->snap, &q->snapcap, n, sizeof(*q->snap)) ||
	    !clustersim_grow(&q->next, &q->nextcap, n, sizeof(*q->next))) {
		sim_start_head(sim); /* no memory: degrade */
		return;
	}
	for (size_t i = 0; i < n; i++)
		q->snap[i] = sim_queue_at(sim, i);
	within_quota(sim, q, n);
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
	.job_started = quota_started,
	.schedule = quota_schedule);
