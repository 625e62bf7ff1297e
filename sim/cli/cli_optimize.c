/*
 * `clustersim optimize FILE`: one batch scheduled offline by the methods
 * of the experiment's "optimize" object (run/optimize.h).
 */
#include "cli/cli.h"
#include "run/optimize.h"

int cli_optimize(const struct cli_args *a)
{
	struct sim_error err = { .msg = "" };
	int code = optimize_main(a->operand, a->outdir, a->quiet, a->no_plots,
				 stdout, &err);
	return cli_report(code, &err);
}
