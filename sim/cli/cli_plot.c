/*
 * `clustersim plot DIR`: redraws the plots of a results folder
 * (report/out.h).  A problem of gnuplot is a warning, not a failure.
 */
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/outdir.h"
#include "base/util.h"
#include "report/out.h"

int cli_plot(const struct cli_args *a)
{
	const char *dir = a->operand;
	struct sim_error err = { .msg = "" };
	char *summary = xasprintf("%s/summary.csv", dir);
	bool ok = access(summary, R_OK) == 0;
	free(summary);
	if (!ok) {
		fprintf(stderr, "clustersim: %s: not a results folder "
			"(no readable summary.csv)\n", dir);
		return 2;
	}
	struct outdir od;
	int code = cli_lock_results(dir, &od, &err);
	if (code)
		return cli_report(code, &err);
	int rc = plot_results(dir, &err);
	outdir_unlock(&od);
	if (rc > 0)
		fprintf(stderr, "clustersim: warning: %s\n", err.msg);
	else if (rc == 0)
		printf("plots: %s/plots/\n", dir);
	return cli_report(rc < 0 ? 1 : 0, &err);
}
