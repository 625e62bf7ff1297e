/*
 * report.html and `clustersim plot` on every kind of results folder
 * (report/report.h): each kind (run, sweep, fill, replay, optimize) is
 * written without plots, then `plot DIR` redraws its plots and rewrites
 * its report with every SVG inline; without gnuplot the report keeps its
 * tables and says the plots were skipped; every text from a file is
 * escaped and an SVG with a script is left out.  The browser test is in
 * test_report_browser.c.  Tests that draw skip, saying so, without
 * gnuplot; those that run the binary, without it.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "report/report.h"
#include "testlib.h"

static char tmp[256];
static char bin[512];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "report");
}

static void teardown(void)
{
	tl_rmtree(tmp);
}

TestSuite(report, .init = setup, .fini = teardown);

/* tl_put(), creating the folders of name first. */
static void put(const char *name, const char *text)
{
	struct sim_error err;
	char *path = path_join(tmp, name);
	char *dir = path_dirname(path);
	cr_assert_eq(mkdir_p(dir, &err), 0, "%s", err.msg);
	tl_put(tmp, name, text);
	free(dir);
	free(path);
}
#define slurp(name) tl_slurp(tmp, name)
#define sh(...) tl_sh(tmp, __VA_ARGS__)

static void need_gnuplot(void)
{
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		cr_skip_test("gnuplot is not installed");
}

/* Occurrences of needle in s. */
static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The *.svg files of tmp/rel. */
static size_t svgs_in(const char *rel)
{
	char *d = path_join(tmp, rel);
	DIR *dir = opendir(d);
	size_t n = 0;
	struct dirent *de;
	while (dir && (de = readdir(dir)))
		n += str_ends_with(de->d_name, ".svg");
	if (dir)
		closedir(dir);
	free(d);
	return n;
}

/* A small generated workload: 150 jobs on 8 four-CPU nodes. */
#define GEN_CLUSTER \
	"\"cluster\": { \"nodes\": [ { \"name\": \"cpu\", \"count\": 8, " \
	"\"cpus\": 4 } ] },\n"
#define GEN_WORKLOAD \
	"\"workload\": { \"generate\": { \"jobs\": 150,\n" \
	"  \"interarrival\": { \"dist\": \"exponential\", \"mean\": 60 },\n" \
	"  \"runtime\": { \"dist\": \"lognormal\", \"mu\": 6, " \
	"\"sigma\": 1 },\n" \
	"  \"cpus\": { \"dist\": \"pow2\", \"min\": 1, \"max\": 16 } } },\n"

/* A fill or replay experiment (mode "" or "replay") on two 2-GPU nodes
 * and three pods with times. */
static void pods_experiment(const char *name, const char *mode)
{
	put("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
			 "n0,8000,1000,2,V100\nn1,8000,1000,2,V100\n");
	put("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,"
			"creation_time,deletion_time\n"
			"p0,1000,10,1,500,0,50\np1,1000,10,1,700,10,\n"
			"p2,1000,10,2,1000,20,90\n");
	char *text = xasprintf(
		"{ \"fill\": { %s\"nodes\": \"nodes.csv\", \"pods\": "
		"\"pods.csv\"%s },\n  \"policies\": [ \"bestfit\", \"fgd\" ],\n"
		"  \"output\": \"out\" }\n", *mode ? "\"mode\": \"replay\", " :
		"", *mode ? ", \"step\": 10" : "");
	put(name, text);
	free(text);
}

/*
 * A folder written with --no-plots has a report with its table and the
 * note; `plot DIR` draws its plots (dir/plots or, optimize, dir itself)
 * and the report then inlines every SVG drawn, no <img> and no script.
 */
static void check_kind(const char *cmd, const char *dir, const char *table,
		       const char *svgdir, size_t min_svgs)
{
	char *rep = xasprintf("%s/report.html", dir);
	cr_assert_eq(sh("'%s' %s --no-plots --quiet", bin, cmd), 0, "%s: %s",
		     cmd, slurp("err.txt"));
	char *html = slurp(rep);
	cr_assert(html, "%s: no %s", cmd, rep);
	cr_expect(strstr(html, "--no-plots"), "%s", cmd);
	char *t = xasprintf("data-file=\"%s\"", table);
	cr_expect(strstr(html, t), "%s: no table %s", cmd, table);
	cr_expect_eq(count(html, "<svg"), 0);
	free(html);
	need_gnuplot();
	cr_assert_eq(sh("'%s' plot %s", bin, dir), 0, "plot %s: %s", dir,
		     slurp("err.txt"));
	size_t n = svgs_in(svgdir);
	cr_expect_geq(n, min_svgs, "plot %s drew %zu SVGs", dir, n);
	html = slurp(rep);
	cr_assert(html);
	cr_expect_eq(count(html, "<svg "), n, "%s: %zu SVGs, %zu inline",
		     dir, n, count(html, "<svg "));
	cr_expect(strstr(html, t));
	cr_expect_null(strstr(html, "<img"));
	cr_expect_null(strstr(html, "<script"));
	cr_expect_null(strstr(html, "--no-plots"));
	cr_expect(strstr(html, "id=\"manifest\""));
	free(html);
	free(t);
	free(rep);
}

Test(report, run_folder)
{
	put("r.json", "{ " GEN_CLUSTER GEN_WORKLOAD
		      "\"policies\": [ \"fcfs\", \"easy\" ], "
		      "\"output\": \"out\" }\n");
	tl_cli_need_bin(bin);
	check_kind("run r.json", "out", "summary.csv", "out/plots", 4);
	char *html = slurp("out/report.html");
	cr_expect(strstr(html, "clustersim run results"));
	cr_expect(strstr(html, "resolved experiment"));
	free(html);
}

Test(report, sweep_folder)
{
	put("s.json", "{ " GEN_CLUSTER GEN_WORKLOAD
		      "\"policies\": [ \"fcfs\", \"easy\" ], "
		      "\"output\": \"out\",\n\"sweep\": { "
		      "\"workload.load_scale\": [ 0.5, 1 ] } }\n");
	tl_cli_need_bin(bin);
	check_kind("sweep s.json -j 1", "out", "summary.csv", "out/plots", 5);
	char *html = slurp("out/report.html");
	cr_expect(strstr(html, "clustersim sweep results"));
	cr_expect(strstr(html, "<td>workload.load_scale</td>"), "axes");
	cr_expect(strstr(html, "aria-label=\"sweep\""), "the sweep plot");
	free(html);
}

Test(report, fill_folder)
{
	pods_experiment("f.json", "");
	tl_cli_need_bin(bin);
	check_kind("run f.json", "out", "fill_summary.csv", "out/plots", 2);
	char *html = slurp("out/report.html");
	cr_expect(strstr(html, "aria-label=\"fill_alloc-pods\""));
	cr_expect(strstr(html, "aria-label=\"fill_frag-pods\""));
	free(html);
}

Test(report, replay_folder)
{
	pods_experiment("p.json", "replay");
	tl_cli_need_bin(bin);
	check_kind("run p.json", "out", "replay_summary.csv", "out/plots", 3);
	char *html = slurp("out/report.html");
	cr_expect(strstr(html, "aria-label=\"replay_pending-pods\""));
	free(html);
}

Test(report, optimize_folder)
{
	put("o.json", "{ " GEN_CLUSTER GEN_WORKLOAD
		      "\"policies\": [ \"fcfs\" ], \"output\": \"out\",\n"
		      "\"optimize\": { \"jobs\": 20, \"methods\": [ \"greedy\", "
		      "\"ga\" ], \"evals\": 300 } }\n");
	tl_cli_need_bin(bin);
	/* The optimize folder itself, and the experiment's folder above
	 * it, which `plot` redraws too. */
	check_kind("optimize o.json", "out/optimize", "summary.csv",
		   "out/optimize", 1);
	cr_assert_eq(sh("rm out/optimize/*.svg && '%s' plot out", bin), 0,
		     "%s", slurp("err.txt"));
	cr_expect_eq(svgs_in("out/optimize"), 1);
	char *html = slurp("out/optimize/report.html");
	cr_expect(strstr(html, "aria-label=\"convergence\""));
	cr_expect(strstr(html, "clustersim optimize results"));
	free(html);
	html = slurp("out/optimize/manifest.json");
	cr_expect(html && strstr(html, "\"config\""), "optimize's manifest");
	free(html);
}

/* Without gnuplot: the run writes its results and a report that says
 * the plots were skipped; `plot` warns, exit 0, and says so too. */
Test(report, without_gnuplot)
{
	put("r.json", "{ " GEN_CLUSTER GEN_WORKLOAD
		      "\"policies\": [ \"fcfs\" ], \"output\": \"out\" }\n");
	tl_cli_need_bin(bin);
	cr_assert_eq(sh("PATH=/nonexistent '%s' run r.json --quiet", bin), 0,
		     "%s", slurp("err.txt"));
	char *html = slurp("out/report.html");
	cr_assert(html);
	cr_expect(strstr(html, "gnuplot not found"), "%s", html);
	cr_expect(strstr(html, "data-file=\"summary.csv\""));
	cr_expect_eq(count(html, "<svg"), 0);
	free(html);
	cr_assert_eq(sh("PATH=/nonexistent '%s' plot out", bin), 0);
	char *err = slurp("err.txt");
	cr_expect(strstr(err, "gnuplot not found"), "%s", err);
	free(err);
	html = slurp("out/report.html");
	cr_expect(strstr(html, "gnuplot not found"));
	free(html);
	cr_expect_eq(sh("'%s' plot r.json", bin), 2, "a file is no folder");
	err = slurp("err.txt");
	cr_expect(strstr(err, "not a results folder"), "%s", err);
	free(err);
}

/* A hand-made folder: every text from its files is escaped, ids of each
 * SVG get their own prefix, and an SVG with a script or an event handler
 * is left out. */
Test(report, escapes_and_refuses_scripts)
{
	struct sim_error err;
	put("d/summary.csv", "label,seed,note\nfcfs,1,<b>x&y</b>\n"
			     "\"a,b\",2,\"say \"\"hi\"\"\"\n");
	put("d/manifest.json", "{ \"tool\": \"clustersim\", \"version\": "
			       "\"<i>9</i>\", \"config\": { \"name\": "
			       "\"<img src=x onerror=alert(1)>\" } }\n");
	put("d/plots/a.svg", "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n"
			     "<svg width=\"10\" height=\"10\" viewBox=\"0 0 "
			     "10 10\">\n<defs><path id='gpPt0' d='M0,0'/>"
			     "</defs><use xlink:href='#gpPt0'/>"
			     "<rect fill=\"url(#g)\"/></svg>\ntrailing\n");
	put("d/plots/b.svg", "<svg width=\"1\" height=\"1\"><rect "
			     "onload=\"alert(1)\"/></svg>\n");
	put("d/plots/c.svg", "<svg width=\"1\" height=\"1\"><script>x()"
			     "</script></svg>\n");
	char *dir = path_join(tmp, "d");
	cr_assert_eq(report_kind_of(dir), REPORT_RUN);
	cr_assert_eq(report_html(dir, REPORT_RUN, true, "a <note>", &err), 0,
		     "%s", err.msg);
	char *html = slurp("d/report.html");
	cr_assert(html);
	cr_expect(strstr(html, "<td>&lt;b&gt;x&amp;y&lt;/b&gt;</td>"), "%s",
		  html);
	cr_expect(strstr(html, "<td>a,b</td>"));
	cr_expect(strstr(html, "<td>say &quot;hi&quot;</td>"));
	cr_expect(strstr(html, "<h1>&lt;img src=x onerror=alert(1)&gt;</h1>"));
	cr_expect(strstr(html, "&lt;i&gt;9&lt;/i&gt;"));
	cr_expect(strstr(html, "a &lt;note&gt;"));
	cr_expect_null(strstr(html, "<img"));
	cr_expect_null(strstr(html, "<script"));
	cr_expect_null(strstr(html, "onload="));
	cr_expect_null(strstr(html, "<?xml"));
	cr_expect_null(strstr(html, "trailing"));
	cr_expect(strstr(html, "id='p1-gpPt0'"), "ids prefixed");
	cr_expect(strstr(html, "href='#p1-gpPt0'"));
	cr_expect(strstr(html, "url(#p1-g)"));
	cr_expect_eq(count(html, "<svg "), 1, "a.svg alone");
	cr_expect_eq(count(html, "Not inlined"), 2, "b and c refused");
	free(html);
	free(dir);
}

/* The kinds, from the files each command writes. */
Test(report, kinds)
{
	static const struct {
		const char *file, *text;
		enum report_kind k;
	} cases[] = {
		{ "a/summary.csv", "label,seed\n", REPORT_RUN },
		{ "b/summary.csv", "method,objective\n", REPORT_OPTIMIZE },
		{ "c/fill_summary.csv", "label\n", REPORT_FILL },
		{ "d/replay_summary.csv", "label\n", REPORT_REPLAY },
		{ "e/other.csv", "x\n", REPORT_NONE },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		put(cases[i].file, cases[i].text);
		char *d = path_join(tmp, cases[i].file);
		*strrchr(d, '/') = '\0';
		cr_expect_eq(report_kind_of(d), cases[i].k, "%s",
			     cases[i].file);
		free(d);
	}
	put("a/manifest.json", "{ \"sweep\": [] }");
	char *d = path_join(tmp, "a");
	cr_expect_eq(report_kind_of(d), REPORT_SWEEP);
	free(d);
}
