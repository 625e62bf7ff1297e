/*
 * The InfiniBand fabric: a two-level fat tree and the all-reduce cost of
 * data-parallel jobs on it (docs/network.md has the model, the formulas,
 * the default figures and their sources).
 *
 * Nodes are grouped in racks of rack_nodes consecutive nodes under one
 * leaf switch; every leaf has an aggregate uplink to a non-blocking spine.
 * A job occupying several nodes runs a ring all-reduce ordered by node
 * index; each node sends one stream to the next.  The model has one link
 * resource per node NIC and one per leaf uplink, each with the capacity
 * of one direction: a ring sends and receives the same amount on every
 * link it touches, so both directions carry the same streams and get the
 * same shares.  A multi-node job puts exactly one stream on the NIC of
 * each of its nodes and, when it spans several racks, one stream on the
 * uplink of each rack it touches (the racks of a ring ordered by node
 * index are contiguous: one stream leaves each rack and one enters it).
 * Link capacities are shared max-min fairly among the jobs' streams
 * (progressive filling); a job's bandwidth is its fair share, capped by
 * NVLink when GPUs of one node take part.
 *
 * Rates are recomputed lazily and only for the connected components
 * (jobs linked by shared links) that an added or removed job touches.
 * Units are in the names: _gbps gigabits/s, _gBps gigabytes/s (10^9),
 * _Bps bytes/s, _usec microseconds.
 */
#ifndef CLUSTERSIM_NET_H
#define CLUSTERSIM_NET_H

#include "clustersim/clustersim.h"

struct net_spec {
	uint32_t rack_nodes;     /* nodes per rack (under one leaf) */
	double nic_gbps;         /* node NIC rate, Gb/s per direction */
	uint32_t uplinks;        /* uplinks per leaf; 0 = use the ratio */
	double uplink_gbps;      /* rate of one uplink, Gb/s per direction;
	                            0 = use the ratio */
	double oversubscription; /* leaf down / up capacity, e.g. 2 for 2:1;
	                            0 = use uplinks x uplink_gbps */
	double latency_usec;     /* latency of one link traversal */
	double nvlink_gBps;      /* intra-node GPU bandwidth, GB/s per
	                            direction per GPU */
};

/* The documented defaults: HDR InfiniBand, a non-blocking leaf of 20
 * nodes and 20 uplinks, A100 NVLink 3 (docs/network.md). */
void net_spec_default(struct net_spec *s);
/* Checks the spec; "PREFIX$.cluster.network.FIELD: ..." messages.  Either
 * uplinks and uplink_gbps, or oversubscription, must be given. */
int net_spec_check(const struct net_spec *s, const char *prefix,
		   struct sim_error *err);
/* A leaf's aggregate uplink capacity in Gb/s per direction: uplinks x
 * uplink_gbps, or rack_nodes x nic_gbps / oversubscription. */
double net_spec_leaf_up_gbps(const struct net_spec *s);

struct net;

/* A fabric of nnodes nodes; the spec must pass net_spec_check (a broken
 * spec is a programming error and aborts). */
struct net *net_new(const struct net_spec *s, uint32_t nnodes);
void net_free(struct net *net);

uint32_t net_nodes(const struct net *net);
/* The spec the fabric was made with (rack_nodes filled in). */
const struct net_spec *net_get_spec(const struct net *net);
uint32_t net_racks(const struct net *net);
size_t net_jobs(const struct net *net);

/*
 * Adds a running job on k distinct nodes (any order), gpus_per_node[i]
 * GPUs on nodes[i] (each at least 1; NULL = one each).  -SIM_ESTATE when
 * the id is already there, a node is out of range or repeated, or k or a
 * GPU count is 0; nothing changes then.
 */
int net_job_add(struct net *net, int64_t job_id, const uint32_t *nodes,
		const uint32_t *gpus_per_node, uint32_t k,
		struct sim_error *err);
/* Removes a job; -SIM_ESTATE when it is not there. */
int net_job_remove(struct net *net, int64_t job_id, struct sim_error *err);

/*
 * Brings the rates up to date and returns the jobs whose bandwidth
 * changed since the previous call, sorted by job id, in *changed (owned
 * by net, valid until the next call).  Jobs added since then are always
 * listed; removed jobs never are.  Returns the count.
 */
size_t net_rates(struct net *net, const int64_t **changed);

/*
 * A job's bottleneck bandwidth in bytes/s: INFINITY for a single-GPU job
 * (no communication), nvlink for a multi-GPU job on one node, else its
 * max-min fair share of the links it crosses (at most nvlink when one of
 * its nodes has several of its GPUs).  Brings rates up to date first
 * (the changes still count for the next net_rates()).  -1 for an unknown
 * job.
 */
double net_job_bandwidth(struct net *net, int64_t job_id);
/* Latency alpha of one ring step, microseconds: 0 on one node, 2 links
 * (NIC - leaf - NIC) in one rack, 4 across racks.  -1 if unknown. */
double net_job_latency_usec(const struct net *net, int64_t job_id);
/* GPUs the job holds in all (p); 0 when unknown. */
uint32_t net_job_gpus(const struct net *net, int64_t job_id);

/*
 * Ring all-reduce of bytes on p GPUs: 2(p-1) alpha + 2(p-1)/p bytes / B,
 * in seconds.  0 when p <= 1; an infinite bandwidth costs only latency.
 */
double net_allreduce_seconds(uint32_t p, double bytes, double bandwidth_Bps,
			     double latency_usec);
/* The same for a job of the fabric, with its p, B and alpha; -1 if the
 * job is unknown. */
double net_job_allreduce_seconds(struct net *net, int64_t job_id,
				 double bytes);

/* The same with the bandwidth the job would have with no other job on
 * the fabric: the smallest capacity of the links it crosses (NVLink caps
 * it as in net_job_bandwidth()); -1 if the job is unknown. */
double net_job_allreduce_alone(const struct net *net, int64_t job_id,
			       double bytes);

/* The bandwidth net_job_bandwidth() would give the job with no other job
 * on the fabric: the smallest capacity of the links it crosses, NVLink
 * capping it as there; -1 if the job is unknown. */
double net_job_bandwidth_alone(const struct net *net, int64_t job_id);

/*
 * Recomputes every job's rate from scratch (all components), for checks:
 * the result is bit-identical to the incremental one.  The changes count
 * for the next net_rates().
 */
void net_recompute_all(struct net *net);

/* Invariant check: link and job incidence lists agree, no link carries
 * more than its capacity.  0 or -SIM_ESTATE with a message. */
int net_check(const struct net *net, struct sim_error *err);

#endif
