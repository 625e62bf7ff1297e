/*
 * Readers for the Alibaba GPU cluster trace v2023 ("openb", used by the
 * FGD paper): the node list becomes a GPU-sharing cluster (frag.h), the
 * pod list the pods of a fill experiment (fill.h).
 *
 * Node list: sn, cpu_milli, memory_mib, gpu, model (a node with GPUs needs
 * a model; at most FRAG_MAX_GPUS GPUs per node).  Pod list: name,
 * cpu_milli, memory_mib, num_gpu, gpu_milli, and optionally gpu_spec
 * (allowed models, '|'-separated, empty = any), creation_time and
 * deletion_time (seconds; empty = none).  A pod asks no GPU (num_gpu 0,
 * gpu_milli 0), a share of one GPU (num_gpu 1, gpu_milli 1..999) or whole
 * GPUs (num_gpu >= 1, gpu_milli 1000); anything else is refused.  Rows go
 * through the shared row reader (trace_rows.c, over base/input.h: regular
 * files within the size limit, gzip checked, no NUL byte); every refusal
 * is "FILE:LINE: column 'cell' what".
 */
#include "fill/fill.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "workload/workload.h"

enum node_col { N_SN = 0, N_CPU, N_MEM, N_GPU, N_MODEL, N_NCOLS };

static const char *const node_col_name[N_NCOLS] = {
	[N_SN] = "sn", [N_CPU] = "cpu_milli", [N_MEM] = "memory_mib",
	[N_GPU] = "gpu", [N_MODEL] = "model",
};

enum pod_col {
	P_NAME = 0, P_CPU, P_MEM, P_NGPU, P_MILLI, P_SPEC, P_CREATED,
	P_DELETED, P_NCOLS
};

static const char *const pod_col_name[P_NCOLS] = {
	[P_NAME] = "name", [P_CPU] = "cpu_milli", [P_MEM] = "memory_mib",
	[P_NGPU] = "num_gpu", [P_MILLI] = "gpu_milli", [P_SPEC] = "gpu_spec",
	[P_CREATED] = "creation_time", [P_DELETED] = "deletion_time",
};

/* State of one read of either list. */
struct openb_reader {
	struct trace_row_reader b;   /* path, file, err (other fields unused) */
	int pos[P_NCOLS];            /* header position of each column */
	const char *const *names;    /* the column names */
	struct frag_cluster *c;      /* node list: the output */
	const struct frag_cluster *cc; /* pod list: the models */
	struct score_pod *pods;       /* pod list: the output */
	size_t npods, cap;
	uint32_t kinds[256][2];      /* (gpus, milli) of each kind */
	uint32_t nkinds;
	uint64_t rows, max_rows;     /* rows kept; the limit (0: none) */
	const char *limit_key;       /* the key that raises max_rows */
};

/* One more row kept, unless that passes the limit. */
static int row_count(struct openb_reader *r, const char *what)
{
	if (r->max_rows && r->rows >= r->max_rows)
		return err_set(r->b.err, "%s:%" PRIu64 ": more than %" PRIu64
			       " %s, the limit: raise $.limits.%s",
			       r->b.path, r->b.rows.line, r->max_rows, what,
			       r->limit_key);
	r->rows++;
	return 0;
}

static int bad(struct openb_reader *r, int k, const char *what)
{
	return trace_row_bad(&r->b, r->names[k], r->pos[k], what);
}

static int cell_int(struct openb_reader *r, int k, int64_t min, int64_t max,
		    int64_t *out)
{
	if (trace_parse_int(trace_rows_cell(&r->b.rows, r->pos[k]), min, max,
			    out))
		return bad(r, k, "is not an integer in range");
	return 0;
}

static int node_row(void *ctx, bool broken)
{
	struct openb_reader *r = ctx;
	int64_t cpu, mem, gpu;
	int rc;
	if (broken)
		return -SIM_EINPUT;
	if ((rc = row_count(r, "nodes")) ||
	    (rc = cell_int(r, N_CPU, 0, UINT32_MAX, &cpu)) ||
	    (rc = cell_int(r, N_MEM, 0, UINT32_MAX, &mem)) ||
	    (rc = cell_int(r, N_GPU, 0, INT32_MAX, &gpu)))
		return rc;
	if (gpu > FRAG_MAX_GPUS)
		return bad(r, N_GPU, "is more GPUs than a node may have (16)");
	const char *model = trace_rows_cell(&r->b.rows, r->pos[N_MODEL]);
	if (gpu > 0 && !*model)
		return bad(r, N_MODEL, "is empty on a node with GPUs");
	int m = frag_model_index(r->c, gpu > 0 ? model : "");
	if (m < 0)
		return bad(r, N_MODEL, "is one GPU model too many (31 at most)");
	frag_cluster_add_node(r->c, (uint32_t)cpu, (uint32_t)mem,
			      (uint32_t)gpu, (uint32_t)m);
	return 0;
}

/* The models mask of a gpu_spec cell: 0 for any. */
static uint32_t spec_mask(const struct frag_cluster *c, const char *spec)
{
	if (!*spec)
		return 0;
	uint32_t mask = 0;
	const char *p = spec;
	while (*p) {
		size_t len = strcspn(p, "|");
		for (uint32_t i = 0; i < c->nmodels; i++)
			if (strlen(c->models[i]) == len && len &&
			    !strncmp(c->models[i], p, len))
				mask |= 1u << i;
		p += len;
		if (*p == '|')
			p++;
	}
	return mask ? mask : FRAG_MODELS_NONE;
}

static int time_cell(struct openb_reader *r, int k, int64_t *out)
{
	*out = -1;
	if (r->pos[k] < 0 || !*trace_rows_cell(&r->b.rows, r->pos[k]))
		return 0;
	return cell_int(r, k, 0, INT64_MAX / 1000000, out);
}

static int pod_row(void *ctx, bool broken)
{
	struct openb_reader *r = ctx;
	int64_t cpu, mem, ngpu, milli, created, deleted;
	int rc;
	if (broken)
		return -SIM_EINPUT;
	if ((rc = row_count(r, "pods")) ||
	    (rc = cell_int(r, P_CPU, 0, UINT32_MAX, &cpu)) ||
	    (rc = cell_int(r, P_MEM, 0, UINT32_MAX, &mem)) ||
	    (rc = cell_int(r, P_NGPU, 0, 1024, &ngpu)) ||
	    (rc = cell_int(r, P_MILLI, 0, FRAG_MILLI, &milli)) ||
	    (rc = time_cell(r, P_CREATED, &created)) ||
	    (rc = time_cell(r, P_DELETED, &deleted)))
		return rc;
	if (ngpu == 0 && milli != 0)
		return bad(r, P_MILLI, "is a GPU share for a pod of no GPU");
	if (ngpu > 0 && milli == 0)
		return bad(r, P_MILLI, "is no GPU share for a pod of GPUs");
	if (ngpu > 1 && milli < FRAG_MILLI)
		return bad(r, P_MILLI, "is a share of a GPU for a pod of "
			   "several GPUs (a share is of one GPU)");
	if (created >= 0 && deleted >= 0 && deleted < created)
		return bad(r, P_DELETED, "is before the creation time");
	uint32_t kind = 0;
	if (ngpu > 0) {
		while (kind < r->nkinds && (r->kinds[kind][0] != ngpu ||
					    r->kinds[kind][1] != milli))
			kind++;
		if (kind == r->nkinds) {
			if (r->nkinds == ARRAY_SIZE(r->kinds))
				return bad(r, P_MILLI, "makes too many kinds "
					   "of GPU demand (256 at most)");
			r->kinds[kind][0] = (uint32_t)ngpu;
			r->kinds[kind][1] = (uint32_t)milli;
			r->nkinds++;
		}
	}
	xgrow(&r->pods, &r->cap, r->npods + 1, sizeof(*r->pods));
	r->pods[r->npods++] = (struct score_pod){
		.cpu = (uint32_t)cpu,
		.mem = (uint32_t)mem,
		.gpus = (uint32_t)ngpu,
		.milli = (uint32_t)milli,
		.models = ngpu ? spec_mask(r->cc, trace_rows_cell(
					  &r->b.rows, r->pos[P_SPEC])) : 0,
		.kind = kind,
		.created = created,
		.deleted = deleted,
	};
	return 0;
}

/* Opens path, reads the header (columns names[0..n), the first
 * nrequired required) and every row with row(); the digest of the file
 * read goes to sha256 (may be NULL). */
static int read_list(struct openb_reader *r, const char *path,
		     const struct openb_opts *o, uint64_t *malformed,
		     const char *const *names, size_t n, size_t nrequired,
		     int (*row)(void *ctx, bool broken), char *sha256,
		     struct sim_error *err)
{
	uint64_t lines = 0, skipped = 0;
	struct input_opts io = { .max_bytes = o ? o->max_bytes : 0 };
	if (o)
		r->max_rows = r->c ? o->max_nodes : o->max_pods;
	bool lenient = o && o->lenient;
	r->b.path = path;
	r->b.err = err;
	r->names = names;
	int rc = trace_rows_open(&r->b.rows, path, ',', &io, &lines, err);
	if (rc)
		return rc;
	rc = trace_rows_header(&r->b.rows, names, n,
			       (uint32_t)((1u << nrequired) - 1), r->pos, err);
	if (!rc)
		rc = trace_rows_each(&r->b.rows, lenient, &skipped, row, r,
				     err);
	trace_rows_close(&r->b.rows);
	if (!rc && sha256)
		memcpy(sha256, r->b.rows.in.sha256, INPUT_SHA256_HEX);
	if (malformed)
		*malformed += skipped;
	return rc;
}

int openb_load_nodes(const char *path, const struct openb_opts *o,
		     uint64_t *malformed, struct frag_cluster *c,
		     char *sha256, struct sim_error *err)
{
	struct openb_reader r = { .c = c, .limit_key = "nodes" };
	int rc = read_list(&r, path, o, malformed, node_col_name, N_NCOLS,
			   N_NCOLS, node_row, sha256, err);
	if (!rc && c->nnodes == 0)
		rc = err_set(err, "%s: no node in the node list", path);
	else if (!rc && c->gpu_capacity == 0)
		rc = err_set(err, "%s: no GPU on any node", path);
	return rc;
}

int openb_load_pods(const char *path, const struct openb_opts *o,
		    uint64_t *malformed, const struct frag_cluster *c,
		    struct score_pod **pods, size_t *n, uint32_t *nkinds,
		    char *sha256, struct sim_error *err)
{
	struct openb_reader r = { .cc = c, .limit_key = "jobs" };
	int rc = read_list(&r, path, o, malformed, pod_col_name, P_NCOLS,
			   P_SPEC, pod_row, sha256, err);
	if (!rc && r.npods == 0)
		rc = err_set(err, "%s: no pod in the pod list", path);
	if (rc) {
		free(r.pods);
		r.pods = NULL;
		r.npods = 0;
	}
	*pods = r.pods;
	*n = r.npods;
	*nkinds = r.nkinds;
	return rc;
}
