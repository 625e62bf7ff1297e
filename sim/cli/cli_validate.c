/*
 * `clustersim validate FILE`: the checks of run (or of every point of a
 * sweep, cli_sweep.c), and no run.
 */
#include "cli/cli.h"

int cli_validate(const struct cli_args *a)
{
	if (sweep_file_has_sweep(a->operand)) {
		if (a->only)
			return cli_usage_error(&cli_commands[CLI_VALIDATE],
					       "--policy does not apply to a "
					       "sweep file", a->operand);
		return cli_validate_sweep(a);
	}
	struct run_opts o;
	struct sim_error err = { .msg = "" };
	cli_run_opts(a, &o);
	o.validate_only = true;
	return cli_report(runner_run(&o, &err), &err);
}
