/*
 * Results folders as a user meets them ($CLUSTERSIM_BIN in a temporary
 * folder): a folder is locked while a run writes it, so a second run at
 * the same time refuses it (exit 2, naming the folder and the holder's
 * PID) where before both exited 0 and left one's manifest with the
 * other's run folders; a killed run leaves no lock behind; the
 * temporaries of dead runs are removed; a re-run removes the run folders
 * of the previous manifest that it no longer produces, and nothing else;
 * exit 2 for an output folder that cannot be used, 1 for a disk that
 * fails during the run; and an experiment "name" of ".." (which put the
 * results in the current folder) is refused at its JSON path.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/outdir.h"
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

/* Files and commands in tmp (testlib.h). */
#define put(name, text) tl_put(tmp, name, text)

#define slurp(name) tl_slurp(tmp, name)

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

/* An experiment on trace3 with these policies and seeds, into out/. */
static void experiment(const char *name, const char *policies,
		       const char *seeds)
{
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		"  \"workload\": { \"trace\": \"t.swf\" },"
		"  \"policies\": [ %s ], \"seeds\": [ %s ],"
		"  \"output\": \"out\" }\n", policies, seeds);
	tl_cli_need_bin(bin);
	put("t.swf", trace3);
	put(name, text);
	free(text);
}

/* ---- the lock --------------------------------------------------------- */

/* A process that holds out/'s lock until killed; returns its pid. */
static pid_t holder(void)
{
	int ready[2];
	cr_assert(pipe(ready) == 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		/* Dies with the test, whatever becomes of it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		struct outdir od;
		struct sim_error err;
		char *dir = xasprintf("%s/out", tmp);
		char c = outdir_lock(&od, dir, false, &err) == 0 ? 'y' : 'n';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	char c = 0;
	cr_assert(read(ready[0], &c, 1) == 1 && c == 'y');
	close(ready[0]);
	close(ready[1]);
	return pid;
}

Test(outdir, a_second_run_refuses_a_folder_in_use)
{
	experiment("e.json", "\"fcfs\"", "1");
	pid_t pid = holder();
	cr_expect_eq(sh("$B run e.json --no-plots -q"), 2);
	char *want = xasprintf("out: the output folder is in use by another "
			       "clustersim run (held by pid %ld", (long)pid);
	expect_err(want);
	free(want);
	cr_expect(!exists("out/fcfs-s1"), "the refused run wrote its folder");
	/* Every command that writes the folder refuses it. */
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, "
		      "\"cpus\": 1 } ] }, \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ \"fcfs\" ], \"output\": \"out\","
		      " \"sweep\": { \"workload.load_scale\": [ 1, 2 ] } }");
	cr_expect_eq(sh("$B sweep s.json -j 1 --no-plots -q"), 2);
	expect_err("in use by another clustersim run");
	cr_expect_eq(sh("$B merge out --no-plots"), 2);
	expect_err("in use by another clustersim run");
	/* Killed, the holder leaves no lock: the run goes ahead. */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	cr_expect_eq(sh("$B run e.json --no-plots -q"), 0);
	cr_expect(exists("out/fcfs-s1/jobs.csv"));
	cr_expect(!exists("out/" OUTDIR_LOCK_NAME), "the lock file is left");
}

/* Two experiments into one folder at once, as two users would: one of
 * them runs, the other refuses, and the folder is the first one's. */
Test(outdir, two_runs_at_once_do_not_mix_their_results)
{
	static const char gen[] =
		"{ \"cluster\": { \"nodes\": [ { \"count\": 64, \"cpus\": 4 } ] },"
		"  \"workload\": { \"generate\": { \"jobs\": 400000,"
		"    \"interarrival\": { \"dist\": \"exponential\", \"mean\": 260 },"
		"    \"runtime\": { \"dist\": \"lognormal\", \"mu\": 7, \"sigma\": 1 },"
		"    \"cpus\": { \"dist\": \"pow2\", \"min\": 1, \"max\": 128 } } },"
		"  \"policies\": [ \"%s\" ], \"output\": \"out\" }\n";
	char *a = xasprintf(gen, "fcfs"), *b = xasprintf(gen, "sjf");
	put("a.json", a);
	put("b.json", b);
	free(a);
	free(b);
	/* b starts once a holds the folder, and a still runs when b ends
	 * (a's run takes seconds, b's refusal milliseconds). */
	int rc = sh("$B run a.json --no-plots -q & a=$!; i=0; "
		    "while [ ! -e out/" OUTDIR_LOCK_NAME " ] && [ $i -lt 500 ]; "
		    "do sleep 0.01; i=$((i+1)); done; "
		    "$B run b.json --no-plots -q; echo \"b=$?\" >b.txt; "
		    "wait $a");
	cr_expect_eq(rc, 0, "the first run failed");
	char *bt = slurp("b.txt");
	cr_expect(bt && !strcmp(bt, "b=2\n"), "the second run: %s", bt);
	free(bt);
	expect_err("out: the output folder is in use");
	char *m = slurp("out/manifest.json"), *s = slurp("out/summary.csv");
	cr_assert(m && s);
	cr_expect(strstr(m, "\"fcfs-s1\"") && !strstr(m, "sjf"), "%s", m);
	cr_expect(strstr(s, "\nfcfs,") && !strstr(s, "sjf"), "%s", s);
	cr_expect(!exists("out/sjf-s1"), "the refused run wrote its folder");
	free(m);
	free(s);
}

Test(outdir, the_temporaries_of_dead_runs_are_removed)
{
	experiment("e.json", "\"fcfs\"", "1");
	cr_assert_eq(sh("mkdir -p out/fcfs-s1 out/plots && "
			"echo x >out/summary.csv.tmp.999999 && "
			"echo x >out/fcfs-s1/jobs.csv.tmp.4242 && "
			"echo x >out/plots/sweep.dat.tmp.17 && "
			"echo keep >out/notes.tmp.txt"), 0);
	cr_expect_eq(sh("$B run e.json --no-plots -q"), 0);
	cr_expect(!exists("out/summary.csv.tmp.999999"));
	cr_expect(!exists("out/fcfs-s1/jobs.csv.tmp.4242"));
	cr_expect(!exists("out/plots/sweep.dat.tmp.17"));
	cr_expect(exists("out/notes.tmp.txt"), "a file of the user's went");
}

/* ---- run folders of the previous results ------------------------------ */

Test(outdir, a_rerun_removes_the_run_folders_it_no_longer_produces)
{
	experiment("e.json", "\"fcfs\", \"easy\"", "1, 2");
	cr_assert_eq(sh("$B run e.json --no-plots -q"), 0);
	cr_assert(exists("out/easy-s2/jobs.csv"));
	/* The user's own folder and file stay, whatever their names. */
	cr_assert_eq(sh("mkdir out/mine-s9 && echo x >out/mine-s9/jobs.csv && "
			"echo x >out/easy-s1/notes.txt"), 0);
	/* Seed 2 and easy are gone from the file. */
	experiment("e.json", "\"fcfs\"", "1");
	cr_expect_eq(sh("$B run e.json --no-plots -q"), 0);
	cr_expect(exists("out/fcfs-s1/jobs.csv"));
	cr_expect(!exists("out/fcfs-s2"), "a stale run folder is left");
	cr_expect(!exists("out/easy-s2"), "a stale run folder is left");
	/* easy-s1 holds a file clustersim did not write: kept, said. */
	cr_expect(exists("out/easy-s1/notes.txt") &&
		  exists("out/easy-s1/jobs.csv"));
	expect_err("out/easy-s1: kept: it holds files that clustersim did "
		   "not write");
	cr_expect(exists("out/mine-s9/jobs.csv"));
}

Test(outdir, one_policy_rerun_keeps_the_other_policies_runs)
{
	experiment("e.json", "\"fcfs\", \"easy\"", "1");
	cr_assert_eq(sh("$B run e.json --no-plots -q"), 0);
	char *before = slurp("out/fcfs-s1/jobs.csv");
	cr_assert(before);
	cr_expect_eq(sh("$B run e.json --policy easy --no-plots -q"), 0);
	char *after = slurp("out/fcfs-s1/jobs.csv");
	cr_expect(after && !strcmp(before, after), "fcfs-s1 changed or went");
	cr_expect(exists("out/easy-s1/jobs.csv"));
	/* A whole re-run after it: nothing of the experiment's goes. */
	cr_expect_eq(sh("$B run e.json --no-plots -q"), 0);
	cr_expect(exists("out/fcfs-s1/jobs.csv") &&
		  exists("out/easy-s1/jobs.csv"));
	free(before);
	free(after);
}

Test(outdir, a_crafted_manifest_removes_nothing_outside_run_folders)
{
	experiment("e.json", "\"fcfs\"", "1");
	cr_assert_eq(sh("mkdir -p out keepme-s1 out/plots && "
			"echo x >keepme-s1/jobs.csv && "
			"echo x >out/plots/jobs.csv && "
			"ln -s ../keepme-s1 out/link-s1 && "
			"printf '{\"runs\": [{\"dir\": \"../keepme-s1\"}, "
			"{\"dir\": \"..\"}, {\"dir\": \"plots\"}, "
			"{\"dir\": \"link-s1\"}, {\"dir\": 5}]}' "
			">out/manifest.json"), 0);
	cr_expect_eq(sh("$B run e.json --no-plots -q"), 0);
	cr_expect(exists("keepme-s1/jobs.csv"));
	cr_expect(exists("out/plots/jobs.csv"));
	cr_expect(exists("out/link-s1"));
	cr_expect(exists("e.json") && exists("t.swf"));
}

Test(outdir, a_sweep_rerun_removes_the_points_it_no_longer_has)
{
	put("t.swf", trace3);
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, "
		      "\"cpus\": 1 } ] }, \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ \"fcfs\" ], \"output\": \"out\","
		      " \"sweep\": { \"workload.load_scale\": [ 1, 2 ] } }");
	cr_assert_eq(sh("$B sweep s.json -j 2 --no-plots -q"), 0);
	cr_assert(exists("out/fcfs+load_scale=2-s1/manifest.json"));
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, "
		      "\"cpus\": 1 } ] }, \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ \"fcfs\" ], \"output\": \"out\","
		      " \"sweep\": { \"workload.load_scale\": [ 1 ] } }");
	cr_expect_eq(sh("$B sweep s.json -j 2 --no-plots -q"), 0);
	cr_expect(exists("out/fcfs+load_scale=1-s1/manifest.json"));
	cr_expect(!exists("out/fcfs+load_scale=2-s1"));
	/* A plain run into the sweep's folder replaces it. */
	experiment("e.json", "\"fcfs\"", "1");
	cr_expect_eq(sh("$B run e.json --no-plots -q"), 0);
	cr_expect(!exists("out/fcfs+load_scale=1-s1"));
	cr_expect(exists("out/fcfs-s1/jobs.csv"));
}

/* ---- exit codes ------------------------------------------------------- */

Test(outdir, an_output_folder_that_cannot_be_used_exits_2)
{
	experiment("e.json", "\"fcfs\"", "1");
	cr_assert_eq(sh("echo x >file && mkdir -p busy/summary.csv && "
			"mkdir -p runfile && echo x >runfile/fcfs-s1"), 0);
	cr_expect_eq(sh("$B run e.json -o file --no-plots -q"), 2);
	expect_err("file: not a folder (a file is in the way)");
	cr_expect_eq(sh("$B run e.json -o file/sub --no-plots -q"), 2);
	expect_err("file/sub: cannot create folder: Not a directory");
	cr_expect_eq(sh("$B run e.json -o busy --no-plots -q"), 2);
	expect_err("busy/summary.csv: a folder is in the way");
	cr_expect_eq(sh("$B run e.json -o runfile --no-plots -q"), 2);
	expect_err("runfile/fcfs-s1: a file is in the way of the run folder");
	/* Not writable: as root, a folder of /proc. */
	cr_expect_eq(sh("$B run e.json -o /proc/self/clustersim --no-plots "
			"-q"), 2);
	expect_err("/proc/self/clustersim: cannot create folder");
	if (geteuid() != 0) {
		cr_assert_eq(sh("mkdir ro && chmod 555 ro"), 0);
		cr_expect_eq(sh("$B run e.json -o ro --no-plots -q"), 2);
		expect_err("ro: cannot write in the output folder");
	}
	put("o.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, "
		      "\"cpus\": 1 } ] }, \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ \"fcfs\" ], \"optimize\": {} }");
	cr_expect_eq(sh("$B optimize o.json -o file --no-plots -q"), 2);
	cr_expect_eq(sh("$B sweep e.json -o file --no-plots -q"), 2);
}

/* A disk that fills during the run: a file size limit (EFBIG on the
 * first write past it), and a real full file system where one can be
 * mounted. */
Test(outdir, a_disk_full_during_the_run_exits_1)
{
	experiment("e.json", "\"fcfs\"", "1");
	cr_expect_eq(sh("trap '' XFSZ; ulimit -f 1; $B run e.json "
			"--no-plots -q"), 1);
	expect_err("write failed: File too large");
	cr_expect(!exists("out/manifest.json"));
	if (geteuid() != 0 ||
	    sh("mkdir small && mount -t tmpfs -o size=4k tmpfs small") != 0)
		cr_skip_test("no tmpfs can be mounted here (not root); the "
			     "file size limit stood in for a full disk");
	int rc = sh("$B run e.json -o small/out --no-plots -q");
	expect_err("No space left on device");
	cr_assert_eq(sh("umount small"), 0);
	cr_expect_eq(rc, 1);
}

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
