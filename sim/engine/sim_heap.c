/*
 * A min-heap of jobs by a key that the policy sets, each job knowing its
 * place, so that a key is changed or a job taken out in O(log n): for
 * policies that keep bounds or due times of many jobs and look only at
 * the least, or at all those up to a limit (sim_heap_upto, which visits
 * only them and the places just past them).  Ties are broken by job
 * index, upwards or downwards as the heap was made, so that "every job
 * the limit job would not rank ahead of" is one cut of the heap's order.
 * The engine owns the memory (sim_alloc), sized to the simulation's jobs.
 */
#include "engine/sim_impl.h"

struct sim_heap {
	uint32_t *a;    /* job indices, a[0] least */
	uint32_t *pos;  /* pos[job] = its place + 1; 0 = not in the heap */
	double *key;    /* key[job], while in the heap */
	uint32_t *out;  /* sim_heap_upto's answer */
	size_t n;       /* jobs in the heap */
	bool down;      /* ties: the higher job index first */
};

struct sim_heap *sim_heap_new(struct sim *sim, bool ties_down)
{
	struct sim_heap *h = sim_alloc(sim, 1, sizeof(*h));
	size_t n = sim->njobs ? sim->njobs : 1;
	h->a = sim_alloc(sim, n, sizeof(*h->a));
	h->pos = sim_alloc(sim, n, sizeof(*h->pos));
	h->key = sim_alloc(sim, n, sizeof(*h->key));
	h->out = sim_alloc(sim, n, sizeof(*h->out));
	h->down = ties_down;
	return h;
}

/* Heap order of (key kx, job x) and (ky, y). */
static bool before(const struct sim_heap *h, double kx, uint32_t x,
		   double ky, uint32_t y)
{
	return kx < ky || (kx == ky && (h->down ? x > y : x < y));
}

static bool less_at(const struct sim_heap *h, uint32_t x, uint32_t y)
{
	return before(h, h->key[x], x, h->key[y], y);
}

static void place(struct sim_heap *h, size_t i, uint32_t x)
{
	h->a[i] = x;
	h->pos[x] = (uint32_t)i + 1;
}

static void sift_up(struct sim_heap *h, size_t i)
{
	uint32_t x = h->a[i];
	while (i > 0 && less_at(h, x, h->a[(i - 1) / 2])) {
		place(h, i, h->a[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	place(h, i, x);
}

static void sift_down(struct sim_heap *h, size_t i)
{
	uint32_t x = h->a[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && less_at(h, h->a[c + 1], h->a[c]))
			c++;
		if (!less_at(h, h->a[c], x))
			break;
		place(h, i, h->a[c]);
		i = c;
	}
	place(h, i, x);
}

void sim_heap_set(struct sim_heap *h, uint32_t job, double key)
{
	h->key[job] = key;
	if (!h->pos[job])
		place(h, h->n++, job);
	sift_up(h, h->pos[job] - 1);
	sift_down(h, h->pos[job] - 1);
}

void sim_heap_remove(struct sim_heap *h, uint32_t job)
{
	if (!h->pos[job])
		return;
	size_t i = h->pos[job] - 1;
	h->pos[job] = 0;
	uint32_t last = h->a[--h->n];
	if (i == h->n)
		return;
	place(h, i, last);
	sift_up(h, i);
	sift_down(h, h->pos[last] - 1);
}

bool sim_heap_top(const struct sim_heap *h, uint32_t *job, double *key)
{
	if (!h->n)
		return false;
	*job = h->a[0];
	*key = h->key[h->a[0]];
	return true;
}

size_t sim_heap_len(const struct sim_heap *h)
{
	return h->n;
}

void sim_heap_clear(struct sim_heap *h)
{
	for (size_t i = 0; i < h->n; i++)
		h->pos[h->a[i]] = 0;
	h->n = 0;
}

const uint32_t *sim_heap_upto(const struct sim_heap *h, double key,
			      uint32_t job, size_t *n)
{
	/* A walk down from the root that stops below the first place past
	 * the limit: its subtree is past it too.  The stack of places to
	 * visit is the answer array's free end. */
	size_t m = 0, top = h->n; /* out[top..h->n) holds places to visit */
	uint32_t *out = h->out;
	if (h->n)
		out[--top] = 0;
	while (top < h->n) {
		size_t i = out[top++];
		uint32_t x = h->a[i];
		if (before(h, key, job, h->key[x], x))
			continue;
		out[m++] = x;
		/* Room: m + (h->n - top) <= visited + pending <= h->n. */
		if (2 * i + 2 < h->n)
			out[--top] = (uint32_t)(2 * i + 2);
		if (2 * i + 1 < h->n)
			out[--top] = (uint32_t)(2 * i + 1);
	}
	*n = m;
	return out;
}
