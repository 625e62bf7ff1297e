/*
 * Tenants and the quota policy (docs/tenants.md, policies/quota.c): each
 * rule on a hand-worked case (borrowing, the lending and borrowing
 * limits, reclaim with each victim choice, interactive jobs only within
 * quota and never reclaimed, the over-quota share by weight), the books
 * against the jobs on a random workload with reclaims (conservation),
 * and the experiment file's errors through the command line.
 *
 * All jobs run at reference speed (no speed model): a job of run R ends
 * R seconds after it starts, plus what a preemption made it redo.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/util.h"
#include "policy/registry.h"
#include "testlib.h"

/* A tenant row of a test: department rows have parent -1. */
struct tten {
	const char *name;
	int32_t parent;
	double quota, borrow, lend, weight; /* GPUs; borrow, lend < 0: none */
};

/* A job of a test: project index into the tenant list, GPUs, kind. */
struct tqjob {
	int64_t id;
	double submit, run;
	uint32_t gpus;
	int32_t tenant;   /* its project's index in the tenant list */
	bool interactive;
};

struct tq {
	struct workload w;
	struct cluster_spec c;
	struct sim *s;
};

static uint64_t milli(double g)
{
	return g < 0 ? TENANT_NO_LIMIT : (uint64_t)llround(g * 1000);
}

/* One node of `gpus` GPUs with the tenants; the jobs name their project
 * by group name (project_from "vc"). */
static void tq_setup(struct tq *q, uint32_t gpus, const struct tten *t,
		     size_t nt, const struct tqjob *jobs, size_t nj)
{
	memset(q, 0, sizeof(*q));
	tl_gpu_cluster(&q->c, 1, gpus, NULL, 0);
	q->c.tenants = xcalloc(nt, sizeof(*q->c.tenants));
	q->c.ntenants = nt;
	for (size_t i = 0; i < nt; i++)
		q->c.tenants[i] = (struct tenant_spec){
			.name = xstrdup(t[i].name), .parent = t[i].parent,
			.quota = milli(t[i].quota),
			.borrow_limit = milli(t[i].borrow),
			.lend_limit = milli(t[i].lend),
			.weight = t[i].weight > 0 ? t[i].weight : 1,
		};
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
		const struct tqjob *src = NULL;
		for (size_t k = 0; k < nj; k++)
			if (jobs[k].id == j->id)
				src = &jobs[k];
		j->group = src->tenant;
		if (src->interactive)
			j->flags |= JOB_INTERACTIVE;
	}
	free(tj);
	free(g);
}

/* Runs quota with a victim choice, checkpoints every `ckpt` seconds of
 * work (0: at the preemption) and no restore cost. */
static void tq_run(struct tq *q, const char *victim, double ckpt,
		   const char *borrowing)
{
	struct param_value pv[2] = {
		{ .key = (char *)"victim", .json_path = (char *)"$.v",
		  .type = PV_STRING, .str = (char *)victim },
		{ .key = (char *)"borrowing", .json_path = (char *)"$.b",
		  .type = PV_BOOL, .b = !borrowing || !strcmp(borrowing, "on") },
	};
	struct sim_config base = {
		.workload = &q->w,
		.cluster = &q->c,
		.project_from = TENANT_FROM_VC,
		.checkpoint_interval = (sim_time_t)(ckpt * SIM_SEC),
	};
	q->s = tl_run_cfg("quota", pv, 2, &base);
}

static void tq_free(struct tq *q)
{
	sim_free(q->s);
	workload_release(&q->w);
	cluster_spec_release(&q->c);
}

static const struct job *job_of(const struct tq *q, int64_t id)
{
	size_t n;
	const struct job *j = sim_jobs(q->s, &n);
	for (size_t i = 0; i < n; i++)
		if (j[i].id == id)
			return &j[i];
	cr_assert_fail("no job %lld", (long long)id);
	return NULL;
}

static double end_of(const struct tq *q, int64_t id)
{
	return (double)job_of(q, id)->end / SIM_SEC;
}

/* Department D (the sum of its projects' quotas) with A and B, 4 each. */
static const struct tten ab[] = {
	{ "D", -1, 8, -1, -1, 1 },
	{ "A", 0, 4, -1, -1, 1 },
	{ "B", 0, 4, -1, -1, 1 },
};

/* A's eight 1-GPU jobs of 100 s, submitted at 0, 1, ..., 7 (or all at 0),
 * and B's job 9 of 50 s at 10. */
static void eight_and_one(struct tqjob *j, bool staggered)
{
	for (int i = 0; i < 8; i++)
		j[i] = (struct tqjob){ i + 1, staggered ? i : 0, 100, 1, 1,
				       false };
	j[8] = (struct tqjob){ 9, 10, 50, 1, 2, false };
}

/*
 * Borrowing and reclaim, victim newest (the policy file's example): on 8
 * GPUs A's 8 jobs all start at 0, 4 of them borrowing B's idle quota.  B's
 * job at 10 is within B's quota and nothing is free: the newest of A's
 * jobs (all started at 0: the highest index, job 8) is preempted and B's
 * job starts at 10, the same timestamp.  Job 8 kept its 10 s (checkpoint
 * at the preemption), waits until B's job ends at 60 (A is over quota:
 * it borrows again), and ends at 60 + 90 = 150.
 * A's books: guaranteed 4 GPUs x 100 s + 1 GPU x 50 s (job 8 alone after
 * 100) = 450 GPU-s; borrowed 4 x 10 + 3 x 50 + 4 x 40 = 350 GPU-s; one
 * reclaim, no work lost.
 */
Test(quota, borrow_and_reclaim_newest)
{
	struct tqjob j[9];
	struct tq q;
	eight_and_one(j, false);
	tq_setup(&q, 8, ab, 3, j, 9);
	tq_run(&q, "newest", 0, NULL);
	for (int64_t id = 1; id <= 8; id++)
		cr_expect_eq(tl_start(q.s, id), 0, "job %lld", (long long)id);
	cr_expect_eq(tl_start(q.s, 9), 10);
	cr_expect_eq(job_of(&q, 8)->preemptions, 1);
	cr_expect_eq(end_of(&q, 8), 150);
	for (int64_t id = 1; id <= 7; id++)
		cr_expect_eq(end_of(&q, id), 100);
	const struct tenant_books *b = sim_tenant_books(q.s);
	cr_assert(b);
	cr_expect_float_eq(b->gpu_s_guaranteed[1], 450, 1e-9);
	cr_expect_float_eq(b->gpu_s_borrowed[1], 350, 1e-9);
	cr_expect_float_eq(b->gpu_s_guaranteed[2], 50, 1e-9);
	cr_expect_float_eq(b->gpu_s_borrowed[2], 0, 1e-9);
	cr_expect_eq(b->reclaims[1], 1);
	cr_expect_eq(b->reclaims[2], 0);
	cr_expect_float_eq(b->reclaim_lost_gpu_s[1], 0, 1e-9);
	tq_free(&q);
}

/*
 * Victim choices on A's jobs submitted at 0, 1, ..., 7 (job k starts at
 * k - 1), with a checkpoint every 4 s of work.  At 10 job k has done
 * 11 - k s, of which (11 - k) mod 4 since its last checkpoint: jobs 1..8
 * hold 2, 1, 0, 3, 2, 1, 0, 3.
 * - newest: job 8 (started at 7) is preempted; it loses 3 s: 3 GPU-s.
 * - progress: the least unsaved work, 0 s, is jobs 3 and 7's; the newer,
 *   job 7, goes; nothing is lost.
 */
Test(quota, victim_newest_and_progress)
{
	struct tqjob j[9];
	struct tq q;
	eight_and_one(j, true);
	tq_setup(&q, 8, ab, 3, j, 9);
	tq_run(&q, "newest", 4, NULL);
	cr_expect_eq(tl_start(q.s, 9), 10);
	cr_expect_eq(job_of(&q, 8)->preemptions, 1);
	cr_expect_eq(job_of(&q, 7)->preemptions, 0);
	cr_expect_float_eq(sim_tenant_books(q.s)->reclaim_lost_gpu_s[1], 3,
			   1e-6);
	tq_free(&q);

	tq_setup(&q, 8, ab, 3, j, 9);
	tq_run(&q, "progress", 4, NULL);
	cr_expect_eq(tl_start(q.s, 9), 10);
	cr_expect_eq(job_of(&q, 7)->preemptions, 1);
	cr_expect_eq(job_of(&q, 8)->preemptions, 0);
	cr_expect_eq(job_of(&q, 3)->preemptions, 0);
	cr_expect_float_eq(sim_tenant_books(q.s)->reclaim_lost_gpu_s[1], 0,
			   1e-6);
	tq_free(&q);
}

/*
 * Victim priority: A (quota 2, weight 1) and C (quota 2, weight 2) each
 * run 4 jobs on 8 GPUs, 2 of them borrowed (A's at 0, C's at 1); B's job
 * at 10 takes one back.  priority preempts in the project of lowest
 * weight, A, its newest (all started at 0: job 4); newest would have
 * taken C's job 8 (started at 1).
 */
Test(quota, victim_priority)
{
	static const struct tten t[] = {
		{ "D", -1, 8, -1, -1, 1 },
		{ "A", 0, 2, -1, -1, 1 },
		{ "C", 0, 2, -1, -1, 2 },
		{ "B", 0, 4, -1, -1, 1 },
	};
	struct tqjob j[9];
	for (int i = 0; i < 4; i++) {
		j[i] = (struct tqjob){ i + 1, 0, 100, 1, 1, false };
		j[i + 4] = (struct tqjob){ i + 5, 1, 100, 1, 2, false };
	}
	j[8] = (struct tqjob){ 9, 10, 50, 1, 3, false };
	struct tq q;
	tq_setup(&q, 8, t, 4, j, 9);
	tq_run(&q, "priority", 0, NULL);
	cr_expect_eq(tl_start(q.s, 9), 10);
	cr_expect_eq(job_of(&q, 4)->preemptions, 1);
	cr_expect_eq(job_of(&q, 8)->preemptions, 0);
	tq_free(&q);

	tq_setup(&q, 8, t, 4, j, 9);
	tq_run(&q, "newest", 0, NULL);
	cr_expect_eq(job_of(&q, 8)->preemptions, 1);
	cr_expect_eq(job_of(&q, 4)->preemptions, 0);
	tq_free(&q);
}

/*
 * Interactive jobs: A's jobs 1-4 are interactive and fill its quota; its
 * train jobs 5-8 borrow B's 4 GPUs.  B's job at 10 reclaims the newest
 * train job (8); the interactive ones are never candidates.  Then A's
 * interactive job 10 at 20 is over A's quota (A holds 7 > 4): it may not
 * borrow, though B's job ends at 60 and leaves a GPU idle; it waits for
 * A's first jobs to end at 100.  (Job 8 restarts at 60 on that GPU: a
 * train job may borrow.)
 */
Test(quota, interactive_within_quota_never_reclaimed)
{
	struct tqjob j[10];
	eight_and_one(j, false);
	for (int i = 0; i < 4; i++)
		j[i].interactive = true;
	j[9] = (struct tqjob){ 10, 20, 10, 1, 1, true };
	struct tq q;
	tq_setup(&q, 8, ab, 3, j, 10);
	tq_run(&q, "newest", 0, NULL);
	for (int64_t id = 1; id <= 4; id++)
		cr_expect_eq(job_of(&q, id)->preemptions, 0);
	cr_expect_eq(job_of(&q, 8)->preemptions, 1);
	cr_expect_eq(tl_start(q.s, 9), 10);
	cr_expect_eq(tl_start(q.s, 10), 100);
	tq_free(&q);
}

/*
 * Lending limit: B lends at most 1 of its 4 idle GPUs.  A's 8 jobs at 0:
 * 4 within quota and 1 borrowed start; the other 3 wait until A's jobs
 * end at 100 and then start within quota.  Borrowing limit: A may hold
 * at most 2 above its quota: 6 start at 0.  Borrowing off (hard
 * partitions): 4.
 */
Test(quota, lending_and_borrowing_limits)
{
	struct tqjob j[8];
	for (int i = 0; i < 8; i++)
		j[i] = (struct tqjob){ i + 1, 0, 100, 1, 1, false };
	struct tten t[3];
	memcpy(t, ab, sizeof(t));
	struct tq q;
	const int want[3] = { 5, 6, 4 };
	for (int c = 0; c < 3; c++) {
		memcpy(t, ab, sizeof(t));
		if (c == 0)
			t[2].lend = 1;
		if (c == 1)
			t[1].borrow = 2;
		tq_setup(&q, 8, t, 3, j, 8);
		tq_run(&q, "newest", 0, c == 2 ? "off" : "on");
		int at0 = 0;
		for (int64_t id = 1; id <= 8; id++) {
			double st = tl_start(q.s, id);
			cr_expect(st == 0 || st == 100, "case %d job %lld: %g", c,
				  (long long)id, st);
			at0 += st == 0;
		}
		cr_expect_eq(at0, want[c], "case %d: %d started at 0", c, at0);
		tq_free(&q);
	}
}

/*
 * The over-quota share by weight: 6 GPUs, A (weight 2) and B (weight 1),
 * both of quota 0, each with six 1-GPU jobs at 0.  Progressive filling
 * by (over-quota GPUs after the start) / weight, ties to the first
 * project: A (1/2), A (2/2 vs 1/1), B (1), A (3/2), A (2/2 vs 2/1), B:
 * A 4, B 2, the 2 : 1 of the weights.
 */
Test(quota, over_quota_share_by_weight)
{
	static const struct tten t[] = {
		{ "D", -1, 0, -1, -1, 1 },
		{ "A", 0, 0, -1, -1, 2 },
		{ "B", 0, 0, -1, -1, 1 },
	};
	struct tqjob j[12];
	for (int i = 0; i < 6; i++) {
		j[i] = (struct tqjob){ i + 1, 0, 100, 1, 1, false };
		j[i + 6] = (struct tqjob){ i + 7, 0, 100, 1, 2, false };
	}
	struct tq q;
	tq_setup(&q, 6, t, 3, j, 12);
	tq_run(&q, "newest", 0, NULL);
	int a = 0, b = 0;
	for (int64_t id = 1; id <= 12; id++)
		if (tl_start(q.s, id) == 0)
			*(id <= 6 ? &a : &b) += 1;
	cr_expect_eq(a, 4);
	cr_expect_eq(b, 2);
	tq_free(&q);
}

/*
 * Conservation on a random workload with reclaims: 3 projects on 16
 * GPUs, 300 jobs of 1-8 GPUs.  Every job ends exactly once; the
 * GPU-seconds of the books (guaranteed + borrowed, all projects) equal
 * the GPU-seconds the jobs were charged (attained, a second method); the
 * GPUs held never exceed the cluster (the log summed); reclaims happened
 * and are no more than the preemptions.
 */
Test(quota, conservation_with_reclaim)
{
	static const struct tten t[] = {
		{ "D", -1, 16, -1, -1, 1 },
		{ "A", 0, 8, -1, -1, 1 },
		{ "B", 0, 4, -1, -1, 2 },
		{ "C", 0, 4, -1, -1, 1 },
	};
	enum { N = 300 };
	struct tqjob *j = xcalloc(N, sizeof(*j));
	uint64_t x = 12345;
	for (int i = 0; i < N; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		j[i] = (struct tqjob){ i + 1, i * 7.0, 20 + (double)(x >> 54),
				       1 + (uint32_t)((x >> 20) % 8),
				       1 + (int32_t)((x >> 40) % 3),
				       false };
		/* interactive: 1 in 10, of the jobs within B's and C's
		 * quota */
		j[i].interactive = (x >> 30) % 10 == 0 && j[i].gpus <= 4;
	}
	struct tq q;
	tq_setup(&q, 16, t, 4, j, N);
	tq_run(&q, "progress", 5, NULL);
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
	uint64_t reclaims = 0;
	for (size_t k = 1; k < 4; k++) {
		books += b->gpu_s_guaranteed[k] + b->gpu_s_borrowed[k];
		reclaims += b->reclaims[k];
	}
	cr_expect_float_eq(books, attained, 1e-6 * attained);
	cr_expect_gt(reclaims, 0);
	cr_expect_leq(reclaims, pre);
	uint64_t used[4] = { 0 }, most = 0;
	for (size_t i = 0; i < b->nlog; i++) {
		used[b->log[i].tenant] = b->log[i].used;
		uint64_t all = used[1] + used[2] + used[3];
		if (i + 1 == b->nlog || b->log[i + 1].t != b->log[i].t)
			most = all > most ? all : most;
	}
	cr_expect_leq(most, 16000);
	cr_expect_eq(used[0], 0); /* all given back */
	tq_free(&q);
	free(j);
}

/*
 * interactive_fraction: 400 jobs of A (quota 4), every fourth of 8 GPUs.
 * With 0.25, the 300 jobs of 1 GPU are drawn interactive about 75 times
 * (binomial: 4.5 standard deviations either side is 50..100), the same
 * jobs in a second run of the seed, and never a job of 8 GPUs (larger
 * than A's quota: it could never start).
 */
Test(quota, interactive_fraction_draw)
{
	enum { N = 400 };
	struct tqjob *j = xcalloc(N, sizeof(*j));
	for (int i = 0; i < N; i++)
		j[i] = (struct tqjob){ i + 1, i, 10, i % 4 == 3 ? 8 : 1, 1,
				       false };
	uint32_t flags[N];
	for (int pass = 0; pass < 2; pass++) {
		struct tq q;
		tq_setup(&q, 8, ab, 3, j, N);
		struct sim_config base = {
			.workload = &q.w, .cluster = &q.c,
			.project_from = TENANT_FROM_VC,
			.interactive_fraction = 0.25,
		};
		q.s = tl_run_cfg("fcfs", NULL, 0, &base);
		size_t n;
		const struct job *js = sim_jobs(q.s, &n);
		int k = 0;
		for (size_t i = 0; i < n; i++) {
			bool in = js[i].flags & JOB_INTERACTIVE;
			k += in;
			if (js[i].gpus == 8)
				cr_expect(!in, "job %lld", (long long)js[i].id);
			if (pass == 0)
				flags[i] = js[i].flags;
			else
				cr_expect_eq(flags[i], js[i].flags);
		}
		cr_expect(k >= 50 && k <= 100, "%d interactive", k);
		tq_free(&q);
	}
	free(j);
}

/* ---- The experiment file, through the command line ---- */

static char tmp[256], bin[512];

static void cli_setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "quota");
	tl_cli_need_bin(bin);
}

static void cli_teardown(void)
{
	tl_rmtree(tmp);
}

/* Two VCs' jobs of 1 GPU (a Philly-format trace). */
static const char philly[] =
	"timestamp,duration,num_gpus,gpu_time,cluster\n"
	"2017-10-09 07:01:55,60.0,1,60.0,aa\n"
	"2017-10-09 07:02:55,60.0,1,60.0,bb\n";

/* An experiment with these tenants on 2 nodes of 4 GPUs. */
static void exp_with(const char *name, const char *tenants)
{
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"count\": 2, \"cpus\": 8, "
		"\"gpus\": 4 } ],\n \"tenants\": %s },\n"
		"  \"workload\": { \"trace\": \"p.csv\", \"format\": "
		"\"philly\" },\n"
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

TestSuite(quota_cli, .init = cli_setup, .fini = cli_teardown);

Test(quota_cli, bad_input_exits_2_with_the_path)
{
	tl_put(tmp, "p.csv", philly);
	exp_with("big.json", "[ { \"name\": \"d\", \"projects\": [ "
		 "{ \"name\": \"aa\", \"quota\": 9 }, { \"name\": \"bb\" } ] } ]");
	expect_exit("big.json", 2, "big.json: $.cluster.tenants[0].projects[0]"
		    ".quota: larger than the cluster's '8' GPUs, got '9'");
	exp_with("unknown.json", "[ { \"name\": \"d\", \"projects\": [ "
		 "{ \"name\": \"aa\", \"quota\": 4 } ] } ]");
	expect_exit("unknown.json", 2, "$.workload.project_from: job '2' "
		    "names project 'bb' that no project of $.cluster.tenants "
		    "has");
	exp_with("lend.json", "[ { \"name\": \"d\", \"projects\": [ "
		 "{ \"name\": \"aa\", \"quota\": 2, \"lend_limit\": 3 }, "
		 "{ \"name\": \"bb\" } ] } ]");
	expect_exit("lend.json", 2, "$.cluster.tenants[0].projects[0]"
		    ".lend_limit: larger than its quota '2', got '3'");
	exp_with("sum.json", "[ { \"name\": \"d\", \"quota\": 4, \"projects\": "
		 "[ { \"name\": \"aa\", \"quota\": 3 }, { \"name\": \"bb\", "
		 "\"quota\": 3 } ] } ]");
	expect_exit("sum.json", 2, "$.cluster.tenants[0].projects: their "
		    "quotas add up to '6' GPUs, more than the department's "
		    "quota '4'");
	exp_with("borrow.json", "[ { \"name\": \"d\", \"borrow_limit\": 1, "
		 "\"projects\": [ { \"name\": \"aa\", \"borrow_limit\": 2 }, "
		 "{ \"name\": \"bb\" } ] } ]");
	expect_exit("borrow.json", 2, "$.cluster.tenants[0].projects[0]"
		    ".borrow_limit: larger than its department's '1', got '2'");
	exp_with("type.json", "[ { \"name\": \"d\", \"projects\": [ "
		 "{ \"name\": \"aa\", \"quota\": { \"p100\": 2 } } ] } ]");
	expect_exit("type.json", 2, "$.cluster.tenants[0].projects[0].quota: "
		    "no node group has GPU type 'p100'");
}

/* A run with tenants writes projects.csv (rows by hand: each VC's one
 * job of 60 s, 1 GPU, no wait on the idle cluster: 1/60 GPU-h, within
 * its quota) and the summary's columns; a run without writes neither. */
Test(quota_cli, projects_csv)
{
	tl_put(tmp, "p.csv", philly);
	exp_with("ok.json", "[ { \"name\": \"d\", \"projects\": [ "
		 "{ \"name\": \"aa\", \"quota\": 4 }, { \"name\": \"bb\", "
		 "\"quota\": 4, \"weight\": 2 } ] } ]");
	cr_assert_eq(tl_sh(tmp, "'%s' run ok.json -q", bin), 0);
	char *p = tl_slurp(tmp, "out/quota-s1/projects.csv");
	cr_assert(p);
	cr_expect(strstr(p, "\naa,d,4,1,1,0,0,0,60,0.016667,0.016667,0,"
			    "0.004167,0,0,0\n"), "%s", p);
	cr_expect(strstr(p, "\nbb,d,4,2,1,0,0,0,60,0.016667,"), "%s", p);
	free(p);
	char *s = tl_slurp(tmp, "out/summary.csv");
	cr_assert(s);
	cr_expect(strstr(s, ",jain_quota,reclaims\n"), "%s", s);
	cr_expect(strstr(s, ",1,0\n"), "%s", s); /* equal shares: Jain 1 */
	free(s);
}
