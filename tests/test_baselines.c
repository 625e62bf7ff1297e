/*
 * The heuristic baselines of the RL-scheduling papers (policies/wfp3.c,
 * unicep.c, f1.c .. f4.c) and the engine's steps under them
 * (sim/engine/sim_backfill.c: sim_start_in_order, sim_backfill_easy,
 * sim_start_by), with `backfill` on sjf too.
 *
 * Checked: each score's order on a case worked out by hand, where the
 * eight orders (fcfs, sjf and the six) give eight different schedules;
 * sjf with backfill on a hand-worked case; `backfill` false is the sjf
 * of before; EASY over the queue's own order is the easy policy, start
 * for start (a second implementation), jobs past their estimates
 * included, on CPUs and on GPUs under the speed model; every policy,
 * with and without backfill, against a reference simulation written
 * here from the formulas (a second method); backfilling never delays
 * the head's reservation (a randomised property); the refusals.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "policy/registry.h"
#include "speed/jobclass.h"
#include "testlib.h"

extern const struct policy_ops clustersim_policy_easy;

static const char *const scored[] = { "f1", "f2", "f3", "f4", "wfp3",
				      "unicep", "sjf" };
#define NSCORED (sizeof(scored) / sizeof(*scored))

/* `backfill` as an experiment gives it. */
static struct param_value backfill_param(bool on)
{
	return (struct param_value){
		.key = (char *)"backfill",
		.json_path = (char *)"$.policies[0].params.backfill",
		.type = PV_BOOL, .b = on,
	};
}

static const struct policy_ops *ops_of(const char *name)
{
	for (size_t i = 0; policy_builtin[i]; i++)
		if (strcmp(policy_builtin[i]->name, name) == 0)
			return policy_builtin[i];
	cr_assert_fail("no policy %s", name);
	return NULL;
}

static struct sim *run_bf(const char *name, bool backfill,
			  const struct workload *w, const struct cluster_spec *c)
{
	struct param_value pv = backfill_param(backfill);
	return tl_run_with(ops_of(name), &pv, 1, w, c);
}

/*
 * One node of 4 CPUs, estimates exact.  A (10,000 s, 4 CPUs, 100 s)
 * runs; B (10,001 s, 4 CPUs, 500 s), C (10,005 s, 4 CPUs, 20 s), D
 * (10,050 s, 1 CPU, 300 s), E (10,060 s, 4 CPUs, 10 s) wait.  Nothing
 * starts before A ends at 10,100; then each order, lowest key first
 * (the files' headers give the scores):
 *
 * fcfs: B C D E.  B 10,100-10,600; C -10,620; D (1 CPU) 10,620, E needs
 *   all 4: 10,920.
 * sjf: E C D B.  E 10,100-10,110; C -10,130; D 10,130 (1 CPU), B waits
 *   for it: 10,430.
 * f1: D 3484.36, C 3485.39, E 3486.26, B 3490.83.  D 10,100 (ends
 *   10,400); C blocks: 10,400-10,420; E -10,430; B 10,430.
 * f2: C 102423, D 102473, E 102479, B 102491.  C 10,100-10,120; D
 *   10,120-10,420; E 10,420-10,430; B 10,430.
 * f3 (less 27,440,000): C 1,569, B 2,298, D 15,159, E 17,862.  C
 *   10,100; B 10,120-10,620; D 10,620-10,920; E 10,920.
 * f4 (less 2,120,000): C 155, B 1,023, E 1,397, D 1,448.  C 10,100; B
 *   10,120; E 10,620-10,630; D 10,630.
 * wfp3, (w / r)^3 n, highest first: at 10,100 C (95/20)^3 4 = 428.7,
 *   E (40/10)^3 4 = 256, B (99/500)^3 4 = 0.031, D (50/300)^3 = 0.0046:
 *   C 10,100-10,120.  At 10,120 E (60/10)^3 4 = 864 first: 10,120-
 *   10,130.  At 10,130 B (129/500)^3 4 = 0.069 before D (80/300)^3 =
 *   0.019: B 10,130-10,630, D 10,630.
 * unicep, w / (log2(n) r), highest first, a 1-CPU job that has waited
 *   first of all: at 10,100 D (waited 50 s), then C 95/40 = 2.375, E
 *   40/20 = 2, B 99/1000 = 0.099.  D 10,100; C blocks until 10,400.
 *   At 10,400 E 340/20 = 17 before C 395/40 = 9.875: E 10,400-10,410,
 *   C -10,430, B 10,430.
 */
Test(baselines, each_score_orders_the_queue_its_own_way)
{
	struct tjob t[] = {
		{ 1, 10000, 100, 100, 4 }, { 2, 10001, 500, 500, 4 },
		{ 3, 10005, 20, 20, 4 },   { 4, 10050, 300, 300, 1 },
		{ 5, 10060, 10, 10, 4 },
	};
	static const struct {
		const char *policy;
		double start[5];
	} want[] = {
		{ "fcfs", { 10000, 10100, 10600, 10620, 10920 } },
		{ "sjf", { 10000, 10430, 10110, 10130, 10100 } },
		{ "f1", { 10000, 10430, 10400, 10100, 10420 } },
		{ "f2", { 10000, 10430, 10100, 10120, 10420 } },
		{ "f3", { 10000, 10120, 10100, 10620, 10920 } },
		{ "f4", { 10000, 10120, 10100, 10630, 10620 } },
		{ "wfp3", { 10000, 10130, 10100, 10630, 10120 } },
		{ "unicep", { 10000, 10430, 10410, 10100, 10400 } },
	};
	size_t nw = sizeof(want) / sizeof(*want);
	/* The case tells the orders apart: no two schedules are alike. */
	for (size_t a = 0; a < nw; a++)
		for (size_t b = a + 1; b < nw; b++)
			cr_assert(memcmp(want[a].start, want[b].start,
					 sizeof(want[a].start)) != 0);
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 5);
	tl_cluster(&c, 1, 4);
	for (size_t k = 0; k < nw; k++) {
		struct sim *s = tl_run(want[k].policy, &w, &c);
		for (int64_t id = 1; id <= 5; id++)
			cr_expect_eq(tl_start(s, id), want[k].start[id - 1],
				     "%s: job %lld starts at %g, expected %g",
				     want[k].policy, (long long)id,
				     tl_start(s, id), want[k].start[id - 1]);
		cr_expect_eq(sim_counters(s)->bad_calls, 0);
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * sjf with backfill: EASY around the SJF order.  10 CPUs, estimates
 * exact.  A (0 s, 6 CPUs, 100 s) runs; B (1 s, 8 CPUs, 500 s), C (2 s,
 * 10 CPUs, 50 s), D (3 s, 2 CPUs, 150 s), E (4 s, 4 CPUs, 90 s).
 * sjf + backfill: at 2 the order is C, B: C is the head, reserved at
 *   100 (A's end) with 10 - 10 = 0 extra CPUs; B does not fit.  At 3 D
 *   (ends 153 > 100, 2 > 0 extra) waits.  At 4 the order is C, E, D, B:
 *   E fits (4 free) and ends at 94 <= 100: starts at 4.  At 100 C; at
 *   150 D and B (2 + 8).
 * sjf: E waits behind C: C 100; at 150 E, D (4 + 2), B (8) does not
 *   fit until E ends at 240.
 * easy (submit order): B is the head, reserved at 100 with 2 extra; C
 *   does not fit; D takes the 2 extra CPUs at 3; E (4 > 2 free at 4)
 *   waits.  B 100; C needs 10: when B ends, 600; E 650 (after C).
 * fcfs: B 100, C 600, D and E 650.
 * The example of easy.c's header (A 0 s 6 CPUs 100 s, B 1 s 8 CPUs 50 s,
 * C 2 s 4 CPUs 200 s, D 3 s 2 CPUs 20 s) gives sjf + backfill easy's
 * result: D is the shortest and fits at 3, B 100, C 150.
 */
Test(baselines, sjf_backfill_is_easy_around_the_sjf_order)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 6 }, { 2, 1, 500, 500, 8 },
		{ 3, 2, 50, 50, 10 },  { 4, 3, 150, 150, 2 },
		{ 5, 4, 90, 90, 4 },
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 5);
	tl_cluster(&c, 1, 10);
	static const struct {
		const char *policy;
		bool backfill;
		double start[5];
	} want[] = {
		{ "sjf", true, { 0, 150, 100, 150, 4 } },
		{ "sjf", false, { 0, 240, 100, 150, 150 } },
		{ "easy", false, { 0, 100, 600, 3, 650 } },
		{ "fcfs", false, { 0, 100, 600, 650, 650 } },
	};
	for (size_t k = 0; k < 4; k++) {
		struct sim *s = want[k].backfill
			? run_bf(want[k].policy, true, &w, &c)
			: tl_run(want[k].policy, &w, &c);
		for (int64_t id = 1; id <= 5; id++)
			cr_expect_eq(tl_start(s, id), want[k].start[id - 1],
				     "%s%s: job %lld at %g, expected %g",
				     want[k].policy,
				     want[k].backfill ? "+backfill" : "",
				     (long long)id, tl_start(s, id),
				     want[k].start[id - 1]);
		sim_free(s);
	}
	workload_release(&w);
	struct tjob e[] = {
		{ 1, 0, 100, 100, 6 }, { 2, 1, 50, 50, 8 },
		{ 3, 2, 200, 200, 4 }, { 4, 3, 20, 20, 2 },
	};
	tl_workload(&w, e, 4);
	struct sim *s = run_bf("sjf", true, &w, &c);
	double easy[] = { 0, 100, 150, 3 };
	for (int64_t id = 1; id <= 4; id++)
		cr_expect_eq(tl_start(s, id), easy[id - 1]);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- Policies written here, over the engine's calls ------------------ */

static int by_estimate(void *state, const struct job *a, const struct job *b)
{
	return (a->estimate > b->estimate) - (a->estimate < b->estimate);
}

static void start_head(struct sim *sim, void *state)
{
	sim_start_head(sim);
}

/* sjf as it was before `backfill`: its order and sim_start_head. */
static const struct policy_ops old_sjf = {
	.abi = CLUSTERSIM_ABI_VERSION, .size = sizeof(struct policy_ops),
	.name = "old_sjf", .order = by_estimate, .schedule = start_head,
};

static void backfill_queue(struct sim *sim, void *state)
{
	sim_backfill_easy(sim, NULL, 0);
}

/* The queue in submit order, EASY around it by the engine's step. */
static const struct policy_ops easy_step = {
	.abi = CLUSTERSIM_ABI_VERSION, .size = sizeof(struct policy_ops),
	.name = "easy_step", .schedule = backfill_queue,
};

static void same_records(const struct sim *a, const struct sim *b,
			 const char *what)
{
	size_t na, nb;
	const struct job *ja = sim_jobs(a, &na), *jb = sim_jobs(b, &nb);
	cr_assert_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		cr_assert_eq(ja[i].start, jb[i].start,
			     "%s: job %lld starts at %lld and %lld", what,
			     (long long)ja[i].id, (long long)ja[i].start,
			     (long long)jb[i].start);
		cr_assert_eq(ja[i].end, jb[i].end, "%s", what);
	}
}

/* `backfill` false (given, or by default) is the sjf of before, start
 * for start, on random workloads with overruns and zero-length jobs. */
Test(baselines, backfill_false_is_the_sjf_of_before)
{
	struct cluster_spec c;
	tl_cluster(&c, 2, 8);
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct workload w;
		tl_random_workload(&w, 300, 16, seed);
		struct sim *old = tl_run_ops(&old_sjf, &w, &c);
		struct sim *def = tl_run("sjf", &w, &c);
		struct sim *off = run_bf("sjf", false, &w, &c);
		same_records(old, def, "sjf by default");
		same_records(old, off, "sjf, backfill false");
		sim_free(old);
		sim_free(def);
		sim_free(off);
		workload_release(&w);
	}
	cluster_spec_release(&c);
}

/*
 * A second implementation: sim_backfill_easy over the queue's submit
 * order decides as the easy policy (its own rule, index and incremental
 * passes), start for start, on random workloads on one node and on
 * three, with every 7th job running past its estimate as
 * tl_random_workload makes them, and again with estimates raised to the
 * run times.  The step plans afresh each pass; easy.c keeps the shadow
 * time of an earlier pass while no job ended and it is ahead, and plans
 * it again once the jobs it waited on are past their estimates (with
 * overruns, seed 3 on one node used to start 3 jobs 28 s later).
 */
Test(baselines, easy_step_over_submit_order_is_easy)
{
	for (uint32_t nodes = 1; nodes <= 3; nodes += 2) {
		struct cluster_spec c;
		tl_cluster(&c, nodes, 16);
		for (uint64_t seed = 1; seed <= 8; seed++) {
			for (int over = 0; over < 2; over++) {
				struct workload w;
				tl_random_workload(&w, 400, 16, seed);
				for (size_t i = 0; !over && i < w.n; i++)
					if (w.jobs[i].estimate < w.jobs[i].run)
						w.jobs[i].estimate = w.jobs[i].run;
				struct sim *a = tl_run_ops(&easy_step, &w, &c);
				struct sim *b = tl_run_ops(
					&clustersim_policy_easy, &w, &c);
				same_records(a, b, over ? "easy step, overruns"
							: "easy step");
				cr_expect_eq(sim_counters(a)->bad_calls, 0);
				sim_free(a);
				sim_free(b);
				workload_release(&w);
			}
		}
		cluster_spec_release(&c);
	}
}

/* ops with a placement, under the speed model sc, checker on. */
static struct sim *run_placed(const struct policy_ops *ops,
			      const char *placement, const struct workload *w,
			      const struct cluster_spec *c,
			      const struct speed_config *sc)
{
	struct param_value pv = {
		.key = (char *)"placement",
		.json_path = (char *)"$.policies[0].params.placement",
		.type = PV_STRING, .str = (char *)placement,
	};
	struct pval *params;
	size_t np;
	struct sim_error err;
	cr_assert_eq(policy_params_resolve(ops, &pv, 1, "", &params, &np,
					   &err), 0, "%s", err.msg);
	struct sim_config cfg = {
		.workload = w, .cluster = c, .policy = ops, .params = params,
		.nparams = np, .seed = 1, .check = true, .speed = sc,
	};
	struct sim *s = sim_new(&cfg);
	int rc = sim_run(s, &err);
	free(params);
	cr_assert_eq(rc, 0, "%s: %s", ops->name, err.msg);
	return s;
}

/*
 * The same on GPUs: ResNet-50 jobs of 1-8 GPUs (tl_random_workload's
 * sizes as GPUs) on 4 nodes of 4 V100s, one node a rack, under the speed
 * model and spread placement, so a job over several nodes runs slower
 * than its estimate says, and a head the profile (GPUs) admits may not
 * be placed.  Start for start, and some jobs do run past their
 * estimates (a second cause besides the workload's every 7th job).
 */
Test(baselines, easy_step_is_easy_on_slowed_gpu_jobs)
{
	struct cluster_spec c;
	struct speed_config sc;
	tl_gpu_cluster(&c, 4, 4, "v100", 1);
	tl_speed_config(&sc);
	int cls = jobclass_lookup("ResNet-50 (batch size 64)");
	cr_assert_gt(cls, 0);
	size_t slowed = 0;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct workload w;
		tl_random_workload(&w, 300, 8, seed);
		for (size_t i = 0; i < w.n; i++) {
			w.jobs[i].gpus = w.jobs[i].cpus;
			w.jobs[i].cpus = 0;
			w.jobs[i].job_class = (uint16_t)cls;
		}
		struct sim *a = run_placed(&easy_step, "spread", &w, &c, &sc);
		struct sim *b = run_placed(&clustersim_policy_easy, "spread",
					   &w, &c, &sc);
		same_records(a, b, "easy step, GPUs");
		size_t n;
		const struct job *j = sim_jobs(b, &n);
		for (size_t i = 0; i < n; i++)
			if (j[i].run <= j[i].estimate &&
			    j[i].end - j[i].start > j[i].estimate)
				slowed++;
		cr_expect_eq(sim_counters(a)->bad_calls, 0);
		sim_free(a);
		sim_free(b);
		workload_release(&w);
	}
	cr_expect_gt(slowed, 0, "no job ran past its estimate by its placement");
	cluster_spec_release(&c);
}

/* ---- A reference simulation, from the formulas ---------------------- */

/* The key of policy k for job j at now, lowest first. */
static double ref_key(const char *k, const struct job *j, sim_time_t now)
{
	double r = (double)j->estimate / SIM_SEC;
	double s = (double)j->submit / SIM_SEC;
	double w = (double)(now - j->submit) / SIM_SEC;
	double n = j->gpus ? j->gpus : j->cpus;
	r = r > 0 ? r : 0.1;
	s = s > 0 ? s : 0.1;
	n = n >= 1 ? n : 1;
	if (strcmp(k, "sjf") == 0)
		return (double)j->estimate;
	if (strcmp(k, "fcfs") == 0)
		return 0;
	if (strcmp(k, "f1") == 0)
		return log10(r) * n + 870 * log10(s);
	if (strcmp(k, "f2") == 0)
		return sqrt(r) * n + 25600 * log10(s);
	if (strcmp(k, "f3") == 0)
		return r * n + 6860000 * log10(s);
	if (strcmp(k, "f4") == 0)
		return r * sqrt(n) + 530000 * log10(s);
	if (strcmp(k, "wfp3") == 0)
		return -pow(w / r, 3) * n;
	return -(w + 1e-15) / (log2(n + 1e-15) * r); /* unicep */
}

struct ref {
	const struct workload *w;
	uint64_t cap, free;
	sim_time_t *start, *end; /* per job; SIM_TIME_NONE: not yet */
	bool *done;              /* its end was applied */
	uint32_t *order;
	double *key;
};

static const struct ref *sort_ref;

static int ref_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	double ka = sort_ref->key[a], kb = sort_ref->key[b];
	if (ka != kb)
		return ka < kb ? -1 : 1;
	return (a > b) - (a < b); /* index: (submit, id) order */
}

static bool ref_running(const struct ref *r, uint32_t i)
{
	return r->start[i] != SIM_TIME_NONE && !r->done[i];
}

/* When running job i is expected to end: by its estimate, or at the
 * next microsecond once that is not after now. */
static sim_time_t ref_planned(const struct ref *r, uint32_t i, sim_time_t now)
{
	sim_time_t e = r->start[i] + r->w->jobs[i].estimate;
	return e > now ? e : now + 1;
}

static void ref_start(struct ref *r, uint32_t i, sim_time_t now)
{
	r->start[i] = now;
	r->end[i] = now + r->w->jobs[i].run;
	r->free -= r->w->jobs[i].cpus;
}

/* EASY's head h: its shadow time, and the CPUs free then beside it.
 * Free CPUs only grow: the first of now and the expected ends with
 * room for it. */
static void ref_shadow(const struct ref *r, uint32_t h, sim_time_t now,
		       size_t nsub, sim_time_t *shadow, uint64_t *extra)
{
	uint64_t d = r->w->jobs[h].cpus;
	*shadow = SIM_TIME_MAX;
	for (uint32_t i = 0; i <= nsub; i++) {
		sim_time_t t = i == nsub ? now : ref_planned(r, i, now);
		if (i < nsub && !ref_running(r, i))
			continue;
		uint64_t f = r->cap;
		for (uint32_t k = 0; k < nsub; k++)
			if (ref_running(r, k) && ref_planned(r, k, now) > t)
				f -= r->w->jobs[k].cpus;
		if (f >= d && t < *shadow) {
			*shadow = t;
			*extra = f - d;
		}
	}
}

/* One pass at now over the nq waiting jobs in r->order. */
static void ref_pass(struct ref *r, const char *k, bool backfill,
		     sim_time_t now, size_t nq, size_t nsub)
{
	const struct job *jobs = r->w->jobs;
	for (size_t q = 0; q < nq; q++)
		r->key[r->order[q]] = ref_key(k, &jobs[r->order[q]], now);
	sort_ref = r;
	qsort(r->order, nq, sizeof(*r->order), ref_cmp);
	size_t q = 0;
	for (; q < nq && jobs[r->order[q]].cpus <= r->free; q++)
		ref_start(r, r->order[q], now);
	if (!backfill || q == nq)
		return;
	sim_time_t shadow;
	uint64_t extra = 0;
	ref_shadow(r, r->order[q], now, nsub, &shadow, &extra);
	uint64_t avail = r->free;
	for (q++; q < nq; q++) {
		const struct job *j = &jobs[r->order[q]];
		bool first = j->estimate <= shadow - now;
		if (j->cpus > avail || (!first && j->cpus > extra))
			continue;
		ref_start(r, r->order[q], now);
		avail -= j->cpus;
		if (!first)
			extra -= j->cpus;
	}
}

/* Runs policy k on one node of cap CPUs: the engine's loop (each
 * timestamp's ends and submits, then one pass; again at the same time
 * when a job of no length started); start[i] for job i. */
static void ref_run(const struct workload *w, uint64_t cap, const char *k,
		    bool backfill, sim_time_t *start)
{
	struct ref r = { w, cap, cap, start,
			 xcalloc(w->n, sizeof(sim_time_t)),
			 xcalloc(w->n, sizeof(bool)),
			 xcalloc(w->n, sizeof(uint32_t)),
			 xcalloc(w->n, sizeof(double)) };
	for (size_t i = 0; i < w->n; i++)
		start[i] = SIM_TIME_NONE;
	size_t nsub = 0;
	for (;;) {
		sim_time_t now = nsub < w->n ? w->jobs[nsub].submit
					      : SIM_TIME_MAX;
		for (uint32_t i = 0; i < nsub; i++)
			if (ref_running(&r, i) && r.end[i] < now)
				now = r.end[i];
		if (now == SIM_TIME_MAX)
			break;
		for (uint32_t i = 0; i < nsub; i++)
			if (ref_running(&r, i) && r.end[i] == now) {
				r.free += w->jobs[i].cpus;
				r.done[i] = true;
			}
		while (nsub < w->n && w->jobs[nsub].submit <= now)
			nsub++;
		size_t nq = 0;
		for (uint32_t i = 0; i < nsub; i++)
			if (start[i] == SIM_TIME_NONE)
				r.order[nq++] = i;
		ref_pass(&r, k, backfill, now, nq, nsub);
	}
	free(r.end);
	free(r.done);
	free(r.order);
	free(r.key);
}

/*
 * Every scored policy, with and without backfill, on random workloads
 * on one node of 16 CPUs (estimates 1-4x the run, some overrunning,
 * some of no length), against the reference above: the same start for
 * every job.  The engine ranks by order() or sim_start_by, plans with
 * its profile; the reference recomputes everything from the formulas
 * at each event.
 */
Test(baselines, every_policy_matches_a_reference_simulation)
{
	struct cluster_spec c;
	tl_cluster(&c, 1, 16);
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct workload w;
		tl_random_workload(&w, 250, 16, seed);
		/* Submit times past 0 s, as traces past their first job. */
		for (size_t i = 0; i < w.n; i++)
			w.jobs[i].submit += 1000 * SIM_SEC;
		sim_time_t *want = xcalloc(w.n, sizeof(*want));
		for (size_t k = 0; k < NSCORED; k++) {
			for (int bf = 0; bf < 2; bf++) {
				ref_run(&w, 16, scored[k], bf, want);
				struct sim *s = run_bf(scored[k], bf, &w, &c);
				size_t n;
				const struct job *j = sim_jobs(s, &n);
				size_t diff = 0;
				for (size_t i = 0; i < n; i++)
					diff += j[i].start != want[i];
				cr_expect_eq(diff, 0,
					     "%s, backfill %d, seed %llu: %zu "
					     "jobs start elsewhere", scored[k],
					     bf, (unsigned long long)seed,
					     diff);
				cr_expect_eq(sim_counters(s)->bad_calls, 0);
				sim_free(s);
			}
		}
		free(want);
		workload_release(&w);
	}
	cluster_spec_release(&c);
}

/* ---- Backfilling never delays the head -------------------------------- */

/*
 * A policy of a fixed random order (a hash of the job id, as a static
 * score like F1-F4 is) with EASY around it by the engine's step, which
 * watches its head.  At each pass, before it starts anything: a head
 * recorded at the last pass that is still first in the order must
 * still fit by its reservation (the profile's earliest start is not
 * later), and once it starts, it starts by it.  After the step, the
 * head's earliest start must be what it was before the step: the jobs
 * backfilled around it did not move it.
 */
struct watch {
	const struct job *head; /* the head after the last pass, or NULL */
	sim_time_t res;         /* its reservation then */
	bool first;             /* this pass, it is still first */
	unsigned late;          /* violations seen */
	unsigned heads;         /* passes that had a head to protect */
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	return x ^ (x >> 33);
}

static int by_hash(void *state, const struct job *a, const struct job *b)
{
	uint64_t ha = mix((uint64_t)a->id), hb = mix((uint64_t)b->id);
	return (ha > hb) - (ha < hb);
}

static sim_time_t earliest(struct sim *sim, const struct job *j)
{
	return profile_earliest(sim_profile(sim), j, j->estimate);
}

static void watch_schedule(struct sim *sim, void *state)
{
	struct watch *wt = state;
	wt->first = wt->head && wt->head->state == JOB_PENDING &&
		    sim_queue_len(sim) && sim_queue_at(sim, 0) == wt->head;
	if (wt->first && earliest(sim, wt->head) > wt->res)
		wt->late++;
	/* The prefix that fits, then the head's reservation before the
	 * backfill: sim_start_head stops where the step's own prefix
	 * stops (one pool, one node). */
	sim_start_head(sim);
	const struct job *head = sim_queue_len(sim) ? sim_queue_at(sim, 0)
						    : NULL;
	sim_time_t before = head ? earliest(sim, head) : 0;
	sim_backfill_easy(sim, NULL, 0);
	wt->head = NULL;
	if (!head || head->state != JOB_PENDING)
		return;
	wt->heads++;
	wt->res = earliest(sim, head);
	if (wt->res > before)
		wt->late++;
	wt->head = head;
}

static void watch_started(struct sim *sim, void *state, const struct job *j)
{
	struct watch *wt = state;
	if (wt->first && j == wt->head && sim_now(sim) > wt->res)
		wt->late++;
}

/* What the last run watched (the engine frees the state at its end). */
static struct watch watched;

static void watch_fini(struct sim *sim, void *state)
{
	watched = *(struct watch *)state;
}

static const struct policy_ops watch_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .size = sizeof(struct policy_ops),
	.name = "watch", .order = by_hash, .schedule = watch_schedule,
	.state_size = sizeof(struct watch), .job_started = watch_started,
	.fini = watch_fini,
};

Test(baselines, backfilling_never_delays_the_head)
{
	for (uint32_t nodes = 1; nodes <= 2; nodes++) {
		struct cluster_spec c;
		tl_cluster(&c, 1, 16 * nodes);
		for (uint64_t seed = 1; seed <= 8; seed++) {
			struct workload w;
			tl_random_workload(&w, 400, 16, seed);
			/* No overruns: a job past its estimate may hold a
			 * head's room past the reservation, rightly. */
			for (size_t i = 0; i < w.n; i++)
				if (w.jobs[i].estimate < w.jobs[i].run)
					w.jobs[i].estimate = w.jobs[i].run;
			struct sim *s = tl_run_ops(&watch_ops, &w, &c);
			const struct watch *wt = &watched;
			cr_expect_eq(wt->late, 0, "seed %llu: %u late",
				     (unsigned long long)seed, wt->late);
			cr_expect_gt(wt->heads, 100, "seed %llu: %u heads",
				     (unsigned long long)seed, wt->heads);
			cr_expect_eq(sim_counters(s)->bad_calls, 0);
			sim_free(s);
			workload_release(&w);
		}
		cluster_spec_release(&c);
	}
}

/* The six policies and sjf with backfill under the invariant checker, on
 * random workloads with overruns and on the GPU cluster of the typed-GPU
 * case (the profile counts GPUs, the placement their type): every job
 * ends and no start is refused. */
Test(baselines, backfill_runs_clean_on_cpu_and_gpu_clusters)
{
	struct cluster_spec c;
	tl_cluster(&c, 4, 8);
	struct workload w;
	tl_random_workload(&w, 300, 24, 7);
	for (size_t k = 0; k < NSCORED; k++) {
		struct sim *s = run_bf(scored[k], true, &w, &c);
		size_t n;
		const struct job *j = sim_jobs(s, &n);
		for (size_t i = 0; i < n; i++)
			cr_expect(j[i].state == JOB_FINISHED, "%s", scored[k]);
		cr_expect_eq(sim_counters(s)->bad_calls, 0, "%s", scored[k]);
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);

	/* 2 V100s and 4 K80s; A (0 s, 100 s, 2 V100s) runs, B (1 s, 100 s,
	 * 2 V100s) and C (2 s, 10 s, 1 V100) wait.  Whichever is the head,
	 * the profile places it on the free K80s at once and the other fits
	 * the profile beside it, but no V100 is free before 100: neither may
	 * be started (a refused call).  sjf, wfp3 (at 100 C has waited 9.8
	 * of its estimates) and unicep (C asks one GPU and has waited) put
	 * C first: C 100, B 110; the others B first: B 100, C 200. */
	struct tjob t[] = {
		{ 1, 0, 100, 100, 2 }, { 2, 1, 100, 100, 2 },
		{ 3, 2, 10, 10, 1 },
	};
	tl_workload(&w, t, 3);
	for (size_t i = 0; i < w.n; i++) {
		w.jobs[i].gpus = w.jobs[i].cpus;
		w.jobs[i].cpus = 0;
		w.jobs[i].gpu_type = 1;
	}
	tl_gpu_cluster(&c, 1, 2, "v100", 0);
	c.groups = xrealloc(c.groups, 2 * sizeof(*c.groups));
	c.groups[1] = (struct node_group){ .name = xstrdup("k80"), .count = 1,
					   .cpus = 8, .gpus = 4,
					   .gpu_type = xstrdup("k80") };
	c.ngroups = 2;
	for (size_t k = 0; k < NSCORED; k++) {
		struct sim *s = run_bf(scored[k], true, &w, &c);
		bool c_first = strcmp(scored[k], "sjf") == 0 ||
			       strcmp(scored[k], "wfp3") == 0 ||
			       strcmp(scored[k], "unicep") == 0;
		cr_expect_eq(tl_start(s, 2), c_first ? 110.0 : 100.0, "%s: %g",
			     scored[k], tl_start(s, 2));
		cr_expect_eq(tl_start(s, 3), c_first ? 100.0 : 200.0, "%s: %g",
			     scored[k], tl_start(s, 3));
		cr_expect_eq(sim_counters(s)->bad_calls, 0, "%s", scored[k]);
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

/* ---- Refusals -------------------------------------------------------- */

/* backfill: true on a cluster with virtual clusters: a clear init error
 * for each policy; false runs (per-VC queues). */
Test(baselines, backfill_is_refused_on_virtual_clusters)
{
	struct tjob t[] = { { 1, 0, 10, 10, 1 }, { 2, 1, 10, 10, 2 } };
	struct workload w;
	tl_workload(&w, t, 2);
	for (size_t i = 0; i < w.n; i++) {
		w.jobs[i].gpus = w.jobs[i].cpus;
		w.jobs[i].cpus = 1;
		w.jobs[i].group = 0;
	}
	w.groups = xcalloc(1, sizeof(*w.groups));
	w.groups[0] = xstrdup("A");
	w.ngroups = 1;
	struct cluster_spec c;
	tl_gpu_cluster(&c, 2, 4, "p100", 0);
	c.groups[0].vc = xstrdup("A");
	for (size_t k = 0; k < NSCORED; k++) {
		const struct policy_ops *ops = ops_of(scored[k]);
		for (int bf = 1; bf >= 0; bf--) {
			struct param_value pv = backfill_param(bf);
			struct pval *params;
			size_t np;
			struct sim_error err;
			cr_assert_eq(policy_params_resolve(ops, &pv, 1, "",
							   &params, &np, &err),
				     0, "%s", err.msg);
			struct sim_config cfg = {
				.workload = &w, .cluster = &c, .policy = ops,
				.params = params, .nparams = np, .seed = 1,
				.check = true,
			};
			struct sim *s = sim_new(&cfg);
			err.msg[0] = '\0';
			int rc = sim_run(s, &err);
			if (bf) {
				cr_expect_neq(rc, 0, "%s", scored[k]);
				cr_expect(strstr(err.msg, "backfill: true is "
						 "not supported on a cluster "
						 "with virtual clusters"),
					  "%s: '%s'", scored[k], err.msg);
			} else {
				cr_expect_eq(rc, 0, "%s: %s", scored[k],
					     err.msg);
			}
			sim_free(s);
			free(params);
		}
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

/* A job in the order that is not waiting is skipped and counted as a
 * bad call; the rest of the order is still served.  A (0 s, 4 CPUs,
 * 10 s) runs; B (1 s, 2 CPUs) is listed twice by a policy that puts the
 * running A first: A is refused (1 bad call), B starts at 1 and its
 * second entry is refused too (2). */
static void listed_twice(struct sim *sim, void *state)
{
	const struct job *l[4];
	size_t n = 0;
	if (!sim_queue_len(sim))
		return;
	for (size_t i = 0; i < sim_running_len(sim); i++)
		l[n++] = sim_running_at(sim, i);
	for (size_t i = 0; i < sim_queue_len(sim) && n < 3; i++)
		l[n++] = sim_queue_at(sim, i);
	if (n == 2 && l[0]->state == JOB_RUNNING)
		l[n++] = l[1];
	sim_backfill_easy(sim, l, n);
}

static const struct policy_ops twice_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .size = sizeof(struct policy_ops),
	.name = "twice", .schedule = listed_twice,
};

Test(baselines, an_order_with_a_job_not_waiting_is_a_bad_call)
{
	struct tjob t[] = { { 1, 0, 10, 10, 4 }, { 2, 1, 5, 5, 2 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 8);
	struct sim *s = tl_run_ops(&twice_ops, &w, &c);
	cr_expect_eq(tl_start(s, 1), 0.0);
	cr_expect_eq(tl_start(s, 2), 1.0);
	cr_expect_eq(sim_counters(s)->bad_calls, 2);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

