/*
 * partitions.csv (docs/tenants.md "Partitions and QOS", docs/metrics.md
 * "Partitions"): one row per partition of a run whose cluster has
 * partitions, with its jobs, the jobs its time limit refused, their waits
 * and its queue length: the time-average number of its jobs waiting
 * (their waits summed over the run's span, from the first submit to the
 * last end: Little's law) and the most waiting at once (after every
 * event of a timestamp).  A job counts as waiting from its submit to its
 * first start.  Written only for such runs, so every other run's files
 * are as they were.
 */
#include "report/out.h"
#include "report/out_fmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "base/util.h"

/* A queue event of a partition: +1 at a submit, -1 at a start. */
struct qev {
	sim_time_t t;
	int32_t part;
	int32_t d;
};

static int cmp_qev(const void *pa, const void *pb)
{
	const struct qev *a = pa, *b = pb;
	if (a->t != b->t)
		return (a->t > b->t) - (a->t < b->t);
	if (a->part != b->part)
		return (a->part > b->part) - (a->part < b->part);
	return (a->d > b->d) - (a->d < b->d);
}

/* The most jobs of each partition waiting at once, into qmax[np]. */
static void queue_max(const struct run_result *r, const struct slurm_books *b,
		      size_t np, uint64_t *qmax)
{
	struct qev *ev = xmalloc((2 * r->njobs + 1) * sizeof(*ev));
	size_t n = 0;
	for (size_t i = 0; i < r->njobs; i++) {
		const struct job *j = &r->jobs[i];
		int32_t p = b->job_part[j->idx];
		if (p < 0 || j->state == JOB_REJECTED)
			continue;
		ev[n++] = (struct qev){ j->submit, p, 1 };
		if (j->start != SIM_TIME_NONE)
			ev[n++] = (struct qev){ j->start, p, -1 };
	}
	qsort(ev, n, sizeof(*ev), cmp_qev);
	int64_t *len = xcalloc(np, sizeof(*len));
	for (size_t i = 0; i < n; i++) {
		len[ev[i].part] += ev[i].d;
		bool last = i + 1 == n || ev[i + 1].t != ev[i].t ||
			    ev[i + 1].part != ev[i].part;
		if (last && len[ev[i].part] > (int64_t)qmax[ev[i].part])
			qmax[ev[i].part] = (uint64_t)len[ev[i].part];
	}
	free(len);
	free(ev);
}

static void put_num(FILE *out, double v)
{
	char buf[64];
	if (isnan(v))
		return;
	*put_ratio(buf, v) = '\0';
	fputs(buf, out);
}

int out_write_partitions(const char *path, const struct run_result *r,
			 struct sim_error *err)
{
	const struct slurm_books *b = r->slurm;
	size_t np = b->spec->nparts;
	uint64_t *jobs = xcalloc(np, sizeof(*jobs));
	uint64_t *started = xcalloc(np, sizeof(*started));
	uint64_t *qmax = xcalloc(np, sizeof(*qmax));
	double *wait = xcalloc(np, sizeof(*wait));
	sim_time_t t0 = SIM_TIME_MAX, t1 = SIM_TIME_NONE;
	for (size_t i = 0; i < r->njobs; i++) {
		const struct job *j = &r->jobs[i];
		t0 = j->submit < t0 ? j->submit : t0;
		if (j->end != SIM_TIME_NONE && j->end > t1)
			t1 = j->end;
		int32_t p = b->job_part[j->idx];
		if (p < 0)
			continue;
		jobs[p]++;
		if (j->start != SIM_TIME_NONE) {
			started[p]++;
			wait[p] += (double)(j->start - j->submit);
		}
	}
	double span = t1 > t0 && t1 != SIM_TIME_NONE ? (double)(t1 - t0) : 0;
	queue_max(r, b, np, qmax);
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		goto out;
	fputs("partition,units,max_time_s,priority_tier,priority_job_factor,"
	      "jobs,rejected_max_time,wait_mean_s,queue_mean,queue_max\n",
	      af.f);
	for (size_t p = 0; p < np; p++) {
		const struct sim_partition *sp = &b->parts[p];
		fprintf(af.f, "%s,%" PRIu64 ",", sp->name, sp->units);
		put_num(af.f, (double)sp->max_time / SIM_SEC);
		fprintf(af.f, ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",",
			sp->priority_tier, sp->priority_job_factor, jobs[p],
			b->rejected_max_time[p]);
		put_num(af.f, started[p] ? wait[p] / (double)started[p] / SIM_SEC
					 : NAN);
		fputc(',', af.f);
		put_num(af.f, span > 0 ? wait[p] / span : 0);
		fprintf(af.f, ",%" PRIu64 "\n", qmax[p]);
	}
	rc = afile_commit(&af, err);
out:
	free(jobs);
	free(started);
	free(qmax);
	free(wait);
	return rc;
}
