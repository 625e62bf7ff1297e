/*
 * The single-pool free-resource profile (sim/engine/profile.c) against a
 * plain model written here, over thousands of random sequences of
 * profile_earliest, profile_reserve, profile_release, profile_fits,
 * profile_free_at and profile_earlier (asked of a reservation just made
 * where the job fits).  The profile keeps its steps in an array while they
 * are few and in a balanced tree past a limit (profile_steps.c); each
 * sequence runs on three profiles, the array alone, the tree alone and
 * one that switches a few steps in, and every answer of each must be
 * the model's.
 *
 * The model: the free units at time x are the free units now, plus the
 * demand of every running job whose expected end (clamped to now + 1)
 * is at or before x, less the demand of every reservation that holds x.
 * A demand fits from t for d when it fits at t and at every breakpoint
 * in (t, t + d); the earliest start is the least breakpoint (now, an end
 * or a reservation's bound) from which it fits.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "engine/sim.h"
#include "base/util.h"

#define PT_CPUS 64      /* the cluster: one node of 64 CPUs */
#define PT_RUN 40       /* running jobs */
#define PT_OPS 60       /* calls a sequence */
#define PT_JOBS (PT_RUN + PT_OPS)

/* A reservation of the model. */
struct pt_res {
	sim_time_t t, end;
	int64_t d;
	uint32_t job;
	sim_time_t dur;
	bool live;
};

struct pt_model {
	sim_time_t now;
	int64_t free_now;
	struct run_entry run[PT_RUN];
	size_t nrun;
	struct pt_res res[PT_OPS];
	size_t nres;
	const struct job *jobs;
};

static uint64_t pt_rng;

static uint64_t pt_next(void)
{
	pt_rng ^= pt_rng << 13;
	pt_rng ^= pt_rng >> 7;
	pt_rng ^= pt_rng << 17;
	return pt_rng;
}

static sim_time_t pt_end_of(sim_time_t t, sim_time_t d)
{
	return d > SIM_TIME_MAX - t ? SIM_TIME_MAX : t + d;
}

static sim_time_t run_end(const struct pt_model *m, size_t i)
{
	return m->run[i].end > m->now ? m->run[i].end : m->now + 1;
}

static int64_t m_free(const struct pt_model *m, sim_time_t x)
{
	int64_t f = m->free_now;
	for (size_t i = 0; i < m->nrun; i++)
		if (run_end(m, i) <= x)
			f += m->jobs[m->run[i].idx].cpus;
	for (size_t k = 0; k < m->nres; k++)
		if (m->res[k].live && m->res[k].t <= x && x < m->res[k].end)
			f -= m->res[k].d;
	return f;
}

static bool m_fits(const struct pt_model *m, int64_t d, sim_time_t t,
		   sim_time_t dur)
{
	sim_time_t end = pt_end_of(t, dur);
	if (m_free(m, t) < d)
		return false;
	for (size_t i = 0; i < m->nrun; i++) {
		sim_time_t e = run_end(m, i);
		if (e > t && e < end && m_free(m, e) < d)
			return false;
	}
	for (size_t k = 0; k < m->nres; k++) {
		const struct pt_res *r = &m->res[k];
		if (!r->live)
			continue;
		if (r->t > t && r->t < end && m_free(m, r->t) < d)
			return false;
		if (r->end > t && r->end < end && m_free(m, r->end) < d)
			return false;
	}
	return true;
}

static void m_try(const struct pt_model *m, int64_t d, sim_time_t dur,
		  sim_time_t c, sim_time_t *best)
{
	if (c >= m->now && c < *best && m_fits(m, d, c, dur))
		*best = c;
}

static sim_time_t m_earliest(const struct pt_model *m, int64_t d,
			     sim_time_t dur)
{
	sim_time_t best = SIM_TIME_MAX;
	if (d > PT_CPUS)
		return best;
	m_try(m, d, dur, m->now, &best);
	for (size_t i = 0; i < m->nrun; i++)
		m_try(m, d, dur, run_end(m, i), &best);
	for (size_t k = 0; k < m->nres; k++) {
		if (!m->res[k].live)
			continue;
		m_try(m, d, dur, m->res[k].t, &best);
		if (m->res[k].end != SIM_TIME_MAX)
			m_try(m, d, dur, m->res[k].end, &best);
	}
	return best;
}

static int by_end(const void *pa, const void *pb)
{
	const struct run_entry *a = pa, *b = pb;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* A duration: mostly short, sometimes 0 or so long the end saturates. */
static sim_time_t pt_dur(void)
{
	uint64_t r = pt_next() % 40;
	if (r == 0)
		return 0;
	if (r == 1)
		return SIM_TIME_MAX - 5;
	return 1 + (sim_time_t)(pt_next() % 400);
}

/* One random sequence, the same calls on every profile in p. */
static void pt_sequence(struct cluster *c, struct job *jobs,
			struct profile **p, size_t np)
{
	struct pt_model m = { .jobs = jobs };
	m.now = (sim_time_t)(pt_next() % 1000);
	m.nrun = pt_next() % PT_RUN;
	m.free_now = (int64_t)units_free(c);
	for (size_t i = 0; i < PT_JOBS; i++) {
		jobs[i].idx = (uint32_t)i;
		jobs[i].cpus = 1 + (uint32_t)(pt_next() % 24);
		if (pt_next() % 50 == 0)
			jobs[i].cpus = PT_CPUS + 1; /* never fits */
	}
	for (size_t i = 0; i < m.nrun; i++) {
		/* ends on a coarse grid, so that some coincide; some past */
		m.run[i].end = m.now - 20 + (sim_time_t)(pt_next() % 60) * 10;
		m.run[i].idx = (uint32_t)i;
	}
	qsort(m.run, m.nrun, sizeof(*m.run), by_end);
	for (size_t k = 0; k < np; k++)
		profile_build(p[k], c, m.now, jobs, m.run, m.nrun);
	for (size_t op = 0; op < PT_OPS; op++) {
		const struct job *j = &jobs[PT_RUN + op];
		int64_t d = j->cpus;
		sim_time_t dur = pt_dur();
		uint64_t what = pt_next() % 10;
		if (what < 5) { /* earliest, then reserve there or nearby */
			sim_time_t want = m_earliest(&m, d, dur);
			for (size_t k = 0; k < np; k++)
				cr_assert_eq(profile_earliest(p[k], j, dur), want,
					     "op %zu profile %zu", op, k);
			sim_time_t t = want != SIM_TIME_MAX ? want : m.now;
			if (what == 4)
				t = m.now + (sim_time_t)(pt_next() % 500);
			/* Where it fits, the job could start before t if
			 * it gave its room back exactly when its earliest
			 * start without it is before t. */
			bool ask = m_fits(&m, d, t, dur);
			m.res[m.nres++] = (struct pt_res){
				t, pt_end_of(t, dur), d, (uint32_t)(PT_RUN + op),
				dur, dur > 0 };
			for (size_t k = 0; k < np; k++) {
				profile_reserve(p[k], j, t, dur);
				if (ask)
					cr_assert_eq(profile_earlier(p[k], j, t,
								     dur),
						     want < t, "op %zu profile "
						     "%zu", op, k);
			}
		} else if (what < 7 && m.nres) { /* give one back */
			struct pt_res *r = &m.res[pt_next() % m.nres];
			if (!r->live)
				continue;
			r->live = false;
			for (size_t k = 0; k < np; k++)
				profile_release(p[k], &jobs[r->job], r->t,
						r->dur);
		} else { /* the read-only calls */
			sim_time_t t = m.now + (sim_time_t)(pt_next() % 700);
			bool fits = m_fits(&m, d, t, dur);
			int64_t f = m_free(&m, t);
			uint64_t fu = f > 0 ? (uint64_t)f : 0;
			for (size_t k = 0; k < np; k++) {
				cr_assert_eq(profile_fits(p[k], j, t, dur), fits,
					     "op %zu profile %zu", op, k);
				cr_assert_eq(profile_free_at(p[k], t), fu,
					     "op %zu profile %zu", op, k);
			}
		}
	}
}

Test(profile_tree, random_sequences_match_the_model)
{
	struct cluster_spec spec;
	memset(&spec, 0, sizeof(spec));
	spec.groups = xcalloc(1, sizeof(*spec.groups));
	spec.groups[0] = (struct node_group){ .name = xstrdup("n"),
					      .count = 1, .cpus = PT_CPUS };
	spec.ngroups = 1;
	struct cluster *c = cluster_new(&spec);
	cr_assert(c);
	struct job *jobs = xcalloc(PT_JOBS, sizeof(*jobs));
	/* The array alone, the tree alone, a switch a few steps in. */
	struct profile *p[3] = { profile_new(), profile_new(), profile_new() };
	profile_set_tree_at(p[0], SIZE_MAX);
	profile_set_tree_at(p[1], 1);
	profile_set_tree_at(p[2], 8);
	pt_rng = 0x2545f4914f6cdd1dull;
	for (int s = 0; s < 3000; s++)
		pt_sequence(c, jobs, p, 3);
	for (int k = 0; k < 3; k++)
		profile_free(p[k]);
	free(jobs);
	cluster_free(c);
	cluster_spec_release(&spec);
}

/* A long queue's worth of reservations: the tree takes over from the
 * array in the middle of a pass, and both still agree with the model on
 * every earliest start. */
Test(profile_tree, many_steps_switch_to_the_tree)
{
	struct cluster_spec spec;
	memset(&spec, 0, sizeof(spec));
	spec.groups = xcalloc(1, sizeof(*spec.groups));
	spec.groups[0] = (struct node_group){ .name = xstrdup("n"),
					      .count = 1, .cpus = PT_CPUS };
	spec.ngroups = 1;
	struct cluster *c = cluster_new(&spec);
	enum { NJ = 1500 };
	struct job *jobs = xcalloc(NJ, sizeof(*jobs));
	struct profile *arr = profile_new(), *tree = profile_new();
	profile_set_tree_at(arr, SIZE_MAX);
	profile_build(arr, c, 0, jobs, NULL, 0);
	profile_build(tree, c, 0, jobs, NULL, 0); /* the default limit */
	pt_rng = 7;
	for (size_t i = 0; i < NJ; i++) {
		jobs[i].idx = (uint32_t)i;
		jobs[i].cpus = 1 + (uint32_t)(pt_next() % PT_CPUS);
		sim_time_t dur = 1 + (sim_time_t)(pt_next() % 5000);
		sim_time_t a = profile_earliest(arr, &jobs[i], dur);
		cr_assert_eq(profile_earliest(tree, &jobs[i], dur), a,
			     "job %zu", i);
		profile_reserve(arr, &jobs[i], a, dur);
		profile_reserve(tree, &jobs[i], a, dur);
		sim_time_t t = (sim_time_t)(pt_next() % 100000);
		cr_assert_eq(profile_free_at(arr, t), profile_free_at(tree, t));
	}
	profile_free(arr);
	profile_free(tree);
	free(jobs);
	cluster_free(c);
	cluster_spec_release(&spec);
}

/* profile_earlier on a case worked by hand.  10 CPUs; A (6 CPUs) runs
 * until 100.  B (8 CPUs, 50 s) is reserved at 100: 4 CPUs free before,
 * so no.  F (4 CPUs, 120 s) at 150 (its earliest: B leaves 2 during
 * [100, 150), and [0, 100) is too short): no.  G (4 CPUs, 20 s), also
 * at 150: 2 free just before 150, too few, but [0, 20) holds 4: yes.
 * D (2 CPUs, 20 s) at 170: 10 - 4 = 6 free at 169, so D could start at
 * 169 and finish in its own room: yes.  A job reserved at now: no. */
Test(profile_tree, earlier_by_hand)
{
	struct cluster_spec spec;
	memset(&spec, 0, sizeof(spec));
	spec.groups = xcalloc(1, sizeof(*spec.groups));
	spec.groups[0] = (struct node_group){ .name = xstrdup("n"),
					      .count = 1, .cpus = 10 };
	spec.ngroups = 1;
	struct cluster *c = cluster_new(&spec);
	struct job jobs[5] = {
		{ .idx = 0, .cpus = 6 }, { .idx = 1, .cpus = 8 },
		{ .idx = 2, .cpus = 4 }, { .idx = 3, .cpus = 4 },
		{ .idx = 4, .cpus = 2 },
	};
	struct run_entry run = { .end = 100, .idx = 0 };
	struct placement a = { 0 };
	cr_assert_eq(cluster_alloc(c, &jobs[0], &a), 0); /* A runs */
	for (size_t tree = 0; tree < 2; tree++) {
		struct profile *p = profile_new();
		profile_set_tree_at(p, tree ? 1 : SIZE_MAX);
		profile_build(p, c, 0, jobs, &run, 1);
		profile_reserve(p, &jobs[1], 100, 50);
		cr_expect_not(profile_earlier(p, &jobs[1], 100, 50));
		cr_assert_eq(profile_earliest(p, &jobs[2], 120), 150);
		profile_reserve(p, &jobs[2], 150, 120);
		cr_expect_not(profile_earlier(p, &jobs[2], 150, 120));
		profile_reserve(p, &jobs[3], 150, 20);
		cr_expect(profile_earlier(p, &jobs[3], 150, 20));
		profile_reserve(p, &jobs[4], 170, 20);
		cr_expect(profile_earlier(p, &jobs[4], 170, 20));
		profile_reserve(p, &jobs[4], 0, 5);
		cr_expect_not(profile_earlier(p, &jobs[4], 0, 5));
		profile_free(p);
	}
	placement_release(&a);
	cluster_free(c);
	cluster_spec_release(&spec);
}

/* Could reservation r start earlier if it gave its room back?  By the
 * model: its earliest start without it is before its own. */
static bool m_earlier(struct pt_model *m, struct pt_res *r)
{
	r->live = false;
	bool can = m_earliest(m, r->d, r->dur) < r->t;
	r->live = true;
	return can;
}

/*
 * profile_earlier asked of every reservation in a row, as a compression
 * asks of each promise: the array keeps the runs of room of each demand
 * between calls while its steps stay the same (psteps_earlier), so the
 * answers of a row after the first come from kept runs.  Against the
 * model, and against the array that walks its steps at every call (the
 * way before the runs were kept) and the tree, on thousands of random
 * sequences where between rows one reservation moves to its earliest
 * start (as in a compression) or a new one is made.
 */
Test(profile_tree, earlier_in_a_row_matches_the_model)
{
	struct cluster_spec spec;
	memset(&spec, 0, sizeof(spec));
	spec.groups = xcalloc(1, sizeof(*spec.groups));
	spec.groups[0] = (struct node_group){ .name = xstrdup("n"),
					      .count = 1, .cpus = PT_CPUS };
	spec.ngroups = 1;
	struct cluster *c = cluster_new(&spec);
	struct job *jobs = xcalloc(PT_JOBS, sizeof(*jobs));
	struct profile *p[3] = { profile_new(), profile_new(), profile_new() };
	profile_set_tree_at(p[0], SIZE_MAX);
	profile_set_tree_at(p[1], SIZE_MAX);
	profile_set_walk_only(p[1], true);
	profile_set_tree_at(p[2], 1);
	pt_rng = 0x9e3779b97f4a7c15ull;
	size_t asked = 0, yes = 0;
	for (int s = 0; s < 600; s++) {
		struct pt_model m = { .jobs = jobs };
		m.now = (sim_time_t)(pt_next() % 1000);
		m.nrun = pt_next() % PT_RUN;
		m.free_now = (int64_t)units_free(c) - 40;
		for (size_t i = 0; i < PT_JOBS; i++) {
			jobs[i].idx = (uint32_t)i;
			/* few demands, so that rows share runs */
			jobs[i].cpus = 1u << (pt_next() % 5);
		}
		jobs[PT_RUN].cpus = 40;
		for (size_t i = 0; i < m.nrun; i++) {
			m.run[i].end = m.now + 1 +
				       (sim_time_t)(pt_next() % 60) * 10;
			m.run[i].idx = (uint32_t)i;
		}
		qsort(m.run, m.nrun, sizeof(*m.run), by_end);
		for (size_t k = 0; k < 3; k++) {
			profile_build(p[k], c, m.now, jobs, m.run, m.nrun);
			/* 40 CPUs busy until the end of time */
			profile_reserve(p[k], &jobs[PT_RUN], m.now,
					SIM_TIME_MAX);
		}
		for (size_t op = 0; op + 1 < PT_OPS; op++) {
			uint32_t ji = (uint32_t)(PT_RUN + 1 + op);
			const struct job *j = &jobs[ji];
			sim_time_t dur = 1 + (sim_time_t)(pt_next() % 300);
			uint64_t what = op < 20 || !m.nres ? 0 : pt_next() % 10;
			struct pt_res *r = m.nres ? &m.res[pt_next() % m.nres] :
					   NULL;
			if (what >= 7 && r->live) { /* one gives its room back */
				r->live = false;
				for (size_t k = 0; k < 3; k++)
					profile_release(p[k], &jobs[r->job],
							r->t, r->dur);
			} else if (what >= 4 && r->live) {
				/* one moves to its earliest start */
				r->live = false;
				sim_time_t t = m_earliest(&m, r->d, r->dur);
				for (size_t k = 0; k < 3; k++) {
					profile_release(p[k], &jobs[r->job],
							r->t, r->dur);
					profile_reserve(p[k], &jobs[r->job], t,
							r->dur);
				}
				r->t = t;
				r->end = pt_end_of(t, r->dur);
				r->live = true;
			} else { /* a new one at its earliest start */
				sim_time_t t = m_earliest(&m, j->cpus, dur);
				m.res[m.nres++] = (struct pt_res){
					t, pt_end_of(t, dur), j->cpus, ji, dur,
					true };
				for (size_t k = 0; k < 3; k++)
					profile_reserve(p[k], j, t, dur);
			}
			if (op < 20)
				continue;
			for (size_t q = 0; q < m.nres; q++) {
				struct pt_res *rq = &m.res[q];
				if (!rq->live)
					continue;
				bool want = m_earlier(&m, rq);
				for (size_t k = 0; k < 3; k++)
					cr_assert_eq(profile_earlier(
						p[k], &jobs[rq->job], rq->t,
						rq->dur), want,
						"seq %d op %zu res %zu profile "
						"%zu", s, op, q, k);
				asked++;
				yes += want;
			}
		}
	}
	/* both answers are common: the rows test something */
	cr_expect_gt(yes, asked / 50);
	cr_expect_lt(yes, asked / 2);
	for (int k = 0; k < 3; k++)
		profile_free(p[k]);
	free(jobs);
	cluster_free(c);
	cluster_spec_release(&spec);
}
