/*
 * The documentation stays true to the code it describes: the table of
 * built-in policies in experiments/README.md (the users' contract) has a
 * row for every policy of the registry, and that row names each parameter
 * the policy declares, so a parameter added to a policy file cannot go
 * undocumented.
 */
#include <criterion/criterion.h>
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
	for (size_t i = 0; policy_builtin[i]; i++) {
		const struct policy_ops *ops = policy_builtin[i];
		char *key = xasprintf("\n| `%s` |", ops->name);
		const char *row = strstr(doc, key);
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
