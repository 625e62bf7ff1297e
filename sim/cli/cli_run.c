/*
 * `clustersim run FILE`: every policy x seed of an experiment file
 * (run/runner.h).
 */
#include "cli/cli.h"

void cli_run_opts(const struct cli_args *a, struct run_opts *o)
{
	*o = (struct run_opts){
		.file = a->operand,
		.outdir = a->outdir,
		.only = a->only,
		.plugins = (const char **)a->plugins.v,
		.nplugins = a->plugins.n,
		.quiet = a->quiet,
		.check = a->check,
		.lenient = a->lenient,
		.stats = a->stats,
		.no_plots = a->no_plots,
		.allocations = a->allocations,
		.jobs = a->jobs ? a->jobs : 1,
		.out = stdout,
		.msg = stderr,
	};
}

int cli_run(const struct cli_args *a)
{
	struct run_opts o;
	struct sim_error err = { .msg = "" };
	cli_run_opts(a, &o);
	return cli_report(runner_run(&o, &err), &err);
}
