/*
 * Event queue: the total order (time, phase, insertion) pinned, removal
 * and moves by handle, and a randomised run against a sorted reference.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "engine/evq.h"

Test(evq, equal_times_pop_in_phase_then_insertion_order)
{
	struct evq q;
	evq_init(&q);
	/* Pushed out of order: at t = 5 a sample, a submit, two ends, a
	 * timer; one event at t = 3. */
	evq_push(&q, 5, EV_SAMPLE, 0);
	evq_push(&q, 5, EV_SUBMIT, 1);
	evq_push(&q, 5, EV_END, 2);
	evq_push(&q, 5, EV_TIMER, 3);
	evq_push(&q, 3, EV_SAMPLE, 4);
	evq_push(&q, 5, EV_END, 5);
	/* Expected: t=3 first whatever its phase, then the t=5 ends in
	 * insertion order (2 before 5), submit, timer, sample. */
	uint32_t want[] = { 4, 2, 5, 1, 3, 0 };
	for (size_t i = 0; i < 6; i++) {
		sim_time_t t;
		enum ev_phase ph;
		uint32_t p;
		evq_pop(&q, &t, &ph, &p);
		cr_assert_eq(p, want[i], "pop %zu: got %u want %u", i, p,
			     want[i]);
	}
	cr_assert_eq(evq_len(&q), 0);
	evq_release(&q);
}

Test(evq, remove_and_move_by_handle)
{
	struct evq q;
	evq_init(&q);
	uint32_t a = evq_push(&q, 10, EV_END, 1);
	uint32_t b = evq_push(&q, 20, EV_END, 2);
	uint32_t c = evq_push(&q, 30, EV_END, 3);
	evq_remove(&q, b);
	cr_assert(!evq_queued(&q, b));
	evq_move(&q, c, 5);   /* earlier: now first */
	evq_move(&q, a, 40);  /* later: now last */
	cr_assert_eq(evq_check(&q), 0);
	sim_time_t t;
	enum ev_phase ph;
	uint32_t p;
	evq_pop(&q, &t, &ph, &p);
	cr_assert_eq(p, 3);
	cr_assert_eq(t, 5);
	evq_pop(&q, &t, &ph, &p);
	cr_assert_eq(p, 1);
	cr_assert_eq(t, 40);
	evq_release(&q);
}

Test(evq, moved_event_goes_after_equal_keys)
{
	/* A move gives a fresh sequence number: like remove + push. */
	struct evq q;
	evq_init(&q);
	uint32_t a = evq_push(&q, 10, EV_END, 1);
	evq_push(&q, 10, EV_END, 2);
	evq_move(&q, a, 10);
	sim_time_t t;
	enum ev_phase ph;
	uint32_t p;
	evq_pop(&q, &t, &ph, &p);
	cr_assert_eq(p, 2);
	evq_pop(&q, &t, &ph, &p);
	cr_assert_eq(p, 1);
	evq_release(&q);
}

/* Reference: a plain array of live events, minimum found by a scan. */
struct ref {
	sim_time_t t;
	int ph;
	uint64_t seq;
	uint32_t h, payload;
	bool live;
};

static bool ref_before(const struct ref *a, const struct ref *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->ph != b->ph)
		return a->ph < b->ph;
	return a->seq < b->seq;
}

Test(evq, randomised_against_sorted_reference)
{
	struct evq q;
	evq_init(&q);
	enum { N = 20000 };
	struct ref *r = calloc(N, sizeof(*r));
	size_t nr = 0;
	uint64_t seq = 0;
	srand(12345);
	for (int step = 0; step < N; step++) {
		int op = rand() % 10;
		size_t live = 0;
		for (size_t i = 0; i < nr; i++)
			live += r[i].live;
		if (op < 5 || live == 0) {
			struct ref x = { .t = rand() % 200, .ph = rand() % 5,
					 .seq = seq++, .payload = (uint32_t)nr,
					 .live = true };
			x.h = evq_push(&q, x.t, (enum ev_phase)x.ph, x.payload);
			r[nr++] = x;
		} else {
			size_t k = (size_t)rand() % nr;
			while (!r[k].live)
				k = (k + 1) % nr;
			if (op < 7) { /* pop and compare with the minimum */
				size_t m = SIZE_MAX;
				for (size_t i = 0; i < nr; i++)
					if (r[i].live &&
					    (m == SIZE_MAX || ref_before(&r[i], &r[m])))
						m = i;
				sim_time_t t;
				enum ev_phase ph;
				uint32_t p;
				evq_pop(&q, &t, &ph, &p);
				cr_assert_eq(p, r[m].payload, "step %d", step);
				cr_assert_eq(t, r[m].t);
				r[m].live = false;
			} else if (op < 8) {
				evq_remove(&q, r[k].h);
				r[k].live = false;
			} else {
				r[k].t = rand() % 200;
				r[k].seq = seq++;
				evq_move(&q, r[k].h, r[k].t);
			}
		}
		if (step % 97 == 0)
			cr_assert_eq(evq_check(&q), 0);
	}
	free(r);
	evq_release(&q);
}
