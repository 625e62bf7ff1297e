/*
 * The fabric model's records (net.c): links, jobs and the recomputation's
 * scratch.  Only net.c includes it.
 */
#ifndef CLUSTERSIM_SPEED_NET_IMPL_H
#define CLUSTERSIM_SPEED_NET_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "speed/net.h"

#define NONE UINT32_MAX

/* A job on a link: which job, and where the link sits in its list. */
struct net_inc {
	uint32_t job; /* job slot */
	uint32_t at;  /* index in the job's links[] */
};

struct net_link {
	double cap_Bps;       /* capacity, bytes/s per direction */
	struct net_inc *jobs; /* jobs crossing it, one stream each; owned */
	uint32_t njobs, cap;  /* used and allocated entries of jobs[] */
	/* Progressive-filling state, valid during a recomputation. */
	double rem_Bps;       /* capacity not taken by frozen jobs */
	double level_Bps;     /* rem / unfrozen */
	uint32_t unfrozen;    /* jobs not frozen yet */
	uint32_t m;           /* jobs frozen in the current step */
	uint32_t heap;        /* in play (not saturated, jobs unfrozen): its
				 index in the heap, or 0 when scanned;
				 NONE when out */
	uint32_t stamp;       /* component search mark */
	bool dirty;           /* a job came or went since the last update */
};

struct net_job {
	int64_t id;           /* the engine's job id */
	uint32_t *links;      /* links crossed (NICs, then leaves); owned */
	uint32_t *at;         /* index of this job in each link's jobs[] */
	uint32_t nlinks;      /* entries in links[] and at[] */
	uint32_t gpus;        /* p: GPUs in all */
	uint32_t nnodes;      /* nodes spanned */
	uint32_t nracks;      /* racks spanned */
	bool nvlink;          /* some node has several of its GPUs */
	bool used;            /* the slot holds a job */
	bool fresh;           /* added since the last net_rates() */
	bool in_cand;         /* listed in net->cand */
	bool frozen;          /* progressive filling: rate fixed */
	uint32_t stamp;       /* component search mark */
	double share_Bps;     /* fair share of its links (INFINITY: none) */
	double bw_Bps;        /* bottleneck bandwidth now */
	double reported_Bps;  /* bw_Bps at the last net_rates() */
	uint32_t next_free;   /* free-list link when !used */
};

struct net {
	struct net_spec spec;   /* copy of the spec */
	uint32_t nnodes;        /* nodes */
	uint32_t nracks;        /* racks = ceil(nnodes / rack_nodes) */
	struct net_link *links; /* nnodes NICs then nracks uplinks */
	uint32_t nlinks;        /* nnodes + nracks */
	double nvlink_Bps;      /* NVLink bandwidth, bytes/s */
	/* Jobs: slots, a free list, and an id -> slot hash table. */
	struct net_job *jobs;   /* slots; owned */
	size_t njobs_cap;       /* allocated slots */
	uint32_t nslots;        /* slots ever used */
	uint32_t free_head;     /* first free slot, NONE when none */
	size_t njobs;           /* jobs present */
	uint32_t *hash;         /* open addressing, slot or NONE; owned */
	size_t hash_cap;        /* a power of two */
	/* Pending work. */
	uint32_t *dirty;        /* links with dirty set; owned */
	size_t ndirty, dirty_cap;
	uint32_t *cand;         /* slots whose rate may have changed */
	size_t ncand, cand_cap;
	int64_t *changed;       /* net_rates() result; owned */
	size_t changed_cap;
	/* Scratch for a recomputation. */
	uint32_t stamp;         /* current component search mark */
	uint32_t *clinks, *cjobs; /* the links and jobs of the components */
	size_t nclinks, clinks_cap, ncjobs, cjobs_cap;
	uint32_t *live;         /* the links in play: a heap ordered by
				   (level, link) when use_heap, else in no
				   order */
	uint32_t nlive;
	bool use_heap;          /* the component has over SCAN_LINKS links */
	uint32_t *touched;      /* links whose m went above 0 in a step */
	size_t ntouched, touched_cap;
	uint32_t *newly;        /* jobs frozen in a step */
	size_t nnewly, newly_cap;
};

/* Gb/s and GB/s to bytes/s. */
#define GBPS_TO_BPS 125000000.0
#define GBYTES_TO_BPS 1e9

#endif
