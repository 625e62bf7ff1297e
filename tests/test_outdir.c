/*
 * Results folders as a user meets them ($CLUSTERSIM_BIN in a temporary
 * folder): an experiment "name" of ".." (which put the results in the
 * current folder, results/..) or "." is refused at its JSON path.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "exp/exp.h"
#include "testlib.h"

static char tmp[256];
static char bin[512];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "outdir");
}

static void teardown(void)
{
	tl_rmtree(tmp);
}

TestSuite(outdir, .init = setup, .fini = teardown);

static void put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmp, name);
	FILE *f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
	free(path);
}

/* The text of tmp/name, or NULL. */
static char *slurp(const char *name)
{
	char *path = xasprintf("%s/%s", tmp, name);
	FILE *f = fopen(path, "rb");
	free(path);
	if (!f)
		return NULL;
	char *buf = xmalloc(1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static bool exists(const char *name)
{
	char *path = xasprintf("%s/%s", tmp, name);
	bool ok = access(path, F_OK) == 0;
	free(path);
	return ok;
}

/* Runs a shell command in tmp, stdout and stderr to out.txt, err.txt;
 * "$B" is the binary.  Returns the exit code. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	va_list ap;
	char cmd[4096];
	tl_cli_need_bin(bin);
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	char *full = xasprintf("cd '%s' && B='%s' && (%s) >out.txt "
			       "2>err.txt", tmp, bin, cmd);
	int st = system(full);
	free(full);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Expects stderr to hold needle. */
static void expect_err(const char *needle)
{
	char *err = slurp("err.txt");
	cr_expect(err && strstr(err, needle), "stderr lacks '%s': %s", needle,
		  err ? err : "(none)");
	free(err);
}

/* Three jobs on one CPU, 10 s each. */
static const char trace3[] =
	"1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 1 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"3 2 -1 10 1 -1 -1 1 10 -1 1 2 1 -1 -1 -1 -1 -1\n";

/* ---- the experiment's name ------------------------------------------- */

Test(outdir, a_name_that_is_no_folder_is_refused)
{
	put("t.swf", trace3);
	static const char fmt[] =
		"{ \"name\": \"%s\", \"cluster\": { \"nodes\": [ { \"count\": 1,"
		" \"cpus\": 1 } ] }, \"workload\": { \"trace\": \"t.swf\" },"
		" \"policies\": [ \"fcfs\" ] }";
	const char *bad[] = { "..", ".", "a/b" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text = xasprintf(fmt, bad[i]);
		put("n.json", text);
		free(text);
		cr_expect_eq(sh("$B run n.json --no-plots -q"), 2, "%s",
			     bad[i]);
		expect_err("n.json: $.name: must ");
	}
	/* Before, ".." wrote summary.csv and fcfs-s1/ here (results/..). */
	cr_expect(!exists("summary.csv") && !exists("fcfs-s1") &&
		  !exists("results"));
	/* A file named so that its stem is "." needs a name or an output. */
	char *text = xasprintf("{ \"cluster\": { \"nodes\": [ { \"count\": 1,"
			       " \"cpus\": 1 } ] }, \"workload\": { \"trace\":"
			       " \"t.swf\" }, \"policies\": [ \"fcfs\" ] }");
	put("..json", text);
	free(text);
	cr_expect_eq(sh("$B validate ..json"), 2);
	expect_err("..json: $: the file name gives the experiment the name "
		   "'.'");
}
