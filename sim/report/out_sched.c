/*
 * The simulated schedule in the forms other tools read: allocations.csv,
 * one row per interval a job held a placement (the nodes as a Batsim /
 * evalys interval set, "0-3,7"), and jobs.swf, the run as a Standard
 * Workload Format trace (AccaSim, CQSim, Alea and the Parallel Workloads
 * Archive's tools read it).  docs/metrics.md is the contract of both.
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

/* A growable row buffer that is flushed to f when a row may not fit. */
struct rowbuf {
	FILE *f;
	char *buf;
	size_t cap;
};

/* Room for need more bytes at *p: flushes, or grows for a long row. */
static char *rb_room(struct rowbuf *b, char *p, size_t need)
{
	size_t used = (size_t)(p - b->buf);
	if (used + need <= b->cap)
		return p;
	fwrite(b->buf, 1, used, b->f);
	if (need > b->cap) {
		free(b->buf);
		b->cap = need;
		b->buf = xmalloc(b->cap);
	}
	return b->buf;
}

/* ---- allocations.csv ---- */

/* Insertion sort of extents by first node: placements are short and
 * nearly always in node order already. */
static void sort_slots(struct place_slot *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct place_slot x = v[i];
		size_t k = i;
		for (; k > 0 && v[k - 1].node > x.node; k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
}

size_t out_node_set(char *p, const struct place_slot *slots, size_t n,
		    uint32_t gpus, struct place_slot *scratch)
{
	char *start = p;
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (slots[i].gpus == gpus && slots[i].count)
			scratch[m++] = slots[i];
	sort_slots(scratch, m);
	for (size_t i = 0; i < m;) {
		uint32_t lo = scratch[i].node;
		uint64_t hi = (uint64_t)lo + scratch[i].count - 1;
		/* Extents that touch or overlap the range join it. */
		for (i++; i < m && scratch[i].node <= hi + 1; i++) {
			uint64_t e = (uint64_t)scratch[i].node +
				     scratch[i].count - 1;
			if (e > hi)
				hi = e;
		}
		if (p != start)
			*p++ = ',';
		p = put_u64(p, lo);
		if (hi > lo) {
			*p++ = '-';
			p = put_u64(p, hi);
		}
	}
	*p = '\0';
	return (size_t)(p - start);
}

/* Whether an earlier extent of the interval has the same GPUs per node
 * (its row is written already). */
static bool gpus_seen(const struct place_slot *s, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (s[i].gpus == s[k].gpus)
			return true;
	return false;
}

/* The rows of one interval: one per distinct GPU count per node (one
 * row for nearly every placement). */
static char *interval_rows(struct rowbuf *b, char *p, const struct job *j,
			   const struct alloc_interval *a,
			   const struct place_slot *slots,
			   struct place_slot *scratch)
{
	const struct place_slot *s = slots + a->slot0;
	for (size_t k = 0; k < a->nslots || k == 0; k++) {
		if (a->nslots && gpus_seen(s, k))
			continue;
		uint32_t g = a->nslots ? s[k].gpus : 0;
		p = rb_room(b, p, 24 * (size_t)a->nslots + 160);
		p = put_i64(p, j->id);
		*p++ = ',';
		p = put_time(p, a->start);
		*p++ = ',';
		p = put_time(p, a->end);
		*p++ = ',';
		/* Quoted when it holds a comma (RFC 4180). */
		size_t len = out_node_set(p + 1, s, a->nslots, g, scratch);
		if (memchr(p + 1, ',', len)) {
			*p = '"';
			p += len + 1;
			*p++ = '"';
		} else {
			memmove(p, p + 1, len);
			p += len;
		}
		*p++ = ',';
		p = put_u64(p, g);
		*p++ = '\n';
		if (!a->nslots)
			break;
	}
	return p;
}

int out_write_allocations(const char *path, const struct run_result *r,
			  struct sim_error *err)
{
	static const char header[] = "job,start,end,nodes,gpus\n";
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		return rc;
	/* The intervals by job (submit order), each job's in time order. */
	size_t n = r->nallocs, maxslots = 1;
	size_t *first = xcalloc(r->njobs + 1, sizeof(*first));
	uint32_t *ord = xmalloc((n ? n : 1) * sizeof(*ord));
	for (size_t i = 0; i < n; i++) {
		first[r->allocs[i].idx + 1]++;
		if (r->allocs[i].nslots > maxslots)
			maxslots = r->allocs[i].nslots;
	}
	for (size_t i = 0; i < r->njobs; i++)
		first[i + 1] += first[i];
	for (size_t i = 0; i < n; i++)
		ord[first[r->allocs[i].idx]++] = (uint32_t)i;
	struct place_slot *scratch = xmalloc(maxslots * sizeof(*scratch));
	struct rowbuf b = { .f = af.f, .cap = SCHED_BUF };
	b.buf = xmalloc(b.cap);
	char *p = b.buf;
	memcpy(p, header, sizeof(header) - 1);
	p += sizeof(header) - 1;
	for (size_t i = 0; i < n; i++) {
		const struct alloc_interval *a = &r->allocs[ord[i]];
		p = interval_rows(&b, p, &r->jobs[a->idx], a, r->alloc_slots,
				  scratch);
	}
	fwrite(b.buf, 1, (size_t)(p - b.buf), af.f);
	free(b.buf);
	free(scratch);
	free(ord);
	free(first);
	return afile_commit(&af, err);
}

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
