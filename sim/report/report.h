/*
 * A results folder as a whole: what kind it is (which command wrote it),
 * its plots redrawn from its files alone (`clustersim plot DIR`), and
 * report.html, one page that holds the folder's experiment, summary
 * table, plots (SVG inline) and manifest, readable offline and on a
 * phone.  Everything is read back from the folder, so the report of a
 * folder is the same whether the run wrote it or `clustersim plot` did.
 */
#ifndef CLUSTERSIM_REPORT_H
#define CLUSTERSIM_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "clustersim/clustersim.h"

/* The kinds of results folder. */
enum report_kind {
	REPORT_NONE,     /* not a results folder */
	REPORT_RUN,      /* `run`: summary.csv, manifest.json, run folders */
	REPORT_SWEEP,    /* `sweep` or `merge`: the same, the manifest has
	                    "sweep" (its axes) */
	REPORT_FILL,     /* a fill experiment's `run`: fill_summary.csv */
	REPORT_REPLAY,   /* a replay experiment's `run`: replay_summary.csv */
	REPORT_OPTIMIZE, /* `optimize`: OUTPUT/optimize/, summary.csv by
	                    method */
	REPORT_NKINDS
};

/* The kind of the folder dir, from the files it holds (the summary file
 * each command writes and, for run and sweep, the manifest). */
enum report_kind report_kind_of(const char *dir);
/* "run", "sweep", "fill", "replay", "optimize" ("" for none). */
const char *report_kind_name(enum report_kind k);

/*
 * Redraws the plots of a folder of kind k from its files, as the command
 * that wrote it draws them: 0, 1 when gnuplot is missing (the message in
 * err, results intact), or a negative code with err set.
 */
int report_redraw(const char *dir, enum report_kind k, struct sim_error *err);

/*
 * The convergence plot of an optimize folder (plots/search/
 * convergence.gp over DIR/convergence.csv and DIR/summary.csv):
 * DIR/convergence.png and .svg, gnuplot's messages in DIR/gnuplot.log.
 * Same returns as report_redraw().
 */
int report_plot_convergence(const char *dir, const char *objective,
			    const char *experiment, struct sim_error *err);

/* What a page says in place of its plots: NULL when gnuplot is there and
 * no_plots is false (the plots are drawn), else why they are not. */
const char *report_plots_note(bool no_plots);

/*
 * Writes DIR/report.html (atomically) for a folder of kind k: the
 * experiment (its resolved JSON from the manifest), the summary table,
 * the plots (every SVG the folder's plots hold, inline) when plots is
 * true, note (may be NULL) where the plots go, and the manifest.  Every
 * text taken from a file is HTML-escaped; an SVG that holds a script or
 * an event handler is left out, saying so.  0 or a negative code.
 */
int report_html(const char *dir, enum report_kind k, bool plots,
		const char *note, struct sim_error *err);

/*
 * report_html() once a command has drawn its plots (or not): no_plots,
 * they were not asked for; else prc is what drawing them returned (0, 1
 * gnuplot missing, or a negative code) and pmsg its message.
 */
int report_after_plots(const char *dir, enum report_kind k, bool no_plots,
		       int prc, const char *pmsg, struct sim_error *err);

/* A CSV file read whole: rows of cells (the header is row 0). */
struct report_table {
	char ***cell;    /* cell[r][c], NUL-terminated (owned) */
	size_t *ncols;   /* cells of each row */
	size_t nrows;    /* rows read (at most the limit asked for) */
	size_t total;    /* rows in the file */
	size_t cap;      /* allocated rows */
};
/* Reads path, keeping at most max_rows rows (the header included) but
 * counting all: 0 or a negative code with err set. */
int report_table_read(const char *path, size_t max_rows,
		      struct report_table *t, struct sim_error *err);
/* The column of header name (-1 when none). */
int report_table_col(const struct report_table *t, const char *name);
void report_table_release(struct report_table *t);

#endif
