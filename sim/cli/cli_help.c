/*
 * The two commands that only print: `clustersim help [CMD]` (from the
 * tables, cli_parse.c) and `clustersim version`.
 */
#include "cli/cli.h"
#include "base/version.h"

int cli_help(const struct cli_args *a)
{
	if (!a->operand) {
		cli_print_commands(stdout);
		return 0;
	}
	const struct cli_command *c = cli_find(a->operand);
	if (!c)
		return cli_usage_error(NULL, "unknown command", a->operand);
	cli_print_command(stdout, c);
	return 0;
}

int cli_version(const struct cli_args *a)
{
	printf("clustersim %s\n", CLUSTERSIM_VERSION);
	return 0;
}
