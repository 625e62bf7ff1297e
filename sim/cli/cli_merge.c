/*
 * `clustersim merge DIR`: a sweep's summary.csv, failed.csv and plots
 * rebuilt from its run folders (sweep/sweep.h).  Exits 1 while runs are
 * failed or missing.
 */
#include "cli/cli.h"

int cli_merge(const struct cli_args *a)
{
	const char *dir = a->operand;
	struct sim_error err = { .msg = "" }, warn;
	size_t nfailed = 0, nmissing = 0;
	if (sweep_merge(dir, a->no_plots, &nfailed, &nmissing, &warn, &err))
		return cli_report(2, &err);
	if (warn.msg[0])
		fprintf(stderr, "clustersim: warning: %s\n", warn.msg);
	printf("merged: %s/summary.csv", dir);
	if (nfailed)
		printf(", %zu failed runs in %s/failed.csv", nfailed, dir);
	if (nmissing)
		printf(", %zu runs not run yet", nmissing);
	printf("\n");
	return nfailed || nmissing ? 1 : 0;
}
