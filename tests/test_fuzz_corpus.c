/*
 * Replays the fuzz corpus (tests/fuzz/corpus/<name>/) through the fuzz
 * harnesses (tests/fuzz/fuzz_<name>.c), so that every input that once
 * crashed a reader, or that the fuzzers found interesting, is checked by
 * `make test` on every build.  A harness aborts when a contract is broken,
 * which Criterion reports as a crash of that test; the test itself checks
 * that each file came back and that the corpus is there at all.  Runs from
 * the repository root.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/fuzz.h"
#include "fuzz/fuzzlib.h"
#include "base/util.h"

static int fc_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads a whole file; NULL when it cannot. */
static uint8_t *fc_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		xgrow(&buf, &cap, n + 4096, 1);
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return buf;
}

/* Feeds every regular file of dir, in name order, to one; returns how
 * many were replayed. */
static size_t fc_replay(const char *dir, int (*one)(const uint8_t *, size_t))
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0, done = 0;
	struct dirent *de;

	cr_assert_not_null(d, "cannot open corpus folder '%s'", dir);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		xgrow(&names, &cap, n + 1, sizeof(*names));
		names[n++] = path_join(dir, de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), fc_cmp);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		size_t len = 0;
		uint8_t *data;

		if (stat(names[i], &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		data = fc_read(names[i], &len);
		cr_assert_not_null(data, "cannot read '%s'", names[i]);
		cr_assert_eq(one(data, len), 0, "harness refused '%s'",
			     names[i]);
		free(data);
		done++;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return done;
}

/* The seeds alone are more than this many files per harness. */
#define FC_MIN_FILES 5

Test(fuzz_corpus, swf)
{
	cr_assert_geq(fc_replay("tests/fuzz/corpus/swf", fuzz_swf_one),
		      FC_MIN_FILES);
}

Test(fuzz_corpus, csv)
{
	cr_assert_geq(fc_replay("tests/fuzz/corpus/csv", fuzz_csv_one),
		      FC_MIN_FILES);
}

Test(fuzz_corpus, exp)
{
	cr_assert_geq(fc_replay("tests/fuzz/corpus/exp", fuzz_exp_one),
		      FC_MIN_FILES);
}

Test(fuzz_corpus, philly)
{
	cr_assert_geq(fc_replay("tests/fuzz/corpus/philly", fuzz_philly_one),
		      FC_MIN_FILES);
}

Test(fuzz_corpus, tiresias)
{
	cr_assert_geq(fc_replay("tests/fuzz/corpus/tiresias",
				fuzz_tiresias_one),
		      FC_MIN_FILES);
}

Test(fuzz_corpus, pollux)
{
	cr_assert_geq(fc_replay("tests/fuzz/corpus/pollux", fuzz_pollux_one),
		      FC_MIN_FILES);
}

Test(fuzz_corpus, gavel)
{
	cr_assert_geq(fc_replay("tests/fuzz/corpus/gavel", fuzz_gavel_one),
		      FC_MIN_FILES);
}

Test(fuzz_corpus, shockwave)
{
	cr_assert_geq(fc_replay("tests/fuzz/corpus/shockwave",
				fuzz_shockwave_one),
		      FC_MIN_FILES);
}

Test(fuzz_corpus, openb)
{
	cr_assert_geq(fc_replay("tests/fuzz/corpus/openb", fuzz_openb_one),
		      FC_MIN_FILES);
}

/* The whole simulation (every policy; tests/fuzz/fuzz_sim.c): the seeds
 * and what the fuzzer found, each file named after it. */
Test(fuzz_corpus, sim)
{
	cr_assert_geq(fc_replay("tests/fuzz/corpus/sim", fuzz_sim_one),
		      FC_MIN_FILES);
}

/* A broken contract must not pass unnoticed: the harness aborts (its
 * message to stderr is swallowed). */
Test(fuzz_corpus, harness_aborts_on_violation, .signal = SIGABRT,
     .init = cr_redirect_stderr)
{
	struct workload w;
	struct trace_opts o;
	struct job j[2];

	/* Two jobs out of (submit, id) order: not a loaded workload. */
	memset(&w, 0, sizeof(w));
	memset(j, 0, sizeof(j));
	j[0] = (struct job){ .id = 2, .idx = 0, .cpus = 1, .submit = 5,
			     .run = 1, .estimate = 1,
			     .start = SIM_TIME_NONE, .end = SIM_TIME_NONE };
	j[1] = j[0];
	j[1].id = 1;
	j[1].idx = 1;
	w.jobs = j;
	w.n = 2;
	w.max_procs = w.max_nodes = -1;
	w.report.jobs = w.report.jobs_read = w.report.lines = 2;
	trace_opts_default(&o);
	fuzz_check_workload(&w, &o);
}
