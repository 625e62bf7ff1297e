/*
 * The quota policy's quotas per GPU type and its reclaim that asks the
 * placement (docs/tenants.md, policies/quota.c), each on a hand-worked
 * case, and the per-type keys' errors and outputs through the command
 * line.
 *
 * All jobs run at reference speed (no speed model): a job of run R ends
 * R seconds after it starts, plus what a preemption made it redo; a
 * preempted job checkpoints at the preemption (nothing lost).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "policy/registry.h"
#include "testlib.h"

/* A project of a test: quota (GPUs; per type: qa on "a", qb on "b"). */
struct pten {
	const char *name;
	int32_t parent;
	double quota, qa, qb; /* qa, qb < 0: one number (quota) */
	double weight;
};

/* A job: its project (tenant index), GPUs, tp (4: one node's 4 GPUs). */
struct pjob {
	int64_t id;
	double submit, run;
	uint32_t gpus;
	int32_t tenant;
	uint16_t tp;
};

struct pq {
	struct workload w;
	struct cluster_spec c;
	struct sim *s;
};

static uint64_t milli(double g)
{
	return (uint64_t)llround(g * 1000);
}

/* Tenant i's spec: one number, or entries "a" and "b". */
static void put_tenant(struct tenant_spec *ts, const struct pten *t)
{
	*ts = (struct tenant_spec){
		.name = xstrdup(t->name), .parent = t->parent,
		.quota = milli(t->quota), .borrow_limit = TENANT_NO_LIMIT,
		.lend_limit = TENANT_NO_LIMIT,
		.weight = t->weight > 0 ? t->weight : 1,
	};
	if (t->qa < 0)
		return;
	ts->per_type = true;
	ts->ntypes = 2;
	ts->types = xcalloc(2, sizeof(*ts->types));
	ts->types[0] = (struct tenant_type){ xstrdup("a"), milli(t->qa),
					     TENANT_NO_LIMIT, TENANT_NO_LIMIT,
					     1 };
	ts->types[1] = (struct tenant_type){ xstrdup("b"), milli(t->qb),
					     TENANT_NO_LIMIT, TENANT_NO_LIMIT,
					     1 };
	ts->quota = milli(t->qa + t->qb);
}

/* Two nodes of 4 GPUs: of types "a" and "b" when typed, else one
 * untyped group of two nodes. */
static void pq_setup(struct pq *q, bool typed, const struct pten *t,
		     size_t nt, const struct pjob *jobs, size_t nj)
{
	memset(q, 0, sizeof(*q));
	if (typed) {
		struct cluster_spec b;
		tl_gpu_cluster(&q->c, 1, 4, "a", 0);
		tl_gpu_cluster(&b, 1, 4, "b", 0);
		q->c.groups = xrealloc(q->c.groups, 2 * sizeof(*q->c.groups));
		q->c.groups[1] = b.groups[0];
		free(q->c.groups[1].name);
		q->c.groups[1].name = xstrdup("gb");
		free(q->c.groups[0].name);
		q->c.groups[0].name = xstrdup("ga");
		q->c.ngroups = 2;
		memset(&b.groups[0], 0, sizeof(b.groups[0]));
		cluster_spec_release(&b);
	} else {
		tl_gpu_cluster(&q->c, 2, 4, NULL, 0);
	}
	q->c.tenants = xcalloc(nt, sizeof(*q->c.tenants));
	q->c.ntenants = nt;
	for (size_t i = 0; i < nt; i++)
		put_tenant(&q->c.tenants[i], &t[i]);
	struct tjob *tj = xcalloc(nj, sizeof(*tj));
	uint32_t *g = xcalloc(nj, sizeof(*g));
	for (size_t i = 0; i < nj; i++) {
		tj[i] = (struct tjob){ jobs[i].id, jobs[i].submit, jobs[i].run,
				       -1, 0 };
		g[jobs[i].id - 1] = jobs[i].gpus;
	}
	tl_r50_jobs(&q->w, tj, nj, g);
	q->w.groups = xcalloc(nt, sizeof(*q->w.groups));
	q->w.ngroups = nt;
	for (size_t i = 0; i < nt; i++)
		q->w.groups[i] = xstrdup(t[i].name);
	for (size_t i = 0; i < q->w.n; i++) {
		struct job *j = &q->w.jobs[i];
		for (size_t k = 0; k < nj; k++)
			if (jobs[k].id == j->id) {
				j->group = jobs[k].tenant;
				if (jobs[k].tp) {
					j->tp = jobs[k].tp;
					j->pp = 1;
				}
			}
	}
	free(tj);
	free(g);
}

static void pq_run_rebalance(struct pq *q, bool rebalance)
{
	struct param_value pv = {
		.key = (char *)"rebalance", .json_path = (char *)"$.r",
		.type = PV_BOOL, .b = rebalance,
	};
	struct sim_config base = {
		.workload = &q->w,
		.cluster = &q->c,
		.project_from = TENANT_FROM_VC,
	};
	q->s = tl_run_cfg("quota", &pv, 1, &base);
}

static void pq_run(struct pq *q)
{
	pq_run_rebalance(q, false);
}

static void pq_free(struct pq *q)
{
	sim_free(q->s);
	workload_release(&q->w);
	cluster_spec_release(&q->c);
}

static const struct job *job_of(const struct pq *q, int64_t id)
{
	size_t n;
	const struct job *j = sim_jobs(q->s, &n);
	for (size_t i = 0; i < n; i++)
		if (j[i].id == id)
			return &j[i];
	cr_assert_fail("no job %lld", (long long)id);
	return NULL;
}

static double end_of(const struct pq *q, int64_t id)
{
	return (double)job_of(q, id)->end / SIM_SEC;
}

/*
 * Quotas per GPU type.  Node "a" and node "b", 4 GPUs each; project P
 * has quota {a: 4, b: 0}, project R {a: 0, b: 4}.  P's jobs at 0: 1-3
 * of 1 GPU start within P's a-quota, on a; 4 and 5 of 2 GPUs would take
 * P over its a-quota and it has none of b, so they borrow: a has 1 GPU
 * free, so both go to b (b full).  P's job 6 (1 GPU, at 5) is within
 * its a-quota and starts on a's last GPU: the newest job of P.  R's job
 * 7 (1 GPU) at 10 is within R's b-quota; nothing is free, so P's b jobs
 * are reclaimed, not job 6 (on a, where P is within quota, though with
 * one quota of 8 P would hold 8 of 4 and job 6 would be the newest
 * victim).  Of 4 and 5 (both started at 0) the newest is 5: preempted,
 * 7 starts at 10.  5 (2 GPUs) waits for b's GPUs: 7 ends at 60, 5
 * restarts then with its 10 s kept and ends at 60 + 90 = 150.
 * P's books: a: guaranteed 3 x 100 + 1 x 100 = 400 GPU-s, borrowed 0;
 * b: guaranteed 0 (no b-quota), borrowed 2 x 100 (job 4) + 2 x 10 +
 * 2 x 90 (job 5) = 400; one reclaim, on b.  R: b guaranteed 1 x 50.
 */
Test(quota_types, per_type_books_and_reclaim)
{
	static const struct pten t[] = {
		{ "D", -1, 8, 4, 4, 1 },
		{ "P", 0, 4, 4, 0, 1 },
		{ "R", 0, 4, 0, 4, 1 },
	};
	static const struct pjob j[] = {
		{ 1, 0, 100, 1, 1, 0 }, { 2, 0, 100, 1, 1, 0 },
		{ 3, 0, 100, 1, 1, 0 }, { 4, 0, 100, 2, 1, 0 },
		{ 5, 0, 100, 2, 1, 0 }, { 6, 5, 100, 1, 1, 0 },
		{ 7, 10, 50, 1, 2, 0 },
	};
	struct pq q;
	pq_setup(&q, true, t, 3, j, 7);
	pq_run(&q);
	for (int64_t id = 1; id <= 5; id++)
		cr_expect_eq(tl_start(q.s, id), 0, "job %lld", (long long)id);
	cr_expect_eq(tl_start(q.s, 6), 5);
	cr_expect_eq(tl_start(q.s, 7), 10);
	cr_expect_eq(job_of(&q, 5)->preemptions, 1);
	cr_expect_eq(job_of(&q, 6)->preemptions, 0);
	cr_expect_eq(job_of(&q, 4)->preemptions, 0);
	cr_expect_eq(end_of(&q, 5), 150);
	cr_expect_eq(end_of(&q, 6), 105);
	const struct tenant_books *b = sim_tenant_books(q.s);
	cr_assert(b);
	cr_assert_eq(b->ntypes, 2);
	/* [tenant * 2 + type]: P is 1, R is 2; a is 0, b is 1. */
	cr_expect_float_eq(b->type_gpu_s_guaranteed[2], 400, 1e-9);
	cr_expect_float_eq(b->type_gpu_s_borrowed[2], 0, 1e-9);
	cr_expect_float_eq(b->type_gpu_s_guaranteed[3], 0, 1e-9);
	cr_expect_float_eq(b->type_gpu_s_borrowed[3], 400, 1e-9);
	cr_expect_float_eq(b->gpu_s_guaranteed[1], 400, 1e-9);
	cr_expect_float_eq(b->gpu_s_borrowed[1], 400, 1e-9);
	cr_expect_eq(b->type_reclaims[2], 0);
	cr_expect_eq(b->type_reclaims[3], 1);
	cr_expect_eq(b->reclaims[1], 1);
	cr_expect_float_eq(b->type_gpu_s_guaranteed[5], 50, 1e-9);
	cr_expect_float_eq(b->gpu_s_borrowed[2], 0, 1e-9);
	pq_free(&q);
}

/*
 * Drawn kinds with quotas per GPU type (interactive_fraction 1: every job
 * that can run within quota is drawn interactive).  P has {a: 1, b: 3}:
 * job 1 needs 2 GPUs of a (cap 1: drawn train), job 2 2 GPUs of b (cap
 * 3: interactive), job 3 3 GPUs of any type (cap: P's largest type
 * quota, 3: interactive), job 4 4 GPUs of any type (above 3: train).
 * Against the project's total (4) all four would be interactive, and
 * job 1 could never start.  Every job ends.
 */
Test(quota_types, drawn_kinds_use_the_type_quota)
{
	static const struct pten t[] = {
		{ "D", -1, 8, 4, 4, 1 },
		{ "P", 0, 4, 1, 3, 1 },
		{ "R", 0, 4, 3, 1, 1 },
	};
	static const struct pjob j[] = {
		{ 1, 0, 100, 2, 1, 0 }, { 2, 0, 100, 2, 1, 0 },
		{ 3, 0, 100, 3, 1, 0 }, { 4, 0, 100, 4, 1, 0 },
	};
	struct pq q;
	pq_setup(&q, true, t, 3, j, 4);
	q.w.jobs[0].gpu_type = 1; /* a */
	q.w.jobs[1].gpu_type = 2; /* b */
	struct sim_config base = {
		.workload = &q.w,
		.cluster = &q.c,
		.project_from = TENANT_FROM_VC,
		.interactive_fraction = 1.0,
	};
	q.s = tl_run_cfg("quota", NULL, 0, &base);
	static const bool inter[] = { false, true, true, false };
	for (int64_t id = 1; id <= 4; id++) {
		const struct job *jb = job_of(&q, id);
		cr_expect_eq((jb->flags & JOB_INTERACTIVE) != 0, inter[id - 1],
			     "job %lld", (long long)id);
		cr_expect_eq(jb->state, JOB_FINISHED, "job %lld",
			     (long long)id);
	}
	pq_free(&q);
}

/* Projects A (quota qa) and B (quota 8 - qa) on two untyped nodes. */
static void ab_quota(struct pten *t, double qa)
{
	t[0] = (struct pten){ "D", -1, 8, -1, -1, 1 };
	t[1] = (struct pten){ "A", 0, qa, -1, -1, 1 };
	t[2] = (struct pten){ "B", 0, 8 - qa, -1, -1, 1 };
}

/*
 * A's eight 1-GPU jobs at 0 fill both nodes (1-4 on node 0, 5-8 on node
 * 1); 1 and 2 run 5 s, the rest 100 s.  Job 9 of A (1 GPU) at 6 takes
 * one of node 0's two free GPUs: the newest job.  At 10 B's job 10 asks
 * 4 GPUs as one tensor-parallel group (tp 4): one node's 4 GPUs.  One
 * GPU is free (node 0).
 */
static void fragmented(struct pjob *j)
{
	for (int i = 0; i < 8; i++)
		j[i] = (struct pjob){ i + 1, 0, i < 2 ? 5 : 100, 1, 1, 0 };
	j[8] = (struct pjob){ 9, 6, 100, 1, 1, 0 };
	j[9] = (struct pjob){ 10, 10, 50, 4, 2, 4 };
}

/*
 * A's quota 4: at 10 A holds 7, 3 over.  The eligible victims (newest
 * first, while A is still over quota with those before) are 9, 8 and 7:
 * 4 GPUs with the free one, enough by count, but on node 0 (2 free) and
 * node 1 (2 free): the tp-4 job still could not be placed.  So nobody is
 * preempted (counting GPUs would have preempted 9, 8 and 7 for
 * nothing); job 10 starts when node 1's jobs end at 100.
 */
Test(quota_types, no_reclaim_that_would_not_place)
{
	struct pten t[3];
	struct pjob j[10];
	ab_quota(t, 4);
	fragmented(j);
	struct pq q;
	pq_setup(&q, false, t, 3, j, 10);
	pq_run(&q);
	cr_expect_eq(tl_start(q.s, 9), 6);
	for (int64_t id = 1; id <= 9; id++)
		cr_expect_eq(job_of(&q, id)->preemptions, 0, "job %lld",
			     (long long)id);
	cr_expect_eq(tl_start(q.s, 10), 100);
	const struct tenant_books *b = sim_tenant_books(q.s);
	cr_expect_eq(b->reclaims[1], 0);
	pq_free(&q);
}

/*
 * A's quota 2: at 10 A holds 7, 5 over: victims 9 (node 0), 8, 7, 6, 5
 * (node 1) are all eligible, and with all of them node 1 is free: the
 * job can be placed.  Taken in order until it can: 9, 8, 7, 6, 5 (node
 * 1 empties with 5).  Then 9, on node 0, is not needed: given back.  So
 * 8, 7, 6 and 5 are preempted, 9 is not, and job 10 starts at 10.
 */
Test(quota_types, reclaim_the_victims_that_place)
{
	struct pten t[3];
	struct pjob j[10];
	ab_quota(t, 2);
	fragmented(j);
	struct pq q;
	pq_setup(&q, false, t, 3, j, 10);
	pq_run(&q);
	cr_expect_eq(tl_start(q.s, 10), 10);
	cr_expect_eq(job_of(&q, 9)->preemptions, 0);
	for (int64_t id = 3; id <= 4; id++)
		cr_expect_eq(job_of(&q, id)->preemptions, 0);
	for (int64_t id = 5; id <= 8; id++)
		cr_expect_eq(job_of(&q, id)->preemptions, 1, "job %lld",
			     (long long)id);
	const struct tenant_books *b = sim_tenant_books(q.s);
	cr_expect_eq(b->reclaims[1], 4);
	pq_free(&q);
}

/*
 * Rebalancing among borrowers.  Two nodes of 4 GPUs; projects A (weight
 * 1) and B (weight 3), both of quota 0: every GPU is lendable.  A's
 * eight 1-GPU jobs of 1000 s at 0 take all 8 GPUs.  B's eight 1-GPU jobs
 * of 100 s come at 10.  The weighted fair shares of the 8 GPUs are
 * 8 x 1/4 = 2 for A and 8 x 3/4 = 6 for B.
 * With rebalance, B's k-th job starts by preempting one of A's while B's
 * share value with it, k / 3, is at most A's without it, (8 - k) / 1:
 * 4k <= 24, k <= 6.  So B's jobs 9-14 start at 10, preempting A's newest
 * (all started at 0: the highest ids, 8 down to 3); A keeps 2, B holds
 * 6, both share values 2.  B's 15 and 16 wait; A's 1 and 2 are never
 * preempted.  At 110 B's six end: 6 GPUs idle, by progressive filling B
 * (share (0 + 1) / 3, 2 / 3) starts 15 and 16 before A (3 / 1, ...),
 * then A's 4 of its 6 preempted jobs restart.
 * Without rebalance B waits for A's jobs: nothing of B starts before
 * 1000 and nobody is preempted.
 */
Test(quota_types, rebalance_weights_1_and_3)
{
	struct pten t[3] = {
		{ "D", -1, 0, -1, -1, 1 },
		{ "A", 0, 0, -1, -1, 1 },
		{ "B", 0, 0, -1, -1, 3 },
	};
	struct pjob j[16];
	for (int i = 0; i < 8; i++) {
		j[i] = (struct pjob){ i + 1, 0, 1000, 1, 1, 0 };
		j[i + 8] = (struct pjob){ i + 9, 10, 100, 1, 2, 0 };
	}
	struct pq q;
	pq_setup(&q, false, t, 3, j, 16);
	pq_run_rebalance(&q, true);
	for (int64_t id = 9; id <= 14; id++)
		cr_expect_eq(tl_start(q.s, id), 10, "job %lld", (long long)id);
	cr_expect_eq(tl_start(q.s, 15), 110);
	cr_expect_eq(tl_start(q.s, 16), 110);
	for (int64_t id = 1; id <= 2; id++)
		cr_expect_eq(job_of(&q, id)->preemptions, 0);
	for (int64_t id = 3; id <= 8; id++)
		cr_expect_eq(job_of(&q, id)->preemptions, 1, "job %lld",
			     (long long)id);
	const struct tenant_books *b = sim_tenant_books(q.s);
	cr_expect_eq(b->reclaims[1], 6);
	pq_free(&q);

	pq_setup(&q, false, t, 3, j, 16);
	pq_run_rebalance(&q, false);
	for (int64_t id = 9; id <= 16; id++)
		cr_expect_geq(tl_start(q.s, id), 1000, "job %lld",
			      (long long)id);
	for (int64_t id = 1; id <= 8; id++)
		cr_expect_eq(job_of(&q, id)->preemptions, 0);
	pq_free(&q);
}

/*
 * Conservation with per-type quotas, reclaims and rebalancing, on a
 * random workload: nodes a and b of 4 GPUs, projects P {a: 2, b: 2}, R
 * {a: 2} (weight 2) and S {b: 2}, 200 jobs of 1-4 GPUs.  Every job ends;
 * the books' GPU-seconds (guaranteed + borrowed) equal the jobs'
 * attained service (a second method), and per project the per-type
 * integrals add up to its totals; what the projects hold of each type,
 * from the per-type log, never exceeds the type's 4 GPUs.
 */
Test(quota_types, per_type_conservation_with_rebalance)
{
	static const struct pten t[] = {
		{ "D", -1, 8, 4, 4, 1 },
		{ "P", 0, 4, 2, 2, 1 },
		{ "R", 0, 2, 2, 0, 2 },
		{ "S", 0, 2, 0, 2, 1 },
	};
	enum { N = 200 };
	struct pjob *j = xcalloc(N, sizeof(*j));
	uint64_t x = 777;
	for (int i = 0; i < N; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		j[i] = (struct pjob){ i + 1, i * 5.0, 20 + (double)(x >> 56),
				      1 + (uint32_t)((x >> 20) % 4),
				      1 + (int32_t)((x >> 40) % 3), 0 };
	}
	struct pq q;
	pq_setup(&q, true, t, 4, j, N);
	pq_run_rebalance(&q, true);
	size_t n;
	const struct job *js = sim_jobs(q.s, &n);
	double attained = 0;
	uint64_t pre = 0;
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(js[i].state, JOB_FINISHED);
		attained += js[i].attained;
		pre += js[i].preemptions;
	}
	const struct tenant_books *b = sim_tenant_books(q.s);
	double books = 0;
	for (size_t k = 1; k < 4; k++) {
		double g = b->gpu_s_guaranteed[k], o = b->gpu_s_borrowed[k];
		double ty = 0;
		for (size_t y = 0; y < 2; y++)
			ty += b->type_gpu_s_guaranteed[k * 2 + y] +
			      b->type_gpu_s_borrowed[k * 2 + y];
		cr_expect_float_eq(ty, g + o, 1e-6 * (g + o + 1));
		books += g + o;
	}
	cr_expect_float_eq(books, attained, 1e-6 * attained);
	cr_expect_gt(pre, 0);
	/* series n + tenant * 2 + type, n = 4 tenants */
	uint64_t used[4][2] = { { 0 } }, most[2] = { 0, 0 };
	for (size_t i = 0; i < b->nlog; i++) {
		uint32_t s = b->log[i].tenant;
		if (s >= 4)
			used[(s - 4) / 2][(s - 4) % 2] = b->log[i].used;
		if (i + 1 < b->nlog && b->log[i + 1].t == b->log[i].t)
			continue;
		for (size_t y = 0; y < 2; y++) {
			uint64_t all = used[1][y] + used[2][y] + used[3][y];
			most[y] = all > most[y] ? all : most[y];
		}
	}
	cr_expect_leq(most[0], 4000);
	cr_expect_leq(most[1], 4000);
	cr_expect_gt(most[0], 0);
	pq_free(&q);
	free(j);
}

/* ---- The experiment file, through the command line ---- */

static char tmp[256], bin[512];

static void cli_setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "quota_place");
	tl_cli_need_bin(bin);
}

static void cli_teardown(void)
{
	tl_rmtree(tmp);
}

/* Two VCs' jobs of 1 GPU, 60 s each (a Philly-format trace). */
static const char philly[] =
	"timestamp,duration,num_gpus,gpu_time,cluster\n"
	"2017-10-09 07:01:55,60.0,1,60.0,aa\n"
	"2017-10-09 07:02:55,60.0,1,60.0,bb\n";

/* An experiment with these tenants on a node of 4 P100 and one of 4
 * V100 (jobs at reference speed). */
static void exp_with(const char *name, const char *tenants)
{
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"name\": \"ga\", \"count\": 1, "
		"\"cpus\": 8, \"gpus\": 4, \"gpu_type\": \"p100\" }, { \"name\": "
		"\"gb\", \"count\": 1, \"cpus\": 8, \"gpus\": 4, \"gpu_type\": "
		"\"v100\" } ],\n \"tenants\": %s },\n"
		"  \"workload\": { \"trace\": \"p.csv\", \"format\": "
		"\"philly\", \"job_classes\": \"trace\" },\n"
		"  \"policies\": [ \"quota\" ], \"output\": \"out\" }\n",
		tenants);
	tl_put(tmp, name, text);
	free(text);
}

static void expect_exit(const char *file, int code, const char *needle)
{
	int rc = tl_sh(tmp, "'%s' run %s -q", bin, file);
	char *err = tl_slurp(tmp, "err.txt");
	cr_expect_eq(rc, code, "%s: exit %d, want %d: %s", file, rc, code,
		     err);
	cr_expect(err && strstr(err, needle), "%s: lacks '%s': %s", file,
		  needle, err);
	free(err);
}

TestSuite(quota_types_cli, .init = cli_setup, .fini = cli_teardown);

Test(quota_types_cli, bad_per_type_input_exits_2_with_the_path)
{
	tl_put(tmp, "p.csv", philly);
	exp_with("unknown.json", "[ { \"name\": \"d\", \"projects\": [ "
		 "{ \"name\": \"aa\", \"quota\": { \"p100\": 2 } }, { \"name\": "
		 "\"bb\", \"borrow_limit\": { \"a100\": 1 } } ] } ]");
	expect_exit("unknown.json", 2, "unknown.json: $.cluster.tenants[0]"
		    ".projects[1].borrow_limit: no node group has GPU type "
		    "'a100'");
	exp_with("big.json", "[ { \"name\": \"d\", \"projects\": [ "
		 "{ \"name\": \"aa\", \"quota\": { \"p100\": 5 } }, { \"name\": "
		 "\"bb\" } ] } ]");
	expect_exit("big.json", 2, "$.cluster.tenants[0].projects[0].quota.p100: "
		    "larger than the cluster's '4' GPUs of that type, got '5'");
	/* 3 + 3 of a's 4 GPUs, in two departments. */
	exp_with("sum.json", "[ { \"name\": \"d\", \"projects\": [ "
		 "{ \"name\": \"aa\", \"quota\": { \"p100\": 3 } } ] }, "
		 "{ \"name\": \"e\", \"projects\": [ { \"name\": \"bb\", "
		 "\"quota\": { \"p100\": 3, \"v100\": 1 } } ] } ]");
	expect_exit("sum.json", 2, "$.cluster.tenants: the departments' "
		    "quotas of GPU type 'p100' add up to '6' GPUs, more than the "
		    "cluster's '4'");
	exp_with("mixed.json", "[ { \"name\": \"d\", \"projects\": [ "
		 "{ \"name\": \"aa\", \"quota\": { \"p100\": 2 } }, { \"name\": "
		 "\"bb\", \"quota\": 2 } ] } ]");
	expect_exit("mixed.json", 2, "$.cluster.tenants[0].projects[1].quota: "
		    "a number where the tenants' quotas are per GPU type");
	exp_with("lend.json", "[ { \"name\": \"d\", \"projects\": [ "
		 "{ \"name\": \"aa\", \"quota\": { \"p100\": 2 }, \"lend_limit\": "
		 "{ \"p100\": 3 } }, { \"name\": \"bb\" } ] } ]");
	expect_exit("lend.json", 2, "$.cluster.tenants[0].projects[0]"
		    ".lend_limit.p100: larger than its quota of that type '2', "
		    "got '3'");
}

/* Per-type columns (by hand: aa's job, within its a-quota, runs 60 s on
 * p100: 1/60 GPU-h guaranteed there; bb's on v100 likewise) and the summary's
 * gpu_types. */
Test(quota_types_cli, projects_csv_per_type)
{
	tl_put(tmp, "p.csv", philly);
	exp_with("ok.json", "[ { \"name\": \"d\", \"projects\": [ "
		 "{ \"name\": \"aa\", \"quota\": { \"p100\": 4 } }, { \"name\": "
		 "\"bb\", \"quota\": { \"v100\": 4 } } ] } ]");
	cr_assert_eq(tl_sh(tmp, "'%s' run ok.json -q", bin), 0);
	char *p = tl_slurp(tmp, "out/quota-s1/projects.csv");
	cr_assert(p);
	cr_expect(strstr(p, ",reclaim_lost_gpu_h,quota_gpus_p100,"
			    "gpu_h_guaranteed_p100,gpu_h_borrowed_p100,"
			    "reclaims_p100,quota_gpus_v100,gpu_h_guaranteed_v100,"
			    "gpu_h_borrowed_v100,reclaims_v100\n"), "%s", p);
	cr_expect(strstr(p, "\naa,d,4,1,1,0,0,0,60,0.016667,0.016667,0,"
			    "0.004167,0,0,0,4,0.016667,0,0,0,0,0,0\n"),
		  "%s", p);
	cr_expect(strstr(p, "\nbb,d,4,1,1,0,0,0,60,0.016667,0.016667,0,"
			    "0.004167,0,0,0,0,0,0,0,4,0.016667,0,0\n"),
		  "%s", p);
	free(p);
	/* projects_gpus.csv: a column per project and type after the
	 * projects', with its quota of the type; in the first bin (0 to
	 * 120 s / 400 = 0.3 s) aa holds its p100 GPU. */
	char *g = tl_slurp(tmp, "out/quota-s1/projects_gpus.csv");
	cr_assert(g);
	cr_expect(!strncmp(g, "time_h,aa,bb,aa.p100,aa.v100,bb.p100,bb.v100\n"
			   "quota,4,4,4,0,0,4\n0.000042,1,0,1,0,0,0\n", 84),
		  "%s", g);
	free(g);
	char *s = tl_slurp(tmp, "out/quota-s1/summary.json");
	cr_assert(s);
	cr_expect(strstr(s, "\"gpu_types\":\t{\n\t\t\t\"p100\":\t{\n"
			    "\t\t\t\t\"quota_gpus\":\t4,\n\t\t\t\t"
			    "\"gpu_h_guaranteed\":\t0.016667,\n"), "%s", s);
	free(s);
}

/* An experiment of a CSV trace whose jobs name their project by the
 * `project` column, on 8 untyped GPUs. */
static void exp_column(const char *name, const char *trace)
{
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"count\": 2, \"cpus\": 8, "
		"\"gpus\": 4 } ],\n \"tenants\": [ { \"name\": \"d\", "
		"\"projects\": [ { \"name\": \"vision\", \"quota\": 4 }, "
		"{ \"name\": \"speech\", \"quota\": 4 } ] } ] },\n"
		"  \"workload\": { \"trace\": \"%s\", \"format\": \"csv\", "
		"\"project_from\": \"column\" },\n"
		"  \"policies\": [ \"quota\" ], \"output\": \"out\" }\n", trace);
	tl_put(tmp, name, text);
	free(text);
}

/* project_from "column": jobs 1 and 3 are vision's, 2 speech's (by hand:
 * vision 2 jobs, speech 1, in projects.csv's jobs column); a name that no
 * project has is refused at its first line; an empty cell is a job of no
 * project; a trace without the column is refused. */
Test(quota_types_cli, project_from_column)
{
	tl_put(tmp, "ok.csv", "id,submit,run,cpus,gpus,project\n"
	       "1,0,60,0,1,vision\n2,0,60,0,1,speech\n3,5,60,0,1,vision\n");
	exp_column("ok.json", "ok.csv");
	cr_assert_eq(tl_sh(tmp, "'%s' run ok.json -q", bin), 0);
	char *p = tl_slurp(tmp, "out/quota-s1/projects.csv");
	cr_assert(p);
	cr_expect(strstr(p, "\nvision,d,4,1,2,0,"), "%s", p);
	cr_expect(strstr(p, "\nspeech,d,4,1,1,0,"), "%s", p);
	free(p);
	tl_put(tmp, "bad.csv", "id,submit,run,cpus,gpus,project\n"
	       "1,0,60,0,1,vision\n2,0,60,0,1,nlp\n3,5,60,0,1,nlp\n");
	exp_column("bad.json", "bad.csv");
	expect_exit("bad.json", 2, "bad.csv:3: project 'nlp' is not a "
		    "project of $.cluster.tenants");
	tl_put(tmp, "empty.csv", "id,submit,run,cpus,gpus,project\n"
	       "1,0,60,0,1,vision\n2,0,60,0,1,\n");
	exp_column("empty.json", "empty.csv");
	expect_exit("empty.json", 2, "$.workload.project_from: job '2' has no "
		    "project field, so no project");
	tl_put(tmp, "none.csv", "id,submit,run,cpus,gpus\n1,0,60,0,1\n");
	exp_column("none.json", "none.csv");
	expect_exit("none.json", 2, "$.workload.project_from: 'column' needs "
		    "a CSV trace with a 'project' column");
}

/* Three 1-GPU jobs of 60 s on 8 idle GPUs: 1 and 3 vision's, 2 speech's. */
static const char column_trace[] = "id,submit,run,cpus,gpus,project\n"
	"1,0,60,0,1,vision\n2,0,60,0,1,speech\n3,5,60,0,1,vision\n";

/*
 * A sweep of runs with tenants: its merged summary.csv has the tenant
 * columns (header and rows of the same width), and projects.csv each
 * run's projects led by the run's cells.  By hand: no job waits on the
 * idle cluster at either load scale; vision's 2 jobs hold 2 x 60 s =
 * 0.033333 GPU-h, all within its quota.  The report has a Tenants
 * section with that table.
 */
Test(quota_types_cli, sweep_merge_and_report_with_tenants)
{
	tl_put(tmp, "ok.csv", column_trace);
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"count\": 2, \"cpus\": 8, "
		"\"gpus\": 4 } ],\n \"tenants\": [ { \"name\": \"d\", "
		"\"projects\": [ { \"name\": \"vision\", \"quota\": 4 }, "
		"{ \"name\": \"speech\", \"quota\": 4 } ] } ] },\n"
		"  \"workload\": { \"trace\": \"ok.csv\", \"format\": \"csv\", "
		"\"project_from\": \"column\" },\n"
		"  \"policies\": [ \"quota\" ], \"output\": \"sw\",\n"
		"  \"sweep\": { \"workload.load_scale\": [ 1, 2 ] } }\n");
	tl_put(tmp, "sw.json", text);
	free(text);
	cr_assert_eq(tl_sh(tmp, "'%s' sweep sw.json -q --no-plots", bin), 0);
	char *s = tl_slurp(tmp, "sw/summary.csv");
	cr_assert(s);
	char *nl = strchr(s, '\n');
	cr_assert(nl);
	cr_expect(!strncmp(nl - strlen(",jain_quota,reclaims"),
			   ",jain_quota,reclaims", strlen(",jain_quota,reclaims")),
		  "%s", s);
	size_t commas[3] = { 0, 0, 0 }, line = 0;
	for (const char *c = s; *c && line < 3; c++) {
		if (*c == ',')
			commas[line]++;
		if (*c == '\n')
			line++;
	}
	cr_expect_eq(commas[0], commas[1], "%s", s);
	cr_expect_eq(commas[0], commas[2], "%s", s);
	free(s);
	char *p = tl_slurp(tmp, "sw/projects.csv");
	cr_assert(p);
	cr_expect(!strncmp(p, "label,policy,workload,seed,workload.load_scale,"
			   "project,department,", 66), "%s", p);
	cr_expect(strstr(p, "\nquota+load_scale=2,quota,ok.csv,1,2,vision,d,4,"
			    "1,2,0,0,0,60,0.033333,0.033333,0,"), "%s", p);
	cr_expect(strstr(p, "\nquota+load_scale=1,quota,ok.csv,1,1,speech,d,4,"
			    "1,1,0,0,0,60,0.016667,"), "%s", p);
	free(p);
	char *h = tl_slurp(tmp, "sw/report.html");
	cr_assert(h);
	cr_expect(strstr(h, "<section id=\"tenants\"><h2>Tenants</h2>"));
	cr_expect(strstr(h, "<table data-file=\"projects.csv\">"));
	free(h);
}

/* A run's report has each run's projects table; a run without tenants
 * has no Tenants section, and its sweep no projects.csv. */
Test(quota_types_cli, report_tenants_section_only_with_tenants)
{
	tl_put(tmp, "ok.csv", column_trace);
	exp_column("ok.json", "ok.csv");
	cr_assert_eq(tl_sh(tmp, "'%s' run ok.json -q --no-plots", bin), 0);
	char *h = tl_slurp(tmp, "out/report.html");
	cr_assert(h);
	cr_expect(strstr(h, "<h3>Projects of quota-s1 <span class=\"meta\">"
			    "(quota-s1/projects.csv)</span></h3>"), "%s", h);
	cr_expect(strstr(h, "<td>vision</td><td>d</td>"), "%s", h);
	free(h);
	tl_put(tmp, "plain.json",
	       "{ \"cluster\": { \"nodes\": [ { \"count\": 2, \"cpus\": 8, "
	       "\"gpus\": 4 } ] }, \"workload\": { \"trace\": \"ok.csv\", "
	       "\"format\": \"csv\" }, \"policies\": [ \"fcfs\" ], "
	       "\"output\": \"pl\", \"sweep\": { \"workload.load_scale\": "
	       "[ 1, 2 ] } }\n");
	cr_assert_eq(tl_sh(tmp, "'%s' sweep plain.json -q --no-plots", bin), 0);
	h = tl_slurp(tmp, "pl/report.html");
	cr_assert(h);
	cr_expect(!strstr(h, "id=\"tenants\""));
	free(h);
	char *s = tl_slurp(tmp, "pl/summary.csv");
	cr_assert(s);
	cr_expect(!strstr(s, "jain_quota"));
	free(s);
	cr_expect(tl_sh(tmp, "test -e pl/projects.csv") != 0);
}
