/*
 * Shared helpers of the fuzz harnesses: temporary input files and the
 * invariants of a loaded (or refused) workload.  See fuzzlib.h.
 *
 * The checks are deliberately cheap and independent of the readers'
 * code: they restate the promises of workload.h (sorted by (submit, id),
 * idx == position, run > 0, ...) and compare loads of the same bytes
 * under options whose results must agree (strict vs lenient, dropping
 * vs refusing invalid jobs), which catches a reader that silently
 * returns a wrong workload rather than crashing.
 */
#include "fuzzlib.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: fuzz invariant violated: %s\n", file, line,
		what);
	abort();
}

int fuzz_write_tmp(const uint8_t *data, size_t size,
		   char path[FUZZ_PATH_MAX])
{
	const char *tmpl = "/tmp/clustersim-fuzz-XXXXXX";
	size_t done = 0;
	int fd;

	memcpy(path, tmpl, strlen(tmpl) + 1);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t k = write(fd, data + done, size - done);
		if (k <= 0)
			break;
		done += (size_t)k;
	}
	close(fd);
	if (done < size) {
		unlink(path);
		return -1;
	}
	return 0;
}

void fuzz_check_failed(int rc, const struct sim_error *err, const char *path,
		       const struct workload *w)
{
	size_t plen = strlen(path);

	FUZZ_CHECK(rc < 0);
	FUZZ_CHECK(memchr(err->msg, '\0', sizeof(err->msg)) != NULL);
	FUZZ_CHECK(err->msg[0] != '\0');
	/* "FILE:LINE: message" or "FILE: message" */
	FUZZ_CHECK(strncmp(err->msg, path, plen) == 0 &&
		   err->msg[plen] == ':');
	FUZZ_CHECK(w->n == 0 && w->jobs == NULL);
}

static int fuzz_cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void fuzz_check_workload(const struct workload *w, const struct trace_opts *o)
{
	const struct trace_report *r = &w->report;
	bool any_estimate = false;
	int64_t *ids;

	FUZZ_CHECK(w->n <= UINT32_MAX);
	FUZZ_CHECK(w->n == 0 || w->jobs != NULL);
	FUZZ_CHECK(w->max_procs == -1 || w->max_procs > 0);
	FUZZ_CHECK(w->max_nodes == -1 || w->max_nodes > 0);
	FUZZ_CHECK(o->limit == 0 || w->n <= o->limit);
	for (size_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		bool has_est = j->flags & JOB_HAS_ESTIMATE;
		bool killed = j->flags & JOB_KILL_AT_ESTIMATE;

		FUZZ_CHECK(j->idx == i);
		FUZZ_CHECK(i == 0 || j[-1].submit < j->submit ||
			   (j[-1].submit == j->submit && j[-1].id < j->id));
		FUZZ_CHECK(j->submit >= 0);
		FUZZ_CHECK(o->window_start == SIM_TIME_NONE ||
			   j->submit >= o->window_start);
		FUZZ_CHECK(o->window_end == SIM_TIME_NONE ||
			   j->submit < o->window_end);
		FUZZ_CHECK(j->run > 0);
		FUZZ_CHECK(j->cpus > 0 || j->gpus > 0);
		FUZZ_CHECK(j->user >= -1 && j->group >= -1);
		FUZZ_CHECK(j->estimate > 0);
		FUZZ_CHECK(has_est || j->estimate == j->run);
		FUZZ_CHECK(o->overrun == OVERRUN_ALLOW ||
			   j->run <= j->estimate);
		FUZZ_CHECK(!killed || (o->overrun == OVERRUN_KILL && has_est &&
				       j->run == j->estimate));
		FUZZ_CHECK(j->state == JOB_FUTURE);
		FUZZ_CHECK(j->start == SIM_TIME_NONE &&
			   j->end == SIM_TIME_NONE);
		any_estimate |= has_est;
	}
	FUZZ_CHECK(w->has_estimates == any_estimate);

	/* Unique ids, by a second method: sort a copy. */
	ids = xmalloc((w->n ? w->n : 1) * sizeof(*ids));
	for (size_t i = 0; i < w->n; i++)
		ids[i] = w->jobs[i].id;
	qsort(ids, w->n, sizeof(*ids), fuzz_cmp_id);
	for (size_t i = 1; i < w->n; i++)
		FUZZ_CHECK(ids[i - 1] != ids[i]);
	free(ids);

	/* Every parsed job line is kept or counted once where it went. */
	FUZZ_CHECK(r->jobs == w->n);
	if (!o->lenient)
		FUZZ_CHECK(r->malformed == 0);
	if (o->drop_invalid)
		FUZZ_CHECK(r->jobs_read == r->dropped_run + r->dropped_procs +
			   r->outside_window + r->beyond_limit + r->jobs);
	else
		FUZZ_CHECK(r->dropped_run == 0 && r->dropped_procs == 0);
	FUZZ_CHECK(r->clipped + r->killed + r->overran <=
		   r->jobs_read - r->dropped_run - r->dropped_procs);
	FUZZ_CHECK(o->overrun == OVERRUN_CLIP || r->clipped == 0);
	FUZZ_CHECK(o->overrun == OVERRUN_KILL || r->killed == 0);
	FUZZ_CHECK(o->overrun == OVERRUN_ALLOW || r->overran == 0);
}

void fuzz_check_same_jobs(const struct workload *a, const struct workload *b)
{
	FUZZ_CHECK(a->n == b->n);
	FUZZ_CHECK(a->max_procs == b->max_procs);
	FUZZ_CHECK(a->max_nodes == b->max_nodes);
	for (size_t i = 0; i < a->n; i++) {
		const struct job *x = &a->jobs[i], *y = &b->jobs[i];
		FUZZ_CHECK(x->id == y->id && x->idx == y->idx &&
			   x->cpus == y->cpus && x->gpus == y->gpus &&
			   x->nodes == y->nodes && x->user == y->user &&
			   x->group == y->group && x->submit == y->submit &&
			   x->run == y->run && x->estimate == y->estimate &&
			   x->flags == y->flags);
	}
}

/* One load: checks it either way; returns whether it succeeded. */
static bool fuzz_load(int (*load)(const char *, const struct trace_opts *,
				  struct workload *, struct sim_error *),
		      const char *path, const struct trace_opts *o,
		      struct workload *w)
{
	struct sim_error err;
	int rc;

	memset(&err, 0, sizeof(err));
	rc = load(path, o, w, &err);
	if (rc != 0) {
		fuzz_check_failed(rc, &err, path, w);
		return false;
	}
	fuzz_check_workload(w, o);
	return true;
}

void fuzz_trace_reader(int (*load)(const char *, const struct trace_opts *,
				   struct workload *, struct sim_error *),
		       const char *path)
{
	struct trace_opts def, o;
	struct workload base, w;
	bool ok;

	/* The defaults: strict, drop invalid jobs, clip overruns. */
	trace_opts_default(&def);
	ok = fuzz_load(load, path, &def, &base);

	/* Lenient accepts whatever strict accepts, with the same jobs. */
	o = def;
	o.lenient = true;
	if (fuzz_load(load, path, &o, &w)) {
		if (ok) {
			FUZZ_CHECK(w.report.malformed == 0);
			fuzz_check_same_jobs(&base, &w);
		}
		workload_release(&w);
	} else {
		FUZZ_CHECK(!ok);
	}

	/* Refusing invalid jobs: when that succeeds there were none to
	 * drop, so the default load is the same. */
	o = def;
	o.drop_invalid = false;
	if (fuzz_load(load, path, &o, &w)) {
		FUZZ_CHECK(ok);
		FUZZ_CHECK(base.report.dropped_run == 0 &&
			   base.report.dropped_procs == 0);
		fuzz_check_same_jobs(&base, &w);
		workload_release(&w);
	}

	/* The other processor field, jobs killed at their estimate. */
	o = def;
	o.lenient = true;
	o.procs = PROCS_REQUESTED;
	o.overrun = OVERRUN_KILL;
	if (fuzz_load(load, path, &o, &w))
		workload_release(&w);

	/* Window, first N and load scaling on top of the defaults: a
	 * subset of the default load. */
	o = def;
	o.overrun = OVERRUN_ALLOW;
	o.window_start = 10 * SIM_SEC;
	o.window_end = 100000 * SIM_SEC;
	o.limit = 5;
	o.load_scale = 2.5;
	if (fuzz_load(load, path, &o, &w)) {
		FUZZ_CHECK(!ok || w.n <= base.n);
		workload_release(&w);
	}

	if (ok)
		workload_release(&base);
}
