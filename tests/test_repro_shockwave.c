/*
 * The Shockwave paper's simulated 120-job, 32-V100 experiment
 * (experiments/shockwave-120.json; docs/gavel.md has the table beside
 * the paper's): the shipped experiment file, its trace path pointed at
 * $CLUSTERSIM_TRACE_DIR (default ../shared/traces), run through the
 * runner, and the recorded aggregates of each policy asserted: makespan
 * and mean JCT to 1 s, the largest finish-time fairness with and without
 * contention to 1e-4.  Skipped, saying so, when the trace is absent.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "exp/exp_json.h"
#include "run/runner.h"
#include "testlib.h"

#define SW_TRACE "gpu/shockwave/shockwave-120job.trace"

/* The value of column col in label's row of a summary.csv text. */
static double sw_col(const char *csv, const char *label, const char *col)
{
	const char *nl = strchr(csv, '\n');
	cr_assert_not_null(nl);
	int k = -1, i = 0;
	for (const char *p = csv; p < nl; i++) {
		const char *e = memchr(p, ',', (size_t)(nl - p));
		size_t len = (size_t)((e ? e : nl) - p);
		if (len == strlen(col) && !strncmp(p, col, len))
			k = i;
		p = e ? e + 1 : nl;
	}
	cr_assert_geq(k, 0, "no column %s", col);
	for (const char *r = nl + 1; *r;) {
		const char *end = strchr(r, '\n');
		size_t ll = strlen(label);
		if (!strncmp(r, label, ll) && r[ll] == ',') {
			const char *p = r;
			for (int c = 0; c < k; c++)
				p = strchr(p, ',') + 1;
			return strtod(p, NULL);
		}
		r = end ? end + 1 : r + strlen(r);
	}
	cr_assert_fail("no row %s", label);
	return NAN;
}

Test(repro_shockwave, three_policy_table, .init = cr_redirect_stdout)
{
	const char *dir = getenv("CLUSTERSIM_TRACE_DIR");
	char *trace = xasprintf("%s/%s", dir && *dir ? dir : "../shared/traces",
				SW_TRACE);
	if (access(trace, R_OK) != 0) {
		free(trace);
		cr_skip_test(SW_TRACE " not in $CLUSTERSIM_TRACE_DIR");
	}
	char *abs = realpath(trace, NULL);
	cr_assert_not_null(abs);
	char *text = NULL;
	size_t len;
	cr_assert_eq(exp_read_text("experiments/shockwave-120.json", 0, &text,
				   &len, NULL, NULL), 0);
	const char *from = "../../shared/traces/" SW_TRACE;
	char *at = strstr(text, from);
	cr_assert_not_null(at, "the experiment names %s", from);
	*at = '\0';
	char *json = xasprintf("%s%s%s", text, abs, at + strlen(from));

	char tmp[] = "/tmp/clustersim_sw120_XXXXXX";
	cr_assert_not_null(mkdtemp(tmp));
	char *file = path_join(tmp, "shockwave-120.json");
	char *out = path_join(tmp, "out");
	FILE *f = fopen(file, "w");
	cr_assert_not_null(f);
	fputs(json, f);
	fclose(f);
	struct run_opts o = { .file = file, .quiet = true, .no_plots = true,
			      .outdir = out, .out = stdout, .msg = stderr };
	struct sim_error err;
	cr_assert_eq(runner_run(&o, &err), 0, "%s", err.msg);

	char *sum = path_join(out, "summary.csv"), *csv = NULL;
	cr_assert_eq(exp_read_text(sum, 0, &csv, &len, NULL, NULL), 0);
	static const struct {
		const char *label;
		double makespan, jct, ftf_max, iso_max;
	} want[] = {
		{ "themis-lp", 32284.00268, 10653.183411, 4.807199, 9.612053 },
		{ "max-min", 33844.000135, 11293.900029, 4.031806, 9.400502 },
		{ "min-makespan", 25904, 22360.766769, 8.435894, 29.179167 },
	};
	for (size_t k = 0; k < ARRAY_SIZE(want); k++) {
		const char *l = want[k].label;
		double v;
		v = sw_col(csv, l, "jobs");
		cr_expect_eq(v, 120, "%s: %g jobs", l, v);
		v = sw_col(csv, l, "makespan");
		cr_expect(fabs(v - want[k].makespan) < 1, "%s makespan %.6f", l, v);
		v = sw_col(csv, l, "response_mean");
		cr_expect(fabs(v - want[k].jct) < 1, "%s JCT %.6f", l, v);
		v = sw_col(csv, l, "ftf_max");
		cr_expect(fabs(v - want[k].ftf_max) < 1e-4, "%s ftf %.6f", l, v);
		v = sw_col(csv, l, "ftf_isolated_max");
		cr_expect(fabs(v - want[k].iso_max) < 1e-4, "%s iso %.6f", l, v);
	}
	free(csv);
	free(sum);
	tl_rmtree(tmp);
	free(out);
	free(file);
	free(json);
	free(text);
	free(abs);
	free(trace);
}
