/*
 * The one pool of worker processes: K tasks, each in a forked child, at
 * most N at a time (`run -j N`, `sweep -j N`, each run of an MPI rank).
 *
 * A child is a fork, not an exec: it shares the parent's loaded and
 * checked inputs copy-on-write, so each task starts at once; a task that
 * crashes or runs out of memory costs that task only.  A child dies with
 * its parent (PR_SET_PDEATHSIG), and one whose parent is already gone
 * does not start, so a killed driver (^C, SIGTERM, an OOM kill) leaves no
 * task writing.  Tasks start in index order; what a task hands back is
 * its exit code, its message (a struct sim_error) and a result slot of a
 * fixed size in memory the parent shares, read when the child has ended,
 * so results never depend on which child ended first.
 */
#ifndef CLUSTERSIM_POOL_H
#define CLUSTERSIM_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "clustersim/clustersim.h"

struct pool {
	unsigned jobs;         /* at most this many children at once (0: 1) */
	size_t ntasks;         /* tasks 0 .. ntasks - 1, started in order */
	size_t slot_size;      /* bytes of the result slot of a task (0:
	                          none) */
	bool stop_on_failure;  /* a task that fails stops (SIGKILL) those
	                          after it and none is started after it; those
	                          before it run to their end */
	/* In the child: task k.  Returns its exit code (0: success; outside
	 * 0..255: 1); may fill slot (slot_size bytes, zeroed) and err (its
	 * message, "" before). */
	int (*run)(void *ctx, size_t k, void *slot, struct sim_error *err);
	/* In the parent, as each task ends, in any order, and never for a
	 * task the pool stopped: its waitpid() status, slot and message
	 * (valid during the call only).  NULL: none. */
	void (*ended)(void *ctx, size_t k, int status, const void *slot,
		      const struct sim_error *err);
	void *ctx;             /* passed to run and ended */
};

/*
 * Runs every task (or, with stop_on_failure, up to the first that fails).
 * Returns 0 when every task exited 0; else the exit code of the first
 * task in index order that did not (1 for a child killed by a signal),
 * its message in err ("killed by signal N (NAME)" for a signal, "exited
 * with status N" when it left none) and its index in *failed (may be
 * NULL); or a negative code, with err, when the pool itself failed (no
 * memory could be shared, or a fork failed: the tasks started then run
 * to their end first).  The caller has no other child that could end
 * while the pool runs.
 */
int pool_run(const struct pool *p, size_t *failed, struct sim_error *err);

/* How a child ended, from its waitpid() status, into buf (n bytes):
 * "killed by signal 6 (Aborted)" or "exited with status 3". */
void pool_status_text(int status, char *buf, size_t n);

#endif
