/*
 * `clustersim plot DIR`: redraws the plots of a results folder of any
 * kind (run, sweep, fill, replay, optimize: report/report.h) and rewrites
 * its report.html.  A folder holding an optimize/ folder beside other
 * results (an experiment's output folder) has both redrawn.  A problem
 * of gnuplot is a warning, not a failure.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/outdir.h"
#include "base/util.h"
#include "report/report.h"

/* Redraws one folder of kind k and rewrites its report: 0, or 1 when
 * the report could not be written (err). */
static int plot_one(const char *dir, enum report_kind k,
		    struct sim_error *err)
{
	struct sim_error perr = { .msg = "" };
	int rc = report_redraw(dir, k, &perr);
	if (rc)
		fprintf(stderr, "clustersim: warning: %s\n", perr.msg);
	if (report_html(dir, k, rc != 1, rc ? perr.msg : NULL, err))
		return 1;
	printf("plots: %s/%s, report: %s/report.html\n", dir,
	       k == REPORT_OPTIMIZE ? "" : "plots/", dir);
	return 0;
}

int cli_plot(const struct cli_args *a)
{
	const char *dir = a->operand;
	struct sim_error err = { .msg = "" };
	char *sub = path_join(dir, "optimize");
	enum report_kind k = report_kind_of(dir);
	enum report_kind ks = report_kind_of(sub);
	int code = 0;
	if (k == REPORT_NONE && ks != REPORT_OPTIMIZE) {
		fprintf(stderr, "clustersim: %s: not a results folder (no "
			"readable summary.csv, fill_summary.csv or "
			"replay_summary.csv, nor optimize/summary.csv)\n",
			dir);
		free(sub);
		return 2;
	}
	/* optimize holds the lock of the folder above its own. */
	char *top = k == REPORT_OPTIMIZE ? path_dirname(dir) : xstrdup(dir);
	struct outdir od;
	code = cli_lock_results(top, &od, &err);
	if (!code && k != REPORT_NONE)
		code = plot_one(dir, k, &err);
	if (!code && ks == REPORT_OPTIMIZE)
		code = plot_one(sub, ks, &err);
	outdir_unlock(&od);
	free(top);
	free(sub);
	return cli_report(code, &err);
}
