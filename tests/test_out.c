/*
 * Tests of the result files (sim/report/out.c) and plots (sim/report/plot.c): exact
 * bytes of jobs.csv, timeline.csv and summary.csv for hand-built runs,
 * atomic writes, byte-identical rewrites, manifest hashes checked against
 * sha256sum, and PNG/SVG output when gnuplot is installed.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/out.h"
#include "base/util.h"
#include "base/version.h"

#define S(x) ((sim_time_t)((x) * (double)SIM_SEC + ((x) < 0 ? -0.5 : 0.5)))

/* ---- helpers ---- */

static char *out_tmpdir(void)
{
	char *d = xstrdup("/tmp/clustersim-out-XXXXXX");
	cr_assert(mkdtemp(d), "mkdtemp");
	return d;
}

static int out_rm_one(const char *p, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	return remove(p);
}

static void out_rmtree(char *d)
{
	nftw(d, out_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
}

static char *out_slurp(const char *dir, const char *name, size_t *len)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "rb");
	cr_assert(f, "cannot open %s", p);
	free(p);
	size_t cap = 4096, n = 0, k;
	char *s = xmalloc(cap + 1);
	while ((k = fread(s + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap)
			s = xrealloc(s, (cap *= 2) + 1);
	}
	fclose(f);
	s[n] = '\0';
	if (len)
		*len = n;
	return s;
}

/* Whether any file under dir has ".tmp" in its name. */
static int out_tmp_found;
static int out_tmp_check(const char *p, const struct stat *st, int flag,
			 struct FTW *ftw)
{
	if (strstr(p + ftw->base, ".tmp"))
		out_tmp_found = 1;
	return 0;
}

static bool out_has_tmp(const char *dir)
{
	out_tmp_found = 0;
	nftw(dir, out_tmp_check, 16, FTW_PHYS);
	return out_tmp_found;
}

static struct job out_job(int64_t id, double submit, double start,
			  double end, uint32_t cpus, double est, int32_t user,
			  int32_t group, enum job_state st)
{
	struct job j = { 0 };
	j.id = id;
	j.cpus = cpus;
	j.user = user;
	j.group = group;
	j.submit = S(submit);
	j.start = start < 0 ? SIM_TIME_NONE : S(start);
	j.end = end < 0 ? SIM_TIME_NONE : S(end);
	j.run = start < 0 ? S(10) : j.end - j.start;
	if (start >= 0) { /* never preempted, unless the caller says so */
		j.queued = j.start - j.submit;
		j.service = j.run;
	}
	if (est >= 0) {
		j.estimate = S(est);
		j.flags = JOB_HAS_ESTIMATE;
	} else {
		j.estimate = j.run;
	}
	j.state = (uint8_t)st;
	return j;
}

/*
 * Given in (submit, id) order; written sorted by id.  tau = 10 s.
 *   id 1: submit 5.5 start 10 end 15.25: wait 4.5, run 5.25, response
 *         9.75, slowdown 9.75/5.25 = 1.857142.. -> "1.857143", bsld
 *         max(1, 9.75/max(5.25,10)) = 1; no estimate, no user/group.
 *   id 2: rejected: only submit, procs, estimate, user, group, state.
 *   id 3: 0..100, wait 0, slowdown 1, bsld 1.
 *   id 4: killed 40..100 (submit 30): wait 10, run 60, response 70,
 *         slowdown = bsld = 70/60 = 1.1666.. -> "1.166667".
 * GPU columns: id 3 held 2 GPUs of type 1 ("v100") on 1 node, id 4 one
 * node and no GPUs; id 1 records no node (0); the rejected id 2 has none.
 * id 3 was preempted once, got 212.5 GPU-s, waited 30 s in all (its
 * wait; its first wait 0), would have run 80 s alone (its service:
 * slowdown = bsld = 100 / 80 = 1.25) and redid 12.5 s of work; the others
 * were never preempted (queued = first wait, service = run, nothing
 * lost), the rejected job has none of them.
 */
static void out_jobs(struct job *j)
{
	j[0] = out_job(3, 0, 0, 100, 4, 200, 7, 1, JOB_FINISHED);
	j[1] = out_job(1, 5.5, 10, 15.25, 2, -1, -1, -1, JOB_FINISHED);
	j[2] = out_job(2, 20, -1, -1, 64, 50, 3, 0, JOB_REJECTED);
	j[3] = out_job(4, 30, 40, 100, 1, 60, 2, -1, JOB_KILLED);
	for (uint32_t i = 0; i < 4; i++)
		j[i].idx = i;
	j[0].gpus = 2;
	j[0].nodes_used = 1;
	j[0].gpu_type_used = 1;
	j[0].preemptions = 1;
	j[0].attained = 212.5;
	j[0].queued = 30 * SIM_SEC;
	j[0].service = 80 * SIM_SEC;
	j[0].lost_work = 12.5;
	j[0].placement_slowdown = 1.25;
	j[0].restarts = 2; /* a restart and a migration */
	j[0].job_class = 1; /* a GPU job's class is named; j[3]'s is not */
	j[3].nodes_used = 1;
}

static const char *const out_gpu_types[] = { "v100" };

static const char out_jobs_csv[] =
	"id,submit,start,end,wait,run,response,slowdown,bounded_slowdown,"
	"procs,estimate,user,group,state,gpus,nodes,gpu_type,preemptions,"
	"restarts,attained,queued,placement_slowdown,first_wait,service,"
	"lost_work,measured,job_class\n"
	"1,5.5,10,15.25,4.5,5.25,9.75,1.857143,1,2,,,,finished,0,0,,0,0,0,4.5,"
	",4.5,5.25,0,1,\n"
	"2,20,,,,,,,,64,50,3,0,rejected,0,,,0,0,,,,,,,1,\n"
	"3,0,0,100,30,100,100,1.25,1.25,4,200,7,1,finished,2,1,v100,1,2,212.5,"
	"30,1.25,0,80,12.5,1,ResNet-18 (batch size 16)\n"
	"4,30,40,100,10,60,70,1.166667,1.166667,1,60,2,,killed,0,1,,0,0,0,10,"
	",10,60,0,1,\n";

static const struct sample out_samples[] = {
	{ .t = 0, .busy_cpus = 4, .util = 0.4, .util_avg = 0, .running = 1,
	  .busy_gpus = 2, .gpu_util_avg = 0.5 },
	{ .t = 10500000, .busy_cpus = 6, .util = 0.6, .util_avg = 0.4,
	  .running = 2, .queued = 1, .queued_cpus = 64, .gpu_util_avg = NAN },
};

static const char out_timeline_csv[] =
	"time,busy_cpus,utilization,utilization_avg,running,queued,"
	"queued_cpus,busy_gpus,gpu_utilization_avg\n"
	"0,4,0.4,0,1,0,0,2,0.5\n"
	"10.5,6,0.6,0.4,2,1,64,0,\n"; /* no GPU figure: empty */

static const char out_summary_header[] =
	"label,policy,workload,seed,jobs,finished,killed,rejected,"
	"wait_mean,wait_median,wait_p90,wait_p95,wait_p99,wait_max,"
	"response_mean,response_median,response_p95,response_p99,"
	"response_max,slowdown_mean,bsld_mean,bsld_median,bsld_p95,bsld_p99,"
	"bsld_max,utilization,utilization_alloc,makespan,queue_mean,"
	"queue_max,utilization_gpu,queued_mean,ftf_mean,ftf_max,jain,"
	"placement_slowdown_mean,first_wait_mean,first_wait_p95,"
	"preemptions_mean,lost_work_mean,ftf_isolated_mean,ftf_isolated_max,"
	"measure_start,measure_end,"
	"measure_basis\n";

static void out_result(struct run_result *r, const struct job *jobs,
		       size_t n)
{
	memset(r, 0, sizeof(*r));
	r->label = "easy";
	r->policy = "easy";
	r->workload = "tiny.swf";
	r->seed = 1;
	r->jobs = jobs;
	r->njobs = n;
	r->samples = out_samples;
	r->nsamples = ARRAY_SIZE(out_samples);
	r->counters.events = 12;
	r->counters.schedule_calls = 5;
	r->counters.bad_calls = 0;
	/* Two metrics set by hand, the rest does not apply. */
	r->metrics.v[M_JOBS] = 4;
	r->metrics.set[M_JOBS] = true;
	r->metrics.v[M_WAIT_MEAN] = 3.625;
	r->metrics.set[M_WAIT_MEAN] = true;
}

/* ---- tests ---- */

Test(out, run_dirname)
{
	struct run_result r = { .label = "fcfs", .seed = 42 };
	char buf[64];
	out_run_dirname(&r, buf, sizeof(buf));
	cr_expect_str_eq(buf, "fcfs-s42");
}

Test(out, run_files_exact_bytes)
{
	char *d = out_tmpdir();
	struct job jobs[4];
	struct run_result r;
	struct sim_error err = { "" };
	out_jobs(jobs);
	out_result(&r, jobs, 4);
	r.gpu_types = out_gpu_types;
	r.ngpu_types = 1;
	cr_assert_eq(out_write_run(d, &r, 10 * SIM_SEC, &err), 0, "%s",
		     err.msg);

	char *s = out_slurp(d, "easy-s1/jobs.csv", NULL);
	cr_expect_str_eq(s, out_jobs_csv);
	free(s);
	s = out_slurp(d, "easy-s1/timeline.csv", NULL);
	cr_expect_str_eq(s, out_timeline_csv);
	free(s);

	s = out_slurp(d, "easy-s1/summary.json", NULL);
	cJSON *root = cJSON_Parse(s);
	cr_assert(root, "summary.json is not JSON");
	cr_expect_str_eq(cJSON_GetObjectItem(root, "label")->valuestring,
			 "easy");
	cr_expect_str_eq(cJSON_GetObjectItem(root, "workload")->valuestring,
			 "tiny.swf");
	cr_expect_eq(cJSON_GetObjectItem(root, "seed")->valuedouble, 1);
	cJSON *c = cJSON_GetObjectItem(root, "counters");
	cr_expect_eq(cJSON_GetObjectItem(c, "events")->valuedouble, 12);
	cr_expect_eq(cJSON_GetObjectItem(c, "schedule_calls")->valuedouble,
		     5);
	cr_expect_eq(cJSON_GetObjectItem(c, "bad_calls")->valuedouble, 0);
	cr_expect_eq(cJSON_GetObjectItem(c, "preemptions")->valuedouble, 0);
	cr_expect_eq(cJSON_GetObjectItem(c, "lost_work_s")->valuedouble, 0);
	cJSON *m = cJSON_GetObjectItem(root, "metrics");
	cr_assert_eq(cJSON_GetArraySize(m), M_NMETRICS);
	int i = 0;
	for (cJSON *it = m->child; it; it = it->next, i++) {
		cr_expect_str_eq(it->string, metric_defs[i].name);
		if (i == M_JOBS)
			cr_expect_eq(it->valuedouble, 4);
		else if (i == M_WAIT_MEAN)
			cr_expect_eq(it->valuedouble, 3.625);
		else
			cr_expect(cJSON_IsNull(it), "%s should be null",
				  it->string);
	}
	cJSON_Delete(root);
	free(s);
	cr_expect(!out_has_tmp(d), "a temporary file was left behind");
	out_rmtree(d);
}

Test(out, summary_csv)
{
	char *d = out_tmpdir();
	struct job jobs[4];
	struct run_result r[2];
	struct sim_error err = { "" };
	out_jobs(jobs);
	out_result(&r[0], jobs, 4);
	out_result(&r[1], jobs, 4);
	r[1].label = "easy, tuned"; /* a comma: the cell is quoted */
	r[1].seed = 7;
	r[1].metrics.v[M_QUEUE_MAX] = 3;
	r[1].metrics.set[M_QUEUE_MAX] = true;
	cr_assert_eq(out_write_summary(d, r, 2, &err), 0, "%s", err.msg);
	char *s = out_slurp(d, "summary.csv", NULL);
	/* 38 metric cells per row: jobs, then wait_mean fifth, rest empty;
	 * then the window, whose bounds are empty (no job ran here). */
	char *expect = xasprintf(
		"%s"
		"easy,easy,tiny.swf,1,4,,,,3.625,,,,,,,,,,,,,,,,,,,,,,,,,,,"
		",,,,,,,,,makespan\n"
		"\"easy, tuned\",easy,tiny.swf,7,4,,,,3.625,,,,,,,,,,,,,,,,,"
		",,,,3,,,,,,,,,,,,,,,makespan\n",
		out_summary_header);
	cr_expect_str_eq(s, expect);
	free(expect);
	free(s);
	cr_expect(!out_has_tmp(d));
	out_rmtree(d);
}

/* Random jobs given in submit order with shuffled, partly negative ids:
 * rows must come out in id order (checked against qsort), and every
 * ratio cell must be exactly fmt_double of the value (a second method for
 * the fast formatter). */
static int out_cmp_id(const void *a, const void *b)
{
	int64_t x = ((const struct job *)a)->id, y = ((const struct job *)b)->id;
	return (x > y) - (x < y);
}

Test(out, many_jobs_sorted_and_formatted)
{
	enum { N = 5000 };
	char *d = out_tmpdir();
	struct job *jobs = xcalloc(N, sizeof(*jobs));
	struct job *byid = xmalloc(N * sizeof(*byid));
	struct run_result r;
	struct sim_error err = { "" };
	uint64_t x = 99;
	for (size_t i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		struct job *j = &jobs[i];
		j->id = (int64_t)(x >> 20) - ((int64_t)1 << 43);
		j->idx = (uint32_t)i;
		j->cpus = 1 + (uint32_t)(x % 64);
		j->user = j->group = -1;
		j->submit = (sim_time_t)i * 1000003;
		j->start = j->submit + (sim_time_t)(x >> 44);
		j->end = j->start + (sim_time_t)(x >> 37 & 0xffffff);
		j->queued = j->start - j->submit;
		j->service = j->end - j->start;
		j->state = JOB_FINISHED;
	}
	memcpy(byid, jobs, N * sizeof(*byid));
	qsort(byid, N, sizeof(*byid), out_cmp_id);
	out_result(&r, jobs, N);
	cr_assert_eq(out_write_run(d, &r, 10 * SIM_SEC, &err), 0, "%s",
		     err.msg);
	char *s = out_slurp(d, "easy-s1/jobs.csv", NULL);
	char *save = NULL;
	char *line = strtok_r(s, "\n", &save); /* header */
	for (size_t i = 0; i < N; i++) {
		line = strtok_r(NULL, "\n", &save);
		cr_assert(line, "row %zu missing", i);
		char want[512], a[32], b[32];
		const struct job *j = &byid[i];
		double sld = stats_slowdown(j);
		if (isnan(sld))
			a[0] = '\0';
		else
			fmt_double(a, sld);
		fmt_double(b, stats_bounded_slowdown(j, 10 * SIM_SEC));
		char t[6][32];
		fmt_time(t[0], j->submit);
		fmt_time(t[1], j->start);
		fmt_time(t[2], j->end);
		fmt_time(t[3], j->start - j->submit);
		fmt_time(t[4], j->end - j->start);
		fmt_time(t[5], j->end - j->submit);
		snprintf(want, sizeof(want),
			 "%lld,%s,%s,%s,%s,%s,%s,%s,%s,%u,,,,finished,0,0,,0,0,0,"
			 "%s,,%s,%s,0,1,",
			 (long long)j->id, t[0], t[1], t[2], t[3], t[4], t[5],
			 a, b, j->cpus, t[3], t[3], t[4]);
		cr_assert_str_eq(line, want, "row %zu", i);
	}
	cr_expect_null(strtok_r(NULL, "\n", &save));
	free(s);
	free(byid);
	free(jobs);
	out_rmtree(d);
}

Test(out, rewrite_gives_identical_bytes)
{
	char *d = out_tmpdir();
	struct job jobs[4];
	struct run_result r;
	struct sim_error err = { "" };
	static const char *const files[] = { "easy-s1/jobs.csv",
					     "easy-s1/timeline.csv",
					     "easy-s1/summary.json",
					     "summary.csv" };
	char *first[ARRAY_SIZE(files)];
	out_jobs(jobs);
	out_result(&r, jobs, 4);
	for (int pass = 0; pass < 2; pass++) {
		cr_assert_eq(out_write_run(d, &r, 10 * SIM_SEC, &err), 0);
		cr_assert_eq(out_write_summary(d, &r, 1, &err), 0);
		for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
			char *s = out_slurp(d, files[i], NULL);
			if (pass == 0) {
				first[i] = s;
			} else {
				cr_expect_str_eq(s, first[i], "%s", files[i]);
				free(s);
				free(first[i]);
			}
		}
	}
	cr_expect(!out_has_tmp(d));
	out_rmtree(d);
}

Test(out, write_into_missing_parent_fails_cleanly)
{
	struct job jobs[4];
	struct run_result r;
	struct sim_error err = { "" };
	out_jobs(jobs);
	out_result(&r, jobs, 4);
	/* A regular file where the folder should be. */
	char *d = out_tmpdir();
	char *f = xasprintf("%s/file", d);
	FILE *fp = fopen(f, "w");
	fclose(fp);
	cr_expect_lt(out_write_run(f, &r, 10 * SIM_SEC, &err), 0);
	cr_expect_neq(err.msg[0], '\0');
	free(f);
	out_rmtree(d);
}

Test(out, manifest)
{
	char *d = out_tmpdir();
	char *exp = xasprintf("%s/exp.json", d);
	char *trace = xasprintf("%s/trace.swf", d);
	char *res = xasprintf("%s/results", d);
	struct experiment e;
	struct job jobs[4];
	struct run_result r[2];
	struct sim_error err = { "" };
	uint64_t seeds[] = { 1, 7 };
	/* Known contents; hashes from sha256sum:
	 *   printf 'hello\n' | sha256sum ; printf 'abc' | sha256sum */
	write_file_atomic(exp, "hello\n", &err);
	write_file_atomic(trace, "abc", &err);
	memset(&e, 0, sizeof(e));
	e.path = exp;
	e.workload.trace = trace;
	e.seeds = seeds;
	e.nseeds = 2;
	e.resolved_json = "{\"name\": \"tiny\", \"seeds\": [1, 7]}";
	out_jobs(jobs);
	out_result(&r[0], jobs, 4);
	out_result(&r[1], jobs, 4);
	r[1].seed = 7;

	cr_assert_eq(out_write_manifest(res, &e, r, 2, &err), 0, "%s",
		     err.msg);
	char *s = out_slurp(res, "manifest.json", NULL);
	cJSON *root = cJSON_Parse(s);
	cr_assert(root);
	cr_expect_str_eq(cJSON_GetObjectItem(root, "tool")->valuestring,
			 "clustersim");
	cr_expect_str_eq(cJSON_GetObjectItem(root, "version")->valuestring,
			 CLUSTERSIM_VERSION);
	cr_expect_str_eq(cJSON_GetObjectItem(root, "revision")->valuestring,
			 version_revision());
	/* Paths relative to the experiment file's folder. */
	cr_expect_str_eq(
		cJSON_GetObjectItem(root, "experiment")->valuestring,
		"exp.json");
	cJSON *in = cJSON_GetObjectItem(root, "inputs");
	cr_assert_eq(cJSON_GetArraySize(in), 2);
	cJSON *i0 = cJSON_GetArrayItem(in, 0), *i1 = cJSON_GetArrayItem(in, 1);
	cr_expect_str_eq(cJSON_GetObjectItem(i0, "path")->valuestring,
			 "exp.json");
	cr_expect_str_eq(
		cJSON_GetObjectItem(i0, "sha256")->valuestring,
		"5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
	cr_expect_str_eq(cJSON_GetObjectItem(i1, "path")->valuestring,
			 "trace.swf");
	cr_expect_str_eq(
		cJSON_GetObjectItem(i1, "sha256")->valuestring,
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	cJSON *sd = cJSON_GetObjectItem(root, "seeds");
	cr_assert_eq(cJSON_GetArraySize(sd), 2);
	cr_expect_eq(cJSON_GetArrayItem(sd, 1)->valuedouble, 7);
	cJSON *runs = cJSON_GetObjectItem(root, "runs");
	cr_assert_eq(cJSON_GetArraySize(runs), 2);
	cJSON *r1 = cJSON_GetArrayItem(runs, 1);
	cr_expect_str_eq(cJSON_GetObjectItem(r1, "label")->valuestring, "easy");
	cr_expect_str_eq(cJSON_GetObjectItem(r1, "policy")->valuestring,
			 "easy");
	cr_expect_eq(cJSON_GetObjectItem(r1, "seed")->valuedouble, 7);
	cr_expect_str_eq(cJSON_GetObjectItem(r1, "dir")->valuestring,
			 "easy-s7");
	cJSON *cfg = cJSON_GetObjectItem(root, "config");
	cr_expect_str_eq(cJSON_GetObjectItem(cfg, "name")->valuestring,
			 "tiny");
	cJSON_Delete(root);
	cr_expect_null(strstr(s, "time"), "no timestamps in the manifest");

	/* Equal inputs, equal bytes. */
	cr_assert_eq(out_write_manifest(res, &e, r, 2, &err), 0);
	char *s2 = out_slurp(res, "manifest.json", NULL);
	cr_expect_str_eq(s, s2);
	free(s2);
	free(s);
	cr_expect(!out_has_tmp(d));

	/* A missing input is an error naming the file. */
	e.workload.trace = "/nonexistent/trace.swf";
	cr_expect_lt(out_write_manifest(res, &e, r, 2, &err), 0);
	cr_expect(strstr(err.msg, "/nonexistent/trace.swf"), "%s", err.msg);
	/* A generated workload has no trace to hash. */
	e.workload.generated = true;
	cr_expect_eq(out_write_manifest(res, &e, r, 2, &err), 0, "%s",
		     err.msg);
	free(exp);
	free(trace);
	free(res);
	out_rmtree(d);
}

/* ---- plots ---- */

static bool plot_have_gnuplot(void)
{
	return system("gnuplot --version >/dev/null 2>&1") == 0;
}

static void plot_check_magic(const char *dir, const char *name,
			     const char *magic, size_t n)
{
	size_t len;
	char *s = out_slurp(dir, name, &len);
	cr_expect(len > n && memcmp(s, magic, n) == 0,
		  "%s does not start with the right magic bytes", name);
	free(s);
}

Test(plot, pngs_and_svgs)
{
	if (!plot_have_gnuplot())
		cr_skip_test("gnuplot is not installed");
	char cwd[PATH_MAX];
	cr_assert(getcwd(cwd, sizeof(cwd)));
	char *pdir = xasprintf("%s/plots", cwd);
	if (access(pdir, R_OK) != 0)
		cr_skip_test("no plots folder in the current directory");
	setenv("CLUSTERSIM_PLOTS", pdir, 1);

	char *d = out_tmpdir();
	struct job jobs[4];
	struct run_result r[2];
	struct sim_error err = { "" };
	out_jobs(jobs);
	out_result(&r[0], jobs, 4);
	out_result(&r[1], jobs, 4);
	r[1].label = "fcfs";
	r[1].metrics.v[M_BSLD_MEAN] = 1.5;
	r[1].metrics.set[M_BSLD_MEAN] = true;
	for (int i = 0; i < 2; i++)
		cr_assert_eq(out_write_run(d, &r[i], 10 * SIM_SEC, &err), 0);
	cr_assert_eq(out_write_summary(d, r, 2, &err), 0);

	int rc = plot_results(d, &err);
	cr_assert_eq(rc, 0, "plot_results: %d %s", rc, err.msg);
	static const char *const names[] = { "wait_cdf", "response_cdf",
					     "utilization", "queue",
					     "metrics_bars" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *png = xasprintf("plots/%s.png", names[i]);
		char *svg = xasprintf("plots/%s.svg", names[i]);
		plot_check_magic(d, png, "\x89PNG\r\n\x1a\n", 8);
		plot_check_magic(d, svg, "<?xml", 5);
		free(png);
		free(svg);
	}
	free(pdir);
	out_rmtree(d);
}

Test(plot, missing_gnuplot_is_a_warning)
{
	char *d = out_tmpdir();
	struct sim_error err = { "" };
	setenv("PATH", d, 1); /* an empty folder: no gnuplot anywhere */
	cr_expect_eq(plot_results(d, &err), 1);
	cr_expect_str_eq(err.msg,
			 "gnuplot not found: plots skipped (results are "
			 "intact)");
	out_rmtree(d);
}

Test(plot, gnuplot_failure_is_reported)
{
	if (!plot_have_gnuplot())
		cr_skip_test("gnuplot is not installed");
	char *d = out_tmpdir();
	char *pdir = xasprintf("%s/gp", d);
	char *bad = xasprintf("%s/gp/bad.gp", d);
	struct job jobs[4];
	struct run_result r;
	struct sim_error err = { "" };
	cr_assert_eq(mkdir_p(pdir, &err), 0);
	/* An undefined variable: gnuplot stops with exit code 1. */
	cr_assert_eq(write_file_atomic(bad, "plot no_such_variable\n", &err),
		     0);
	setenv("CLUSTERSIM_PLOTS", pdir, 1);
	out_jobs(jobs);
	out_result(&r, jobs, 4);
	cr_assert_eq(out_write_run(d, &r, 10 * SIM_SEC, &err), 0);
	cr_assert_eq(out_write_summary(d, &r, 1, &err), 0);
	cr_expect_eq(plot_results(d, &err), -SIM_EIO);
	cr_expect(strstr(err.msg, "exit code 1"), "%s", err.msg);
	size_t len;
	char *log = out_slurp(d, "plots/gnuplot.log", &len);
	cr_expect_gt(len, 0, "gnuplot's message is in the log");
	free(log);
	free(bad);
	free(pdir);
	out_rmtree(d);
}
