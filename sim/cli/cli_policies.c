/*
 * `clustersim policies`: the built-in policies and those of the plug-ins
 * given, with summaries and parameters (run/runner.h).
 */
#include "cli/cli.h"

int cli_policies(const struct cli_args *a)
{
	struct sim_error err = { .msg = "" };
	int code = runner_list_policies((const char **)a->plugins.v,
					a->plugins.n, stdout, &err);
	return cli_report(code, &err);
}
