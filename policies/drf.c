/*
 * drf: Dominant Resource Fairness across users (or groups), non-preemptive.
 *
 * What it does: a user's dominant share is the largest, over the cluster's
 * resources (CPUs and GPUs), of what the user's running jobs hold divided
 * by the cluster's capacity of that resource.  At each scheduling point
 * the policy repeatedly takes the user with the lowest dominant share
 * (ties: lower user id) among the users with a pending job that fits now,
 * starts that user's earliest pending job (queue order) that fits, updates
 * the share, and goes on until no pending job fits.  Nothing is preempted:
 * shares even out as jobs end and their resources go to whoever is
 * furthest behind.  A resource the cluster has none of is left out (on a
 * CPU cluster DRF is max-min fairness in CPUs).  A fractional-GPU job
 * (gpu_milli) holds its share of one GPU.  Jobs of an unknown user (-1)
 * are one anonymous user, -1 (so it wins ties).
 *
 * Shares are recomputed from the running jobs at every call, so they are
 * exact whatever happened in between.  Within one call resources only
 * shrink, so a job found not to fit is not looked at again: one call costs
 * O(running + pending) fit tests plus O(log users) per job started.
 *
 * Source: Ghodsi, Zaharia, Hindman, Konwinski, Shenker and Stoica,
 * "Dominant Resource Fairness: fair allocation of multiple resource
 * types", NSDI 2011 (the progressive-filling algorithm of section 4.1,
 * with a user's tasks taken as its pending jobs in queue order).
 *
 * Parameters:
 *   by   "user" (default): fairness across job->user;
 *        "group": across job->group (groups, virtual clusters).
 *
 * Example (the paper's, with GPUs for memory): one node of 9 CPUs and 18
 * GPUs; user 1 queues jobs of <1 CPU, 4 GPUs>, user 2 jobs of <3 CPUs,
 * 1 GPU>, all at 0.  Both shares are 0: user 1 (lower id) starts one, its
 * share is max(1/9, 4/18) = 2/9.  User 2 starts one: 3/9.  User 1: 4/9.
 * User 2: 6/9.  User 1: 6/9 (3 CPUs, 12 GPUs).  Now 9 CPUs are taken and
 * nothing fits: user 1 runs 3 jobs, user 2 runs 2, dominant shares equal
 * (2/3 each) - the paper's allocation.  FCFS would have started four of
 * user 1's jobs and none of user 2's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

#define DRF_NONE SIZE_MAX

/* One user (or group) as seen by the current call. */
struct drf_owner {
	int32_t key;      /* user or group id; -1 = unknown */
	uint64_t epoch;   /* the call that last reset the fields below */
	uint64_t cpus;    /* CPUs its running jobs hold */
	uint64_t mgpus;   /* thousandths of a GPU its running jobs hold */
	double share;     /* dominant share of what it holds */
	size_t head;      /* its first pending job not yet tried (an index
	                     into drf.cand), DRF_NONE when none */
	size_t tail;      /* its last pending job, while lists are built */
};

struct drf {
	bool by_group;             /* key is job->group, not job->user */
	uint64_t epoch;            /* calls so far */
	struct drf_owner *own;     /* every owner seen, sorted by key */
	size_t nown, owncap;
	const struct job **cand;   /* the pending queue at this call */
	size_t candcap;
	size_t *next;              /* next[i]: the owner's next pending job
	                              after cand[i], DRF_NONE at the end */
	size_t nextcap;
	size_t *heap;              /* owners with untried pending jobs: a
	                              min-heap of own[] indexes by (share, key) */
	size_t heapcap;
	double cap_cpus, cap_mgpus; /* capacities (0: resource left out) */
};

static int drf_init(struct sim *sim, void **state, struct sim_error *err)
{
	const char *by = sim_param_str(sim, "by");
	struct drf *d = calloc(1, sizeof(*d));
	if (!d)
		return -1;
	*state = d;
	if (strcmp(by, "group") == 0) {
		d->by_group = true;
	} else if (strcmp(by, "user") != 0) {
		snprintf(err->msg, sizeof(err->msg),
			 "by must be 'user' or 'group', got '%s'", by);
		return -1;
	}
	return 0;
}

static void drf_fini(struct sim *sim, void *state)
{
	struct drf *d = state;
	if (d) {
		free(d->own);
		free(d->cand);
		free(d->next);
		free(d->heap);
	}
	free(d);
}

/*
 * The owner record of a job, reset for this call if it was not yet;
 * NULL when out of memory.  Inserting may move the records: the pointer
 * is good until the next call.
 */
static struct drf_owner *drf_owner(struct drf *d, const struct job *j)
{
	int32_t key = d->by_group ? j->group : j->user;
	size_t lo = 0, hi = d->nown;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->own[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->nown || d->own[lo].key != key) {
		if (!clustersim_grow(&d->own, &d->owncap, d->nown + 1,
			      sizeof(*d->own)))
			return NULL;
		memmove(&d->own[lo + 1], &d->own[lo],
			(d->nown - lo) * sizeof(*d->own));
		d->nown++;
		d->own[lo] = (struct drf_owner){ .key = key };
	}
	struct drf_owner *o = &d->own[lo];
	if (o->epoch != d->epoch) {
		o->epoch = d->epoch;
		o->cpus = o->mgpus = 0;
		o->share = 0;
		o->head = o->tail = DRF_NONE;
	}
	return o;
}

/* Thousandths of a GPU that a job holds. */
static uint64_t drf_mgpus(const struct job *j)
{
	return (uint64_t)j->gpus * 1000 + (j->gpus ? 0 : j->gpu_milli);
}

static void drf_take(struct drf *d, struct drf_owner *o, const struct job *j)
{
	o->cpus += j->cpus;
	o->mgpus += drf_mgpus(j);
	double c = d->cap_cpus > 0 ? (double)o->cpus / d->cap_cpus : 0;
	double g = d->cap_mgpus > 0 ? (double)o->mgpus / d->cap_mgpus : 0;
	o->share = c > g ? c : g;
}

/* Does owner a come before owner b: lower share, then lower key? */
static bool drf_before(const struct drf *d, size_t a, size_t b)
{
	const struct drf_owner *x = &d->own[a], *y = &d->own[b];
	if (x->share != y->share)
		return x->share < y->share;
	return x->key < y->key;
}

static void drf_sift_down(struct drf *d, size_t n, size_t i)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1, r = l + 1;
		if (l < n && drf_before(d, d->heap[l], d->heap[m]))
			m = l;
		if (r < n && drf_before(d, d->heap[r], d->heap[m]))
			m = r;
		if (m == i)
			return;
		size_t t = d->heap[i];
		d->heap[i] = d->heap[m];
		d->heap[m] = t;
		i = m;
	}
}

/* Takes the running jobs and the pending queue of this call into the
 * owner records; false when out of memory. */
static bool drf_collect(struct sim *sim, struct drf *d)
{
	size_t n = sim_queue_len(sim);
	if (!clustersim_grow(&d->cand, &d->candcap, n, sizeof(*d->cand)))
		return false;
	if (!clustersim_grow(&d->next, &d->nextcap, n, sizeof(*d->next)))
		return false;
	d->epoch++;
	for (size_t i = 0; i < sim_running_len(sim); i++) {
		const struct job *j = sim_running_at(sim, i);
		struct drf_owner *o = drf_owner(d, j);
		if (!o)
			return false;
		drf_take(d, o, j);
	}
	for (size_t i = 0; i < n; i++) {
		const struct job *j = sim_queue_at(sim, i);
		struct drf_owner *o = drf_owner(d, j);
		if (!o)
			return false;
		d->cand[i] = j;
		d->next[i] = DRF_NONE;
		if (o->tail == DRF_NONE)
			o->head = i;
		else
			d->next[o->tail] = i;
		o->tail = i;
	}
	return true;
}

static void drf_schedule(struct sim *sim, void *state)
{
	struct drf *d = state;
	if (sim_queue_len(sim) == 0)
		return;
	d->cap_cpus = (double)sim_capacity_cpus(sim);
	d->cap_mgpus = 1000.0 * (double)sim_capacity_gpus(sim);
	if (!drf_collect(sim, d) ||
	    !clustersim_grow(&d->heap, &d->heapcap, d->nown, sizeof(*d->heap))) {
		sim_start_head(sim); /* out of memory: at least keep going */
		return;
	}
	size_t nh = 0;
	for (size_t k = 0; k < d->nown; k++)
		if (d->own[k].epoch == d->epoch && d->own[k].head != DRF_NONE)
			d->heap[nh++] = k;
	for (size_t i = nh / 2; i-- > 0;)
		drf_sift_down(d, nh, i);

	/* Progressive filling: the owner furthest behind starts its first
	 * job that fits; an owner with none that fits drops out. */
	while (nh > 0) {
		struct drf_owner *o = &d->own[d->heap[0]];
		size_t i = o->head;
		while (i != DRF_NONE && (!sim_job_fits(sim, d->cand[i]) ||
					 sim_job_start(sim, d->cand[i]) != 0))
			i = d->next[i];
		if (i != DRF_NONE) {
			drf_take(d, o, d->cand[i]);
			o->head = d->next[i];
		} else {
			o->head = DRF_NONE;
		}
		if (o->head == DRF_NONE)
			d->heap[0] = d->heap[--nh];
		drf_sift_down(d, nh, 0);
	}
}

static const struct policy_param drf_params[] = {
	{ "by", PARAM_STRING, "user",
	  "whose shares are evened out: \"user\" or \"group\"" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(drf,
	.summary = "dominant resource fairness: the user with the lowest "
		   "dominant share of CPUs and GPUs starts its next job",
	.params = drf_params,
	.init = drf_init,
	.fini = drf_fini,
	.schedule = drf_schedule);
