/*
 * The per-partition free-resource profile (sim/engine/profile_vc.c) and EASY and
 * conservative backfilling on clusters with virtual clusters: a case
 * worked out by hand where the answer differs from the single-pool one,
 * and random workloads where the profile is compared, call by call, with
 * a brute-force per-second, per-partition plan written here, and, on a
 * cluster without a shared pool, every job must start no later than the
 * first time that plan gave it.  With a pool that does not hold: a job of
 * a VC is planned for every split the placement may give it, and when an
 * earlier job lands with a smaller share than planned, more is free at
 * the later job's start, so more splits are possible and its window may
 * no longer hold them (sim/engine/profile_vc.c); there only the profile's
 * answers are checked against the brute force.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "policy/registry.h"
#include "testlib.h"
#include "base/util.h"

extern const struct policy_ops clustersim_policy_easy;
extern const struct policy_ops clustersim_policy_conservative;

/* Groups of `count[i]` nodes x 4 GPUs (8 CPUs); vc[i] NULL = pool. */
static void pv_spec(struct cluster_spec *s, size_t n, const char *const *vc,
		    const uint32_t *count)
{
	memset(s, 0, sizeof(*s));
	s->groups = xcalloc(n, sizeof(*s->groups));
	s->ngroups = n;
	for (size_t i = 0; i < n; i++) {
		s->groups[i].name = xasprintf("g%zu", i);
		s->groups[i].count = count ? count[i] : 1;
		s->groups[i].cpus = 8;
		s->groups[i].gpus = 4;
		s->groups[i].gpu_type = xstrdup("p100");
		s->groups[i].vc = vc[i] ? xstrdup(vc[i]) : NULL;
	}
}

/* GPU jobs (tjob.cpus is the GPU count) of groups "A", "B", "C". */
static void pv_workload(struct workload *w, const struct tjob *t,
			const int32_t *group, size_t n)
{
	tl_workload(w, t, n);
	for (size_t i = 0; i < w->n; i++) {
		struct job *j = &w->jobs[i];
		j->gpus = j->cpus;
		j->cpus = 0;
		j->group = group[j->id - 1];
	}
	w->groups = xcalloc(3, sizeof(*w->groups));
	w->groups[0] = xstrdup("A");
	w->groups[1] = xstrdup("B");
	w->groups[2] = xstrdup("C");
	w->ngroups = 3;
}

/*
 * Nodes of 4 GPUs: n0 = VC A, n1 = VC B, n2 = the pool; C is no VC (pool
 * only).  Estimates exact.
 *   1: A, 0 s, 4 GPUs, 100 s: n0 at 0.   2: B, 0 s, 4 GPUs, 100 s: n1 at 0.
 *   3: A, 1 s, 8 GPUs, 50 s: A's head; A + pool = 8 free first at 100,
 *      reserved [100, 150) with 4 of A and 4 of the pool.
 *   4: B, 2 s, 4 GPUs, 200 s: B's head.  It fits now on the pool, but
 *      [2, 202) would take the pool job 3 needs at 100; at 100 B's node
 *      is free for [100, 300): starts 100.
 *   5: C, 3 s, 2 GPUs, 60 s: the pool's head; [3, 63) ends before 100:
 *      starts 3 on the pool.
 *   6: A, 4 s, 2 GPUs, 90 s: behind job 3; A is full, 2 pool GPUs free
 *      during [4, 94) (job 5 gives 2 back at 63), before job 3's 100:
 *      backfills at 4.
 *   7: B, 5 s, 1 GPU, 500 s: nothing free until 63, and every window
 *      from 63 crosses [100, 150) where the pool is job 3's and B is
 *      job 4's: the pool is free at 150 (job 3 ends): starts 150.
 * Conservative plans the same (every reservation above is also what it
 * gives in queue order, and 6 and 7 get no earlier slot).
 * On one shared pool of the same 12 GPUs (worked the same way): 3 gets
 * 100 (12 free then, 4 extra), 4 fits now and needs 4 <= 4 extra: 2;
 * then nothing is free until 150 for 5, 6 and 7: 0, 0, 100, 2, 150, 150,
 * 150 under both.
 */
Test(profile_vc, easy_and_conservative_by_hand)
{
	static const char *const vc[] = { "A", "B", NULL };
	static const char *const none[] = { NULL, NULL, NULL };
	struct tjob t[] = {
		{ 1, 0, 100, 100, 4 }, { 2, 0, 100, 100, 4 },
		{ 3, 1, 50, 50, 8 },   { 4, 2, 200, 200, 4 },
		{ 5, 3, 60, 60, 2 },   { 6, 4, 90, 90, 2 },
		{ 7, 5, 500, 500, 1 },
	};
	static const int32_t group[] = { 0, 1, 0, 1, 2, 0, 1 };
	static const double parted[] = { 0, 0, 100, 100, 3, 4, 150 };
	static const double pooled[] = { 0, 0, 100, 2, 150, 150, 150 };
	static const char *const pol[] = { "easy", "conservative" };
	struct workload w;
	struct cluster_spec c;

	pv_workload(&w, t, group, 7);
	for (size_t k = 0; k < 2; k++) {
		for (int shared = 0; shared < 2; shared++) {
			const double *want = shared ? pooled : parted;
			pv_spec(&c, 3, shared ? none : vc, NULL);
			struct sim *s = tl_run(pol[k], &w, &c);
			for (int64_t id = 1; id <= 7; id++)
				cr_expect_eq(tl_start(s, id), want[id - 1],
					     "%s%s: job %d starts at %g, not %g",
					     pol[k], shared ? " (one pool)" : "",
					     (int)id, tl_start(s, id),
					     want[id - 1]);
			sim_free(s);
			cluster_spec_release(&c);
		}
	}
	workload_release(&w);
}

/* ---- random workloads against a brute-force plan ---------------------- */

#define PV_H 6000 /* seconds of plan: more than any test run lasts */
#define PV_NP 3   /* partitions: A, B, the pool */

/* What the wrapped run records (one run at a time). */
struct pv_rec {
	const struct policy_ops *real; /* the policy being checked */
	bool heads_only;               /* EASY: only heads are reserved */
	double *first;                 /* first planned start, by idx */
	size_t calls;                  /* plans compared */
};
static struct pv_rec pv;

/* The partition of a job: its VC, or the pool. */
static int pv_part(const struct cluster *c, const struct job *j)
{
	int v = cluster_job_vc(c, j);
	return v < 0 ? PV_NP - 1 : v;
}

/*
 * The plan by brute force, one slot per second and partition: each job
 * (every one, or each queue's first) in queue order at the first second
 * s where, with a = min(d, free[own][s]) and b = min(d, free[pool][s]),
 * a + b >= d and every second of [s, s + estimate) keeps a of its VC and
 * b of the pool free; it then takes a and b there.  Compared with the
 * profile's answers to the same questions.
 */
static void pv_plan(struct sim *s)
{
	const struct cluster *c = sim_cluster(s);
	sim_time_t now = sim_now(s);
	int64_t (*f)[PV_H] = xcalloc(PV_NP, sizeof(*f));
	size_t nj;
	const struct job *jobs = sim_jobs(s, &nj);
	bool queue_seen[PV_NP] = { false };

	cr_assert_eq(now % SIM_SEC, 0);
	for (int v = 0; v < PV_NP; v++)
		for (int k = 0; k < PV_H; k++)
			f[v][k] = (int64_t)cluster_vc_free_gpus(
				c, v < PV_NP - 1 ? v : -1);
	for (size_t i = 0; i < nj; i++) {
		const struct job *j = &jobs[i];
		if (j->state != JOB_RUNNING)
			continue;
		const struct placement *pl = sim_job_placement(s, j);
		sim_time_t e = sim_expected_end(s, j);
		cr_assert_eq(e % SIM_SEC, 0);
		int64_t from = (e - now) / SIM_SEC;
		for (uint32_t k = 0; k < pl->n; k++) {
			int v = cluster_node_vc(c, pl->slots[k].node);
			v = v < 0 ? PV_NP - 1 : v;
			for (int64_t x = from; x < PV_H; x++)
				f[v][x] += pl->slots[k].gpus *
					   pl->slots[k].count;
		}
	}
	struct profile *p = sim_profile(s);
	for (size_t q = 0; q < sim_queue_len(s); q++) {
		const struct job *j = sim_queue_at(s, q);
		int v = pv_part(c, j), pool = PV_NP - 1;
		if (pv.heads_only) {
			if (queue_seen[v])
				continue;
			queue_seen[v] = true;
		}
		int64_t d = j->gpus, len = j->estimate / SIM_SEC, at = -1;
		int64_t a = 0, b = 0;
		for (int64_t x = 0; x + len < PV_H && at < 0; x++) {
			a = v == pool ? 0 : (f[v][x] < d ? f[v][x] : d);
			b = f[pool][x] < d ? f[pool][x] : d;
			a = a < 0 ? 0 : a;
			b = b < 0 ? 0 : b;
			if (v == pool) {
				a = 0;
				b = d;
			}
			if (v != pool && a + b < d)
				continue;
			bool ok = true;
			for (int64_t y = x; y < x + len && ok; y++)
				ok = (!a || f[v][y] >= a) &&
				     (!b || f[pool][y] >= b);
			if (ok)
				at = x;
		}
		cr_assert_geq(at, 0, "job %d has no plan", (int)j->id);
		sim_time_t got = profile_earliest(p, j, j->estimate);
		cr_assert_eq(got, now + at * SIM_SEC,
			     "t=%g job %d: profile says %g, brute force %g",
			     (double)now / SIM_SEC, (int)j->id,
			     (double)got / SIM_SEC,
			     (double)(now + at * SIM_SEC) / SIM_SEC);
		cr_assert(profile_fits(p, j, got, j->estimate));
		profile_reserve(p, j, got, j->estimate);
		for (int64_t y = at; y < at + len; y++) {
			if (v != pool)
				f[v][y] -= a;
			f[pool][y] -= b;
		}
		double sec = (double)(now + at * SIM_SEC) / SIM_SEC;
		if (pv.first[j->idx] < 0)
			pv.first[j->idx] = sec;
	}
	pv.calls++;
	free(f);
}

static void pv_schedule(struct sim *s, void *state)
{
	pv_plan(s);
	pv.real->schedule(s, state);
}

/* Random GPU jobs of A, B and C with exact whole-second estimates. */
static void pv_random(struct workload *w, size_t n, uint64_t seed,
		      bool pool)
{
	struct tjob *t = xcalloc(n, sizeof(*t));
	int32_t *group = xcalloc(n, sizeof(*group));
	uint64_t x = seed * 6364136223846793005ull + 1442695040888963407ull;
	double at = 0;
	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t r = (uint32_t)(x >> 33);
		group[i] = (int32_t)(r % (pool ? 3 : 2));
		/* at most what its VC and the pool hold: A 8 + 4, B 4 + 4,
		 * C 4; without the pool A 8, B 4 */
		uint32_t most = group[i] == 0 ? 8 : 4;
		t[i].id = (int64_t)i + 1;
		at += (double)((r >> 8) % 7);
		t[i].submit = at;
		t[i].run = t[i].estimate = (double)(1 + (r >> 12) % 40);
		t[i].cpus = 1 + (r >> 20) % most;
	}
	pv_workload(w, t, group, n);
	free(t);
	free(group);
}

static void pv_check(const struct policy_ops *real, bool heads_only,
		     bool pool)
{
	static const char *const vc[] = { "A", "B", NULL };
	static const uint32_t count[] = { 2, 1, 1 };
	struct policy_ops ops = *real;
	ops.schedule = pv_schedule;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct workload w;
		struct cluster_spec c;
		size_t nj;
		pv_random(&w, 60, seed, pool);
		pv_spec(&c, pool ? 3 : 2, vc, count);
		pv.real = real;
		pv.heads_only = heads_only;
		pv.calls = 0;
		pv.first = xmalloc(w.n * sizeof(*pv.first));
		for (size_t i = 0; i < w.n; i++)
			pv.first[i] = -1;
		struct sim *s = tl_run_ops(&ops, &w, &c);
		const struct job *jobs = sim_jobs(s, &nj);
		cr_assert_gt(pv.calls, 0);
		for (size_t i = 0; i < nj; i++) {
			cr_assert_eq(jobs[i].state, JOB_FINISHED);
			if (pv.first[i] < 0 || pool)
				continue; /* started before any plan */
			double st = tl_start(s, jobs[i].id);
			cr_expect_leq(st, pv.first[i],
				      "%s pool %d seed %d: job %d starts at %g after "
				      "its reservation at %g", real->name,
				      (int)pool, (int)seed, (int)jobs[i].id, st,
				      pv.first[i]);
		}
		free(pv.first);
		sim_free(s);
		cluster_spec_release(&c);
		workload_release(&w);
	}
}

Test(profile_vc, conservative_keeps_every_reservation)
{
	pv_check(&clustersim_policy_conservative, false, true);
	pv_check(&clustersim_policy_conservative, false, false);
}

Test(profile_vc, easy_keeps_every_head_reservation)
{
	pv_check(&clustersim_policy_easy, true, true);
	pv_check(&clustersim_policy_easy, true, false);
}
