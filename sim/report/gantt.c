/*
 * The data of a run's Gantt chart (plots/gantt.gp): allocations.csv turned
 * into one line per box, "job start end first_node last_node gpus", since
 * gnuplot cannot split the quoted interval sets ("0-3,7") of its nodes
 * column.  Charts are drawn for runs of at most GANTT_MAX_JOBS jobs: past
 * a few thousand the boxes are thinner than a pixel.
 */
#include "report/gantt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* One row of allocations.csv split in place: job, start, end, the node
 * set (unquoted) and gpus.  False for a row that is not one. */
static bool split_row(char *line, char **f)
{
	char *p = line;
	for (int k = 0; k < 3; k++) {
		f[k] = p;
		p = strchr(p, ',');
		if (!p)
			return false;
		*p++ = '\0';
	}
	if (*p == '"') {
		f[3] = ++p;
		p = strchr(p, '"');
		if (!p || p[1] != ',')
			return false;
		*p = '\0';
		p += 2;
	} else {
		f[3] = p;
		p = strchr(p, ',');
		if (!p)
			return false;
		*p++ = '\0';
	}
	f[4] = p;
	p[strcspn(p, "\r\n")] = '\0';
	return true;
}

/* The boxes of one row: one per range of its node set. */
static void put_boxes(FILE *out, char *const *f)
{
	char *save = NULL;
	for (char *r = strtok_r(f[3], ",", &save); r;
	     r = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long lo = strtoul(r, &end, 10), hi = lo;
		if (*end == '-')
			hi = strtoul(end + 1, NULL, 10);
		fprintf(out, "%s %s %s %lu %lu %s\n", f[0], f[1], f[2], lo, hi,
			f[4]);
	}
}

int gantt_data(const char *csv, const char *dat, struct sim_error *err)
{
	FILE *in = fopen(csv, "rb");
	if (!in)
		return 0; /* a run without allocations.csv has no chart */
	struct afile af;
	int rc = afile_open(&af, dat, err);
	if (rc)
		goto out_in;
	char *line = NULL, *prev = NULL;
	size_t cap = 0, jobs = 0;
	ssize_t n;
	bool header = true;
	fputs("# job start end first_node last_node gpus\n", af.f);
	while ((n = getline(&line, &cap, in)) > 0) {
		char *f[5];
		if (header) {
			header = false;
			continue;
		}
		if (!split_row(line, f))
			continue;
		/* Rows come job by job: a new id is a new job. */
		if (!prev || strcmp(prev, f[0]) != 0) {
			free(prev);
			prev = xstrdup(f[0]);
			if (++jobs > GANTT_MAX_JOBS)
				break;
		}
		put_boxes(af.f, f);
	}
	free(line);
	free(prev);
	if (jobs > GANTT_MAX_JOBS) {
		afile_abort(&af);
		rc = 0;
		goto out_in;
	}
	rc = afile_commit(&af, err);
	if (!rc)
		rc = 1;
out_in:
	fclose(in);
	return rc;
}
