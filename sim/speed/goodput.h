/*
 * The goodput model of Pollux-style jobs (Qiao et al., "Pollux:
 * Co-adaptive Cluster Scheduling for Goodput-Optimized Deep Learning",
 * OSDI'21, section 3), over the measurements of its artifact's six
 * applications (bert, cifar10, deepspeech2, imagenet, ncf, yolov3; the
 * tables are generated into goodput_APP.c by scripts/gen-pollux-apps.py).
 *
 * A job of such an application trains with a total batch size M over a
 * placement (GPUs on each node).  Its goodput = throughput x statistical
 * efficiency:
 *   throughput: one step takes step + (step - sync) x accum seconds, with
 *     step and sync the measured times of its placement at its per-GPU
 *     (atomic) batch size, interpolated in the batch size, and accum the
 *     gradient-accumulation steps that a batch too big for one GPU needs;
 *   efficiency: a step at batch M makes gain = (var + sqr) /
 *     (var / s + sqr) steps of progress at the initial batch size M0,
 *     s = M / M0, with sqr and var the gradient's squared norm and
 *     variance measured in that epoch (interpolated in M).  gain / s is
 *     the paper's E = (phi + M0) / (phi + M), phi = M0 var / sqr the
 *     gradient noise scale.
 * A job is done when its progress reaches the application's last
 * epoch's (the artifact's completion rule: its simulator's
 * get_completion_epoch with no target metric).  docs/pollux.md has the
 * rules, the data and what is approximated.
 *
 * Everything here is const data and pure functions.
 */
#ifndef CLUSTERSIM_GOODPUT_H
#define CLUSTERSIM_GOODPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clustersim/clustersim.h"

/* GPUs per node of the reference placement that a job's work is counted
 * on: its GPUs packed into nodes of this many (the artifact's 4-T4
 * nodes). */
#define GOODPUT_NODE_GPUS 4

/* Applications: 1 .. goodput_app_count(); 0 = none. */
unsigned goodput_app_count(void);
const char *goodput_app_name(unsigned app);
/* By name ("cifar10"); the index or -1. */
int goodput_app_find(const char *name);

/* How a job of batch size `batch` runs on `replicas` GPUs. */
struct goodput_batch {
	uint32_t atomic;   /* examples per GPU per step */
	uint32_t accum;    /* gradient-accumulation steps before a sync */
	uint32_t total;    /* the batch it really trains with:
	                      replicas x atomic x (accum + 1) */
};

/*
 * The artifact's rule for a fixed batch size (its simulator's
 * update_local_bsz): local = ceil(batch / replicas), accum = ceil(local /
 * max local) - 1 (at least 1 on one GPU above the initial batch size),
 * atomic = ceil(local / (accum + 1)), at most max batch / (replicas x
 * (accum + 1)).  Returns 0, or -SIM_EINPUT with a message (no "FILE:"
 * prefix) when the batch is outside what the application measured.
 */
int goodput_batch(unsigned app, uint32_t batch, uint32_t replicas,
		  struct goodput_batch *out, struct sim_error *err);

/*
 * Seconds of one step (accumulation included) of the job on a placement
 * of gpus[0..n) GPUs per node, at batch b.  The measured placement when
 * the application has it (up to 4 nodes), interpolated linearly in the
 * atomic batch size; else from the measurements by nodes and replicas
 * (docs/pollux.md says how).
 */
double goodput_step_seconds(unsigned app, const uint32_t *gpus, size_t n,
			    const struct goodput_batch *b);

/* Steps of progress per step at total batch `total` in epoch e. */
double goodput_gain(unsigned app, double total, unsigned epoch);

/* Steps a job of total batch `total` needs to reach its target. */
double goodput_target_steps(unsigned app, double total);

/*
 * The work of a job (seconds on its reference placement: its replicas
 * packed into nodes of GOODPUT_NODE_GPUS) and the rate of a placement
 * relative to it: what the engine runs a job of an application by.
 */
double goodput_work_seconds(unsigned app, const struct goodput_batch *b,
			    uint32_t replicas);
double goodput_rate(unsigned app, const struct goodput_batch *b,
		    uint32_t replicas, const uint32_t *gpus, size_t n);

/*
 * An adaptive job, whose GPUs and batch a policy changed: its work stays
 * counted on its reference configuration ref (ref_gpus packed, the
 * trace's), and a configuration cur on placement gpus[0..n) runs at
 * work(ref) / (steps(cur) x step time(cur, placement)), the ratio of the
 * two whole runs' times to target (so the efficiency's change over the
 * epochs is averaged over the run).  The same as goodput_rate when cur
 * is ref.
 */
double goodput_rate_adapted(unsigned app, const struct goodput_batch *ref,
			    uint32_t ref_gpus, const struct goodput_batch *cur,
			    const uint32_t *gpus, size_t n);

/* The most GPUs a job of batch `batch` may use: while each GPU keeps
 * the smallest measured batch, and the application's own cap (the
 * artifact's: ncf 1). */
uint32_t goodput_max_gpus(unsigned app, uint32_t batch);

#endif
