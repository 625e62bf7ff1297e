/*
 * The runner's merge of summary.csv and manifest.json after `run
 * --policy X` into a folder that holds the other runs of the same
 * experiment (run_keep.c says when it merges and when not).
 */
#ifndef CLUSTERSIM_RUN_KEEP_H
#define CLUSTERSIM_RUN_KEEP_H

#include "exp/exp.h"
#include "base/util.h"

/* The text of dir/name, or NULL when it cannot be read; the caller
 * frees. */
char *run_keep_read(const char *dir, const char *name);
/*
 * After the runs of --policy wrote outdir's summary.csv and manifest.json:
 * puts back the rows and run entries of old_summary and old_manifest (the
 * files before the run; NULL: none) of the experiment's other runs whose
 * folders are kept.  Returns 0 or an error code with err filled.
 */
int run_keep_others(const char *outdir, const struct experiment *e,
		    const char *old_summary, const char *old_manifest,
		    struct sim_error *err);

#endif
