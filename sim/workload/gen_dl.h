/*
 * Generator presets for deep-learning workloads: distributions fitted to a
 * GPU cluster trace (the table in sim/workload/gen_philly_fit.c, written by
 * scripts/fit-philly.py; docs/workloads.md has the method and the
 * goodness of fit), turned into a struct gen_spec that the experiment
 * file may then override key by key.
 */
#ifndef CLUSTERSIM_GEN_DL_H
#define CLUSTERSIM_GEN_DL_H

#include "workload/workload.h"

#define GEN_FIT_MAX_SIZES 16  /* distinct GPU counts a fit may hold */
#define GEN_FIT_MAX_BUCKETS 8 /* GPU buckets a fit may hold */

/* CPUs a generated GPU job takes per GPU unless the file says otherwise. */
#define GEN_CPUS_PER_GPU 4

/* One observed GPU count and how many jobs asked for it. */
struct gen_fit_size {
	uint32_t gpus; /* GPUs per job */
	uint32_t jobs; /* jobs of the trace with that count */
};

/* The run-time fit of the jobs whose GPU count is in [min_gpus, max_gpus]. */
struct gen_fit_bucket {
	uint32_t min_gpus;   /* smallest GPU count of the bucket */
	uint32_t max_gpus;   /* largest; 0 = no bound */
	uint32_t jobs;       /* jobs of the trace in the bucket */
	double mu, sigma;    /* lognormal ML fit: mean, sd of ln seconds */
	double ks_lognormal; /* its Kolmogorov-Smirnov distance to the trace */
	double ks_mixture;   /* the same for the two-lognormal mixture */
	bool mixture;        /* the preset uses the mixture (else mu, sigma) */
	double mix[5];       /* the mixture: p, mu1, sigma1, mu2, sigma2 */
};

/* A fitted trace. */
struct gen_fit {
	const char *name;          /* the preset's name */
	uint32_t jobs;             /* jobs the fit was made from */
	double interarrival_mean;  /* seconds; arrivals are Poisson */
	double ks_interarrival;    /* KS distance of that exponential to the
	                              trace's gaps (for the record) */
	size_t nsizes;             /* entries in sizes */
	struct gen_fit_size sizes[GEN_FIT_MAX_SIZES]; /* by GPU count */
	size_t nbuckets;           /* entries in buckets */
	struct gen_fit_bucket buckets[GEN_FIT_MAX_BUCKETS]; /* ascending,
	                              disjoint */
};

extern const struct gen_fit gen_philly_fit;

/* The presets' names, for the loader's "did you mean". */
extern const char *const gen_preset_names[];
extern const size_t gen_preset_count;

/* The fit named name, or NULL. */
const struct gen_fit *gen_preset_find(const char *name);

/*
 * Fills g (its distributions released first) from fit f: jobs = the
 * trace's count, interarrival exponential with the fitted mean, gpus a
 * discrete distribution of the observed counts weighted by their jobs,
 * runtime_by_gpus one bucket per fitted bucket (the mixture where the fit
 * chose it, else the lognormal), runtime the first bucket's (used by no
 * job of the preset), cpus constant 1 (for no job), cpus_per_gpu
 * GEN_CPUS_PER_GPU, estimate factor 1, one user, no clamp.
 */
void gen_preset_apply(const struct gen_fit *f, struct gen_spec *g);

/* The fitted run-time distribution of bucket b, as the preset uses it. */
void gen_fit_bucket_dist(const struct gen_fit_bucket *b, struct dist *d);

#endif
