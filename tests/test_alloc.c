/*
 * The schedule written for other tools (docs/metrics.md, "Run files").
 * allocations.csv: one row per placement interval, nodes as a Batsim /
 * evalys interval set, so a preempted job has a row per run; asked for by
 * key or option, refused where it cannot apply; and the Gantt chart drawn
 * from it.  jobs.swf: read back by our own SWF reader, its submit, wait
 * and run are those of jobs.csv, its fields 5 and 8 a GPU job's GPUs, and
 * a preempted job is one line.  Both from the same hand-worked las run.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exp/exp.h"
#include "report/gantt.h"
#include "report/out.h"
#include "testlib.h"
#include "base/util.h"
#include "workload/workload.h"

static char tmp[256];
static char bin[512];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "alloc");
}

static void teardown(void)
{
	tl_rmtree(tmp);
}
TestSuite(alloc, .init = setup, .fini = teardown);

/* The interval set of extents (node, count, gpus). */
static void expect_set(const struct place_slot *s, size_t n, uint32_t gpus,
		       const char *want)
{
	char buf[256];
	struct place_slot scratch[16];
	size_t len = out_node_set(buf, s, n, gpus, scratch);
	cr_expect_str_eq(buf, want);
	cr_expect_eq(len, strlen(want));
}

Test(alloc, node_sets_are_sorted_ranges)
{
	const struct place_slot a[] = { { .node = 0, .count = 4 },
					{ .node = 7, .count = 1 } };
	expect_set(a, 2, 0, "0-3,7");
	/* Out of order, touching and overlapping extents join. */
	const struct place_slot b[] = { { .node = 7, .count = 1 },
					{ .node = 4, .count = 2 },
					{ .node = 0, .count = 4 },
					{ .node = 5, .count = 1 },
					{ .node = 10, .count = 3 } };
	expect_set(b, 5, 0, "0-5,7,10-12");
	/* One node, and the nodes of one GPU count only. */
	const struct place_slot c[] = { { .node = 3, .count = 1, .gpus = 4 },
					{ .node = 4, .count = 1, .gpus = 2 },
					{ .node = 5, .count = 1, .gpus = 4 } };
	expect_set(c, 3, 4, "3,5");
	expect_set(c, 3, 2, "4");
	expect_set(c, 1, 4, "3");
}

/* The rows of job id's intervals from the engine's placement log, as
 * allocations.csv writes their nodes: "start-end:nodes/gpus;...". */
static char *log_rows(const struct sim *s, int64_t id)
{
	size_t n, nj;
	const struct place_slot *slots;
	const struct alloc_interval *a = sim_allocations(s, &n, &slots);
	const struct job *jobs = sim_jobs(s, &nj);
	char *out = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		if (jobs[a[i].idx].id != id)
			continue;
		char set[256], t0[32], t1[32];
		struct place_slot scratch[16];
		const struct place_slot *sl = slots + a[i].slot0;
		cr_assert_leq(a[i].nslots, 8);
		out_node_set(set, sl, a[i].nslots, sl[0].gpus, scratch);
		fmt_time(t0, a[i].start);
		fmt_time(t1, a[i].end);
		char *next = xasprintf("%s%s-%s:%s/%u;", out, t0, t1, set,
				       sl[0].gpus);
		free(out);
		out = next;
	}
	return out;
}

/*
 * A migration is a new interval (the consolidation of tests/
 * test_gandiva.c): three nodes of 2 GPUs; X (2 GPUs, 50 s) on node 0, Y
 * (1 GPU, 1000 s) on node 1, D (2 GPUs, 300 s) on node 1's other GPU and
 * node 2's first.  At 50 X ends and D moves to node 0, restores 4 s and
 * ends at 304.  Without the log asked for, there is none.
 */
Test(alloc, a_migrated_job_has_a_row_per_placement)
{
	struct tjob t[] = {
		{ 1, 0, 50, 50, 2 }, { 2, 0, 1000, 1000, 1 },
		{ 3, 0, 300, 300, 2 },
	};
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	for (size_t i = 0; i < w.n; i++) {
		w.jobs[i].gpus = w.jobs[i].cpus;
		w.jobs[i].cpus = 0;
	}
	tl_cluster(&c, 3, 8);
	c.groups[0].gpus = 2;
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .restore_overhead = 2 * SIM_SEC,
				  .restore_per_gpu = SIM_SEC,
				  .record_allocations = true };
	struct sim *s = tl_run_cfg("gandiva", NULL, 0, &cfg);
	char *d = log_rows(s, 3);
	cr_expect_str_eq(d, "0-50:1-2/1;50-304:0/2;");
	free(d);
	d = log_rows(s, 1);
	cr_expect_str_eq(d, "0-50:0/2;");
	free(d);
	sim_free(s);
	cfg.record_allocations = false;
	s = tl_run_cfg("gandiva", NULL, 0, &cfg);
	size_t n;
	const struct place_slot *slots;
	cr_expect_null(sim_allocations(s, &n, &slots));
	cr_expect_eq(n, 0);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

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
 * So A has two rows, on nodes 0-1 with 4 GPUs each.
 */
static const char las_trace[] = "id,submit,run,cpus,gpus\n"
				"1,0,300,0,8\n"
				"2,10,50,0,4\n"
				"3,20,40,0,2\n";
static const char las_allocs[] = "job,start,end,nodes,gpus\n"
				 "1,0,12.5,0-1,4\n"
				 "1,62.5,350,0-1,4\n"
				 "2,12.5,62.5,0,4\n"
				 "3,20,60,1,2\n";

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

Test(alloc, a_preempted_job_has_a_row_per_interval)
{
	run_las("\"allocations\": true, ", "--no-plots");
	char *a = tl_slurp(tmp, "out/las-s1/allocations.csv");
	cr_assert(a);
	cr_expect_str_eq(a, las_allocs);
	free(a);
	/* The job-class column names the class each GPU job was drawn. */
	char *j = tl_slurp(tmp, "out/las-s1/jobs.csv");
	cr_assert(j);
	cr_expect(strstr(j, ",lost_work,measured,job_class\n"));
	cr_expect(strstr(j, ",0,1,Recommendation (batch size 8192)\n"), "%s",
		  j);
	free(j);
}

Test(alloc, the_option_asks_for_it_and_a_rerun_without_drops_it)
{
	run_las("", "--no-plots --allocations");
	char *a = tl_slurp(tmp, "out/las-s1/allocations.csv");
	cr_expect(a && strcmp(a, las_allocs) == 0, "%s", a ? a : "(none)");
	free(a);
	run_las("", "--no-plots");
	char *path = xasprintf("%s/out/las-s1/allocations.csv", tmp);
	cr_expect_neq(access(path, F_OK), 0, "a stale allocations.csv");
	free(path);
}

/*
 * A placement over nodes that give it different GPU counts, and a node
 * set with a gap (quoted, it holds a comma): four nodes of 4 GPUs, fcfs
 * with first-fit placement, jobs of no class (reference speed).  A (2
 * GPUs, 100 s) takes node 0's first two; B (8 GPUs, 5 s), submitted with
 * it, the next free ones: node 0's other two, node 1's four and node 2's
 * first two, so its rows are nodes 0 and 2 with 2 GPUs each and node 1
 * with 4.
 */
Test(alloc, uneven_placements_are_a_row_per_gpu_count)
{
	tl_cli_need_bin(bin);
	tl_put(tmp, "t.csv", "id,submit,run,cpus,gpus\n1,0,100,0,2\n"
			     "2,0,5,0,8\n");
	tl_put(tmp, "x.json",
	       "{\"cluster\": {\"nodes\": [{\"name\": \"g\", \"count\": 4, "
	       "\"cpus\": 8, \"gpus\": 4, \"gpu_type\": \"v100\"}]}, "
	       "\"workload\": {\"trace\": \"t.csv\", \"format\": \"csv\", "
	       "\"job_classes\": \"trace\"}, "
	       "\"policies\": [\"fcfs\"], \"allocations\": true, "
	       "\"output\": \"out\"}");
	int rc = tl_sh(tmp, "'%s' run x.json -q --no-plots", bin);
	char *err = tl_slurp(tmp, "err.txt");
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
	free(err);
	char *a = tl_slurp(tmp, "out/fcfs-s1/allocations.csv");
	cr_assert(a);
	cr_expect_str_eq(a, "job,start,end,nodes,gpus\n"
			    "1,0,100,0,2\n"
			    "2,0,5,\"0,2\",2\n"
			    "2,0,5,1,4\n");
	free(a);
}

/* The Gantt chart's boxes: one per range of a row's node set, quoted
 * or not; no chart past GANTT_MAX_JOBS jobs. */
Test(alloc, gantt_boxes_split_the_node_sets)
{
	tl_put(tmp, "a.csv", "job,start,end,nodes,gpus\n"
			     "2,0,5,\"0-1,3,5-7\",2\n2,5,9,4,1\n7,1,2.5,9,0\n");
	char *csv = xasprintf("%s/a.csv", tmp);
	char *dat = xasprintf("%s/a.dat", tmp);
	struct sim_error err;
	cr_assert_eq(gantt_data(csv, dat, &err), 1, "%s", err.msg);
	char *d = tl_slurp(tmp, "a.dat");
	cr_expect_str_eq(d, "# job start end first_node last_node gpus\n"
			    "2 0 5 0 1 2\n2 0 5 3 3 2\n2 0 5 5 7 2\n"
			    "2 5 9 4 4 1\n7 1 2.5 9 9 0\n");
	free(d);
	/* GANTT_MAX_JOBS + 1 jobs: no chart, and no data file. */
	FILE *f = fopen(csv, "w");
	cr_assert(f);
	fputs("job,start,end,nodes,gpus\n", f);
	for (int k = 0; k <= GANTT_MAX_JOBS; k++)
		fprintf(f, "%d,0,1,0,0\n", k + 1);
	fclose(f);
	unlink(dat);
	cr_expect_eq(gantt_data(csv, dat, &err), 0);
	cr_expect_neq(access(dat, F_OK), 0);
	/* No allocations.csv: no chart. */
	cr_expect_eq(gantt_data("/nonexistent/allocations.csv", dat, &err), 0);
	free(csv);
	free(dat);
}

Test(alloc, the_gantt_chart_is_drawn_from_it)
{
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		cr_skip_test("gnuplot is not installed");
	run_las("\"allocations\": true, ", "");
	char *d = tl_slurp(tmp, "out/plots/gantt-las-s1.dat");
	cr_assert(d);
	cr_expect_str_eq(d, "# job start end first_node last_node gpus\n"
			    "1 0 12.5 0 1 4\n1 62.5 350 0 1 4\n"
			    "2 12.5 62.5 0 0 4\n3 20 60 1 1 2\n");
	free(d);
	char *png = xasprintf("%s/out/plots/gantt-las-s1.png", tmp);
	char *svg = xasprintf("%s/out/plots/gantt-las-s1.svg", tmp);
	cr_expect_eq(access(png, R_OK), 0);
	cr_expect_eq(access(svg, R_OK), 0);
	/* Run again without: no chart is left from the first run. */
	run_las("", "");
	cr_expect_neq(access(png, F_OK), 0, "a stale Gantt chart");
	cr_expect_neq(access(svg, F_OK), 0, "a stale Gantt chart");
	free(png);
	free(svg);
}

/* Where it cannot apply, it is refused: a fill experiment, by key or
 * by option. */
Test(alloc, refused_for_a_fill_experiment)
{
	static const char fill[] = "{\"fill\": {\"nodes\": \"n\", \"pods\": "
				   "\"p\"}, \"policies\": [\"fgd\"]%s}";
	struct experiment e;
	struct sim_error err;
	char *text = xasprintf(fill, ", \"allocations\": true");
	cr_expect_neq(exp_parse(text, "x.json", &e, &err), 0);
	cr_expect(strstr(err.msg, "x.json: $.allocations: does not apply to "
			 "a fill"), "%s", err.msg);
	free(text);
	tl_cli_need_bin(bin);
	text = xasprintf(fill, "");
	tl_put(tmp, "f.json", text);
	free(text);
	cr_expect_eq(tl_sh(tmp, "'%s' run f.json -q --allocations", bin), 2);
	char *msg = tl_slurp(tmp, "err.txt");
	cr_expect(strstr(msg, "--allocations does not apply to a fill"), "%s",
		  msg);
	free(msg);
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
Test(alloc, jobs_swf_reads_back_as_jobs_csv)
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
