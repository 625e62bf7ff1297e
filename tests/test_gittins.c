/*
 * gittins, Tiresias' discretised 2D-Gittins (policies/las.c): its queues
 * are las', ordered inside by the Gittins index of the service since the
 * last promotion; a hand-worked case of the queues, the index from a
 * given distribution and a promotion, and the Tiresias 60-job trace
 * (skipped, saying so, where ../shared/traces lacks it).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/registry.h"
#include "testlib.h"
#include "base/util.h"

extern const struct policy_ops clustersim_policy_gittins;
extern const struct policy_ops clustersim_policy_las;

static const struct job *job_of(const struct sim *s, int64_t id)
{
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	for (size_t i = 0; i < n; i++)
		if (j[i].id == id)
			return &j[i];
	cr_assert_fail("no job %lld", (long long)id);
	return NULL;
}

static struct param_value pv_str(const char *key, const char *v)
{
	return (struct param_value){ .key = (char *)key,
				     .json_path = (char *)"$.p", .type = PV_STRING,
				     .str = (char *)v };
}

static struct param_value pv_num(const char *key, double v)
{
	return (struct param_value){ .key = (char *)key,
				     .json_path = (char *)"$.p", .type = PV_NUMBER,
				     .num = v };
}

/*
 * One CPU, threshold 100 CPU-s (queue 0 below it, queue 1 above), the
 * quantum delta the first threshold (100), the distribution {120, 1000}.
 * The index G(a) = (h - k) / (sum(s[k..h)) - (h - k) a + (n - h) delta),
 * s[k..h) the samples in (a, a + delta]:
 *   G(0)   = 0: no sample ends within 100;
 *   G(100) = 1 / ((120 - 100) + 1 x 100) = 1/120;
 *   G(130) = 0: 1000 is the only sample above, and beyond 230.
 * A (0 s, 1000 s) runs alone (nothing waits: no demotion until someone
 * does).  B (130 s, 1000 s) arrives: A, with 130 s, is demoted to queue 1
 * and B preempts it.  At 230 B crosses 100 and is demoted into queue 1,
 * where A waits: B's index 1/120 beats A's 0, so B keeps running (las
 * puts a demoted job behind the queue's waiting ones: A would preempt
 * it).  No wake-up re-reads the index (as Tiresias' simulator), so B
 * ends at 1130, A at 2000.  las: A 230..1100, B 1100..2000.
 */
Test(gittins, queues_and_index_hand_worked)
{
	struct tjob t[] = { { 1, 0, 1000, 1000, 1 }, { 2, 130, 1000, 1000, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct param_value pv[] = { pv_str("thresholds_s", "100"),
				    pv_str("distribution_s", "1000,120") };
	struct sim *s = tl_run_with(&clustersim_policy_gittins, pv, 2, &w, &c);
	cr_expect_eq(job_of(s, 2)->end, 1130 * SIM_SEC);
	cr_expect_eq(job_of(s, 1)->end, 2000 * SIM_SEC);
	cr_expect_eq(job_of(s, 1)->preemptions, 1);
	cr_expect_eq(job_of(s, 2)->preemptions, 0);
	sim_free(s);
	s = tl_run_with(&clustersim_policy_las, pv, 1, &w, &c);
	cr_expect_eq(job_of(s, 1)->end, 1100 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->end, 2000 * SIM_SEC);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * The same with promotion, promote_knob 1 (las' rule: a waiting job in
 * queue 1 is promoted once it has waited as long as it ran since its
 * last promotion; its service counts from 0 again, for the queue and the
 * index).  A, preempted at 130 after 130 s, is promoted at 260 and
 * preempts B (queue 0 before queue 1).  At 360 A is demoted with 100 s
 * since its promotion: index 1/120 against B's G(130) = 0, so A keeps
 * the CPU until B, which ran 130 s (130..260), is promoted at 390.  From
 * then on they take turns, 130 s each: A runs 260..390, 520..650, ...,
 * B 390..520, 650..780, ...  A has 130 + 6 x 130 = 910 s at 1690, is
 * promoted at 1820 and ends at 1910; B then has 910 s and ends at 2000.
 * Each is preempted 7 times.
 */
Test(gittins, promotion_hand_worked)
{
	struct tjob t[] = { { 1, 0, 1000, 1000, 1 }, { 2, 130, 1000, 1000, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct param_value pv[] = { pv_str("thresholds_s", "100"),
				    pv_str("distribution_s", "120,1000"),
				    pv_num("promote_knob", 1) };
	struct sim *s = tl_run_with(&clustersim_policy_gittins, pv, 3, &w, &c);
	cr_expect_eq(job_of(s, 1)->end, 1910 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->end, 2000 * SIM_SEC);
	cr_expect_eq(job_of(s, 1)->preemptions, 7);
	cr_expect_eq(job_of(s, 2)->preemptions, 7);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * in_queue_preempt, the order of Tiresias' simulator: one CPU, one queue
 * (threshold 1000), delta 1000, distribution {50, 1000}: G(a) = 2 / (1050
 * - 2a) below 50, 1 / (1000 - a) from 50.  A (0 s, 200 s) has 60 s when
 * B (60 s, 100 s) arrives: G(60) = 1/940 < G(0) = 2/1050.  With it, B
 * preempts A and runs 60..160, A ends at 300; without (the default), a
 * running job keeps its queue's place: A ends at 200, B at 300.
 */
Test(gittins, in_queue_preempt)
{
	struct tjob t[] = { { 1, 0, 200, 200, 1 }, { 2, 60, 100, 100, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 2);
	tl_cluster(&c, 1, 1);
	struct param_value pv[] = { pv_str("thresholds_s", "1000"),
				    pv_str("distribution_s", "50,1000"),
				    { .key = (char *)"in_queue_preempt",
				      .json_path = (char *)"$.p",
				      .type = PV_BOOL, .b = true } };
	struct sim *s = tl_run_with(&clustersim_policy_gittins, pv, 3, &w, &c);
	cr_expect_eq(job_of(s, 2)->end, 160 * SIM_SEC);
	cr_expect_eq(job_of(s, 1)->end, 300 * SIM_SEC);
	sim_free(s);
	s = tl_run_with(&clustersim_policy_gittins, pv, 2, &w, &c);
	cr_expect_eq(job_of(s, 1)->end, 200 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->end, 300 * SIM_SEC);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * The distribution learned from finished jobs: one CPU, one queue
 * (threshold 1000), delta 1000, in_queue_preempt.  X (0 s, 50 s) ends at
 * 50: the samples are {50}.  A (60 s, 200 s) has 60 s when B (120 s,
 * 100 s) arrives: A has outlived every sample (index 0), B's G(0) = 1/50,
 * so B preempts A, runs 120..220, and A ends at 360.  Without X nothing
 * is learned and every index is equal (FIFO by submit): A keeps the CPU
 * and ends at 260, B at 360.
 */
Test(gittins, learned_distribution)
{
	struct tjob t[] = { { 1, 0, 50, 50, 1 }, { 2, 60, 200, 200, 1 },
			    { 3, 120, 100, 100, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	tl_cluster(&c, 1, 1);
	struct param_value pv[] = { pv_str("thresholds_s", "1000"),
				    pv_num("window", 1),
				    { .key = (char *)"in_queue_preempt",
				      .json_path = (char *)"$.p",
				      .type = PV_BOOL, .b = true } };
	struct sim *s = tl_run_with(&clustersim_policy_gittins, pv, 3, &w, &c);
	cr_expect_eq(job_of(s, 3)->end, 220 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->end, 360 * SIM_SEC);
	cr_expect_eq(job_of(s, 2)->preemptions, 1);
	sim_free(s);
	workload_release(&w);
	tl_workload(&w, t + 1, 2);
	s = tl_run_with(&clustersim_policy_gittins, pv, 3, &w, &c);
	cr_expect_eq(job_of(s, 2)->end, 260 * SIM_SEC);
	cr_expect_eq(job_of(s, 3)->end, 360 * SIM_SEC);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * A learned window of 3 that keeps evicting, with equal services coming
 * and going (20 s four times): the samples are kept sorted as jobs finish
 * rather than sorted again at each pass, and the schedule is the one the
 * sort-every-pass version gave (pinned from it: jobs 3 and 5 preempted,
 * 11 behind 9 and 10).  One CPU, delta 40, in_queue_preempt.
 */
Test(gittins, learned_window_evicts)
{
	struct tjob t[] = {
		{ 1, 0, 20, 20, 1 },     { 2, 5, 20, 20, 1 },
		{ 3, 10, 70, 70, 1 },    { 4, 15, 20, 20, 1 },
		{ 5, 60, 90, 90, 1 },    { 6, 100, 20, 20, 1 },
		{ 7, 110, 70, 70, 1 },   { 8, 120, 20, 20, 1 },
		{ 9, 200, 30, 30, 1 },   { 10, 210, 20, 20, 1 },
		{ 11, 215, 90, 90, 1 },  { 12, 220, 20, 20, 1 },
	};
	const double end[] = { 20, 40, 310, 80, 490, 120,
			       190, 210, 240, 260, 400, 420 };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 12);
	tl_cluster(&c, 1, 1);
	struct param_value pv[] = { pv_str("thresholds_s", "1000"),
				    pv_num("window", 3), pv_num("delta_s", 40),
				    { .key = (char *)"in_queue_preempt",
				      .json_path = (char *)"$.p",
				      .type = PV_BOOL, .b = true } };
	struct sim *s = tl_run_with(&clustersim_policy_gittins, pv, 4, &w, &c);
	for (int i = 0; i < 12; i++)
		cr_expect_eq(job_of(s, i + 1)->end,
			     (sim_time_t)(end[i] * SIM_SEC), "job %d", i + 1);
	cr_expect_eq(job_of(s, 3)->preemptions, 1);
	cr_expect_eq(job_of(s, 5)->preemptions, 1);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* The mean JCT (response_mean) of a label's row in a summary.csv. */
static double mean_jct(const char *csv, const char *label)
{
	int col = -1, i = 0;
	for (const char *h = csv; h && *h != '\n'; i++) {
		if (strncmp(h, "response_mean,", 14) == 0)
			col = i;
		h = strchr(h, ',');
		h = h ? h + 1 : h;
	}
	cr_assert_geq(col, 0, "no response_mean column");
	size_t n = strlen(label);
	const char *line = csv;
	while ((line = strchr(line, '\n'))) {
		line++;
		if (strncmp(line, label, n) != 0 || line[n] != ',')
			continue;
		for (int k = 0; k < col; k++)
			line = strchr(line, ',') + 1;
		return atof(line);
	}
	cr_assert_fail("no row '%s'", label);
	return 0;
}

/*
 * The Tiresias 60-job testbed trace, 10 s restores: the recorded mean
 * JCTs.  On 16 GPUs (experiments/tiresias-60.json) gittins is las, as
 * every job stays under the 3,200 GPU-s threshold and a job that never
 * ran has the same index as any other (G(0)): 213.3 s against fcfs'
 * 230.7 s; the continuous index, which lets a new job preempt a running
 * one, is 283.6 s.  On the paper's 60 GPUs (15 x 4 P100,
 * experiments/tiresias-60-gpus60.json) no job waits: all are 184.4 s.
 */
Test(gittins, tiresias_60_trace)
{
	static const char *trace = "../shared/traces/gpu/tiresias-60job.csv";
	static const struct {
		const char *file, *label;
		double jct;
	} want[] = {
		{ "tiresias-60", "fcfs", 230.672401 },
		{ "tiresias-60", "las", 213.341238 },
		{ "tiresias-60", "gittins", 213.341238 },
		{ "tiresias-60", "gittins_cont", 283.626982 },
		{ "tiresias-60-gpus60", "fcfs", 184.407027 },
		{ "tiresias-60-gpus60", "las", 184.407027 },
		{ "tiresias-60-gpus60", "gittins", 184.407027 },
	};
	char bin[4096], tmp[4096], cwd[4096];
	if (access(trace, R_OK) != 0)
		cr_skip_test("%s absent: the trace check needs it", trace);
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "gittins");
	tl_cli_need_bin(bin);
	cr_assert(getcwd(cwd, sizeof(cwd)));
	for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
		if (k == 0 || strcmp(want[k].file, want[k - 1].file) != 0) {
			int rc = tl_sh(tmp, "'%s' run '%s/experiments/%s.json' "
				       "--no-plots -o %s", bin, cwd,
				       want[k].file, want[k].file);
			cr_assert_eq(rc, 0, "%s: rc %d", want[k].file, rc);
		}
		char *name = xasprintf("%s/summary.csv", want[k].file);
		char *csv = tl_slurp(tmp, name);
		cr_assert_not_null(csv, "%s", name);
		cr_expect_float_eq(mean_jct(csv, want[k].label), want[k].jct,
				   1e-6, "%s %s", want[k].file, want[k].label);
		free(csv);
		free(name);
	}
	tl_rmtree(tmp);
}
