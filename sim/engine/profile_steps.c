/*
 * The step function of the single-pool profile (profile_steps.h): the
 * array that profile.c always used, or the tree (profile_tree.c).
 *
 * Why both.  Most passes plan a short queue: tens to hundreds of steps
 * (about 80 on average for conservative on a generated workload at load
 * 0.95, 10^4 jobs), where one memmove and a scan of contiguous memory
 * cost a few times less than the tree's walks.  A long queue (thousands
 * of waiting jobs, each with a reservation, so thousands of steps)
 * makes each of those O(S) and a pass O(q S): there the tree's O(log S)
 * wins.  The switch happens when a step is added beyond the limit, once
 * a pass: the array's steps are joined into the tree in order.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/profile_steps.h"
#include "base/util.h"

void psteps_free(struct psteps *s)
{
	free(s->t);
	free(s->f);
	s->t = NULL;
	s->f = NULL;
	s->n = s->cap = 0;
	ptree_free(&s->tree);
	for (size_t k = 0; k < PSTEPS_RUNS; k++) {
		free(s->runs[k].run);
		s->runs[k] = (struct pruns){ 0 };
	}
}

static void room(struct psteps *s, size_t want)
{
	size_t cap = s->cap;
	xgrow(&s->t, &cap, want, sizeof(*s->t));
	cap = s->cap;
	xgrow(&s->f, &cap, want, sizeof(*s->f));
	s->cap = cap;
}

void psteps_reset(struct psteps *s, sim_time_t t, int64_t f, size_t limit)
{
	s->ver++; /* the runs kept are stale */
	room(s, 1);
	s->t[0] = t;
	s->f[0] = f;
	s->n = 1;
	s->hint = 0;
	s->big = false;
	s->limit = limit ? limit : PSTEPS_TREE_AT;
	s->last_t = t;
	s->last_f = f;
}

/* The array's step that holds t (t >= t[0]).  Calls come in runs about
 * one time (a window's start, its first short step, the next step with
 * room): the last answer and the step after it are tried first. */
static size_t step_at(struct psteps *s, sim_time_t t)
{
	if (t >= s->last_t)
		return s->n - 1;
	if (t < s->t[1])
		return 0;
	size_t h = s->hint;
	if (h + 1 < s->n && s->t[h] <= t) {
		if (t < s->t[h + 1])
			return h;
		if (h + 2 < s->n && t < s->t[h + 2])
			return s->hint = h + 1;
	}
	size_t lo = 0, hi = s->n; /* t[lo] <= t < t[hi] */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return s->hint = lo;
}

/* Moves the array's steps into the tree. */
static void to_tree(struct psteps *s)
{
	s->ver++; /* the runs kept are stale */
	ptree_reset(&s->tree, s->t[0], s->f[0]);
	for (size_t i = 1; i < s->n; i++)
		ptree_append(&s->tree, s->t[i], s->f[i]);
	s->big = true;
}

void psteps_trim(struct psteps *s, sim_time_t now)
{
	s->ver++; /* the runs kept are stale */
	if (s->big)
		return;
	size_t k = step_at(s, now), m = 1;
	s->t[0] = s->t[k];
	s->f[0] = s->f[k];
	for (size_t i = k + 1; i < s->n; i++) {
		if (s->f[i] == s->f[m - 1])
			continue;
		s->t[m] = s->t[i];
		s->f[m] = s->f[i];
		m++;
	}
	s->n = m;
	s->hint = 0;
	s->last_t = s->t[m - 1];
	s->last_f = s->f[m - 1];
}

int64_t psteps_value_at(struct psteps *s, sim_time_t t)
{
	if (t >= s->last_t)
		return s->last_f;
	return s->big ? ptree_value_at(&s->tree, t) : s->f[step_at(s, t)];
}

void psteps_append(struct psteps *s, sim_time_t t, int64_t f)
{
	SIM_ASSERT(t > s->last_t);
	s->last_t = t;
	s->last_f = f;
	if (!s->big && s->n >= s->limit)
		to_tree(s);
	if (s->big) {
		ptree_append(&s->tree, t, f);
		return;
	}
	room(s, s->n + 1);
	s->t[s->n] = t;
	s->f[s->n] = f;
	s->n++;
}

void psteps_split_at(struct psteps *s, sim_time_t t)
{
	s->ver++; /* the runs kept are stale */
	if (t > s->last_t) {
		psteps_append(s, t, s->last_f);
		return;
	}
	if (!s->big && s->n >= s->limit)
		to_tree(s);
	if (s->big) {
		ptree_split_at(&s->tree, t);
		return;
	}
	size_t k = step_at(s, t);
	if (s->t[k] == t)
		return;
	room(s, s->n + 1);
	memmove(&s->t[k + 2], &s->t[k + 1], (s->n - k - 1) * sizeof(*s->t));
	memmove(&s->f[k + 2], &s->f[k + 1], (s->n - k - 1) * sizeof(*s->f));
	s->t[k + 1] = t;
	s->f[k + 1] = s->f[k];
	s->n++;
	s->hint = k + 1;
}

void psteps_add(struct psteps *s, sim_time_t t, sim_time_t end, int64_t v)
{
	s->ver++; /* the runs kept are stale */
	if (t >= end || t > s->last_t)
		return;
	if (s->last_t < end)
		s->last_f += v;
	if (s->big) {
		ptree_add(&s->tree, t, end, v);
		return;
	}
	size_t i = step_at(s, t);
	if (s->t[i] < t)
		i++;
	for (; i < s->n && s->t[i] < end; i++)
		s->f[i] += v;
}

void psteps_take(struct psteps *s, sim_time_t t, sim_time_t end, int64_t v)
{
	s->ver++; /* the runs kept are stale */
	psteps_split_at(s, t);
	if (s->big || end > s->last_t) {
		if (end != SIM_TIME_MAX)
			psteps_split_at(s, end);
		psteps_add(s, t, end, v);
		return;
	}
	/* One walk from t's step: add until end, and split there. */
	size_t i = step_at(s, t);
	for (; s->t[i] < end; i++)
		s->f[i] += v; /* end <= last_t: the walk stops in the array */
	if (s->t[i] == end)
		return;
	room(s, s->n + 1);
	memmove(&s->t[i + 1], &s->t[i], (s->n - i) * sizeof(*s->t));
	memmove(&s->f[i + 1], &s->f[i], (s->n - i) * sizeof(*s->f));
	s->t[i] = end;
	s->f[i] = s->f[i - 1] - v; /* the step it splits, as it was */
	s->n++;
}

bool psteps_next(struct psteps *s, sim_time_t t, sim_time_t until,
		 int64_t d, bool below, sim_time_t *at)
{
	if (s->big)
		return ptree_next(&s->tree, t, until, d, below, at);
	for (size_t i = step_at(s, t) + 1; i < s->n && s->t[i] < until; i++) {
		if (below ? s->f[i] < d : s->f[i] >= d) {
			*at = s->t[i];
			s->hint = i;
			return true;
		}
	}
	return false;
}

bool psteps_run(struct psteps *s, sim_time_t from, sim_time_t until,
		int64_t d, sim_time_t len, bool *known)
{
	*known = !s->big;
	if (s->big || from >= until)
		return false;
	/* One walk over contiguous steps, no searches: the array's case
	 * is a long queue's every promise at every compression. */
	sim_time_t rs = from;
	bool in = false;
	for (size_t i = step_at(s, from); i < s->n && s->t[i] < until; i++) {
		sim_time_t next = i + 1 < s->n && s->t[i + 1] < until ?
				  s->t[i + 1] : until;
		if (s->f[i] < d) {
			in = false;
			continue;
		}
		if (!in) {
			rs = s->t[i] > from ? s->t[i] : from;
			in = true;
		}
		if (next - rs >= len)
			return true;
	}
	return false;
}

/* The old walk (psteps_walk_only): value at t - 1, then psteps_run. */
static bool walk_earlier(struct psteps *s, sim_time_t from, sim_time_t t,
			 int64_t d, sim_time_t len)
{
	if (s->f[step_at(s, t - 1)] >= d)
		return true;
	bool known;
	return psteps_run(s, from, t, d, len, &known);
}

/* The kept runs of demand d from `from` (kept while the steps are the
 * same, appends aside), or else (*exact false) those of the largest
 * demand below d, or NULL. */
static struct pruns *runs_find(struct psteps *s, sim_time_t from, int64_t d,
			       bool *exact)
{
	struct pruns *below = NULL;
	*exact = false;
	for (size_t k = 0; k < PSTEPS_RUNS; k++) {
		struct pruns *r = &s->runs[k];
		if (r->ver != s->ver || r->from != from || r->d > d)
			continue;
		if (r->d == d) {
			*exact = true;
			return r;
		}
		if (!below || r->d > below->d)
			below = r;
	}
	return below;
}

/* New runs of demand d from `from`, in the next slot. */
static struct pruns *runs_new(struct psteps *s, sim_time_t from, int64_t d)
{
	struct pruns *r = &s->runs[s->runs_next];
	s->runs_next = (s->runs_next + 1) % PSTEPS_RUNS;
	r->ver = s->ver;
	r->d = d;
	r->from = from;
	r->next = step_at(s, from);
	r->in = false;
	r->n = 0;
	return r;
}

/* Adds the run [rs, end) to r. */
static void runs_push(struct pruns *r, sim_time_t rs, sim_time_t end)
{
	if (r->n == r->cap)
		xgrow(&r->run, &r->cap, r->n + 1, sizeof(*r->run));
	sim_time_t len = end - rs;
	if (r->n && r->run[r->n - 1].best > len)
		len = r->run[r->n - 1].best;
	r->run[r->n++] = (struct prun){ .start = rs, .end = end, .best = len };
}

/* Scans the steps that start before t into r's runs. */
static void runs_scan(struct psteps *s, struct pruns *r, sim_time_t t)
{
	const sim_time_t *st = s->t;
	const int64_t *sf = s->f;
	size_t i = r->next, n = s->n;
	int64_t d = r->d;
	bool in = r->in;
	sim_time_t rs = r->rs;
	for (; i < n && st[i] < t; i++) {
		if (sf[i] >= d) {
			if (!in)
				rs = st[i] > r->from ? st[i] : r->from;
			in = true;
		} else if (in) {
			in = false;
			runs_push(r, rs, st[i]);
		}
	}
	r->next = i;
	r->in = in;
	r->rs = rs;
}

/* psteps_earlier by the runs of r (scanned on as far as t needs). */
static bool runs_answer(struct psteps *s, struct pruns *r, sim_time_t t,
			sim_time_t len)
{
	runs_scan(s, r, t);
	/* The step that holds t - 1 starts before t, so it is scanned:
	 * it has room if the open run began before t, or a whole run
	 * does that holds t - 1.  Else every whole run that starts
	 * before t ends by t - 1, and one long enough is a window. */
	if (r->in && r->rs < t)
		return true;
	size_t lo = 0, hi = r->n; /* the runs that start before t: [0, lo) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->run[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	return r->run[lo - 1].end >= t || r->run[lo - 1].best >= len;
}

bool psteps_earlier(struct psteps *s, sim_time_t from, sim_time_t t,
		    int64_t d, sim_time_t len, bool *known)
{
	*known = !s->big;
	if (s->big || from >= t)
		return false;
	if (s->walk_only)
		return walk_earlier(s, from, t, d, len);
	/* Steps with room for d have room for any less: where the runs
	 * of a smaller demand hold no window, d's hold none either. */
	bool exact;
	struct pruns *r = runs_find(s, from, d, &exact);
	if (r && !exact && !runs_answer(s, r, t, len))
		return false;
	if (!exact)
		r = runs_new(s, from, d);
	return runs_answer(s, r, t, len);
}

void psteps_walk_only(struct psteps *s, bool on)
{
	s->walk_only = on;
}
