/*
 * The score-plugin contract: Kubernetes-style placement of GPU-sharing
 * pods, as the fill and replay experiments run it (experiments/README.md,
 * "fill").
 *
 * A score plugin is one small table of callbacks, declared at the end of
 * its own file in policies/score/ with CLUSTERSIM_SCORE().  For each pod
 * the engine runs the filters (GPU model, CPU, memory, GPU room) and calls
 * score() on every node that passes; when the plugin has normalize(), the
 * engine then hands it all those scores at once, as the scheduling
 * framework of Kubernetes does (framework.MaxNodeScore = 100).  The
 * highest score wins, ties going to the lowest node index.  score() also
 * names the GPU a pod asking a share of one GPU takes (the engine falls
 * back to the best-fit GPU when it names none, or a full one); whole-GPU
 * pods take the node's lowest-numbered fully free GPUs.
 *
 * Scores are integers, as in Kubernetes: a plugin works in the model's
 * own units (milli-cores, thousandths of a GPU) and needs no rounding.
 * A plugin sees the pod and the node through the const views below and
 * the rest of the cluster through the score_*() calls; it keeps no
 * state of its own (the random stream is the engine's, per run).
 *
 * Compatibility: version and size come first and are set by the macro;
 * fields are only ever appended (the loader reads no further than the
 * size a plug-in declares, and takes what lies past it as NULL), and
 * CLUSTERSIM_SCORE_VERSION changes only when an existing field or call
 * changes meaning.  A plug-in of another version is refused.
 */
#ifndef CLUSTERSIM_SCORE_H
#define CLUSTERSIM_SCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLUSTERSIM_SCORE_VERSION 1u

/* The score range of Kubernetes' framework (MinNodeScore, MaxNodeScore),
 * what score_normalize_minmax() maps onto. */
#define SCORE_MIN_NODE 0
#define SCORE_MAX_NODE 100

/* One whole GPU, in thousandths; most GPUs on one node. */
#define SCORE_MILLI 1000u
#define SCORE_MAX_GPUS 16

/* A pod: what it asks for. */
struct score_pod {
	uint32_t cpu;       /* CPU, milli-cores */
	uint32_t mem;       /* memory, MiB */
	uint32_t gpus;      /* GPUs: whole ones, or 1 for a share */
	uint32_t milli;     /* per-GPU share: 1000 for whole GPUs, < 1000 for
	                       a share of one GPU, 0 for a CPU-only pod */
	uint32_t models;    /* GPU models it may use: bit k = model k;
	                       0 = any */
	uint32_t kind;      /* index of its (gpus, milli) pair in the
	                       cluster's kind table (score_kind_pods) */
	int64_t created;    /* trace creation time, s (-1 = none) */
	int64_t deleted;    /* trace deletion time, s (-1 = none) */
};

/* A node as it is now. */
struct score_node {
	uint32_t cpu_cap, cpu_free;   /* milli-cores */
	uint32_t mem_cap, mem_free;   /* MiB */
	uint32_t ngpus;               /* GPUs on it */
	uint32_t model;               /* its GPU model (index) */
	uint32_t gpu_total;           /* sum of gpu_free */
	uint32_t gpu_whole;           /* GPUs with a free share of 1000 */
	uint16_t gpu_free[SCORE_MAX_GPUS]; /* free share per GPU, 0..1000 */
	uint32_t gpu_pods;            /* GPU pods placed on it */
	uint32_t nkinds;              /* distinct pod kinds among them */
};

/* The engine's side of one placement run (opaque). */
struct score_ctx;

struct score_ops {
	/* Always CLUSTERSIM_SCORE_VERSION; set by CLUSTERSIM_SCORE. */
	uint32_t version;
	/* sizeof(struct score_ops) as the plug-in was built; set by the
	 * macro. */
	uint32_t size;
	/* Name in experiment files' "policies"; the file stem for built-in
	 * plugins, and no job policy's name. */
	const char *name;
	/* One line for `clustersim policies`. */
	const char *summary;

	/*
	 * The score of placing pod on node n (node is its view), higher
	 * wins.  Called only on nodes that pass the filters, in node order.
	 * For a pod asking a share of one GPU (gpus == 1, milli < 1000) it
	 * sets *gpu to the GPU the pod would take there (*gpu is -1 on
	 * entry).  Required.
	 */
	int64_t (*score)(struct score_ctx *ctx, const struct score_pod *pod,
			 size_t n, const struct score_node *node, int *gpu);
	/*
	 * Optional: rewrites the scores of all nodes that passed the
	 * filters, nodes[i] scored scores[i] (ascending node order, count
	 * >= 1), before the engine picks the highest; e.g. onto
	 * [SCORE_MIN_NODE, SCORE_MAX_NODE] with score_normalize_minmax().
	 * NULL: the raw scores decide.
	 */
	void (*normalize)(struct score_ctx *ctx, const struct score_pod *pod,
			  const size_t *nodes, int64_t *scores, size_t count);
};

/* Declares a score plugin at the end of its file.  Built in, it becomes
 * clustersim_score_<name> and the Makefile registers it; built with
 * -DCLUSTERSIM_PLUGIN as a shared object, it is the one exported symbol
 * "clustersim_score" that --plugin loads. */
#ifdef CLUSTERSIM_PLUGIN
#define CLUSTERSIM_SCORE(pname, ...)                                         \
	__attribute__((visibility("default")))                               \
	const struct score_ops clustersim_score = {                          \
		.version = CLUSTERSIM_SCORE_VERSION,                         \
		.size = sizeof(struct score_ops), .name = #pname, __VA_ARGS__ }
#else
#define CLUSTERSIM_SCORE(pname, ...)                                         \
	const struct score_ops clustersim_score_##pname = {                  \
		.version = CLUSTERSIM_SCORE_VERSION,                         \
		.size = sizeof(struct score_ops), .name = #pname, __VA_ARGS__ }
#endif

/* ---- The cluster, as a plugin may see it ------------------------------- */

/* The largest node's CPU (milli-cores) and the most GPUs on one node:
 * what scores normalise by (at least 1 each). */
uint32_t score_max_cpu(const struct score_ctx *ctx);
uint32_t score_max_gpus(const struct score_ctx *ctx);
/* GPU pods of the given kind (score_pod.kind) on node n now. */
uint32_t score_kind_pods(const struct score_ctx *ctx, size_t n,
			 uint32_t kind);

/*
 * Fragmentation (Weng et al., "Beware of Fragmentation", USENIX ATC 2023,
 * section 3): the GPU share of node n that the target workload's pods
 * could not use, in expectation over its pod shapes, as an exact integer:
 * thousandths of a GPU times the workload's total weight (each pod of the
 * target list weighs 1), so two states compare without rounding.
 * score_has_target() is false when the run keeps no target workload; the
 * other two are 0 then.
 */
bool score_has_target(const struct score_ctx *ctx);
int64_t score_frag(const struct score_ctx *ctx, size_t n);
/* The same for node n after placing pod there (a share on GPU gpu, which
 * must have room; whole GPUs on the lowest fully free ones), without
 * placing it. */
int64_t score_frag_after(const struct score_ctx *ctx, size_t n,
			 const struct score_pod *pod, int gpu);

/*
 * Does the run score as Kubernetes does (the default of a fill
 * experiment, "score": "integer")?  Then a plugin returns an integer in
 * [SCORE_MIN_NODE, SCORE_MAX_NODE], computed as the FGD paper's
 * simulator computes it, and ties go to the run's node order; otherwise
 * ("score": "double") an exact score of any range, ties to the lowest
 * node.
 */
bool score_integer(const struct score_ctx *ctx);
/* The weight of the whole target workload: score_frag() / this is F_n in
 * thousandths of a GPU (1 without a target workload). */
uint64_t score_frag_weight(const struct score_ctx *ctx);

/* The next draw of the run's random stream (splitmix64, from the run's
 * seed): for randomised plugins. */
uint64_t score_random(struct score_ctx *ctx);

/* ---- Helpers ------------------------------------------------------------ */

/* A pod's GPU demand in thousandths (gpus x milli). */
static inline uint32_t score_pod_gpu_milli(const struct score_pod *pod)
{
	return pod->gpus * pod->milli;
}

/* Does the pod ask a share of one GPU? */
static inline bool score_pod_is_share(const struct score_pod *pod)
{
	return pod->gpus > 0 && pod->milli < SCORE_MILLI;
}

/* GPUs of a node with room for a share of milli (free >= milli). */
static inline unsigned score_gpus_with(const struct score_node *nd,
				       uint32_t milli)
{
	unsigned k = 0;
	for (uint32_t g = 0; g < nd->ngpus; g++)
		k += nd->gpu_free[g] >= milli;
	return k;
}

/* The GPU with the least free share that still holds milli (ties: lowest
 * index), -1 when none: the best-fit GPU for a share. */
static inline int score_gpu_bestfit(const struct score_node *nd,
				    uint32_t milli)
{
	int best = -1;
	for (uint32_t g = 0; g < nd->ngpus; g++)
		if (nd->gpu_free[g] >= milli &&
		    (best < 0 || nd->gpu_free[g] < nd->gpu_free[best]))
			best = (int)g;
	return best;
}

/*
 * Kubernetes' min-max normalisation, as the FGD paper's simulator
 * normalises its plugins' scores: each score s becomes
 * (s - lowest) x 100 / (highest - lowest) in integers (rounded down),
 * all SCORE_MIN_NODE when every score is the same.  Nodes whose raw
 * scores differ can end up equal, and then the lowest node wins.
 */
static inline void score_normalize_minmax(int64_t *scores, size_t count)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < count; i++) {
		if (scores[i] < lo)
			lo = scores[i];
		if (scores[i] > hi)
			hi = scores[i];
	}
	for (size_t i = 0; i < count; i++) {
		if (hi == lo) {
			scores[i] = SCORE_MIN_NODE;
			continue;
		}
		/* In unsigned 128 bits: (s - lo) x 100 may pass 2^63. */
		unsigned __int128 d = (uint64_t)scores[i] - (uint64_t)lo;
		unsigned __int128 r = (uint64_t)hi - (uint64_t)lo;
		d *= SCORE_MAX_NODE - SCORE_MIN_NODE;
		scores[i] = SCORE_MIN_NODE + (int64_t)(d / r);
	}
}

#endif
