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
	char *gpu_type;  /* GPU model name, owned; NULL = untyped */
	char *vc;        /* virtual cluster (job group name) whose GPU jobs
	                    alone it runs, owned; NULL = the shared pool */
};

/*
 * A tenant (docs/tenants.md): a department (parent -1) or one of its
 * projects.  Amounts in milli-GPUs (1000 = one GPU).  The names of
 * Run:AI; Kueue's are cohort and ClusterQueue.
 */
#define TENANT_NO_LIMIT UINT64_MAX
struct tenant_spec {
	char *name;            /* owned; unique among the tenants */
	int32_t parent;        /* its department's index, -1 = department */
	uint64_t quota;        /* guaranteed milli-GPUs */
	uint64_t borrow_limit; /* most held above quota; TENANT_NO_LIMIT */
	uint64_t lend_limit;   /* most of its unused quota lent to others;
	                          TENANT_NO_LIMIT */
	double weight;         /* over-quota share weight, > 0 */
	/* Quotas per GPU type: when the experiment gives quota,
	 * borrow_limit or lend_limit as {gpu_type: GPUs} objects (then
	 * every tenant does), one entry per type named; quota above is
	 * then their quotas' sum and the limits above are no limit. */
	bool per_type;         /* the amounts are per GPU type */
	struct tenant_type *types; /* owned, the types named; NULL = none */
	size_t ntypes;
};

/* A tenant's amounts on one GPU type (docs/tenants.md). */
struct tenant_type {
	char *type;            /* the GPU type's name, owned */
	uint64_t quota;        /* guaranteed milli-GPUs of it (0: none) */
	uint64_t borrow_limit; /* TENANT_NO_LIMIT when not given */
	uint64_t lend_limit;   /* TENANT_NO_LIMIT when not given */
	unsigned given;        /* which objects named it: bit 0 quota, 1
	                          borrow_limit, 2 lend_limit (for messages) */
};

/* Where a job's project comes from (workload.project_from). */
enum tenant_from {
	TENANT_FROM_VC = 0, /* its group: Philly's VC (by name) */
	TENANT_FROM_GROUP,  /* the same field, the trace's group number */
	TENANT_FROM_USER,   /* its user number */
	TENANT_FROM_COLUMN, /* a CSV trace's project column, by name */
	TENANT_FROM_N
};
extern const char *const tenant_from_names[TENANT_FROM_N];

/*
 * Slurm-style queues (docs/tenants.md, "Partitions and QOS"): a
 * partition is a set of node groups with a time limit and a priority;
 * a QOS is a priority, a usage factor and per-user and per-group limits.
 * A job belongs to one of each, by a trace field (enum slurm_from).
 */
struct part_spec {
	char *name;              /* owned; unique */
	char **groups;           /* names of its node groups, owned */
	size_t ngroups;
	int64_t trace_id;        /* the trace's number for it; -1 = its name
	                            read as a number */
	sim_time_t max_time;     /* MaxTime: longer estimates are refused at
	                            submit; 0 = none */
	uint32_t priority_tier;  /* PriorityTier: jobs of higher tiers go
	                            first */
	uint32_t priority_job_factor; /* PriorityJobFactor: its partition
	                            factor over the largest */
	bool is_default;         /* jobs whose field names no other partition
	                            (or is -1) go here */
	bool preempt_requeue;    /* PreemptMode=REQUEUE: its running jobs may
	                            be preempted (requeued) by waiting jobs
	                            of higher-tier partitions; false: OFF */
};

/* "No limit" for the QOS limits. */
#define QOS_NO_LIMIT UINT64_MAX
struct qos_spec {
	char *name;              /* owned; unique */
	int64_t trace_id;        /* as part_spec's */
	uint32_t priority;       /* Priority: its QOS factor over the
	                            largest */
	double usage_factor;     /* UsageFactor: multiplies the usage its jobs
	                            charge to fair-share */
	uint64_t max_jobs_per_user;  /* MaxJobsPerUser (running) */
	uint64_t max_jobs_per_group; /* the same per group (Slurm's
	                            GrpJobs of the account) */
	uint64_t max_units_per_user; /* MaxTRESPerUser in the cluster's
	                            allocation unit (CPUs, nodes or GPUs) */
	bool is_default;         /* jobs whose field names no other QOS go
	                            here */
	uint64_t preempt;        /* the QOS (bit i: the i-th) whose running
	                            jobs its jobs may preempt (Slurm's QOS
	                            Preempt, PreemptMode=REQUEUE) */
};
/* The most QOS a run may have (the preempt masks' bits). */
#define QOS_MAX 64

/* Which job field names its partition or QOS. */
enum slurm_from {
	SLURM_FROM_NONE = 0,  /* every job the default one */
	SLURM_FROM_PARTITION, /* SWF field 16, the partition number */
	SLURM_FROM_QUEUE,     /* SWF field 15, the queue number */
	SLURM_FROM_GROUP,     /* the group (by name where the trace names
	                         them) */
	SLURM_FROM_USER,      /* the user number */
	SLURM_FROM_N
};
extern const char *const slurm_from_names[SLURM_FROM_N];

struct cluster_spec {
	struct node_group *groups; /* owned */
	size_t ngroups;
	bool exclusive;            /* jobs take whole nodes */
	uint32_t rack_nodes;       /* nodes per rack (leaf switch), 0 = all
	                              in one rack */
	struct tenant_spec *tenants; /* departments, each followed by its
	                              projects; owned; NULL = no tenants */
	size_t ntenants;
	struct part_spec *parts;   /* partitions, owned; NULL = none */
	size_t nparts;
	struct qos_spec *qos;      /* the root's QOS list, owned; NULL = none */
	size_t nqos;
	int part_from, qos_from;   /* enum slurm_from (the workload's
	                              partition_from, qos_from) */
};

/* cluster_slurm.c: partitions and QOS, copied and freed with the spec. */
void cluster_slurm_release(struct cluster_spec *s);
void cluster_slurm_copy(struct cluster_spec *dst,
			const struct cluster_spec *src);
/*
 * Partitions against the node groups and each other: each names nodes
 * that exist (groups and GROUP[a-b] ranges; partitions may overlap), at
 * most 64 partitions, at most one default; QOS limits that agree (a group may run at least
 * what one user may).  "PREFIX$.cluster.partitions[i]...: ..." or
 * "PREFIX$.qos[i]...: ...".
 */
int cluster_slurm_check(const struct cluster_spec *s, const char *prefix,
			struct sim_error *err);
/*
 * The partition and QOS index of every job into part[] and qos[] (either
 * may be NULL: check only).  qp: the trace's queue and partition fields,
 * two per job (NULL: none read); lines: the trace line of each job
 * (NULL: not known), in the file trace.  names/n: the workload's group
 * names.  The spec is checked first (cluster_slurm_check).  A job whose
 * field names no partition (QOS) and no default exists is an error
 * "TRACE:LINE: job 'ID' has partition 'X', which names no partition of
 * PREFIX$.cluster.partitions ..." (without lines: "PREFIX$.workload.
 * partition_from: job 'ID' has ...").
 */
int cluster_slurm_bind(const struct cluster_spec *s, const struct job *jobs,
		       size_t njobs, const int32_t *qp, const uint64_t *lines,
		       const char *trace, char *const *names, size_t n,
		       const char *prefix, int32_t *part, int32_t *qos,
		       struct sim_error *err);
/* The allocation units (CPUs, idle nodes when exclusive, GPUs on a
 * cluster with GPUs) of partition p's nodes (each node once). */
uint64_t cluster_spec_part_units(const struct cluster_spec *s, size_t p);
struct placement;
struct cluster;
/*
 * cluster_part.c.  Partition p's nodes: its entries, node groups
 * ("batch") and ranges of a group's nodes ("batch[0-63]", "gpu[0-3,8]":
 * indexes within the group, from 0), as ascending disjoint node ranges
 * [first, end), two numbers each in *out (malloc'd), *n ranges.  0, or
 * an error "PREFIX$.cluster.partitions[p].nodes[k]: ...".
 */
int cluster_spec_part_nodes(const struct cluster_spec *s, size_t p,
			    const char *prefix, uint32_t **out, size_t *n,
			    struct sim_error *err);
/* Binds the partitions of s (checked, at most 64) to c: job idx i is
 * placed on the nodes of partition part[i] alone (-1: anywhere), first
 * fit (docs/tenants.md).  Each partition's free units are kept from
 * then on, whoever's jobs hold its nodes. */
void cluster_bind_parts(struct cluster *c, const struct cluster_spec *s,
			const int32_t *part, size_t njobs);
/* Partition p's free units now and in all (0 when none is bound). */
uint64_t cluster_part_free(const struct cluster *c, uint32_t p);
uint64_t cluster_part_total(const struct cluster *c, uint32_t p);
/* Do partitions p and q share a node (p == q: it has nodes)? */
bool cluster_parts_overlap(const struct cluster *c, uint32_t p, uint32_t q);
/* The units a placement holds on partition p's nodes. */
uint64_t cluster_placement_units_in(const struct cluster *c,
				    const struct placement *plc, uint32_t p);

/* cluster_tenant.c: the tenants of a spec, copied and freed with it. */
void cluster_tenants_release(struct cluster_spec *s);
/* Frees a tenant's per-type entries (a spec being parsed). */
void cluster_tenant_types_free(struct tenant_spec *t);
/* Tenant t's entry for the GPU type named name; NULL when it names none
 * (its quota of that type is 0, its limits none). */
const struct tenant_type *cluster_tenant_type(const struct tenant_spec *t,
					      const char *name);
void cluster_tenants_copy(struct cluster_spec *dst,
			  const struct cluster_spec *src);
/*
 * The quotas against the cluster and each other: a department's quota
 * (and a project's) at most the cluster's GPUs, its projects' quotas
 * together at most its own, a borrowing or lending limit of a project
 * at most its department's.  With quotas per GPU type, the same for
 * each type against the cluster's GPUs of that type, and every type
 * named must be a node group's gpu_type.
 * "PREFIX$.cluster.tenants[i]...: ..." .
 */
int cluster_tenants_check(const struct cluster_spec *s, const char *prefix,
			  struct sim_error *err);
/* A CSV trace's project column (the workload's proj, projects, ...). */
struct tenant_column {
	const int32_t *of;       /* by job: an index into names, -1: none */
	char *const *names;
	size_t n;
	const uint64_t *line;    /* by name: the line it first appears on */
	const char *file;        /* the trace, for messages */
};
/*
 * The project (tenant index) of every job by `from`, into out[njobs]
 * (out may be NULL: check only).  names/n: the workload's group names
 * (NULL: numbered groups); col: the project column, for `from` COLUMN
 * (NULL: the trace has none).  A job whose field names no project is an
 * error: "PREFIXjob 'ID' names project 'X' that no tenant has (...)"
 * ("FILE:LINE: project 'X' ..." for the column), as is an interactive
 * job larger than its project's quota (it could never run).
 */
int cluster_tenants_bind(const struct cluster_spec *s, enum tenant_from from,
			 const struct job *jobs, size_t njobs,
			 char *const *names, size_t n,
			 const struct tenant_column *col, const char *prefix,
			 int32_t *out, struct sim_error *err);

void cluster_spec_release(struct cluster_spec *s);
/* A deep copy of src into dst (names and GPU types duplicated); release
 * dst with cluster_spec_release. */
void cluster_spec_copy(struct cluster_spec *dst,
		       const struct cluster_spec *src);
/* Checks counts and sizes (at most 2^31 - 1 nodes and 2^32 - 1 CPUs in
 * all, the sizes the placement index counts in; at most 64 GPUs per node
 * and 2^32 - 1 in all; a gpu_type or vc only on groups with GPUs, and
 * never empty); "$.cluster..." messages.
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
 * number of CPUs (and GPUs) to the job.  A GPU job's placement has one
 * slot per node (count 1), in node order, and gpu_mask says which GPUs.
 */
struct place_slot {
	uint32_t node;  /* first node of the extent */
	uint32_t count; /* nodes in the extent */
	uint32_t cpus;  /* CPUs taken on each of these nodes */
	uint32_t gpus;  /* GPUs taken on each of these nodes */
	uint64_t gpu_mask; /* which GPUs (bit i = GPU i of the node) when
	                      count == 1 and gpus > 0; 0 otherwise */
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
 * works on it.  For a GPU job (gpus > 0) the demand is its GPUs, to set
 * against cluster_free_gpus() and cluster_total_gpus(): a profile of GPU
 * jobs counts GPUs.
 */
uint64_t cluster_demand(const struct cluster *c, const struct job *j);
uint64_t cluster_capacity(const struct cluster *c);
uint64_t cluster_free_units(const struct cluster *c);

/* Could the job run on the empty cluster? */
bool cluster_can_ever_fit(const struct cluster *c, const struct job *j);
/* Does the job fit now? */
bool cluster_fits(const struct cluster *c, const struct job *j);
/*
 * First fit (a GPU job: cluster_alloc_gpus with PLACE_FIRST_FIT): takes
 * the job's CPUs from the lowest-numbered nodes with free
 * CPUs (min(free, still needed) from each), or, when exclusive, the
 * lowest-numbered idle nodes.  Fills out (reusing its storage).  Returns 0,
 * or -SIM_ESTATE when the job does not fit (nothing changed).
 */
int cluster_alloc(struct cluster *c, const struct job *j,
		  struct placement *out);
/* Gives a placement's resources back. */
void cluster_release(struct cluster *c, const struct placement *p);
/*
 * cluster_gpu.c: can cluster_retake() take exactly this placement back
 * after cluster_release() (every slot one node's GPUs with their mask)?
 * Then cluster_retake() takes the same GPUs and CPUs again, leaving the
 * cluster as it was before the release (for what-if questions:
 * sim_job_fits_after).
 */
bool cluster_retakable(const struct placement *p);
void cluster_retake(struct cluster *c, const struct placement *p);

/* Invariant check: masks, totals and the summary agree with the nodes,
 * nothing over- or under-committed; the same for the GPU index (masks,
 * per-count node sets and their summaries, per-rack and per-type free
 * GPUs).  0 or -SIM_ESTATE with a message. */
int cluster_check(const struct cluster *c, struct sim_error *err);

/* ---- whole-GPU placement (docs/placement.md) ---------------------------
 *
 * A GPU job (j->gpus > 0) takes j->gpus whole GPUs, of GPU type
 * j->gpu_type - 1 when j->gpu_type > 0 (a type index below), of any GPU
 * otherwise.  When j->cpus > 0 it also takes CPUs on the nodes where it
 * gets GPUs, in proportion to its GPUs there: in node order, node i with
 * S_i GPUs of the job on it and the nodes before it gets
 * floor(cpus * S_i / gpus) - floor(cpus * S_(i-1) / gpus) CPUs, and a node
 * is only used for g GPUs when it has ceil(cpus * g / gpus) CPUs free.
 * The exclusive flag is about CPU jobs; GPU jobs never take nodes whole.
 * A GPU job's unit (cluster_demand) is the GPU: compare it with
 * cluster_free_gpus() and cluster_total_gpus(), not cluster_free_units().
 */

#define CLUSTER_MAX_NODES ((UINT64_C(1) << 31) - 1) /* nodes at most */
#define CLUSTER_MAX_NODE_GPUS 64 /* GPUs per node at most (one mask word) */

/* Placement strategies; the experiment parameter "placement" names them. */
enum place_strategy {
	PLACE_FIRST_FIT = 0, /* lowest-numbered nodes first */
	PLACE_BEST_FIT,      /* tightest single node, else fullest nodes */
	PLACE_CONSOLIDATE,   /* fewest nodes, then one rack if possible */
	PLACE_SPREAD,        /* as many nodes as possible, one GPU each */
	PLACE_RANDOM,        /* nodes drawn uniformly at random */
	PLACE_TOPOLOGY,      /* fewest racks, then fewest nodes */
	PLACE_SHAPE_BLIND,   /* consolidate, shaped jobs by their GPU count
	                        alone (cluster_set_shape_blind) */
	PLACE_NSTRATEGIES
};

/* "first_fit", "best_fit", ...; NULL for an out-of-range value. */
const char *place_strategy_name(enum place_strategy s);
/* The strategy called name: 0, or -SIM_EINPUT with a message listing the
 * names. */
int place_strategy_parse(const char *name, enum place_strategy *out,
			 struct sim_error *err);
/* splitmix64 (base/splitmix.h): advances *state and returns the next 64
 * random bits.  The caller keeps the state (one per simulation), so runs
 * are reproducible. */
uint64_t place_rng_next(uint64_t *state);

uint64_t cluster_total_gpus(const struct cluster *c);
uint64_t cluster_free_gpus(const struct cluster *c);
uint32_t cluster_node_gpus(const struct cluster *c, uint32_t node);
uint32_t cluster_node_free_gpus(const struct cluster *c, uint32_t node);
/* Bit i set: GPU i of the node is free. */
uint64_t cluster_node_free_gpu_mask(const struct cluster *c, uint32_t node);
/* Racks: consecutive ranges of rack_nodes nodes (one rack when 0). */
uint32_t cluster_racks(const struct cluster *c);
uint32_t cluster_rack_of(const struct cluster *c, uint32_t node);
uint64_t cluster_rack_free_gpus(const struct cluster *c, uint32_t rack);
/* GPU types: the distinct gpu_type names of the groups, in group order. */
uint32_t cluster_gpu_type_count(const struct cluster *c);
/* The index of type name, or -1 when no group has it. */
int cluster_gpu_type_index(const struct cluster *c, const char *name);
/* The GPU type index of a node's GPUs; -1 when it has none or they are
 * untyped. */
int cluster_node_gpu_type(const struct cluster *c, uint32_t node);
/* The name of type index idx (< cluster_gpu_type_count). */
const char *cluster_gpu_type_name(const struct cluster *c, uint32_t idx);
/* GPUs of type index idx (< cluster_gpu_type_count) in all, and free now. */
uint64_t cluster_gpu_type_total(const struct cluster *c, uint32_t idx);
uint64_t cluster_gpu_type_free(const struct cluster *c, uint32_t idx);
/*
 * Places a GPU job with a strategy (for a CPU job: cluster_alloc).  rng is
 * the caller's splitmix64 state, used (and advanced) by PLACE_RANDOM only;
 * it may be NULL for the others.  Fills out (one slot per node, node
 * order).  Returns 0, -SIM_ESTATE when the job does not fit now (nothing
 * changed), -SIM_EINPUT for a strategy out of range or PLACE_RANDOM
 * without rng.
 */
int cluster_alloc_gpus(struct cluster *c, const struct job *j,
		       enum place_strategy strategy, uint64_t *rng,
		       struct placement *out);

/*
 * Shaped jobs (cluster_shape.c, docs/placement.md "Shaped jobs"): a
 * large-model training job of tp x pp x dp GPUs, tp GPUs splitting each
 * layer, pp pipeline stages, dp replicas.  The shaped placement keeps
 * each tp group inside a node and each pipeline inside one node or one
 * rack when it can; rank_node (tp x pp x dp entries, the caller's) gets
 * the node of each rank, ranks in Megatron-LM's order: GPU t of stage s
 * of replica d is rank t + tp (d + dp s).
 */
struct place_shape {
	uint32_t tp; /* tensor-parallel degree: GPUs of one stage */
	uint32_t pp; /* pipeline stages */
	uint32_t dp; /* data-parallel replicas (pipelines) */
};

/* Could the job get pp x dp groups of tp free GPUs of one node each, on
 * the cluster as it is now (now) or empty?  False also when tp x pp x dp
 * is not the job's GPUs or a degree is 0.  O(nodes of its ranges). */
bool cluster_fits_shape(const struct cluster *c, const struct job *j,
			const struct place_shape *s, bool now);
/* Places the job by its shape and fills rank_node (unless NULL).  Returns 0,
 * -SIM_ESTATE when it does not fit now (nothing changed), -SIM_EINPUT
 * for a shape that is not the job's GPUs. */
int cluster_alloc_shape(struct cluster *c, const struct job *j,
			const struct place_shape *s, struct placement *out,
			uint32_t *rank_node);
/* The ranks of a shaped placement (one that cluster_alloc_shape made):
 * the same as the call filled in. */
void cluster_shape_ranks(const struct cluster *c, const struct placement *p,
			 const struct place_shape *s, uint32_t *rank_node);
/* Whether the job has a shape (tp or pp above 1); then *s is it. */
bool job_shape(const struct job *j, struct place_shape *s);
/* Shape-blind (true): shaped jobs fit and are placed by their GPU count
 * alone, as any job; else (the default) every fit test, and every
 * strategy but PLACE_SHAPE_BLIND, goes by the shape.  The engine sets it
 * for the "shape_blind" placement; cluster_reset keeps it. */
void cluster_set_shape_blind(struct cluster *c, bool blind);
/* Whether it is set. */
bool cluster_shape_blind(const struct cluster *c);
/* Checks the shaped jobs against the cluster: a job whose tp exceeds the
 * GPUs of every node of its type could never be placed.  0, or
 * -SIM_EINPUT with "PREFIX$.workload: job ID asks tp ..." */
int cluster_spec_check_shapes(const struct cluster_spec *s,
			      const char *prefix, const struct job *jobs,
			      size_t njobs, struct sim_error *err);
/* The GPU type index (+ 1) of group g as a job's gpu_type names it: the
 * distinct gpu_type names in group order; 0 for an untyped group. */
uint32_t cluster_spec_group_type(const struct cluster_spec *s, size_t g);
/* The ranks of a placement made without the shape: in node order, each
 * GPU of a slot one rank (what a launcher that knows no shape does). */
void place_shape_ranks(const struct placement *p, uint32_t *rank_node);

/*
 * GPU sharing (cluster_share.c): a job that joins the GPUs of another
 * job's placement `gpus` (with its GPU count) takes only CPUs, its own,
 * on those nodes, split over them as above: node i with S_i of the GPUs
 * on it and the nodes before it gets floor(cpus * S_i / gpus) -
 * floor(cpus * S_(i-1) / gpus).  cluster_fits_beside says whether every
 * node has them free; cluster_alloc_beside takes them and writes the
 * job's placement (the same GPU slots, its own CPUs), 0 or -SIM_ESTATE
 * (nothing changed).  cluster_release_cpus gives back the CPUs of a
 * placement and not its GPUs, which the other job of the pair keeps.
 */
bool cluster_fits_beside(const struct cluster *c, const struct job *j,
			 const struct placement *gpus);
int cluster_alloc_beside(struct cluster *c, const struct job *j,
			 const struct placement *gpus, struct placement *out);
void cluster_release_cpus(struct cluster *c, const struct placement *p);

/* ---- virtual clusters (docs/philly.md) ---------------------------------
 *
 * A node group with a "vc" belongs to that virtual cluster (VC): a
 * partition of the GPU nodes.  A GPU job whose group (job->group, named
 * by the workload's group names) is a VC of the cluster may use its VC's
 * nodes and the shared pool (the GPU groups without a vc); any other GPU
 * job only the shared pool.  A cluster without VCs is all shared pool.
 * This is a placement constraint of the GPU index, beside the GPU type:
 * both restrict the node ranges a job's placement searches.
 */

/* Tells the cluster the workload's group names (job->group indexes
 * them; names may be NULL, then no job belongs to a VC).  Until called,
 * no job belongs to a VC. */
void cluster_bind_groups(struct cluster *c, char *const *names, size_t n);
/* VCs: the distinct vc names of the groups, in group order. */
uint32_t cluster_vc_count(const struct cluster *c);
const char *cluster_vc_name(const struct cluster *c, uint32_t idx);
/* The index of VC name, or -1 when no group names it. */
int cluster_vc_index(const struct cluster *c, const char *name);
/* The VC of a node's GPUs; -1 for the shared pool or a node without
 * GPUs. */
int cluster_node_vc(const struct cluster *c, uint32_t node);
/* The VC a job belongs to (cluster_bind_groups), -1 when none. */
int cluster_job_vc(const struct cluster *c, const struct job *j);
/* GPUs of VC idx, or of the shared pool when idx is -1: in all, free. */
uint64_t cluster_vc_gpus(const struct cluster *c, int idx);
uint64_t cluster_vc_free_gpus(const struct cluster *c, int idx);
/*
 * Can a workload run at all on the cluster spec s: when some group has a
 * vc and no GPU group is shared, every GPU job's group must be one of
 * the VCs.  names/n are the workload's group names (NULL: numbered
 * groups, which match no VC).  0, or -SIM_EINPUT with "PREFIX$.cluster.
 * nodes: ..." naming the first job group (by group number) that has no
 * node group.
 */
int cluster_spec_check_vcs(const struct cluster_spec *s, const char *prefix,
			   const struct job *jobs, size_t njobs,
			   char *const *names, size_t n,
			   struct sim_error *err);

/* The unit backfilling plans in: GPUs on a cluster with GPUs
 * (a job without GPUs demands none), else CPUs, or nodes when exclusive. */
uint64_t units_demand(const struct cluster *c, const struct job *j);
uint64_t units_capacity(const struct cluster *c);
uint64_t units_free(const struct cluster *c);

#endif
