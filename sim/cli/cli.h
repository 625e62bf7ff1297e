/*
 * The command line as two tables and one parser.  cli_commands lists the
 * commands (name, operand, help, the function that runs it); cli_options
 * lists every option once (names, value, help line, the commands that
 * accept it, the field of struct cli_args it sets).  main.c finds the
 * command, cli_parse() fills a struct cli_args from the rest of the line,
 * and the command's function (one file each: cli_run.c, cli_sweep.c, ...)
 * turns it into the options of the wing below.  `clustersim help CMD` and
 * `CMD --help` print from the same tables.
 *
 * This wing is the one that prints and picks exit codes: 0 ok, 1 a run
 * failed (a disk full, a crash), 2 bad usage or input (an output folder
 * that cannot be used - a file in the way, not writable, in use by
 * another run - included).
 */
#ifndef CLUSTERSIM_CLI_H
#define CLUSTERSIM_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clustersim/clustersim.h"
#include "run/runner.h"
#include "sweep/sweep.h"

/* The commands, in the order `clustersim help` lists them. */
enum cli_cmd {
	CLI_RUN,
	CLI_VALIDATE,
	CLI_SWEEP,
	CLI_MERGE,
	CLI_PLOT,
	CLI_OPTIMIZE,
	CLI_POLICIES,
	CLI_BENCH_EVAL,
	CLI_PARALLELISM,
	CLI_VERSION,
	CLI_HELP,
	CLI_NCMDS
};

/* A set of commands, for cli_option.cmds. */
#define CLI_ON(cmd) (1u << (cmd))

/* --plugin may repeat this often. */
#define CLI_MAX_PLUGINS 64

/* A repeatable option's values, in order. */
struct cli_list {
	const char *v[CLI_MAX_PLUGINS]; /* the values */
	size_t n;                       /* how many */
};

/* --shard I/N. */
struct cli_shard {
	unsigned i;  /* this shard, 1-based */
	unsigned n;  /* number of shards; 0 = not sharded */
};

/* What a command line sets: the operand and every option's field. */
struct cli_args {
	const char *operand;         /* FILE, DIR or CMD; NULL = none given */
	const char *outdir;          /* -o; NULL = the file's "output" */
	const char *only;            /* --policy: this label or name only */
	struct cli_list plugins;     /* --plugin paths */
	bool quiet;                  /* --quiet: no report, no table */
	bool check;                  /* --check: the invariant checker */
	bool lenient;                /* --lenient: skip bad trace lines */
	bool no_plots;               /* --no-plots: no gnuplot */
	bool stats;                  /* --stats: timing and memory lines */
	bool allocations;            /* --allocations: allocations.csv */
	unsigned jobs;               /* -j; 0 = all cores */
	struct cli_shard shard;      /* --shard */
	bool dry_run;                /* --dry-run: check and list runs */
	bool slurm;                  /* --slurm: write the job array */
	struct sweep_slurm_opts sl;  /* --submit, --tasks, --time, ... */
	bool help;                   /* --help: usage, run nothing */
	uint64_t given;              /* bit k: cli_options[k] was given */
};

/* How an option's value is read and where it goes. */
enum cli_kind {
	CLI_FLAG,   /* no value; sets a bool */
	CLI_TEXT,   /* a const char * */
	CLI_COUNT,  /* an unsigned, a whole number in [lo, hi] */
	CLI_SHARD,  /* I/N with 1 <= I <= N, into a struct cli_shard */
	CLI_LIST,   /* appended to a struct cli_list */
};

struct cli_option {
	const char *name;    /* "--quiet" */
	const char *alias;   /* "-q", or NULL */
	const char *arg;     /* the value's name in help ("DIR"); NULL for
	                        a flag */
	const char *help;    /* what it does, one sentence */
	unsigned cmds;       /* CLI_ON() of each command that accepts it */
	enum cli_kind kind;  /* how the value is read */
	size_t at;           /* offsetof(struct cli_args, its field) */
	unsigned lo, hi;     /* CLI_COUNT: the range */
	const char *want;    /* CLI_COUNT, CLI_SHARD: what a good value is,
	                        for "-j needs WANT, got 'x'" */
};

struct cli_command {
	const char *name;      /* "run" */
	const char *alias[2];  /* other spellings ("--version"), or NULL */
	const char *operand;   /* "FILE", "DIR", "[CMD]"; NULL: none */
	const char *needs;     /* a missing operand: "an experiment file";
	                          NULL: the operand is optional */
	const char *summary;   /* one line, for the command list */
	const char *about;     /* a paragraph, for `help CMD` */
	int (*run)(const struct cli_args *a); /* returns the exit code */
};

extern const struct cli_command cli_commands[CLI_NCMDS];
extern const struct cli_option cli_options[];
extern const size_t cli_noptions;

/* The command named s (or an alias), or NULL. */
const struct cli_command *cli_find(const char *s);
/* Whether command c accepts option op. */
bool cli_accepts(const struct cli_command *c, const struct cli_option *op);

/* Whether option name (its long name, "--tasks") was on the line. */
bool cli_given(const struct cli_args *a, const char *name);
/*
 * For an option that applies only with or without others: refuses the
 * first option of names[] (NULL-ended) that was given, saying why
 * ("--tasks applies only with --slurm or --submit").  Returns 0 when none
 * was, else 2 (printed).
 */
int cli_refuse_given(const struct cli_command *c, const struct cli_args *a,
		     const char *const *names, const char *why);

/* The defaults of every option. */
void cli_args_init(struct cli_args *a);

/* cli_parse(): --help was given. */
#define CLI_PARSE_HELP (-1)
/*
 * Reads argv[0..argc) (what follows the command's name) into *a, which
 * cli_args_init() set.  Returns 0, CLI_PARSE_HELP, or 2 after printing
 * what is wrong (an unknown option, one that c does not accept, a bad or
 * missing value, a missing or extra operand).
 */
int cli_parse(const struct cli_command *c, int argc, char **argv,
	      struct cli_args *a);

/* Prints "clustersim: WHAT 'ARG'" (ARG "": WHAT alone) and where to look
 * (c's help, or the command list when c is NULL) on stderr; returns 2. */
int cli_usage_error(const struct cli_command *c, const char *what,
		    const char *arg);
/* Prints err on stderr when code is not 0 and err has a message; returns
 * code. */
int cli_report(int code, const struct sim_error *err);

/* The command list (`clustersim help`). */
void cli_print_commands(FILE *f);
/* One command's usage, about and options (`clustersim help CMD`). */
void cli_print_command(FILE *f, const struct cli_command *c);

/* The commands, one file each (help and version in cli_help.c). */
int cli_run(const struct cli_args *a);
int cli_validate(const struct cli_args *a);
int cli_sweep(const struct cli_args *a);
int cli_merge(const struct cli_args *a);
int cli_plot(const struct cli_args *a);
int cli_optimize(const struct cli_args *a);
int cli_policies(const struct cli_args *a);
int cli_bench_eval(const struct cli_args *a);
int cli_parallelism(const struct cli_args *a);
int cli_version(const struct cli_args *a);
int cli_help(const struct cli_args *a);

/* cli_merge.c: locks the results folder dir for merge and plot
 * (base/outdir.h); a dir that is not a folder is left to the command to
 * refuse.  Returns 0, or the exit code with err filled. */
struct outdir;
int cli_lock_results(const char *dir, struct outdir *od,
		     struct sim_error *err);

/* cli_run.c: the runner's options of run and validate. */
void cli_run_opts(const struct cli_args *a, struct run_opts *o);
/* cli_sweep.c: validate of a file with a "sweep" (every point). */
int cli_validate_sweep(const struct cli_args *a);

#endif
