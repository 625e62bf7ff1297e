/*
 * Large-model training, the static part: parameters, memory per GPU,
 * FLOPs per step, the pipeline bubble, the bytes each group sends, the
 * checks of a shape and the choice of the smallest shape that fits a GPU
 * (llm.h; the step time is in llm_step.c).  Each formula says its source;
 * docs/parallelism.md derives them.
 *
 * Worked example used throughout (and in tests/test_llm.c): GPT-3 175B
 * (175e9 parameters, l = 96, h = 12288, a = 96, s = 2048, V = 50257)
 * with t = 8, p = 16, d = 8, m = 192, b = 1 on 1,024 GPUs:
 *  - states: 175e9 / 128 = 1.367e9 parameters per GPU x 16 bytes =
 *    21.9 GB (ZeRO-1 over d = 8: 2 + 2 + 12/8 = 5.5 bytes, 7.5 GB);
 *  - activations, full recomputation: 2 s b h = 50.3 MB per layer per
 *    micro-batch, 6 layers x 16 in flight = 4.83 GB, plus one layer's
 *    working set s b h (10 + 24/t + 5 a s/(h t)) = 25.2e6 x 23 =
 *    0.58 GB;
 *  - FLOPs: 96 x 1536 x 2048 x 96 x 12288^2 x (1 + 1/36 + 50257/18874368)
 *    = 4.51e18 per step.
 */
#include "speed/llm.h"

#include <math.h>
#include <stdio.h>

#include "base/util.h"
#include "speed/jobclass_gpu.h"

void llm_model_defaults(struct llm_model *m)
{
	m->bytes_weights = 2;
	m->bytes_grads = 2;
	m->bytes_optimizer = 12;
	m->zero_stage = 0;
	m->recompute = LLM_RECOMPUTE_FULL;
	m->act_bytes = 0;
	m->comm_overlap = 0;
	m->interleave = 1;
}

uint64_t llm_shape_gpus(const struct llm_shape *sh)
{
	return (uint64_t)sh->dp * sh->tp * sh->pp;
}

uint64_t llm_shape_batch(const struct llm_shape *sh)
{
	return (uint64_t)sh->dp * sh->microbatches * sh->micro_batch;
}

int llm_gpu_of_type(const char *name, uint32_t per_node, const char *prefix,
		    struct llm_gpu *g, struct sim_error *err)
{
	int k = jobclass_gpu_find(name);
	char names[256];

	if (k < 0) {
		jobclass_gpu_names(names, sizeof(names));
		return err_setc(err, -SIM_EINPUT, "%s: unknown gpu type '%s' "
				"(%s)", prefix, name, names);
	}
	llm_gpu_of_info(jobclass_gpu_at((size_t)k), per_node, g);
	return 0;
}

void llm_gpu_of_info(const struct jobclass_gpu_info *t, uint32_t per_node,
		     struct llm_gpu *g)
{
	*g = (struct llm_gpu){
		.name = t->name,
		.peak_flops = jobclass_gpu_peak_flops(t),
		.mem_bytes = jobclass_gpu_mem_bytes(t),
		.mem_Bps = t->memory_GBps * 1e9,
		.nvlink_Bps = jobclass_gpu_nvlink_Bps(t) / 2,
		.per_node = per_node,
		.source = t->source,
	};
}

void llm_job_shape(const struct job *j, const struct llm_job *lj,
		   struct llm_shape *sh)
{
	uint32_t tp = j->tp ? j->tp : 1, pp = j->pp ? j->pp : 1;
	*sh = (struct llm_shape){
		.dp = j->gpus / (tp * pp),
		.tp = tp,
		.pp = pp,
		.microbatches = lj->microbatches,
		.micro_batch = lj->micro_batch ? lj->micro_batch : 1,
		.interleave = lj->interleave ? lj->interleave : 1,
	};
}

void llm_gpu_a100_80gb(struct llm_gpu *g)
{
	struct sim_error err;

	if (llm_gpu_of_type("a100-80gb", 8, "llm", g, &err))
		SIM_BUG("%s", err.msg);
}

double llm_parameters(const struct llm_model *m)
{
	double l = m->layers, h = m->hidden, V = m->vocab, s = m->seq_len;
	if (l <= 0 || h <= 0)
		return 0;
	/* SC'21 eq. 2: P = 12 l h^2 (1 + 13/(12 h) + (V + s)/(12 l h)). */
	return 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
}

double llm_model_parameters(const struct llm_model *m)
{
	return m->parameters > 0 ? m->parameters : llm_parameters(m);
}

/* Korthikanti et al. 2022, section 4 (no sequence parallelism), 2-byte
 * activations: s b h (10 + 24/t + 5 a s / (h t)) bytes per layer with
 * nothing recomputed, s b h (10 + 24/t) with selective recomputation, and
 * 2 s b h (the layer's input alone) with full recomputation. */
double llm_act_full_layer(const struct llm_model *m,
			     const struct llm_shape *sh)
{
	double s = m->seq_len, b = sh->micro_batch, h = m->hidden;
	double t = sh->tp, a = m->heads;
	return s * b * h * (10 + 24 / t + 5 * a * s / (h * t));
}

double llm_act_bytes_layer(const struct llm_model *m,
			   const struct llm_shape *sh)
{
	double s = m->seq_len, b = sh->micro_batch, h = m->hidden;
	double t = sh->tp;
	if (m->act_bytes > 0)
		return m->act_bytes;
	switch (m->recompute) {
	case LLM_RECOMPUTE_FULL:
		return 2 * s * b * h;
	case LLM_RECOMPUTE_SELECTIVE:
		return s * b * h * (10 + 24 / t);
	default:
		return llm_act_full_layer(m, sh);
	}
}

void llm_memory(const struct llm_model *m, const struct llm_shape *sh,
		struct llm_memory *mem)
{
	double per_gpu = llm_model_parameters(m) / ((double)sh->tp * sh->pp);
	double d = sh->dp, p = sh->pp, v = sh->interleave ? sh->interleave : 1;
	unsigned z = m->zero_stage;

	/* Weights, gradients and optimizer state are split over tp x pp;
	 * ZeRO stage k also shards the last k of (optimizer, gradients,
	 * weights) over the dp replicas (Rajbhandari et al. SC'20, sec. 5). */
	mem->weights = per_gpu * m->bytes_weights / (z >= 3 ? d : 1);
	mem->grads = per_gpu * m->bytes_grads / (z >= 2 ? d : 1);
	mem->optimizer = per_gpu * m->bytes_optimizer / (z >= 1 ? d : 1);

	/* Under 1F1B, stage 0 holds min(p, m) micro-batches in flight, each
	 * with the activations of its l/p layers; the interleaved schedule
	 * holds 1 + (p-1)/(p v) times as much (Korthikanti et al., sec.
	 * 4.2.3).  Full recomputation also needs one layer's whole working
	 * set while that layer's backward runs. */
	double in_flight = sh->microbatches < sh->pp ? sh->microbatches : p;
	double layers = (double)m->layers / p;
	double scale = v > 1 ? 1 + (p - 1) / (p * v) : 1;
	mem->activations = in_flight * layers * llm_act_bytes_layer(m, sh) *
			   scale;
	if (m->recompute == LLM_RECOMPUTE_FULL && m->act_bytes <= 0)
		mem->activations += llm_act_full_layer(m, sh);
	mem->total = mem->weights + mem->grads + mem->optimizer +
		     mem->activations;
}

double llm_step_flops(const struct llm_model *m, const struct llm_shape *sh)
{
	double B = (double)llm_shape_batch(sh), s = m->seq_len;
	double l = m->layers, h = m->hidden, V = m->vocab;
	/* SC'21 eq. 3: a forward pass costs 24 B s l h^2 (1 + s/(6h)) in the
	 * layers and 2 B s h V in the logits; backward twice the forward;
	 * full recomputation one more forward of the layers. */
	double layer = 24 * B * s * l * h * h * (1 + s / (6 * h));
	double logit = 6 * B * s * h * V;
	switch (m->recompute) {
	case LLM_RECOMPUTE_FULL:
		return 4 * layer + logit;
	case LLM_RECOMPUTE_SELECTIVE:
		/* one more forward of the attention core, 4 B s^2 h per layer */
		return 3 * layer + logit + 4 * B * s * s * h * l;
	default:
		return 3 * layer + logit;
	}
}

double llm_bubble_ratio(const struct llm_shape *sh)
{
	double v = sh->interleave ? sh->interleave : 1;
	if (sh->pp <= 1 || sh->microbatches == 0)
		return 0;
	return (sh->pp - 1.0) / (v * sh->microbatches);
}

double llm_bubble_fraction(const struct llm_shape *sh)
{
	double r = llm_bubble_ratio(sh);
	return r / (1 + r);
}

/* All-reduces per layer per micro-batch in a tp group: two in the
 * forward (after attention and after the MLP) and two in the backward
 * (SC'21 sec. 3.2, 8 b s h (t-1)/t bytes per layer per device); full
 * recomputation runs the forward again, with its two. */
unsigned llm_tp_allreduces(const struct llm_model *m)
{
	return m->recompute == LLM_RECOMPUTE_FULL ? 6 : 4;
}

void llm_traffic(const struct llm_model *m, const struct llm_shape *sh,
		 struct llm_traffic *tr)
{
	double s = m->seq_len, b = sh->micro_batch, h = m->hidden;
	double t = sh->tp, d = sh->dp, mb = sh->microbatches;
	double v = sh->interleave ? sh->interleave : 1;
	double msg = 2 * b * s * h; /* one micro-batch's activations, BF16 */
	double layers = (double)m->layers / sh->pp;
	double grads = llm_model_parameters(m) / (t * sh->pp) * m->bytes_grads;

	tr->tp_bytes = t > 1 ? llm_tp_allreduces(m) * layers * mb * 2 *
				       (t - 1) / t * msg
			     : 0;
	/* Per micro-batch and model chunk, one activation send forward and
	 * one gradient send back; with Megatron's scatter/gather each tp
	 * rank sends its 1/t slice (SC'21 sec. 4.1). */
	tr->pp_bytes = sh->pp > 1 ? 2 * v * mb * msg / t : 0;
	tr->dp_bytes = d > 1 ? 2 * (d - 1) / d * grads : 0;
}

static int field_err(struct sim_error *err, const char *prefix,
		     const char *field, const char *why, double value)
{
	return err_set(err, "%s.%s: %s, got '%.15g'", prefix, field, why,
		       value);
}

int llm_shape_check(const struct llm_model *m, const struct llm_shape *sh,
		    uint64_t gpus, uint32_t gpus_per_node, const char *prefix,
		    struct sim_error *err)
{
	const char *p = prefix ? prefix : "";
	uint32_t v = sh->interleave ? sh->interleave : 1;

	if (!m->layers || !m->hidden || !m->seq_len || !m->vocab)
		return err_set(err, "%s.model: layers, hidden, seq_len and "
			       "vocab must be positive (model '%s')", p,
			       m->name ? m->name : "");
	if (m->zero_stage > 3)
		return field_err(err, p, "zero_stage", "must be 0 to 3",
				 m->zero_stage);
	if (!(m->comm_overlap >= 0 && m->comm_overlap <= 1))
		return field_err(err, p, "comm_overlap", "must be in [0, 1]",
				 m->comm_overlap);
	if (!sh->dp || !sh->tp || !sh->pp)
		return err_set(err, "%s: dp, tp and pp must be at least 1, "
			       "got '%u x %u x %u'", p, sh->dp, sh->tp, sh->pp);
	if (!sh->microbatches)
		return field_err(err, p, "microbatches", "must be at least 1",
				 0);
	if (!sh->micro_batch)
		return field_err(err, p, "micro_batch", "must be at least 1", 0);
	if (gpus && llm_shape_gpus(sh) != gpus)
		return err_set(err, "%s: dp x tp x pp = %u x %u x %u = %llu "
			       "differs from the job's GPUs '%llu'", p, sh->dp,
			       sh->tp, sh->pp,
			       (unsigned long long)llm_shape_gpus(sh),
			       (unsigned long long)gpus);
	if (gpus_per_node && sh->tp > gpus_per_node)
		return err_set(err, "%s.tp: tensor parallelism inside a node "
			       "needs tp <= %u GPUs per node, got '%u'", p,
			       gpus_per_node, sh->tp);
	if (m->hidden % sh->tp || (m->heads && m->heads % sh->tp))
		return err_set(err, "%s.tp: must divide the hidden size %u "
			       "and the heads %u, got '%u'", p, m->hidden,
			       m->heads, sh->tp);
	if (m->layers % (sh->pp * v))
		return err_set(err, "%s.pp: pp x interleave must divide the "
			       "layers %u, got '%u x %u'", p, m->layers,
			       sh->pp, v);
	return 0;
}

/* Whether the model fits on a shape of tp x pp over gpus GPUs; fills sh. */
static bool try_shape(const struct llm_model *m, const struct llm_gpu *gpu,
		      uint64_t gpus, uint64_t batch, uint32_t tp, uint32_t pp,
		      struct llm_shape *sh, double *need)
{
	struct llm_memory mem;
	uint64_t q = (uint64_t)tp * pp;
	if (gpus % q || gpus / q > UINT32_MAX || m->layers % pp ||
	    m->hidden % tp || (m->heads && m->heads % tp))
		return false;
	sh->tp = tp;
	sh->pp = pp;
	sh->dp = (uint32_t)(gpus / q);
	uint64_t per = (uint64_t)sh->dp * sh->micro_batch;
	uint64_t mb = (batch + per / 2) / per;
	sh->microbatches = mb == 0 ? 1 : mb > UINT32_MAX ? UINT32_MAX
							   : (uint32_t)mb;
	if (m->layers % (pp * sh->interleave))
		sh->interleave = 1;
	llm_memory(m, sh, &mem);
	*need = mem.total;
	return mem.total <= gpu->mem_bytes;
}

int llm_fit_shape(const struct llm_model *m, const struct llm_gpu *gpu,
		  uint64_t gpus, uint64_t batch, struct llm_shape *sh,
		  const char *prefix, struct sim_error *err)
{
	double need, least = INFINITY;
	uint32_t best_tp = 0, best_pp = 0, v = sh->interleave;
	if (!sh->micro_batch)
		sh->micro_batch = 1;
	/* Products tp x pp from the smallest (at most the node's GPUs x the
	 * layers); at one product, tp as large as the node allows first (tp
	 * over NVLink is the cheaper split). */
	uint64_t qmax = (uint64_t)gpu->per_node * m->layers;
	if (qmax > gpus)
		qmax = gpus;
	for (uint64_t q = 1; q <= qmax; q++) {
		for (uint32_t tp = gpu->per_node; tp >= 1; tp--) {
			if (gpu->per_node % tp || q % tp || q / tp > m->layers)
				continue;
			uint32_t pp = (uint32_t)(q / tp);
			sh->interleave = v ? v : 1;
			need = INFINITY;
			if (try_shape(m, gpu, gpus, batch, tp, pp, sh, &need))
				return 0;
			if (need < least) {
				least = need;
				best_tp = tp;
				best_pp = pp;
			}
		}
	}
	if (!best_tp)
		return err_set(err, "%s.model: '%s' has no shape on %llu GPUs "
			       "(tp dividing %u, pp dividing %u layers)",
			       prefix ? prefix : "", m->name ? m->name : "",
			       (unsigned long long)gpus, gpu->per_node,
			       m->layers);
	return err_set(err, "%s.model: '%s' fits no shape on %llu GPUs of "
		       "%s (%.1f GB each): the least memory, %.1f GB per GPU, "
		       "is at tp %u x pp %u", prefix ? prefix : "",
		       m->name ? m->name : "", (unsigned long long)gpus,
		       gpu->name ? gpu->name : "the GPU", gpu->mem_bytes / 1e9,
		       least / 1e9, best_tp, best_pp);
}

/* Members of a group of size n with stride (ranks apart) on nodes of g
 * GPUs filled in rank order. */
static void group_on_nodes(uint32_t n, uint64_t stride, uint32_t g,
			   struct llm_group_place *gp)
{
	uint64_t per = stride >= g ? 1 : g / stride;
	if (per > n)
		per = n;
	gp->per_node = (uint32_t)per;
	gp->nodes = (uint32_t)((n + per - 1) / per);
}

int llm_place_packed(const struct llm_shape *sh, uint32_t gpus_per_node,
		     double fabric_Bps, double latency_usec,
		     struct llm_place *pl, struct sim_error *err)
{
	uint32_t g = gpus_per_node, t = sh->tp;
	if (!g || (t <= g ? g % t : t % g))
		return err_set(err, "tp '%u' and the node's %u GPUs must "
			       "divide one another", t, g);
	struct llm_group_place base = { .fabric_Bps = fabric_Bps,
					.latency_usec = latency_usec };
	pl->tp = pl->pp = pl->dp = base;
	/* Ranks: tp fastest, then dp, then pp (Megatron-LM's order). */
	group_on_nodes(t, 1, g, &pl->tp);
	group_on_nodes(sh->dp, t, g, &pl->dp);
	group_on_nodes(sh->pp, (uint64_t)t * sh->dp, g, &pl->pp);
	return 0;
}
