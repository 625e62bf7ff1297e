/*
 * Plots of a results folder, drawn by gnuplot from the CSV files.
 *
 * The runs are read back from OUT/summary.csv (label, seed -> folder
 * "<label>-s<seed>"), so plotting needs nothing but a results folder and
 * can be redone later.  Every script in the plots folder (plots/NAME.gp, in
 * name order) is run twice, for PNG and SVG, with the variables
 *   outdir  the results folder
 *   runs    the run folders, space-separated
 *   labels  their legend texts, same order
 *   term    "png" or "svg"
 *   out     the file to write, OUT/plots/<script stem>.<term>
 *   resource "gpu" on a GPU cluster (some run has a GPU utilization),
 *            else "cpu"
 *   plotdir the plots folder (for the shared plots/lib/style.gp)
 *   experiment the experiment's name, for the titles
 * A script with a line "# draw: gpu" is drawn only on a GPU cluster.
 * One with "# draw: allocations" is drawn once per run instead, for each
 * run with an allocations.csv of at most GANTT_MAX_JOBS jobs (report/
 * gantt.h), with runs and labels naming that run alone, into
 * OUT/plots/<script stem>-<run folder>.<term>.  One with "# draw:
 * tenants" likewise, for each run with a projects_gpus.csv (data).
 * gnuplot's output goes to OUT/plots/gnuplot.log: library code never
 * prints.  The plots are drawn by one gnuplot each, as many at once as
 * there are CPUs (par_start).  A missing gnuplot is not an error for the results (return 1).
 */
#include "report/out.h"

#include <cjson/cJSON.h>
#include <csv.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "report/gantt.h"
#include "report/seeds.h"

extern char **environ;

/* The run folders and legends read from summary.csv. */
struct plot_runs {
	char *runs;      /* "a-s1 b-s1" (owned) */
	char *labels;    /* "a b" (owned) */
	size_t nruns;    /* rows read */
	/* parser state */
	size_t field;    /* field number in the current row */
	size_t row;      /* row number, 0 = header */
	int label_col;   /* column of "label", -1 until seen */
	int seed_col;    /* column of "seed", -1 until seen */
	int gpu_col;     /* column of "utilization_gpu", -1 until seen */
	bool gpus;       /* some run has a GPU utilization: a GPU cluster */
	char *seed0;     /* the first run's seed (owned) */
	bool seeds;      /* runs of more than one seed: legends name it */
	char **dirs;     /* the run folders, in order (owned) */
	size_t *rgroup;  /* each run's label group, 0-based */
	char **glabels;  /* the groups' labels, first seen first (owned) */
	size_t *gseeds;  /* runs (seeds) per group */
	size_t ngroups;  /* label groups */
	size_t dirs_cap, groups_cap; /* growth of the arrays */
	char *label;     /* current row's label (owned) */
	char *seed;      /* current row's seed (owned) */
	size_t runs_len, runs_cap;     /* growth of runs */
	size_t labels_len, labels_cap; /* growth of labels */
};

/* Appends a word to a space-separated list; a word with a blank in it is
 * double-quoted, which gnuplot's word() and words() understand. */
static void append(char **s, size_t *len, size_t *cap, const char *add)
{
	size_t n = strlen(add);
	bool quote = strpbrk(add, " \t") != NULL;
	xgrow(s, cap, *len + n + 4, 1);
	if (*len)
		(*s)[(*len)++] = ' ';
	if (quote)
		(*s)[(*len)++] = '"';
	memcpy(*s + *len, add, n);
	*len += n;
	if (quote)
		(*s)[(*len)++] = '"';
	(*s)[*len] = '\0';
}

static void csv_field(void *data, size_t len, void *priv)
{
	struct plot_runs *pr = priv;
	char *s = xmalloc(len + 1);
	memcpy(s, data, len);
	s[len] = '\0';
	if (pr->row == 0) {
		if (strcmp(s, "label") == 0)
			pr->label_col = (int)pr->field;
		else if (strcmp(s, "seed") == 0)
			pr->seed_col = (int)pr->field;
		else if (strcmp(s, "utilization_gpu") == 0)
			pr->gpu_col = (int)pr->field;
		free(s);
	} else if ((int)pr->field == pr->label_col) {
		free(pr->label);
		pr->label = s;
	} else if ((int)pr->field == pr->seed_col) {
		free(pr->seed);
		pr->seed = s;
	} else {
		if ((int)pr->field == pr->gpu_col && *s)
			pr->gpus = true;
		free(s);
	}
	pr->field++;
}

/* Records run dir of the current row's label in its group. */
static void add_run(struct plot_runs *pr, const char *dir)
{
	size_t g = 0;
	while (g < pr->ngroups && strcmp(pr->glabels[g], pr->label))
		g++;
	if (g == pr->ngroups) {
		size_t cap = pr->groups_cap;
		xgrow(&pr->glabels, &cap, g + 1, sizeof(*pr->glabels));
		xgrow(&pr->gseeds, &pr->groups_cap, g + 1,
		      sizeof(*pr->gseeds));
		pr->glabels[g] = xstrdup(pr->label);
		pr->gseeds[g] = 0;
		pr->ngroups++;
	}
	pr->gseeds[g]++;
	size_t cap = pr->dirs_cap;
	xgrow(&pr->dirs, &cap, pr->nruns + 1, sizeof(*pr->dirs));
	xgrow(&pr->rgroup, &pr->dirs_cap, pr->nruns + 1,
	      sizeof(*pr->rgroup));
	pr->dirs[pr->nruns] = xstrdup(dir);
	pr->rgroup[pr->nruns] = g;
}

static void csv_row(int c, void *priv)
{
	struct plot_runs *pr = priv;
	if (pr->row > 0 && pr->label && pr->seed) {
		char *dir = xasprintf("%s-s%s", pr->label, pr->seed);
		append(&pr->runs, &pr->runs_len, &pr->runs_cap, dir);
		append(&pr->labels, &pr->labels_len, &pr->labels_cap,
		       pr->label);
		add_run(pr, dir);
		free(dir);
		if (!pr->seed0)
			pr->seed0 = xstrdup(pr->seed);
		else if (strcmp(pr->seed0, pr->seed) != 0)
			pr->seeds = true;
		pr->nruns++;
	}
	free(pr->label);
	free(pr->seed);
	pr->label = pr->seed = NULL;
	pr->field = 0;
	pr->row++;
}

static int read_runs(const char *path, struct plot_runs *pr,
		     struct sim_error *err)
{
	struct csv_parser p;
	char buf[8192];
	size_t n;
	int rc = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_setc(err, -SIM_EIO, "%s: cannot read: %s", path,
				strerror(errno));
	memset(pr, 0, sizeof(*pr));
	pr->label_col = pr->seed_col = pr->gpu_col = -1;
	csv_init(&p, CSV_APPEND_NULL);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (csv_parse(&p, buf, n, csv_field, csv_row, pr) != n) {
			rc = err_set(err, "%s: %s", path,
				     csv_strerror(csv_error(&p)));
			goto out_parser;
		}
	}
	csv_fini(&p, csv_field, csv_row, pr);
	if (pr->label_col < 0 || pr->seed_col < 0)
		rc = err_set(err, "%s: no 'label' and 'seed' columns", path);
out_parser:
	csv_free(&p);
	free(pr->label);
	free(pr->seed);
	pr->label = pr->seed = NULL;
	fclose(f);
	return rc;
}

static void runs_release(struct plot_runs *pr)
{
	for (size_t i = 0; i < pr->nruns; i++)
		free(pr->dirs[i]);
	for (size_t k = 0; k < pr->ngroups; k++)
		free(pr->glabels[k]);
	free(pr->dirs);
	free(pr->rgroup);
	free(pr->glabels);
	free(pr->gseeds);
	free(pr->runs);
	free(pr->labels);
	free(pr->seed0);
}

static bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The folder of gnuplot scripts (docs/metrics.md): $CLUSTERSIM_PLOTS,
 * else plots/ beside the binary's folder (build/clustersim or
 * build/san/clustersim: <bin>/../plots or <bin>/../../plots; installed,
 * <bin>/../share/clustersim/plots), else ./plots.  The caller frees. */
static char *plots_dir(void)
{
	const char *env = getenv("CLUSTERSIM_PLOTS");
	if (env && *env)
		return xstrdup(env);
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *bin = path_dirname(exe);
		/* build/clustersim, then build/san/clustersim. */
		static const char *const rel[] = {
			"/../plots", "/../../plots",
			"/../share/clustersim/plots" };
		for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
			char *d = xasprintf("%s%s", bin, rel[i]);
			if (is_dir(d)) {
				free(bin);
				return d;
			}
			free(d);
		}
		free(bin);
	}
	return xstrdup("plots");
}

/* Whether an executable named name is on $PATH. */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path)
		return false;
	char *copy = xstrdup(path), *save = NULL;
	bool found = false;
	for (char *d = strtok_r(copy, ":", &save); d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/%s", *d ? d : ".", name);
		found = access(f, X_OK) == 0;
		free(f);
	}
	free(copy);
	return found;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.gp files of dir, sorted by name (bytes, not the locale). */
static int list_scripts(const char *dir, char ***out, size_t *nout,
			struct sim_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return err_setc(err, -SIM_EIO,
				"%s: cannot open plots folder: %s", dir,
				strerror(errno));
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len > 3 && strcmp(de->d_name + len - 3, ".gp") == 0) {
			xgrow(&v, &cap, n + 1, sizeof(*v));
			v[n++] = xstrdup(de->d_name);
		}
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	*nout = n;
	return 0;
}

/* Whether a script is marked "# draw: WHAT" (a line of its first 4 KB):
 * "gpu", drawn only for a results folder of a GPU cluster; "sweep", only
 * for a sweep's (one with plots/sweep.dat); "searches", only for runs
 * with hyperparameter searches (searches.csv).  An unreadable script is not
 * marked (gnuplot then says what is wrong). */
static bool marked(const char *script, const char *what)
{
	char buf[4096];
	size_t k = strlen(what);
	FILE *f = fopen(script, "rb");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (const char *p = buf; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (strncmp(p, "# draw: ", 8) == 0 &&
		    strncmp(p + 8, what, k) == 0 &&
		    (p[8 + k] == '\n' || p[8 + k] == '\r' || p[8 + k] == '\0'))
			return true;
	}
	return false;
}

/* Whether the runs had hyperparameter searches: the first run's folder
 * holds searches.csv (report/out.h), which "# draw: searches" scripts
 * read. */
static bool plot_has_searches(const char *outdir, const struct plot_runs *pr)
{
	char *path = xasprintf("%s/%s/searches.csv", outdir, pr->dirs[0]);
	bool yes = access(path, R_OK) == 0;
	free(path);
	return yes;
}

/*
 * VALUE as a gnuplot single-quoted string literal, newly allocated:
 * gnuplot substitutes neither backquoted commands nor @macros inside
 * single quotes, and '' stands for '.  NULL for a value with a control
 * character, which cannot be quoted (a newline would end the command
 * and start another).
 */
static char *gp_literal(const char *val)
{
	if (str_has_control(val))
		return NULL;
	char *t = xmalloc(2 * strlen(val) + 3), *p = t;
	*p++ = '\'';
	for (; *val; val++) {
		if (*val == '\'')
			*p++ = '\'';
		*p++ = *val;
	}
	*p++ = '\'';
	*p = '\0';
	return t;
}

/* NAME=LITERAL; (gp_literal); a value that cannot be quoted is left out
 * and the first such name kept, for gp_spawn() to refuse the call. */
void plot_def(struct plot_defs *d, const char *name, const char *val)
{
	char *lit = gp_literal(val);
	if (!lit) {
		if (!d->bad)
			d->bad = name;
		return;
	}
	size_t need = d->len + strlen(name) + strlen(lit) + 3;
	xgrow(&d->s, &d->cap, need, 1);
	d->len += (size_t)sprintf(d->s + d->len, "%s=%s;", name, lit);
	free(lit);
}

int plot_put_literal(FILE *f, const char *val)
{
	char *lit = gp_literal(val);
	if (!lit)
		return -1;
	fputs(lit, f);
	free(lit);
	return 0;
}

void plot_defs_append(struct plot_defs *d, const struct plot_defs *src)
{
	if (src->bad && !d->bad)
		d->bad = src->bad;
	if (!src->len)
		return;
	xgrow(&d->s, &d->cap, d->len + src->len + 1, 1);
	memcpy(d->s + d->len, src->s, src->len + 1);
	d->len += src->len;
}

void plot_defs_release(struct plot_defs *d)
{
	free(d->s);
	memset(d, 0, sizeof(*d));
}

/* Starts gnuplot -e DEFS SCRIPT with output to the log fd, and when d2
 * is given, in the same process, a reset of the session (variables and
 * settings, so the second drawing starts afresh) and -e D2 SCRIPT; *pid
 * is its process. */
static int gp_spawn(const struct plot_defs *d, const struct plot_defs *d2,
		    const char *script, int logfd, pid_t *pid,
		    struct sim_error *err)
{
	const char *bad = d->bad ? d->bad : d2 ? d2->bad : NULL;
	if (bad)
		return err_setc(err, -SIM_EINPUT, "%s: not drawn: the value of "
				"'%s' holds a control character", script, bad);
	const char *defs = d->s ? d->s : "";
	const char *defs2 = d2 && d2->s ? d2->s : "";
	posix_spawn_file_actions_t fa;
	char *argv[] = { "gnuplot", "-e", (char *)defs, (char *)script,
			 d2 ? "-e" : NULL, "reset session", "-e",
			 (char *)defs2, (char *)script, NULL };
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, logfd, 1);
	posix_spawn_file_actions_adddup2(&fa, logfd, 2);
	int e = posix_spawnp(pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e)
		return err_setc(err, -SIM_EIO, "cannot run gnuplot: %s",
				strerror(e));
	return 0;
}

/* Waits for the gnuplot of script started as pid. */
static int gp_wait(pid_t pid, const char *script, const char *log,
		   struct sim_error *err)
{
	int status, rc = 0;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return err_setc(err, -SIM_EIO,
					"waiting for gnuplot: %s",
					strerror(errno));
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		rc = err_setc(err, -SIM_EIO,
			      "gnuplot failed on '%s' (exit code %d): see "
			      "'%s'",
			      script, WEXITSTATUS(status), log);
	else if (WIFSIGNALED(status))
		rc = err_setc(err, -SIM_EIO,
			      "gnuplot killed by signal %d on '%s'",
			      WTERMSIG(status), script);
	return rc;
}


/* The experiment's name for the titles: the file name, without its
 * folder and ".json", of manifest.json's "experiment"; "" when there is
 * none. */
static char *experiment_name(const char *outdir)
{
	char *path = path_join(outdir, "manifest.json");
	char *name = NULL;
	FILE *f = fopen(path, "rb");
	free(path);
	if (!f)
		return xstrdup("");
	char *text = xmalloc(1 << 20);
	size_t len = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	text[len] = 0;
	cJSON *root = cJSON_Parse(text);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "experiment");
	if (cJSON_IsString(e)) {
		const char *b = strrchr(e->valuestring, '/');
		b = b ? b + 1 : e->valuestring;
		size_t n = strlen(b);
		if (n > 5 && strcmp(b + n - 5, ".json") == 0)
			n -= 5;
		name = xasprintf("%.*s", (int)n, b);
	}
	cJSON_Delete(root);
	free(text);
	return name ? name : xstrdup("");
}

/*
 * The label groups as the scripts get them: groups (the labels), gseeds
 * (runs of each) and rungroup (each run's group, 1-based); with some
 * label run on several seeds, also bands = '1', after the band files
 * (report/seeds.h) are written.
 */
static int group_defs(const char *outdir, const struct plot_runs *pr,
		      struct plot_defs *d, struct sim_error *err)
{
	char *g = NULL, *n = NULL, *r = NULL;
	size_t gl = 0, gc = 0, nl = 0, nc = 0, rl = 0, rc_ = 0;
	bool several = false;
	char num[32];
	for (size_t k = 0; k < pr->ngroups; k++) {
		append(&g, &gl, &gc, pr->glabels[k]);
		snprintf(num, sizeof(num), "%zu", pr->gseeds[k]);
		append(&n, &nl, &nc, num);
		several |= pr->gseeds[k] > 1;
	}
	for (size_t i = 0; i < pr->nruns; i++) {
		snprintf(num, sizeof(num), "%zu", pr->rgroup[i] + 1);
		append(&r, &rl, &rc_, num);
	}
	plot_def(d, "groups", g ? g : "");
	plot_def(d, "gseeds", n ? n : "");
	plot_def(d, "rungroup", r ? r : "");
	free(g);
	free(n);
	free(r);
	if (!several)
		return 0;
	plot_def(d, "bands", "1");
	return seeds_write(outdir, (const char *const *)pr->dirs, pr->rgroup,
			   pr->nruns, (const char *const *)pr->glabels,
			   pr->ngroups, err);
}

#define PLOT_PAR_MAX 8 /* gnuplot processes at once, at most */

/* The gnuplot processes drawing at once: each plot is its own file, so
 * they run side by side, as many as there are CPUs (their messages may
 * interleave in gnuplot.log). */
struct plot_par {
	pid_t pid[PLOT_PAR_MAX];     /* running processes */
	char *script[PLOT_PAR_MAX];  /* the script each draws (owned) */
	size_t n, max;               /* running, allowed */
	int rc;                      /* first error */
	struct sim_error err;        /* its message */
};

/* Waits for the oldest running process; keeps the first error. */
static void par_reap(struct plot_par *pp, const char *log)
{
	struct sim_error e = { "" };
	int rc = gp_wait(pp->pid[0], pp->script[0], log, &e);
	if (rc && !pp->rc) {
		pp->rc = rc;
		pp->err = e;
	}
	free(pp->script[0]);
	pp->n--;
	memmove(pp->pid, pp->pid + 1, pp->n * sizeof(pp->pid[0]));
	memmove(pp->script, pp->script + 1, pp->n * sizeof(pp->script[0]));
}

/* Starts one gnuplot (gp_spawn), first waiting for a slot; no new one
 * after an error. */
static void par_start(struct plot_par *pp, const struct plot_defs *d,
		      const struct plot_defs *d2, const char *script,
		      int logfd, const char *log)
{
	while (pp->n >= pp->max)
		par_reap(pp, log);
	if (pp->rc)
		return;
	struct sim_error e = { "" };
	int rc = gp_spawn(d, d2, script, logfd, &pp->pid[pp->n], &e);
	if (rc) {
		pp->rc = rc;
		pp->err = e;
		return;
	}
	pp->script[pp->n++] = xstrdup(script);
}

/* Draws one script (name, at path script) in one gnuplot: PNG, then SVG,
 * each with the common definitions. */
static void draw_script(struct plot_par *pp, const struct plot_defs *common,
			const char *odir, const char *name, const char *script,
			int logfd, const char *log)
{
	static const char *const terms[] = { "png", "svg" };
	struct plot_defs d[2] = { { 0 }, { 0 } };
	size_t stem = strlen(name) - 3;
	for (size_t t = 0; t < ARRAY_SIZE(terms); t++) {
		char *out = xasprintf("%s/%.*s.%s", odir, (int)stem, name,
				      terms[t]);
		plot_defs_append(&d[t], common);
		plot_def(&d[t], "term", terms[t]);
		plot_def(&d[t], "out", out);
		free(out);
	}
	par_start(pp, &d[0], &d[1], script, logfd, log);
	plot_defs_release(&d[0]);
	plot_defs_release(&d[1]);
}

/* A script marked "# draw: allocations": once per run that has the data
 * (report/gantt.h), which it reads from OUT/plots/<stem>-<run>.dat; the
 * common definitions with runs and labels naming that run alone. */
static void draw_per_run(struct plot_par *pp, const struct plot_defs *common,
			 const char *outdir, const char *odir,
			 const char *name, const char *script,
			 const struct plot_runs *pr, int logfd, const char *log)
{
	static const char *const terms[] = { "png", "svg" };
	size_t stem = strlen(name) - 3;
	for (size_t k = 0; k < pr->nruns && !pp->rc; k++) {
		const char *dir = pr->dirs[k];
		char *csv = xasprintf("%s/%s/allocations.csv", outdir, dir);
		char *dat = xasprintf("%s/%.*s-%s.dat", odir, (int)stem, name,
				      dir);
		struct sim_error e = { "" };
		int rc = gantt_data(csv, dat, &e);
		if (rc < 0 && !pp->rc) {
			pp->rc = rc;
			pp->err = e;
		}
		struct plot_defs d[2] = { { 0 }, { 0 } };
		for (size_t t = 0; t < ARRAY_SIZE(terms); t++) {
			char *out = xasprintf("%s/%.*s-%s.%s", odir, (int)stem,
					      name, dir, terms[t]);
			if (rc == 0) /* no chart now: none left from before */
				unlink(out);
			plot_defs_append(&d[t], common);
			plot_def(&d[t], "runs", dir);
			plot_def(&d[t], "labels", pr->glabels[pr->rgroup[k]]);
			plot_def(&d[t], "term", terms[t]);
			plot_def(&d[t], "out", out);
			plot_def(&d[t], "data", dat);
			free(out);
		}
		if (rc == 0)
			unlink(dat);
		else if (rc == 1)
			par_start(pp, &d[0], &d[1], script, logfd, log);
		plot_defs_release(&d[0]);
		plot_defs_release(&d[1]);
		free(dat);
		free(csv);
	}
}

/* A script marked "tenants": once per run that has projects_gpus.csv
 * (runs with tenants, report/out.h), which it reads as `data`, into
 * OUT/plots/<stem>-<run folder>.<term>. */
static void draw_per_tenant_run(struct plot_par *pp,
				const struct plot_defs *common,
				const char *outdir, const char *odir,
				const char *name, const char *script,
				const struct plot_runs *pr, int logfd,
				const char *log)
{
	static const char *const terms[] = { "png", "svg" };
	size_t stem = strlen(name) - 3;
	for (size_t k = 0; k < pr->nruns && !pp->rc; k++) {
		const char *dir = pr->dirs[k];
		char *csv = xasprintf("%s/%s/projects_gpus.csv", outdir, dir);
		struct plot_defs d[2] = { { 0 }, { 0 } };
		bool have = access(csv, R_OK) == 0;
		for (size_t t = 0; t < ARRAY_SIZE(terms) && have; t++) {
			char *out = xasprintf("%s/%.*s-%s.%s", odir, (int)stem,
					      name, dir, terms[t]);
			plot_defs_append(&d[t], common);
			plot_def(&d[t], "runs", dir);
			plot_def(&d[t], "labels", pr->glabels[pr->rgroup[k]]);
			plot_def(&d[t], "term", terms[t]);
			plot_def(&d[t], "out", out);
			plot_def(&d[t], "data", csv);
			free(out);
		}
		if (have)
			par_start(pp, &d[0], &d[1], script, logfd, log);
		plot_defs_release(&d[0]);
		plot_defs_release(&d[1]);
		free(csv);
	}
}

int plot_results(const char *outdir, struct sim_error *err)
{
	struct plot_runs pr;
	char **scripts = NULL;
	size_t nscripts = 0;
	char *summary = path_join(outdir, "summary.csv");
	char *pdir = plots_dir();
	char *odir = path_join(outdir, "plots");
	char *log = NULL;
	int logfd = -1;
	int rc;

	memset(&pr, 0, sizeof(pr));
	if (!on_path("gnuplot")) {
		rc = err_setc(err, 1, "gnuplot not found: plots skipped "
				      "(results are intact)");
		goto out_paths;
	}
	if ((rc = read_runs(summary, &pr, err)))
		goto out_runs;
	if ((rc = list_scripts(pdir, &scripts, &nscripts, err)))
		goto out_runs;
	char *sdat = path_join(odir, "sweep.dat");
	bool sweep = access(sdat, R_OK) == 0;
	free(sdat);
	if (pr.nruns == 0 || nscripts == 0)
		goto out_scripts;
	bool searches = plot_has_searches(outdir, &pr);
	if ((rc = mkdir_p(odir, err)))
		goto out_scripts;
	log = path_join(odir, "gnuplot.log");
	logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (logfd < 0) {
		rc = err_setc(err, -SIM_EIO, "%s: cannot write: %s", log,
			      strerror(errno));
		goto out_scripts;
	}
	struct plot_defs gdefs = { 0 };
	if ((rc = group_defs(outdir, &pr, &gdefs, err))) {
		plot_defs_release(&gdefs);
		close(logfd);
		goto out_scripts;
	}
	struct plot_defs common = { 0 };
	char *ename = experiment_name(outdir);
	plot_def(&common, "outdir", outdir);
	plot_def(&common, "runs", pr.runs);
	/* With several seeds a label alone would name several curves: the
	 * folder names them apart. */
	plot_def(&common, "labels", pr.seeds ? pr.runs : pr.labels);
	plot_def(&common, "resource", pr.gpus ? "gpu" : "cpu");
	plot_def(&common, "plotdir", pdir);
	plot_def(&common, "experiment", ename);
	plot_defs_append(&common, &gdefs);
	free(ename);
	plot_defs_release(&gdefs);
	struct plot_par pp = { .max = 1 };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu > 1)
		pp.max = ncpu < PLOT_PAR_MAX ? (size_t)ncpu : PLOT_PAR_MAX;
	for (size_t i = 0; i < nscripts && !pp.rc; i++) {
		char *script = xasprintf("%s/%s", pdir, scripts[i]);
		if ((!pr.gpus && marked(script, "gpu")) ||
		    (!sweep && marked(script, "sweep")) ||
		    (!searches && marked(script, "searches")))
			;
		else if (marked(script, "tenants"))
			draw_per_tenant_run(&pp, &common, outdir, odir,
					    scripts[i], script, &pr, logfd,
					    log);
		else if (marked(script, "allocations"))
			draw_per_run(&pp, &common, outdir, odir, scripts[i],
				     script, &pr, logfd, log);
		else
			draw_script(&pp, &common, odir, scripts[i], script,
				    logfd, log);
		free(script);
	}
	while (pp.n > 0)
		par_reap(&pp, log);
	plot_defs_release(&common);
	if ((rc = pp.rc))
		*err = pp.err;
	close(logfd);
out_scripts:
	for (size_t i = 0; i < nscripts; i++)
		free(scripts[i]);
	free(scripts);
out_runs:
	runs_release(&pr);
out_paths:
	free(log);
	free(odir);
	free(pdir);
	free(summary);
	return rc;
}

/* For other plot drivers (fill_run.c): the scripts folder and one
 * gnuplot call, as plot_results() uses them. */
char *plot_scripts_dir(void)
{
	return plots_dir();
}

bool plot_gnuplot_found(void)
{
	return on_path("gnuplot");
}

int plot_gnuplot(const struct plot_defs *d, const struct plot_defs *d2,
		 const char *script, int logfd, const char *log,
		 struct sim_error *err)
{
	if (!on_path("gnuplot"))
		return err_setc(err, 1, "gnuplot not found: plots skipped "
				      "(results are intact)");
	pid_t pid;
	int rc = gp_spawn(d, d2, script, logfd, &pid, err);
	return rc ? rc : gp_wait(pid, script, log, err);
}
