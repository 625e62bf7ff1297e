/*
 * Results folders: the lock that keeps two runs out of one folder at once,
 * and the clean-up a run does while it holds it.
 *
 * A run (run, sweep, merge, plot, optimize, a fill or replay experiment)
 * holds OUT/.clustersim.lock with flock(2) for as long as it writes OUT.
 * The kernel drops the lock when the last process holding the open file
 * ends, however it ends, so a killed run leaves no stale lock; forked
 * workers share their driver's lock.  A second run refuses the folder,
 * naming it and the holder (the lock file holds its PID and host).  The
 * shards of one Slurm sweep write one folder together: they hold the lock
 * shared, which any other run's exclusive lock excludes.
 *
 * While a run holds the lock exclusively, no other clustersim process
 * writes the folder, so every temporary left there (afile_open()'s
 * "NAME.tmp.PID") is one of a run that died: outdir_lock() removes them.
 */
#ifndef CLUSTERSIM_OUTDIR_H
#define CLUSTERSIM_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "clustersim/clustersim.h"

/* The lock file's name inside a results folder. */
#define OUTDIR_LOCK_NAME ".clustersim.lock"

/* A results folder this process holds. */
struct outdir {
	int fd;        /* the open, locked lock file; -1 = none */
	char *lock;    /* its path */
	bool shared;   /* held shared (a shard of a sweep) */
	size_t stale;  /* temporaries of dead runs removed by outdir_lock() */
};

/*
 * Creates dir (mkdir -p) and locks it: exclusive, or shared when shared.
 * A folder that cannot be used - a file in the way, not writable, held by
 * another run - is -SIM_EINPUT ("DIR: ...", the exit code 2 of bad
 * usage); a failing disk (full, I/O error) is -SIM_EIO.  Exclusive, it
 * then removes the stale temporaries (d->stale counts them).  d is set
 * for outdir_unlock() only on success.
 */
int outdir_lock(struct outdir *d, const char *dir, bool shared,
		struct sim_error *err);
/* Releases the lock (removing the lock file when no one else holds it);
 * a zeroed or already released d is fine. */
void outdir_unlock(struct outdir *d);

/* Removes every "NAME.tmp.DIGITS" regular file in dir and in its
 * subfolders (one level down: where results are written).  Returns how
 * many. */
size_t outdir_clean_tmp(const char *dir);

/*
 * Removes the run folder dir/name that a re-run no longer produces: the
 * result files it may hold (files, a NULL-ended list of names), their
 * temporaries, then the folder.  name must be one folder name (no '/',
 * not "." or ".."); a symbolic link, a file or a folder that holds
 * anything else is kept.  Returns 1 when removed, 0 when there was none,
 * -1 when kept, with why in *why.
 */
int outdir_remove_run(const char *dir, const char *name,
		      const char *const *files, struct sim_error *why);

/* Whether dir/name can be written as a folder (folder) or a file: 0, or
 * -SIM_EINPUT when the other kind is in the way. */
int outdir_want(const char *dir, const char *name, bool folder,
		struct sim_error *err);

#endif
