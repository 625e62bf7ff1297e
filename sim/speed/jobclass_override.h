/*
 * An experiment's overrides of the default job-class tables (the
 * "throughputs" key of an experiment file, experiments/README.md).
 *
 * The speed model (speed.h) reads two figures per class from the tables:
 * the isolated throughput on one GPU of each type (steps/s; how much
 * faster one type is than another) and the gradient bytes that a
 * data-parallel step all-reduces (what communication costs).  Multi-GPU
 * speed is not read from the table's scale-factor columns: the fabric's
 * all-reduce model gives it.  So these two figures are what an experiment
 * may override, per class: a researcher with their own measurements (or a
 * sensitivity study) replaces a class's 1-GPU throughput on some GPU types
 * and/or its gradient size.
 *
 * The overrides are an overlay, owned by the experiment and passed to the
 * speed model of each run through struct speed_config: the const default
 * tables are never changed, so runs with different overrides can share a
 * process.  An override names one class only: a mapped class (VGG-16 ...)
 * borrows its proxy's default figures, not the proxy's overrides.
 *
 * The overlay also holds the experiment's own GPU types ("gpu_types":
 * the built-in table of jobclass_gpu.h extended, type indices from
 * JOBCLASS_NGPU on) and the rule that carries a class's 1-GPU throughput
 * to a type with no measured figure ("derive_throughputs"):
 *
 *   thr(cls, t) = thr(cls, s) x factor(t, s)
 *
 * from the measured type s (k80, p100, v100: Gavel's; or a type the
 * experiment's "throughputs" gives a figure on) nearest to t in the
 * rule's figures, with a positive figure for the class:
 *   fp32_membw (default): factor = sqrt(fp32(t)/fp32(s) x bw(t)/bw(s)),
 *     nearest by the Euclidean distance of (ln fp32, ln memory bandwidth);
 *   fp32: factor = fp32(t)/fp32(s), nearest by |ln fp32(t)/fp32(s)|;
 *   none: no figure (a run refuses a job that has none on a type).
 * Ties go to the lower type index.  An override on t itself wins over
 * the rule.  Such a figure is derived, never measured: the manifest lists
 * every one a run could use (docs/gpu-models.md has the rule's check
 * against Gavel's own measurements and its limits).
 */
#ifndef CLUSTERSIM_JOBCLASS_OVERRIDE_H
#define CLUSTERSIM_JOBCLASS_OVERRIDE_H

#include <stddef.h>
#include <stdint.h>

#include "speed/jobclass.h"

/* How a figure on a type nobody measured is found ("derive_throughputs"),
 * the names indexed by it in jobclass_derive_names. */
enum jobclass_derive {
	JOBCLASS_DERIVE_FP32_MEMBW = 0, /* the default (above) */
	JOBCLASS_DERIVE_FP32,
	JOBCLASS_DERIVE_NONE,
	JOBCLASS_NDERIVE
};
extern const char *const jobclass_derive_names[JOBCLASS_NDERIVE];

/* The overridden figures of one class. */
struct jobclass_override {
	uint16_t cls;               /* class index (>= 1) */
	double thr[JOBCLASS_GPU_MAX]; /* steps/s on one GPU of each type
	                               (> 0); NaN (or not > 0) = none given */
	double grad_bytes;          /* bytes all-reduced per step (>= 0,
	                               an integer); < 0 = the default's */
};

/* All overrides of an experiment: at most one entry per class, sorted by
 * class index.  Empty (n = 0, v = NULL) = the defaults. */
struct jobclass_overrides {
	struct jobclass_override *v;
	size_t n;
	struct jobclass_gpu_info *types; /* the experiment's own GPU types,
	                               index JOBCLASS_NGPU + i; their strings
	                               are owned here */
	size_t ntypes;
	enum jobclass_derive derive; /* the rule for unmeasured figures */
};

/* Where a 1-GPU figure comes from (jobclass_thr1_origin). */
enum jobclass_figure {
	JOBCLASS_FIG_NONE = 0,  /* no figure (NaN) */
	JOBCLASS_FIG_MEASURED,  /* Gavel's table */
	JOBCLASS_FIG_OVERRIDE,  /* the experiment's "throughputs" */
	JOBCLASS_FIG_DERIVED    /* carried from another type by the rule */
};

/* The origin of one figure. */
struct jobclass_origin {
	enum jobclass_figure kind; /* where it comes from */
	int source;                /* DERIVED: the type it is carried from */
	double factor;             /* DERIVED: the rule's factor */
};

/* Frees the entries and types; o may be NULL. */
void jobclass_overrides_release(struct jobclass_overrides *o);

/* The entry of class cls, or NULL (o may be NULL). */
const struct jobclass_override *
jobclass_override_find(const struct jobclass_overrides *o, unsigned cls);

/* GPU types known to o: the built-in ones, then its own (o may be NULL:
 * the built-in ones). */
size_t jobclass_ovr_gpu_count(const struct jobclass_overrides *o);
/* A type by index (NULL when out of range). */
const struct jobclass_gpu_info *
jobclass_ovr_gpu(const struct jobclass_overrides *o, int gpu);
/* A type by name: the experiment's own names first (letters and digits,
 * case ignored), then jobclass_gpu_lookup().  The index, or -SIM_EINPUT
 * with "unknown gpu type 'NAME'" in err (err may be NULL). */
int jobclass_ovr_gpu_lookup(const struct jobclass_overrides *o,
			    const char *name, struct sim_error *err);

/* The factor by which the rule carries a figure from type `from` to type
 * `to` (NaN for JOBCLASS_DERIVE_NONE or figures not > 0). */
double jobclass_derive_factor(enum jobclass_derive rule,
			      const struct jobclass_gpu_info *to,
			      const struct jobclass_gpu_info *from);

/*
 * The throughput of class cls on one GPU of type gpu, consolidated, with
 * the overrides o applied (o may be NULL: the default rule, no override):
 * the override when given, else Gavel's figure on its three types
 * (jobclass_throughput(cls, gpu, 1, true)), else the figure the rule
 * derives (above); NaN when there is none (JOB_CLASS_NONE, rule "none").
 * *why (may be NULL) says where it comes from.
 */
double jobclass_thr1_origin(const struct jobclass_overrides *o, unsigned cls,
			    int gpu, struct jobclass_origin *why);
double jobclass_thr1(const struct jobclass_overrides *o, unsigned cls,
		     int gpu);
/* Gradient bytes of one step of class cls, overrides applied. */
uint64_t jobclass_grad_bytes_ovr(const struct jobclass_overrides *o,
				 unsigned cls);

#endif
