/*
 * The shell scripts of the repository parse: `bash -n` on every script
 * of bench/ and scripts/, and CI's .ci/run.  make bench and the output-hash and figure
 * scripts run only by hand, so a merge that drops a `fi` from one (as
 * happened to bench/bench.sh) would otherwise go unnoticed until then.
 * Run from the repository root, as the rest of the suite is.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>

Test(scripts, every_shell_script_parses)
{
	const char *pats[] = { "bench/*.sh", "scripts/*.sh", ".ci/run" };
	size_t files = 0;
	for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
		glob_t g;
		if (glob(pats[p], 0, NULL, &g) != 0)
			continue;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			char cmd[512];
			snprintf(cmd, sizeof(cmd), "bash -n '%s' 2>/dev/null",
				 g.gl_pathv[i]);
			cr_expect_eq(system(cmd), 0, "%s does not parse",
				     g.gl_pathv[i]);
			files++;
		}
		globfree(&g);
	}
	cr_assert_gt(files, 3, "found only %zu scripts", files);
}
