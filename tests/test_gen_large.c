/*
 * The generator's large-model jobs (sim/workload/gen_large.c, the
 * "large" section parsed by sim/exp/exp_large.c): the share of GPU-hours
 * in jobs of min_gpus or more GPUs, checked by summing the generated
 * jobs' GPU-hours by size (a second method: the generator solves for the
 * large jobs' total, the test only adds up what it made); each job's
 * shape against memory worked out by hand and against a brute-force walk
 * of every smaller shape; the ordinary jobs left as they were; and the
 * bad values, each with its JSON path.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "exp/exp.h"
#include "testlib.h"
#include "workload/workload.h"

/* Large jobs' run times in the tests: a median of 3,000 s (e^8), so that
 * 2,000 ordinary jobs' GPU-hours call for tens of large jobs. */
#define RT "\"runtime\": {\"dist\": \"lognormal\", \"mu\": 8, \"sigma\": 1}"

/* 512 nodes of 8 A100-80GB; the philly preset's jobs (1-128 GPUs) at
 * 2,000 jobs, then LARGE as the "large" section (NULL: none). */
static char *exp_text(const char *large, const char *cluster)
{
	return xasprintf(
		"{\"cluster\": {\"nodes\": [%s]},"
		"\"workload\": {\"reference_gpu\": \"a100-80gb\", "
		"\"generate\": {\"preset\": \"philly\", \"jobs\": 2000%s%s}},"
		"\"policies\": [\"fcfs\"]}",
		cluster ? cluster
			: "{\"count\": 512, \"cpus\": 64, \"gpus\": 8, "
			  "\"gpu_type\": \"a100-80gb\"}",
		large ? ", \"large\": " : "", large ? large : "");
}

static void load(const char *large, struct experiment *e)
{
	char *text = exp_text(large, NULL);
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", e, &err), 0, "%s", err.msg);
	free(text);
}

static void generate(const struct experiment *e, uint64_t seed,
		     struct workload *w)
{
	struct sim_error err = { .msg = "" };
	cr_assert_eq(gen_workload(&e->workload.gen, seed, &e->workload.opts, w,
				  &err), 0, "%s", err.msg);
}

/* The share of GPU-hours (work: gpus x run) in jobs of min or more GPUs,
 * summed here over the generated jobs. */
static double share_of(const struct workload *w, uint32_t min, size_t *nbig)
{
	double big = 0, all = 0;
	*nbig = 0;
	for (size_t i = 0; i < w->n; i++) {
		double h = w->jobs[i].gpus * ((double)w->jobs[i].run / SIM_SEC) /
			   3600;
		all += h;
		if (w->jobs[i].gpus >= min) {
			big += h;
			(*nbig)++;
		}
	}
	return big / all;
}

/*
 * The share holds on the generated workload, for the default (0.5 of the
 * GPU-hours in jobs of 256+ GPUs) and for 0.2 in jobs of 128+ GPUs (where
 * the preset's own 128-GPU jobs count too), over three seeds, within the
 * documented tolerance of 1e-4.
 */
Test(gen_large, share_is_met_by_size)
{
	static const struct {
		const char *large;
		double share;
		uint32_t min;
	} cases[] = {
		{ "{}", 0.5, 256 },
		{ "{" RT "}", 0.5, 256 },
		{ "{\"share\": 0.2, \"min_gpus\": 128, " RT "}", 0.2, 128 },
		{ "{\"share\": 0.8, \"model\": \"gpt3-13b\", " RT "}", 0.8,
		  256 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct experiment e;
		load(cases[c].large, &e);
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct workload w;
			size_t nbig;
			generate(&e, seed, &w);
			double s = share_of(&w, cases[c].min, &nbig);
			cr_expect(fabs(s - cases[c].share) <= 1e-4,
				  "%s seed %llu: share %.6f", cases[c].large,
				  (unsigned long long)seed, s);
			cr_expect_gt(nbig, c ? 10 : 0, "%s: %zu large jobs",
				     cases[c].large, nbig);
			cr_expect_gt(w.n, 2000);
			workload_release(&w);
		}
		exp_release(&e);
	}
}

/* Memory per GPU of model m in shape (tp, pp) on gpus GPUs. */
static double need(const struct llm_model *m, uint32_t gpus, uint32_t tp,
		   uint32_t pp)
{
	struct llm_shape sh = { .dp = gpus / (tp * pp), .tp = tp, .pp = pp,
				.microbatches = 4 * pp, .micro_batch = 1,
				.interleave = 1 };
	struct llm_memory mem;
	llm_memory(m, &sh, &mem);
	return mem.total;
}

/*
 * Every large job: GPUs at least 256 and whole nodes of 8, dp x tp x pp =
 * its GPUs, tp dividing 8, its memory within 80 GB, and no shape of a
 * smaller tp x pp (tp dividing 8, pp dividing the layers, dp whole) fits:
 * walked here over every pair.  The ordinary jobs (ids 1 .. 2000) are the
 * jobs of the same seed without the section, field by field.
 */
Test(gen_large, shapes_are_the_smallest_that_fit)
{
	struct experiment e, plain;
	struct workload w, p;
	load("{\"model\": [\"gpt3-13b\", \"llama2-70b\", \"gpt3-175b\"], "
	     RT "}", &e);
	load(NULL, &plain);
	generate(&e, 7, &w);
	generate(&plain, 7, &p);
	cr_assert_eq(p.n, 2000);
	size_t seen = 0;
	for (size_t i = 0; i < w.n; i++) {
		const struct job *j = &w.jobs[i];
		if (j->id <= 2000) {
			const struct job *q = &p.jobs[0];
			for (size_t k = 0; k < p.n; k++)
				if (p.jobs[k].id == j->id)
					q = &p.jobs[k];
			cr_expect(q->id == j->id && q->submit == j->submit &&
				  q->run == j->run && q->gpus == j->gpus &&
				  q->cpus == j->cpus && !j->llm,
				  "ordinary job %lld moved", (long long)j->id);
			continue;
		}
		seen++;
		cr_assert(j->llm >= 1 && j->llm <= w.nllm);
		const struct llm_job *lj = &w.llm[j->llm - 1];
		const struct llm_model *m = &lj->model;
		uint32_t dp = j->gpus / ((uint32_t)j->tp * j->pp);
		cr_expect(j->gpus >= 256 && j->gpus % 8 == 0, "%u", j->gpus);
		cr_expect_eq((uint64_t)dp * j->tp * j->pp, j->gpus);
		cr_expect_eq(8 % j->tp, 0);
		cr_expect_eq(lj->microbatches, 4u * j->pp);
		cr_expect_eq(j->cpus, j->gpus * 4);
		cr_expect_leq(need(m, j->gpus, j->tp, j->pp), 80e9,
			      "job %lld", (long long)j->id);
		for (uint32_t tp = 1; tp <= 8; tp *= 2)
			for (uint32_t pp = 1; pp <= m->layers; pp++) {
				uint32_t q = tp * pp;
				if (q >= (uint32_t)j->tp * j->pp ||
				    m->layers % pp || j->gpus % q ||
				    m->hidden % tp || m->heads % tp)
					continue;
				cr_expect_gt(need(m, j->gpus, tp, pp), 80e9,
					     "job %lld (%s): tp %u pp %u fits "
					     "and is smaller than tp %u pp %u",
					     (long long)j->id, m->name, tp, pp,
					     j->tp, j->pp);
			}
	}
	cr_expect_gt(seen, 10);
	workload_release(&w);
	workload_release(&p);
	exp_release(&e);
	exp_release(&plain);
}

/*
 * By hand, on 256 A100-80GB (80e9 bytes), full recomputation, b = 1:
 *
 * gpt3-175b (P = 174.6e9, l = 96, h = 12288, a = 96, s = 2048): weights,
 * gradients and Adam state 16 P = 2,794 GB over tp x pp; activations of
 * stage 0 with pp micro-batches in flight, l / pp layers each, 2 s h bytes
 * per layer: l x 2 s h = 4.83 GB whatever pp; one layer's working set at
 * tp 8, s h (10 + 24/8 + 5 a s / (8 h)) = 25.2e6 x 23 = 0.58 GB.  So
 * 2,794 / q + 5.41 <= 80 asks q >= 37.5; q must divide 256: 64, and at
 * 64 tp is the node's 8: tp 8 x pp 8, dp 4, 32 micro-batches.
 *
 * gpt3-13b (P = 12.85e9 by eq. 2, l = 40, h = 5120, a = 40): 205.6 GB of
 * state; activations 40 x 2 x 2048 x 5120 = 0.84 GB, working set at tp 4
 * 10.5e6 x (10 + 6 + 20) = 0.38 GB: 205.6 / q + 1.22 <= 80 asks q >= 2.6,
 * so q = 4 with tp as large as it goes: tp 4 x pp 1, dp 64, 4
 * micro-batches.  With tp held at 2 the same q gives tp 2 x pp 2; with
 * pp held at 4, tp 1 x pp 4.
 */
Test(gen_large, shape_by_hand)
{
	struct experiment e;
	struct llm_shape sh;
	struct sim_error err = { .msg = "" };
	load("{}", &e);
	struct gen_large *l = &e.workload.gen.large;
	cr_expect_str_eq(l->gpu_type, "a100-80gb");
	cr_expect_eq(l->gpu.per_node, 8);
	cr_expect_float_eq(l->gpu.mem_bytes, 80e9, 1);
	cr_assert_eq(gen_large_shape(l, llm_preset_find("gpt3-175b"), 256, &sh,
				     "t", &err), 0, "%s", err.msg);
	cr_expect(sh.tp == 8 && sh.pp == 8 && sh.dp == 4 &&
		  sh.microbatches == 32, "tp %u pp %u dp %u m %u", sh.tp, sh.pp,
		  sh.dp, sh.microbatches);
	cr_assert_eq(gen_large_shape(l, llm_preset_find("gpt3-13b"), 256, &sh,
				     "t", &err), 0, "%s", err.msg);
	cr_expect(sh.tp == 4 && sh.pp == 1 && sh.dp == 64 &&
		  sh.microbatches == 4, "tp %u pp %u dp %u m %u", sh.tp, sh.pp,
		  sh.dp, sh.microbatches);
	l->tp = 2;
	cr_assert_eq(gen_large_shape(l, llm_preset_find("gpt3-13b"), 256, &sh,
				     "t", &err), 0, "%s", err.msg);
	cr_expect(sh.tp == 2 && sh.pp == 2, "tp %u pp %u", sh.tp, sh.pp);
	l->tp = 0;
	l->pp = 4;
	cr_assert_eq(gen_large_shape(l, llm_preset_find("gpt3-13b"), 256, &sh,
				     "t", &err), 0, "%s", err.msg);
	cr_expect(sh.tp == 1 && sh.pp == 4, "tp %u pp %u", sh.tp, sh.pp);
	l->pp = 0;
	/* Rounding: a draw of 300 GPUs is 304 (38 nodes); 100 is 256. */
	cr_expect_eq(gen_large_gpus(l, 300), 304);
	cr_expect_eq(gen_large_gpus(l, 100), 256);
	exp_release(&e);
}

/* exp_parse() of LARGE (on CLUSTER, NULL: the A100 one) fails with a
 * message that starts with want. */
static void expect_bad(const char *large, const char *cluster,
		       const char *want)
{
	char *text = exp_text(large, cluster);
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), -SIM_EINPUT,
		     "accepted %s", large);
	cr_expect(strncmp(err.msg, want, strlen(want)) == 0,
		  "got '%s', want '%s...'", err.msg, want);
	free(text);
}

#define LP "x.json: $.workload.generate.large"

Test(gen_large, bad_values_name_the_json_path)
{
	expect_bad("{\"share\": 1}", NULL, LP ".share: must be below 1");
	expect_bad("{\"share\": -0.1}", NULL, LP ".share: must be >= 0");
	expect_bad("{\"min_gpus\": 0}", NULL, LP ".min_gpus: ");
	expect_bad("{\"tp\": 16}", NULL,
		   LP ".tp: must be at most the 8 GPUs of a node of a100-80gb "
		   "(a tensor-parallel group is kept inside a node), got '16'");
	expect_bad("{\"model\": \"gpt-9\"}", NULL,
		   LP ".model: unknown model 'gpt-9'");
	expect_bad("{\"model\": [\"gpt3-13b\", \"llama3-405b\"], "
		   "\"min_gpus\": 16, \"gpus\": {\"dist\": \"constant\", "
		   "\"value\": 16}}", NULL,
		   LP ".model[1]: 'llama3-405b' fits no shape on 16 GPUs of "
		   "a100-80gb (80.0 GB each): the least memory");
	expect_bad("{\"model\": [\"gpt3-13b\"], \"model_weights\": [1, 2]}",
		   NULL, LP ".model_weights: expected 1 weights (one per "
		   "model), got 2");
	expect_bad("{\"dp\": 4}", NULL, LP ".dp: fixes the jobs' GPUs");
	expect_bad("{\"dp\": 4, \"tp\": 8, \"pp\": 8, \"gpus\": {\"dist\": "
		   "\"constant\", \"value\": 256}}", NULL,
		   LP ".dp: fixes each job's GPUs to dp x tp x pp");
	expect_bad("{\"gpu_type\": \"h100\"}", NULL,
		   LP ".gpu_type: no node group of the cluster has GPUs of "
		   "type 'h100'");
	expect_bad("{\"sahre\": 0.3}", NULL,
		   LP ": unknown key 'sahre' (did you mean 'share'?)");
	expect_bad("{}",
		   "{\"count\": 8, \"cpus\": 8, \"gpus\": 8, \"gpu_type\": "
		   "\"a100-80gb\"}, {\"count\": 8, \"cpus\": 8, \"gpus\": 8, "
		   "\"gpu_type\": \"h100\"}",
		   LP ": the cluster has GPU types 'a100-80gb' and 'h100'");
	expect_bad("{}", "{\"count\": 8, \"cpus\": 8}",
		   LP ": the cluster has no GPUs for large-model jobs");
}

/* The fixed shape: dp x tp x pp GPUs for every job; and the generator's
 * own error when the ordinary jobs' big ones hold more than the share
 * (every ordinary job here has 512 GPUs). */
Test(gen_large, fixed_shape_and_share_below_the_ordinary_jobs)
{
	struct experiment e;
	struct workload w;
	struct sim_error err = { .msg = "" };
	load("{\"dp\": 2, \"tp\": 8, \"pp\": 16, \"microbatches\": 64, "
	     "\"model\": \"gpt3-175b\"}", &e);
	generate(&e, 1, &w);
	size_t n = 0;
	for (size_t i = 0; i < w.n; i++)
		if (w.jobs[i].llm) {
			n++;
			cr_expect(w.jobs[i].gpus == 256 && w.jobs[i].tp == 8 &&
				  w.jobs[i].pp == 16);
			cr_expect_eq(w.llm[w.jobs[i].llm - 1].microbatches, 64);
		}
	cr_expect_gt(n, 0);
	workload_release(&w);
	dist_release(&e.workload.gen.gpus);
	e.workload.gen.gpus.kind = DIST_CONSTANT;
	e.workload.gen.gpus.p[0] = 512;
	cr_expect_eq(gen_workload(&e.workload.gen, 1, &e.workload.opts, &w,
				  &err), -SIM_EINPUT);
	cr_expect(strstr(err.msg, "generator: large.share: the ordinary jobs "
			 "of 256 GPUs or more already hold 100.00% of the "
			 "GPU-hours, more than share '0.5'"), "%s", err.msg);
	exp_release(&e);
}

/* The command line: a run is the same bytes twice and its manifest holds
 * the resolved section; a model that fits no type exits 2 naming the
 * path. */
Test(gen_large, cli_same_bytes_and_exit_2)
{
	char bin[512], tmp[256];
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "genlarge");
	tl_cli_need_bin(bin);
	static const char good[] =
		"{\"name\": \"g\", \"cluster\": {\"nodes\": [{\"count\": 64, "
		"\"cpus\": 64, \"gpus\": 8, \"gpu_type\": \"a100-80gb\"}], "
		"\"rack_nodes\": 8, \"network\": {\"nic_gbps\": 1600, "
		"\"oversubscription\": 2}}, \"workload\": {\"reference_gpu\": "
		"\"a100-80gb\", \"generate\": {\"preset\": \"philly\", "
		"\"jobs\": 300, \"large\": {\"share\": 0.4, \"min_gpus\": 64, "
		"\"runtime\": {\"dist\": \"lognormal\", \"mu\": 9, \"sigma\": "
		"0.5}}}}, \"policies\": [\"easy\"], \"seeds\": [2]}";
	tl_put(tmp, "g.json", good);
	tl_put(tmp, "bad.json",
	       "{\"cluster\": {\"nodes\": [{\"count\": 4, \"cpus\": 8, "
	       "\"gpus\": 4, \"gpu_type\": \"t4\"}]}, \"workload\": "
	       "{\"generate\": {\"jobs\": 10, \"gpus\": {\"dist\": "
	       "\"constant\", \"value\": 1}, \"interarrival\": {\"dist\": "
	       "\"constant\", \"value\": 1}, \"runtime\": {\"dist\": "
	       "\"constant\", \"value\": 10}, \"large\": {\"min_gpus\": 16, "
	       "\"model\": \"gpt3-175b\"}}}, \"policies\": [\"fcfs\"]}");
	cr_assert_eq(tl_sh(tmp, "'%s' run --no-plots g.json -o a", bin), 0);
	cr_assert_eq(tl_sh(tmp, "'%s' run --no-plots g.json -o b", bin), 0);
	char *ja = tl_slurp(tmp, "a/easy-s2/jobs.csv");
	char *jb = tl_slurp(tmp, "b/easy-s2/jobs.csv");
	cr_assert(ja && jb);
	cr_expect_str_eq(ja, jb);
	free(ja);
	free(jb);
	char *man = tl_slurp(tmp, "a/manifest.json");
	cr_expect(man && strstr(man, "\"large\"") &&
		  strstr(man, "\"gpu_type\":\t\"a100-80gb\""), "%s", man);
	free(man);
	cr_expect_eq(tl_sh(tmp, "'%s' validate bad.json", bin), 2);
	char *err = tl_slurp(tmp, "err.txt");
	cr_expect(err && strstr(err, "bad.json: $.workload.generate.large."
				"model: 'gpt3-175b' fits no shape on 16 GPUs "
				"of t4"), "%s", err);
	free(err);
	tl_rmtree(tmp);
}

/*
 * "comm_overlap" per model: an entry of the root "models" table carries
 * its own overlap into the generated large jobs that train it (the preset
 * it copies has none), and a value above 1 is refused with its path.
 */
Test(gen_large, comm_overlap_per_model)
{
	const char *models = "\"models\": {\"g13-ov\": {\"like\": "
			     "\"gpt3-13b\", \"comm_overlap\": 0.75}}, ";
	char *base = exp_text("{\"model\": [\"g13-ov\", \"gpt3-13b\"], "
			      RT "}", NULL);
	char *text = xasprintf("{%s%s", models, base + 1);
	struct experiment e;
	struct workload w;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	generate(&e, 3, &w);
	size_t with = 0, without = 0;
	for (size_t i = 0; i < w.nllm; i++) {
		const struct llm_model *m = &w.llm[i].model;
		if (!strcmp(m->name, "g13-ov")) {
			cr_expect_float_eq(m->comm_overlap, 0.75, 1e-15);
			with++;
		} else {
			cr_expect_str_eq(m->name, "gpt3-13b");
			cr_expect_eq(m->comm_overlap, 0);
			without++;
		}
	}
	cr_expect(with && without, "%zu %zu", with, without);
	workload_release(&w);
	exp_release(&e);
	free(text);
	text = xasprintf("{\"models\": {\"g13-ov\": {\"like\": "
			 "\"gpt3-13b\", \"comm_overlap\": 1.5}}, %s",
			 base + 1);
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), -SIM_EINPUT);
	cr_expect(strstr(err.msg, "x.json: $.models['g13-ov'].comm_overlap: "
			 "must be <= 1, got '1.5'"), "%s", err.msg);
	free(text);
	free(base);
}

/*
 * "interleave" per model: the generated jobs of an entry with v = 2 run
 * the interleaved schedule wherever pp x 2 divides its 40 layers
 * (gpt3-13b), else plain 1F1B; the preset's jobs run plain.  A v that
 * does not divide the layers is refused with its path.
 */
Test(gen_large, interleave_per_model)
{
	char *base = exp_text("{\"model\": [\"g13-v2\", \"gpt3-13b\"], "
			      RT "}", NULL);
	char *text = xasprintf("{\"models\": {\"g13-v2\": {\"like\": "
			       "\"gpt3-13b\", \"interleave\": 2}}, %s",
			       base + 1);
	struct experiment e;
	struct workload w;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	generate(&e, 3, &w);
	size_t two = 0, one = 0;
	for (size_t i = 0; i < w.n; i++) {
		const struct job *j = &w.jobs[i];
		if (!j->llm)
			continue;
		const struct llm_job *lj = &w.llm[j->llm - 1];
		uint32_t want = !strcmp(lj->model.name, "g13-v2") &&
				40 % (2 * (j->pp ? j->pp : 1)) == 0 ? 2 : 1;
		cr_expect_eq(lj->interleave, want, "job %lld: %s pp %u",
			     (long long)j->id, lj->model.name, j->pp);
		*(want == 2 ? &two : &one) += 1;
	}
	cr_expect(two && one, "%zu %zu", two, one);
	workload_release(&w);
	exp_release(&e);
	free(text);
	text = xasprintf("{\"models\": {\"g13-v3\": {\"like\": "
			 "\"gpt3-13b\", \"interleave\": 3}}, %s", base + 1);
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), -SIM_EINPUT);
	cr_expect(strstr(err.msg, "x.json: $.models['g13-v3'].interleave: "
			 "must divide the layers 40, got '3'"), "%s", err.msg);
	free(text);
	free(base);
}
