/*
 * The simulated schedule in the forms other tools read: jobs.swf, the run
 * as a Standard Workload Format trace (AccaSim, CQSim, Alea and the
 * Parallel Workloads Archive's tools read it).  docs/metrics.md is the
 * contract.
 *
 * jobs.swf is written for every run, so it is built like jobs.csv: rows
 * formatted with out_fmt.h's integer formatters in a large buffer.
 */
#include "report/out.h"
#include "report/out_fmt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/version.h"
#include "speed/jobclass.h"

#define SCHED_BUF (1u << 20) /* row buffer size */

/* ---- jobs.swf ---- */

/* The header: what the fields hold here, the classes and groups that
 * fields 14 and 13 number, and the cluster's size. */
static void swf_header(FILE *f, const struct run_result *r)
{
	fprintf(f, "; Version: 2.2\n"
		"; Computer: clustersim %s (a simulated schedule)\n"
		"; Note: run %s-s%" PRIu64 ", policy %s, workload %s\n",
		CLUSTERSIM_VERSION, r->label, r->seed, r->policy,
		r->workload);
	fputs("; Note: fields 5 and 8 (allocated and requested processors) "
	      "hold CPUs for HPC jobs and GPUs for GPU jobs\n"
	      "; Note: field 3 (wait) is the time queued in all, the waits "
	      "after preemptions included; field 4 (run) is end - first "
	      "start, the time preempted included (jobs.csv's wait and "
	      "run)\n"
	      "; Note: a preempted job is one line: its first start, its "
	      "total wait, status 1\n"
	      "; Note: times in seconds, with decimals where the simulated "
	      "ones are not whole seconds\n"
	      "; Note: status 1 finished, 0 killed at its estimate, 5 "
	      "rejected (never started: wait and run -1)\n", f);
	unsigned ncls = jobclass_count();
	bool *used = xcalloc(ncls ? ncls : 1, sizeof(*used));
	for (size_t i = 0; i < r->njobs; i++)
		if (r->jobs[i].gpus && r->jobs[i].job_class < ncls)
			used[r->jobs[i].job_class] = true;
	for (unsigned c = 1; c < ncls; c++)
		if (used[c])
			fprintf(f, "; Note: executable %u (field 14) is job "
				"class %s\n", c, jobclass_get(c)->name);
	free(used);
	for (size_t g = 0; g < r->ngroups; g++)
		fprintf(f, "; Note: group %zu (field 13) is %s\n", g,
			r->groups[g]);
	fprintf(f, "; MaxJobs: %zu\n; MaxRecords: %zu\n; MaxNodes: %" PRIu32
		"\n; MaxProcs: %" PRIu64 "\n", r->njobs, r->njobs, r->nodes,
		r->cpus);
}

/* One line of jobs.swf at p.  At most ~400 bytes. */
static char *swf_row(char *p, const struct job *j)
{
	bool started = j->start != SIM_TIME_NONE;
	bool ended = started && j->end != SIM_TIME_NONE;
	int64_t procs = j->gpus ? j->gpus : j->cpus;
	int status = j->state == JOB_FINISHED ? 1 : j->state == JOB_KILLED
		? 0 : 5;
	p = put_i64(p, j->id);
	*p++ = ' ';
	p = put_time(p, j->submit);
	*p++ = ' ';
	if (started)
		p = put_time(p, j->queued);
	else
		p = put_i64(p, -1);
	*p++ = ' ';
	if (ended)
		p = put_time(p, j->end - j->start);
	else
		p = put_i64(p, -1);
	*p++ = ' ';
	p = put_i64(p, started ? procs : -1);
	memcpy(p, " -1 -1 ", 7); /* average CPU time, used memory */
	p += 7;
	p = put_i64(p, procs);
	*p++ = ' ';
	if (j->flags & JOB_HAS_ESTIMATE)
		p = put_time(p, j->estimate);
	else
		p = put_i64(p, -1);
	memcpy(p, " -1 ", 4); /* requested memory */
	p += 4;
	p = put_i64(p, status);
	*p++ = ' ';
	p = put_i64(p, j->user >= 0 ? j->user : -1);
	*p++ = ' ';
	p = put_i64(p, j->group >= 0 ? j->group : -1);
	*p++ = ' ';
	p = put_i64(p, j->gpus && j->job_class != JOB_CLASS_NONE
			       ? (int64_t)j->job_class : -1);
	/* queue, partition, preceding job, think time */
	memcpy(p, " -1 -1 -1 -1\n", 13);
	return p + 13;
}

int out_write_swf(const char *path, const struct run_result *r,
		  struct sim_error *err)
{
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		return rc;
	swf_header(af.f, r);
	char *buf = xmalloc(SCHED_BUF);
	char *p = buf;
	for (size_t i = 0; i < r->njobs; i++) {
		if ((size_t)(p - buf) > SCHED_BUF - 512) {
			fwrite(buf, 1, (size_t)(p - buf), af.f);
			p = buf;
		}
		p = swf_row(p, &r->jobs[i]);
	}
	fwrite(buf, 1, (size_t)(p - buf), af.f);
	free(buf);
	return afile_commit(&af, err);
}
