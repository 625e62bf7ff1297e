/*
 * The measurement window of an event-engine run: the experiment's
 * "measure" (exp.h) becomes a stats_window (report/stats.h), resolved
 * against the run's workload before the run, so that the engine can
 * integrate its busy and queue areas over the same span the statistics
 * use.  Resolution needs the jobs (their submit order and times), which
 * is why an empty window is refused here rather than by the loader, under
 * the same JSON path.
 */
#include "run/run_measure.h"

#include <inttypes.h>

#include "base/util.h"

int run_measure_window(const struct experiment *e, const struct workload *w,
		       struct stats_window *win, struct sim_error *err)
{
	const struct exp_measure *m = &e->measure;
	static const enum stats_basis basis[] = {
		[EXP_MEASURE_NONE] = STATS_BASIS_MAKESPAN,
		[EXP_MEASURE_TIME] = STATS_BASIS_TIME,
		[EXP_MEASURE_JOBS] = STATS_BASIS_JOBS,
	};
	*win = (struct stats_window){ .basis = basis[m->form],
				      .start = m->start, .end = m->end,
				      .skip_first = m->skip_first,
				      .skip_last = m->skip_last };
	if (stats_window_resolve(win, w->jobs, w->n) > 0)
		return 0;
	if (m->form == EXP_MEASURE_JOBS)
		return err_set(err, "%s: $.measure: skip_first %" PRIu64
			       " and skip_last %" PRIu64 " leave none of the "
			       "workload's %zu jobs", e->path, m->skip_first,
			       m->skip_last, w->n);
	char a[32] = "0", b[32] = "inf";
	if (m->start != SIM_TIME_NONE)
		fmt_time(a, m->start);
	if (m->end != SIM_TIME_NONE)
		fmt_time(b, m->end);
	return err_set(err, "%s: $.measure: no job of the workload is "
		       "submitted in [%s, %s) s", e->path, a, b);
}

void run_measure_engine(struct sim_config *cfg,
			const struct stats_window *win)
{
	cfg->measure = win->basis != STATS_BASIS_MAKESPAN;
	cfg->measure_start = win->span_start;
	cfg->measure_end = win->span_end;
}

/* The line under the table; first: the first run's metrics (its span),
 * or NULL. */
static void print_window(FILE *f, const struct exp_measure *m,
			 const struct metrics *first)
{
	char a[32] = "?", b[32] = "?";
	if (first && first->span_set) {
		fmt_time(a, first->span_start);
		fmt_time(b, first->span_end);
	}
	if (m->form == EXP_MEASURE_NONE)
		fprintf(f, "measured: every job; utilization over first "
			"submit .. last end (no \"measure\")\n");
	else if (m->form == EXP_MEASURE_JOBS)
		fprintf(f, "measured: the jobs after the first %" PRIu64
			" and before the last %" PRIu64 " in submit order; "
			"utilization over their submits, [%s, %s] s\n",
			m->skip_first, m->skip_last, a, b);
	else
		fprintf(f, "measured: the jobs submitted in [%s, %s) s; "
			"utilization over [%s, %s] s%s\n", a, b, a, b,
			m->start == SIM_TIME_NONE || m->end == SIM_TIME_NONE ?
			" (an open bound is the first submit or the last end)"
			: "");
}

void run_print_table(FILE *f, const struct run_result *runs, size_t n,
		     const struct exp_measure *m)
{
	fprintf(f, "\n%-24s %6s %14s %14s %12s\n", "policy", "seed",
		"mean wait (s)", "mean bsld", "utilization");
	for (size_t i = 0; i < n; i++) {
		const struct run_result *x = &runs[i];
		const struct metrics *mt = &x->metrics;
		char wait[32] = "-", bsld[32] = "-", util[32] = "-";
		if (mt->set[M_WAIT_MEAN])
			snprintf(wait, sizeof(wait), "%.1f",
				 mt->v[M_WAIT_MEAN]);
		if (mt->set[M_BSLD_MEAN])
			snprintf(bsld, sizeof(bsld), "%.2f",
				 mt->v[M_BSLD_MEAN]);
		/* On a GPU cluster, the GPUs' utilization. */
		enum metric_id u = mt->set[M_UTIL_GPU] ? M_UTIL_GPU : M_UTIL;
		if (mt->set[u])
			snprintf(util, sizeof(util), "%.1f%%",
				 100.0 * mt->v[u]);
		fprintf(f, "%-24s %6" PRIu64 " %14s %14s %12s\n", x->label,
			x->seed, wait, bsld, util);
	}
	print_window(f, m, n ? &runs[0].metrics : NULL);
}
