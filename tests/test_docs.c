/*
 * The documentation stays true to the code it describes: the table of
 * built-in policies in experiments/README.md (the users' contract) has a
 * row for every policy of the registry, and that row names each parameter
 * the policy declares, so a parameter added to a policy file cannot go
 * undocumented; and every Markdown table of the repository's pages has as
 * many cells in each row as in its header (a row that lost or gained a
 * "|" shifts its cells into the wrong columns).
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "policy/registry.h"

/* The whole of path, NUL-terminated. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s: cannot open", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	cr_assert_gt(n, 0);
	rewind(f);
	char *text = xmalloc((size_t)n + 1);
	cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	text[n] = '\0';
	return text;
}

Test(docs, every_policy_and_parameter_is_in_the_experiment_contract)
{
	char *doc = slurp("experiments/README.md");
	/* The policies' table (a policy's name may also be a key's, as
	 * "rl" is, in a table above it). */
	const char *table = strstr(doc, "\n| policy | parameters |");
	cr_assert_not_null(table, "experiments/README.md: no policy table");
	for (size_t i = 0; policy_builtin[i]; i++) {
		const struct policy_ops *ops = policy_builtin[i];
		char *key = xasprintf("\n| `%s` |", ops->name);
		const char *row = strstr(table, key);
		cr_expect_not_null(row, "experiments/README.md: no row for "
				   "policy %s", ops->name);
		free(key);
		if (!row)
			continue;
		row++;
		size_t len = strcspn(row, "\n");
		for (const struct policy_param *p = ops->params; p && p->name;
		     p++) {
			char *want = xasprintf("`%s`", p->name);
			char *line = xasprintf("%.*s", (int)len, row);
			cr_expect(strstr(line, want), "experiments/README.md: "
				  "the row of %s does not name its parameter "
				  "%s", ops->name, p->name);
			free(line);
			free(want);
		}
	}
	free(doc);
}

/* The cells of one table row: "|" outside `code` separates them. */
static size_t row_cells(const char *line, size_t len)
{
	size_t n = 1;
	bool code = false;
	for (size_t i = 0; i < len; i++) {
		if (line[i] == '`')
			code = !code;
		else if (line[i] == '|' && !code &&
			 !(i > 0 && line[i - 1] == '\\'))
			n++;
	}
	return n;
}

/* The rows of path's tables whose cell count differs from the header's. */
static size_t bad_rows(const char *path)
{
	char *text = slurp(path);
	size_t bad = 0, header = 0, lineno = 0;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		lineno++;
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\r'))
			len--;
		if (*p != '|') {
			header = 0;
		} else if (!header) {
			header = row_cells(p, len);
		} else if (row_cells(p, len) != header) {
			cr_expect_fail("%s:%zu: %zu cells in a table of %zu", path,
				       lineno, row_cells(p, len), header);
			bad++;
		}
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	free(text);
	return bad;
}

Test(docs, every_table_row_has_its_headers_cells)
{
	static const char *const pats[] = { "*.md", "*/*.md", "*/*/*.md" };
	size_t files = 0, bad = 0;
	for (size_t k = 0; k < sizeof(pats) / sizeof(pats[0]); k++) {
		glob_t g;
		if (glob(pats[k], 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			if (!strncmp(g.gl_pathv[i], "build/", 6))
				continue;
			files++;
			bad += bad_rows(g.gl_pathv[i]);
		}
		globfree(&g);
	}
	cr_assert_gt(files, 10, "found only %zu pages", files);
	cr_assert_eq(bad, 0);
}
