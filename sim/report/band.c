/*
 * Band files and their plots (band.h).
 */
#include "report/band.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/out.h"
#include "base/util.h"

char *band_stem(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = strcspn(b, ".");
	char *s = xmalloc(n + 1);
	memcpy(s, b, n);
	s[n] = '\0';
	return s;
}

void band_put_double(FILE *f, double v, const char *sep)
{
	char buf[32];
	fmt_double(buf, v);
	fprintf(f, "%s%s", buf, sep);
}

void band_add(struct band *b, double v)
{
	b->lo = b->n && b->lo < v ? b->lo : v;
	b->hi = b->n && b->hi > v ? b->hi : v;
	b->sum += v;
	b->n++;
}

void band_put(FILE *f, const struct band *b)
{
	if (!b->n) {
		fputs(",,,", f);
		return;
	}
	fputc(',', f);
	band_put_double(f, b->sum / (double)b->n, ",");
	band_put_double(f, b->lo, ",");
	band_put_double(f, b->hi, "");
}

void band_header(FILE *f, const char *first, const char *const *labels,
		 size_t npol, const char *const *what, size_t nwhat)
{
	fputs(first, f);
	for (size_t p = 0; p < npol; p++)
		for (size_t w = 0; w < nwhat; w++)
			fprintf(f, ",%s_%s_mean,%s_%s_min,%s_%s_max", labels[p],
				what[w], labels[p], what[w], labels[p],
				what[w]);
	fputc('\n', f);
}

/* The plots/fill/ scripts of each mode. */
static const char *const fill_scripts[] = { "fill_alloc", "fill_frag" };
static const char *const replay_scripts[] = { "replay_alloc", "replay_frag",
					      "replay_pending" };

int band_plot(const char *outdir, const struct plot_defs *extra,
	      const char *mode, const char *stem,
	      const char *const *labels, size_t npol, struct sim_error *err)
{
	static const char *const terms[] = { "png", "svg" };
	bool fill = strcmp(mode, "fill") == 0;
	const char *const *scripts = fill ? fill_scripts : replay_scripts;
	size_t nscripts = fill ? ARRAY_SIZE(fill_scripts) :
				 ARRAY_SIZE(replay_scripts);
	char *pdir = plot_scripts_dir();
	char *odir = path_join(outdir, "plots");
	char *log = path_join(odir, "gnuplot.log");
	char *data = xasprintf("%s/%s-%s.csv", outdir, mode, stem);
	char *labs = NULL;
	size_t len = 0;
	int rc = mkdir_p(odir, err), logfd = -1;
	for (size_t p = 0; p < npol; p++) {
		labs = xrealloc(labs, len + strlen(labels[p]) + 2);
		len += (size_t)sprintf(labs + len, "%s%s", p ? " " : "",
				       labels[p]);
	}
	if (!rc) {
		logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			     0666);
		if (logfd < 0)
			rc = err_setc(err, -SIM_EIO, "%s: cannot write: %s",
				      log, strerror(errno));
	}
	/* PNG and SVG of each script in one gnuplot. */
	for (size_t s = 0; s < nscripts && !rc; s++) {
		char *script = xasprintf("%s/fill/%s.gp", pdir, scripts[s]);
		struct plot_defs d[ARRAY_SIZE(terms)] = { { 0 }, { 0 } };
		for (size_t t = 0; t < ARRAY_SIZE(terms); t++) {
			char *out = xasprintf("%s/%s-%s.%s", odir, scripts[s],
					      stem, terms[t]);
			plot_def(&d[t], "data", data);
			plot_def(&d[t], "labels", labs ? labs : "");
			plot_def(&d[t], "term", terms[t]);
			plot_def(&d[t], "out", out);
			plot_def(&d[t], "list", stem);
			plot_def(&d[t], "plotdir", pdir);
			plot_defs_append(&d[t], extra);
			free(out);
		}
		rc = plot_gnuplot(&d[0], &d[1], script, logfd, log, err);
		for (size_t t = 0; t < ARRAY_SIZE(terms); t++)
			plot_defs_release(&d[t]);
		free(script);
	}
	if (logfd >= 0)
		close(logfd);
	free(labs);
	free(data);
	free(log);
	free(odir);
	free(pdir);
	return rc;
}
