/*
 * easy: EASY backfilling (the Extensible Argonne Scheduling sYstem).
 *
 * What it does: jobs start in queue order while the head fits.  When the
 * head does not fit, it gets a reservation at the earliest time enough
 * resources will be free by the running jobs' estimates (the "shadow
 * time").  A later job may then start now if it fits now and does not
 * delay that reservation: either it ends (by its estimate) by the shadow
 * time, or it uses only resources that the head will not need at the
 * shadow time (the "extra" resources).  Only the head is protected; other
 * waiting jobs may be delayed.  A running job already past its estimate
 * is expected to end at the next microsecond.
 *
 * The shadow time and the extra resources come from the engine's
 * free-resource profile (the running jobs' expected ends).  The test on a
 * candidate is then O(1), and it is the same as asking the profile whether
 * the candidate fits during [now, now + estimate) beside the head's
 * reservation: before the shadow time free resources only grow as jobs
 * end, so fitting now is enough; from the shadow time on the least free
 * is at the shadow time itself, the extra resources.
 *
 * On a cluster partitioned into virtual clusters (docs/philly.md) each
 * VC's jobs, and the jobs of no VC, are a queue of their own (as in
 * sim_start_head), so there is one head per queue.  The O(1) rule above
 * assumes one pool: there a job of one VC may take pool GPUs that the
 * head of another needs, and GPUs of other VCs are no help.  So on such
 * a cluster EASY asks the engine's per-partition profile instead: in
 * queue order, each queue's first waiting job starts if the profile says
 * it may start now beside the heads reserved before it, else it is
 * reserved at its earliest time; then every other job starts now if it
 * fits during [now, now + estimate) beside all the heads' reservations.
 * With one partition that is the rule above.  The first step is not
 * sim_start_head, which would start a later head of one VC on pool GPUs
 * that an earlier head of another was promised.
 *
 * Source: Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995; Mu'alem
 * and Feitelson, "Utilization, predictability, workloads, and user runtime
 * estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 2001.
 * backfill_order "sjf" is EASY-SJBF (shortest job backfilled first),
 * Tsafrir, Etsion and Feitelson, IEEE TPDS 2007.
 *
 * Parameters:
 *   backfill_order  "queue" (default): candidates in queue order;
 *                   "sjf": shortest estimate first.
 *
 * Example (10 CPUs, estimates exact): A runs on 6 CPUs until 100.  Queue:
 * B asks 8 CPUs (50 s), C 4 CPUs (200 s), D 2 CPUs (20 s), in that order.
 * B does not fit: shadow time 100, extra = 10 - 8 = 2 CPUs.  C fits now
 * (4 free) but would end at 200 > 100 and needs 4 > 2 extra: not started.
 * D fits and ends at 20 <= 100: starts now.  At 100 A ends and B starts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

/* The head's reservation as the backfilling rule needs it. */
struct shadow {
	sim_time_t t;   /* the head's start by the running jobs' estimates */
	uint64_t extra; /* units free at t beside the head, not yet promised */
};

struct easy {
	bool sjf;                /* backfill shortest estimate first */
	const struct job **cand; /* candidates, for the sjf order */
	size_t cap;
	/*
	 * Incremental passes.  After a pass every job behind the head has
	 * been found unable to start.  Until a job ends (the only event that
	 * frees resources), that stays true: the head, its shadow time and
	 * the extra resources are unchanged and, as time goes on, "ends by
	 * the shadow time" only gets harder.  After a job ends it still
	 * holds while fewer units are free than the smallest of those jobs
	 * asks for, since none of them fits now.  Either way the next pass
	 * need only look at jobs submitted since.
	 */
	bool clean;              /* no job ended since the last pass */
	int64_t head_id;         /* the head at the last pass */
	size_t scanned;          /* queue length after the last pass */
	uint64_t min_wait;       /* smallest demand of the jobs the last pass
	                            left waiting behind the head (0: unknown) */
	struct shadow sh;        /* the head's reservation then */
	bool *blocked;           /* VC clusters: queue v has a head waiting */
	bool *seen;              /* VC clusters: queue v's head passed */
	uint32_t nq;             /* entries in blocked and seen */
};

static int easy_init(struct sim *sim, void **state, struct sim_error *err)
{
	const char *order = sim_param_str(sim, "backfill_order");
	struct easy *e = calloc(1, sizeof(*e));
	if (!e)
		return -1;
	*state = e;
	if (strcmp(order, "sjf") == 0) {
		e->sjf = true;
	} else if (strcmp(order, "queue") != 0) {
		snprintf(err->msg, sizeof(err->msg),
			 "backfill_order must be 'queue' or 'sjf', got '%s'",
			 order);
		return -1;
	}
	return 0;
}

static void easy_fini(struct sim *sim, void *state)
{
	struct easy *e = state;
	if (e) {
		free(e->cand);
		free(e->blocked);
		free(e->seen);
	}
	free(e);
}

static int by_estimate(const void *pa, const void *pb)
{
	const struct job *a = *(const struct job *const *)pa;
	const struct job *b = *(const struct job *const *)pb;
	if (a->estimate != b->estimate)
		return a->estimate < b->estimate ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/*
 * Starts j now if that cannot delay the head: it fits now, and it ends by
 * the shadow time or uses only extra units (which it then consumes).
 */
static bool try_backfill(struct sim *sim, struct easy *e,
			 const struct job *j, sim_time_t horizon,
			 uint64_t *avail)
{
	bool ends_first = j->estimate <= horizon;
	uint64_t d = sim_demand(sim, j);
	if (d > *avail || (!ends_first && d > e->sh.extra) ||
	    !sim_job_fits(sim, j) || sim_job_start(sim, j) != 0) {
		if (d < e->min_wait)
			e->min_wait = d;
		return false;
	}
	*avail -= d;
	if (!ends_first)
		e->sh.extra -= d;
	return true;
}

/* Makes room for n candidates; false when out of memory. */
static bool grow_cand(struct easy *e, size_t n)
{
	if (n <= e->cap)
		return true;
	free(e->cand);
	e->cap = 2 * n;
	e->cand = malloc(e->cap * sizeof(*e->cand));
	if (!e->cand)
		e->cap = 0;
	return e->cand != NULL;
}

/* The queue of a job on a cluster with VCs: its VC, or nq - 1. */
static uint32_t queue_of(struct sim *sim, const struct easy *e,
			 const struct job *j)
{
	int v = sim_job_vc(sim, j);
	return v < 0 ? e->nq - 1 : (uint32_t)v;
}

/* The pass on a cluster with virtual clusters (top of file). */
static void easy_schedule_vcs(struct sim *sim, struct easy *e)
{
	uint32_t nq = sim_vc_count(sim) + 1;
	if (nq != e->nq) {
		free(e->blocked);
		free(e->seen);
		e->blocked = calloc(nq, sizeof(*e->blocked));
		e->seen = calloc(nq, sizeof(*e->seen));
		e->nq = e->blocked && e->seen ? nq : 0;
		if (!e->nq)
			return;
	}
	memset(e->blocked, 0, nq * sizeof(*e->blocked));
	memset(e->seen, 0, nq * sizeof(*e->seen));
	sim_time_t now = sim_now(sim);
	struct profile *p = sim_profile(sim);
	/* The heads: start now or get a reservation. */
	for (size_t i = 0; i < sim_queue_len(sim);) {
		const struct job *j = sim_queue_at(sim, i);
		uint32_t q = queue_of(sim, e, j);
		if (e->blocked[q]) {
			i++;
			continue;
		}
		sim_time_t t = profile_earliest(p, j, j->estimate);
		if (t == now && sim_job_fits(sim, j) &&
		    sim_job_start(sim, j) == 0) {
			profile_reserve(p, j, now, j->estimate);
			continue; /* j left the queue: i names the next */
		}
		profile_reserve(p, j, t, j->estimate);
		e->blocked[q] = true;
		i++;
	}
	/* The others, in queue order or shortest first. */
	size_t n = 0;
	if (!grow_cand(e, sim_queue_len(sim)))
		return;
	for (size_t i = 0; i < sim_queue_len(sim); i++) {
		const struct job *j = sim_queue_at(sim, i);
		uint32_t q = queue_of(sim, e, j);
		if (!e->seen[q])
			e->seen[q] = true; /* the head: reserved above */
		else
			e->cand[n++] = j;
	}
	if (e->sjf)
		qsort(e->cand, n, sizeof(*e->cand), by_estimate);
	for (size_t i = 0; i < n && sim_free_units(sim); i++) {
		const struct job *j = e->cand[i];
		if (profile_fits(p, j, now, j->estimate) &&
		    sim_job_fits(sim, j) && sim_job_start(sim, j) == 0)
			profile_reserve(p, j, now, j->estimate);
	}
}

static void easy_finished(struct sim *sim, void *state, const struct job *j)
{
	((struct easy *)state)->clean = false;
}

static void easy_schedule(struct sim *sim, void *state)
{
	struct easy *e = state;
	if (sim_vc_count(sim)) {
		easy_schedule_vcs(sim, e);
		return;
	}
	size_t started = sim_start_head(sim);
	if (sim_queue_len(sim) < 2) {
		e->clean = false;
		return;
	}
	const struct job *head = sim_queue_at(sim, 0);
	bool same_head = started == 0 && head->id == e->head_id &&
			 e->scanned <= sim_queue_len(sim);
	size_t from = 1;
	if (same_head &&
	    (e->clean || sim_free_units(sim) < e->min_wait))
		from = e->scanned; /* the jobs left waiting still cannot start */
	else
		e->min_wait = UINT64_MAX;
	if (!e->clean || !same_head) {
		struct profile *p = sim_profile(sim);
		e->sh.t = profile_earliest(p, head, head->estimate);
		e->sh.extra = profile_free_at(p, e->sh.t) - sim_demand(sim, head);
	}

	/* A candidate ends by the shadow time if its estimate is within
	 * horizon; avail counts the units left as candidates start. */
	sim_time_t horizon = e->sh.t - sim_now(sim);
	uint64_t avail = sim_free_units(sim);
	if (!e->sjf) {
		for (size_t i = from; i < sim_queue_len(sim);) {
			if (avail == 0) {
				e->min_wait = 0; /* the rest were not looked at */
				break;
			}
			/* A started job leaves the queue: i then names the
			 * next one. */
			if (!try_backfill(sim, e, sim_queue_at(sim, i), horizon,
					  &avail))
				i++;
		}
	} else if (sim_queue_len(sim) > from) {
		size_t n = sim_queue_len(sim) - from;
		if (n > e->cap) {
			free(e->cand);
			e->cap = 2 * n;
			e->cand = malloc(e->cap * sizeof(*e->cand));
			if (!e->cand) {
				e->cap = 0;
				e->clean = false;
				e->scanned = SIZE_MAX; /* forget the pass */
				return;
			}
		}
		for (size_t i = 0; i < n; i++)
			e->cand[i] = sim_queue_at(sim, from + i);
		qsort(e->cand, n, sizeof(*e->cand), by_estimate);
		for (size_t i = 0; i < n; i++) {
			if (avail == 0) {
				e->min_wait = 0;
				break;
			}
			try_backfill(sim, e, e->cand[i], horizon, &avail);
		}
	}
	e->clean = true;
	e->head_id = head->id;
	e->scanned = sim_queue_len(sim);
}

static const struct policy_param easy_params[] = {
	{ "backfill_order", PARAM_STRING, "queue",
	  "order of backfill candidates: \"queue\" or \"sjf\"" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(easy,
	.summary = "EASY backfilling: the queue head gets a reservation; "
		   "later jobs start early if they do not delay it",
	.params = easy_params,
	.init = easy_init,
	.fini = easy_fini,
	.job_finished = easy_finished,
	.schedule = easy_schedule);
