/*
 * The free-resource profile that backfilling plans with: a step function
 * of free allocation units over time, from now on.  A step holds its free
 * units from its start to the next step's; the last lasts forever.  It starts
 * from the cluster's free units now, gains each running job's demand at
 * its expected end, and loses a reservation's demand during the reserved
 * interval.  Times are integers, so "fits during [t, t + d)" is exact.
 *
 * Built lazily: sim_profile() only takes a copy of the running set (which
 * the engine keeps sorted by expected end); running jobs are folded into
 * the steps when a query first reaches their end.  EASY, which asks only
 * for the head's start, then costs the few job ends before it, not the
 * whole running set.  Until the first reservation the profile is
 * non-decreasing, so "fits from t on" is just "fits at t".
 *
 * On a cluster partitioned into virtual clusters one step function is
 * not enough (a job may use only its VC and the shared pool): there the
 * calls below hand over to profile_vc.c, one step function per VC and
 * one for the pool, whose top comment says what is exact and what is
 * conservative.  The single-pool path is unchanged but for one test of a
 * flag per call.
 *
 * The steps are a balanced search tree (profile_tree.c), so that every
 * call is O(log S) for S steps (the first step short of a demand after
 * a time is one walk, a reservation two insertions and one add to a run
 * of steps), apart from the running jobs it folds in and, in
 * profile_earliest, one walk per run of steps with room that is too
 * short for the job.  Conservative backfilling, which reserves every
 * waiting job at every pass, was quadratic in the queue with the array
 * of steps this replaces.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/profile_steps.h"
#include "engine/profile_vc.h"
#include "engine/sim.h"
#include "base/util.h"

struct profile {
	struct psteps steps; /* the step function (profile_steps.c) */
	uint64_t capacity; /* units of the whole cluster */
	const struct cluster *cluster; /* for demands */
	sim_time_t now;
	/* Running jobs not folded in yet: src[next..nsrc), by expected end. */
	const struct job *jobs;
	struct run_entry *src;
	size_t next, nsrc, srccap;
	uint64_t *held;    /* units each of src gives back (NULL: demand) */
	size_t heldcap;
	bool monotone;     /* no reservation yet: free never decreases */
	bool held_on;      /* held gives what src's jobs give back */
	bool parted;       /* the cluster has VCs: vc answers the calls */
	size_t tree_at;    /* steps beyond which the tree takes over (0:
	                      PSTEPS_TREE_AT); tests set it */
	struct pprof *vc;  /* the per-partition profile, made when needed */
};

struct profile *profile_new(void)
{
	return xcalloc(1, sizeof(struct profile));
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	psteps_free(&p->steps);
	free(p->src);
	free(p->held);
	pprof_free(p->vc);
	free(p);
}

void profile_build(struct profile *p, const struct cluster *c,
		   sim_time_t now, const struct job *jobs,
		   const struct run_entry *running, size_t n)
{
	profile_build_units(p, c, now, jobs, running, NULL, n,
			    (int64_t)units_free(c), units_capacity(c));
}

void profile_build_units(struct profile *p, const struct cluster *c,
			 sim_time_t now, const struct job *jobs,
			 const struct run_entry *running,
			 const uint64_t *held, size_t n, int64_t free_now,
			 uint64_t capacity)
{
	xgrow(&p->src, &p->srccap, n, sizeof(*p->src));
	if (n)
		memcpy(p->src, running, n * sizeof(*p->src));
	if (held) {
		xgrow(&p->held, &p->heldcap, n ? n : 1, sizeof(*p->held));
		if (n)
			memcpy(p->held, held, n * sizeof(*p->held));
	}
	p->held_on = held != NULL;
	p->jobs = jobs;
	p->next = 0;
	p->nsrc = n;
	p->cluster = c;
	p->capacity = capacity;
	p->now = now;
	psteps_reset(&p->steps, now, free_now, p->tree_at);
	p->monotone = true;
	p->parted = false;
}

void profile_set_tree_at(struct profile *p, size_t steps)
{
	p->tree_at = steps;
}

void profile_set_walk_only(struct profile *p, bool on)
{
	psteps_walk_only(&p->steps, on);
}

void profile_advance(struct profile *p, sim_time_t now)
{
	SIM_ASSERT(!p->parted && now >= p->now);
	p->now = now;
	psteps_trim(&p->steps, now);
}

void profile_build_parts(struct profile *p, const struct cluster *c,
			 sim_time_t now, const struct job *jobs,
			 const struct run_entry *running, size_t n,
			 const struct placement *plc)
{
	if (!p->vc)
		p->vc = pprof_new();
	pprof_build(p->vc, c, now, jobs, running, n, plc);
	p->parted = true;
}

void profile_forget(struct profile *p, const struct run_entry *e)
{
	SIM_ASSERT(!p->parted);
	int64_t d = (int64_t)units_demand(p->cluster, &p->jobs[e->idx]);
	size_t lo = p->next, hi = p->nsrc;
	while (lo < hi) { /* the first still to fold at or after e */
		size_t mid = lo + (hi - lo) / 2;
		const struct run_entry *m = &p->src[mid];
		if (m->end < e->end || (m->end == e->end && m->idx < e->idx))
			lo = mid + 1;
		else
			hi = mid;
	}
	p->monotone = false;
	if (lo < p->nsrc && p->src[lo].idx == e->idx) {
		/* not folded: it held its room at every step there is */
		memmove(&p->src[lo], &p->src[lo + 1],
			(p->nsrc - lo - 1) * sizeof(*p->src));
		p->nsrc--;
		psteps_take(&p->steps, p->now, SIM_TIME_MAX, d);
	} else if (e->end > p->now) {
		/* folded at its end, or reserved from its start to it */
		psteps_take(&p->steps, p->now, e->end, d);
	}
}

/* The expected end of a running job: start + estimate, or the next
 * microsecond once it is past its estimate. */
static sim_time_t src_end(const struct profile *p, size_t i)
{
	sim_time_t e = p->src[i].end;
	return e > p->now ? e : p->now + 1;
}

/* Folds in every running job expected to end at or before h: the
 * ends come in order, each at or after the latest step. */
static void fold(struct profile *p, sim_time_t h)
{
	struct psteps *tr = &p->steps;
	while (p->next < p->nsrc) {
		sim_time_t e = src_end(p, p->next);
		if (e > h)
			return;
		SIM_ASSERT(e >= tr->last_t);
		int64_t d = 0;
		do { /* the ends at e, as one step */
			size_t k = p->next++;
			const struct job *j = &p->jobs[p->src[k].idx];
			d += (int64_t)(p->held_on ? p->held[k]
					 : units_demand(p->cluster, j));
		} while (p->next < p->nsrc && src_end(p, p->next) == e);
		if (e > tr->last_t) {
			psteps_append(tr, e, tr->last_f + d);
		} else { /* a step at or after e is there already */
			psteps_take(tr, e, SIM_TIME_MAX, d);
		}
	}
}

static sim_time_t end_of(sim_time_t t, sim_time_t d)
{
	return d > SIM_TIME_MAX - t ? SIM_TIME_MAX : t + d;
}

uint64_t profile_free_at(struct profile *p, sim_time_t t)
{
	if (p->parted)
		return pprof_free_at(p->vc, t);
	SIM_ASSERT(t >= p->now);
	fold(p, t);
	int64_t f = psteps_value_at(&p->steps, t);
	return f > 0 ? (uint64_t)f : 0;
}

/*
 * Does demand d fit during [t, end)?  Returns true when it does, else
 * false with *short_at the start of the first step in that interval
 * that is short of d (t itself when the step that holds t is).
 */
static bool fits(struct profile *p, sim_time_t t, sim_time_t end, int64_t d,
		 sim_time_t *short_at)
{
	fold(p, t);
	*short_at = t;
	if (psteps_value_at(&p->steps, t) < d)
		return false;
	if (p->monotone)
		return true;
	fold(p, end);
	return !psteps_next(&p->steps, t, end, d, true, short_at);
}

bool profile_fits(struct profile *p, const struct job *job, sim_time_t t,
		  sim_time_t duration)
{
	if (p->parted)
		return pprof_fits(p->vc, job, t, duration);
	SIM_ASSERT(t >= p->now);
	int64_t d = (int64_t)units_demand(p->cluster, job);
	sim_time_t s;
	return fits(p, t, end_of(t, duration), d, &s);
}

/* The first step start after t with at least d units free, folding in
 * running jobs as far as needed; false when none ever is. */
static bool next_room(struct profile *p, sim_time_t t, int64_t d,
		      sim_time_t *at)
{
	struct psteps *tr = &p->steps;
	if (psteps_next(tr, t, SIM_TIME_MAX, d, false, at))
		return true;
	/* Every step after t is short: only a later end can help, and
	 * then at the latest step. */
	while (p->next < p->nsrc) {
		fold(p, src_end(p, p->next));
		if (tr->last_f >= d && tr->last_t > t) {
			*at = tr->last_t;
			return true;
		}
	}
	return false;
}

sim_time_t profile_earliest(struct profile *p, const struct job *job,
			    sim_time_t duration)
{
	if (p->parted)
		return pprof_earliest(p->vc, job, duration);
	uint64_t du = units_demand(p->cluster, job);
	if (du > p->capacity)
		return SIM_TIME_MAX;
	int64_t d = (int64_t)du;
	sim_time_t t = p->now, s;
	/* A window that fails at a step fails for every start up to it:
	 * resume at the first step after it with room. */
	while (!fits(p, t, end_of(t, duration), d, &s))
		if (!next_room(p, s, d, &t))
			return SIM_TIME_MAX; /* reservations overfill forever */
	return t;
}

/*
 * Could the job, reserved at t for duration, start before t if it gave
 * its reservation back?  A window [s, s + duration) that starts before t
 * and reaches past it needs room only during [s, t) (its part from t on
 * lies in the job's own room), so it exists exactly when the step that
 * holds t - 1 has room: then s = t - 1 fits.  Otherwise any window that
 * fits ends by t - 1, where the job's own reservation is not: a stretch
 * of steps before t with room, as long as the job.  On the array both
 * are read from the runs of steps with room for the job's demand, which
 * the array keeps between calls while its steps stay the same
 * (psteps_earlier): a compression asks this of every promise in a row,
 * and the promises of one demand share one walk of the steps, as far as
 * the latest of them, and a binary search each.  On the tree, the
 * search of profile_earliest, stopped at t.  On a cluster with VCs the
 * answer is always true (the caller plans the job again).
 */
bool profile_earlier(struct profile *p, const struct job *job, sim_time_t t,
		     sim_time_t duration)
{
	if (p->parted)
		return true;
	SIM_ASSERT(t >= p->now && duration >= 0);
	uint64_t du = units_demand(p->cluster, job);
	if (t == p->now || du > p->capacity)
		return false;
	int64_t d = (int64_t)du;
	fold(p, t - 1);
	bool known;
	bool can = psteps_earlier(&p->steps, p->now, t, d, duration, &known);
	if (known)
		return can;
	if (psteps_value_at(&p->steps, t - 1) >= d)
		return true;
	sim_time_t s = p->now, at;
	while (s < t && !fits(p, s, end_of(s, duration), d, &at))
		if (!next_room(p, at, d, &s))
			return false;
	return s < t;
}

void profile_reserve(struct profile *p, const struct job *job, sim_time_t t,
		     sim_time_t duration)
{
	if (p->parted) {
		pprof_reserve(p->vc, job, t, duration);
		return;
	}
	SIM_ASSERT(t >= p->now && duration >= 0);
	if (duration == 0)
		return;
	int64_t d = (int64_t)units_demand(p->cluster, job);
	sim_time_t end = end_of(t, duration);
	p->monotone = false;
	fold(p, end);
	psteps_take(&p->steps, t, end, -d);
}

void profile_reserve_units(struct profile *p, uint64_t units, sim_time_t t,
			   sim_time_t duration)
{
	if (p->parted || duration <= 0 || !units)
		return;
	SIM_ASSERT(t >= p->now);
	sim_time_t end = end_of(t, duration);
	p->monotone = false;
	fold(p, end);
	psteps_take(&p->steps, t, end, -(int64_t)units);
}

void profile_reserve_again(struct profile *p, const struct job *job,
			   sim_time_t t, sim_time_t duration)
{
	if (p->parted)
		pprof_reserve_kept(p->vc, job, t, duration, true);
	else
		profile_reserve(p, job, t, duration);
}

void profile_release(struct profile *p, const struct job *job, sim_time_t t,
		     sim_time_t duration)
{
	if (p->parted) {
		pprof_release(p->vc, job, t, duration);
		return;
	}
	SIM_ASSERT(t >= p->now && duration >= 0);
	if (duration == 0)
		return;
	/* A kept profile may have joined a bound into its neighbour
	 * (psteps_trim): both are made steps again. */
	int64_t d = (int64_t)units_demand(p->cluster, job);
	psteps_take(&p->steps, t, end_of(t, duration), d);
}
