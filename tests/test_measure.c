/*
 * Measurement windows ("measure", docs/metrics.md), end to end through
 * the binary: which jobs count, the mean wait over them, and utilization,
 * utilization_alloc and queue_mean over the window's span, for both
 * forms; jobs.csv's "measured" column, summary.csv's measure_* columns,
 * the CDF files; each refusal with exit 2 and the JSON path; and a sweep
 * that reruns when the window changes.
 *
 * The trace, worked by hand: 1 node of 1 CPU, fcfs, five jobs.
 *
 *   job  submit  run  start  end  wait
 *    1      0    10     0     10    0
 *    2      2     4    10     14    8
 *    3      4     6    14     20   10
 *    4     20     5    20     25    0
 *    5     30    10    30     40    0
 *
 * No window: mean wait 18/5 = 3.6, busy 35 s of 40: utilization 0.875,
 * over [0, 40] (basis "makespan").
 *
 * {"start": 2, "end": 28}: jobs 2, 3, 4 (submitted in [2, 28)); mean
 * wait (8 + 10 + 0) / 3 = 6.  Over [2, 28], 26 s: the CPU is busy 2..25
 * (job 1 from 2 to 10, then 2, 3, 4), 23 s: utilization 23/26 =
 * 0.884615 (utilization_alloc the same).  Pending: job 2 from 2 to 10,
 * job 3 from 4 to 14: 8 + 10 = 18 job-seconds, queue_mean 18/26 =
 * 0.692308, queue_max 2.  makespan of the measured jobs: 25 - 2 = 23.
 *
 * {"skip_first": 2, "skip_last": 0}: jobs 3, 4, 5; mean wait 10/3 =
 * 3.333333.  Span: first to last measured submit, [4, 30], 26 s; busy
 * 4..25, 21 s: utilization 21/26 = 0.807692; pending 2 jobs over 4..10
 * and 1 over 10..14: 16/26 = 0.615385.
 *
 * {"start": 20}: jobs 4 and 5, mean wait 0; the open end is the last
 * end, 40: busy 20..25 and 30..40, 15 s of 20, utilization 0.75.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "base/util.h"

static char bin[4096], tmp[256];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "measure");
	tl_cli_need_bin(bin);
}

static void teardown(void)
{
	tl_rmtree(tmp);
}

TestSuite(measure, .init = setup, .fini = teardown);

static const char trace5[] =
	"; MaxProcs: 1\n"
	"1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 2 -1 4 1 -1 -1 1 4 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"3 4 -1 6 1 -1 -1 1 6 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"4 20 -1 5 1 -1 -1 1 5 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"5 30 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n";

/* Writes m.json over trace5 with the root keys extra ("" for none, else
 * ", KEY: VALUE ...") and runs it; the exit code. */
static int run_with(const char *extra)
{
	tl_put(tmp, "t.swf", trace5);
	char *text = xasprintf(
		"{ \"name\": \"m\",\n"
		"  \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },\n"
		"  \"workload\": { \"trace\": \"t.swf\" },\n"
		"  \"policies\": [ \"fcfs\" ], \"output\": \"out\" %s }\n",
		extra);
	tl_put(tmp, "m.json", text);
	free(text);
	return tl_sh(tmp, "'%s' run m.json --no-plots", bin);
}

/* The value of column col in row 1 of summary.csv; the caller frees. */
static char *summary(const char *col)
{
	char *csv = tl_slurp(tmp, "out/summary.csv");
	cr_assert(csv);
	char *nl = strchr(csv, '\n');
	cr_assert(nl);
	*nl = '\0';
	int want = -1, c = 0;
	for (char *p = csv; p; p = strchr(p, ','), c++) {
		p += *p == ',';
		size_t k = strcspn(p, ",");
		if (k == strlen(col) && !strncmp(p, col, k))
			want = c;
	}
	cr_assert(want >= 0, "no column %s", col);
	char *p = nl + 1;
	for (int i = 0; i < want; i++) {
		p = strchr(p, ',');
		cr_assert(p);
		p++;
	}
	char *v = xasprintf("%.*s", (int)strcspn(p, ",\n"), p);
	free(csv);
	return v;
}

#define EXPECT_CELL(col, want)                                               \
	do {                                                                 \
		char *v_ = summary(col);                                     \
		cr_expect_str_eq(v_, want, "%s", col);                       \
		free(v_);                                                    \
	} while (0)

/* The "measured" cell of each jobs.csv row (the one before job_class,
 * which is empty for these HPC jobs), in id order. */
static void expect_measured(const char *want)
{
	char *csv = tl_slurp(tmp, "out/fcfs-s1/jobs.csv");
	cr_assert(csv);
	cr_expect(strstr(csv, ",lost_work,measured,job_class\n"), "%s", csv);
	char got[16] = "";
	size_t n = 0;
	for (char *l = strchr(csv, '\n'); l && l[1] && n < 15;
	     l = strchr(l + 1, '\n')) {
		char *e = strchr(l + 1, '\n');
		cr_assert(e);
		cr_assert_eq(e[-1], ',');
		got[n++] = e[-2];
	}
	cr_expect_str_eq(got, want);
	free(csv);
}

Test(measure, no_window_keeps_the_makespan_and_says_so)
{
	cr_assert_eq(run_with(""), 0);
	EXPECT_CELL("jobs", "5");
	EXPECT_CELL("wait_mean", "3.6");
	EXPECT_CELL("utilization", "0.875");
	EXPECT_CELL("measure_start", "0");
	EXPECT_CELL("measure_end", "40");
	EXPECT_CELL("measure_basis", "makespan");
	expect_measured("11111");
	char *out = tl_slurp(tmp, "out.txt");
	cr_expect(strstr(out, "measured: every job; utilization over first "
			 "submit .. last end"), "%s", out);
	free(out);
	char *man = tl_slurp(tmp, "out/manifest.json");
	cr_expect(strstr(man, "\"measure\":\tnull"), "%s", man);
	free(man);
}

Test(measure, a_time_window_counts_the_jobs_submitted_in_it)
{
	cr_assert_eq(run_with(", \"measure\": { \"start\": 2, \"end\": 28 }"),
		     0);
	EXPECT_CELL("jobs", "3");
	EXPECT_CELL("finished", "3");
	EXPECT_CELL("wait_mean", "6");
	EXPECT_CELL("wait_max", "10");
	EXPECT_CELL("utilization", "0.884615");
	EXPECT_CELL("utilization_alloc", "0.884615");
	EXPECT_CELL("queue_mean", "0.692308");
	EXPECT_CELL("queue_max", "2");
	EXPECT_CELL("makespan", "23");
	EXPECT_CELL("measure_start", "2");
	EXPECT_CELL("measure_end", "28");
	EXPECT_CELL("measure_basis", "time");
	expect_measured("01110");
	/* The wait CDF holds the three measured waits 0, 8, 10. */
	char *cdf = tl_slurp(tmp, "out/fcfs-s1/cdf_wait.csv");
	cr_expect_str_eq(cdf, "value,rank,fraction\n0,1,0.333333333\n"
			      "8,2,0.666666667\n10,3,1\n");
	free(cdf);
	char *sj = tl_slurp(tmp, "out/fcfs-s1/summary.json");
	cr_expect(strstr(sj, "\"measure\":\t{\n\t\t\"basis\":\t\"time\",\n"
			 "\t\t\"start\":\t2,\n\t\t\"end\":\t28\n"), "%s", sj);
	free(sj);
	char *man = tl_slurp(tmp, "out/manifest.json");
	cr_expect(strstr(man, "\"measure\":\t{\n\t\t\t\"start\":\t2,\n"
			 "\t\t\t\"end\":\t28\n"), "%s", man);
	free(man);
	char *out = tl_slurp(tmp, "out.txt");
	cr_expect(strstr(out, "measured: the jobs submitted in [2, 28) s; "
			 "utilization over [2, 28] s\n"), "%s", out);
	free(out);
}

Test(measure, an_open_end_is_the_last_end)
{
	cr_assert_eq(run_with(", \"measure\": { \"start\": 20 }"), 0);
	EXPECT_CELL("jobs", "2");
	EXPECT_CELL("wait_mean", "0");
	EXPECT_CELL("utilization", "0.75");
	EXPECT_CELL("measure_start", "20");
	EXPECT_CELL("measure_end", "40");
	expect_measured("00011");
}

Test(measure, skipped_jobs_leave_the_span_of_the_measured_submits)
{
	cr_assert_eq(run_with(", \"measure\": { \"skip_first\": 2, "
			      "\"skip_last\": 0 }"), 0);
	EXPECT_CELL("jobs", "3");
	EXPECT_CELL("wait_mean", "3.333333");
	EXPECT_CELL("utilization", "0.807692");
	EXPECT_CELL("utilization_alloc", "0.807692");
	EXPECT_CELL("queue_mean", "0.615385");
	EXPECT_CELL("measure_start", "4");
	EXPECT_CELL("measure_end", "30");
	EXPECT_CELL("measure_basis", "jobs");
	expect_measured("00111");
	/* One left out at each end: jobs 2, 3, 4, mean wait 6. */
	cr_assert_eq(run_with(", \"measure\": { \"skip_first\": 1, "
			      "\"skip_last\": 1 }"), 0);
	EXPECT_CELL("wait_mean", "6");
	expect_measured("01110");
}

/* Runs with "measure": m and expects exit 2 and needle in stderr. */
static void refused(const char *m, const char *needle)
{
	char *extra = xasprintf(", \"measure\": %s", m);
	cr_expect_eq(run_with(extra), 2, "%s", m);
	free(extra);
	char *err = tl_slurp(tmp, "err.txt");
	cr_expect(err && strstr(err, needle), "%s: stderr lacks '%s': %s", m,
		  needle, err ? err : "");
	free(err);
}

Test(measure, bad_windows_are_refused_with_their_json_path)
{
	refused("{ \"start\": 1, \"skip_first\": 1 }",
		"m.json: $.measure: give either \"start\"/\"end\"");
	refused("{ \"from\": 1 }", "$.measure");
	refused("{ \"from\": 1 }", "'from'");
	refused("{}", "m.json: $.measure: give \"start\"/\"end\"");
	refused("3", "m.json: $.measure: expected an object");
	refused("{ \"start\": -1 }", "m.json: $.measure.start: must be >= 0");
	refused("{ \"end\": -5 }", "m.json: $.measure.end: must be >= 0");
	refused("{ \"skip_first\": -1 }",
		"m.json: $.measure.skip_first: must be >= 0");
	refused("{ \"skip_last\": 1.5 }",
		"m.json: $.measure.skip_last: expected an integer");
	refused("{ \"start\": 5, \"end\": 5 }",
		"m.json: $.measure.end: must be > start");
	refused("{ \"start\": 9, \"end\": 3 }",
		"m.json: $.measure.end: must be > start");
	refused("{ \"skip_first\": 3, \"skip_last\": 2 }",
		"m.json: $.measure: skip_first 3 and skip_last 2 leave none "
		"of the workload's 5 jobs");
	refused("{ \"skip_first\": 5 }", "m.json: $.measure: skip_first 5");
	refused("{ \"start\": 100 }", "m.json: $.measure: no job of the "
		"workload is submitted in [100, inf) s");
	refused("{ \"start\": 5, \"end\": 10 }", "m.json: $.measure: no job "
		"of the workload is submitted in [5, 10) s");
}

Test(measure, a_sweep_reruns_when_the_window_changes)
{
	tl_put(tmp, "t.swf", trace5);
#define SWEEP_MEASURE(last)                                                  \
	"{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"      \
	" \"workload\": { \"trace\": \"t.swf\" },"                               \
	" \"policies\": [ \"fcfs\" ], \"output\": \"out\","                      \
	" \"measure\": { \"skip_first\": 0, \"skip_last\": " last " },"         \
	" \"sweep\": { \"measure.skip_first\": [ 0, 2 ] } }"
	char *s0 = xstrdup(SWEEP_MEASURE("0")), *s1 = xstrdup(SWEEP_MEASURE("1"));
	tl_put(tmp, "s.json", s0);
	cr_assert_eq(tl_sh(tmp, "'%s' sweep s.json --no-plots", bin), 0);
	char *out = tl_slurp(tmp, "out.txt");
	cr_expect(strstr(out, "2 runs: 2 ran, 0 skipped"), "%s", out);
	free(out);
	cr_assert_eq(tl_sh(tmp, "'%s' sweep s.json --no-plots", bin), 0);
	out = tl_slurp(tmp, "out.txt");
	cr_expect(strstr(out, "2 runs: 0 ran, 2 skipped"), "%s", out);
	free(out);
	/* Another window is another experiment: both run again. */
	tl_put(tmp, "s.json", s1);
	cr_assert_eq(tl_sh(tmp, "'%s' sweep s.json --no-plots", bin), 0);
	out = tl_slurp(tmp, "out.txt");
	cr_expect(strstr(out, "2 runs: 2 ran, 0 skipped"), "%s", out);
	free(out);
	/* The merged rows carry the window: skip_first 2, skip_last 1
	 * measures jobs 3 and 4, waits 10 and 0, over [4, 20]. */
	char *csv = tl_slurp(tmp, "out/summary.csv");
	cr_assert(csv);
	cr_expect(strstr(csv, ",measure_start,measure_end,measure_basis\n"),
		  "%s", csv);
	cr_expect(strstr(csv, ",4,20,jobs\n"), "%s", csv);
	char *row = strstr(csv, "skip_first=2");
	cr_expect(row && strstr(row, ",1,2,2,2,0,0,5,"), "%s", csv);
	free(csv);
	free(s0);
	free(s1);
}

/* A fill experiment has its own window (from the first arrival to the
 * last): "measure" there would be ignored, so it is refused. */
Test(measure, a_fill_experiment_refuses_measure)
{
	tl_put(tmp, "f.json",
	       "{ \"fill\": { \"nodes\": \"n.csv\", \"pods\": [ \"p.csv\" ] },"
	       " \"policies\": [ \"fgd\" ], \"output\": \"out\","
	       " \"measure\": { \"skip_first\": 1 } }");
	cr_expect_eq(tl_sh(tmp, "'%s' run f.json --no-plots", bin), 2);
	char *err = tl_slurp(tmp, "err.txt");
	cr_expect(err && strstr(err, "f.json: $.measure: not used by a fill "
				"experiment"), "%s", err ? err : "");
	free(err);
}
