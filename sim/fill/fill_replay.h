/*
 * The replay mode of the openb experiments: GPU-sharing pods (frag.h)
 * arrive at their creation time and leave after their run time, placed
 * by the same score plugins as the fill experiment (fill.h), with a FIFO
 * queue for the pods that find no node.  Where the fill experiment asks
 * "how full can a placement policy make the cluster", the replay asks
 * "how does it do against the trace's own arrivals and departures":
 * allocation and fragmentation over time, and how long pods wait.
 *
 * The model (fill_replay.c has the event loop):
 *  - Pod i arrives at created_i / load_scale (seconds in the list,
 *    microseconds here, rounded to the nearest; load_scale = 1 replays
 *    the trace's own times, a larger one compresses the arrivals to load
 *    the cluster more, run times unchanged).  Its run time is deleted_i - created_i; it starts when placed, so a
 *    pod that waited leaves later than its trace deletion time.  A pod
 *    with no deletion time never leaves.  Every pod needs a creation
 *    time: the multigpu50 list has none and cannot be replayed.
 *  - On arrival the score plugin places the pod at once when some node
 *    passes the filters (frag_choose); else it joins the tail of the
 *    pending queue.  Arrivals do not wait behind the queue.
 *  - Events at one time: departures first (the engine's EV_END phase
 *    before EV_SUBMIT), in the order the pods were placed; after the
 *    departures of one time are all applied, the pending queue is retried
 *    once, head to tail, each pod placed if it now fits and skipped (kept
 *    in place) if not; then arrivals, in (creation time, list position)
 *    order.  A pod placed with a run of 0 leaves at once: its departure
 *    is applied (and the queue retried) before the next arrival.
 *  - The run ends when no event is left; pods still pending then are
 *    "never placed".
 *
 * What is measured:
 *  - the window [first arrival, last arrival]: time averages of the GPU
 *    share allocated and of the cluster's fragmentation (frag.h, against
 *    the list's own pod shapes) are exact integrals of the step functions
 *    over it; "at the end" is the state after every event at the last
 *    arrival's time.  The drain after it (the trace's deletions and late
 *    starts) is replayed but not averaged: an emptying cluster says
 *    nothing of the policy.
 *  - a timeline sample every `step` from the first arrival to the last
 *    arrival, and on while pods still wait after it, each the state
 *    after every event at or before its time (a fixed step, not one
 *    sample per event, so that runs of different policies and seeds line
 *    up row by row for the plots);
 *  - per pod: where it went (node, GPUs), when it started and left.
 */
#ifndef CLUSTERSIM_FILL_REPLAY_H
#define CLUSTERSIM_FILL_REPLAY_H

#include <stdint.h>

#include "fill/frag.h"
#include "base/util.h"

/* Most timeline samples of one run (a larger step is asked for). */
#define REPLAY_MAX_SAMPLES 1000000u

/* What happened to one pod. */
struct replay_pod {
	sim_time_t arrival; /* arrived at (created / load_scale) */
	sim_time_t start;  /* placed at, SIM_TIME_NONE when never placed */
	sim_time_t end;    /* left at, SIM_TIME_NONE when it never left */
	int32_t node;      /* node index, -1 when never placed */
	uint32_t gpus;     /* GPUs it held: bit g = GPU g of the node */
};

/* One timeline sample: the state after every event at or before t. */
struct replay_sample {
	sim_time_t t;        /* sample time */
	uint64_t allocated;  /* GPU share allocated, thousandths */
	double frag;         /* cluster fragmentation, thousandths */
	uint32_t running;    /* pods placed and not yet left */
	uint32_t pending;    /* pods in the pending queue */
	uint32_t arrived;    /* pods arrived so far */
};

/* The result of one replay. */
struct replay_result {
	struct replay_pod *pods;      /* one per pod of the list, in order */
	size_t npods;
	struct replay_sample *samples; /* the timeline */
	size_t nsamples;
	sim_time_t t_first;   /* first arrival */
	sim_time_t t_last;    /* last arrival: the window's end */
	sim_time_t t_end;     /* last event */
	double alloc_avg;     /* time-averaged GPU share allocated over the
	                         window, thousandths (the state at t_first
	                         when the window is empty) */
	double frag_avg;      /* time-averaged fragmentation, the same */
	uint64_t alloc_end;   /* GPU share allocated at t_last */
	double frag_end;      /* fragmentation at t_last */
	uint32_t pending_end; /* pods pending at t_last */
	uint64_t placed;      /* pods placed */
	uint64_t waited;      /* of them, placed later than they arrived */
	uint64_t never;       /* pods never placed */
	double wait_mean;     /* wait of the placed pods, s (0: none) */
	double wait_p99;      /* its 99th percentile (linear interpolation
	                         between order statistics, as stats.c) */
	double wait_max;      /* its maximum */
	uint64_t events;      /* events applied (arrivals + departures) */
};

/*
 * Refuses a pod list that cannot be replayed: a pod with no creation
 * time.  path names the list in the message ("PATH: ...").  0 or
 * -SIM_EINPUT.
 */
int replay_check_pods(const char *path, const struct score_pod *pods,
		      size_t n, struct sim_error *err);

/*
 * One replay of pods[0..n) on c (ready, with the target workload; it is
 * reset first and left as the run ends), placed by score, the random
 * plugin drawing from seed; arrivals at creation time / load_scale (> 0);
 * a timeline sample every step (> 0).  Returns
 * 0, or -SIM_EINPUT with err ("pod N: ..." or about the step) for pods
 * with no creation time, times past the clock's range, or a step that
 * makes more than REPLAY_MAX_SAMPLES samples.
 */
int replay_run(struct frag_cluster *c, const struct score_pod *pods,
	       size_t n, const struct score_ops *score, double load_scale,
	       sim_time_t step, uint64_t seed, struct replay_result *res,
	       struct sim_error *err);
void replay_result_release(struct replay_result *res);

#endif
