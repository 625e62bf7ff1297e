/*
 * The command line's tables (sim/cli/cli.h) as a user meets them: `help`,
 * `help CMD` and `CMD --help` list what the tables hold (each command, and
 * each option a command accepts and no other), unknown commands and
 * options exit 2 with a message, each option lands in its field of
 * struct cli_args (its value after a space or an '='), and README.md shows the current `clustersim help`.
 * Runs the built binary ($CLUSTERSIM_BIN, default build/clustersim).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "testlib.h"
#include "cli/cli.h"

static char tmp[256];
static char bin[512];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "help");
	tl_cli_need_bin(bin);
}

static void teardown(void)
{
	tl_rmtree(tmp);
}
TestSuite(cli_help, .init = setup, .fini = teardown);

static char *slurp(const char *name)
{
	char *path = xasprintf("%s/%s", tmp, name);
	FILE *f = fopen(path, "rb");
	free(path);
	cr_assert(f, "%s", name);
	char *s = xmalloc(1 << 16);
	size_t n = fread(s, 1, (1 << 16) - 1, f);
	s[n] = '\0';
	fclose(f);
	return s;
}

/* Runs "clustersim ARGS" in tmp: the exit code, stdout and stderr
 * (caller frees). */
static int cli(const char *args, char **out, char **err)
{
	char *cmd = xasprintf("cd '%s' && '%s' %s >out.txt 2>err.txt", tmp,
			      bin, args);
	int st = system(cmd);
	free(cmd);
	*out = slurp("out.txt");
	*err = slurp("err.txt");
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* How the help shows an option: "\n  -q, --quiet" or "\n  -o DIR", then
 * a space or a newline. */
static bool lists(const char *help, const struct cli_option *op)
{
	char *line = xasprintf("\n  %s%s%s%s%s", op->alias ? op->alias : "",
			       op->alias ? ", " : "", op->name,
			       op->arg ? " " : "", op->arg ? op->arg : "");
	size_t n = strlen(line);
	bool found = false;
	for (const char *p = strstr(help, line); p && !found;
	     p = strstr(p + 1, line))
		found = p[n] == ' ' || p[n] == '\n';
	free(line);
	return found;
}

Test(cli_help, the_command_list_names_every_command)
{
	char *out, *err;
	cr_assert_eq(cli("help", &out, &err), 0, "%s", err);
	for (size_t i = 0; i < CLI_NCMDS; i++) {
		char *line = xasprintf("\n  %s", cli_commands[i].name);
		cr_expect(strstr(out, line), "help lacks %s:\n%s",
			  cli_commands[i].name, out);
		cr_expect(strstr(out, cli_commands[i].summary), "%s", out);
		free(line);
	}
	const char *same[] = { "--help", "-h" };
	for (size_t k = 0; k < ARRAY_SIZE(same); k++) {
		char *o2, *e2;
		cr_expect_eq(cli(same[k], &o2, &e2), 0, "%s", e2);
		cr_expect_str_eq(o2, out, "clustersim %s", same[k]);
		free(o2);
		free(e2);
	}
	free(out);
	free(err);
}

Test(cli_help, no_command_prints_the_list_and_exits_2)
{
	char *out, *err;
	cr_expect_eq(cli("", &out, &err), 2);
	cr_expect(strstr(err, "no command given"), "%s", err);
	cr_expect(strstr(err, "\n  sweep FILE"), "%s", err);
	free(out);
	free(err);
}

Test(cli_help, each_command_lists_the_options_it_accepts)
{
	for (size_t i = 0; i < CLI_NCMDS; i++) {
		const struct cli_command *c = &cli_commands[i];
		char *args = xasprintf("help %s", c->name), *out, *err;
		cr_assert_eq(cli(args, &out, &err), 0, "%s: %s", args, err);
		char *usage = xasprintf("usage: clustersim %s", c->name);
		cr_expect(strstr(out, usage), "%s:\n%s", args, out);
		for (size_t k = 0; k < cli_noptions; k++) {
			const struct cli_option *op = &cli_options[k];
			cr_expect_eq(lists(out, op), cli_accepts(c, op),
				     "%s %s %s:\n%s", args,
				     cli_accepts(c, op) ? "lacks" : "lists",
				     op->name, out);
		}
		/* CMD --help prints the same. */
		char *args2 = xasprintf("%s --help", c->name), *out2, *err2;
		cr_expect_eq(cli(args2, &out2, &err2), 0, "%s: %s", args2,
			     err2);
		cr_expect_str_eq(out2, out, "%s", args2);
		free(args2);
		free(out2);
		free(err2);
		free(usage);
		free(args);
		free(out);
		free(err);
	}
}

static void expect_usage_error(const char *args, const char *needle)
{
	char *out, *err;
	int rc = cli(args, &out, &err);
	cr_expect_eq(rc, 2, "clustersim %s: exit %d; stderr: %s", args, rc,
		     err);
	cr_expect(strstr(err, needle), "clustersim %s: stderr lacks '%s': %s",
		  args, needle, err);
	free(out);
	free(err);
}

Test(cli_help, unknown_commands_and_options_exit_2)
{
	expect_usage_error("frobnicate --help", "unknown command 'frobnicate'");
	expect_usage_error("help frobnicate", "unknown command 'frobnicate'");
	expect_usage_error("sweep s.json --bogus", "unknown option '--bogus'");
	expect_usage_error("policies -x", "unknown option '-x'");
	/* An option of another command. */
	expect_usage_error("run a.json --shard 1/2", "run takes no option "
			   "'--shard'");
	expect_usage_error("merge out --quiet", "merge takes no option "
			   "'--quiet'");
	expect_usage_error("optimize a.json --policy easy",
			   "(try 'clustersim help optimize')");
	expect_usage_error("sweep s.json -j 0", "-j needs a number of "
			   "processes from 1, got '0'");
	expect_usage_error("sweep s.json --shard 3/2", "--shard needs I/N "
			   "with 1 <= I <= N, got '3/2'");
	expect_usage_error("sweep s.json --time", "this option needs a "
			   "value: '--time'");
	expect_usage_error("bench-eval extra", "unexpected argument 'extra'");
	expect_usage_error("merge", "merge needs a results folder");
}

/* cli_parse() of a command line given as one string of words. */
static int parse(const char *cmd, char *line, struct cli_args *a)
{
	char *argv[32];
	int argc = 0;
	for (char *w = strtok(line, " "); w && argc < 32; w = strtok(NULL, " "))
		argv[argc++] = w;
	cli_args_init(a);
	return cli_parse(cli_find(cmd), argc, argv, a);
}

Test(cli_help, each_option_lands_in_its_field)
{
	struct cli_args a;
	char l1[] = "-j 3 --shard 2/5 --plugin a.so s.json --plugin b.so "
		    "--submit --time 2:00:00 --cpus-per-task 4 -q --check";
	cr_assert_eq(parse("sweep", l1, &a), 0);
	cr_expect_str_eq(a.operand, "s.json");
	cr_expect_eq(a.jobs, 3);
	cr_expect_eq(a.shard.i, 2);
	cr_expect_eq(a.shard.n, 5);
	cr_assert_eq(a.plugins.n, 2);
	cr_expect_str_eq(a.plugins.v[1], "b.so");
	cr_expect(a.sl.submit && !a.slurm && a.quiet && a.check);
	cr_expect_str_eq(a.sl.time, "2:00:00");
	cr_expect_str_eq(a.sl.mem, "2G");
	cr_expect_eq(a.sl.cpus, 4);
	char l2[] = "e.json -o r --policy easy --lenient --no-plots --stats";
	cr_assert_eq(parse("run", l2, &a), 0);
	cr_expect_str_eq(a.outdir, "r");
	cr_expect_str_eq(a.only, "easy");
	cr_expect(a.lenient && a.no_plots && a.stats && !a.quiet);
	char l3[] = "e.json --help --bogus";
	cr_expect_eq(parse("run", l3, &a), CLI_PARSE_HELP);
	cr_expect(cli_find("--version") == &cli_commands[CLI_VERSION]);
	cr_expect(cli_find("-h") == &cli_commands[CLI_HELP]);
}

Test(cli_help, every_value_may_follow_its_option_after_an_equals_sign)
{
	struct cli_args a;
	char l1[] = "-j=3 --shard=2/5 --plugin=a.so s.json --plugin b.so "
		    "--time=2:00:00 --mem=4G=x --tasks=7 --cpus-per-task=4 "
		    "-o=r --partition=p --account=acc";
	cr_assert_eq(parse("sweep", l1, &a), 0);
	cr_expect_str_eq(a.operand, "s.json");
	cr_expect_eq(a.jobs, 3);
	cr_expect_eq(a.shard.i, 2);
	cr_expect_eq(a.shard.n, 5);
	cr_assert_eq(a.plugins.n, 2);
	cr_expect_str_eq(a.plugins.v[0], "a.so");
	cr_expect_str_eq(a.sl.time, "2:00:00");
	cr_expect_str_eq(a.sl.mem, "4G=x", "only the first '=' splits");
	cr_expect_eq(a.sl.tasks, 7);
	cr_expect_eq(a.sl.cpus, 4);
	cr_expect_str_eq(a.outdir, "r");
	cr_expect_str_eq(a.sl.partition, "p");
	cr_expect_str_eq(a.sl.account, "acc");
	char l2[] = "--policy=easy e.json";
	cr_assert_eq(parse("run", l2, &a), 0);
	cr_expect_str_eq(a.only, "easy");
	/* Every option with a value, from the table. */
	for (size_t k = 0; k < cli_noptions; k++) {
		const struct cli_option *op = &cli_options[k];
		if (!op->arg)
			continue;
		unsigned cmd = 0;
		while (!(op->cmds & CLI_ON(cmd)))
			cmd++;
		const char *v = op->kind == CLI_SHARD ? "1/2"
				: op->kind == CLI_COUNT ? "2" : "x";
		char *line = xasprintf("%s=%s f", op->name, v);
		cr_expect_eq(parse(cli_commands[cmd].name, line, &a), 0,
			     "%s %s", cli_commands[cmd].name, line);
		free(line);
	}
}

Test(cli_help, an_equals_sign_needs_a_value_and_a_flag_takes_none)
{
	expect_usage_error("run a.json --quiet=yes", "this option takes no "
			   "value: '--quiet=yes'");
	expect_usage_error("run a.json -o=", "this option needs a value: "
			   "'-o='");
	expect_usage_error("sweep s.json -j=0", "-j needs a number of "
			   "processes from 1, got '0'");
	expect_usage_error("run a.json --bogus=1", "unknown option "
			   "'--bogus=1'");
	expect_usage_error("merge out --policy=easy", "merge takes no option "
			   "'--policy=easy'");
}

Test(cli_help, readme_shows_the_current_command_list)
{
	char *list = NULL, *readme = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&list, &n);
	cli_print_commands(f);
	fclose(f);
	f = fopen("README.md", "rb");
	cr_assert(f, "README.md (run from the repository root)");
	readme = xmalloc(1 << 20);
	size_t len = fread(readme, 1, (1 << 20) - 1, f);
	readme[len] = '\0';
	fclose(f);
	cr_expect(strstr(readme, list), "README.md lacks the output of "
		  "'clustersim help':\n%s", list);
	free(readme);
	free(list);
}
