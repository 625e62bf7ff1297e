/*
 * Shared helpers of the fuzz harnesses (tests/fuzz/fuzz_*.c): writing an
 * input to a temporary file for the readers that take a path, and the
 * cheap invariants that every reader's result must satisfy.  A violated
 * invariant aborts, so that libFuzzer (or Criterion, replaying the corpus)
 * reports it as a crash with the input that caused it.
 */
#ifndef CLUSTERSIM_FUZZLIB_H
#define CLUSTERSIM_FUZZLIB_H

#include <stddef.h>
#include <stdint.h>

#include "workload/workload.h"

/* Checks cond; on failure prints where and what, then abort()s. */
#define FUZZ_CHECK(cond)                                                     \
	((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))

void fuzz_fail(const char *file, int line, const char *what)
	__attribute__((noreturn));

#define FUZZ_PATH_MAX 64 /* room for a temporary file's name */

/* Writes the input to a new file under /tmp; its name goes to path.
 * Returns 0, or -1 when the file could not be written (nothing to undo). */
int fuzz_write_tmp(const uint8_t *data, size_t size,
		   char path[FUZZ_PATH_MAX]);

/* The contract of a failed load: a negative code, a non-empty message
 * that starts with "PATH:" and an empty workload. */
void fuzz_check_failed(int rc, const struct sim_error *err, const char *path,
		       const struct workload *w);

/* The promises of a loaded workload under options o: sorted by
 * (submit, id) with unique ids, idx == position, run > 0, a processor
 * count, estimates and flags as the overrun mode says, time window and
 * limit applied, report counters consistent. */
void fuzz_check_workload(const struct workload *w, const struct trace_opts *o);

/* Aborts unless a and b hold the same jobs (field by field). */
void fuzz_check_same_jobs(const struct workload *a,
			  const struct workload *b);

/* Runs one trace reader on the file at path under several option sets
 * and checks each result and how the results relate. */
void fuzz_trace_reader(int (*load)(const char *, const struct trace_opts *,
				   struct workload *, struct sim_error *),
		       const char *path);

#endif
