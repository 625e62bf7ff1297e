/*
 * The free-resource profile that backfilling plans with: a step function
 * of free allocation units over time, from now on.  Step i holds free[i]
 * units during [t[i], t[i+1]); the last step lasts forever.  It starts
 * from the cluster's free units now, gains each running job's demand at
 * its expected end, and loses a reservation's demand during the reserved
 * interval.  Times are integers, so "fits during [t, t + d)" is exact.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "util.h"

struct profile {
	sim_time_t *t;     /* step start times, ascending, t[0] = now */
	int64_t *free;     /* free units during each step */
	size_t n, cap;     /* steps, allocated steps */
	uint64_t capacity; /* units of the whole cluster */
	const struct cluster *cluster; /* for demands */
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
		   sim_time_t now, const sim_time_t *ends,
		   const uint64_t *demands, size_t n)
{
	reserve_steps(p, n + 1);
	p->cluster = c;
	p->capacity = cluster_capacity(c);
	p->t[0] = now;
	p->free[0] = (int64_t)cluster_free_units(c);
	p->n = 1;
	for (size_t i = 0; i < n; i++) {
		SIM_ASSERT(ends[i] > now);
		SIM_ASSERT(ends[i] >= p->t[p->n - 1]);
		if (ends[i] != p->t[p->n - 1]) {
			p->t[p->n] = ends[i];
			p->free[p->n] = p->free[p->n - 1];
			p->n++;
		}
		p->free[p->n - 1] += (int64_t)demands[i];
	}
}

uint64_t profile_demand(const struct profile *p, const struct job *job)
{
	return cluster_demand(p->cluster, job);
}

/* The step that holds time t (t >= t[0]). */
static size_t step_at(const struct profile *p, sim_time_t t)
{
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

uint64_t profile_free_at(const struct profile *p, sim_time_t t)
{
	SIM_ASSERT(t >= p->t[0]);
	int64_t f = p->free[t < (p->n > 1 ? p->t[1] : SIM_TIME_MAX)
				    ? 0 : step_at(p, t)];
	return f > 0 ? (uint64_t)f : 0;
}

/* First step from i on, within [.., end), whose free is below d; n if
 * none. */
static size_t first_short(const struct profile *p, size_t i, sim_time_t end,
			  int64_t d)
{
	for (; i < p->n && p->t[i] < end; i++)
		if (p->free[i] < d)
			return i;
	return p->n;
}

bool profile_fits(const struct profile *p, const struct job *job,
		  sim_time_t t, sim_time_t duration)
{
	int64_t d = (int64_t)profile_demand(p, job);
	size_t i = step_at(p, t);
	if (p->free[i] < d)
		return false;
	return first_short(p, i + 1, end_of(t, duration), d) == p->n;
}

sim_time_t profile_earliest(const struct profile *p, const struct job *job,
			    sim_time_t duration)
{
	uint64_t du = profile_demand(p, job);
	if (du > p->capacity)
		return SIM_TIME_MAX;
	int64_t d = (int64_t)du;
	size_t i = 0;
	while (i < p->n) {
		if (p->free[i] < d) {
			i++;
			continue;
		}
		size_t bad = first_short(p, i + 1, end_of(p->t[i], duration), d);
		if (bad == p->n)
			return p->t[i];
		i = bad + 1;
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
	SIM_ASSERT(t >= p->t[0] && duration >= 0);
	if (duration == 0)
		return;
	int64_t d = (int64_t)profile_demand(p, job);
	sim_time_t end = end_of(t, duration);
	size_t i = split_at(p, t);
	if (end != SIM_TIME_MAX)
		split_at(p, end);
	for (; i < p->n && p->t[i] < end; i++)
		p->free[i] -= d;
}
