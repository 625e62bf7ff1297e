/*
 * The tables of the command line (cli.h): every command and every option,
 * once.  The parser, `clustersim help` and `CMD --help` read them, so a
 * new option is one row here and a field of struct cli_args; a new
 * command is one row here and its file.
 */
#include <assert.h>
#include <string.h>

#include "cli/cli.h"

#define RUN    CLI_ON(CLI_RUN)
#define RUNS   (RUN | CLI_ON(CLI_VALIDATE))
#define SWEEP  CLI_ON(CLI_SWEEP)
#define ALL    ((1u << CLI_NCMDS) - 1)
#define AT(f)  offsetof(struct cli_args, f)

const struct cli_command cli_commands[CLI_NCMDS] = {
	[CLI_RUN] = {
		.name = "run", .operand = "FILE",
		.needs = "an experiment file",
		.summary = "run an experiment file (results under its "
			   "\"output\")",
		.about = "Runs every policy with every seed of an experiment "
			 "file, then writes each run's results, summary.csv, "
			 "manifest.json, the plots and report.html under the "
			 "file's \"output\". Bad input fails before any run. A file "
			 "with a \"sweep\" is run by 'clustersim sweep'. "
			 "Experiment files are described in "
			 "experiments/README.md.",
		.run = cli_run,
	},
	[CLI_VALIDATE] = {
		.name = "validate", .operand = "FILE",
		.needs = "an experiment file",
		.summary = "check an experiment file without running it",
		.about = "Loads and checks an experiment file (every point "
			 "of a sweep), its trace and its policies, and runs "
			 "nothing. Takes the options of run that change what "
			 "is checked: --policy, --plugin and --quiet.",
		.run = cli_validate,
	},
	[CLI_SWEEP] = {
		.name = "sweep", .operand = "FILE",
		.needs = "an experiment file",
		.summary = "run every point of a sweep",
		.about = "Runs every point x policy x seed of a file with a "
			 "\"sweep\", each in its own folder under the output, "
			 "on local processes (-j), under mpirun (rank 0 hands "
			 "runs out to the other ranks), as a shard (--shard) "
			 "or as a Slurm job array (--slurm), then merges their "
			 "rows into summary.csv. A run whose folder is complete "
			 "is skipped, so a stopped sweep resumes. Sweeps are "
			 "described in experiments/README.md.",
		.run = cli_sweep,
	},
	[CLI_MERGE] = {
		.name = "merge", .operand = "DIR",
		.needs = "a results folder",
		.summary = "rebuild a sweep's summary.csv and plots",
		.about = "Rebuilds summary.csv, failed.csv, the plots and "
			 "report.html of a sweep's results folder from its run folders (after "
			 "--shard or --slurm). Exits 1 while runs are failed "
			 "or missing.",
		.run = cli_merge,
	},
	[CLI_PLOT] = {
		.name = "plot", .operand = "DIR",
		.needs = "a results folder",
		.summary = "redraw the plots of a results folder",
		.about = "Redraws the plots of the results folder DIR, of "
			 "any kind (run, sweep, fill, replay, optimize; a "
			 "folder that holds optimize/ has both redrawn), "
			 "from its files (gnuplot), and rewrites its "
			 "report.html.",
		.run = cli_plot,
	},
	[CLI_OPTIMIZE] = {
		.name = "optimize", .operand = "FILE",
		.needs = "an experiment file",
		.summary = "schedule a batch offline with greedy, ga, sa, ilp",
		.about = "Schedules one batch of the experiment's workload "
			 "offline with the methods of its \"optimize\" object "
			 "and writes the scores, lower bound, schedules and "
			 "convergence under OUTPUT/optimize/.",
		.run = cli_optimize,
	},
	[CLI_POLICIES] = {
		.name = "policies",
		.summary = "list the policies, their summaries and parameters",
		.about = "Lists the built-in policies and those of the "
			 "plug-ins given, with their summaries and parameters "
			 "(names, types, defaults).",
		.run = cli_policies,
	},
	[CLI_BENCH_EVAL] = {
		.name = "bench-eval",
		.summary = "evaluations/s of the batch evaluator",
		.about = "Times the CPU backend of the batch evaluator on "
			 "synthetic 100- and 1,000-job batches on 64 nodes x 8 "
			 "GPUs, pooled and node-level, on one thread and on "
			 "all (make bench).",
		.run = cli_bench_eval,
	},
	[CLI_PARALLELISM] = {
		.name = "parallelism", .operand = "[SPEC]",
		.summary = "large-model step time, memory and the Megatron "
			   "check",
		.about = "Without SPEC, prints the validation of the "
			 "large-model training model against Megatron-LM "
			 "(Narayanan et al. SC'21): Table 1 beside the paper "
			 "with the error per row, the sensitivity studies and "
			 "the end-to-end training times. With SPEC, a "
			 "comma-separated KEY=VALUE list such as "
			 "model=gpt3-175b,gpus=1024,tp=8,pp=16,batch=1536, "
			 "prints that shape's memory per GPU and step time on "
			 "A100-80GB; without tp and pp it picks the smallest "
			 "shape that fits. docs/parallelism.md has the keys "
			 "and the model.",
		.run = cli_parallelism,
	},
	[CLI_VERSION] = {
		.name = "version", .alias = { "--version" },
		.summary = "print the version",
		.about = "Prints the version.",
		.run = cli_version,
	},
	[CLI_HELP] = {
		.name = "help", .alias = { "--help", "-h" },
		.operand = "[CMD]",
		.summary = "list the commands, or CMD's options",
		.about = "Without CMD, lists the commands; with it, prints "
			 "CMD's usage and options (as 'clustersim CMD "
			 "--help' does).",
		.run = cli_help,
	},
};

const struct cli_option cli_options[] = {
	{ .name = "-o", .arg = "DIR",
	  .help = "write results to DIR (relative to the current folder) "
		  "instead of the file's \"output\"",
	  .cmds = RUN | SWEEP | CLI_ON(CLI_OPTIMIZE),
	  .kind = CLI_TEXT, .at = AT(outdir) },
	{ .name = "--policy", .arg = "NAME",
	  .help = "run only the policy with this label or name",
	  .cmds = RUNS, .kind = CLI_TEXT, .at = AT(only) },
	{ .name = "--plugin", .arg = "FILE",
	  .help = "load a policy plug-in (.so); may repeat",
	  .cmds = RUNS | SWEEP | CLI_ON(CLI_POLICIES),
	  .kind = CLI_LIST, .at = AT(plugins) },
	{ .name = "--quiet", .alias = "-q",
	  .help = "no report, progress line or summary table",
	  .cmds = RUNS | SWEEP | CLI_ON(CLI_OPTIMIZE),
	  .kind = CLI_FLAG, .at = AT(quiet) },
	{ .name = "--check", .help = "run the invariant checker (slow)",
	  .cmds = RUN | SWEEP, .kind = CLI_FLAG, .at = AT(check) },
	{ .name = "--lenient",
	  .help = "skip malformed trace lines, counting them",
	  .cmds = RUN | SWEEP, .kind = CLI_FLAG, .at = AT(lenient) },
	{ .name = "--no-plots", .help = "do not call gnuplot",
	  .cmds = RUN | SWEEP | CLI_ON(CLI_MERGE) | CLI_ON(CLI_OPTIMIZE),
	  .kind = CLI_FLAG, .at = AT(no_plots) },
	{ .name = "--allocations",
	  .help = "write each run's allocations.csv (the nodes and GPUs of "
		  "every placement interval) and draw its Gantt chart",
	  .cmds = RUN, .kind = CLI_FLAG, .at = AT(allocations) },
	{ .name = "--stats",
	  .help = "print timing and memory lines (used by make bench)",
	  .cmds = RUN | SWEEP, .kind = CLI_FLAG, .at = AT(stats) },
	{ .name = "-j", .alias = "--jobs", .arg = "N",
	  .help = "N runs at a time, each in its own process, with the "
		  "results of one at a time (run: default 1; sweep: "
		  "default all cores; under mpirun, rank 0 hands runs out "
		  "to the other ranks)",
	  .cmds = RUN | SWEEP, .kind = CLI_COUNT, .at = AT(jobs),
	  .lo = 1, .hi = 4096, .want = "a number of processes from 1" },
	{ .name = "--shard", .arg = "I/N",
	  .help = "run only runs I, I+N, I+2N, ... (1-based), no merge",
	  .cmds = SWEEP, .kind = CLI_SHARD, .at = AT(shard),
	  .want = "I/N with 1 <= I <= N" },
	{ .name = "--dry-run", .help = "check every point and list the runs",
	  .cmds = SWEEP, .kind = CLI_FLAG, .at = AT(dry_run) },
	{ .name = "--slurm",
	  .help = "write OUT/slurm/sweep.sbatch (a job array) and "
		  "OUT/slurm/merge.sbatch",
	  .cmds = SWEEP, .kind = CLI_FLAG, .at = AT(slurm) },
	{ .name = "--submit",
	  .help = "as --slurm, and submit both (the merge after the array)",
	  .cmds = SWEEP, .kind = CLI_FLAG, .at = AT(sl.submit) },
	{ .name = "--tasks", .arg = "N",
	  .help = "the job array's size (default: the runs, at most 100)",
	  .cmds = SWEEP, .kind = CLI_COUNT, .at = AT(sl.tasks),
	  .lo = 1, .hi = 1000000, .want = "a number from 1" },
	{ .name = "--time", .arg = "T",
	  .help = "each task's time limit (default 1:00:00)",
	  .cmds = SWEEP, .kind = CLI_TEXT, .at = AT(sl.time) },
	{ .name = "--mem", .arg = "M",
	  .help = "each task's memory (default 2G)",
	  .cmds = SWEEP, .kind = CLI_TEXT, .at = AT(sl.mem) },
	{ .name = "--cpus-per-task", .arg = "C",
	  .help = "each task's CPUs; it runs -j C (default 1)",
	  .cmds = SWEEP, .kind = CLI_COUNT, .at = AT(sl.cpus),
	  .lo = 1, .hi = 4096, .want = "a number from 1" },
	{ .name = "--partition", .arg = "P",
	  .help = "the Slurm partition of the tasks",
	  .cmds = SWEEP, .kind = CLI_TEXT, .at = AT(sl.partition) },
	{ .name = "--account", .arg = "A",
	  .help = "the Slurm account of the tasks",
	  .cmds = SWEEP, .kind = CLI_TEXT, .at = AT(sl.account) },
	{ .name = "--help", .alias = "-h",
	  .help = "print this command's usage and options",
	  .cmds = ALL, .kind = CLI_FLAG, .at = AT(help) },
};

const size_t cli_noptions = sizeof(cli_options) / sizeof(cli_options[0]);

static_assert(sizeof(cli_commands) / sizeof(cli_commands[0]) == CLI_NCMDS,
	      "one row per command");
static_assert(CLI_NCMDS <= 32, "cli_option.cmds has a bit per command");
static_assert(sizeof(cli_options) / sizeof(cli_options[0]) <= 64,
	      "cli_args.given has a bit per option");

void cli_args_init(struct cli_args *a)
{
	memset(a, 0, sizeof(*a));
	a->sl.time = "1:00:00";
	a->sl.mem = "2G";
	a->sl.cpus = 1;
}
