/*
 * Event queue: a 4-ary min-heap (shallower than a binary heap and kinder
 * to the cache: the four children of a node are adjacent) with a handle
 * table so that any queued event can be removed or moved in O(log n).
 * The order (time, phase, sequence) is total, so ties never depend on
 * memory layout.  The order of phases at one time is the engine's
 * same-time rule (evq_set_order): by default a job's end comes before a
 * submission at the same time.
 */
#include "engine/evq.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define ARITY 4
#define PHASE_SHIFT 56

static inline bool before(const struct evq_item *a, const struct evq_item *b)
{
	return a->t < b->t || (a->t == b->t && a->key < b->key);
}

void evq_init(struct evq *q)
{
	memset(q, 0, sizeof(*q));
	for (int i = 0; i < EV_NPHASES; i++)
		q->rank[i] = q->phase_at[i] = (uint8_t)i;
}

void evq_set_order(struct evq *q, const enum ev_phase order[EV_NPHASES])
{
	SIM_ASSERT(q->n == 0);
	for (int i = 0; i < EV_NPHASES; i++) {
		q->phase_at[i] = (uint8_t)order[i];
		q->rank[order[i]] = (uint8_t)i;
	}
}

void evq_release(struct evq *q)
{
	free(q->heap);
	free(q->pos);
	free(q->payload);
	free(q->freelist);
	memset(q, 0, sizeof(*q));
}

void evq_clear(struct evq *q)
{
	for (size_t i = 0; i < q->n; i++) {
		uint32_t h = q->heap[i].h;
		q->pos[h] = EVQ_NONE;
		q->freelist[q->nfree++] = h;
	}
	q->n = 0;
	q->seq = 0;
}

static inline void place(struct evq *q, size_t i, struct evq_item it)
{
	q->heap[i] = it;
	q->pos[it.h] = (uint32_t)i;
}

static void sift_up(struct evq *q, size_t i)
{
	struct evq_item it = q->heap[i];
	while (i > 0) {
		size_t parent = (i - 1) / ARITY;
		if (!before(&it, &q->heap[parent]))
			break;
		place(q, i, q->heap[parent]);
		i = parent;
	}
	place(q, i, it);
}

static void sift_down(struct evq *q, size_t i)
{
	struct evq_item it = q->heap[i];
	for (;;) {
		size_t first = i * ARITY + 1;
		if (first >= q->n)
			break;
		size_t last = first + ARITY < q->n ? first + ARITY : q->n;
		size_t best = first;
		for (size_t c = first + 1; c < last; c++)
			if (before(&q->heap[c], &q->heap[best]))
				best = c;
		if (!before(&q->heap[best], &it))
			break;
		place(q, i, q->heap[best]);
		i = best;
	}
	place(q, i, it);
}

static uint32_t new_handle(struct evq *q)
{
	if (q->nfree)
		return q->freelist[--q->nfree];
	size_t cap = q->hcap;
	xgrow(&q->pos, &cap, q->nhandles + 1, sizeof(*q->pos));
	cap = q->hcap;
	xgrow(&q->payload, &cap, q->nhandles + 1, sizeof(*q->payload));
	cap = q->hcap;
	xgrow(&q->freelist, &cap, q->nhandles + 1, sizeof(*q->freelist));
	q->hcap = cap;
	SIM_ASSERT(q->nhandles < EVQ_NONE);
	return (uint32_t)q->nhandles++;
}

uint32_t evq_push(struct evq *q, sim_time_t t, enum ev_phase ph,
		  uint32_t payload)
{
	uint32_t h = new_handle(q);
	q->payload[h] = payload;
	xgrow(&q->heap, &q->cap, q->n + 1, sizeof(*q->heap));
	struct evq_item it = {
		.t = t,
		.key = (uint64_t)q->rank[ph] << PHASE_SHIFT | q->seq++,
		.h = h,
	};
	q->heap[q->n] = it;
	q->pos[h] = (uint32_t)q->n;
	q->n++;
	sift_up(q, q->n - 1);
	return h;
}

bool evq_peek(const struct evq *q, sim_time_t *t, enum ev_phase *ph)
{
	if (!q->n)
		return false;
	*t = q->heap[0].t;
	*ph = (enum ev_phase)q->phase_at[q->heap[0].key >> PHASE_SHIFT];
	return true;
}

/* Takes the item at heap index i out, keeping the heap whole. */
static void take(struct evq *q, size_t i)
{
	uint32_t h = q->heap[i].h;
	q->pos[h] = EVQ_NONE;
	q->freelist[q->nfree++] = h;
	q->n--;
	if (i == q->n)
		return;
	struct evq_item last = q->heap[q->n];
	place(q, i, last);
	if (i > 0 && before(&last, &q->heap[(i - 1) / ARITY]))
		sift_up(q, i);
	else
		sift_down(q, i);
}

void evq_pop(struct evq *q, sim_time_t *t, enum ev_phase *ph,
	     uint32_t *payload)
{
	SIM_ASSERT(q->n > 0);
	const struct evq_item *top = &q->heap[0];
	*t = top->t;
	*ph = (enum ev_phase)q->phase_at[top->key >> PHASE_SHIFT];
	*payload = q->payload[top->h];
	take(q, 0);
}

bool evq_queued(const struct evq *q, uint32_t h)
{
	return h < q->nhandles && q->pos[h] != EVQ_NONE;
}

sim_time_t evq_time(const struct evq *q, uint32_t h)
{
	SIM_ASSERT(evq_queued(q, h));
	return q->heap[q->pos[h]].t;
}

void evq_remove(struct evq *q, uint32_t h)
{
	SIM_ASSERT(evq_queued(q, h));
	take(q, q->pos[h]);
}

void evq_move(struct evq *q, uint32_t h, sim_time_t t)
{
	SIM_ASSERT(evq_queued(q, h));
	size_t i = q->pos[h];
	struct evq_item *it = &q->heap[i];
	it->t = t;
	it->key = (it->key >> PHASE_SHIFT) << PHASE_SHIFT | q->seq++;
	/* The new key is larger in sequence; the time may go either way. */
	if (i > 0 && before(it, &q->heap[(i - 1) / ARITY]))
		sift_up(q, i);
	else
		sift_down(q, i);
}

int evq_check(const struct evq *q)
{
	for (size_t i = 0; i < q->n; i++) {
		if (q->pos[q->heap[i].h] != i)
			return -1;
		if (i > 0 && before(&q->heap[i], &q->heap[(i - 1) / ARITY]))
			return -1;
	}
	size_t queued = 0;
	for (size_t h = 0; h < q->nhandles; h++)
		queued += q->pos[h] != EVQ_NONE;
	return queued == q->n ? 0 : -1;
}
