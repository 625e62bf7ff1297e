/*
 * Reproducibility metadata: the version and source revision in the
 * manifest, manifest paths relative to the experiment file's folder (the
 * same manifest whatever folder clustersim ran from), and a resumed run
 * that does not rerun because the binary was rebuilt at another commit.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/util.h"
#include "base/version.h"
#include "report/out.h"
#include "testlib.h"

static void rel_is(const char *dir, const char *path, const char *want)
{
	char *got = path_relative_to(dir, path);
	cr_expect_str_eq(got, want, "path_relative_to('%s', '%s')", dir, path);
	free(got);
}

Test(repro, path_relative_to)
{
	rel_is("experiments", "experiments/kth.json", "kth.json");
	rel_is("experiments", "experiments/../../shared/traces/hpc/x.swf.gz",
	       "../../shared/traces/hpc/x.swf.gz");
	rel_is("/a/b/exp", "/a/b/t/x.csv", "../t/x.csv");
	rel_is("/a/b", "/a/b", ".");
	rel_is("/a/b/c", "/a", "../..");
	rel_is("./e/./", "e/f/g", "f/g");
	rel_is("/a/b", "/usr/lib/p.so", "/usr/lib/p.so");
	rel_is("/", "/usr/x", "usr/x");
	/* A relative path and an absolute one meet through the cwd. */
	char *cwd = getcwd(NULL, 0);
	char *abs = xasprintf("%s/exp/t.swf", cwd);
	rel_is("exp", abs, "t.swf");
	free(abs);
	free(cwd);
}

Test(repro, version_and_revision)
{
	int maj, min, pat;
	char end;
	cr_expect_eq(sscanf(CLUSTERSIM_VERSION, "%d.%d.%d%c", &maj, &min, &pat,
			    &end), 3, "MAJOR.MINOR.PATCH: %s",
		     CLUSTERSIM_VERSION);
	const char *r = version_revision();
	cr_assert(r && *r);
	cr_expect_null(strpbrk(r, "\"\\\n "), "'%s'", r);
}

Test(repro, revision_is_not_compared)
{
	const char *a = "{\"tool\": \"clustersim\", \"version\": \"0.2.0\", "
			"\"revision\": \"abc\", \"seeds\": [1]}";
	const char *b = "{\"tool\": \"clustersim\", \"version\": \"0.2.0\", "
			"\"revision\": \"def-dirty\", \"seeds\": [1]}";
	const char *c = "{\"tool\": \"clustersim\", \"version\": \"0.2.0\", "
			"\"seeds\": [1]}";
	const char *d = "{\"tool\": \"clustersim\", \"version\": \"0.1.0\", "
			"\"revision\": \"abc\", \"seeds\": [1]}";
	const char *s = "{\"tool\": \"clustersim\", \"version\": \"0.2.0\", "
			"\"revision\": \"abc\", \"seeds\": [2]}";
	cr_expect(out_manifest_same(a, b));
	cr_expect(out_manifest_same(a, c));
	cr_expect(!out_manifest_same(a, d), "another version reruns");
	cr_expect(!out_manifest_same(a, s), "another seed reruns");
	cr_expect(!out_manifest_same(a, "{ cut"));
}

/* ---- the binary, from three folders ---- */

static char tmp[256];
static char bin[512];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "repro");
	tl_cli_need_bin(bin);
}

static void teardown(void)
{
	tl_rmtree(tmp);
}

static void put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmp, name);
	FILE *f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
	free(path);
}

static char *slurp(const char *name)
{
	char *path = xasprintf("%s/%s", tmp, name);
	FILE *f = fopen(path, "rb");
	free(path);
	if (!f)
		return NULL;
	static const size_t cap = 1 << 20;
	char *s = xmalloc(cap + 1);
	size_t n = fread(s, 1, cap, f);
	s[n] = '\0';
	fclose(f);
	return s;
}

/* Runs "cd tmp/SUB && clustersim ARGS"; the exit code. */
static int cli_in(const char *sub, const char *args)
{
	char *cmd = xasprintf("cd '%s/%s' && '%s' %s >/dev/null 2>&1", tmp,
			      sub, bin, args);
	int st = system(cmd);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(repro, manifest_is_the_same_from_any_folder, .init = setup,
     .fini = teardown)
{
	char *d = xasprintf("%s/exp", tmp);
	cr_assert_eq(mkdir(d, 0755), 0);
	free(d);
	d = xasprintf("%s/data", tmp);
	cr_assert_eq(mkdir(d, 0755), 0);
	free(d);
	put("data/t.swf", "; MaxProcs: 1\n"
	    "1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	    "2 1 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n");
	put("exp/e.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, "
	    "\"cpus\": 1 } ] }, \"workload\": { \"trace\": "
	    "\"../data/t.swf\" }, \"policies\": [ \"fcfs\" ], \"output\": \"../res\" }");
	char *args = xasprintf("run --no-plots -o '%s/r3' '%s/exp/e.json'",
			       tmp, tmp);
	cr_assert_eq(cli_in(".", "run --no-plots -o r1 exp/e.json"), 0);
	cr_assert_eq(cli_in("exp", "run --no-plots -o ../r2 e.json"), 0);
	cr_assert_eq(cli_in("data", args), 0);
	free(args);
	char *m1 = slurp("r1/manifest.json"), *m2 = slurp("r2/manifest.json"),
	     *m3 = slurp("r3/manifest.json");
	cr_assert(m1 && m2 && m3);
	cr_expect_str_eq(m1, m2);
	cr_expect_str_eq(m1, m3);
	cJSON *root = cJSON_Parse(m1);
	cr_assert(root);
	cr_expect_str_eq(cJSON_GetObjectItem(root, "version")->valuestring,
			 CLUSTERSIM_VERSION);
	/* The binary's own revision (it may be built at another commit than
	 * this test runner, so only its presence is checked). */
	cJSON *rev = cJSON_GetObjectItem(root, "revision");
	cr_expect(cJSON_IsString(rev) && rev->valuestring[0]);
	cr_expect_str_eq(cJSON_GetObjectItem(root, "experiment")->valuestring,
			 "e.json");
	cJSON *in = cJSON_GetObjectItem(root, "inputs");
	cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(in, 1),
					     "path")->valuestring,
			 "../data/t.swf");
	cJSON *w = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "config"),
				       "workload");
	cr_expect_str_eq(cJSON_GetObjectItem(w, "trace")->valuestring,
			 "../data/t.swf");
	cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(root,
		"config"), "output")->valuestring, "../res");
	cJSON_Delete(root);
	free(m1);
	free(m2);
	free(m3);
}

/* ---- docs cite only files users have ---- */

/* No file of the checkout cites the design notes kept outside it, and every
 * docs/NAME.md that README.md, docs/, experiments/, traces/, policies/,
 * sim/ or include/ names exists. */
Test(repro, docs_cite_only_files_in_the_repository)
{
	const char *dirs = "README.md docs experiments traces policies sim "
			   "include plots scripts bench Makefile";
	char *cmd = xasprintf("grep -rlE 'DESIGN(\\.md| section)|shared/docs' "
			      "%s 2>/dev/null", dirs);
	FILE *p = popen(cmd, "r");
	free(cmd);
	cr_assert(p);
	char line[512];
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		cr_expect_fail("%s cites a file outside the repository", line);
	}
	pclose(p);

	cmd = xasprintf("grep -rhoE 'docs/[A-Za-z0-9_-]+\\.md' %s | sort -u",
			dirs);
	p = popen(cmd, "r");
	free(cmd);
	cr_assert(p);
	size_t n = 0;
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		cr_expect_eq(access(line, F_OK), 0, "%s is cited but missing",
			     line);
		n++;
	}
	pclose(p);
	cr_expect_geq(n, 5, "found %zu citations", n);
}

/* ---- the revision header ---- */

static char *file_text(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *s = xmalloc(4096);
	s[fread(s, 1, 4095, f)] = '\0';
	fclose(f);
	return s;
}

/* scripts/gen-revision.sh: "unknown" outside a checkout (a tarball, even
 * inside another repository's folder), git describe inside one, and the
 * header rewritten only when its text changes. */
Test(repro, the_revision_header, .init = setup, .fini = teardown)
{
	char root[512];
	cr_assert(getcwd(root, sizeof(root)));
	char *cmd = xasprintf("mkdir -p '%s/src' && '%s/scripts/gen-revision.sh' "
			      "'%s/r.h' '%s/src'", tmp, root, tmp, tmp);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
	char *path = xasprintf("%s/r.h", tmp);
	char *s = file_text(path);
	cr_assert(s);
	cr_expect(strstr(s, "#define CLUSTERSIM_REVISION \"unknown\""), "%s",
		  s);
	free(s);

	/* Again: the same text, the file not rewritten. */
	struct stat a, b;
	cr_assert_eq(stat(path, &a), 0);
	cmd = xasprintf("sleep 1.1 && '%s/scripts/gen-revision.sh' '%s/r.h' "
			"'%s/src'", root, tmp, tmp);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
	cr_assert_eq(stat(path, &b), 0);
	cr_expect_eq(a.st_mtime, b.st_mtime, "rewritten with the same text");
	cr_expect_eq(a.st_ino, b.st_ino);

	/* In the checkout, when it is one: git describe's answer. */
	cmd = xasprintf("cd '%s' && test \"$(git rev-parse --show-toplevel "
			"2>/dev/null)\" = \"$(pwd -P)\" && git describe --always "
			"--dirty > '%s/want' 2>/dev/null", root, tmp);
	int in_git = system(cmd) == 0;
	free(cmd);
	if (in_git) {
		cmd = xasprintf("'%s/scripts/gen-revision.sh' '%s/r2.h' '%s'",
				root, tmp, root);
		cr_assert_eq(system(cmd), 0);
		free(cmd);
		char *wp = xasprintf("%s/want", tmp), *gp = xasprintf("%s/r2.h",
								       tmp);
		char *want = file_text(wp), *got = file_text(gp);
		cr_assert(want && got);
		want[strcspn(want, "\n")] = '\0';
		char *line = xasprintf("#define CLUSTERSIM_REVISION \"%s\"",
				       want);
		cr_expect(strstr(got, line), "%s, want %s", got, line);
		free(line);
		free(want);
		free(got);
		free(wp);
		free(gp);
	}
	free(path);
}

/* ---- a sweep resumes across a rebuild and from another folder ---- */

/* Runs "cd tmp/SUB && clustersim ARGS", stdout into tmp/o.txt. */
static int cli_out(const char *sub, const char *args)
{
	char *cmd = xasprintf("cd '%s/%s' && '%s' %s >'%s/o.txt' 2>&1", tmp,
			      sub, bin, args, tmp);
	int st = system(cmd);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(repro, a_sweep_resumes_across_revisions_and_folders, .init = setup,
     .fini = teardown)
{
	char *d = xasprintf("%s/exp", tmp);
	cr_assert_eq(mkdir(d, 0755), 0);
	free(d);
	put("exp/t.swf", "; MaxProcs: 1\n"
	    "1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	    "2 1 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n");
	put("exp/s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, "
	    "\"cpus\": 1 } ] }, \"workload\": { \"trace\": \"t.swf\" }, "
	    "\"policies\": [ \"fcfs\", \"easy\" ], \"output\": \"out\", "
	    "\"sweep\": { \"bounded_slowdown_tau\": [ 10, 20 ] } }");
	cr_assert_eq(cli_out(".", "sweep exp/s.json -j 1 --no-plots"), 0,
		     "%s", slurp("o.txt"));
	/* From the experiment's own folder: every run is already there. */
	cr_assert_eq(cli_out("exp", "sweep s.json -j 1 --no-plots"), 0);
	char *o = slurp("o.txt");
	cr_expect(strstr(o, "4 runs: 0 ran, 4 skipped"), "%s", o);
	free(o);

	/* A run folder written by a build at another revision still counts
	 * as done; one of another version does not. */
	/* Two of the run folders, by name. */
	char *ls = xasprintf("cd '%s/exp/out' && ls -d */ | head -2 | tr -d /",
			     tmp);
	FILE *p = popen(ls, "r");
	free(ls);
	cr_assert(p);
	char r1[256] = "", r2[256] = "";
	cr_assert(fgets(r1, sizeof(r1), p) && fgets(r2, sizeof(r2), p));
	pclose(p);
	r1[strcspn(r1, "\n")] = '\0';
	r2[strcspn(r2, "\n")] = '\0';
	char *m1 = xasprintf("exp/out/%s/manifest.json", r1);
	char *m2 = xasprintf("exp/out/%s/manifest.json", r2);
	char *m = slurp(m1);
	cr_assert(m);
	cJSON *root = cJSON_Parse(m);
	cr_assert(root);
	cJSON_ReplaceItemInObject(root, "revision",
				  cJSON_CreateString("0123abc-dirty"));
	char *edited = cJSON_Print(root);
	char *text = xasprintf("%s\n", edited);
	put(m1, text);
	free(text);
	cJSON_free(edited);
	cJSON_ReplaceItemInObject(root, "version", cJSON_CreateString("0.0.1"));
	edited = cJSON_Print(root);
	text = xasprintf("%s\n", edited);
	put(m2, text);
	free(text);
	cJSON_free(edited);
	cJSON_Delete(root);
	free(m);
	free(m1);
	free(m2);
	cr_assert_eq(cli_out(".", "sweep exp/s.json -j 1 --no-plots"), 0);
	o = slurp("o.txt");
	cr_expect(strstr(o, "4 runs: 1 ran, 3 skipped"), "%s", o);
	free(o);
}
