/*
 * The speed of running GPU jobs (docs/design.md): work is run time on
 * the reference GPU type, and a job progresses at
 *
 *   rate = (t_ref + a_ref) / (t_gpu + a)
 *
 * seconds of work per second, where for one iteration of its data-parallel
 * training
 *   t_gpu  = 1 / throughput on one GPU of the slowest type it holds,
 *   t_ref  = 1 / throughput on one GPU of the reference type,
 *   a      = ring all-reduce of its gradient bytes over its p GPUs at the
 *            bandwidth and latency its placement gets from the fabric
 *            (NVLink inside one node, else its max-min fair share of NICs
 *            and leaf uplinks: net.c),
 *   a_ref  = the same all-reduce at NVLink bandwidth with no latency: a
 *            trace's run time is taken as measured on reference GPUs with
 *            an ideal, consolidated placement.
 * The throughputs and gradient bytes are the class tables' (jobclass.h),
 * or the experiment's overrides of them (jobclass_override.h).
 * A single-GPU job does not communicate: its rate is the throughput ratio
 * of its GPU type to the reference.  A job of no known class (a trace
 * that names no model) runs at rate 1 everywhere.  Rates change only when
 * a job starts or ends; then only the jobs whose bandwidth changed get a
 * new rate (and the engine moves their end events).
 */
#ifndef CLUSTERSIM_SPEED_H
#define CLUSTERSIM_SPEED_H

#include "cluster/cluster.h"
#include "speed/jobclass_override.h"
#include "speed/net.h"
#include "speed/llm.h"

struct speed;

/* What an experiment says about speeds. */
struct speed_config {
	struct net_spec net; /* the fabric (its rack_nodes: the cluster's) */
	int ref_gpu;         /* reference GPU type, a jobclass GPU index */
	bool draw_classes;   /* give GPU jobs of no class one drawn with
	                        the run's seed (speed_draw_class) */
	const struct jobclass_overrides *thr; /* the experiment's overrides
	                        of the class tables; NULL = the defaults */
};

/*
 * The class of a GPU job whose trace names none: one of Gavel's measured
 * configurations (classes 1 .. JOBCLASS_NGAVEL), uniformly, from a hash
 * of the run's seed and the job's index - as Gavel's own workload
 * generator draws job types uniformly from its table.  The same seed
 * gives every job the same class whatever the policy.
 */
unsigned speed_draw_class(uint64_t seed, uint32_t idx);
/*
 * Whether job j runs at a class's speed from the throughput tables: a GPU
 * job that is neither a goodput (Pollux-style) job nor a large-model job,
 * whose speeds come from their own models.  Only such a job of no class
 * is given a drawn one (docs/gpu-models.md).
 */
bool speed_job_has_class(const struct job *j);

/*
 * A speed model for a cluster built from spec: net is its fabric (its
 * rack_nodes is taken from the cluster), ref the reference GPU type (a
 * jobclass GPU index), thr the overrides of the class tables (NULL = none;
 * must outlive the speed model).  Every typed GPU group's type must be known to the
 * job-class table (checked with speed_check first).
 */
struct speed *speed_new(const struct cluster_spec *spec,
			const struct net_spec *net, int ref,
			const struct jobclass_overrides *thr);
void speed_free(struct speed *sp);

/*
 * Checks that every GPU type of the cluster is a built-in one or one of
 * thr's own (thr may be NULL); "PREFIX$.cluster.nodes[i].gpu_type: ..."
 * messages.  Under "derive_throughputs": "none", also that every class a
 * GPU job of jobs[0 .. n-1] names (and, with draw, every class it may
 * draw: all of Gavel's when jobs is NULL, a generated workload) has a
 * figure on every typed GPU group ("PREFIX$.derive_throughputs: ...").
 */
int speed_check(const struct cluster_spec *spec,
		const struct jobclass_overrides *thr, const struct job *jobs,
		size_t n, bool draw, const char *prefix,
		struct sim_error *err);

/* A GPU job starts on placement p (its fabric flow is added) or ends. */
void speed_job_started(struct speed *sp, const struct job *j,
		       const struct placement *p);
void speed_job_ended(struct speed *sp, const struct job *j);

/*
 * The jobs (indexes) whose rate may have changed since the last call, in
 * *changed (owned by sp, valid until the next call); returns the count.
 * Started jobs are always listed.
 */
size_t speed_changed(struct speed *sp, const int64_t **changed);

/* The rate of a running job on placement p (work per unit of time). */
double speed_rate(struct speed *sp, const struct job *j,
		  const struct placement *p);
/*
 * The rate it would have on placement p with no other job on the fabric:
 * its all-reduce at the bandwidth of its links alone (the slowest NIC or
 * leaf uplink it crosses, NVLink within a node), with the latency of p.
 * The job must be on the fabric (speed_job_started).
 */
double speed_rate_alone(struct speed *sp, const struct job *j,
			const struct placement *p);
/*
 * The rate the same job would have on an ideal placement of the same GPU
 * types: its all-reduce at NVLink bandwidth with no latency (a_ref for
 * a), i.e. (t_ref + a_ref) / (t_gpu + a_ref).  Its ratio to speed_rate()
 * is the job's placement slowdown now: (t_gpu + a) / (t_gpu + a_ref),
 * exactly 1 for a job that does not communicate or that sits in one node.
 */
double speed_rate_ideal(struct speed *sp, const struct job *j,
			const struct placement *p);

/* speed_rate() and, in *ideal, speed_rate_ideal(), the same bits, from
 * one pass over the placement (the engine asks for both at every rate
 * change). */
double speed_rate_pair(struct speed *sp, const struct job *j,
		       const struct placement *p, double *ideal);

/*
 * Large-model jobs (speed_llm.c, docs/parallelism.md "Large-model jobs in
 * a run"): a job whose llm field is set runs at
 *
 *   rate = step_ref / step_now
 *
 * where step_now is its step time (llm_step_time) on its placement: its
 * tp, pp and dp groups' spans from rank_node, each cross-node member's
 * bandwidth its job's max-min share of the fabric over the GPUs it has
 * on one node, the latency of 2 links in a rack and 4 across racks; and
 * step_ref the step on an ideal placement of reference GPUs (Megatron's
 * rank order on whole nodes of its node size, in one rack, every NIC its
 * own).  Its work is run time at step_ref's pace.  The compute efficiency
 * is the Megatron-LM calibration (llm_megatron_calibrate) on every type.
 * speed_set_llm gives the workload's table (it must outlive sp);
 * speed_llm_started, called after speed_job_started, where the job's
 * ranks sit (tp x pp x dp entries, Megatron's order).
 */
void speed_set_llm(struct speed *sp, const struct llm_job *tab, size_t n);
/*
 * Memory fit (docs/parallelism.md): a large-model job of jobs[0 .. n-1]
 * whose memory per GPU (llm_memory) exceeds a GPU type's memory cannot
 * run there.  A job that fits none of the types it may use is an error;
 * one that fits exactly one type of several is kept to that type (its
 * gpu_type set, counted in *pinned); one that fits several types but
 * not all, or an untyped group, is an error that asks the trace to name
 * its type.  "PREFIX$.workload: ..." messages; ref is the table type of
 * untyped groups.  On success with *pinned > 0, err holds the reason for
 * the first job kept to a type ("job N (model 'M', dp x tp x pp) needs
 * X GB per GPU: kept to the GPU types it fits, of T1 80 GB, T2 32 GB"),
 * for the run's output.
 */
int speed_llm_fit(const struct cluster_spec *c,
		  const struct jobclass_overrides *thr, int ref,
		  struct job *jobs, size_t n, const struct llm_job *tab,
		  size_t ntab, const char *prefix, uint64_t *pinned,
		  struct sim_error *err);
void speed_llm_started(struct speed *sp, const struct job *j,
		       const struct placement *p, const uint32_t *rank_node);
/*
 * The speed large-model job j would run at on table GPU type gpu,
 * relative to the reference type: step_ref / step on gpu, both on an
 * ideal placement of the nodes of that type (the GPUs per node of the
 * cluster's first group of it; Megatron's rank order on whole nodes,
 * every NIC its own, in one rack when it fits there) - what the job runs
 * at there when its placement is ideal (speed_rate_ideal).  When tp does
 * not divide the node size, the node is taken as its largest multiple of
 * tp (the shape-aware placement's tp slots).  0 when its memory per GPU
 * (llm_memory) exceeds the type's: it cannot run there.  What
 * sim_job_type_rate() gives policies for such a job.
 */
double speed_llm_type_rate(const struct speed *sp, const struct job *j,
			   int gpu);

/*
 * The speed of a one-GPU job of class cls on table GPU type gpu relative
 * to the reference type ref (jobclass GPU indexes), with the overrides
 * thr applied (NULL = none): the ratio of the two 1-GPU throughputs, as
 * speed_rate() runs such a job.  1 for JOB_CLASS_NONE, gpu or ref < 0,
 * and where either figure is not positive (speed_rate() then runs the job
 * at the reference speed too).  What sim_job_type_rate() gives policies
 * and the offline optimizer scales run times by.
 */
double speed_class_rate(unsigned cls, int gpu, int ref,
			const struct jobclass_overrides *thr);

#endif
