/*
 * The generator's random numbers: Philox 4x32-10 (Random123; Salmon et
 * al., "Parallel random numbers: as easy as 1, 2, 3", SC'11) behind GSL's
 * gsl_rng interface, so that every gsl_ran_* distribution draws from it.
 *
 * Why Philox and not GSL's mt19937: mt19937 is seeded with 32 bits
 * (gsl_rng_set keeps the low 32 of its unsigned long), so 2^32 seeds
 * apart gave one workload.  Philox's key is 64 bits: the seed is the key,
 * whole, so two seeds are two keys and no two seeds share a workload.  It
 * is the generator the searches already use (sim/eval/eval_steps.h), it
 * is defined by its paper and Random123's known-answer vectors rather
 * than by a library's version, and it is counter-based: a draw is a
 * function of (key, counter), so each field of each job has a stream of
 * its own (counter = job, field, domain, block).  A job's run time then
 * does not depend on how many draws its gap or the jobs before it took
 * (a constant takes none, a gamma takes a variable number): changing one
 * distribution leaves the draws of every other field as they were.
 */
#ifndef CLUSTERSIM_GEN_RNG_H
#define CLUSTERSIM_GEN_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

/* A gsl_rng of the Philox type, keyed by seed (all 64 bits), on stream
 * (job 0, field 0) until gen_rng_stream; free with gsl_rng_free. */
gsl_rng *gen_rng_new(uint64_t seed);

/* Restarts r on the stream of field `field` of job `job`: the draws that
 * follow depend on the seed, job and field only. */
void gen_rng_stream(gsl_rng *r, uint32_t job, uint32_t field);

#endif
