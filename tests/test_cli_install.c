/*
 * What make install ships beside the binary stays in step with the
 * option table (sim/cli/cli_table.c): the man page docs/clustersim.1
 * names every command and every option, and says which commands take
 * each; the bash completion scripts/clustersim.bash completes every
 * command, and for each command exactly the options it takes.  The
 * install itself (DESTDIR, pkg-config, a plug-in built out of tree) is
 * scripts/check-install.sh, run by make test.  Run from the repository
 * root.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cli/cli.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "%s (run from the repository root)", path);
	char *s = xmalloc(1 << 20);
	size_t n = fread(s, 1, (1 << 20) - 1, f);
	s[n] = '\0';
	fclose(f);
	return s;
}

/* s as roff writes it: each '-' as "\-". */
static char *roff(const char *s)
{
	char *r = xmalloc(2 * strlen(s) + 1), *p = r;
	for (; *s; s++) {
		if (*s == '-')
			*p++ = '\\';
		*p++ = *s;
	}
	*p = '\0';
	return r;
}

/* The man page's entry of option op: from its ".TP" line with the name
 * to the next ".TP" or ".SH" (caller frees), or NULL. */
static char *man_entry(const char *man, const struct cli_option *op)
{
	char *name = roff(op->alias ? op->alias : op->name);
	const char *p = NULL;
	for (const char *q = strstr(man, ".TP\n"); q && !p;
	     q = strstr(q + 1, ".TP\n")) {
		const char *line = q + 4;
		size_t n = strcspn(line, "\n");
		const char *at = strstr(line, name);
		size_t k = strlen(name);
		if (at && at < line + n && (at[k] == ' ' || at[k] == '"' ||
					    at[k] == '\n'))
			p = line;
	}
	free(name);
	if (!p)
		return NULL;
	const char *end = strstr(p, "\n.TP\n");
	const char *sh = strstr(p, "\n.SH");
	if (!end || (sh && sh < end))
		end = sh;
	return xasprintf("%.*s", (int)(end - p), p);
}

Test(cli_install, the_man_page_has_every_command_and_option)
{
	char *man = slurp("docs/clustersim.1");
	for (size_t i = 0; i < CLI_NCMDS; i++) {
		char *name = roff(cli_commands[i].name);
		char *b = xasprintf("\n.B %s\n", name);
		char *bi = xasprintf("\n.BI %s \"", name);
		char *br = xasprintf("\n.BR %s \"", name);
		cr_expect(strstr(man, b) || strstr(man, bi) || strstr(man, br),
			  "clustersim.1 lacks the command %s", name);
		free(b);
		free(bi);
		free(br);
		free(name);
	}
	for (size_t k = 0; k < cli_noptions; k++) {
		const struct cli_option *op = &cli_options[k];
		char *entry = man_entry(man, op);
		cr_expect(entry, "clustersim.1 lacks the option %s", op->name);
		if (!entry)
			continue;
		char *name = roff(op->name);
		cr_expect(strstr(entry, name), "%s: %s", op->name, entry);
		free(name);
		/* The commands that take it ("Every command." for all). */
		bool all = true;
		for (size_t i = 0; i < CLI_NCMDS; i++)
			all = all && cli_accepts(&cli_commands[i], op);
		for (size_t i = 0; i < CLI_NCMDS && !all; i++) {
			const struct cli_command *c = &cli_commands[i];
			char *w = roff(c->name);
			char *at = strstr(entry, "\n");
			bool named = false;
			size_t n = strlen(w);
			for (char *p = at ? strstr(at, w) : NULL; p && !named;
			     p = strstr(p + 1, w))
				named = (p[-1] == '\n' || p[-1] == ' ') &&
					(p[n] == ',' || p[n] == '.');
			cr_expect_eq(named, cli_accepts(c, op), "clustersim.1: "
				     "%s %s %s", op->name, named ? "names" :
				     "does not name", c->name);
			free(w);
		}
		if (all)
			cr_expect(strstr(entry, "Every command."), "%s",
				  op->name);
		free(entry);
	}
	free(man);
}

/* The words of the completion's "CMD) opts=\"...\"" line, or of its
 * "cmds=\"...\"" line when cmd is NULL (caller frees). */
static char *words_of(const char *text, const char *cmd)
{
	char *head = cmd ? xasprintf("\t%s) opts=\"", cmd)
			 : xstrdup("local cmds=\"");
	const char *p = strstr(text, head);
	cr_assert(p, "scripts/clustersim.bash lacks %s", cmd ? cmd : "cmds");
	p += strlen(head);
	free(head);
	return xasprintf(" %.*s ", (int)strcspn(p, "\""), p);
}

static bool has_word(const char *words, const char *w)
{
	char *x = xasprintf(" %s ", w);
	bool ok = strstr(words, x) != NULL;
	free(x);
	return ok;
}

static size_t nwords(const char *words)
{
	size_t n = 0;
	for (const char *p = words; *p; p++)
		n += p[0] == ' ' && p[1] && p[1] != ' ';
	return n;
}

Test(cli_install, the_completion_has_every_command_and_its_options)
{
	char *text = slurp("scripts/clustersim.bash");
	char *cmds = words_of(text, NULL);
	cr_expect_eq(nwords(cmds), CLI_NCMDS, "%s", cmds);
	for (size_t i = 0; i < CLI_NCMDS; i++) {
		const struct cli_command *c = &cli_commands[i];
		cr_expect(has_word(cmds, c->name), "cmds lack %s", c->name);
		char *opts = words_of(text, c->name);
		size_t want = 0;
		for (size_t k = 0; k < cli_noptions; k++) {
			const struct cli_option *op = &cli_options[k];
			bool takes = cli_accepts(c, op);
			want += takes + (takes && op->alias);
			cr_expect_eq(has_word(opts, op->name), takes,
				     "completion of %s: %s", c->name,
				     op->name);
			if (op->alias)
				cr_expect_eq(has_word(opts, op->alias), takes,
					     "completion of %s: %s", c->name,
					     op->alias);
		}
		cr_expect_eq(nwords(opts), want, "completion of %s: %s",
			     c->name, opts);
		free(opts);
	}
	free(cmds);
	free(text);
}
