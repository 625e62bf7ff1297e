/*
 * The layout of the Pollux applications' generated tables (goodput_APP.c,
 * made by scripts/gen-pollux-apps.py), private to goodput.c and them.
 */
#ifndef CLUSTERSIM_GOODPUT_IMPL_H
#define CLUSTERSIM_GOODPUT_IMPL_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* One measured placement (placements.csv). */
struct goodput_point {
	uint32_t placement; /* GPUs per node as decimal digits, the smallest
	                       rotation: 13 = one node of 1 and one of 3 */
	uint32_t lbsz;      /* atomic batch size */
	double step;        /* seconds of one step */
	double sync;        /* of which synchronising gradients */
};

/* One measurement by nodes and replicas (scalability.csv, 6+ nodes). */
struct goodput_scal {
	uint32_t nodes, replicas, lbsz; /* where */
	double step, sync;              /* as in goodput_point */
};

/* One epoch of one validated batch size (validation-BSZ.csv). */
struct goodput_epoch {
	double progress; /* progress (steps at the initial batch size) at the
	                    epoch's end */
	double grad_sqr; /* gradient squared norm in the epoch */
	double grad_var; /* gradient variance in the epoch */
};

/* One application. */
struct goodput_app {
	const char *name;                  /* "cifar10" */
	const struct goodput_point *place; /* measured placements */
	size_t nplace;
	const struct goodput_scal *scal;   /* by nodes x replicas */
	size_t nscal;
	const uint32_t *bsz;               /* validated batch sizes, rising */
	size_t nbsz;
	const struct goodput_epoch *epochs;/* [nbsz][max_epochs] */
	unsigned max_epochs;               /* epochs to the target */
	uint32_t max_local_bsz;            /* 0 = the placements' largest */
	uint32_t max_gpus;                 /* the most GPUs an adaptive
	                                      policy gives a job; 0 = none */
};

extern const struct goodput_app goodput_app_bert, goodput_app_cifar10,
	goodput_app_deepspeech2, goodput_app_imagenet, goodput_app_ncf,
	goodput_app_yolov3;

#endif
