/*
 * `clustersim merge DIR`: a sweep's summary.csv, failed.csv and plots
 * rebuilt from its run folders (sweep/sweep.h), holding the folder's lock
 * (base/outdir.h) as a run does.  Exits 1 while runs are failed or
 * missing.
 */
#include <sys/stat.h>

#include "base/outdir.h"
#include "base/util.h"
#include "cli/cli.h"

int cli_lock_results(const char *dir, struct outdir *od,
		     struct sim_error *err)
{
	struct stat st;
	*od = (struct outdir){ .fd = -1 };
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0; /* the command says what is wrong */
	int rc = outdir_lock(od, dir, false, err);
	return rc == -SIM_EINPUT ? 2 : rc ? 1 : 0;
}

int cli_merge(const struct cli_args *a)
{
	const char *dir = a->operand;
	struct sim_error err = { .msg = "" }, warn;
	struct outdir od;
	size_t nfailed = 0, nmissing = 0;
	int code = cli_lock_results(dir, &od, &err);
	if (code)
		return cli_report(code, &err);
	code = sweep_merge(dir, a->no_plots, &nfailed, &nmissing, &warn, &err);
	outdir_unlock(&od);
	if (code)
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
