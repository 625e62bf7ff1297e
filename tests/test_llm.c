/*
 * The large-model training model (speed/llm.h): memory per GPU under a
 * shape and ZeRO stage, FLOPs per step, the bubble, the tp/pp/dp
 * communication times of a two-node example, a tp group split across
 * nodes, the choice of the smallest fitting shape, bad shapes, and the
 * Megatron-LM Table 1 validation (speed/llm_megatron.h), two jobs whose
 * pipelines share the fabric's uplinks (speed/net.h), and the exit codes
 * of `clustersim parallelism`.  Every expected value is worked out by
 * hand in the comment above it.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "speed/llm_megatron.h"
#include "speed/net.h"
#include "testlib.h"

/* a within a relative tol of b */
#define REL(a, b, tol)                                                   \
	cr_assert(fabs((double)(a) - (b)) <= (tol) * fabs((double)(b)),  \
		  "%s = %.10g, expected %.10g", #a, (double)(a), (double)(b))

static struct llm_model gpt3(void)
{
	return *llm_preset_find("gpt3-175b");
}

/*
 * GPT-3 175B (175e9 parameters, l = 96, h = 12288, a = 96, s = 2048) on
 * t = 8, p = 16, d = 8, m = 192, b = 1.  Per GPU 175e9 / 128 =
 * 1.3671875e9 parameters: weights and gradients 2 bytes each =
 * 2.734375e9, the optimizer 12 bytes = 16.40625e9.  Activations (full
 * recomputation): 2 s b h = 50,331,648 bytes per layer, 96/16 = 6 layers,
 * 16 micro-batches in flight: 4,831,838,208; plus one layer's working set
 * s b h (10 + 24/8 + 5 x 96 x 2048 / (12288 x 8)) = 25,165,824 x 23 =
 * 578,813,952.
 */
Test(llm, memory_per_gpu_by_zero_stage)
{
	struct llm_model m = gpt3();
	struct llm_shape sh = { .dp = 8, .tp = 8, .pp = 16,
				.microbatches = 192, .micro_batch = 1,
				.interleave = 1 };
	struct llm_memory mem;
	llm_memory(&m, &sh, &mem);
	REL(mem.weights, 2.734375e9, 1e-12);
	REL(mem.grads, 2.734375e9, 1e-12);
	REL(mem.optimizer, 16.40625e9, 1e-12);
	REL(mem.activations, 4831838208.0 + 578813952.0, 1e-12);
	REL(mem.total, 21.875e9 + 5410652160.0, 1e-12);
	/* ZeRO-1 shards the optimizer over d = 8: 2.05078125e9. */
	m.zero_stage = 1;
	llm_memory(&m, &sh, &mem);
	REL(mem.optimizer, 2.05078125e9, 1e-12);
	REL(mem.grads, 2.734375e9, 1e-12);
	/* ZeRO-3 shards all three: 16 x 1.3671875e9 / 8 = 2.734375e9. */
	m.zero_stage = 3;
	llm_memory(&m, &sh, &mem);
	REL(mem.weights + mem.grads + mem.optimizer, 2.734375e9, 1e-12);
	/* Fewer micro-batches than stages: only m = 4 are in flight. */
	m.zero_stage = 0;
	sh.microbatches = 4;
	llm_memory(&m, &sh, &mem);
	REL(mem.activations, 4 * 6 * 50331648.0 + 578813952.0, 1e-12);
}

/*
 * l = 2, h = 1024, s = 1024, V = 16384, B = 4 (d = 2, m = 2, b = 1):
 * 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) = 96 x 4 x 1024 x 2 x 1024^2 x
 * (1 + 1/6 + 1/2) = 8.246337208e11 x 5/3 = 1.374389535e12.  Second
 * method: four passes of the layers, 4 x 24 B s l h^2 (1 + s/(6h)) =
 * 9.620726743e11, and the logits, 6 B s h V = 4.123168604e11: the same.
 * Without recomputation 72 B s l h^2 (1 + 1/6 + 16384/(12 x 2 x 1024)) =
 * 6.184752906e11 x (1 + 1/6 + 2/3) = 1.133871366e12.
 */
Test(llm, flops_per_step)
{
	struct llm_model m = { .layers = 2, .hidden = 1024, .heads = 16,
			       .seq_len = 1024, .vocab = 16384 };
	struct llm_shape sh = { .dp = 2, .tp = 1, .pp = 1, .microbatches = 2,
				.micro_batch = 1, .interleave = 1 };
	llm_model_defaults(&m);
	REL(llm_step_flops(&m, &sh), 8.246337208e11 * 5 / 3, 1e-9);
	REL(llm_step_flops(&m, &sh), 9.620726743e11 + 4.123168604e11, 1e-9);
	m.recompute = LLM_RECOMPUTE_NONE;
	REL(llm_step_flops(&m, &sh), 6.184752906e11 * (1 + 1.0 / 6 + 2.0 / 3),
	    1e-9);
}

/* Eq. 2 of SC'21 for the 1 T row: 12 x 128 x 25600^2 x (1 + 13/307200 +
 * 53248/39321600) = 1.00663e12 x 1.0014 = 1.0080e12, Table 1's 1008.0 B. */
Test(llm, parameters_from_the_architecture)
{
	struct llm_model m = *llm_preset_find("megatron-1t");
	m.parameters = 0;
	REL(llm_model_parameters(&m), 1008.0e9, 2e-3);
}

/* p = 4, m = 12: (p-1)/m = 0.25 of the ideal time, 3/15 = 0.2 of the
 * step; interleaved v = 3: 3/36 and 3/39; one stage: none. */
Test(llm, bubble)
{
	struct llm_shape sh = { .dp = 1, .tp = 1, .pp = 4, .microbatches = 12,
				.micro_batch = 1, .interleave = 1 };
	REL(llm_bubble_ratio(&sh), 0.25, 1e-15);
	REL(llm_bubble_fraction(&sh), 0.2, 1e-15);
	sh.interleave = 3;
	REL(llm_bubble_ratio(&sh), 3.0 / 36, 1e-15);
	REL(llm_bubble_fraction(&sh), 3.0 / 39, 1e-15);
	sh.pp = 1;
	cr_assert_eq(llm_bubble_ratio(&sh), 0);
}

static struct llm_gpu test_gpu(void)
{
	struct llm_gpu g;
	llm_gpu_a100_80gb(&g);
	g.mem_Bps = 0; /* no memory-bound term: compute and comm only */
	return g;
}

/*
 * Two nodes of 8 GPUs, t = 8 in each node, p = 2 across them, d = 1,
 * m = 4, b = 1; l = 4, h = 4096, s = 2048; NVLink 300e9 B/s, 25e9 B/s
 * per GPU across the fabric, no latency.  msg = 2 b s h = 16,777,216.
 *  - tp: one all-reduce 2 x 7/8 x msg / 300e9 = 97.867 us; 6 per layer
 *    (2 forward, 2 recomputed, 2 backward), 2 layers per stage, 4
 *    micro-batches: 48 x 97.867 = 4.69768 ms.
 *  - pp: per micro-batch a send each way of msg/8 at 25e9 (83.886 us)
 *    and its all-gather 7/8 msg / 300e9 (48.934 us): 4 x 2 x 132.82 us
 *    = 1.06256 ms.
 *  - bubble: (p-1) = 1 slot of compute + tp + pp per micro-batch.
 */
Test(llm, tp_pp_times_on_two_nodes)
{
	struct llm_model m = { .name = "toy", .layers = 4, .hidden = 4096,
			       .heads = 32, .seq_len = 2048, .vocab = 51200 };
	struct llm_shape sh = { .dp = 1, .tp = 8, .pp = 2, .microbatches = 4,
				.micro_batch = 1, .interleave = 1 };
	struct llm_gpu g = test_gpu();
	struct llm_place pl;
	struct llm_step st;
	struct sim_error err;
	llm_model_defaults(&m);
	cr_assert_eq(llm_place_packed(&sh, 8, 25e9, 0, &pl, &err), 0);
	cr_assert_eq(pl.tp.nodes, 1);
	cr_assert_eq(pl.pp.nodes, 2);
	cr_assert_eq(llm_step_time(&m, &sh, &g, &pl, 0.5, &st, &err), 0,
		     "%s", err.msg);
	double ar = 2 * 7.0 / 8 * 16777216 / 300e9;
	REL(st.tp_s, 48 * ar, 1e-12);
	/* Without recomputation, 4 per layer: 32 x 97.867 us. */
	m.recompute = LLM_RECOMPUTE_NONE;
	cr_assert_eq(llm_step_time(&m, &sh, &g, &pl, 0.5, &st, &err), 0);
	REL(st.tp_s, 32 * ar, 1e-12);
	REL(st.pp_s, 8 * (16777216 / 8.0 / 25e9 + 7.0 / 8 * 16777216 / 300e9),
	    1e-12);
	REL(st.bubble_s, (st.compute_s + st.tp_s + st.pp_s) / 4, 1e-12);
	REL(st.step_s, st.compute_s + st.tp_s + st.pp_s + st.bubble_s, 1e-12);
	cr_assert_eq(st.dp_s, 0);
}

/*
 * The same tp group split over two nodes (4 + 4) with 25e9 B/s across
 * them: the ring's bottleneck is the fabric, so with no latency its time
 * grows by 300e9 / 25e9 = 12.
 */
Test(llm, tp_across_nodes_grows_by_the_bandwidth_ratio)
{
	struct llm_model m = { .name = "toy", .layers = 4, .hidden = 4096,
			       .heads = 32, .seq_len = 2048, .vocab = 51200 };
	struct llm_shape sh = { .dp = 1, .tp = 8, .pp = 2, .microbatches = 4,
				.micro_batch = 1, .interleave = 1 };
	struct llm_gpu g = test_gpu();
	struct llm_place in, split;
	struct llm_step a, b;
	struct sim_error err;
	llm_model_defaults(&m);
	cr_assert_eq(llm_place_packed(&sh, 8, 25e9, 0, &in, &err), 0);
	split = in;
	split.tp.nodes = 2;
	split.tp.per_node = 4;
	cr_assert_eq(llm_step_time(&m, &sh, &g, &in, 0.5, &a, &err), 0);
	cr_assert_eq(llm_step_time(&m, &sh, &g, &split, 0.5, &b, &err), 0);
	REL(b.tp_s / a.tp_s, 12, 1e-12);
	REL(b.pp_s, a.pp_s, 1e-15);
}

/*
 * Data parallelism on two nodes: t = p = 1, d = 16 (8 per node), 1e9
 * parameters, 2-byte gradients: 2e9 bytes.  Hierarchical: over NVLink
 * 2 x 7/8 x 2e9 / 300e9 = 11.667 ms, across the fabric a ring of the two
 * nodes on 2e9 / 8 = 2.5e8 bytes: 2 x 1/2 x 2.5e8 / 25e9 = 10 ms; 21.667
 * ms in all.  With comm_overlap 0.5 half of it hides under the last
 * backward pass (which is far longer than 10.8 ms here).
 */
Test(llm, dp_hierarchical_allreduce_and_overlap)
{
	struct llm_model m = { .name = "toy", .parameters = 1e9, .layers = 8,
			       .hidden = 2048, .heads = 16, .seq_len = 2048,
			       .vocab = 51200 };
	struct llm_shape sh = { .dp = 16, .tp = 1, .pp = 1,
				.microbatches = 8, .micro_batch = 1,
				.interleave = 1 };
	struct llm_gpu g = test_gpu();
	struct llm_place pl;
	struct llm_step st;
	struct sim_error err;
	llm_model_defaults(&m);
	cr_assert_eq(llm_place_packed(&sh, 8, 25e9, 0, &pl, &err), 0);
	cr_assert_eq(pl.dp.nodes, 2);
	cr_assert_eq(pl.dp.per_node, 8);
	cr_assert_eq(llm_step_time(&m, &sh, &g, &pl, 0.5, &st, &err), 0);
	double dp = 2 * 7.0 / 8 * 2e9 / 300e9 + 2.5e8 / 25e9;
	REL(st.dp_s, dp, 1e-12);
	REL(st.dp_exposed_s, dp, 1e-12);
	m.comm_overlap = 0.5;
	cr_assert_eq(llm_step_time(&m, &sh, &g, &pl, 0.5, &st, &err), 0);
	REL(st.dp_exposed_s, dp / 2, 1e-12);
	/* The traffic the engine's flows carry: 2 (d-1)/d x 2e9. */
	struct llm_traffic tr;
	llm_traffic(&m, &sh, &tr);
	REL(tr.dp_bytes, 2 * 15.0 / 16 * 2e9, 1e-12);
	cr_assert_eq(tr.tp_bytes, 0);
	cr_assert_eq(tr.pp_bytes, 0);
}

/*
 * GPT-3 175B on 1,024 A100-80GB, batch 1536: the states alone need
 * 16 x 175e9 / (t p) <= 80e9, so t p >= 35; t p = 64 is the first
 * product dividing 1024 whose p divides the 96 layers with t <= 8 (t p
 * = 48 does not divide 1024), and at 64 tp = 8 is tried first: 8 x 8,
 * d = 16, m = 1536 / 16 = 96.
 */
Test(llm, smallest_fitting_shape)
{
	struct llm_model m = gpt3();
	struct llm_gpu g;
	struct llm_shape sh = { .micro_batch = 1, .interleave = 1 };
	struct sim_error err;
	llm_gpu_a100_80gb(&g);
	cr_assert_eq(llm_fit_shape(&m, &g, 1024, 1536, &sh, "$.jobs[0]",
				   &err), 0, "%s", err.msg);
	cr_assert_eq(sh.tp, 8);
	cr_assert_eq(sh.pp, 8);
	cr_assert_eq(sh.dp, 16);
	cr_assert_eq(sh.microbatches, 96);
	/* Llama 3 405B on 8 GPUs: 16 x 405e9 / 8 = 810 GB at best. */
	m = *llm_preset_find("llama3-405b");
	cr_assert_lt(llm_fit_shape(&m, &g, 8, 8, &sh, "$.jobs[3]", &err), 0);
	cr_assert(strstr(err.msg, "$.jobs[3].model: 'llama3-405b' fits no "
			 "shape on 8 GPUs"), "%s", err.msg);
}

Test(llm, bad_shapes_are_refused_with_the_path)
{
	struct llm_model m = gpt3();
	struct llm_shape sh = { .dp = 8, .tp = 8, .pp = 16,
				.microbatches = 8, .micro_batch = 1,
				.interleave = 1 };
	struct sim_error err;
	cr_assert_eq(llm_shape_check(&m, &sh, 1024, 8, "$.jobs[2]", &err), 0);
	cr_assert_lt(llm_shape_check(&m, &sh, 1000, 8, "$.jobs[2]", &err), 0);
	cr_assert(strstr(err.msg, "$.jobs[2]: dp x tp x pp = 8 x 8 x 16 = "
			 "1024 differs from the job's GPUs '1000'"), "%s",
		  err.msg);
	sh.tp = 16;
	sh.dp = 4;
	cr_assert_lt(llm_shape_check(&m, &sh, 1024, 8, "$.jobs[2]", &err), 0);
	cr_assert(strstr(err.msg, "$.jobs[2].tp: tensor parallelism inside a "
			 "node needs tp <= 8 GPUs per node, got '16'"), "%s",
		  err.msg);
	sh.tp = 8;
	sh.dp = 16;
	sh.pp = 8;
	sh.interleave = 5; /* 96 layers are not 8 x 5 chunks */
	cr_assert_lt(llm_shape_check(&m, &sh, 1024, 8, "$", &err), 0);
	cr_assert(strstr(err.msg, "$.pp:"), "%s", err.msg);
	sh.interleave = 1;
	sh.micro_batch = 0;
	cr_assert_lt(llm_shape_check(&m, &sh, 1024, 8, "$", &err), 0);
	cr_assert(strstr(err.msg, "$.micro_batch: must be at least 1, got "
			 "'0'"), "%s", err.msg);
	/* A pipeline across nodes with no fabric share is refused. */
	struct llm_gpu g;
	struct llm_place pl;
	struct llm_step st;
	sh.micro_batch = 1;
	llm_gpu_a100_80gb(&g);
	cr_assert_eq(llm_place_packed(&sh, 8, 0, 0, &pl, &err), 0);
	cr_assert_lt(llm_step_time(&m, &sh, &g, &pl, 0.5, &st, &err), 0);
	cr_assert(strstr(err.msg, "the pp group spans 8 nodes: its fabric "
			 "bandwidth must be positive, got '0'"), "%s", err.msg);
}

/*
 * The validation: compute efficiency calibrated on Table 1's 1.7 B row
 * (137 TFLOP/s per GPU), every other row predicted within 10% of the
 * paper, with plain 1F1B and with the interleaved schedule.
 */
Test(llm, megatron_table1_within_ten_percent)
{
	const struct llm_megatron_row *r;
	size_t n = llm_megatron_rows(&r);
	struct llm_step st;
	struct sim_error err;
	double eff = llm_megatron_calibrate();
	cr_assert(eff > 0.3 && eff < 0.9, "efficiency %g", eff);
	cr_assert_eq(llm_megatron_predict(&r[0], 0, eff, &st, &err), 0);
	REL(st.tflops_per_gpu, 137, 1e-6);
	cr_assert_eq(n, 10);
	for (size_t i = 1; i < n; i++) {
		struct llm_model m = *llm_preset_find(r[i].model);
		uint32_t v = r[i].pp > 1 ? m.layers / r[i].pp : 1;
		for (uint32_t k = 0; k < 2; k++) {
			cr_assert_eq(llm_megatron_predict(&r[i], k ? v : 0,
							  eff, &st, &err), 0,
				     "%s", err.msg);
			double e = st.tflops_per_gpu / r[i].paper_tflops - 1;
			cr_assert(fabs(e) <= 0.10, "%s (v %u): %.1f vs %.0f",
				  r[i].model, k ? v : 1, st.tflops_per_gpu,
				  r[i].paper_tflops);
		}
	}
}

/* Eq. 4: GPT-3 175B, 300e9 tokens on 1,024 GPUs at 140 TFLOP/s:
 * 8 x 300e9 x 175e9 / (1024 x 140e12) = 2.9297e6 s = 33.9 days (the
 * paper's "about 34 days"); 1 T, 450e9 tokens, 3,072 GPUs at 163:
 * 3.6e24 / 5.0074e17 = 7.1894e6 s = 83.2 days ("about 84"). */
Test(llm, end_to_end_training_time)
{
	REL(llm_train_seconds(300e9, 175e9, 1024, 140e12) / 86400, 33.91,
	    1e-3);
	REL(llm_train_seconds(450e9, 1e12, 3072, 163e12) / 86400, 83.21,
	    1e-3);
}

/*
 * Two jobs share a leaf uplink: racks of 2 nodes, 200 Gb/s NICs
 * (25e9 B/s), 2:1 oversubscribed (each leaf's uplink 2 x 200 / 2 = 200
 * Gb/s).  Job 1's pipeline (t = d = 1, p = 2) has its stages on nodes 0
 * and 2, in two racks: alone it gets 25e9 B/s.  Job 2 on nodes 1 and 3
 * crosses the same two uplinks: max-min gives each 12.5e9.  The pp send
 * per micro-batch, 2 b s h = 16,777,216 bytes each way, then takes twice
 * as long: 2 x 16777216 / 25e9 = 1.342 ms per micro-batch alone, 2.684 ms
 * shared (no latency, no tp all-gather at t = 1).
 */
Test(llm, two_jobs_sharing_an_uplink_halve_each_others_pipeline_bandwidth)
{
	struct net_spec ns;
	net_spec_default(&ns);
	ns.rack_nodes = 2;
	ns.nic_gbps = 200;
	ns.uplinks = 0;
	ns.uplink_gbps = 0;
	ns.oversubscription = 2;
	ns.latency_usec = 0;
	struct net *net = net_new(&ns, 4);
	struct sim_error err;
	const uint32_t a[] = { 0, 2 }, b[] = { 1, 3 };
	cr_assert_eq(net_job_add(net, 1, a, NULL, 2, &err), 0);
	double alone = net_job_bandwidth(net, 1);
	REL(alone, 25e9, 1e-12);
	cr_assert_eq(net_job_add(net, 2, b, NULL, 2, &err), 0);
	double shared = net_job_bandwidth(net, 1);
	REL(shared, 12.5e9, 1e-12);
	REL(net_job_bandwidth(net, 2), 12.5e9, 1e-12);

	struct llm_model m = { .name = "toy", .layers = 4, .hidden = 4096,
			       .heads = 32, .seq_len = 2048, .vocab = 51200 };
	struct llm_shape sh = { .dp = 1, .tp = 1, .pp = 2, .microbatches = 4,
				.micro_batch = 1, .interleave = 1 };
	struct llm_gpu g = test_gpu();
	struct llm_place pl;
	struct llm_step s1, s2;
	llm_model_defaults(&m);
	g.per_node = 1;
	cr_assert_eq(llm_place_packed(&sh, 1, alone, 0, &pl, &err), 0);
	cr_assert_eq(pl.pp.nodes, 2);
	cr_assert_eq(llm_step_time(&m, &sh, &g, &pl, 0.5, &s1, &err), 0);
	pl.pp.fabric_Bps = shared;
	cr_assert_eq(llm_step_time(&m, &sh, &g, &pl, 0.5, &s2, &err), 0);
	REL(s1.pp_s, 4 * 2 * 16777216 / 25e9, 1e-12);
	REL(s2.pp_s, 2 * s1.pp_s, 1e-12);
	net_free(net);
}

/* The command: the validation prints, a good spec exits 0, bad input
 * exits 2 with the key and the reason. */
Test(llm, the_parallelism_command_and_its_exit_codes)
{
	char bin[512], tmp[256];
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "llm");
	tl_cli_need_bin(bin);
	cr_assert_eq(tl_sh(tmp, "'%s' parallelism", bin), 0);
	char *out = tl_slurp(tmp, "out.txt");
	cr_assert(strstr(out, "| megatron-1t | 3072 | 8 | 64 | 6 | 512 | 163 "
			 "|"), "%s", out);
	free(out);
	cr_assert_eq(tl_sh(tmp, "'%s' parallelism model=gpt3-175b,gpus=1024,"
			   "batch=1536", bin), 0);
	out = tl_slurp(tmp, "out.txt");
	cr_assert(strstr(out, "shape: dp 16 x tp 8 x pp 8 = 1024 GPUs, 96 "
			 "micro-batches"), "%s", out);
	free(out);
	static const char *const bad[][2] = {
		{ "model=gpt3-175b,gpus=1000,dp=8,tp=8,pp=16",
		  "differs from the job's GPUs '1000'" },
		{ "model=gpt3-175b,gpus=1024,dp=4,tp=16,pp=16",
		  "$.tp: tensor parallelism inside a node needs tp <= 8" },
		{ "model=llama3-405b,gpus=8", "fits no shape on 8 GPUs" },
		/* 175e9 x 16 / 16 = 175 GB of states per GPU */
		{ "model=gpt3-175b,gpus=16,dp=1,tp=8,pp=2",
		  "more than the a100-80gb's 80.0 GB" },
		{ "model=nope", "unknown preset 'nope'" },
		{ "model=gpt3-175b,tp=x", "tp: unknown key or bad value 'x'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(tl_sh(tmp, "'%s' parallelism '%s'", bin,
				   bad[i][0]), 2, "%s", bad[i][0]);
		char *e = tl_slurp(tmp, "err.txt");
		cr_assert(strstr(e, bad[i][1]), "%s: %s", bad[i][0], e);
		free(e);
	}
	tl_rmtree(tmp);
}

/*
 * GPU figures come from the type table: the A100-80GB's are its data
 * sheet's (312 TFLOP/s dense BF16, 80 GB, 2,039 GB/s, NVLink 600 GB/s
 * both ways = 300e9 B/s each way); on an H100 (989.4 TFLOP/s dense) the
 * compute part of the same step is 312 / 989.4 of the A100's.  An
 * unknown type is refused with the table's names.
 */
Test(llm, gpu_figures_from_the_type_table)
{
	struct llm_model m = { .name = "toy", .layers = 4, .hidden = 4096,
			       .heads = 32, .seq_len = 2048, .vocab = 51200 };
	struct llm_shape sh = { .dp = 1, .tp = 8, .pp = 2, .microbatches = 4,
				.micro_batch = 1, .interleave = 1 };
	struct llm_gpu a, h;
	struct llm_place pl;
	struct llm_step sa, sb;
	struct sim_error err;

	llm_model_defaults(&m);
	llm_gpu_a100_80gb(&a);
	cr_expect_eq(a.peak_flops, 312e12);
	cr_expect_eq(a.mem_bytes, 80e9);
	cr_expect_eq(a.mem_Bps, 2039e9);
	cr_expect_eq(a.nvlink_Bps, 300e9);
	cr_expect_eq(a.per_node, 8);
	cr_assert_eq(llm_gpu_of_type("H100", 8, "gpu", &h, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(llm_place_packed(&sh, 8, 25e9, 0, &pl, &err), 0);
	cr_assert_eq(llm_step_time(&m, &sh, &a, &pl, 0.5, &sa, &err), 0);
	cr_assert_eq(llm_step_time(&m, &sh, &h, &pl, 0.5, &sb, &err), 0);
	REL(sb.compute_s, sa.compute_s * 312 / 989.4, 1e-12);
	cr_expect_eq(llm_gpu_of_type("b200", 8, "gpu", &h, &err),
		     -SIM_EINPUT);
	cr_expect(strstr(err.msg, "gpu: unknown gpu type 'b200' (k80,"),
		  "%s", err.msg);
}
