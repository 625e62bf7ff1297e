/*
 * The runners of the fractional-GPU experiments (an experiment file's
 * "fill" key): fill (fill_run.c) and replay (fill_replay_run.c).
 */
#ifndef CLUSTERSIM_FILL_RUN_H
#define CLUSTERSIM_FILL_RUN_H

#include <stddef.h>

#include "clustersim/policy.h"
#include "clustersim/score.h"

struct run_opts;
struct experiment;
/*
 * Runs the fill experiment of an experiment file (fill_run.c) with the
 * resolved score plugins (labels in the same order) into outdir; with
 * o->validate_only only checks.  The digest of each list as read for a run
 * is noted in e (exp_note_input) for the manifest.  Returns the process
 * exit code (0, 1 a run or write failed, 2 bad input), message in err.
 */
int fill_experiment(const struct run_opts *o, struct experiment *e,
		    const struct score_ops *const *ops,
		    const char *const *labels, size_t npol,
		    const char *outdir, struct sim_error *err);

/*
 * The replay experiment of an experiment file ("fill" with "mode":
 * "replay"; fill_replay_run.c), called by fill_experiment() with the
 * same arguments and the same exit codes.
 */
int replay_experiment(const struct run_opts *o, struct experiment *e,
		      const struct score_ops *const *ops,
		      const char *const *labels, size_t npol,
		      const char *outdir, struct sim_error *err);

#endif
