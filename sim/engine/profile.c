/*
 * The free-resource profile that backfilling plans with: a step function
 * of free allocation units over time, from now on.  Step i holds free[i]
 * units during [t[i], t[i+1]); the last step lasts forever.  It starts
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
 */
#include <stdlib.h>
#include <string.h>

#include "engine/profile_vc.h"
#include "engine/sim.h"
#include "base/util.h"

struct profile {
	sim_time_t *t;     /* step start times, ascending, t[0] = now */
	int64_t *free;     /* free units during each step */
	size_t n, cap;     /* steps, allocated steps */
	uint64_t capacity; /* units of the whole cluster */
	const struct cluster *cluster; /* for demands */
	sim_time_t now;
	/* Running jobs not folded in yet: src[next..nsrc), by expected end. */
	const struct job *jobs;
	struct run_entry *src;
	size_t next, nsrc, srccap;
	bool monotone;     /* no reservation yet: free never decreases */
	bool parted;       /* the cluster has VCs: vc answers the calls */
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
	free(p->t);
	free(p->free);
	free(p->src);
	pprof_free(p->vc);
	free(p);
}

static void reserve_steps(struct profile *p, size_t want)
{
	size_t cap = p->cap;
	xgrow(&p->t, &cap, want, sizeof(*p->t));
	cap = p->cap;
	xgrow(&p->free, &cap, want, sizeof(*p->free));
	p->cap = cap;
}

void profile_build(struct profile *p, const struct cluster *c,
		   sim_time_t now, const struct job *jobs,
		   const struct run_entry *running, size_t n)
{
	reserve_steps(p, 1);
	xgrow(&p->src, &p->srccap, n, sizeof(*p->src));
	if (n)
		memcpy(p->src, running, n * sizeof(*p->src));
	p->jobs = jobs;
	p->next = 0;
	p->nsrc = n;
	p->cluster = c;
	p->capacity = units_capacity(c);
	p->now = now;
	p->t[0] = now;
	p->free[0] = (int64_t)units_free(c);
	p->n = 1;
	p->monotone = true;
	p->parted = false;
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

/* The expected end of a running job: start + estimate, or the next
 * microsecond once it is past its estimate. */
static sim_time_t src_end(const struct profile *p, size_t i)
{
	sim_time_t e = p->src[i].end;
	return e > p->now ? e : p->now + 1;
}

/* Folds in every running job expected to end at or before h. */
static void fold(struct profile *p, sim_time_t h)
{
	while (p->next < p->nsrc) {
		sim_time_t e = src_end(p, p->next);
		if (e > h)
			return;
		const struct job *j = &p->jobs[p->src[p->next++].idx];
		SIM_ASSERT(e >= p->t[p->n - 1]);
		if (e != p->t[p->n - 1]) {
			reserve_steps(p, p->n + 1);
			p->t[p->n] = e;
			p->free[p->n] = p->free[p->n - 1];
			p->n++;
		}
		p->free[p->n - 1] += (int64_t)units_demand(p->cluster, j);
	}
}

/* The step that holds time t (t >= t[0]), all ends up to t folded. */
static size_t step_at(struct profile *p, sim_time_t t)
{
	fold(p, t);
	if (p->n == 1 || t < p->t[1])
		return 0;
	size_t lo = 0, hi = p->n; /* t[lo] <= t < t[hi] */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static sim_time_t end_of(sim_time_t t, sim_time_t d)
{
	return d > SIM_TIME_MAX - t ? SIM_TIME_MAX : t + d;
}

uint64_t profile_free_at(struct profile *p, sim_time_t t)
{
	if (p->parted)
		return pprof_free_at(p->vc, t);
	SIM_ASSERT(t >= p->t[0]);
	int64_t f = p->free[step_at(p, t)];
	return f > 0 ? (uint64_t)f : 0;
}

/*
 * Does demand d fit during [t, end), where step i holds t?  Returns the
 * first step in that interval that is short of d, or p->n when it fits.
 */
static size_t first_short(struct profile *p, size_t i, sim_time_t end,
			  int64_t d)
{
	if (p->free[i] < d)
		return i;
	if (p->monotone)
		return p->n;
	fold(p, end);
	for (i++; i < p->n && p->t[i] < end; i++)
		if (p->free[i] < d)
			return i;
	return p->n;
}

bool profile_fits(struct profile *p, const struct job *job, sim_time_t t,
		  sim_time_t duration)
{
	if (p->parted)
		return pprof_fits(p->vc, job, t, duration);
	int64_t d = (int64_t)units_demand(p->cluster, job);
	return first_short(p, step_at(p, t), end_of(t, duration), d) == p->n;
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
	size_t i = 0;
	for (;;) {
		if (i >= p->n) {
			if (p->next == p->nsrc)
				break;
			fold(p, src_end(p, p->next)); /* one more step */
			continue;
		}
		/* A window that fails at step k fails for every start up to
		 * k: resume after it. */
		size_t k = first_short(p, i, end_of(p->t[i], duration), d);
		if (k == p->n)
			return p->t[i];
		i = k + 1;
	}
	return SIM_TIME_MAX; /* only when reservations overfill forever */
}

/* Makes t the start of a step; returns that step. */
static size_t split_at(struct profile *p, sim_time_t t)
{
	size_t k = step_at(p, t);
	if (p->t[k] == t)
		return k;
	reserve_steps(p, p->n + 1);
	memmove(&p->t[k + 2], &p->t[k + 1], (p->n - k - 1) * sizeof(*p->t));
	memmove(&p->free[k + 2], &p->free[k + 1],
		(p->n - k - 1) * sizeof(*p->free));
	p->t[k + 1] = t;
	p->free[k + 1] = p->free[k];
	p->n++;
	return k + 1;
}

void profile_reserve(struct profile *p, const struct job *job, sim_time_t t,
		     sim_time_t duration)
{
	if (p->parted) {
		pprof_reserve(p->vc, job, t, duration);
		return;
	}
	SIM_ASSERT(t >= p->t[0] && duration >= 0);
	if (duration == 0)
		return;
	int64_t d = (int64_t)units_demand(p->cluster, job);
	sim_time_t end = end_of(t, duration);
	p->monotone = false;
	fold(p, end);
	size_t i = split_at(p, t);
	if (end != SIM_TIME_MAX)
		split_at(p, end);
	for (; i < p->n && p->t[i] < end; i++)
		p->free[i] -= d;
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
	SIM_ASSERT(t >= p->t[0] && duration >= 0);
	if (duration == 0)
		return;
	/* The reservation made both ends steps, and steps never merge. */
	int64_t d = (int64_t)units_demand(p->cluster, job);
	sim_time_t end = end_of(t, duration);
	for (size_t i = step_at(p, t); i < p->n && p->t[i] < end; i++)
		p->free[i] += d;
}
