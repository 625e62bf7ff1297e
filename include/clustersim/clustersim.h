/*
 * clustersim public types: the simulated clock, jobs and errors.
 *
 * Everything a policy author sees is in this header and in policy.h.  The
 * engine hands policies const views of these records; only engine calls
 * change them, and every such call is validated.
 */
#ifndef CLUSTERSIM_CLUSTERSIM_H
#define CLUSTERSIM_CLUSTERSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Simulated time: integer microseconds since the workload's start. */
typedef int64_t sim_time_t;

#define SIM_USEC ((sim_time_t)1)
#define SIM_SEC ((sim_time_t)1000000)
/* "no such time": a job that has not started has start == SIM_TIME_NONE. */
#define SIM_TIME_NONE INT64_MIN
#define SIM_TIME_MAX INT64_MAX

/* Job life cycle.  FUTURE jobs have not been submitted yet; FINISHED,
 * KILLED and REJECTED are ends. */
enum job_state {
	JOB_FUTURE = 0,
	JOB_PENDING,
	JOB_RUNNING,
	JOB_FINISHED,
	JOB_KILLED,   /* ended by its walltime (overrun = kill) */
	JOB_REJECTED, /* can never fit on the cluster: counted, never run */
	JOB_NSTATES
};

/* Job flags. */
enum {
	JOB_HAS_ESTIMATE = 1 << 0, /* the trace gave a user estimate */
	JOB_KILL_AT_ESTIMATE = 1 << 1, /* actual run was cut to the estimate */
	JOB_BS_GNS = 1 << 2,       /* the trace's job adapts its batch size
	                              by the gradient noise scale (Shockwave's
	                              mode "gns"); it runs at its static one */
	JOB_BS_ACCORDION = 1 << 3, /* ... by Accordion's critical regimes
	                              (mode "accordion"); likewise */
	JOB_INTERACTIVE = 1 << 4,  /* an interactive job (Run:AI's kind):
	                              runs only within its project's quota
	                              and is never reclaimed; else "train"
	                              (docs/tenants.md) */
};

/*
 * One job: what the workload asked for, then what the engine did with it.
 * Requests are totals over the whole job.  New fields are only appended.
 */
struct job {
	int64_t id;          /* the trace's job id (unique in a workload) */
	uint32_t idx;        /* dense index, in (submit, id) order */
	uint32_t cpus;       /* CPUs (SWF processors) requested in total */
	uint32_t gpus;       /* whole GPUs requested in total; 0 for CPU jobs */
	uint32_t nodes;      /* nodes requested; 0 = the placement decides */
	int32_t user;        /* user id, -1 when unknown */
	int32_t group;       /* group or virtual cluster, -1 when unknown */
	sim_time_t submit;   /* submit time */
	sim_time_t run;      /* work: run time at reference speed */
	sim_time_t estimate; /* user estimate (walltime) that backfilling
	                        uses; equal to run where the trace has none */
	uint32_t flags;      /* JOB_HAS_ESTIMATE, JOB_KILL_AT_ESTIMATE */
	/* Engine state. */
	uint8_t state;       /* enum job_state */
	uint16_t gpu_type_used; /* the cluster GPU type of its placement's
	                           first node (index + 1), 0 = none (here,
	                           not below, to fill the padding) */
	sim_time_t start;    /* start time, SIM_TIME_NONE until it starts */
	sim_time_t end;      /* end time, SIM_TIME_NONE until it ends */
	/* GPU jobs (appended; 0 for HPC jobs). */
	uint16_t job_class;  /* model / application: an index into the job
	                        class table, JOB_CLASS_NONE when unknown */
	uint16_t gpu_type;   /* required GPU type: its index + 1, 0 = any */
	uint32_t gpu_milli;  /* a share of one GPU, in thousandths, for a job
	                        with gpus == 0; 0 otherwise */
	uint32_t nodes_used; /* nodes of its placement, once started */
	uint32_t preemptions;/* times it was preempted */
	uint32_t restarts;   /* times it resumed from a checkpoint: after a
	                        preemption, or moved by a migration */
	/* Large-model jobs (added in the padding here, so no field moves;
	 * 0 for other jobs): gpus = dp x tp x pp, docs/placement.md. */
	uint16_t tp;         /* tensor-parallel degree: GPUs of one stage,
	                        kept inside one node; 0 = not shaped */
	uint16_t pp;         /* pipeline stages; 0 = not shaped */
	double attained;     /* service received: seconds held x GPUs (CPUs
	                        for a job without GPUs), up to its last stop */
	sim_time_t queued;   /* time spent pending in all (waits between
	                        preemption and restart included) */
	double placement_slowdown; /* GPU jobs under the speed model, once
	                        ended: time run / time at the rate of an
	                        ideal placement (docs/metrics.md); 0 = n/a */
	sim_time_t service;  /* its run time alone, once started: work over
	                        its rate on its first placement with no
	                        other job on the fabric and no GPU shared
	                        (run for a job the speed model does not
	                        slow); slowdowns divide by it */
	double lost_work;    /* work redone: seconds of work (at reference
	                        speed) done since the last checkpoint when
	                        it was preempted, summed */
	/* Pollux-style jobs (appended; 0 for other jobs): the goodput
	 * model of sim/speed/goodput.h sets their work and rate. */
	uint16_t goodput_app; /* its application, 1-based; 0 = none */
	uint16_t llm;        /* large-model job: its model and micro-batches,
	                        an index + 1 into the workload's table
	                        (sim/speed/llm.h struct llm_job); 0 = none
	                        (here, in the padding, so no field moves) */
	uint32_t batch;      /* total batch size it trains with */
	uint32_t ref_gpus;   /* the configuration its work is counted in */
	uint32_t ref_batch;  /* (the trace's GPUs and batch; a policy may
	                        change gpus and batch: sim_job_resize) */
};

/* No job class: a CPU job, or a trace that names no model. */
#define JOB_CLASS_NONE 0

/* Errors: library code never prints; it fills one of these and returns a
 * negative code.  Messages follow "FILE:LINE: message" for traces and
 * "FILE: $.json.path: message" for experiment files. */
struct sim_error {
	char msg[1024];
};

#endif
