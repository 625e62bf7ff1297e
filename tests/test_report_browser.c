/*
 * report.html in a real browser: headless Chromium (Debian's chromium)
 * loads the report of a small run, with its plots when gnuplot is here.
 *
 * Two launches.  The first dumps the DOM of a test page (written here,
 * never shipped) that holds the report in a 390 px wide frame, a phone's
 * width, and whose script writes into its own DOM what the frame's
 * document holds: its client and scroll widths (the page has no
 * horizontal scroll when they are equal), the scroll width once a
 * 2000 px wide element is added (so the measure is known to see an
 * overflow), the inline SVGs by label, and the tables.  (Headless
 * Chromium's window is at least 500 px wide, hence the frame.)  The
 * second takes a 390 px wide screenshot of the report itself, decoded
 * here with zlib: it must not be blank (one colour), and with plots it
 * must hold the plots' coloured curves.
 *
 * Skipped, saying so, where chromium (or the built binary) is missing.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/util.h"
#include "testlib.h"

static char tmp[256];
static char bin[512];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "browser");
}

static void teardown(void)
{
	tl_rmtree(tmp);
}

TestSuite(report_browser, .init = setup, .fini = teardown);

#define sh(...) tl_sh(tmp, __VA_ARGS__)

/* The test page: the report in a 390 px frame, and what it holds
 * written to #measure once it has loaded. */
static const char frame_page[] =
	"<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head>"
	"<body style=\"margin:0\">\n"
	"<iframe id=\"f\" src=\"report.html\" style=\"width:390px;"
	"height:844px;border:0\"></iframe>\n"
	"<p id=\"measure\">not loaded</p>\n<script>\n"
	"document.getElementById('f').addEventListener('load', function () {\n"
	"  var doc = this.contentDocument, d = doc.documentElement;\n"
	"  var client = d.clientWidth, scroll = d.scrollWidth;\n"
	"  var x = doc.createElement('div');\n"
	"  x.style.width = '2000px'; x.style.height = '1px';\n"
	"  doc.body.appendChild(x);\n"
	"  var wide = d.scrollWidth; x.remove();\n"
	"  var svgs = doc.querySelectorAll('#plots figure .plot > svg');\n"
	"  var labels = [];\n"
	"  for (var i = 0; i < svgs.length; i++) {\n"
	"    var r = svgs[i].getBoundingClientRect();\n"
	"    if (r.width > 0 && r.right <= client + 0.5)\n"
	"      labels.push(svgs[i].getAttribute('aria-label'));\n"
	"  }\n"
	"  document.getElementById('measure').textContent =\n"
	"    'client ' + client + ' scroll ' + scroll + ' wide ' + wide +\n"
	"    ' tables ' + doc.querySelectorAll('#summary table tbody tr')"
	".length +\n"
	"    ' svgs ' + labels.length + ' labels |' + labels.join('|') + '|';\n"
	"});\n</script></body></html>\n";

/* Chromium headless with args, output to out (relative to tmp), under a
 * time limit; its own messages go to chrome.log. */
static int chromium(const char *args, const char *out)
{
	return sh("timeout 120 chromium --headless --no-sandbox --disable-gpu "
		  "--disable-dev-shm-usage --no-first-run "
		  "--user-data-dir='%s/profile' %s >%s 2>>chrome.log", tmp,
		  args, out);
}

/* ---- PNG ------------------------------------------------------------------ */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* An 8-bit RGB or RGBA PNG decoded to RGB rows: *w x *h, 3 bytes a
 * pixel (caller frees). */
static unsigned char *png_rgb(const char *path, uint32_t *w, uint32_t *h)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "no screenshot at %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	unsigned char *b = xmalloc((size_t)n);
	cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	cr_assert(n > 33 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0, "not a PNG");
	*w = be32(b + 16);
	*h = be32(b + 20);
	int depth = b[24], type = b[25];
	cr_assert(depth == 8 && (type == 2 || type == 6) && b[28] == 0,
		  "PNG depth %d, colour type %d, interlace %d", depth, type,
		  b[28]);
	size_t bpp = type == 6 ? 4 : 3, stride = *w * bpp;
	unsigned char *z = xmalloc((size_t)n);
	size_t zn = 0;
	for (long p = 8; p + 12 <= n;) {
		uint32_t len = be32(b + p);
		if (memcmp(b + p + 4, "IDAT", 4) == 0) {
			memcpy(z + zn, b + p + 8, len);
			zn += len;
		}
		p += 12 + (long)len;
	}
	uLongf rawn = (uLongf)(*h * (stride + 1));
	unsigned char *raw = xmalloc(rawn);
	cr_assert_eq(uncompress(raw, &rawn, z, zn), Z_OK, "bad PNG data");
	cr_assert_eq(rawn, (uLongf)(*h * (stride + 1)));
	unsigned char *rgb = xmalloc((size_t)*w * *h * 3);
	for (uint32_t y = 0; y < *h; y++) {
		unsigned char *row = raw + y * (stride + 1) + 1;
		unsigned char *up = y ? row - (stride + 1) : NULL;
		int ft = row[-1];
		for (size_t i = 0; i < stride; i++) {
			int a = i >= bpp ? row[i - bpp] : 0, u = up ? up[i] : 0;
			int c = up && i >= bpp ? up[i - bpp] : 0;
			int add = ft == 1 ? a : ft == 2 ? u : ft == 3 ?
				  (a + u) / 2 : ft == 4 ? paeth(a, u, c) : 0;
			row[i] = (unsigned char)(row[i] + add);
		}
		for (uint32_t x = 0; x < *w; x++)
			memcpy(rgb + ((size_t)y * *w + x) * 3, row + x * bpp, 3);
	}
	free(raw);
	free(z);
	free(b);
	return rgb;
}

/* ---- the test ------------------------------------------------------------- */

/* The stems of the folder's SVG files, "|a|b|" (caller frees). */
static char *plot_stems(const char *dir, size_t *n)
{
	char *s = xstrdup("|");
	DIR *d = opendir(dir);
	struct dirent *de;
	*n = 0;
	while (d && (de = readdir(d))) {
		if (!str_ends_with(de->d_name, ".svg"))
			continue;
		char *t = xasprintf("%s%.*s|", s, (int)strlen(de->d_name) - 4,
				    de->d_name);
		free(s);
		s = t;
		(*n)++;
	}
	if (d)
		closedir(d);
	return s;
}

Test(report_browser, phone_width_dom_and_screenshot, .timeout = 600)
{
	if (system("command -v chromium >/dev/null 2>&1") != 0)
		cr_skip_test("chromium is not installed: the browser test of "
			     "report.html is skipped (apt-get install "
			     "chromium)");
	tl_cli_need_bin(bin);
	tl_put(tmp, "r.json",
	       "{ \"cluster\": { \"nodes\": [ { \"name\": \"cpu\", \"count\": "
	       "8, \"cpus\": 4 } ] },\n\"workload\": { \"generate\": { "
	       "\"jobs\": 300,\n\"interarrival\": { \"dist\": \"exponential\", "
	       "\"mean\": 60 },\n\"runtime\": { \"dist\": \"lognormal\", "
	       "\"mu\": 6, \"sigma\": 1 },\n\"cpus\": { \"dist\": \"pow2\", "
	       "\"min\": 1, \"max\": 16 } } },\n\"name\": "
	       "\"a-rather-long-experiment-name-without-any-space-in-it\",\n"
	       "\"policies\": [ \"fcfs\", \"sjf\", \"easy\" ], "
	       "\"output\": \"out\" }\n");
	cr_assert_eq(sh("'%s' run r.json --quiet", bin), 0, "%s",
		     tl_slurp(tmp, "err.txt"));
	tl_put(tmp, "out/frame.html", frame_page);
	char *pdir = xasprintf("%s/out/plots", tmp);
	size_t nplots;
	char *stems = plot_stems(pdir, &nplots);

	cr_assert_eq(chromium("--allow-file-access-from-files --dump-dom "
			      "file://$PWD/out/frame.html", "dom.html"), 0,
		     "chromium --dump-dom failed: %s",
		     tl_slurp(tmp, "chrome.log"));
	char *dom = tl_slurp(tmp, "dom.html");
	cr_assert(dom);
	const char *m = strstr(dom, "<p id=\"measure\">");
	cr_assert(m, "no measure in the DOM: %s", dom);
	int client = 0, scroll = 0, wide = 0, rows = 0, svgs = -1;
	cr_assert_eq(sscanf(m, "<p id=\"measure\">client %d scroll %d wide %d "
			    "tables %d svgs %d", &client, &scroll, &wide,
			    &rows, &svgs), 5, "the page did not load: %.200s",
		     m);
	cr_expect(client > 300 && client <= 390, "frame width %d", client);
	cr_expect_leq(scroll, client, "horizontal scroll at 390 px: %d > %d",
		      scroll, client);
	cr_expect_gt(wide, client, "the measure misses an overflow");
	cr_expect_eq(rows, 3, "summary rows: %d", rows);
	cr_expect_eq((size_t)svgs, nplots, "%d plots shown of %zu", svgs,
		     nplots);
	const char *labels = strstr(m, "labels ");
	cr_assert(labels);
	for (char *p = stems + 1, *q; (q = strchr(p, '|')); p = q + 1) {
		char *want = xasprintf("|%.*s|", (int)(q - p), p);
		cr_expect(strstr(labels, want), "plot %s not in the page: %s",
			  want, labels);
		free(want);
	}

	cr_assert_eq(chromium("--hide-scrollbars --window-size=390,2400 "
			      "--screenshot=\"$PWD/shot.png\" "
			      "file://$PWD/out/report.html", "/dev/null"), 0,
		     "chromium --screenshot failed: %s",
		     tl_slurp(tmp, "chrome.log"));
	char *png = xasprintf("%s/shot.png", tmp);
	uint32_t w, h;
	unsigned char *rgb = png_rgb(png, &w, &h);
	cr_expect_eq(w, 390);
	size_t other = 0, coloured = 0, npx = (size_t)w * h;
	for (size_t i = 0; i < npx; i++) {
		const unsigned char *p = rgb + i * 3;
		int hi = p[0] > p[1] ? p[0] : p[1], lo = p[0] < p[1] ? p[0] : p[1];
		hi = hi > p[2] ? hi : p[2];
		lo = lo < p[2] ? lo : p[2];
		other += memcmp(p, rgb, 3) != 0;
		coloured += hi - lo > 80;
	}
	cr_expect_gt(other, npx / 100, "blank screenshot: %zu of %zu pixels "
		     "differ from the first", other, npx);
	if (nplots)
		cr_expect_gt(coloured, 3000, "no plot drawn in the screenshot "
			     "(%zu coloured pixels)", coloured);
	free(rgb);
	free(png);
	free(dom);
	free(stems);
	free(pdir);
}
