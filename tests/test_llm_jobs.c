/*
 * Large-model jobs in a run (speed/speed_llm.c, docs/parallelism.md):
 * the speed model's rate of a job against the step time of llm_step.c
 * on a placement described by hand, a tp group split across nodes, two
 * jobs sharing a leaf uplink, the memory fit, and the CSV `model` column.
 *
 * The cluster: 4 nodes of 8 A100-80GB, racks of 2 nodes, 200 Gb/s of
 * NIC per GPU (1,600 Gb/s per node: 25 GB/s per GPU), no latency; the
 * reference type is the A100 too, so a job on an ideal placement runs
 * at rate 1.  The model is llm_step.c's worked example (l = 4, h = 4096,
 * a = 32, s = 2048, V = 51200, b = 1, m = 4).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "speed/jobclass_gpu.h"
#include "speed/llm_megatron.h"
#include "speed/speed.h"
#include "testlib.h"
#include "workload/workload.h"

static struct llm_job lj_example(void)
{
	struct llm_job lj = { .microbatches = 4, .micro_batch = 1 };
	lj.model.name = "example";
	lj.model.layers = 4;
	lj.model.hidden = 4096;
	lj.model.heads = 32;
	lj.model.seq_len = 2048;
	lj.model.vocab = 51200;
	llm_model_defaults(&lj.model);
	return lj;
}

struct lj_fixture {
	struct cluster_spec c;
	struct net_spec net;
	struct speed *sp;
	struct llm_job lj;
	int a100;
};

static void lj_setup(struct lj_fixture *f, double uplink_gbps)
{
	f->a100 = jobclass_gpu_find("a100-80gb");
	cr_assert(f->a100 >= 0);
	tl_gpu_cluster(&f->c, 4, 8, "a100-80gb", 2);
	net_spec_default(&f->net);
	f->net.rack_nodes = 2;
	f->net.nic_gbps = 1600;
	f->net.uplinks = 1;
	f->net.uplink_gbps = uplink_gbps;
	f->net.oversubscription = 0;
	f->net.latency_usec = 0;
	f->net.nvlink_gBps = 300;
	f->sp = speed_new(&f->c, &f->net, f->a100, NULL);
	f->lj = lj_example();
	speed_set_llm(f->sp, &f->lj, 1);
}

static void lj_teardown(struct lj_fixture *f)
{
	speed_free(f->sp);
	cluster_spec_release(&f->c);
}

/* A job of idx with tp, pp on the given nodes, per GPUs on each, ranks
 * in node order (what the shape-blind launcher does). */
static void lj_start(struct lj_fixture *f, struct job *j, uint32_t idx,
		     uint16_t tp, uint16_t pp, const uint32_t *nodes,
		     const uint32_t *per, uint32_t k, struct placement *p)
{
	uint32_t ranks[64], r = 0;
	memset(j, 0, sizeof(*j));
	memset(p, 0, sizeof(*p));
	j->idx = idx;
	j->id = idx + 1;
	j->tp = tp;
	j->pp = pp;
	j->llm = 1;
	p->slots = xcalloc(k, sizeof(*p->slots));
	p->n = p->cap = k;
	for (uint32_t i = 0; i < k; i++) {
		p->slots[i] = (struct place_slot){ .node = nodes[i], .count = 1,
						   .gpus = per[i] };
		j->gpus += per[i];
		for (uint32_t g = 0; g < per[i]; g++)
			ranks[r++] = nodes[i];
	}
	speed_job_started(f->sp, j, p);
	speed_llm_started(f->sp, j, p, ranks);
}

/* llm_step_time's step on a placement given group by group. */
static double lj_step(const struct lj_fixture *f, uint32_t tp, uint32_t pp,
		      uint32_t dp, const struct llm_place *pl)
{
	struct llm_shape sh = { .dp = dp, .tp = tp, .pp = pp,
				.microbatches = 4, .micro_batch = 1,
				.interleave = 1 };
	struct llm_gpu g;
	struct llm_step st;
	struct sim_error err;
	llm_gpu_of_info(jobclass_gpu_at((size_t)f->a100), 8, &g);
	cr_assert_eq(llm_step_time(&f->lj.model, &sh, &g, pl,
				   llm_megatron_calibrate(), &st, &err), 0, "%s",
		     err.msg);
	return st.step_s;
}

static struct llm_group_place grp(uint32_t nodes, uint32_t per_node,
				  double bw)
{
	return (struct llm_group_place){ .nodes = nodes, .per_node = per_node,
					 .fabric_Bps = bw };
}

/*
 * tp 8 x pp 2 on nodes 0 and 1, 8 GPUs each: each tp group inside a node,
 * the pipeline across the two (25 GB/s per GPU: 200 GB/s of NIC over 8
 * GPUs): the ideal placement itself, rate 1.  The same job on 3 nodes
 * (0: 4, 1: 8, 2: 4 GPUs, ranks in node order): its first tp group spans
 * nodes 0 and 1 with 4 each, members at 200 GB/s / 8 GPUs = 25 GB/s, the
 * widest pipeline (ranks 0 and 8: nodes 0 and 1) 2 nodes, and the node
 * 1 - 2 link is inside rack 0 / rack 1: the flow crosses racks, but the
 * uplinks (1,600 Gb/s) are not the bottleneck.  Its rate is the ideal
 * step over llm_step_time's step on that placement.
 */
Test(llm_jobs, rate_is_the_step_ratio_and_a_split_tp_group_is_slower)
{
	struct lj_fixture f;
	struct job a, b;
	struct placement pa, pb;
	lj_setup(&f, 1600);
	uint32_t n2[] = { 0, 1 }, g2[] = { 8, 8 };
	lj_start(&f, &a, 0, 8, 2, n2, g2, 2, &pa);
	cr_expect_float_eq(speed_rate(f.sp, &a, &pa), 1.0, 1e-12);
	cr_expect_float_eq(speed_rate_ideal(f.sp, &a, &pa), 1.0, 1e-12);
	speed_job_ended(f.sp, &a);

	uint32_t n3[] = { 0, 1, 2 }, g3[] = { 4, 8, 4 };
	lj_start(&f, &b, 1, 8, 2, n3, g3, 3, &pb);
	struct llm_place ideal = { .tp = grp(1, 8, 25e9),
				   .pp = grp(2, 1, 25e9),
				   .dp = grp(1, 1, 25e9) };
	struct llm_place split = { .tp = grp(2, 4, 25e9),
				   .pp = grp(2, 1, 25e9),
				   .dp = grp(1, 1, 25e9) };
	double want = lj_step(&f, 8, 2, 1, &ideal) /
		      lj_step(&f, 8, 2, 1, &split);
	cr_expect_float_eq(speed_rate(f.sp, &b, &pb), want, 1e-12,
			   "%.15g vs %.15g", speed_rate(f.sp, &b, &pb), want);
	/* The tp all-reduces over 25 GB/s instead of NVLink's 300: the
	 * split job is several times slower, as tp traffic dominates. */
	cr_expect_lt(want, 0.5);
	speed_job_ended(f.sp, &b);
	placement_release(&pa);
	placement_release(&pb);
	lj_teardown(&f);
}

/*
 * Two jobs of tp 8 x dp 2 (16 GPUs), each on one node of rack 0 and one
 * of rack 1 (job A nodes 0 and 2, job B nodes 1 and 3), with one 400
 * Gb/s (50 GB/s) uplink per leaf: alone, a job's stream gets 50 GB/s,
 * 6.25 GB/s per GPU; together they share both uplinks, 25 GB/s each,
 * 3.125 GB/s per GPU.  The dp all-reduce is the only fabric traffic.
 */
Test(llm_jobs, two_jobs_sharing_an_uplink_halve_each_others_bandwidth)
{
	struct lj_fixture f;
	struct job a, b;
	struct placement pa, pb;
	lj_setup(&f, 400);
	uint32_t na[] = { 0, 2 }, nb[] = { 1, 3 }, g[] = { 8, 8 };
	lj_start(&f, &a, 0, 8, 1, na, g, 2, &pa);
	struct llm_place alone = { .tp = grp(1, 8, 6.25e9),
				   .pp = grp(1, 1, 6.25e9),
				   .dp = grp(2, 1, 6.25e9) };
	struct llm_place shared = alone;
	shared.dp.fabric_Bps = 3.125e9;
	struct llm_place ideal = alone;
	ideal.dp.fabric_Bps = 25e9;
	double s_ideal = lj_step(&f, 8, 1, 2, &ideal);
	cr_expect_float_eq(speed_rate(f.sp, &a, &pa),
			   s_ideal / lj_step(&f, 8, 1, 2, &alone), 1e-12);
	lj_start(&f, &b, 1, 8, 1, nb, g, 2, &pb);
	double want = s_ideal / lj_step(&f, 8, 1, 2, &shared);
	cr_expect_float_eq(speed_rate(f.sp, &a, &pa), want, 1e-12);
	cr_expect_float_eq(speed_rate(f.sp, &b, &pb), want, 1e-12);
	cr_expect_float_eq(speed_rate_alone(f.sp, &a, &pa),
			   s_ideal / lj_step(&f, 8, 1, 2, &alone), 1e-12);
	speed_job_ended(f.sp, &a);
	speed_job_ended(f.sp, &b);
	placement_release(&pa);
	placement_release(&pb);
	lj_teardown(&f);
}

/* Loads text as a CSV trace. */
static int lj_load(const char *text, struct workload *w, struct sim_error *err)
{
	char path[] = "/tmp/clustersim-llm-XXXXXX";
	int fd = mkstemp(path);
	struct trace_opts o;
	size_t n = strlen(text);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, n), (ssize_t)n);
	close(fd);
	trace_opts_default(&o);
	o.format = TRACE_CSV;
	int rc = trace_load_csv(path, &o, w, err);
	unlink(path);
	return rc;
}

/* The model column: a preset, kept once per (model, micro-batches)
 * pair; microbatches default 4 pp; an unknown name and a shape the model
 * cannot take (tp 5 does not divide its 96 heads) are errors. */
Test(llm_jobs, csv_model_column)
{
	struct workload w;
	struct sim_error err = {{0}};
	cr_assert_eq(lj_load("id,submit,run,cpus,gpus,tp,pp,model,microbatches\n"
			     "1,0,100,0,16,8,2,gpt3-175b,\n"
			     "2,0,100,0,16,8,2,gpt3-175b,8\n"
			     "3,0,100,0,16,8,2,gpt3-175b,16\n"
			     "4,0,100,0,8,,,,\n", &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 4);
	cr_expect_eq(w.nllm, 2);
	cr_expect_eq(w.jobs[0].llm, 1);
	cr_expect_eq(w.jobs[1].llm, 1); /* default 4 x pp = 8: the same */
	cr_expect_eq(w.jobs[2].llm, 2);
	cr_expect_eq(w.jobs[3].llm, 0);
	cr_expect_eq(w.llm[0].microbatches, 8);
	cr_expect_str_eq(w.llm[1].model.name, "gpt3-175b");
	workload_release(&w);

	cr_expect_eq(lj_load("id,submit,run,cpus,gpus,model\n"
			     "1,0,100,0,8,gpt-9\n", &w, &err), -SIM_EINPUT);
	cr_expect(strstr(err.msg, ":2: model: unknown model 'gpt-9'"), "%s",
		  err.msg);
	cr_expect_eq(lj_load("id,submit,run,cpus,gpus,tp,model\n"
			     "1,0,100,0,5,5,gpt3-175b\n", &w, &err),
		     -SIM_EINPUT);
	cr_expect(strstr(err.msg, ":2: job"), "%s", err.msg);
	cr_expect_eq(lj_load("id,submit,run,cpus,gpus,microbatches\n"
			     "1,0,100,0,8,4\n", &w, &err), -SIM_EINPUT);
	cr_expect(strstr(err.msg, "needs a `model` cell"), "%s", err.msg);
}

/*
 * Memory fit: GPT-3 175B (174.6e9 parameters, 16 bytes each of weights,
 * gradients and Adam state) on tp 8 x pp 2 holds 174.6e9 x 16 / 16 =
 * 175 GB per GPU before activations: more than an A100-80GB, so on the
 * A100 cluster it fits no type (exit 2).  At tp 8 x pp 16 it needs
 * 21.8 GB of state: it fits.  On a cluster of A100 and V100 (16 GB) nodes
 * the 175B at tp 8 x pp 8 (43.7 GB of state) fits the A100 alone and is
 * kept to it.
 */
Test(llm_jobs, memory_fit)
{
	struct workload w;
	struct sim_error err = {{0}};
	struct cluster_spec c;
	uint64_t pinned;
	int a100 = jobclass_gpu_find("a100-80gb");
	cr_assert_eq(lj_load("id,submit,run,cpus,gpus,tp,pp,model\n"
			     "1,0,100,0,16,8,2,gpt3-175b\n"
			     "2,0,100,0,128,8,16,gpt3-175b\n"
			     "3,0,100,0,64,8,8,gpt3-175b\n", &w, &err), 0,
		     "%s", err.msg);
	tl_gpu_cluster(&c, 16, 8, "a100-80gb", 8);
	cr_expect_eq(speed_llm_fit(&c, NULL, a100, w.jobs, w.n, w.llm, w.nllm,
				   "", &pinned, &err), -SIM_EINPUT);
	cr_expect(strstr(err.msg, "job 1 (model 'gpt3-175b', dp 1 x tp 8 x "
			 "pp 2) needs"), "%s", err.msg);
	cr_expect(strstr(err.msg, "fits no GPU type it may use "
			 "(a100-80gb 80 GB)"), "%s", err.msg);
	cr_expect_eq(speed_llm_fit(&c, NULL, a100, w.jobs + 1, 2, w.llm,
				   w.nllm, "", &pinned, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(pinned, 0);
	cluster_spec_release(&c);

	/* Two groups: A100 then V100; job 3 is kept to type 1, the A100. */
	tl_gpu_cluster(&c, 16, 8, "a100-80gb", 8);
	c.groups = xrealloc(c.groups, 2 * sizeof(*c.groups));
	c.groups[1] = c.groups[0];
	c.groups[1].name = xstrdup("v");
	c.groups[1].gpu_type = xstrdup("v100");
	c.ngroups = 2;
	cr_expect_eq(speed_llm_fit(&c, NULL, a100, w.jobs + 2, 1, w.llm,
				   w.nllm, "", &pinned, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(pinned, 1);
	cr_expect_eq(w.jobs[2].gpu_type, 1);
	/* The reason, for the run's output: 49.2 GB (43.7 of state, 4.8 of
	 * activations, 0.6 of working set) against 80 and 16 GB. */
	cr_expect(strstr(err.msg, "job 3 (model 'gpt3-175b', dp 1 x tp 8 x "
			 "pp 8) needs 49.") && strstr(err.msg, "kept to the GPU "
			 "types it fits, of a100-80gb 80 GB, v100 16 GB"), "%s",
		  err.msg);
	cluster_spec_release(&c);
	workload_release(&w);
}

/* The step of preset model on the shape tp 4 x pp 2 (8 GPUs, m = 8)
 * on table type gpu, all ranks in one node of 8: no fabric. */
static double lj_node_step(const char *model, int gpu)
{
	struct llm_shape sh = { .dp = 1, .tp = 4, .pp = 2, .microbatches = 8,
				.micro_batch = 1, .interleave = 1 };
	struct llm_place pl;
	struct llm_gpu g;
	struct llm_step st;
	struct sim_error err;
	cr_assert_eq(llm_place_packed(&sh, 8, 1e9, 0, &pl, &err), 0);
	cr_assert_eq(pl.tp.nodes + pl.pp.nodes + pl.dp.nodes, 3);
	llm_gpu_of_info(jobclass_gpu_at((size_t)gpu), 8, &g);
	cr_assert_eq(llm_step_time(llm_preset_find(model), &sh, &g, &pl,
				   llm_megatron_calibrate(), &st, &err), 0,
		     "%s", err.msg);
	return st.step_s;
}

/*
 * A large-model job has no Gavel class: the engine draws none for it
 * (jobs.csv's job_class stays empty), and what class-rate-reading
 * policies see (sim_job_type_rate) is its step-time speed on an ideal
 * placement of the type: the reference type's step over the type's.
 * Two nodes of 8 GPUs, A100-80GB then V100 (16 GB); reference V100.
 *  - job 1: gpt3-xl, tp 4 x pp 2 (2.6 GB of state per GPU: fits both):
 *    1 on the V100 (the reference itself), step(v100) / step(a100) on
 *    the A100, both of one node (llm_step_time over llm_place_packed);
 *  - job 2: gpt3-13b, tp 4 x pp 2, 13e9 x 16 / 8 = 26 GB of state per
 *    GPU: more than a V100's 16 GB, so 0 there (cannot run), kept to the
 *    A100 as the memory fit would;
 *  - job 3: a one-GPU job of no class: a drawn class
 *    (speed_draw_class(1, idx)) and its class rate.
 * Job 1 runs alone in one node of whichever type it gets: its run of
 * 1,000 s of reference work takes 1,000 / rate there, the type rate.
 */
Test(llm_jobs, no_drawn_class_and_the_type_rate_is_the_step_ratio)
{
	struct tjob t[] = { { 1, 0, 1000, 1000, 8 }, { 2, 0, 1000, 1000, 8 },
			    { 3, 0, 1000, 1000, 1 } };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	struct sim_error err;
	int a100 = jobclass_gpu_find("a100-80gb");
	int v100 = jobclass_gpu_find("v100");
	cr_assert(a100 >= 0 && v100 >= 0);
	tl_workload(&w, t, 3);
	for (size_t i = 0; i < w.n; i++) {
		w.jobs[i].gpus = w.jobs[i].cpus;
		w.jobs[i].cpus = 0;
	}
	cr_assert_eq(workload_llm_add(&w, NULL, 0, "gpt3-xl", 8, 1, 0, "",
				      &w.jobs[0].llm, &err), 0);
	cr_assert_eq(workload_llm_add(&w, NULL, 0, "gpt3-13b", 8, 1, 0, "",
				      &w.jobs[1].llm, &err), 0);
	for (int k = 0; k < 2; k++) {
		w.jobs[k].tp = 4;
		w.jobs[k].pp = 2;
	}
	w.jobs[1].gpu_type = 1; /* the A100, as speed_llm_fit keeps it */
	tl_gpu_cluster(&c, 1, 8, "a100-80gb", 0);
	c.groups = xrealloc(c.groups, 2 * sizeof(*c.groups));
	c.groups[1] = (struct node_group){ .name = xstrdup("v"), .count = 1,
					   .cpus = 8, .gpus = 8,
					   .gpu_type = xstrdup("v100") };
	c.ngroups = 2;
	tl_speed_config(&sc);
	sc.draw_classes = true;
	struct sim *s = tl_run_speed("fcfs", "consolidate", &w, &c, &sc);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	cr_assert_eq(n, 3);
	cr_assert_eq(sim_gpu_types(s), 2);
	cr_assert_str_eq(sim_gpu_type_name(s, 0), "a100-80gb");

	double xl = lj_node_step("gpt3-xl", v100) /
		    lj_node_step("gpt3-xl", a100);
	cr_expect_gt(xl, 1.5); /* the A100 is faster */
	cr_expect_eq(j[0].job_class, JOB_CLASS_NONE);
	cr_expect_float_eq(sim_job_type_rate(s, &j[0], 0), xl, 1e-12);
	cr_expect_float_eq(sim_job_type_rate(s, &j[0], 1), 1.0, 1e-12);
	double took = (double)(j[0].end - j[0].start) / SIM_SEC;
	double rate = j[0].gpu_type_used == 1 ? xl : 1.0;
	cr_expect_float_eq(took, 1000 / rate, 1e-3, "%.6f s on type %u", took,
			   j[0].gpu_type_used);

	cr_expect_eq(j[1].job_class, JOB_CLASS_NONE);
	cr_expect_float_eq(sim_job_type_rate(s, &j[1], 0),
			   lj_node_step("gpt3-13b", v100) /
			   lj_node_step("gpt3-13b", a100), 1e-12);
	cr_expect_eq(sim_job_type_rate(s, &j[1], 1), 0.0);

	unsigned cls = speed_draw_class(1, j[2].idx);
	cr_expect_eq(j[2].job_class, cls);
	cr_expect_float_eq(sim_job_type_rate(s, &j[2], 0),
			   speed_class_rate(cls, a100, v100, NULL), 1e-12);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * The step of gpt3-xl (l = 24, h = 2048, a = 24, s = 2048, V = 50257,
 * P = 1.3e9, full recomputation) on tp 1 x pp 2 x dp 2 in one node, m
 * micro-batches of b = 1 and v chunks per stage, written out from SC'21
 * and llm_step.c's rules for this shape (no tp):
 *   F    = 96 B s l h^2 (1 + s/(6h)) + 6 B s h V, B = 2m   (eq. 3)
 *   c    = F / (4 m peak eff)       compute of a micro-batch on a stage
 *   e    = 8 (l/2) s h (34 + 5 a s/h) / mem_Bps    element-wise passes
 *   x    = 2v (2 s h) / nvlink      a send each way per chunk
 *   D    = P / nvlink               the dp ring all-reduce of 2 members
 *                                   over the P/2 x 2 bytes of gradients
 *   step = (m + (p - 1)/v) (c + e + x) + D,  p = 2
 * so the bubble is one slot for v = 1 and a third of one for v = 3, and
 * the all-reduce, not scaled by the slots, weighs more against it.
 */
static double xl_hand_step(int gpu, double m, double v)
{
	const struct llm_model *md = llm_preset_find("gpt3-xl");
	struct llm_gpu g;
	llm_gpu_of_info(jobclass_gpu_at((size_t)gpu), 8, &g);
	double s = md->seq_len, l = md->layers, h = md->hidden;
	double a = md->heads, V = md->vocab, B = 2 * m;
	double F = 96 * B * s * l * h * h * (1 + s / (6 * h)) +
		   6 * B * s * h * V;
	double c = F / (4 * m * g.peak_flops * llm_megatron_calibrate());
	double e = 8 * (l / 2) * s * h * (34 + 5 * a * s / h) / g.mem_Bps;
	double x = 2 * v * (2 * s * h) / g.nvlink_Bps;
	return (m + 1 / v) * (c + e + x) + md->parameters / g.nvlink_Bps;
}

/*
 * A run whose step uses the interleaved bubble: two jobs of gpt3-xl on
 * tp 1 x pp 2 x dp 2 (4 GPUs), m = 2, one plain (v = 1), one
 * interleaved (v = 3: 24 layers = 2 stages x 3 chunks x 4), on a node of
 * 8 A100s with the V100 as reference: each runs 1,000 s of reference
 * work in 1,000 x step(A100, v) / step(V100, v) (both in one node: its
 * ideal placement).  The two ratios differ: with v = 3 the bubble is
 * smaller, so the all-reduce (twice as fast on the A100's NVLink) weighs
 * more.  (A trace's run is work at the job's own ideal pace, its own v
 * included: v moves a run time only through what does not scale with the
 * slots, here the all-reduce, and through the type or the placement.)
 */
Test(llm_jobs, interleaved_schedule_in_a_run)
{
	struct tjob t[] = { { 1, 0, 1000, 1000, 4 }, { 2, 0, 1000, 1000, 4 } };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	struct sim_error err;
	int a100 = jobclass_gpu_find("a100-80gb");
	int v100 = jobclass_gpu_find("v100");
	tl_workload(&w, t, 2);
	for (uint32_t k = 0; k < 2; k++) {
		struct job *j = &w.jobs[k];
		j->gpus = 4;
		j->cpus = 0;
		j->tp = 1;
		j->pp = 2;
		cr_assert_eq(workload_llm_add(&w, NULL, 0, "gpt3-xl", 2, 1,
					      k ? 3 : 0, "", &j->llm, &err),
			     0, "%s", err.msg);
	}
	cr_expect_eq(w.nllm, 2);
	cr_expect_eq(w.llm[0].interleave, 1); /* the preset's: plain */
	cr_expect_eq(w.llm[1].interleave, 3);
	tl_gpu_cluster(&c, 1, 8, "a100-80gb", 0);
	tl_speed_config(&sc);
	struct sim *s = tl_run_speed("fcfs", "consolidate", &w, &c, &sc);
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	double want[2];
	for (int k = 0; k < 2; k++) {
		double v = k ? 3 : 1;
		want[k] = 1000 * xl_hand_step(a100, 2, v) /
			  xl_hand_step(v100, 2, v);
		double took = (double)(j[k].end - j[k].start) / SIM_SEC;
		cr_expect(fabs(took - want[k]) < 0.01, "job %d: %.6f s, "
			  "want %.6f", k + 1, took, want[k]);
	}
	/* 414.26 s against 414.66 s: 40 times the tolerance above, so a
	 * run that ran the second job plain would fail. */
	cr_expect_gt(fabs(want[0] - want[1]), 0.3, "%g %g", want[0], want[1]);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* The CSV `interleave` column: a job's own v (empty: the model's), kept
 * as its own entry; it needs a model, must be positive, and pp x v must
 * divide the model's layers (gpt3-175b: 96; 8 x 5 does not). */
Test(llm_jobs, csv_interleave_column)
{
	struct workload w;
	struct sim_error err = {{0}};
	cr_assert_eq(lj_load("id,submit,run,cpus,gpus,tp,pp,model,interleave\n"
			     "1,0,100,0,64,8,8,gpt3-175b,\n"
			     "2,0,100,0,64,8,8,gpt3-175b,2\n"
			     "3,0,100,0,64,8,8,gpt3-175b,1\n", &w, &err), 0,
		     "%s", err.msg);
	cr_expect_eq(w.nllm, 2);
	cr_expect_eq(w.jobs[0].llm, 1);
	cr_expect_eq(w.jobs[1].llm, 2);
	cr_expect_eq(w.jobs[2].llm, 1);
	cr_expect_eq(w.llm[1].interleave, 2);
	workload_release(&w);
	cr_expect_eq(lj_load("id,submit,run,cpus,gpus,tp,pp,model,interleave\n"
			     "1,0,100,0,64,8,8,gpt3-175b,5\n", &w, &err),
		     -SIM_EINPUT);
	cr_expect(strstr(err.msg, ":2: job.pp: pp x interleave must divide "
			 "the layers 96, got '8 x 5'"), "%s", err.msg);
	cr_expect_eq(lj_load("id,submit,run,cpus,gpus,interleave\n"
			     "1,0,100,0,8,2\n", &w, &err), -SIM_EINPUT);
	cr_expect(strstr(err.msg, "interleave") &&
		  strstr(err.msg, "needs a `model` cell"), "%s", err.msg);
	cr_expect_eq(lj_load("id,submit,run,cpus,gpus,model,interleave\n"
			     "1,0,100,0,8,gpt3-xl,-2\n", &w, &err),
		     -SIM_EINPUT);
	cr_expect(strstr(err.msg, "must be positive"), "%s", err.msg);
}

/* jobs.csv of a run with large-model jobs ends in their model and shape:
 * the gpt3-xl job of 4 GPUs on tp 1 x pp 2 has dp 4 / (1 x 2) = 2, its
 * own 2 micro-batches and v = 3; the plain GPU job has empty cells.  A
 * run without such jobs has none of these columns. */
Test(llm_jobs, jobs_csv_model_and_shape_columns)
{
	char bin[512], tmp[256];
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "llmcsv");
	tl_cli_need_bin(bin);
	tl_put(tmp, "t.csv", "id,submit,run,cpus,gpus,tp,pp,model,interleave,"
	       "microbatches\n1,0,100,0,4,1,2,gpt3-xl,3,2\n2,0,100,0,1,,,,,\n");
	tl_put(tmp, "p.csv", "id,submit,run,cpus,gpus\n1,0,100,0,1\n");
	static const char *const exp =
		"{\"cluster\": {\"nodes\": [{\"count\": 1, \"cpus\": 64, "
		"\"gpus\": 8, \"gpu_type\": \"a100-80gb\"}]}, \"workload\": "
		"{\"trace\": \"%s\", \"format\": \"csv\"}, \"policies\": "
		"[\"fcfs\"], \"output\": \"%s\"}";
	char *x = xasprintf(exp, "t.csv", "out");
	char *p = xasprintf(exp, "p.csv", "plain");
	tl_put(tmp, "x.json", x);
	tl_put(tmp, "p.json", p);
	cr_assert_eq(tl_sh(tmp, "'%s' run x.json -q --no-plots", bin), 0);
	cr_assert_eq(tl_sh(tmp, "'%s' run p.json -q --no-plots", bin), 0);
	char *csv = tl_slurp(tmp, "out/fcfs-s1/jobs.csv");
	cr_assert(csv);
	cr_expect(strstr(csv, ",measured,job_class,model,tp,pp,dp,"
			 "microbatches,interleave\n1,"), "%s", csv);
	cr_expect(strstr(csv, ",gpt3-xl,1,2,2,2,3\n2,"), "%s", csv);
	cr_expect(strstr(csv, " (batch size 256),,,,,,\n"), "%s", csv);
	char *plain = tl_slurp(tmp, "plain/fcfs-s1/jobs.csv");
	cr_assert(plain);
	cr_expect(strstr(plain, ",measured,job_class\n"), "%s", plain);
	free(plain);
	free(csv);
	free(p);
	free(x);
	tl_rmtree(tmp);
}
