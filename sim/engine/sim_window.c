/*
 * The sliding window of samples that learning policies keep: the last
 * `cap` values seen (the services of the last finished jobs, from which
 * the Gittins policies learn their service distribution), held sorted as
 * values come and go, so that a policy reads a sorted distribution
 * without sorting it again at every decision.  Adding is a binary search
 * and one move of the array; once the window is full the oldest value
 * (the ring keeps the order they came in) leaves the same way.  The
 * engine owns the memory (sim_alloc), freed with the simulation.
 */
#include "engine/sim_impl.h"

#include <string.h>

struct sim_window {
	double *ring;   /* the values in the order they came */
	double *sorted; /* the same, ascending */
	size_t n, at, cap;
};

struct sim_window *sim_window_new(struct sim *sim, size_t cap)
{
	struct sim_window *w = sim_alloc(sim, 1, sizeof(*w));
	w->cap = cap ? cap : 1;
	w->ring = sim_alloc(sim, w->cap, sizeof(*w->ring));
	w->sorted = sim_alloc(sim, w->cap, sizeof(*w->sorted));
	return w;
}

/* Position of the first value in s[0..n) that is not below v. */
static size_t lower(const double *s, size_t n, double v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void sim_window_add(struct sim_window *w, double v)
{
	if (w->n == w->cap) {
		size_t i = lower(w->sorted, w->n, w->ring[w->at]);
		memmove(w->sorted + i, w->sorted + i + 1,
			(w->n - i - 1) * sizeof(*w->sorted));
		w->n--;
	}
	size_t i = lower(w->sorted, w->n, v);
	memmove(w->sorted + i + 1, w->sorted + i,
		(w->n - i) * sizeof(*w->sorted));
	w->sorted[i] = v;
	w->n++;
	w->ring[w->at] = v;
	w->at = (w->at + 1) % w->cap;
}

const double *sim_window_sorted(const struct sim_window *w, size_t *n)
{
	*n = w->n;
	return w->sorted;
}
