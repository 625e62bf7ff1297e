/*
 * Every option of every command applies or is refused, never ignored.
 * The table below says, for each command, the options it takes and where
 * each one's effect is; the test runs every command with every option of
 * the option table (sim/cli/cli_table.c) and expects exit 2 with a
 * message for each one not listed here.  An option added to a command in
 * cli_table.c fails this test until it is listed here with its effect.
 * Options that apply only with or without others (sweep's Slurm options,
 * --dry-run) are refused in the other modes, and --check on a fill
 * experiment (which has no event engine to check).
 * Runs the built binary ($CLUSTERSIM_BIN, default build/clustersim).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/util.h"
#include "testlib.h"
#include "cli/cli.h"

static char tmp[256];
static char bin[512];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "options");
	tl_cli_need_bin(bin);
}

static void teardown(void)
{
	tl_rmtree(tmp);
}
TestSuite(cli_options, .init = setup, .fini = teardown);

/* The options each command takes, and where the effect of each is. */
static const struct {
	enum cli_cmd cmd;
	const char *opts[24]; /* NULL-ended */
} takes[] = {
	/* runner_run(): each field of struct run_opts. */
	{ CLI_RUN, { "-o", "--policy", "--plugin", "--quiet", "--check",
		     "--lenient", "--no-plots", "--allocations", "--stats", "-j",
		     "--help" } },
	/* What is checked: the policy label, the plug-ins; the ok line. */
	{ CLI_VALIDATE, { "--policy", "--plugin", "--quiet", "--help" } },
	/* sweep_opts and the Slurm scripts; per mode, see refuse_unused()
	 * in cli_sweep.c and the tests below. */
	{ CLI_SWEEP, { "-o", "--plugin", "--quiet", "--check", "--lenient",
		       "--no-plots", "--stats", "-j", "--shard", "--dry-run",
		       "--slurm", "--submit", "--tasks", "--time", "--mem",
		       "--cpus-per-task", "--partition", "--account",
		       "--help" } },
	{ CLI_MERGE, { "--no-plots", "--help" } },
	{ CLI_PLOT, { "--help" } },
	/* optimize_main(): the folder, the table, the plots. */
	{ CLI_OPTIMIZE, { "-o", "--quiet", "--no-plots", "--help" } },
	{ CLI_POLICIES, { "--plugin", "--help" } },
	{ CLI_BENCH_EVAL, { "--help" } },
	{ CLI_PARALLELISM, { "--help" } },
	{ CLI_VERSION, { "--help" } },
	{ CLI_HELP, { "--help" } },
};

static bool listed(enum cli_cmd cmd, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(takes); i++)
		for (size_t k = 0; takes[i].cmd == cmd && takes[i].opts[k]; k++)
			if (!strcmp(takes[i].opts[k], name))
				return true;
	return false;
}

/* Runs "clustersim ARGS" in tmp: the exit code, stderr (caller frees). */
static int cli(const char *args, char **err)
{
	char *cmd = xasprintf("cd '%s' && '%s' %s >out.txt 2>err.txt", tmp,
			      bin, args);
	int st = system(cmd);
	free(cmd);
	char *path = xasprintf("%s/err.txt", tmp);
	FILE *f = fopen(path, "rb");
	free(path);
	cr_assert(f);
	*err = xmalloc(8192);
	size_t n = fread(*err, 1, 8191, f);
	(*err)[n] = '\0';
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect_refused(const char *args, const char *needle)
{
	char *err;
	int rc = cli(args, &err);
	cr_expect_eq(rc, 2, "clustersim %s: exit %d, want 2; stderr: %s",
		     args, rc, err);
	cr_expect(strstr(err, needle), "clustersim %s: stderr lacks '%s': %s",
		  args, needle, err);
	free(err);
}

Test(cli_options, every_command_takes_only_the_options_that_apply)
{
	for (size_t i = 0; i < CLI_NCMDS; i++) {
		const struct cli_command *c = &cli_commands[i];
		for (size_t k = 0; k < cli_noptions; k++) {
			const struct cli_option *op = &cli_options[k];
			bool want = listed((enum cli_cmd)i, op->name);
			cr_expect_eq(cli_accepts(c, op), want, "%s %s: %s",
				     c->name, op->name, want ? "refused, but "
				     "it applies" : "taken, but listed "
				     "nowhere as applying");
			if (want)
				continue;
			char *args = xasprintf("%s %s %s%s", c->name,
					       c->operand ? "x.json" : "",
					       op->name, op->arg ? " 1" : "");
			char *needle = xasprintf("%s takes no option '%s'",
						 c->name, op->name);
			expect_refused(args, needle);
			free(needle);
			free(args);
		}
	}
}

Test(cli_options, validate_refuses_what_only_a_run_uses)
{
	static const char *const runs_only[] = {
		"-o out", "--check", "--lenient", "--no-plots", "--stats" };
	for (size_t k = 0; k < ARRAY_SIZE(runs_only); k++) {
		char *args = xasprintf("validate e.json %s", runs_only[k]);
		char name[32];
		sscanf(runs_only[k], "%31s", name);
		char *needle = xasprintf("validate takes no option '%s'", name);
		expect_refused(args, needle);
		free(needle);
		free(args);
	}
}

Test(cli_options, sweep_refuses_the_options_its_mode_does_not_use)
{
	static const char *const slurm_only[] = {
		"--tasks 4", "--time 10", "--mem 1G", "--cpus-per-task 2",
		"--partition p", "--account a" };
	for (size_t k = 0; k < ARRAY_SIZE(slurm_only); k++) {
		char *args = xasprintf("sweep s.json %s", slurm_only[k]);
		expect_refused(args, "applies only with --slurm or --submit");
		free(args);
	}
	static const char *const not_slurm[] = {
		"-j 2", "--shard 1/2", "--dry-run", "--quiet", "--stats" };
	for (size_t k = 0; k < ARRAY_SIZE(not_slurm); k++) {
		char *args = xasprintf("sweep s.json --slurm %s", not_slurm[k]);
		expect_refused(args, "does not apply with --slurm or --submit");
		free(args);
		args = xasprintf("sweep s.json %s --submit", not_slurm[k]);
		expect_refused(args, "does not apply with --slurm or --submit");
		free(args);
	}
	static const char *const not_dry[] = {
		"-o o", "-j 2", "--quiet", "--check", "--lenient", "--no-plots",
		"--stats" };
	for (size_t k = 0; k < ARRAY_SIZE(not_dry); k++) {
		char *args = xasprintf("sweep s.json --dry-run %s", not_dry[k]);
		expect_refused(args, "does not apply with --dry-run");
		free(args);
	}
}

/* Files and commands in tmp (testlib.h). */
#define put(name, text) tl_put(tmp, name, text)

Test(cli_options, check_is_refused_on_a_fill_experiment)
{
	put("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
			 "n0,8000,1000,2,V100\n");
	put("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
			"p0,1000,10,1,500\n");
	put("f.json", "{ \"fill\": { \"nodes\": \"nodes.csv\", \"pods\": "
		      "\"pods.csv\" }, \"policies\": [ { \"name\": "
		      "\"fgd\" } ], \"output\": \"out\" }\n");
	expect_refused("run f.json --check --no-plots", "--check does not "
		       "apply to a fill or replay experiment");
	expect_refused("run f.json -j 2 --no-plots", "-j 2 does not apply "
		       "to a fill or replay experiment");
	char *err;
	cr_expect_eq(cli("run f.json --no-plots -q", &err), 0, "%s", err);
	free(err);
}
