/*
 * The event queue: an array-backed 4-ary min-heap with handles.
 *
 * Events are totally ordered by (time, phase, insertion sequence), never by
 * pointer, so equal inputs replay identically.  Each event has a handle
 * that stays valid while it is queued, so an event can be removed or moved
 * in O(log n) (a job's end event moves when its rate changes or it is
 * preempted).  Moving an event gives it a fresh sequence number, as if it
 * had been removed and pushed again.
 */
#ifndef CLUSTERSIM_EVQ_H
#define CLUSTERSIM_EVQ_H

#include "clustersim/clustersim.h"

/* Phases at equal time, lowest first (docs/design.md, "The event loop"). */
enum ev_phase {
	EV_END = 0,    /* a job ends */
	EV_NODE = 1,   /* a node goes down or up */
	EV_SUBMIT = 2, /* a job is submitted */
	EV_TIMER = 3,  /* a policy's wake-up */
	EV_SAMPLE = 4, /* statistics sample: always last at its time */
	EV_NPHASES
};

#define EVQ_NONE UINT32_MAX

struct evq_item {
	sim_time_t t;   /* when */
	uint64_t key;   /* phase << 56 | insertion sequence */
	uint32_t h;     /* handle */
};

struct evq {
	struct evq_item *heap; /* the 4-ary heap */
	size_t n, cap;         /* items, allocated items */
	uint32_t *pos;         /* handle -> heap index, EVQ_NONE when free */
	uint32_t *payload;     /* handle -> caller's data (a job index) */
	uint32_t *freelist;    /* free handles */
	size_t nfree;
	size_t nhandles, hcap; /* handles ever made, allocated */
	uint64_t seq;          /* next insertion sequence */
	uint8_t rank[EV_NPHASES];     /* phase -> its place at equal times */
	uint8_t phase_at[EV_NPHASES]; /* the inverse */
};

void evq_init(struct evq *q);
void evq_release(struct evq *q);
/* The order of phases at equal times, first to last (a permutation of
 * the phases; the default is their numeric order).  Set before the first
 * push. */
void evq_set_order(struct evq *q, const enum ev_phase order[EV_NPHASES]);
/* Empties the queue, keeping its storage. */
void evq_clear(struct evq *q);

static inline size_t evq_len(const struct evq *q) { return q->n; }

/* Queues an event; returns its handle. */
uint32_t evq_push(struct evq *q, sim_time_t t, enum ev_phase ph,
		  uint32_t payload);
/* The first event's time and phase; false when empty. */
bool evq_peek(const struct evq *q, sim_time_t *t, enum ev_phase *ph);
/* Removes the first event; its handle is freed. */
void evq_pop(struct evq *q, sim_time_t *t, enum ev_phase *ph,
	     uint32_t *payload);
/* Removes a queued event by handle. */
void evq_remove(struct evq *q, uint32_t h);
/* Moves a queued event to time t (same phase, fresh sequence). */
void evq_move(struct evq *q, uint32_t h, sim_time_t t);
/* Is this handle queued? */
bool evq_queued(const struct evq *q, uint32_t h);
sim_time_t evq_time(const struct evq *q, uint32_t h);

/* Invariant: the heap property and the handle table agree.  0 or -1. */
int evq_check(const struct evq *q);

#endif
