/*
 * The one parser of the command line and the help printed from the
 * tables (cli.h, cli_table.c).  An argument that starts with '-' (and is
 * not "-" alone) is an option of cli_options; any other is the command's
 * operand.  Options and the operand may come in any order.  An option's
 * value follows it as the next argument or after '=' ("-o DIR",
 * "-o=DIR", "--policy=easy"); a flag given "=value" is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/util.h"

/* Help text wraps at this column. */
#define WIDTH 78
/* Option help starts at this column. */
#define HELP_COL 22

const struct cli_command *cli_find(const char *s)
{
	for (size_t i = 0; i < CLI_NCMDS; i++) {
		const struct cli_command *c = &cli_commands[i];
		if (!strcmp(s, c->name))
			return c;
		for (size_t k = 0; k < ARRAY_SIZE(c->alias); k++)
			if (c->alias[k] && !strcmp(s, c->alias[k]))
				return c;
	}
	return NULL;
}

bool cli_accepts(const struct cli_command *c, const struct cli_option *op)
{
	return op->cmds & CLI_ON(c - cli_commands);
}

static const struct cli_option *find_option(const char *s)
{
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct cli_option *op = &cli_options[i];
		if (!strcmp(s, op->name) || (op->alias && !strcmp(s, op->alias)))
			return op;
	}
	return NULL;
}

int cli_usage_error(const struct cli_command *c, const char *what,
		    const char *arg)
{
	fprintf(stderr, "clustersim: %s%s%s%s\n(try 'clustersim help%s%s')\n",
		what, *arg ? " '" : "", arg, *arg ? "'" : "", c ? " " : "",
		c ? c->name : "");
	return 2;
}

int cli_report(int code, const struct sim_error *err)
{
	if (code != 0 && err->msg[0])
		fprintf(stderr, "clustersim: %s\n", err->msg);
	return code;
}

bool cli_given(const struct cli_args *a, const char *name)
{
	const struct cli_option *op = find_option(name);
	SIM_ASSERT(op);
	return a->given >> (op - cli_options) & 1;
}

int cli_refuse_given(const struct cli_command *c, const struct cli_args *a,
		     const char *const *names, const char *why)
{
	for (size_t k = 0; names[k]; k++) {
		if (!cli_given(a, names[k]))
			continue;
		char *what = xasprintf("%s %s", names[k], why);
		cli_usage_error(c, what, "");
		free(what);
		return 2;
	}
	return 0;
}

/* ---- parsing ----------------------------------------------------------- */

/* A whole number in [lo, hi] from the whole of s. */
static bool parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || v < lo || v > hi)
		return false;
	*out = (unsigned)v;
	return true;
}

/* I/N with 1 <= I <= N <= 1,000,000. */
static bool parse_shard(const char *s, struct cli_shard *sh)
{
	const char *slash = strchr(s, '/');
	if (!slash)
		return false;
	char *head = xasprintf("%.*s", (int)(slash - s), s);
	bool ok = parse_uint(slash + 1, 1, 1000000, &sh->n) &&
		  parse_uint(head, 1, sh->n, &sh->i);
	free(head);
	return ok;
}

/* Stores option op's value v (NULL for a flag) in its field of *a.
 * Returns 0 or 2 (printed). */
static int store(const struct cli_command *c, const struct cli_option *op,
		 const char *v, struct cli_args *a)
{
	void *field = (char *)a + op->at;
	bool ok = true;
	switch (op->kind) {
	case CLI_FLAG:
		*(bool *)field = true;
		break;
	case CLI_TEXT:
		*(const char **)field = v;
		break;
	case CLI_COUNT:
		ok = parse_uint(v, op->lo, op->hi, field);
		break;
	case CLI_SHARD:
		ok = parse_shard(v, field);
		break;
	case CLI_LIST: {
		struct cli_list *l = field;
		if (l->n == ARRAY_SIZE(l->v))
			return cli_usage_error(c, "too many plug-ins", "");
		l->v[l->n++] = v;
		break;
	}
	}
	if (ok)
		return 0;
	char *what = xasprintf("%s needs %s, got", op->name, op->want);
	int rc = cli_usage_error(c, what, v);
	free(what);
	return rc;
}

int cli_parse(const struct cli_command *c, int argc, char **argv,
	      struct cli_args *a)
{
	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		if (s[0] != '-' || !s[1]) {
			if (!c->operand || a->operand)
				return cli_usage_error(c, "unexpected argument",
						       s);
			a->operand = s;
			continue;
		}
		/* --opt=value (or -o=value): the name before '='. */
		const char *eq = strchr(s, '=');
		char *name = eq ? xasprintf("%.*s", (int)(eq - s), s) : NULL;
		const struct cli_option *op = find_option(name ? name : s);
		free(name);
		if (!op)
			return cli_usage_error(c, "unknown option", s);
		if (!cli_accepts(c, op)) {
			char *what = xasprintf("%s takes no option", c->name);
			cli_usage_error(c, what, s);
			free(what);
			return 2;
		}
		if (eq && op->arg && !eq[1])
			return cli_usage_error(c, "this option needs a value:",
					       s);
		if (eq && !op->arg)
			return cli_usage_error(c, "this option takes no "
					       "value:", s);
		if (op->arg && !eq && i + 1 == argc)
			return cli_usage_error(c, "this option needs a value:",
					       s);
		const char *v = eq ? eq + 1 : op->arg ? argv[++i] : NULL;
		if (store(c, op, v, a))
			return 2;
		a->given |= UINT64_C(1) << (op - cli_options);
		if (a->help)
			return CLI_PARSE_HELP;
	}
	if (!a->operand && c->needs) {
		char *what = xasprintf("%s needs %s", c->name, c->needs);
		cli_usage_error(c, what, "");
		free(what);
		return 2;
	}
	return 0;
}

/* ---- help -------------------------------------------------------------- */

/* Prints text from column col (the cursor is there), wrapped at WIDTH,
 * continued lines indented to indent; then a newline. */
static void wrap(FILE *f, const char *text, int col, int indent)
{
	for (bool first = true; *text; first = false) {
		size_t word = strcspn(text, " ");
		if (!first && col + 1 + (int)word > WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)word, text);
		col += (int)word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

void cli_print_commands(FILE *f)
{
	fprintf(f, "usage: clustersim <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < CLI_NCMDS; i++) {
		const struct cli_command *c = &cli_commands[i];
		int n = fprintf(f, "  %s%s%s", c->name, c->operand ? " " : "",
				c->operand ? c->operand : "");
		fprintf(f, "%*s", n < 18 ? 18 - n : 1, "");
		wrap(f, c->summary, n < 18 ? 18 : n + 1, 18);
	}
	fprintf(f, "\n'clustersim help CMD' or 'clustersim CMD --help' prints "
		"a command's options.\nExit codes: 0 ok, 1 a run failed, 2 bad "
		"usage or input.\nExperiment files are described in "
		"experiments/README.md.\n");
}

void cli_print_command(FILE *f, const struct cli_command *c)
{
	fprintf(f, "usage: clustersim %s%s%s [options]\n\n", c->name,
		c->operand ? " " : "", c->operand ? c->operand : "");
	wrap(f, c->about, 0, 0);
	fprintf(f, "\noptions:\n");
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct cli_option *op = &cli_options[i];
		if (!cli_accepts(c, op))
			continue;
		int n = fprintf(f, "  %s%s%s%s%s", op->alias ? op->alias : "",
				op->alias ? ", " : "", op->name,
				op->arg ? " " : "", op->arg ? op->arg : "");
		if (n + 1 > HELP_COL)
			fprintf(f, "\n%*s", HELP_COL, "");
		else
			fprintf(f, "%*s", HELP_COL - n, "");
		wrap(f, op->help, HELP_COL, HELP_COL);
	}
	fprintf(f, "\nA value may also follow its option after '=' "
		"(-o=DIR, --policy=NAME).\n");
}
