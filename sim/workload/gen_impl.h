/*
 * What the generator's files share (gen.c draws the ordinary jobs,
 * gen_large.c the large-model ones): a distribution ready to draw from,
 * and one draw on the stream of one field of one job (gen_rng.h).
 */
#ifndef CLUSTERSIM_GEN_IMPL_H
#define CLUSTERSIM_GEN_IMPL_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "workload/workload.h"

/* A distribution ready to draw from. */
struct gen_dist {
	const struct dist *d;     /* the spec */
	gsl_ran_discrete_t *tab;  /* DIST_DISCRETE: GSL's lookup table */
	int lo, hi;               /* DIST_POW2: exponent range */
};

void gen_dist_init(struct gen_dist *g, const struct dist *d);
void gen_dist_free(struct gen_dist *g);
/* A draw of g on the stream of field `field` of job `job`. */
double gen_field(const struct gen_dist *g, gsl_rng *r, uint32_t job,
		 uint32_t field);

#endif
