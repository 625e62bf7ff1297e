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
 */
#ifndef CLUSTERSIM_JOBCLASS_OVERRIDE_H
#define CLUSTERSIM_JOBCLASS_OVERRIDE_H

#include <stddef.h>
#include <stdint.h>

#include "speed/jobclass.h"

/* The overridden figures of one class. */
struct jobclass_override {
	uint16_t cls;               /* class index (>= 1) */
	double thr[JOBCLASS_NGPU];  /* steps/s on one GPU of each type
	                               (> 0); NaN = the default table's */
	double grad_bytes;          /* bytes all-reduced per step (>= 0,
	                               an integer); < 0 = the default's */
};

/* All overrides of an experiment: at most one entry per class, sorted by
 * class index.  Empty (n = 0, v = NULL) = the defaults. */
struct jobclass_overrides {
	struct jobclass_override *v;
	size_t n;
};

/* Frees the entries; o may be NULL. */
void jobclass_overrides_release(struct jobclass_overrides *o);

/* The entry of class cls, or NULL (o may be NULL). */
const struct jobclass_override *
jobclass_override_find(const struct jobclass_overrides *o, unsigned cls);

/*
 * The throughput of class cls on one GPU of type gpu, consolidated, with
 * the overrides o applied (o may be NULL): the override when given, else
 * jobclass_throughput(cls, gpu, 1, true).
 */
double jobclass_thr1(const struct jobclass_overrides *o, unsigned cls,
		     int gpu);
/* Gradient bytes of one step of class cls, overrides applied. */
uint64_t jobclass_grad_bytes_ovr(const struct jobclass_overrides *o,
				 unsigned cls);

#endif
