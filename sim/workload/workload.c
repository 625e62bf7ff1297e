/*
 * Workload plumbing shared by every reader and the generator: loader
 * defaults, the per-job options (drop, estimate, overrun) and the common
 * tail (sort by (submit, id), unique ids, time window, first N, load
 * scaling, dense indices).
 *
 * Sorting must stay fast on millions of jobs, so it checks first whether
 * the jobs are already in order (traces nearly always are) and otherwise
 * radix-sorts small (submit, id, position) keys and moves each record
 * once.  A duplicate id is an error; the smallest one is named.
 */
#include "workload/workload.h"

#include "cluster/cluster.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

int trace_input_open(struct input *in, const char *path,
		     const struct trace_opts *o, bool threaded,
		     struct sim_error *err)
{
	struct input_opts io = { .max_bytes = o->max_bytes,
				 .threaded = threaded };
	return input_open(in, path, &io, err);
}

void trace_input_close(struct input *in, struct workload *w, int rc)
{
	if (!rc)
		memcpy(w->sha256, in->sha256, sizeof(w->sha256));
	input_close(in);
}

void workload_init(struct workload *w)
{
	memset(w, 0, sizeof(*w));
	w->max_procs = -1;
	w->max_nodes = -1;
}

void trace_opts_default(struct trace_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = TRACE_SWF;
	o->procs = PROCS_ALLOCATED;
	o->overrun = OVERRUN_CLIP;
	o->drop_invalid = true;
	o->lenient = false;
	o->limit = 0;
	o->window_start = SIM_TIME_NONE;
	o->window_end = SIM_TIME_NONE;
	o->load_scale = 1.0;
	o->max_bytes = INPUT_MAX_BYTES;
	o->max_jobs = TRACE_MAX_JOBS_DEFAULT;
}

/*
 * A job's times must lie in the clock's input range (SIM_TIME_INPUT_MAX,
 * 2^53 microseconds): then submit + estimate + run, and what the engine
 * adds to them, cannot wrap the int64 clock.
 */
static int trace_time_check(const struct job *j, const char *path,
			    uint64_t line, struct sim_error *err)
{
	static const char *const what[] = { "submit time", "run time",
					    "estimate" };
	const sim_time_t t[] = { j->submit, j->run, j->estimate };
	char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		if (t[i] <= SIM_TIME_INPUT_MAX && t[i] >= -SIM_TIME_INPUT_MAX)
			continue;
		fmt_time(buf, t[i]);
		return err_set(err, "%s:%" PRIu64 ": %s '%s' is out of the "
			       "clock's input range (at most 9007199254 s, "
			       "2^53 microseconds)", path, line, what[i], buf);
	}
	return 0;
}

int trace_job_finish(struct job *j, int64_t procs, const struct trace_opts *o,
		     struct trace_report *r, const char *path, uint64_t line,
		     struct sim_error *err)
{
	char buf[32];

	/* Past the limit nothing more is kept (under lenient the reader
	 * goes on skipping, and workload_finish refuses the count). */
	if (o->max_jobs && r->jobs_read > o->max_jobs)
		return err_set(err, "%s:%" PRIu64 ": more than %" PRIu64
			       " jobs, the limit: raise $.limits.jobs to read "
			       "them all", path, line, o->max_jobs);
	if (trace_time_check(j, path, line, err) != 0) {
		r->jobs_read--; /* a malformed line, not a job line */
		return -SIM_EINPUT;
	}
	if (j->run <= 0) {
		if (o->drop_invalid) {
			r->dropped_run++;
			return 0;
		}
		fmt_time(buf, j->run);
		return err_set(err, "%s:%" PRIu64 ": run time '%s' is not positive",
			       path, line, buf);
	}
	if (procs <= 0) {
		if (o->drop_invalid) {
			r->dropped_procs++;
			return 0;
		}
		return err_set(err, "%s:%" PRIu64
			       ": processors '%" PRId64 "' is not positive",
			       path, line, procs);
	}
	j->flags &= ~(uint32_t)(JOB_HAS_ESTIMATE | JOB_KILL_AT_ESTIMATE);
	if (j->estimate <= 0) {
		j->estimate = j->run;
		r->no_estimate++;
	} else {
		j->flags |= JOB_HAS_ESTIMATE;
		if (j->run > j->estimate) {
			switch (o->overrun) {
			case OVERRUN_CLIP:
				j->run = j->estimate;
				r->clipped++;
				break;
			case OVERRUN_KILL:
				j->run = j->estimate;
				j->flags |= JOB_KILL_AT_ESTIMATE;
				r->killed++;
				break;
			case OVERRUN_ALLOW:
				r->overran++;
				break;
			}
		}
	}
	j->state = JOB_FUTURE;
	j->start = SIM_TIME_NONE;
	j->end = SIM_TIME_NONE;
	return 1;
}

/* Sort key: a job's (submit, id) as offsets from their minimums, so
 * that both sort as unsigned integers, and where the job is now. */
struct wl_key {
	uint64_t submit; /* submit - smallest submit */
	uint64_t id;     /* id - smallest id */
	size_t pos;      /* index in the unsorted array */
};

#define WL_DIGIT 11 /* bits per radix pass: 2048 buckets */

static int wl_bits(uint64_t range)
{
	return range ? 64 - __builtin_clzll(range) : 0;
}

/*
 * Stable LSD radix sort of n keys on one field (the id when by_id, else
 * the submit) holding bits significant bits; *k and *tmp trade places as
 * the passes go, so *k holds the result.
 */
static void wl_radix(struct wl_key **k, struct wl_key **tmp, size_t n,
		     bool by_id, int bits)
{
	size_t *count = xmalloc(((size_t)1 << WL_DIGIT) * sizeof(*count));

	for (int shift = 0; shift < bits; shift += WL_DIGIT) {
		const size_t nb = (size_t)1 << WL_DIGIT, mask = nb - 1;
		struct wl_key *src = *k, *dst = *tmp;
		size_t i, sum = 0;

		memset(count, 0, nb * sizeof(*count));
		for (i = 0; i < n; i++)
			count[((by_id ? src[i].id : src[i].submit) >> shift) &
			      mask]++;
		for (i = 0; i < nb; i++) {
			size_t c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			uint64_t v = by_id ? src[i].id : src[i].submit;
			dst[count[(v >> shift) & mask]++] = src[i];
		}
		*k = dst;
		*tmp = src;
	}
	free(count);
}

static bool wl_before(const struct job *a, const struct job *b)
{
	return a->submit < b->submit ||
	       (a->submit == b->submit && a->id < b->id);
}

/*
 * Sorts the jobs by (submit, id) and looks for duplicate ids; returns
 * true and the smallest duplicated id in *dup when there is one.  Input
 * that is already in order (traces nearly always are) costs one pass;
 * else a radix sort on the id, then on the submit time (stable, so ties
 * stay in id order), takes O(n) and finds duplicates on the way.
 */
static bool wl_sort(struct workload *w, int64_t *dup)
{
	size_t i, n = w->n;
	bool sorted = true, ids_up = true;
	int64_t smin, imin, smax, imax;

	if (n < 2)
		return false;
	smin = smax = w->jobs[0].submit;
	imin = imax = w->jobs[0].id;
	for (i = 1; i < n; i++) {
		const struct job *j = &w->jobs[i];
		sorted &= !wl_before(j, j - 1);
		ids_up &= j->id > j[-1].id;
		smin = j->submit < smin ? j->submit : smin;
		smax = j->submit > smax ? j->submit : smax;
		imin = j->id < imin ? j->id : imin;
		imax = j->id > imax ? j->id : imax;
	}
	if (sorted && ids_up)
		return false; /* the common case: nothing to do */

	struct wl_key *k = xmalloc(n * sizeof(*k));
	struct wl_key *tmp = xmalloc(n * sizeof(*tmp));
	for (i = 0; i < n; i++) {
		k[i].submit = (uint64_t)w->jobs[i].submit - (uint64_t)smin;
		k[i].id = (uint64_t)w->jobs[i].id - (uint64_t)imin;
		k[i].pos = i;
	}
	wl_radix(&k, &tmp, n, true, wl_bits((uint64_t)imax - (uint64_t)imin));
	bool found = false;
	for (i = 1; i < n && !found; i++)
		if (k[i].id == k[i - 1].id) {
			*dup = (int64_t)(k[i].id + (uint64_t)imin);
			found = true;
		}
	if (!found && !sorted) {
		wl_radix(&k, &tmp, n, false,
			 wl_bits((uint64_t)smax - (uint64_t)smin));
		struct job *out = xmalloc(n * sizeof(*out));
		for (i = 0; i < n; i++)
			out[i] = w->jobs[k[i].pos];
		free(w->jobs);
		w->jobs = out;
		if (w->qp) {
			int32_t *q = xmalloc(2 * n * sizeof(*q));
			uint64_t *l = xmalloc(n * sizeof(*l));
			for (i = 0; i < n; i++) {
				q[2 * i] = w->qp[2 * k[i].pos];
				q[2 * i + 1] = w->qp[2 * k[i].pos + 1];
				l[i] = w->qline[k[i].pos];
			}
			free(w->qp);
			free(w->qline);
			w->qp = q;
			w->qline = l;
		}
		if (w->proj) {
			int32_t *q = xmalloc(n * sizeof(*q));
			for (i = 0; i < n; i++)
				q[i] = w->proj[k[i].pos];
			free(w->proj);
			w->proj = q;
		}
	}
	free(k);
	free(tmp);
	return found;
}

/* Drops the queue and partition fields (and lines) of the first `first`
 * jobs, keeping the n after them. */
static void wl_drop_qp(struct workload *w, size_t first, size_t n)
{
	memmove(w->qp, w->qp + 2 * first, 2 * n * sizeof(*w->qp));
	memmove(w->qline, w->qline + first, n * sizeof(*w->qline));
}

/* Insertion sort for an array that is in order but for local swaps (after
 * load scaling has made some submit times equal). */
static void wl_resort_nearly(struct workload *w)
{
	for (size_t i = 1; i < w->n; i++) {
		if (!wl_before(&w->jobs[i], &w->jobs[i - 1]))
			continue;
		struct job t = w->jobs[i];
		int32_t tq[2] = { 0, 0 }, tp = w->proj ? w->proj[i] : -1;
		uint64_t tl = 0;
		size_t k = i;
		if (w->qp) {
			memcpy(tq, w->qp + 2 * i, sizeof(tq));
			tl = w->qline[i];
		}
		while (k > 0 && wl_before(&t, &w->jobs[k - 1])) {
			w->jobs[k] = w->jobs[k - 1];
			if (w->qp) {
				memcpy(w->qp + 2 * k, w->qp + 2 * (k - 1),
				       sizeof(tq));
				w->qline[k] = w->qline[k - 1];
			}
			if (w->proj)
				w->proj[k] = w->proj[k - 1];
			k--;
		}
		w->jobs[k] = t;
		if (w->qp) {
			memcpy(w->qp + 2 * k, tq, sizeof(tq));
			w->qline[k] = tl;
		}
		if (w->proj)
			w->proj[k] = tp;
	}
}

int workload_finish(struct workload *w, const struct trace_opts *o,
		    const char *path, struct sim_error *err)
{
	struct trace_opts def;
	char b1[32];
	size_t i, first, last;
	int64_t dup;

	if (!o) {
		trace_opts_default(&def);
		o = &def;
	}
	if (!(o->load_scale > 0) || !isfinite(o->load_scale))
		return err_set(err, "%s: load scale '%g' is not positive", path,
			       o->load_scale);
	if (w->n > UINT32_MAX)
		return err_set(err, "%s: too many jobs '%zu'", path, w->n);
	if (o->max_jobs && w->report.jobs_read > o->max_jobs)
		return err_set(err, "%s: more than %" PRIu64 " jobs, the "
			       "limit: raise $.limits.jobs to read them all",
			       path, o->max_jobs);

	if (wl_sort(w, &dup))
		return err_set(err, "%s: duplicate job id '%" PRId64 "'", path,
			       dup);

	/* Time window [start, end) on submit: a contiguous run once sorted. */
	first = 0;
	last = w->n;
	if (o->window_start != SIM_TIME_NONE)
		while (first < last && w->jobs[first].submit < o->window_start)
			first++;
	if (o->window_end != SIM_TIME_NONE)
		while (last > first && w->jobs[last - 1].submit >= o->window_end)
			last--;
	w->report.outside_window += w->n - (last - first);
	if (first > 0)
		memmove(w->jobs, w->jobs + first,
			(last - first) * sizeof(*w->jobs));
	if (first > 0 && w->qp)
		wl_drop_qp(w, first, last - first);
	if (first > 0 && w->proj)
		memmove(w->proj, w->proj + first,
			(last - first) * sizeof(*w->proj));
	w->n = last - first;

	if (o->skip) {
		size_t k = o->skip < w->n ? (size_t)o->skip : w->n;
		w->report.skipped += k;
		memmove(w->jobs, w->jobs + k, (w->n - k) * sizeof(*w->jobs));
		if (k && w->qp) /* the per-job fields follow their jobs */
			wl_drop_qp(w, k, w->n - k);
		if (k && w->proj)
			memmove(w->proj, w->proj + k,
				(w->n - k) * sizeof(*w->proj));
		w->n -= k;
	}
	if (o->limit && w->n > o->limit) {
		w->report.beyond_limit += w->n - o->limit;
		w->n = (size_t)o->limit;
	}

	if (o->load_scale != 1.0 && w->n > 0) {
		sim_time_t s0 = w->jobs[0].submit;
		for (i = 0; i < w->n; i++) {
			double d = (double)(w->jobs[i].submit - s0) /
				   o->load_scale;
			if (!(d <= (double)(SIM_TIME_INPUT_MAX - s0))) {
				fmt_double(b1, o->load_scale);
				return err_set(err, "%s: load scale '%s' makes "
					       "submit times overflow",
					       path, b1);
			}
			w->jobs[i].submit = s0 + (sim_time_t)llround(d);
		}
		wl_resort_nearly(w);
	}

	w->has_estimates = false;
	for (i = 0; i < w->n; i++) {
		w->jobs[i].idx = (uint32_t)i;
		if (w->jobs[i].flags & JOB_HAS_ESTIMATE)
			w->has_estimates = true;
	}
	w->report.jobs = w->n;
	/* The readers grow the array by doubling: give back what the
	 * jobs kept do not use (on CEA-Curie, 40% of it). */
	if (w->n)
		w->jobs = xrealloc(w->jobs, w->n * sizeof(*w->jobs));
	return 0;
}

void workload_borrow(struct workload *dst, const struct workload *src,
		     size_t first)
{
	dst->qp = src->qp ? src->qp + 2 * first : NULL;
	dst->qline = src->qline ? src->qline + first : NULL;
	dst->proj = src->proj ? src->proj + first : NULL;
	dst->projects = src->projects;
	dst->nprojects = src->nprojects;
	dst->project_line = src->project_line;
	dst->project_file = src->project_file;
	dst->groups = src->groups;
	dst->ngroups = src->ngroups;
	dst->llm = src->llm;
	dst->llm_names = src->llm_names;
	dst->nllm = src->nllm;
	dst->max_procs = src->max_procs;
	dst->max_nodes = src->max_nodes;
}

void workload_release(struct workload *w)
{
	if (!w)
		return;
	free(w->jobs);
	free(w->qp);
	free(w->proj);
	for (size_t i = 0; i < w->nprojects; i++)
		free(w->projects[i]);
	free(w->projects);
	free(w->project_line);
	free(w->project_file);
	free(w->qline);
	for (size_t i = 0; i < w->ngroups; i++)
		free(w->groups[i]);
	free(w->groups);
	hpo_set_free(w->hpo);
	workload_llm_free(w);
	memset(w, 0, sizeof(*w));
	w->max_procs = -1;
	w->max_nodes = -1;
}

void trace_report_format(const struct trace_report *r, char *buf, size_t n)
{
	static const struct {
		size_t off;       /* field offset in struct trace_report */
		const char *name; /* what it counts */
	} rows[] = {
		{ offsetof(struct trace_report, lines), "lines read" },
		{ offsetof(struct trace_report, jobs_read), "job lines" },
		{ offsetof(struct trace_report, malformed),
		  "malformed lines skipped" },
		{ offsetof(struct trace_report, dropped_run),
		  "dropped (run <= 0)" },
		{ offsetof(struct trace_report, dropped_procs),
		  "dropped (processors <= 0)" },
		{ offsetof(struct trace_report, clean_dropped),
		  "dropped by the cleaning preset" },
		{ offsetof(struct trace_report, clean_changed),
		  "changed by the cleaning preset" },
		{ offsetof(struct trace_report, procs_fallback),
		  "processors from the other field" },
		{ offsetof(struct trace_report, no_estimate),
		  "no estimate (run time used)" },
		{ offsetof(struct trace_report, clipped),
		  "run clipped to estimate" },
		{ offsetof(struct trace_report, killed),
		  "killed at estimate" },
		{ offsetof(struct trace_report, overran),
		  "ran past estimate (allowed)" },
		{ offsetof(struct trace_report, outside_window),
		  "outside time window" },
		{ offsetof(struct trace_report, skipped),
		  "skipped (the first jobs)" },
		{ offsetof(struct trace_report, beyond_limit),
		  "beyond job limit" },
		{ offsetof(struct trace_report, gpu_time_mismatch),
		  "gpu_time != duration x num_gpus" },
		{ offsetof(struct trace_report, jobs), "jobs kept" },
	};
	size_t len = 0;

	if (!n)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		uint64_t v;
		memcpy(&v, (const char *)r + rows[i].off, sizeof(v));
		if (!v)
			continue;
		int k = snprintf(buf + len, n - len, "  %s: %" PRIu64 "\n",
				 rows[i].name, v);
		if (k < 0 || (size_t)k >= n - len) {
			buf[len] = '\0'; /* no half lines */
			break;
		}
		len += (size_t)k;
	}
}

int workload_bind_tenants(const struct workload *w,
			  const struct cluster_spec *s, int from,
			  const char *prefix, int32_t *out,
			  struct sim_error *err)
{
	struct tenant_column col = {
		.of = w->proj, .names = w->projects, .n = w->nprojects,
		.line = w->project_line, .file = w->project_file,
	};
	return cluster_tenants_bind(s, (enum tenant_from)from, w->jobs, w->n,
				    w->groups, w->ngroups,
				    w->proj ? &col : NULL, prefix, out, err);
}
