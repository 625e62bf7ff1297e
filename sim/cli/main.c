/*
 * clustersim's main: finds the command in the table (cli_table.c), reads
 * its options, runs it.  Everything else of the command line is in cli.h.
 */
#include <stdio.h>

#include "cli/cli.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "clustersim: no command given\n\n");
		cli_print_commands(stderr);
		return 2;
	}
	const struct cli_command *c = cli_find(argv[1]);
	if (!c)
		return cli_usage_error(NULL, "unknown command", argv[1]);
	struct cli_args a;
	cli_args_init(&a);
	int rc = cli_parse(c, argc - 2, argv + 2, &a);
	if (rc == CLI_PARSE_HELP) {
		cli_print_command(stdout, c);
		return 0;
	}
	return rc ? rc : c->run(&a);
}
