/*
 * The trace formats: one row a format, with the name an experiment file
 * gives it ("format") and its reader.  Adding a format is a reader
 * (trace_NAME.c), an enum value in workload.h and a row here.
 */
#include <assert.h>
#include <string.h>

#include "workload/workload.h"
#include "base/util.h"

typedef int (*trace_reader_fn)(const char *path, const struct trace_opts *o,
			       struct workload *w, struct sim_error *err);

static const trace_reader_fn trace_readers[] = {
	[TRACE_SWF] = trace_load_swf,
	[TRACE_CSV] = trace_load_csv,
	[TRACE_PHILLY] = trace_load_philly,
	[TRACE_TIRESIAS] = trace_load_tiresias,
	[TRACE_GAVEL] = trace_load_gavel,
	[TRACE_SHOCKWAVE] = trace_load_shockwave,
	[TRACE_POLLUX] = trace_load_pollux,
};
static_assert(ARRAY_SIZE(trace_readers) == TRACE_NFORMATS, "readers");

const char *const trace_format_names[] = {
	[TRACE_SWF] = "swf",
	[TRACE_CSV] = "csv",
	[TRACE_PHILLY] = "philly",
	[TRACE_TIRESIAS] = "tiresias",
	[TRACE_GAVEL] = "gavel",
	[TRACE_SHOCKWAVE] = "shockwave",
	[TRACE_POLLUX] = "pollux",
};
static_assert(ARRAY_SIZE(trace_format_names) == TRACE_NFORMATS,
	      "format names");

int trace_load(const char *path, const struct trace_opts *o,
	       struct workload *w, struct sim_error *err)
{
	struct trace_opts def;
	if (!o) {
		trace_opts_default(&def);
		o = &def;
	}
	if ((unsigned)o->format < TRACE_NFORMATS)
		return trace_readers[o->format](path, o, w, err);
	memset(w, 0, sizeof(*w));
	w->max_procs = w->max_nodes = -1;
	return err_set(err, "%s: unknown trace format '%d'", path,
		       (int)o->format);
}
