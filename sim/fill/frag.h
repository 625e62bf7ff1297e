/*
 * GPU sharing and fragmentation: the Kubernetes-style placement model of
 * production GPU clusters (Alibaba openb), after Weng et al., "Beware of
 * Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation
 * Gradient Descent", USENIX ATC 2023.
 *
 * A node has free CPU (milli-cores), free memory (MiB) and, per GPU, a free
 * share in thousandths (0..1000).  A pod asks CPU, memory and either whole
 * GPUs (gpus >= 1, milli == 1000 per GPU), a share of one GPU (gpus == 1,
 * milli < 1000) or no GPU; it may be restricted to some GPU models.
 *
 * Placement is a filter (model constraint, CPU/memory fit, GPU fit) and a
 * score plugin (clustersim/score.h) called on every node that passes; the
 * highest score wins, ties going to the lowest node index, or with
 * Kubernetes' integer scores (integer below, the experiments' default) to
 * the lowest node of a random node order drawn per run.  The plugin
 * also names the GPU a share pod takes; whole-GPU pods take the node's
 * lowest-numbered fully free GPUs.  Six plugins ship in policies/score/:
 * random, dotprod, gpu_clustering, gpu_packing, bestfit, fgd.
 *
 * Fragmentation (the paper's section 3): the fragmentation of node n for a
 * pod shape m, F_n(m), is the GPU capacity of n that m cannot use:
 *   - all of n's free GPU share when m cannot run on n at all (too little
 *     CPU, no GPU model it may use, not enough GPUs with room for it) or
 *     when m asks no GPU;
 *   - else the free share of those GPUs whose free share is below m's
 *     per-GPU demand (min(demand, 1 GPU)).
 * Against a target workload (the distribution of pod shapes, p_m),
 * F_n = sum_m p_m F_n(m); the cluster's fragmentation is the sum over
 * nodes.  As in the paper, a shape is (CPU, GPU count, per-GPU share, GPU
 * models): memory is not part of it; and the target workload of a pod
 * list is its GPU pods (frag_dist_build).  FGD places a pod where F grows
 * least (the steepest descent of the expected fragmentation).
 */
#ifndef CLUSTERSIM_FRAG_H
#define CLUSTERSIM_FRAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clustersim/clustersim.h"
#include "clustersim/score.h"

/* Most GPUs on one node, and GPU models in one cluster. */
#define FRAG_MAX_GPUS SCORE_MAX_GPUS
#define FRAG_MAX_MODELS 31
/* A pod's models mask naming no model of the cluster: it fits nowhere. */
#define FRAG_MODELS_NONE (1u << 31)
/* One whole GPU, in thousandths. */
#define FRAG_MILLI SCORE_MILLI

/* Pods and nodes are the score plugins' views (clustersim/score.h). */

/* One pod shape of the target workload. */
struct frag_shape {
	uint32_t cpu;    /* CPU, milli-cores */
	uint32_t gpus;   /* GPU count (1 for a share) */
	uint32_t milli;  /* per-GPU share, 0 for CPU-only */
	uint32_t models; /* allowed models, 0 = any */
	double p;        /* its probability */
	uint64_t w;      /* its integer weight (pods of the list of this
	                    shape); 0 = p x FRAG_WEIGHT_ONE, rounded */
};

/* The integer weight of probability 1 for shapes given by p alone. */
#define FRAG_WEIGHT_ONE (1u << 20)

/*
 * The target workload, arranged for fast F_n: shapes grouped by their GPU
 * part (gpus, milli, models), each group with the cumulative probability
 * of its shapes by CPU, so F_n costs one binary search over the distinct
 * CPU demands plus a few operations per group.
 */
struct frag_dist {
	struct frag_shape *shapes; /* the shapes, sorted */
	size_t nshapes;
	uint32_t *cpus;            /* distinct CPU demands, ascending */
	size_t ncpus;
	struct frag_group {
		uint32_t gpus, milli, models; /* the GPU part */
		double *cum;   /* cum[i]: probability of the group's shapes
		                  with CPU <= cpus[i - 1]; cum[0] = 0 */
		uint64_t *wcum; /* the same in integer weights */
	} *groups;
	size_t ngroups;
	double p_nogpu;            /* probability of CPU-only shapes */
	uint64_t w_nogpu;          /* their integer weight */
	uint64_t w_total;          /* the weight of all shapes */
};

/* The cluster: nodes, GPU model names, pod kinds. */
struct frag_cluster {
	struct score_node *nodes;
	size_t nnodes;
	double *frag;              /* [node]: F_n against the target
	                              workload, thousandths of a GPU (kept up
	                              to date by frag_place) */
	int64_t *fragw;            /* [node]: the same in integer weights
	                              (score_frag) */
	char *models[FRAG_MAX_MODELS]; /* GPU model names, owned */
	uint32_t nmodels;
	uint64_t gpu_capacity;     /* sum of GPUs x 1000 */
	uint32_t max_cpu;          /* largest node CPU (score normalisation) */
	uint32_t max_gpus;         /* most GPUs on one node */
	uint32_t nkinds;           /* pod kinds known (kind table size) */
	uint16_t *kind_pods;       /* nnodes x nkinds: pods of each kind on
	                              each node (gpu_clustering) */
	const struct frag_dist *dist; /* the target workload, not owned;
	                              NULL = fragmentation not kept */
	bool integer;              /* Kubernetes' integer scores in [0, 100]
	                              and the FGD simulator's tie rule
	                              (score_integer); false: exact scores,
	                              ties to the lowest index */
};

/* The engine's side of a placement run: what score plugins see through
 * the score_*() calls (clustersim/score.h).  frag_ctx_init() sets it up. */
struct score_ctx {
	const struct frag_cluster *c;
	uint64_t rng;              /* splitmix64 state (score_random) */
	size_t *nodes;             /* scratch for normalize(): the nodes */
	int64_t *scores;           /*   that passed, their scores */
	int *gpus;                 /*   and GPUs */
	size_t cap;                /*   room in each */
	uint32_t *rank;            /* integer scores: each node's place in
	                              the run's node order, ties to the
	                              lowest; NULL otherwise */
};

/* ---- cluster ------------------------------------------------------------ */

/* An empty cluster; frag_cluster_add_node() adds nodes. */
void frag_cluster_init(struct frag_cluster *c);
void frag_cluster_release(struct frag_cluster *c);
/* The model's index, added when new (NULL or "" = no model: index of
 * ""); -1 when the table is full. */
int frag_model_index(struct frag_cluster *c, const char *name);
/* Adds an idle node; 0 or -1 for more than FRAG_MAX_GPUS GPUs. */
int frag_cluster_add_node(struct frag_cluster *c, uint32_t cpu, uint32_t mem,
			  uint32_t ngpus, uint32_t model);
/* Makes room for nkinds pod kinds and sets the target workload (may be
 * NULL); every node's F_n is computed.  Call after the last node. */
void frag_cluster_ready(struct frag_cluster *c, uint32_t nkinds,
			const struct frag_dist *dist);
/* Frees every node (back to idle), keeping the target workload. */
void frag_cluster_reset(struct frag_cluster *c);

/* ---- filters, placement ------------------------------------------------- */

/* Does the pod pass node n's filters (model, CPU, memory, GPU room)? */
bool frag_fits(const struct frag_cluster *c, size_t n,
	       const struct score_pod *pod);
/*
 * Places a pod that fits node n: a share on GPU gpu (which must have
 * room), whole GPUs on the lowest-numbered fully free ones.  Updates the
 * node's F_n.  Never lets a GPU's share go below 0 or above 1000 (a
 * broken invariant aborts).  Returns the GPUs it took (bit g = GPU g;
 * 0 for a CPU-only pod), which frag_unplace() gives back.
 */
uint32_t frag_place(struct frag_cluster *c, size_t n,
		    const struct score_pod *pod, int gpu);
/*
 * Undoes frag_place(): gives node n back the pod's CPU, memory and its
 * share of each GPU in gpus (what frag_place() returned).  A GPU's free
 * share above 1000, or CPU/memory above capacity, aborts.
 */
void frag_unplace(struct frag_cluster *c, size_t n,
		  const struct score_pod *pod, uint32_t gpus);

/* ---- placement by a score plugin (score.c) ------------------------------ */

/* A placement run on c with the random stream rng; frag_ctx_release()
 * frees its scratch.  With c->integer the run's node order (the tie
 * rule, score.c) is drawn from rng too. */
void frag_ctx_init(struct score_ctx *ctx, const struct frag_cluster *c,
		   uint64_t rng);
void frag_ctx_release(struct score_ctx *ctx);
/*
 * Chooses a node (and GPU) with a score plugin: the highest score (after
 * its normalize(), if any) among nodes that pass the filters, ties to the
 * lowest index (with c->integer: the lowest in the run's node order).  Returns the node index, or -1 when no node passes; *gpu
 * is the plugin's GPU (-1 for whole-GPU and CPU-only pods).
 */
long frag_choose(struct score_ctx *ctx, const struct score_ops *ops,
		 const struct score_pod *pod, int *gpu);

/* ---- fragmentation ------------------------------------------------------ */

/*
 * Builds the target workload from the GPU pods of pods[0..n), each counted
 * once: CPU-only pods are left out, as the paper's simulator does by
 * default (they would count every free GPU as fragment everywhere).
 * 0, or -1 when there is no GPU pod.
 */
int frag_dist_build(struct frag_dist *d, const struct score_pod *pods,
		    size_t n);
/* Builds it from explicit shapes (probabilities summing to 1). */
int frag_dist_from_shapes(struct frag_dist *d, const struct frag_shape *s,
			  size_t n);
void frag_dist_release(struct frag_dist *d);
/*
 * F_n of a node state against the target workload, in thousandths of a
 * GPU: the node as it is (model, CPU free, per-GPU free shares).
 */
double frag_node_frag(const struct frag_dist *d, uint32_t model,
		      uint32_t cpu_free, uint32_t ngpus,
		      const uint16_t *gpu_free);
/* The same by the plain definition (each shape in turn): for tests. */
double frag_node_frag_plain(const struct frag_dist *d, uint32_t model,
			    uint32_t cpu_free, uint32_t ngpus,
			    const uint16_t *gpu_free);
/* The cluster's fragmentation: sum of F_n, thousandths of a GPU. */
double frag_cluster_frag(const struct frag_cluster *c);
/* F_n of a node state in integer weights (thousandths of a GPU x the
 * weight of the shapes), exact: what score_frag() gives. */
int64_t frag_node_fragw(const struct frag_dist *d, uint32_t model,
			uint32_t cpu_free, uint32_t ngpus,
			const uint16_t *gpu_free);
/* That of node n after placing pod there (share on gpu), without placing
 * it: what fgd scores by (score_frag_after). */
int64_t frag_afterw(const struct frag_cluster *c, size_t n,
		    const struct score_pod *pod, int gpu);

#endif
