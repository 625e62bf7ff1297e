/*
 * Large-model training, the step time (llm.h): compute at a calibrated
 * fraction of the GPU's peak, the tensor-parallel all-reduces and the
 * pipeline sends of every micro-batch on the critical path, the 1F1B (or
 * interleaved) bubble, and the data-parallel gradient all-reduce at the
 * end of the step, hierarchical as NCCL runs it and partly hidden under
 * the last backward pass.  docs/parallelism.md derives each term and
 * says where the model departs from a real run.
 *
 * Worked example (the numbers tests/test_llm.c checks): a model of l = 4
 * layers, h = 4096, a = 32, s = 2048, V = 51200, b = 1, on two nodes of
 * 8 GPUs with t = 8, p = 2, d = 1, m = 4; NVLink 300 GB/s, 25 GB/s per
 * GPU across the fabric, no latency.
 *  - one micro-batch's activations: msg = 2 b s h = 16.78 MB;
 *  - tp: 6 all-reduces per layer (full recomputation), 2 layers per
 *    stage, each a ring of 8: 2 x 7/8 x msg / 300e9 = 97.9 us; per
 *    micro-batch 12 x 97.9 = 1.174 ms;
 *  - pp: per micro-batch one send each way of msg / 8 = 2.10 MB per GPU
 *    at 25 GB/s (83.9 us) and its all-gather over NVLink, 7/8 x msg /
 *    300e9 = 48.9 us: 2 x 132.8 = 265.7 us;
 *  - the stage's time per micro-batch is compute + tp + pp, the step
 *    (m + p - 1) of them.
 */
#include <math.h>

#include "base/util.h"
#include "speed/llm.h"

double llm_ring_allreduce_s(uint32_t n, double bytes, double bw_Bps,
			    double latency_usec)
{
	if (n <= 1)
		return 0;
	double lat = 2.0 * (n - 1) * latency_usec * 1e-6;
	if (!isfinite(bw_Bps))
		return lat;
	return lat + 2.0 * (n - 1) / n * bytes / bw_Bps;
}

/* Bandwidth of a group's members: NVLink inside a node; across nodes the
 * fabric share, never more than NVLink. */
static double group_bw(const struct llm_group_place *g,
		       const struct llm_gpu *gpu)
{
	if (g->nodes <= 1)
		return gpu->nvlink_Bps;
	return g->fabric_Bps < gpu->nvlink_Bps ? g->fabric_Bps
					       : gpu->nvlink_Bps;
}

static double group_lat(const struct llm_group_place *g)
{
	return g->nodes <= 1 ? 0 : g->latency_usec;
}

/*
 * The data-parallel all-reduce of bytes per GPU, hierarchical as NCCL
 * runs it on multi-node groups: a reduce-scatter among the k members of
 * a node over NVLink ((k-1)/k x bytes), a ring all-reduce of the 1/k
 * slice among the N nodes (each member over its own flow), an all-gather
 * back over NVLink ((k-1)/k x bytes).  Example: 1.7B parameters, 2-byte
 * gradients (3.4 GB), d = 32 as 8 per node on 4 nodes: 2 x 7/8 x 3.4e9 /
 * 300e9 = 19.8 ms over NVLink + 2 x 3/4 x 0.425e9 / 25e9 = 25.5 ms over
 * the fabric.
 */
static double dp_allreduce_s(const struct llm_shape *sh, double bytes,
			     const struct llm_group_place *g,
			     const struct llm_gpu *gpu)
{
	if (sh->dp <= 1)
		return 0;
	if (g->nodes <= 1)
		return llm_ring_allreduce_s(sh->dp, bytes, gpu->nvlink_Bps, 0);
	double k = g->per_node ? g->per_node : 1;
	double intra = 2 * (k - 1) / k * bytes / gpu->nvlink_Bps;
	return intra + llm_ring_allreduce_s(g->nodes, bytes / k,
					    group_bw(g, gpu), group_lat(g));
}

int llm_step_time(const struct llm_model *m, const struct llm_shape *sh,
		  const struct llm_gpu *gpu, const struct llm_place *pl,
		  double eff, struct llm_step *st, struct sim_error *err)
{
	int rc = llm_shape_check(m, sh, 0, 0, "", err);
	if (rc)
		return rc;
	if (!(eff > 0 && eff <= 1) || !(gpu->peak_flops > 0) ||
	    !(gpu->nvlink_Bps > 0))
		return err_set(err, "efficiency '%g' must be in (0, 1], the "
			       "GPU's peak and NVLink positive", eff);
	const struct llm_group_place *g[] = { &pl->tp, &pl->pp, &pl->dp };
	static const char *const gname[] = { "tp", "pp", "dp" };
	for (size_t i = 0; i < 3; i++)
		if (g[i]->nodes > 1 && !(g[i]->fabric_Bps > 0))
			return err_set(err, "the %s group spans %u nodes: its "
				       "fabric bandwidth must be positive, "
				       "got '%g'", gname[i], g[i]->nodes,
				       g[i]->fabric_Bps);

	double n = (double)llm_shape_gpus(sh), mb = sh->microbatches;
	double t = sh->tp, p = sh->pp, v = sh->interleave ? sh->interleave : 1;
	double msg = 2.0 * sh->micro_batch * m->seq_len * m->hidden;
	double layers = (double)m->layers / p;

	st->flops = llm_step_flops(m, sh);
	/* Compute of one micro-batch on one stage: the step's FLOPs spread
	 * evenly over the GPUs and the micro-batches, at eff x peak. */
	double c = st->flops / (n * mb * gpu->peak_flops * eff);
	/* Tensor parallelism: every layer's all-reduces of msg among the t
	 * members, over NVLink in a node, else at the fabric's share. */
	double tp_mb = llm_tp_allreduces(m) * layers *
		       llm_ring_allreduce_s(sh->tp, msg,
					    group_bw(&pl->tp, gpu),
					    group_lat(&pl->tp));
	/* Pipeline: per micro-batch and model chunk a send each way to the
	 * neighbouring stage; with scatter/gather every tp rank sends msg/t
	 * and the receivers all-gather the slices over NVLink. */
	double pp_mb = 0;
	if (sh->pp > 1) {
		double gather = t > 1 ? (t - 1) / t * msg / gpu->nvlink_Bps : 0;
		pp_mb = 2 * v * (msg / t / group_bw(&pl->pp, gpu) +
				 group_lat(&pl->pp) * 1e-6 + gather);
	}
	/* Element-wise work (layer norms, softmax, dropout, GeLU, bias) is
	 * bound by memory bandwidth: each of the 4 passes (forward,
	 * recomputed forward, backward counted twice) reads and writes the
	 * layer's whole activations once.  1.7B, t = 1: 8 x 24 layers x
	 * 664 MB / 2039e9 = 62.5 ms per micro-batch against 155 ms of
	 * GEMMs; 1T, t = 8: 4%. */
	double passes = 2 * (m->recompute == LLM_RECOMPUTE_FULL ? 4 : 3);
	double mem_mb = gpu->mem_Bps > 0 ? passes * layers *
			llm_act_full_layer(m, sh) / gpu->mem_Bps : 0;
	double slot = c + mem_mb + tp_mb + pp_mb;
	st->compute_s = mb * c;
	st->memory_s = mb * mem_mb;
	st->tp_s = mb * tp_mb;
	st->pp_s = mb * pp_mb;
	/* 1F1B: (p - 1)/v slots of fill and drain (SC'21 sec. 2.2). */
	st->bubble_s = (p - 1) / v * slot;

	/* Data parallelism: the gradients of the GPU's 1/(t p) of the
	 * model, once per step after the last micro-batch (ZeRO-3 gathers
	 * the weights again: 1.5 times the volume).  comm_overlap of it may
	 * hide under the last micro-batch's backward pass (3/4 of its
	 * compute with recomputation, 2/3 without). */
	double grads = llm_model_parameters(m) / (t * p) * m->bytes_grads;
	st->dp_s = dp_allreduce_s(sh, grads, &pl->dp, gpu) *
		   (m->zero_stage >= 3 ? 1.5 : 1);
	double bwd = c * (m->recompute == LLM_RECOMPUTE_FULL ? 0.75 : 2.0 / 3);
	double hidden = m->comm_overlap * st->dp_s;
	if (hidden > bwd)
		hidden = bwd;
	st->dp_exposed_s = st->dp_s - hidden;

	st->step_s = mb * slot + st->bubble_s + st->dp_exposed_s;
	st->tflops_per_gpu = st->flops / (st->step_s * n) / 1e12;
	return 0;
}
