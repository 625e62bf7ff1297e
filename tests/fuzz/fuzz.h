/*
 * The fuzz harnesses, one per input parser.  Each takes any bytes, runs
 * the parser on them, checks the result's contract (aborting when it is
 * broken) and returns 0.  They are plain functions so that the Criterion
 * suite can replay the corpus through all of them in one binary; the
 * libFuzzer entry point of each is compiled only with -DFUZZ_TARGET_<NAME>.
 */
#ifndef CLUSTERSIM_FUZZ_H
#define CLUSTERSIM_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int fuzz_swf_one(const uint8_t *data, size_t size); /* trace_load_swf */
int fuzz_csv_one(const uint8_t *data, size_t size); /* trace_load_csv */
int fuzz_exp_one(const uint8_t *data, size_t size); /* exp_parse */
int fuzz_philly_one(const uint8_t *data, size_t size);   /* trace_load_philly */
int fuzz_tiresias_one(const uint8_t *data, size_t size); /* trace_load_tiresias */
int fuzz_pollux_one(const uint8_t *data, size_t size);   /* trace_load_pollux */
int fuzz_gavel_one(const uint8_t *data, size_t size);    /* trace_load_gavel */
int fuzz_shockwave_one(const uint8_t *data, size_t size); /* trace_load_shockwave */
int fuzz_openb_one(const uint8_t *data, size_t size);    /* openb_load_* */
int fuzz_sim_one(const uint8_t *data, size_t size);      /* sim_run, every policy */

#endif
