/*
 * Inside the cluster model: what sim/cluster/cluster.c (node groups, the cluster
 * object, the CPU placement index), sim/cluster/cluster_gpu.c (the whole-GPU
 * index and its placement strategies) and sim/cluster/cluster_gpu_setup.c
 * (that index's set-up and checks) share, with sim/cluster/cluster_vc.c
 * (virtual clusters).  Nothing outside those files includes it; the
 * public API is sim/cluster/cluster.h.
 *
 * It holds struct cluster, the CPU index's block and node records (the
 * GPU code reads a node's free CPUs when a GPU job also wants CPUs), the
 * bit set with a 64-ary summary (base/bitset.h) that both indexes search
 * (the CPU index over its blocks, the GPU index over nodes, once per
 * free-GPU count), and the few functions one file calls in the other.  The helpers are
 * static inline because they sit on the CPU hot path (every job start
 * and end of a replay): defined here, they stay inlinable in each file.
 */
#ifndef CLUSTERSIM_CLUSTER_IMPL_H
#define CLUSTERSIM_CLUSTER_IMPL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "base/bitset.h"
#include "base/util.h"

#define CL_BITS BSET_BITS	/* nodes per block, bits per summary word */
#define CL_NONE BSET_NONE	/* bset_next: no member */

/* ---- the cluster ------------------------------------------------------ */

/* 64 consecutive nodes, b * 64 .. b * 64 + 63. */
struct cl_block {
	uint64_t free; /* bit i: node i has free CPUs */
	uint64_t idle; /* bit i: node i is completely free (implies free) */
	uint32_t cap;  /* CPUs of each node when all are equal, else 0 */
};

/* One node. */
struct cl_node {
	uint32_t part; /* free CPUs while partly used; stale otherwise */
	uint32_t cap;  /* CPUs */
};

struct cluster {
	uint32_t n;             /* nodes */
	uint32_t ngroups;       /* node groups */
	uint32_t *gstart;       /* first node of each group; [ngroups] = n */
	uint32_t *gcpus;        /* CPUs per node of each group */
	uint32_t *ggpus;        /* GPUs per node of each group */
	uint32_t nblocks;       /* ceil(n / 64) */
	struct cl_block *blk;   /* nblocks blocks */
	struct cl_node *node;   /* n nodes */
	struct bset sum;        /* blocks with a free unit (cluster.c) */
	uint64_t free_cpus;     /* free CPUs in all */
	uint32_t idle_nodes;    /* idle nodes in all */
	uint64_t total_cpus;    /* sum of all capacities (< 2^32) */
	bool exclusive;         /* jobs take whole nodes */
	bool shape_blind;       /* shaped jobs fit and go by their GPU count
	                           alone (cluster_set_shape_blind) */
	/* Whole GPUs (cluster_gpu.c); the arrays are NULL when no node has
	 * GPUs. */
	uint32_t maxg;          /* most GPUs of a node (0: no GPUs) */
	uint32_t ntypes;        /* distinct named GPU types */
	uint32_t ncls;          /* GPU classes: the distinct (GPU type,
	                           VC) pairs of the groups with GPUs, in
	                           group order */
	char **tname;           /* name of each type, owned */
	uint32_t nvc;           /* distinct VC names (cluster.h) */
	char **vcname;          /* name of each VC, owned */
	uint32_t *cltype;       /* GPU type of each class; ntypes = untyped */
	uint32_t *clvc;         /* VC of each class; nvc = shared pool */
	int32_t *group_vc;      /* VC of each workload group, -1 = none */
	size_t ngroup_vc;       /* entries in group_vc */
	uint32_t *gcls;         /* GPU class of each group */
	uint32_t *ncl;          /* GPU class of each node */
	uint8_t *gcap;          /* GPUs of each node */
	uint64_t *gmask;        /* free GPUs of each node, bit i = GPU i */
	uint64_t *ctotal;       /* GPUs of each class */
	uint64_t total_gpus;    /* GPUs in all */
	uint32_t rack_nodes;    /* nodes per rack (n or less) */
	uint32_t nracks;        /* ceil(n / rack_nodes) */
	/* What a job may use, by its key (gpu_type, VC): key
	 * t * (nvc + 1) + v, t = job->gpu_type (0 = any), v = its VC or nvc
	 * for none. */
	uint32_t *kcls;         /* classes of each key, ascending */
	uint32_t *kcls_at;      /* key k: kcls[kcls_at[k] .. kcls_at[k + 1]) */
	struct cl_range *krange; /* node ranges of each key, in order */
	uint32_t *krange_at;    /* key k: krange[krange_at[k] ..
	                           krange_at[k + 1]) */
	struct gx *gx;          /* the free-GPU index */
	struct gx *view;        /* scratch index for jobs that want CPUs */
	struct gp_pick *picks;  /* scratch: a strategy's plan */
	size_t pcap;            /* picks allocated */
	struct gp_rack *rk;     /* scratch: racks in order of preference */
	/* Partitions as node sets (cluster_part.c); npset 0: none bound. */
	uint32_t npset;
	struct cl_pset *pset;   /* each partition's nodes and units */
	uint64_t *node_pset;    /* per node: bit p, it is in partition p */
	int32_t *job_pset;      /* per job idx: its partition, -1 none */
	size_t njob_pset;
	struct cl_range *psrg;  /* scratch: a GPU job's ranges in its set */
	size_t psrgcap;
};

/* A partition's nodes (ascending, disjoint ranges) and its units. */
struct cl_pset {
	struct cl_range *rg;
	uint32_t nrg;
	uint64_t total, free;   /* allocation units (units_capacity's) */
	uint64_t overlap;       /* bit q: it shares a node with partition q
	                           (its own bit set) */
};

/* Bits lo .. lo + k - 1 (lo + k <= 64; none when k is 0). */
static inline uint64_t cl_mask(unsigned lo, unsigned k)
{
	return (k == CL_BITS ? ~UINT64_C(0) : (UINT64_C(1) << k) - 1) << lo;
}

/* The free CPUs of node v. */
static inline uint32_t cl_node_free(const struct cluster *c, uint32_t v)
{
	const struct cl_block *k = &c->blk[v / CL_BITS];
	uint64_t bit = UINT64_C(1) << (v % CL_BITS);

	if (k->idle & bit)
		return c->node[v].cap;
	return k->free & bit ? c->node[v].part : 0;
}

/* Makes room for n slots in out. */
static inline void cl_reserve(struct placement *out, size_t n)
{
	size_t cap = out->cap;

	xgrow(&out->slots, &cap, n, sizeof(*out->slots));
	SIM_ASSERT(cap <= UINT32_MAX);
	out->cap = (uint32_t)cap;
}

/* ---- the GPU index (cluster_gpu.c; made in cluster_gpu_setup.c) ------- */

/* Consecutive nodes first .. end - 1. */
struct cl_range {
	uint32_t first; /* first node */
	uint32_t end;   /* one past the last node */
};

/* Free GPUs by node, count, class and rack: the cluster's, or a view of
 * what each node can give one job. */
struct gx {
	uint8_t *nf;     /* free GPUs of each node */
	struct bset *set; /* [c], c = 1 .. maxg: nodes with exactly c free;
	                    [0]: nodes with any free */
	uint32_t *cnt;   /* [cls * (maxg + 1) + c]: nodes of class cls with
	                    exactly c free, c >= 1 */
	uint64_t *rfree; /* [rack * ncls + cls]: free GPUs */
	uint64_t *cfree; /* [cls]: free GPUs */
	uint64_t free;   /* free GPUs in all */
};

/* One node of a plan: take count GPUs of node. */
struct gp_pick {
	uint32_t node;  /* the node */
	uint32_t count; /* GPUs to take there */
	uint64_t mask;  /* which, once taken */
	uint32_t cpus;  /* CPUs to take there */
};

/* A rack and its free GPUs for the job being placed. */
struct gp_rack {
	uint32_t rack; /* rack number */
	uint64_t free; /* its free GPUs of the job's classes */
};

/* A new index of c, every node 0 free; gx_free frees it (and accepts
 * NULL). */
struct gx *gx_new(const struct cluster *c);
void gx_free(const struct cluster *c, struct gx *x);
/* Empties the index: every node 0 free. */
void gx_clear(const struct cluster *c, struct gx *x);

/* Node v now has f free GPUs. */
static inline void gx_set(const struct cluster *c, struct gx *x, uint32_t v,
			  uint32_t f)
{
	uint32_t old = x->nf[v], cls = c->ncl[v];
	uint32_t *cnt = &x->cnt[(size_t)cls * (c->maxg + 1)];
	uint32_t r = v / c->rack_nodes;

	if (old == f)
		return;
	SIM_ASSERT(f <= c->maxg);
	if (old) {
		bset_del(&x->set[old], v);
		cnt[old]--;
	} else {
		bset_add(&x->set[0], v);
	}
	if (f) {
		bset_add(&x->set[f], v);
		cnt[f]++;
	} else {
		bset_del(&x->set[0], v);
	}
	x->rfree[(size_t)r * c->ncls + cls] += (uint64_t)f - old;
	x->cfree[cls] += (uint64_t)f - old;
	x->free += (uint64_t)f - old;
	x->nf[v] = (uint8_t)f;
}

/* What node v can give a job of gpus GPUs and cpus CPUs (> 0): its free
 * GPUs, but no more than ceil(cpus * g / gpus) <= free CPUs allows. */
static inline uint32_t gx_can_give(const struct cluster *c, uint32_t v,
				   uint32_t free_gpus, uint32_t free_cpus,
				   const struct job *j)
{
	uint64_t g = (uint64_t)free_cpus * j->gpus / j->cpus;

	return g < free_gpus ? (uint32_t)g : free_gpus;
}

/* ---- from one file to the other --------------------------------------- */

/* cluster_part.c: the partition job j is bound to (-1: none: the
 * whole cluster); could it be placed in it (now, or when empty); places
 * a CPU job first fit on its nodes (0, or -SIM_ESTATE); a placement's
 * units taken (sign -1) or given back (+1) in every partition holding
 * its nodes; the ranges a GPU job may search, its key's narrowed to its
 * partition (c->psrg). */
static inline int cp_job(const struct cluster *c, const struct job *j)
{
	return c->npset && j->idx < c->njob_pset ? c->job_pset[j->idx] : -1;
}
bool cp_fits(const struct cluster *c, const struct job *j, bool now);
int cp_alloc(struct cluster *c, const struct job *j, struct placement *out);
void cp_account(struct cluster *c, const struct placement *p, int sign);
void cp_narrow(struct cluster *c, const struct job *j,
	       const struct cl_range **rg, uint32_t *nrg);
void cp_reset(struct cluster *c);
void cp_release(struct cluster *c);

/* cluster.c: takes cpus CPUs of node v, which has them (none: nothing). */
void cl_take_cpus(struct cluster *c, uint32_t v, uint32_t cpus);

/* cluster_gpu.c: the GPU part of cluster_new, cluster_reset and
 * cluster_free (gp_release frees what gp_setup allocated). */
void gp_setup(struct cluster *c, const struct cluster_spec *s);
void gp_reset(struct cluster *c);
void gp_release(struct cluster *c);
/* cluster_gpu.c: could a GPU job get its GPUs (and CPUs beside them) on
 * the cluster as it is now, or when empty? */
bool gp_fits(const struct cluster *c, const struct job *j, bool now);
/* cluster_gpu.c: gives gpus GPUs back to node v (mask says which; 0:
 * the lowest busy ones). */
void gp_give(struct cluster *c, uint32_t v, uint32_t gpus, uint64_t mask);
/* cluster_gpu.c: free GPUs of each class (NULL when no node has GPUs),
 * for cluster_vc.c. */
const uint64_t *gp_class_free(const struct cluster *c);
/* cluster_gpu.c: the GPU index's invariants, for cluster_check. */
int gp_check(const struct cluster *c, struct sim_error *err);
/* cluster_gpu.c, for the shaped placement of cluster_shape.c: the node
 * ranges and classes a job may use (those of its GPU type and VC) */
void gp_ranges(const struct cluster *c, const struct job *j,
	       const struct cl_range **rg, uint32_t *nrg,
	       const uint32_t **cls, uint32_t *ncls);
/* ... takes a plan of n picks (c->picks; at most one per node) and writes
 * the placement in node order */
void gp_apply(struct cluster *c, const struct job *j, uint32_t n,
	      struct placement *out);
/* ... fills c->view with what each node of the ranges can give a job
 * that wants CPUs; returns the GPUs it could get in all */
uint64_t gp_build_view(struct cluster *c, const struct cl_range *rg,
		       uint32_t nrg, const struct job *j);

#endif
