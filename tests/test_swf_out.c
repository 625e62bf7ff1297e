/*
 * jobs.swf, the simulated schedule in the Standard Workload Format
 * (docs/metrics.md, "Run files"): read back by our own SWF reader, its
 * submit, wait and run are those of jobs.csv, its fields 5 and 8 a GPU
 * job's GPUs, and a preempted job is one line.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "base/util.h"
#include "workload/workload.h"

static char tmp[256];
static char bin[512];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "swf-out");
}

static void teardown(void)
{
	tl_rmtree(tmp);
}
TestSuite(swf_out, .init = setup, .fini = teardown);

/* Two nodes of 4 GPUs; las with one threshold at 100 GPU-s. */
static const char las_json[] =
	"{\"name\": \"alloc\", \"cluster\": {\"nodes\": [{\"name\": \"g\", "
	"\"count\": 2, \"cpus\": 8, \"gpus\": 4, \"gpu_type\": \"v100\"}]}, "
	"\"workload\": {\"trace\": \"t.csv\", \"format\": \"csv\"}, "
	"\"policies\": [{\"name\": \"las\", \"params\": "
	"{\"thresholds_s\": \"100\"}}], %s\"output\": \"out\"}";

/*
 * A (8 GPUs, 300 s, submit 0), B (4 GPUs, 50 s, submit 10), C (2 GPUs,
 * 40 s, submit 20); every job runs at its reference speed (one node
 * each, or A alone on the fabric).
 *   0     A starts on both nodes (queue 0).
 *   12.5  A has 100 GPU-s: demoted; B (queue 0) preempts it, node 0.
 *   20    C starts on node 1's free GPUs.
 *   60    C ends (40 s, 80 GPU-s: never demoted).
 *   62.5  B ends (50 s: its 200 GPU-s pass 100 at 37.5, but nothing
 *         waits in queue 0 and A does not fit beside it); A restarts and
 *         does its other 287.5 s: it ends at 350.
 * So A is preempted once: it waited 50 s in all (12.5 .. 62.5) and ran
 * from its first start at 0 to its end at 350.
 */
static const char las_trace[] = "id,submit,run,cpus,gpus\n"
				"1,0,300,0,8\n"
				"2,10,50,0,4\n"
				"3,20,40,0,2\n";
static void run_las(const char *key, const char *opts)
{
	tl_cli_need_bin(bin);
	char *json = xasprintf(las_json, key);
	tl_put(tmp, "x.json", json);
	free(json);
	tl_put(tmp, "t.csv", las_trace);
	int rc = tl_sh(tmp, "'%s' run x.json -q %s", bin, opts);
	char *err = tl_slurp(tmp, "err.txt");
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
	free(err);
}

/* The cells of a CSV line without quotes, in place. */
static size_t cells(char *line, char **c, size_t max)
{
	size_t n = 0;
	for (char *p = line; n < max; p++) {
		c[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p = '\0';
	}
	return n;
}

/* jobs.swf read back by the SWF reader: ids, submit, run and processors
 * as jobs.csv has them, and field 3 (not kept by the reader) its wait. */
Test(swf_out, jobs_swf_reads_back_as_jobs_csv)
{
	run_las("", "--no-plots");
	char *path = xasprintf("%s/out/las-s1/jobs.swf", tmp);
	struct trace_opts o;
	trace_opts_default(&o);
	struct workload w;
	struct sim_error err;
	cr_assert_eq(trace_load_swf(path, &o, &w, &err), 0, "%s", err.msg);
	cr_assert_eq(w.n, 3);
	cr_expect_eq(w.max_nodes, 2);
	cr_expect_eq(w.max_procs, 16);
	char *csv = tl_slurp(tmp, "out/las-s1/jobs.csv");
	char *swf = tl_slurp(tmp, "out/las-s1/jobs.swf");
	char *save = NULL, *line = strtok_r(csv, "\n", &save);
	char *ssave = NULL, *sline = strtok_r(swf, "\n", &ssave);
	for (size_t i = 0; i < w.n; i++) {
		char *c[32];
		line = strtok_r(NULL, "\n", &save);
		cr_assert(line);
		cr_assert_geq(cells(line, c, 32), 26);
		while (sline && *sline == ';')
			sline = strtok_r(NULL, "\n", &ssave);
		cr_assert(sline);
		/* id submit wait run alloc ... req */
		long long id;
		double submit, wait, run;
		cr_assert_eq(sscanf(sline, "%lld %lf %lf %lf", &id, &submit,
				    &wait, &run), 4);
		sline = strtok_r(NULL, "\n", &ssave);
		const struct job *j = &w.jobs[i];
		cr_expect_eq(j->id, atoll(c[0]));
		cr_expect_eq(id, j->id);
		cr_expect_eq(j->submit, (sim_time_t)(atof(c[1]) * SIM_SEC));
		cr_expect_eq(j->run, (sim_time_t)(atof(c[5]) * SIM_SEC));
		cr_expect_eq(wait, atof(c[4]), "job %lld wait", id);
		cr_expect_eq(submit, atof(c[1]));
		cr_expect_eq(run, atof(c[5]));
		/* Fields 5 and 8 hold a GPU job's GPUs. */
		cr_expect_eq(j->cpus, (uint32_t)atoi(c[14]));
	}
	/* A preempted job: one line, status 1, its total wait. */
	free(swf);
	swf = tl_slurp(tmp, "out/las-s1/jobs.swf");
	cr_expect(strstr(swf, "\n1 0 50 350 8 -1 -1 8 -1 -1 1 -1 -1 "));
	workload_release(&w);
	free(csv);
	free(swf);
	free(path);
}
