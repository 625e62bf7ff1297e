/*
 * Shaped large-model jobs through the reader and the engine: the CSV
 * columns dp, tp, pp and their errors, and the placement that knows the
 * shape against the "shape_blind" one on a cluster whose free GPUs are
 * scattered (docs/placement.md, "Shaped jobs").
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "testlib.h"
#include "workload/workload.h"

extern const struct policy_ops clustersim_policy_fcfs;

/* Loads text as a CSV trace; the message, with the path cut to "F". */
static int sj_load(const char *text, struct workload *w, struct sim_error *err)
{
	char path[] = "/tmp/clustersim-shape-XXXXXX";
	int fd = mkstemp(path);
	struct trace_opts o;
	size_t n = strlen(text), k = strlen(path);
	int rc;

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	trace_opts_default(&o);
	o.format = TRACE_CSV;
	rc = trace_load_csv(path, &o, w, err);
	unlink(path);
	if (rc && strncmp(err->msg, path, k) == 0) {
		err->msg[0] = 'F';
		memmove(err->msg + 1, err->msg + k, strlen(err->msg + k) + 1);
	}
	return rc;
}

static void sj_error(const char *text, const char *msg)
{
	struct workload w;
	struct sim_error err = {{0}};

	cr_assert_eq(sj_load(text, &w, &err), -SIM_EINPUT, "%s", text);
	cr_expect_str_eq(err.msg, msg);
}

/* dp defaults to gpus / (tp x pp), tp and pp to 1; no cells: no shape. */
Test(shaped_jobs, csv_columns)
{
	struct workload w;
	struct sim_error err = {{0}};

	cr_assert_eq(sj_load("id,submit,run,cpus,gpus,dp,tp,pp\n"
			     "1,0,10,0,16,,4,2\n2,1,10,0,8,8,,\n"
			     "3,2,10,0,4,,,\n", &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 3);
	cr_expect_eq(w.jobs[0].tp, 4);
	cr_expect_eq(w.jobs[0].pp, 2);
	cr_expect_eq(w.jobs[1].tp, 1);
	cr_expect_eq(w.jobs[1].pp, 1);
	cr_expect_eq(w.jobs[2].tp, 0);
	cr_expect_eq(w.jobs[2].pp, 0);
	workload_release(&w);
}

Test(shaped_jobs, csv_errors_name_the_line)
{
	sj_error("id,submit,run,cpus,gpus,dp,tp,pp\n1,0,10,0,8,2,4,2\n",
		 "F:2: dp x tp x pp is not the job's gpus: '2 x 4 x 2' != "
		 "'8'");
	sj_error("id,submit,run,cpus,gpus,tp\n1,0,10,0,6,4\n",
		 "F:2: dp x tp x pp is not the job's gpus: '1 x 4 x 1' != "
		 "'6'");
	sj_error("id,submit,run,cpus,tp\n1,0,10,4,2\n",
		 "F:2: tp '2' needs a job with GPUs");
	sj_error("id,submit,run,cpus,gpus,tp,pp\n1,0,10,0,8,-4,2\n",
		 "F:2: dp, tp and pp must be positive, got '0 -4 2'");
	sj_error("id,submit,run,cpus,gpus,pp\n1,0,10,0,8,70000\n",
		 "F:2: pp '70000' is out of range");
}

/* Job id's start, or -1. */
static double sj_start(struct sim *s, int64_t id, uint32_t *nodes)
{
	size_t n;
	const struct job *j = sim_jobs(s, &n);

	for (size_t i = 0; i < n; i++)
		if (j[i].id == id) {
			*nodes = j[i].nodes_used;
			return j[i].state == JOB_REJECTED ? -2 :
			       (double)j[i].start / SIM_SEC;
		}
	return -1;
}

/*
 * 3 nodes x 8 GPUs, fcfs.  Jobs 1-3 (5 GPUs each, 0 s, 1,000 s) go one to
 * a node under consolidate (the tightest node holding 5 is an empty one):
 * 3 GPUs free on each node, 9 in all.  Job 4 (10 s, 100 s) is tp 4 x
 * pp 2 = 8 GPUs:
 *   consolidate: no node has 4 free, so no tp group fits; it waits for
 *     the three to end and starts at 1,000 on one node (the tightest
 *     node with 2 slots of 4);
 *   shape_blind: 8 of the 9 free GPUs fit by count: it starts at 10 on
 *     three nodes (3 + 3 + 2), its tp groups split across nodes.
 * Job 5 (20 s) asks tp 16: no node has 16 GPUs, so knowing the shape it
 * can never be placed (rejected); blind, it runs after job 4.
 */
Test(shaped_jobs, shape_aware_waits_for_whole_tp_groups)
{
	struct tjob t[] = {
		{ 1, 0, 1000, 1000, 5 }, { 2, 0, 1000, 1000, 5 },
		{ 3, 0, 1000, 1000, 5 }, { 4, 10, 100, 100, 8 },
		{ 5, 20, 100, 100, 16 },
	};
	struct { const char *name; double start4; uint32_t nodes4;
		 double start5; } want[] = {
		{ "consolidate", 1000, 1, -2 },
		{ "shape_blind", 10, 3, 1000 },
	};
	struct workload w;
	struct cluster_spec c;

	tl_workload(&w, t, 5);
	for (size_t i = 0; i < w.n; i++) {
		w.jobs[i].gpus = w.jobs[i].cpus;
		w.jobs[i].cpus = 0;
	}
	w.jobs[3].tp = 4;
	w.jobs[3].pp = 2;
	w.jobs[4].tp = 16;
	w.jobs[4].pp = 1;
	tl_cluster(&c, 3, 8);
	c.groups[0].gpus = 8;
	for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
		struct param_value pv = {
			.key = (char *)"placement",
			.json_path = (char *)"$.policies[0].params.placement",
			.type = PV_STRING, .str = (char *)want[k].name,
		};
		struct sim *s = tl_run_with(&clustersim_policy_fcfs, &pv, 1,
					    &w, &c);
		uint32_t nodes = 0, n5 = 0;

		cr_expect_eq(sj_start(s, 4, &nodes), want[k].start4, "%s",
			     want[k].name);
		cr_expect_eq(nodes, want[k].nodes4, "%s: %u nodes",
			     want[k].name, nodes);
		cr_expect_eq(sj_start(s, 5, &n5), want[k].start5, "%s",
			     want[k].name);
		/* fcfs starts only what fits: a fit test blind to the shape
		 * would have it try job 4 at 10 s and be refused. */
		cr_expect_eq(sim_counters(s)->bad_calls, 0, "%s",
			     want[k].name);
		sim_free(s);
	}
	workload_release(&w);
	cluster_spec_release(&c);
}

extern const struct policy_ops clustersim_policy_easy;

/*
 * EASY's reservation for a shaped head counts tp slots, not GPUs.
 * 3 nodes x 8 GPUs.  At 0, X1 and X2 (5 GPUs, 100 s) and X3 (5 GPUs,
 * 1,000 s) take one node each (consolidate): 3 GPUs free on each, 9 in
 * all.  At 1 the head H, tp 4 x pp 2 (8 GPUs, 100 s), cannot be placed:
 * no node has 4 free.  At 2 C (3 GPUs, 50 s) arrives.
 *   GPUs alone: 9 >= 8 free now, so H's shadow time is now (1) with 1
 *     extra GPU: C neither ends by then nor fits in 1 GPU, and waits
 *     until H starts at 100 (X1 and X2 end): C starts at 100 too.
 *   Slots: none now; at 100 (X1, X2 end) nodes 0 and 1 hold 2 slots
 *     each, 4 >= 2: shadow 100.  C ends by then (2 + 50 = 52 <= 100)
 *     and starts at 2; H still starts at 100.
 */
Test(shaped_jobs, easy_reserves_whole_tp_slots)
{
	struct tjob t[] = {
		{ 1, 0, 100, 100, 5 }, { 2, 0, 100, 100, 5 },
		{ 3, 0, 1000, 1000, 5 }, { 4, 1, 100, 100, 8 },
		{ 5, 2, 50, 50, 3 },
	};
	struct workload w;
	struct cluster_spec c;
	struct param_value pv = {
		.key = (char *)"placement",
		.json_path = (char *)"$.policies[0].params.placement",
		.type = PV_STRING, .str = (char *)"consolidate",
	};

	tl_workload(&w, t, 5);
	for (size_t i = 0; i < w.n; i++) {
		w.jobs[i].gpus = w.jobs[i].cpus;
		w.jobs[i].cpus = 0;
	}
	w.jobs[3].tp = 4;
	w.jobs[3].pp = 2;
	tl_cluster(&c, 3, 8);
	c.groups[0].gpus = 8;
	struct sim *s = tl_run_with(&clustersim_policy_easy, &pv, 1, &w, &c);
	uint32_t nodes = 0;
	cr_expect_eq(sj_start(s, 3, &nodes), 0);
	cr_expect_eq(sj_start(s, 4, &nodes), 100);
	cr_expect_eq(sj_start(s, 5, &nodes), 2, "C at %g",
		     sj_start(s, 5, &nodes));
	cr_expect_eq(sim_counters(s)->bad_calls, 0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}
