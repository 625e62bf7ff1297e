/*
 * Starting jobs in an order a policy gives, and EASY backfilling around
 * it: the steps of the queue-ordering policies (sjf, wfp3, unicep,
 * f1-f4) and of any caller that ranks the waiting jobs itself, an
 * agent's choice included.
 *
 * sim_start_in_order walks the order and starts each job while it fits,
 * stopping at the first that does not (sim_start_head's step over any
 * order).  sim_backfill_easy does the same, then gives that job - the
 * head - a reservation at its shadow time, the earliest time the
 * free-resource profile has room for it for its estimate, and starts
 * every later job of the order, in the order, that fits now and cannot
 * delay the reservation: it ends (by its estimate) by the shadow time,
 * or it takes only "extra" units, those free at the shadow time beside
 * the head and not yet taken by a candidate started before it.  That is
 * policies/easy.c's rule, and its O(1) test: before the shadow time free
 * units only grow as jobs end, so fitting now is enough; from the
 * shadow time on the least free is at the shadow time itself.
 *
 * Units are the profile's (GPUs on a cluster with GPUs, else CPUs, or
 * nodes when nodes are exclusive); a candidate is started only when the
 * cluster's placement rule also finds it room (its CPUs beside its GPUs,
 * its GPU type), so no start is refused.  On a cluster with virtual
 * clusters sim_start_in_order keeps one queue per VC, and one for the
 * jobs of no VC, as sim_start_head does; sim_backfill_easy is not
 * offered there (one head and one pool of extra units do not describe
 * VCs), so it is a bad call that then starts in order without
 * backfilling.
 */
#include "engine/sim_impl.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Is j a job of the run still waiting?  If not, a bad call of `call`. */
static bool waiting(const struct sim *s, const struct job *j,
		    const char *call)
{
	if (!check_job(s, j, call))
		return false;
	if (j->state == JOB_PENDING)
		return true;
	bad_query(s, "called %s with job %lld, which is not waiting", call,
		  (long long)j->id);
	return false;
}

/* The in-order start on a cluster with VCs: a job that does not fit
 * blocks only the later jobs of its own queue (its VC, or the pool). */
static size_t start_in_order_vcs(struct sim *s, const struct job *const *o,
				 size_t n)
{
	uint32_t nvc = cluster_vc_count(s->cluster), nblocked = 0;
	bool *blocked = xcalloc(nvc + 1, sizeof(*blocked));
	size_t started = 0;
	for (size_t i = 0; i < n && nblocked <= nvc; i++) {
		const struct job *j = o[i];
		if (!waiting(s, j, "sim_start_in_order"))
			continue;
		int v = cluster_job_vc(s->cluster, j);
		uint32_t k = v < 0 ? nvc : (uint32_t)v;
		if (blocked[k])
			continue;
		if (!cluster_fits(s->cluster, j) || sim_job_start(s, j)) {
			blocked[k] = true;
			nblocked++;
		} else {
			started++;
		}
	}
	free(blocked);
	return started;
}

/* Starts o[*i], o[*i + 1], ... while each fits; *i is left at the first
 * waiting job that does not (n when none).  Returns how many started. */
static size_t start_prefix(struct sim *s, const struct job *const *o,
			   size_t n, size_t *i, const char *call)
{
	size_t started = 0;
	for (; *i < n; ++*i) {
		const struct job *j = o[*i];
		if (!waiting(s, j, call))
			continue;
		if (!cluster_fits(s->cluster, j) || sim_job_start(s, j))
			break;
		started++;
	}
	return started;
}

size_t sim_start_in_order(struct sim *s, const struct job *const *order,
			  size_t n)
{
	if (!s->in_schedule) {
		bad_query(s, "called sim_start_in_order outside schedule()");
		return 0;
	}
	if (!order)
		return sim_start_head(s);
	if (cluster_vc_count(s->cluster))
		return start_in_order_vcs(s, order, n);
	size_t i = 0;
	return start_prefix(s, order, n, &i, "sim_start_in_order");
}

/* The queue's own order, copied: starts move the queue under an index. */
static const struct job *const *queue_order(struct sim *s, size_t *n)
{
	xgrow(&s->border, &s->bordcap, s->qlen ? s->qlen : 1,
	      sizeof(*s->border));
	for (size_t i = 0; i < s->qlen; i++)
		s->border[i] = sim_queue_at(s, i);
	*n = s->qlen;
	return s->border;
}

size_t sim_backfill_easy(struct sim *s, const struct job *const *order,
			 size_t n)
{
	if (!s->in_schedule) {
		bad_query(s, "called sim_backfill_easy outside schedule()");
		return 0;
	}
	if (cluster_vc_count(s->cluster)) {
		bad_query(s, "called sim_backfill_easy on a cluster with "
			  "virtual clusters");
		return sim_start_in_order(s, order, n);
	}
	const struct job *const *o = order ? order : queue_order(s, &n);
	size_t i = 0;
	size_t started = start_prefix(s, o, n, &i, "sim_backfill_easy");
	if (i >= n)
		return started;

	/* The head's reservation, by the running jobs' estimates. */
	const struct job *head = o[i];
	struct profile *p = sim_profile(s);
	sim_time_t shadow = profile_earliest(p, head, head->estimate);
	uint64_t dh = units_demand(s->cluster, head);
	uint64_t at = shadow == SIM_TIME_MAX ? dh : profile_free_at(p, shadow);
	uint64_t extra = at > dh ? at - dh : 0;
	sim_shape_shadow(s, p, head, &shadow, &extra);
	sim_time_t horizon = shadow == SIM_TIME_MAX ? SIM_TIME_MAX
						    : shadow - s->now;
	uint64_t avail = units_free(s->cluster);

	/* The others, in the order: each starts if it cannot delay it. */
	for (i++; i < n; i++) {
		const struct job *j = o[i];
		if (!waiting(s, j, "sim_backfill_easy"))
			continue;
		uint64_t d = units_demand(s->cluster, j);
		bool ends_first = j->estimate <= horizon;
		if (d > avail || (!ends_first && d > extra) ||
		    !cluster_fits(s->cluster, j) || sim_job_start(s, j))
			continue;
		avail -= d;
		if (!ends_first)
			extra -= d;
		started++;
	}
	return started;
}

/* Whether j is placed in tp slots (cluster_shape.c): *sh its shape. */
static bool placed_shaped(const struct sim *s, const struct job *j,
			  struct place_shape *sh)
{
	return j->gpus && s->placement != PLACE_SHAPE_BLIND &&
	       !cluster_shape_blind(s->cluster) && job_shape(j, sh);
}

/* Node v's GPUs, held by a running job, come back to f[] (nodes the head
 * may not use have ok[v] false); *slots follows. */
static void give_back(const struct placement *pl, const bool *ok,
		      uint32_t *f, uint32_t tp, uint64_t *slots)
{
	for (uint32_t i = 0; i < pl->n; i++)
		for (uint32_t k = 0; k < pl->slots[i].count; k++) {
			uint32_t v = pl->slots[i].node + k;
			if (!ok[v])
				continue;
			*slots -= f[v] / tp;
			f[v] += pl->slots[i].gpus;
			*slots += f[v] / tp;
		}
}

void sim_shape_shadow(struct sim *s, struct profile *p,
		      const struct job *head, sim_time_t *t, uint64_t *extra)
{
	struct place_shape sh;
	if (!check_job(s, head, "sim_shape_shadow") || *t == SIM_TIME_MAX ||
	    s->npairs || cluster_vc_count(s->cluster) ||
	    !placed_shaped(s, head, &sh))
		return;
	uint32_t n = cluster_nodes(s->cluster);
	uint32_t *f = xcalloc(n ? n : 1, sizeof(*f));
	bool *ok = xcalloc(n ? n : 1, sizeof(*ok));
	uint64_t slots = 0, need = (uint64_t)sh.pp * sh.dp;
	for (uint32_t v = 0; v < n; v++) {
		ok[v] = !head->gpu_type || cluster_node_gpu_type(s->cluster,
					v) == (int)head->gpu_type - 1;
		f[v] = ok[v] ? cluster_node_free_gpus(s->cluster, v) : 0;
		slots += f[v] / sh.tp;
	}
	/* The running set is sorted by start + estimate; one past its
	 * estimate counts as ending at now + 1, as in the profile. */
	sim_time_t at = *t;
	size_t i = 0;
	for (;;) {
		for (; i < s->nrun; i++) {
			sim_time_t e = s->running[i].end;
			if ((e > s->now ? e : s->now + 1) > at)
				break;
			give_back(&s->plc[s->running[i].idx], ok, f, sh.tp,
				  &slots);
		}
		if (slots >= need || i == s->nrun)
			break;
		sim_time_t e = s->running[i].end;
		at = e > s->now ? e : s->now + 1;
	}
	free(ok);
	free(f);
	if (slots < need) { /* never, by the estimates */
		*t = SIM_TIME_MAX;
		*extra = 0;
		return;
	}
	if (at != *t) {
		uint64_t free_at = profile_free_at(p, at);
		uint64_t dh = units_demand(s->cluster, head);
		*extra = free_at > dh ? free_at - dh : 0;
		*t = at;
	}
	if (*extra > slots - need)
		*extra = slots - need;
}

/* Keys, then job index ((submit, id) order): a total order. */
int sim_backfill_param(struct sim *s, bool *backfill, struct sim_error *err)
{
	*backfill = sim_param_bool(s, "backfill");
	if (*backfill && cluster_vc_count(s->cluster))
		return err_setc(err, -1, "backfill: true is not supported on "
				"a cluster with virtual clusters");
	return 0;
}

size_t sim_start_queue(struct sim *s, bool backfill)
{
	return backfill ? sim_backfill_easy(s, NULL, 0) : sim_start_head(s);
}

bool sim_backfill_around(struct sim *s, const struct job *head)
{
	if (!waiting(s, head, "sim_backfill_around"))
		return false;
	size_t n;
	queue_order(s, &n);
	size_t k = 0;
	while (k < n && s->border[k] != head)
		k++;
	if (k == n) /* not in the queue the policy sees: a bad call */
		return sim_job_start(s, head) == 0;
	memmove(s->border + 1, s->border, k * sizeof(*s->border));
	s->border[0] = head;
	sim_backfill_easy(s, s->border, n);
	return head->state != JOB_PENDING;
}

static int by_key_then_idx(const void *pa, const void *pb)
{
	const struct rank_key *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

size_t sim_start_by(struct sim *s, sim_rank_key_fn key, bool backfill)
{
	if (!s->in_schedule) {
		bad_query(s, "called sim_start_by outside schedule()");
		return 0;
	}
	size_t n = s->qlen;
	xgrow(&s->rkeys, &s->rkcap, n ? n : 1, sizeof(*s->rkeys));
	xgrow(&s->border, &s->bordcap, n ? n : 1, sizeof(*s->border));
	for (size_t i = 0; i < n; i++) {
		const struct job *j = sim_queue_at(s, i);
		double k = key(s, s->pstate, j);
		s->rkeys[i] = (struct rank_key){ k == k ? k : INFINITY,
						 j->idx }; /* NaN: last */
	}
	if (n > 1)
		qsort(s->rkeys, n, sizeof(*s->rkeys), by_key_then_idx);
	for (size_t i = 0; i < n; i++)
		s->border[i] = &s->jobs[s->rkeys[i].idx];
	return backfill ? sim_backfill_easy(s, s->border, n)
			: sim_start_in_order(s, s->border, n);
}
