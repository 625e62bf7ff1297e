/*
 * libFuzzer harness for the openb readers (sim/fill/trace_openb.c:
 * openb_load_nodes, openb_load_pods) and, on what they accept, the
 * replay (sim/fill/fill_replay.c): whatever the bytes, each reader must return
 * 0 with a list that keeps the promises of fill.h and frag.h, or a
 * negative code with a "FILE:..." message and nothing returned - never
 * crash, leak, hit undefined behaviour or abort.  The input is written to
 * a temporary file under /tmp and read as a node list and as a pod list
 * (against a fixed three-node cluster), each strict and lenient: lenient
 * must accept whatever strict accepts, with the same result.  A small
 * pod list with times is then replayed on the fixed cluster under two
 * score functions of the harness's own, first fit and fragmentation
 * descent (the engine aborts on an over-committed GPU).
 *
 * fuzz_openb_one() is linked into the Criterion binary, which replays
 * tests/fuzz/corpus/openb/ (tests/test_fuzz_corpus.c); the libFuzzer
 * entry point is compiled only with -DFUZZ_TARGET_OPENB, as `make fuzz`
 * does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fill/fill.h"
#include "fill/fill_replay.h"
#include "fuzz.h"
#include "fuzzlib.h"

/* A refusal: negative code, "PATH:..." message. */
static void openb_check_refused(int rc, const struct sim_error *err,
				const char *path)
{
	size_t len = strlen(path);
	FUZZ_CHECK(rc < 0);
	FUZZ_CHECK(strncmp(err->msg, path, len) == 0 && err->msg[len] == ':');
}

static void openb_check_nodes(const struct frag_cluster *c)
{
	uint64_t cap = 0;
	FUZZ_CHECK(c->nnodes > 0 && c->gpu_capacity > 0);
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct score_node *nd = &c->nodes[i];
		FUZZ_CHECK(nd->ngpus <= FRAG_MAX_GPUS);
		FUZZ_CHECK(nd->model < c->nmodels);
		FUZZ_CHECK(nd->cpu_free == nd->cpu_cap &&
			   nd->mem_free == nd->mem_cap);
		FUZZ_CHECK(nd->gpu_whole == nd->ngpus &&
			   nd->gpu_total == nd->ngpus * FRAG_MILLI);
		for (uint32_t g = 0; g < nd->ngpus; g++)
			FUZZ_CHECK(nd->gpu_free[g] == FRAG_MILLI);
		cap += (uint64_t)nd->ngpus * FRAG_MILLI;
	}
	FUZZ_CHECK(cap == c->gpu_capacity);
}

static void openb_fuzz_nodes(const char *path)
{
	struct frag_cluster c[2];
	struct sim_error err;
	int rc[2];
	uint64_t mal[2] = { 0, 0 };
	for (int l = 0; l < 2; l++) {
		frag_cluster_init(&c[l]);
		struct openb_opts bo = { .lenient = l };
		rc[l] = openb_load_nodes(path, &bo, &mal[l], &c[l], NULL,
					 &err);
		if (rc[l])
			openb_check_refused(rc[l], &err, path);
		else
			openb_check_nodes(&c[l]);
	}
	if (rc[0] == 0) {
		FUZZ_CHECK(rc[1] == 0 && mal[0] == 0 && mal[1] == 0);
		FUZZ_CHECK(c[0].nnodes == c[1].nnodes);
		FUZZ_CHECK(memcmp(c[0].nodes, c[1].nodes,
				  c[0].nnodes * sizeof(*c[0].nodes)) == 0);
	}
	frag_cluster_release(&c[0]);
	frag_cluster_release(&c[1]);
}

/* The pods' promises (fill.h): GPU demand shapes, times, kinds. */
static void openb_check_pods(const struct score_pod *p, size_t n,
			     uint32_t nkinds)
{
	FUZZ_CHECK(n > 0 && p);
	for (size_t i = 0; i < n; i++) {
		if (p[i].gpus == 0) {
			FUZZ_CHECK(p[i].milli == 0 && p[i].models == 0);
		} else {
			FUZZ_CHECK(p[i].milli >= 1 && p[i].milli <= FRAG_MILLI);
			FUZZ_CHECK(p[i].gpus == 1 || p[i].milli == FRAG_MILLI);
			FUZZ_CHECK(p[i].kind < nkinds);
		}
		FUZZ_CHECK(p[i].created >= -1 && p[i].deleted >= -1);
		FUZZ_CHECK(p[i].created < 0 || p[i].deleted < 0 ||
			   p[i].deleted >= p[i].created);
		for (size_t j = 0; j < i; j++)
			if (p[i].gpus && p[j].gpus)
				FUZZ_CHECK((p[i].kind == p[j].kind) ==
					   (p[i].gpus == p[j].gpus &&
					    p[i].milli == p[j].milli));
	}
}

/* First fit: the lowest node that passes, the fullest GPU with room. */
static int64_t openb_first_fit(struct score_ctx *ctx,
			       const struct score_pod *pod, size_t n,
			       const struct score_node *nd, int *gpu)
{
	*gpu = score_gpu_bestfit(nd, pod->milli);
	return -(int64_t)n;
}

/* The node and GPU whose fragmentation grows least (fgd's rule, on the
 * lowest GPU with room). */
static int64_t openb_least_frag(struct score_ctx *ctx,
				const struct score_pod *pod, size_t n,
				const struct score_node *nd, int *gpu)
{
	if (!score_has_target(ctx))
		return 0;
	*gpu = -1;
	if (pod->gpus == 1 && pod->milli < FRAG_MILLI)
		for (uint32_t g = 0; g < nd->ngpus && *gpu < 0; g++)
			if (nd->gpu_free[g] >= pod->milli)
				*gpu = (int)g;
	return score_frag(ctx, n) - score_frag_after(ctx, n, pod, *gpu);
}

/* Replays a small list with times on c under two score functions. */
static void openb_fuzz_replay(struct frag_cluster *c,
			      const struct score_pod *pods, size_t n,
			      uint32_t nkinds)
{
	struct sim_error err;
	struct frag_dist d;
	int64_t tmax = 0;
	if (n > 64 || replay_check_pods("x", pods, n, &err))
		return;
	for (size_t i = 0; i < n; i++) {
		tmax = pods[i].created > tmax ? pods[i].created : tmax;
		tmax = pods[i].deleted > tmax ? pods[i].deleted : tmax;
	}
	bool have = frag_dist_build(&d, pods, n) == 0;
	frag_cluster_ready(c, nkinds, have ? &d : NULL);
	static const struct score_ops fns[] = {
		{ .name = "first_fit", .score = openb_first_fit },
		{ .name = "least_frag", .score = openb_least_frag },
	};
	for (size_t k = 0; k < 2; k++) {
		struct replay_result r;
		/* About 64 samples per span of the list's times; waits can
		 * stretch the run to n + 1 spans. */
		sim_time_t step = tmax / 64 * SIM_SEC + SIM_SEC;
		int rc = replay_run(c, pods, n, &fns[k], 1, step, 1, &r, &err);
		if (rc) {
			FUZZ_CHECK(rc < 0 && err.msg[0]);
			continue;
		}
		FUZZ_CHECK(r.placed + r.never == n);
		FUZZ_CHECK(r.t_first <= r.t_last && r.t_last <= r.t_end);
		FUZZ_CHECK(r.nsamples >= 1);
		for (size_t i = 0; i < n; i++)
			FUZZ_CHECK(r.pods[i].node < 0 ||
				   r.pods[i].start >= r.pods[i].arrival);
		replay_result_release(&r);
	}
	if (have)
		frag_dist_release(&d);
}

static void openb_fuzz_pods(const char *path)
{
	struct frag_cluster c;
	struct sim_error err;
	struct score_pod *pods[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	uint32_t nk[2] = { 0, 0 };
	uint64_t mal[2] = { 0, 0 };
	int rc[2];
	frag_cluster_init(&c);
	int v100 = frag_model_index(&c, "V100");
	int a100 = frag_model_index(&c, "A100");
	int none = frag_model_index(&c, "");
	frag_cluster_add_node(&c, 8000, 65536, 2, (uint32_t)v100);
	frag_cluster_add_node(&c, 16000, 131072, 8, (uint32_t)a100);
	frag_cluster_add_node(&c, 4000, 1000, 0, (uint32_t)none);
	for (int l = 0; l < 2; l++) {
		struct openb_opts bo = { .lenient = l };
		rc[l] = openb_load_pods(path, &bo, &mal[l], &c, &pods[l],
					&n[l], &nk[l], NULL, &err);
		if (rc[l]) {
			openb_check_refused(rc[l], &err, path);
			FUZZ_CHECK(pods[l] == NULL && n[l] == 0);
		} else {
			openb_check_pods(pods[l], n[l], nk[l]);
		}
	}
	if (rc[0] == 0) {
		FUZZ_CHECK(rc[1] == 0 && n[0] == n[1] && nk[0] == nk[1]);
		FUZZ_CHECK(memcmp(pods[0], pods[1],
				  n[0] * sizeof(*pods[0])) == 0);
	}
	if (rc[1] == 0)
		openb_fuzz_replay(&c, pods[1], n[1], nk[1]);
	free(pods[0]);
	free(pods[1]);
	frag_cluster_release(&c);
}

int fuzz_openb_one(const uint8_t *data, size_t size)
{
	char path[FUZZ_PATH_MAX];

	if (fuzz_write_tmp(data, size, path) != 0)
		return 0;
	openb_fuzz_nodes(path);
	openb_fuzz_pods(path);
	unlink(path);
	return 0;
}

#ifdef FUZZ_TARGET_OPENB
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_openb_one(data, size);
}
#endif
