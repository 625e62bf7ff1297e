/*
 * "measure": the measurement window of an experiment (docs/metrics.md,
 * experiments/README.md).  A run's statistics count only the jobs
 * submitted inside it and its utilization is taken over it, so that the
 * warm-up of an empty cluster and the drain after the last arrival do
 * not dilute a steady-state result.  Two forms, never both:
 *   {"start": S, "end": E}          seconds, like workload.window: jobs
 *                                   submitted in [S, E) count; either
 *                                   bound may be left out
 *   {"skip_first": N, "skip_last": M}  jobs in submit order: all but the
 *                                   first N and the last M count
 * null stands for no window (as the resolved configuration writes it).
 * Whether the window holds a job at all is known only once the workload
 * is loaded; the runner refuses an empty one under the same path.
 */
#include "exp/exp_schema.h"


#include "exp/exp_json.h"

int exp_parse_measure(struct exp_ctx *c, const cJSON *v,
		      struct exp_measure *m)
{
	static const char *const keys[] = { "start", "end", "skip_first",
					    "skip_last" };
	const cJSON *f[ARRAY_SIZE(keys)];
	char s[EXP_SHOW_MAX], t[EXP_SHOW_MAX];
	if (cJSON_IsNull(v))
		return 0;
	size_t mark = exp_jp_key(c, "measure");
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	bool by_time = !rc && (f[0] || f[1]);
	bool by_jobs = !rc && (f[2] || f[3]);
	if (!rc && by_time && by_jobs)
		rc = exp_fail(c, NULL, "give either \"start\"/\"end\" "
			      "(seconds) or \"skip_first\"/\"skip_last\" "
			      "(jobs), not both");
	else if (!rc && !by_time && !by_jobs)
		rc = exp_fail(c, NULL, "give \"start\"/\"end\" (seconds) or "
			      "\"skip_first\"/\"skip_last\" (jobs); leave "
			      "\"measure\" out to measure every job");
	if (!rc && by_time) {
		m->form = EXP_MEASURE_TIME;
		rc = exp_get_seconds(c, "start", f[0], 0, false, &m->start);
		if (!rc)
			rc = exp_get_seconds(c, "end", f[1], 0, false,
					     &m->end);
		if (!rc && f[0] && f[1] && m->end <= m->start) {
			exp_show(f[0], s);
			exp_show(f[1], t);
			rc = exp_fail(c, "end", "must be > start ('%s'), got "
				      "'%s'", s, t);
		}
	}
	if (!rc && by_jobs) {
		m->form = EXP_MEASURE_JOBS;
		rc = exp_get_uint(c, "skip_first", f[2], 0, UINT32_MAX,
				  &m->skip_first);
		if (!rc)
			rc = exp_get_uint(c, "skip_last", f[3], 0, UINT32_MAX,
					  &m->skip_last);
	}
	exp_jp_pop(c, mark);
	return rc;
}

cJSON *exp_measure_json(const struct exp_measure *m)
{
	cJSON *j = m->form == EXP_MEASURE_NONE ? cJSON_CreateNull()
					       : cJSON_CreateObject();
	if (!j)
		SIM_BUG("out of memory building JSON");
	if (m->form == EXP_MEASURE_TIME) {
		/* The bounds as given: an open one stays out, as in
		 * workload.window. */
		if (m->start != SIM_TIME_NONE)
			cJSON_AddNumberToObject(j, "start",
						(double)m->start / SIM_SEC);
		if (m->end != SIM_TIME_NONE)
			cJSON_AddNumberToObject(j, "end",
						(double)m->end / SIM_SEC);
	} else if (m->form == EXP_MEASURE_JOBS) {
		cJSON_AddNumberToObject(j, "skip_first",
					(double)m->skip_first);
		cJSON_AddNumberToObject(j, "skip_last", (double)m->skip_last);
	}
	return j;
}
