/*
 * Getting the public traces: traces/fetch-traces.sh against a local
 * file:// mirror (there is no network in the tests), its list against every
 * trace the shipped experiments name and against the copies in
 * ../shared/traces (skipped, saying so, where they are absent), the
 * CLUSTERSIM_TRACE_DIR override of the experiments' trace folder, and the
 * message of a missing trace, which names the script.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/input.h"
#include "base/util.h"
#include "testlib.h"

static char tmp[256];
static char bin[512];
static char root[512]; /* the checkout: where the tests run */

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "traces");
	cr_assert(getcwd(root, sizeof(root)));
}

static void teardown(void)
{
	tl_rmtree(tmp);
}

/* Runs a shell command (printf-style) in tmp, its output into tmp/out.txt;
 * the exit code. */
__attribute__((format(printf, 1, 2)))
static int sh(const char *fmt, ...)
{
	va_list ap;
	char *body = NULL;
	va_start(ap, fmt);
	int n = vasprintf(&body, fmt, ap);
	va_end(ap);
	cr_assert_geq(n, 0);
	char *cmd = xasprintf("cd '%s' && { %s ; } >out.txt 2>&1", tmp, body);
	int st = system(cmd);
	free(cmd);
	free(body);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *out_text(void)
{
	char *path = xasprintf("%s/out.txt", tmp);
	FILE *f = fopen(path, "r");
	free(path);
	static char buf[16384];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

Test(traces, fetch_from_a_file_mirror, .init = setup, .fini = teardown)
{
	/* A mirror of two small fake traces in the experiments' layout, and
	 * a list with their own hashes. */
	cr_assert_eq(sh("mkdir -p mirror/hpc mirror/gpu/openb && "
			"printf 'a\\n' > mirror/hpc/a.swf && "
			"printf 'b,c\\n' > mirror/gpu/openb/b.csv && "
			"for f in hpc/a.swf gpu/openb/b.csv; do "
			"echo \"$f $(sha256sum mirror/$f | cut -d' ' -f1) "
			"https://example.invalid/$f\"; done > list"),
		     0, "%s", out_text());
	char *env = xasprintf("CLUSTERSIM_TRACE_LIST=list "
			      "CLUSTERSIM_TRACE_MIRROR=file://%s/mirror",
			      tmp);
	cr_expect_eq(sh("%s '%s/traces/fetch-traces.sh' got", env, root), 0,
		     "%s", out_text());
	cr_expect(strstr(out_text(), "got/gpu/openb/b.csv: ok"), "%s",
		  out_text());
	cr_expect_eq(sh("cmp mirror/hpc/a.swf got/hpc/a.swf && "
			"cmp mirror/gpu/openb/b.csv got/gpu/openb/b.csv"), 0, "laid out as the experiments expect");
	/* Again: kept, checked, nothing fetched. */
	cr_expect_eq(sh("%s '%s/traces/fetch-traces.sh' got", env, root), 0);
	cr_expect_null(strstr(out_text(), "fetching"), "%s", out_text());

	/* A mirror file with other bytes is refused and not kept. */
	cr_assert_eq(sh("rm got/hpc/a.swf && printf 'x\\n' > mirror/hpc/a.swf"), 0);
	cr_expect_eq(sh("%s '%s/traces/fetch-traces.sh' got", env, root), 1);
	cr_expect(strstr(out_text(), "SHA-256"), "%s", out_text());
	cr_expect_neq(sh("test -e got/hpc/a.swf || test -e got/hpc/a.swf.part"), 0, "a file with the wrong hash was kept");
	/* --check: the missing file and a changed one are errors. */
	cr_expect_eq(sh("%s '%s/traces/fetch-traces.sh' --check got", env,
			root), 1);
	cr_expect(strstr(out_text(), "got/hpc/a.swf: missing"), "%s",
		  out_text());
	cr_assert_eq(sh("printf 'y\\n' >> got/gpu/openb/b.csv"), 0);
	cr_expect_eq(sh("%s '%s/traces/fetch-traces.sh' --check got", env,
			root), 1);
	cr_expect(strstr(out_text(), "expected"), "%s", out_text());
	cr_expect_eq(sh("%s '%s/traces/fetch-traces.sh' --bogus", env, root),
		     2);
	free(env);
}

/* Every trace path of the experiment files (experiments/) under the shared traces folder is
 * in the script's list. */
Test(traces, the_list_knows_every_trace_the_experiments_use, .init = setup,
     .fini = teardown)
{
	cr_assert_eq(sh("cd '%s' && traces/fetch-traces.sh --list > "
			"'%s/list' ", root, tmp), 0, "%s", out_text());
	char *cmd = xasprintf("cd '%s' && grep -ho '\"%s[^\"]*\"' "
			      "experiments/*.json | tr -d '\"' | "
			      "sed 's|^%s||' | sort -u",
			      root, INPUT_TRACE_PREFIX, INPUT_TRACE_PREFIX);
	FILE *p = popen(cmd, "r");
	free(cmd);
	cr_assert(p);
	char line[512];
	size_t n = 0;
	char *list = xasprintf("%s/list", tmp);
	FILE *lf = fopen(list, "r");
	free(list);
	cr_assert(lf);
	static char ltext[8192];
	ltext[fread(ltext, 1, sizeof(ltext) - 1, lf)] = '\0';
	fclose(lf);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		char *want = xasprintf("%s\n", line);
		cr_expect(strstr(ltext, want), "%s is not in the list", line);
		free(want);
		n++;
	}
	pclose(p);
	cr_expect_geq(n, 10, "found %zu trace paths", n);
}

/* The list's hashes are those of the copies the docs were made with. */
Test(traces, the_hashes_match_the_shared_copies, .init = setup,
     .fini = teardown)
{
	const char *dir = getenv("CLUSTERSIM_TRACE_DIR");
	char *d = xasprintf("%s/%s", root, dir ? dir : "../shared/traces");
	if (dir && dir[0] == '/') {
		free(d);
		d = xstrdup(dir);
	}
	struct stat st;
	if (stat(d, &st) != 0) {
		cr_skip_test("no shared traces at %s: the list's hashes are not "
			     "checked", d);
	}
	cr_expect_eq(sh("'%s/traces/fetch-traces.sh' --check '%s'", root, d),
		     0, "%s", out_text());
	free(d);
}

Test(traces, the_trace_dir_moves_the_experiments_traces)
{
	char *old = getenv(INPUT_TRACE_DIR_ENV);
	old = old ? xstrdup(old) : NULL;
	unsetenv(INPUT_TRACE_DIR_ENV);
	char *p = input_trace_path("experiments",
				   "../../shared/traces/hpc/x.swf");
	cr_expect_str_eq(p, "experiments/../../shared/traces/hpc/x.swf");
	free(p);
	setenv(INPUT_TRACE_DIR_ENV, "/srv/t", 1);
	p = input_trace_path("experiments", "../../shared/traces/hpc/x.swf");
	cr_expect_str_eq(p, "/srv/t/hpc/x.swf");
	free(p);
	/* Other paths are left alone. */
	p = input_trace_path("experiments", "data/x.trace");
	cr_expect_str_eq(p, "experiments/data/x.trace");
	free(p);
	p = input_trace_path("experiments", "../shared/traces/x");
	cr_expect_str_eq(p, "experiments/../shared/traces/x");
	free(p);
	setenv(INPUT_TRACE_DIR_ENV, "", 1);
	p = input_trace_path("e", "../../shared/traces/hpc/x.swf");
	cr_expect_str_eq(p, "e/../../shared/traces/hpc/x.swf");
	free(p);
	if (old)
		setenv(INPUT_TRACE_DIR_ENV, old, 1);
	else
		unsetenv(INPUT_TRACE_DIR_ENV);
	free(old);
}

/* A missing public trace names the script; another missing file does not. */
Test(traces, a_missing_trace_names_the_script, .init = setup,
     .fini = teardown)
{
	tl_cli_need_bin(bin);
	cr_assert_eq(sh("mkdir -p empty exp && printf '%%s' '{ \"cluster\": "
			"{ \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] }, "
			"\"workload\": { \"trace\": \"%s"
			"hpc/KTH-SP2-1996-2.1-cln.swf.gz\" }, \"policies\": "
			"[ \"fcfs\" ] }' > exp/e.json", INPUT_TRACE_PREFIX),
		     0, "%s", out_text());
	cr_expect_eq(sh("CLUSTERSIM_TRACE_DIR=empty '%s' run --no-plots -o r "
			"exp/e.json", bin), 2, "%s", out_text());
	cr_expect(strstr(out_text(), "empty/hpc/KTH-SP2-1996-2.1-cln.swf.gz: "
				     "cannot open: No such file or directory; "
				     "fetch the public traces with "
				     "traces/fetch-traces.sh"),
		  "%s", out_text());
	cr_assert_eq(sh("printf '%%s' '{ \"cluster\": { \"nodes\": [ { "
			"\"count\": 1, \"cpus\": 1 } ] }, \"workload\": { "
			"\"trace\": \"mine.swf\" }, \"policies\": [ \"fcfs\" ] "
			"}' > exp/m.json"), 0);
	cr_expect_eq(sh("'%s' run --no-plots -o r exp/m.json", bin), 2);
	cr_expect(strstr(out_text(), "mine.swf: cannot open"), "%s",
		  out_text());
	cr_expect_null(strstr(out_text(), "fetch-traces"), "%s", out_text());
}
