/*
 * Band files and their plots, shared by the fill and replay experiments:
 * per pod list, one row per step with the mean, least and greatest value
 * over seeds of each policy's measures, drawn as one curve per policy
 * with a band from the least to the greatest.
 */
#ifndef CLUSTERSIM_BAND_H
#define CLUSTERSIM_BAND_H

#include <stddef.h>
#include <stdio.h>

#include "clustersim/clustersim.h"

struct plot_defs;

/* The stem of a pod list's path: "a/b/openb_pod_list_default.csv" ->
 * "openb_pod_list_default"; caller frees. */
char *band_stem(const char *path);
/* v as fmt_double() writes it, then sep. */
void band_put_double(FILE *f, double v, const char *sep);

/* One cell of a band file: the mean, least and greatest of the values
 * the seeds give (a seed whose run is shorter gives none). */
struct band {
	double sum, lo, hi;
	size_t n;
};
void band_add(struct band *b, double v);
/* ",mean,min,max", or ",,," when no seed gave a value. */
void band_put(FILE *f, const struct band *b);
/* The header: first, then LABEL_WHAT_mean,_min,_max for each of the npol
 * labels and the nwhat measures, and a newline. */
void band_header(FILE *f, const char *first, const char *const *labels,
		 size_t npol, const char *const *what, size_t nwhat);

/*
 * Draws the plots/fill/ scripts of MODE ("fill": fill_alloc, fill_frag;
 * "replay": replay_alloc, replay_frag, replay_pending) over one pod
 * list's OUTDIR/MODE-STEM.csv, one curve per label, PNG and SVG (one
 * gnuplot each), into OUTDIR/plots/SCRIPT-STEM.*, with the mode's own
 * variables extra (the experiment's name for the titles; in replay mode
 * the window, window_s); gnuplot's messages go to plots/gnuplot.log.
 * 0 or a negative code with err set.
 */
int band_plot(const char *outdir, const struct plot_defs *extra,
	      const char *mode, const char *stem,
	      const char *const *labels, size_t npol, struct sim_error *err);

#endif
