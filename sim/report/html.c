/*
 * report.html: one self-contained page per results folder (report.h).
 *
 * The page is built from the folder's files alone: the summary table
 * (summary.csv, fill_summary.csv, replay_summary.csv; a sweep's
 * failed.csv too), every SVG of its plots inlined (no file or network
 * reference, no script: it opens from a mail attachment), the resolved
 * experiment and the manifest.  Every text taken from a file is
 * HTML-escaped.  An SVG is markup and cannot be escaped: it is inlined
 * as gnuplot wrote it, less its XML prologue, with its ids prefixed per
 * plot (every gnuplot SVG defines the same ones), and left out when it
 * holds a script, an event handler or foreign content, so that a page
 * never runs code from a file.  Tables and plots scale or scroll inside
 * their own box, so a 390 px phone screen has no horizontal scroll.
 * The page holds no time or absolute path: equal folders give equal
 * bytes.  A folder of runs with tenants (docs/tenants.md) gets a
 * "Tenants" section after the summary: each run's projects.csv (a
 * sweep's merged OUT/projects.csv), whose waits, GPU-hours within and
 * above the quota, reclaims and lost work are per project, beside the
 * summary's jain_quota and reclaims; other folders' pages are unchanged.
 */
#include "report/report.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"
#include "base/util.h"
#include "base/version.h"
#include "report/report_impl.h"

#define HTML_MAX_ROWS 2000           /* table rows shown, at most */
#define SVG_MAX_BYTES (64u << 20)    /* an SVG inlined, at most */

static const char css[] =
	"html{-webkit-text-size-adjust:100%}"
	"body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
	"color:#1a1a1a;background:#fff;margin:0 auto;max-width:1100px;"
	"padding:0 12px 2em}"
	"h1{font-size:1.45em;margin:.8em 0 .2em;overflow-wrap:anywhere}"
	"h2{font-size:1.2em;margin:1.6em 0 .4em;border-bottom:1px solid #ddd}"
	"h3{font-size:1em;margin:1em 0 .3em;overflow-wrap:anywhere}"
	"p,li{overflow-wrap:anywhere}"
	"nav a{margin-right:1em}"
	".meta{color:#555}"
	".scroll{overflow-x:auto;max-width:100%;width:fit-content;"
	"-webkit-overflow-scrolling:touch;border:1px solid #ddd}"
	"table{border-collapse:collapse;font-size:13px}"
	"th,td{padding:3px 7px;border-bottom:1px solid #eee;"
	"white-space:nowrap;text-align:left}"
	"thead th{background:#f3f3f3;position:sticky;top:0}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"figure{margin:1.2em 0}"
	"figcaption{font-weight:600;margin-bottom:.3em;overflow-wrap:anywhere}"
	".plot svg{display:block;width:100%;height:auto;max-width:1000px}"
	"pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;"
	"tab-size:2;-moz-tab-size:2;"
	"background:#f6f6f6;padding:8px;margin:0}"
	"details{margin:.6em 0}summary{cursor:pointer}"
	".note{background:#fff6d6;border-left:4px solid #e0b000;"
	"padding:6px 10px}";

/* ---- escaping ------------------------------------------------------------ */

/* s with & < > " ' as entities. */
static void put_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A cell that is a number, right-aligned. */
static bool is_number(const char *s)
{
	char *end;
	if (!*s)
		return false;
	strtod(s, &end);
	return *end == '\0';
}

/* ---- tables -------------------------------------------------------------- */

/* DIR/name as a table, with its heading; nothing when the file is
 * missing, a line saying so when it cannot be read. */
static void put_table(FILE *f, const char *dir, const char *name,
		      const char *heading)
{
	if (!report_has(dir, name))
		return;
	char *path = path_join(dir, name);
	struct report_table t;
	struct sim_error err;
	fprintf(f, "<h3>");
	put_esc(f, heading);
	fputs(" <span class=\"meta\">(", f);
	put_esc(f, name);
	fputs(")</span></h3>\n", f);
	if (report_table_read(path, HTML_MAX_ROWS + 1, &t, &err)) {
		fputs("<p class=\"note\">", f);
		put_esc(f, err.msg);
		fputs("</p>\n", f);
		free(path);
		return;
	}
	free(path);
	fputs("<div class=\"scroll\"><table data-file=\"", f);
	put_esc(f, name);
	fputs("\">\n", f);
	for (size_t r = 0; r < t.nrows; r++) {
		if (r == 0)
			fputs("<thead>", f);
		else if (r == 1)
			fputs("<tbody>", f);
		fputs("<tr>", f);
		for (size_t c = 0; c < t.ncols[r]; c++) {
			const char *v = t.cell[r][c];
			fputs(r == 0 ? "<th>" : is_number(v) ?
			      "<td class=\"n\">" : "<td>", f);
			put_esc(f, v);
			fputs(r == 0 ? "</th>" : "</td>", f);
		}
		fputs(r == 0 ? "</tr></thead>\n" : "</tr>\n", f);
	}
	fputs(t.nrows > 1 ? "</tbody></table></div>\n" : "</table></div>\n", f);
	if (t.total > t.nrows)
		fprintf(f, "<p class=\"meta\">The first %zu of %zu rows: the "
			"whole table is %s.</p>\n", t.nrows - 1, t.total - 1,
			name);
	report_table_release(&t);
}

static void section_summary(FILE *f, const char *dir, enum report_kind k)
{
	fputs("<section id=\"summary\"><h2>Summary</h2>\n", f);
	switch (k) {
	case REPORT_FILL:
		put_table(f, dir, "fill_summary.csv", "One row per run");
		break;
	case REPORT_REPLAY:
		put_table(f, dir, "replay_summary.csv", "One row per run");
		break;
	case REPORT_OPTIMIZE:
		put_table(f, dir, "summary.csv", "One row per method");
		break;
	default:
		put_table(f, dir, "summary.csv", "One row per run");
		put_table(f, dir, "failed.csv", "Failed runs");
	}
	fputs("</section>\n", f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir (none starting with '.') that keep(dir, name) takes,
 * sorted by name (bytes). */
static char **list_names(const char *dir,
			 bool (*keep)(const char *dir, const char *name),
			 size_t *n)
{
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !keep(dir, de->d_name))
			continue;
		xgrow(&v, &cap, *n + 1, sizeof(*v));
		v[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

/* A run folder that holds a projects.csv. */
static bool has_projects(const char *dir, const char *name)
{
	char *rel = xasprintf("%s/projects.csv", name);
	bool has = report_has(dir, rel);
	free(rel);
	return has;
}

/* An .svg file. */
static bool is_svg(const char *dir, const char *name)
{
	(void)dir;
	return str_ends_with(name, ".svg");
}

/* The Tenants section: nothing for a folder without tenants. */
static void section_tenants(FILE *f, const char *dir, enum report_kind k)
{
	if (k == REPORT_SWEEP) {
		if (!report_has(dir, "projects.csv"))
			return;
		fputs("<section id=\"tenants\"><h2>Tenants</h2>\n", f);
		put_table(f, dir, "projects.csv", "Projects of every run");
		fputs("</section>\n", f);
		return;
	}
	size_t n = 0;
	char **runs = k == REPORT_RUN ? list_names(dir, has_projects, &n) : NULL;
	if (n)
		fputs("<section id=\"tenants\"><h2>Tenants</h2>\n", f);
	for (size_t i = 0; i < n; i++) {
		char *rel = xasprintf("%s/projects.csv", runs[i]);
		char *head = xasprintf("Projects of %s", runs[i]);
		put_table(f, dir, rel, head);
		free(head);
		free(rel);
		free(runs[i]);
	}
	if (n)
		fputs("</section>\n", f);
	free(runs);
}

/* ---- plots --------------------------------------------------------------- */

/* Whether s[i..] starts with word, case-insensitively. */
static bool at_word(const char *s, const char *word)
{
	for (; *word; s++, word++)
		if (tolower((unsigned char)*s) != *word)
			return false;
	return true;
}

/* Whether an SVG holds what could run or load something: a script, an
 * event handler attribute (on...=), a javascript: URL, foreign content,
 * an entity declaration. */
static bool svg_unsafe(const char *s)
{
	static const char *const bad[] = { "<script", "<foreignobject",
					   "javascript:", "<!entity",
					   "<iframe", "<embed", "<object" };
	char quote = 0;
	bool tag = false;
	for (const char *p = s; *p; p++) {
		for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
			if (*p == bad[i][0] && at_word(p, bad[i]))
				return true;
		if (quote) {
			quote = *p == quote ? 0 : quote;
		} else if (*p == '<') {
			tag = true;
		} else if (*p == '>') {
			tag = false;
		} else if (tag && (*p == '"' || *p == '\'')) {
			quote = *p;
		} else if (tag && isspace((unsigned char)*p) &&
			   at_word(p + 1, "on")) {
			const char *q = p + 3;
			while (isalpha((unsigned char)*q))
				q++;
			while (isspace((unsigned char)*q))
				q++;
			if (q > p + 3 && *q == '=')
				return true;
		}
	}
	return false;
}

/* Copies an SVG's markup from "<svg" to its "</svg>", with its ids and
 * their references (id=, href="#", url(#) prefixed by pre, and a role
 * and label on the root.  Returns false when there is no <svg> root. */
static bool put_svg(FILE *f, const char *s, const char *pre,
		    const char *label)
{
	const char *p = strstr(s, "<svg");
	const char *end = p ? strstr(p, "</svg>") : NULL;
	if (!p || !end || !isspace((unsigned char)p[4]))
		return false;
	end += 6;
	fputs("<svg role=\"img\" aria-label=\"", f);
	put_esc(f, label);
	fputc('"', f);
	for (p += 4; p < end; p++) {
		fputc(*p, f);
		if ((*p == '"' || *p == '\'') &&
		    p - s >= 4 && isspace((unsigned char)p[-4]) &&
		    strncmp(p - 3, "id=", 3) == 0)
			fputs(pre, f);
		else if (*p == '#' && p - s >= 6 &&
			 (strncmp(p - 6, "href=\"", 6) == 0 ||
			  strncmp(p - 6, "href='", 6) == 0 ||
			  strncmp(p - 4, "url(", 4) == 0))
			fputs(pre, f);
	}
	fputc('\n', f);
	return true;
}

/* One plot: its file inlined in a figure, or a line saying why not. */
static void put_figure(FILE *f, const char *pdir, const char *rel,
		       const char *name, size_t idx)
{
	struct input_opts io = { .max_bytes = SVG_MAX_BYTES };
	struct sim_error err;
	char *path = path_join(pdir, name);
	char *text = NULL;
	size_t len;
	size_t stem = strlen(name) - 4;
	fprintf(f, "<figure id=\"plot-%zu\"><figcaption>%.*s <span "
		"class=\"meta\">(", idx + 1, (int)stem, name);
	put_esc(f, rel);
	put_esc(f, name);
	fputs(")</span></figcaption>\n<div class=\"plot\">", f);
	int rc = input_slurp(path, &io, &text, &len, NULL, &err);
	char pre[32], label[256];
	snprintf(pre, sizeof(pre), "p%zu-", idx + 1);
	snprintf(label, sizeof(label), "%.*s", (int)stem, name);
	if (rc) {
		fputs("<p class=\"note\">", f);
		put_esc(f, err.msg);
		fputs("</p>", f);
	} else if (strlen(text) != len || svg_unsafe(text)) {
		fputs("<p class=\"note\">Not inlined: the file holds a "
		      "script, an event handler or foreign content.</p>", f);
	} else if (!put_svg(f, text, pre, label)) {
		fputs("<p class=\"note\">Not inlined: no &lt;svg&gt; root "
		      "element.</p>", f);
	}
	fputs("</div></figure>\n", f);
	free(text);
	free(path);
}

static void section_plots(FILE *f, const char *dir, enum report_kind k,
			  bool plots, const char *note)
{
	bool in_plots = k != REPORT_OPTIMIZE;
	char *pdir = in_plots ? path_join(dir, "plots") : xstrdup(dir);
	size_t n = 0;
	char **svgs = plots ? list_names(pdir, is_svg, &n) : NULL;
	/* A sweep's own plot, against its axes, first. */
	for (size_t i = 1; k == REPORT_SWEEP && i < n; i++) {
		if (strcmp(svgs[i], "sweep.svg") == 0) {
			char *s = svgs[i];
			memmove(svgs + 1, svgs, i * sizeof(*svgs));
			svgs[0] = s;
		}
	}
	fputs("<section id=\"plots\"><h2>Plots</h2>\n", f);
	if (note) {
		fputs("<p class=\"note\">", f);
		put_esc(f, note);
		fputs("</p>\n", f);
	}
	if (plots && n == 0)
		fputs("<p class=\"note\">No plots were drawn.</p>\n", f);
	for (size_t i = 0; i < n; i++)
		put_figure(f, pdir, in_plots ? "plots/" : "", svgs[i], i);
	fputs("</section>\n", f);
	for (size_t i = 0; i < n; i++)
		free(svgs[i]);
	free(svgs);
	free(pdir);
}

/* ---- experiment and manifest ---------------------------------------- */

/* A JSON value, printed and escaped in a <pre>. */
static void put_json(FILE *f, const cJSON *v)
{
	char *text = cJSON_Print(v);
	fputs("<pre>", f);
	if (text)
		put_esc(f, text);
	fputs("</pre>\n", f);
	cJSON_free(text);
}

/* A sweep: its axes, and the resolved experiment of its first run (the
 * sweep's manifest has the axes, each run's the configuration). */
static void sweep_experiment(FILE *f, const char *dir, const cJSON *man)
{
	const cJSON *ax;
	fputs("<h3>Axes</h3>\n<div class=\"scroll\"><table><thead><tr>"
	      "<th>axis</th><th>name</th><th>values</th></tr></thead>"
	      "<tbody>\n", f);
	cJSON_ArrayForEach(ax, cJSON_GetObjectItemCaseSensitive(man, "sweep")) {
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(ax, "axis");
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(ax, "name");
		char *vals = cJSON_PrintUnformatted(
			cJSON_GetObjectItemCaseSensitive(ax, "values"));
		fputs("<tr><td>", f);
		put_esc(f, cJSON_IsString(a) ? a->valuestring : "");
		fputs("</td><td>", f);
		put_esc(f, cJSON_IsString(n) ? n->valuestring : "");
		fputs("</td><td>", f);
		put_esc(f, vals ? vals : "");
		fputs("</td></tr>\n", f);
		cJSON_free(vals);
	}
	fputs("</tbody></table></div>\n", f);
	const cJSON *run = cJSON_GetArrayItem(
		cJSON_GetObjectItemCaseSensitive(man, "runs"), 0);
	const cJSON *rd = cJSON_GetObjectItemCaseSensitive(run, "dir");
	if (!cJSON_IsString(rd) || strchr(rd->valuestring, '/') ||
	    rd->valuestring[0] == '.')
		return;
	char *rel = path_join(rd->valuestring, "manifest.json");
	char *path = path_join(dir, rel);
	cJSON *rm = report_read_json(path);
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(rm, "config");
	if (cfg) {
		fputs("<details><summary>The resolved experiment of the first "
		      "run (", f);
		put_esc(f, rel);
		fputs(")</summary>\n", f);
		put_json(f, cfg);
		fputs("</details>\n", f);
	}
	cJSON_Delete(rm);
	free(path);
	free(rel);
}

static void section_experiment(FILE *f, const char *dir, enum report_kind k,
			       const cJSON *man)
{
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(man, "config");
	fputs("<section id=\"experiment\"><h2>Experiment</h2>\n", f);
	if (k == REPORT_SWEEP) {
		sweep_experiment(f, dir, man);
	} else if (cfg && !cJSON_IsNull(cfg)) {
		fputs("<p>As it ran: every default filled in, paths relative "
		      "to the experiment file's folder (the \"config\" of "
		      "manifest.json).</p>\n<details open><summary>resolved "
		      "experiment</summary>\n", f);
		put_json(f, cfg);
		fputs("</details>\n", f);
	} else {
		fputs("<p class=\"note\">manifest.json holds no resolved "
		      "experiment.</p>\n", f);
	}
	fputs("</section>\n", f);
}

/* A manifest's string (or number) field as a row of the facts table. */
static void fact(FILE *f, const cJSON *man, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(man, key);
	if (!v || cJSON_IsNull(v))
		return;
	char *text = cJSON_IsString(v) ? NULL : cJSON_PrintUnformatted(v);
	fprintf(f, "<tr><th>%s</th><td>", key);
	put_esc(f, text ? text : v->valuestring);
	fputs("</td></tr>\n", f);
	cJSON_free(text);
}

static void section_manifest(FILE *f, const char *dir, const cJSON *man)
{
	struct input_opts io = { .max_bytes = SVG_MAX_BYTES };
	struct sim_error err;
	char *path = path_join(dir, "manifest.json");
	char *text = NULL;
	size_t len;
	const cJSON *in;
	fputs("<section id=\"manifest\"><h2>Manifest</h2>\n", f);
	if (!man) {
		fputs("<p class=\"note\">No readable manifest.json.</p>\n", f);
		goto out;
	}
	fputs("<div class=\"scroll\"><table>\n", f);
	fact(f, man, "tool");
	fact(f, man, "version");
	fact(f, man, "revision");
	fact(f, man, "experiment");
	fact(f, man, "sha256");
	fact(f, man, "seeds");
	cJSON_ArrayForEach(in, cJSON_GetObjectItemCaseSensitive(man,
								"inputs")) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(in, "path");
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(in, "sha256");
		fputs("<tr><th>input</th><td>", f);
		put_esc(f, cJSON_IsString(p) ? p->valuestring : "");
		fputs(" <span class=\"meta\">sha256 ", f);
		put_esc(f, cJSON_IsString(h) ? h->valuestring : "");
		fputs("</span></td></tr>\n", f);
	}
	fputs("</table></div>\n", f);
	if (input_slurp(path, &io, &text, &len, NULL, &err) == 0) {
		fputs("<details><summary>manifest.json</summary>\n<pre>", f);
		put_esc(f, text);
		fputs("</pre></details>\n", f);
	}
out:
	fputs("</section>\n", f);
	free(text);
	free(path);
}

/* ---- the page ------------------------------------------------------------ */

static void put_head(FILE *f, const char *name, enum report_kind k,
		     const cJSON *man)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(man, "version");
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(man, "revision");
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
	      "charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width="
	      "device-width, initial-scale=1\">\n<title>", f);
	put_esc(f, name);
	fprintf(f, ": clustersim %s report</title>\n<style>%s</style>\n"
		"</head>\n<body>\n<header>\n<h1>", report_kind_name(k), css);
	put_esc(f, name);
	fprintf(f, "</h1>\n<p class=\"meta\">clustersim %s results, ",
		report_kind_name(k));
	put_esc(f, cJSON_IsString(v) ? v->valuestring : CLUSTERSIM_VERSION);
	if (cJSON_IsString(r)) {
		fputs(" (", f);
		put_esc(f, r->valuestring);
		fputc(')', f);
	}
	fputs("</p>\n<nav><a href=\"#summary\">Summary</a><a href=\"#plots\">"
	      "Plots</a><a href=\"#experiment\">Experiment</a><a href=\""
	      "#manifest\">Manifest</a></nav>\n</header>\n<main>\n", f);
}

int report_html(const char *dir, enum report_kind k, bool plots,
		const char *note, struct sim_error *err)
{
	struct afile af;
	int rc = afile_open_in(&af, dir, "report.html", err);
	if (rc)
		return rc;
	char *mpath = path_join(dir, "manifest.json");
	cJSON *man = report_read_json(mpath);
	char *name = report_experiment_name(dir);
	if (!*name) {
		free(name);
		name = xstrdup(*path_basename(dir) ? path_basename(dir) :
			       "results");
	}
	put_head(af.f, name, k, man);
	section_summary(af.f, dir, k);
	section_tenants(af.f, dir, k);
	section_plots(af.f, dir, k, plots, note);
	section_experiment(af.f, dir, k, man);
	section_manifest(af.f, dir, man);
	fputs("</main>\n</body>\n</html>\n", af.f);
	free(name);
	cJSON_Delete(man);
	free(mpath);
	return afile_commit(&af, err);
}

int report_after_plots(const char *dir, enum report_kind k, bool no_plots,
		       int prc, const char *pmsg, struct sim_error *err)
{
	const char *note = report_plots_note(no_plots);
	bool plots = !note && prc != 1;
	if (!note && prc)
		note = pmsg;
	return report_html(dir, k, plots, note, err);
}
