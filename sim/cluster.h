/*
 * The cluster: node groups, per-node free resources, and placement.
 *
 * Nodes are numbered densely, group after group.  Free CPUs are indexed by
 * blocks of 64 nodes with "has free CPUs" and "idle" bit masks, and a
 * 64-ary summary bitmap of the blocks with something free, so that a
 * first-fit allocation of k CPUs costs a few word operations per extent,
 * partly used node and block touched rather than O(k): a 80,000-processor
 * job on a cluster of one-CPU nodes is a handful of extents and one mask
 * write per 64 nodes, not 80,000 node updates.
 */
#ifndef CLUSTERSIM_CLUSTER_H
#define CLUSTERSIM_CLUSTER_H

#include "clustersim/clustersim.h"

struct node_group {
	char *name;      /* label, owned; "group<i>" when not given */
	uint32_t count;  /* nodes */
	uint32_t cpus;   /* CPUs per node */
	uint32_t gpus;   /* GPUs per node */
	uint64_t mem_mb; /* memory per node, MiB (0 = not modelled) */
};

struct cluster_spec {
	struct node_group *groups; /* owned */
	size_t ngroups;
	bool exclusive;            /* jobs take whole nodes */
};

void cluster_spec_release(struct cluster_spec *s);
/* Checks counts and sizes (at most 2^31 - 1 nodes and 2^32 - 1 CPUs in
 * all, the sizes the placement index counts in); "$.cluster..." messages.
 * prefix is put before the JSON path (normally "FILE: "). */
int cluster_spec_check(const struct cluster_spec *s, const char *prefix,
		       struct sim_error *err);
/*
 * Sizes a cluster from an SWF header: MaxNodes nodes of MaxProcs/MaxNodes
 * CPUs when that divides evenly, else MaxProcs one-CPU nodes.  max_nodes
 * may be -1 (then MaxProcs one-CPU nodes); max_procs must be > 0.
 */
int cluster_spec_from_header(struct cluster_spec *s, int64_t max_procs,
			     int64_t max_nodes, struct sim_error *err);

/*
 * A job's placement: extents of consecutive nodes that each give the same
 * number of CPUs (and GPUs) to the job.
 */
struct place_slot {
	uint32_t node;  /* first node of the extent */
	uint32_t count; /* nodes in the extent */
	uint32_t cpus;  /* CPUs taken on each of these nodes */
	uint32_t gpus;  /* GPUs taken on each of these nodes */
};

struct placement {
	struct place_slot *slots; /* owned */
	uint32_t n, cap;
};

void placement_release(struct placement *p);

struct cluster;

struct cluster *cluster_new(const struct cluster_spec *s);
void cluster_free(struct cluster *c);
/* Returns the cluster to all-idle. */
void cluster_reset(struct cluster *c);

uint32_t cluster_nodes(const struct cluster *c);
uint64_t cluster_total_cpus(const struct cluster *c);
uint64_t cluster_free_cpus(const struct cluster *c);
uint32_t cluster_idle_nodes(const struct cluster *c);
uint32_t cluster_node_cpus(const struct cluster *c, uint32_t node);
uint32_t cluster_node_free_cpus(const struct cluster *c, uint32_t node);
bool cluster_exclusive(const struct cluster *c);

/*
 * The job's demand in the cluster's scalar allocation unit: CPUs when
 * nodes are shared, whole nodes when exclusive.  cluster_capacity() and
 * cluster_free_units() are in the same unit; the free-resource profile
 * works on it.
 */
uint64_t cluster_demand(const struct cluster *c, const struct job *j);
uint64_t cluster_capacity(const struct cluster *c);
uint64_t cluster_free_units(const struct cluster *c);

/* Could the job run on the empty cluster? */
bool cluster_can_ever_fit(const struct cluster *c, const struct job *j);
/* Does the job fit now? */
bool cluster_fits(const struct cluster *c, const struct job *j);
/*
 * First fit: takes the job's CPUs from the lowest-numbered nodes with free
 * CPUs (min(free, still needed) from each), or, when exclusive, the
 * lowest-numbered idle nodes.  Fills out (reusing its storage).  Returns 0,
 * or -SIM_ESTATE when the job does not fit (nothing changed).
 */
int cluster_alloc(struct cluster *c, const struct job *j,
		  struct placement *out);
/* Gives a placement's resources back. */
void cluster_release(struct cluster *c, const struct placement *p);

/* Invariant check: masks, totals and the summary agree with the nodes,
 * nothing over- or under-committed.  0 or -SIM_ESTATE with a message. */
int cluster_check(const struct cluster *c, struct sim_error *err);

#endif
