/*
 * GPU types (jobclass_gpu.h), the experiment's own ("gpu_types",
 * exp_gputypes.c) and the rule that carries a job class's measured
 * throughput to a type nobody measured ("derive_throughputs",
 * jobclass_override.h).
 *
 * Figures by hand, from the data sheets the table cites:
 *   h100 from v100, fp32_membw: sqrt(67/15.7 x 3350/900)
 *     = sqrt(4.267515924 x 3.722222222) = sqrt(15.88464) = 3.985554241
 *   h100 from v100, fp32: 67/15.7 = 4.267515924
 * The rule's check against Gavel's own table (docs/gpu-models.md): the
 * median relative error over the 26 classes of predicting the P100
 * figure from the V100 one and the K80 figure from the P100 one, worked
 * out separately in Python from gavel-throughputs.json (1-GPU "null"
 * figures): fp32_membw 0.211139 and 0.386858, fp32 0.270981 and
 * 0.556645.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp.h"
#include "speed/jobclass.h"
#include "speed/jobclass_gpu.h"
#include "speed/jobclass_override.h"
#include "speed/speed.h"
#include "testlib.h"
#include "base/util.h"

#define H100_FROM_V100 3.985554241
#define H100_FROM_V100_FP32 4.267515924

#define GT_HEAD "{\"cluster\": {\"nodes\": [{\"count\": 1, \"cpus\": 4}]}, " \
	"\"workload\": {\"trace\": \"t.swf\"}, \"policies\": [\"fcfs\"]"

/* Parses GT_HEAD + extra (", key: value ..."); asserts success. */
static void gt_parse(const char *extra, struct experiment *e)
{
	char *text = xasprintf(GT_HEAD "%s}", extra);
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", e, &err), 0, "%s", err.msg);
	free(text);
}

static void gt_error(const char *extra, const char *msg)
{
	char *text = xasprintf(GT_HEAD "%s}", extra);
	struct experiment e;
	struct sim_error err = { .msg = "" };
	int rc = exp_parse(text, "x.json", &e, &err);
	cr_expect_eq(rc, -SIM_EINPUT, "rc %d for %s", rc, extra);
	cr_expect_str_eq(err.msg, msg);
	free(text);
}

static unsigned r50(void)
{
	return (unsigned)jobclass_lookup("ResNet-50 (batch size 64)");
}

Test(gputypes, table_rows_have_figures_and_sources)
{
	cr_assert_eq(jobclass_gpu_count(), JOBCLASS_NGPU);
	cr_assert_geq(JOBCLASS_NGPU, 10);
	for (size_t i = 0; i < jobclass_gpu_count(); i++) {
		const struct jobclass_gpu_info *t = jobclass_gpu_at(i);
		cr_assert(t->name && *t->name && t->model && *t->model);
		cr_assert(t->source && strstr(t->source, "data sheet"),
			  "%s", t->name);
		cr_expect(t->mem_gb > 0 && t->fp32_tflops > 0 &&
			  t->fp16_tflops >= t->fp32_tflops &&
			  t->memory_GBps > 0 && t->nvlink_GBps >= 0, "%s",
			  t->name);
		/* Only Gavel's three are measured; the others say derived. */
		bool measured = strstr(t->source, "(measured)") != NULL;
		cr_expect_eq(measured, i < JOBCLASS_NGPU_GAVEL, "%s", t->name);
	}
	cr_assert_null(jobclass_gpu_at(JOBCLASS_NGPU));
	/* Quoted from the data sheets (dense tensor figures). */
	const struct jobclass_gpu_info *h100 = jobclass_gpu_at(JOBCLASS_GPU_H100);
	cr_expect_eq(jobclass_gpu_peak_flops(h100), 989.4e12);
	cr_expect_eq(jobclass_gpu_mem_bytes(h100), 80e9);
	cr_expect_eq(jobclass_gpu_nvlink_Bps(h100), 900e9);
	cr_expect_eq(jobclass_gpu_at(JOBCLASS_GPU_A100_80GB)->memory_GBps,
		     2039);
	cr_expect_eq(jobclass_gpu_at(JOBCLASS_GPU_A100_40GB)->memory_GBps,
		     1555);
	cr_expect_eq(jobclass_gpu_at(JOBCLASS_GPU_H200)->mem_gb, 141);
	cr_expect_eq(jobclass_gpu_at(JOBCLASS_GPU_L40S)->nvlink_GBps, 0);
	cr_expect_eq(jobclass_gpu_at(JOBCLASS_GPU_K80)->fp32_tflops,
		     8.73 / 2);
}

Test(gputypes, names_are_found_exactly_first)
{
	cr_expect_eq(jobclass_gpu_find("A100_80GB"), JOBCLASS_GPU_A100_80GB);
	cr_expect_eq(jobclass_gpu_find("h100"), JOBCLASS_GPU_H100);
	cr_expect_eq(jobclass_gpu_find("h100-pcie"), -1);
	cr_expect_eq(jobclass_gpu_find(NULL), -1);
	/* "a10" is a prefix of "a100-40gb": the exact name wins. */
	cr_expect_eq(jobclass_gpu_lookup("a10", NULL), JOBCLASS_GPU_A10);
	cr_expect_eq(jobclass_gpu_lookup("A10-24GB", NULL), JOBCLASS_GPU_A10);
	cr_expect_eq(jobclass_gpu_lookup("a100-80gb", NULL),
		     JOBCLASS_GPU_A100_80GB);
	cr_expect_eq(jobclass_gpu_lookup("NVIDIA A100-40GB", NULL),
		     JOBCLASS_GPU_A100_40GB);
	cr_expect_eq(jobclass_gpu_lookup("NVIDIA H100 SXM5", NULL),
		     JOBCLASS_GPU_H100);
	cr_expect_eq(jobclass_gpu_lookup("h200-141gb", NULL),
		     JOBCLASS_GPU_H200);
	cr_expect_eq(jobclass_gpu_lookup("L40S", NULL), JOBCLASS_GPU_L40S);
	/* Two A100s: the bare name is neither. */
	cr_expect_eq(jobclass_gpu_lookup("a100", NULL), -SIM_EINPUT);
	cr_expect_eq(jobclass_gpu_lookup("l40", NULL), -SIM_EINPUT);
	char names[256];
	jobclass_gpu_names(names, sizeof(names));
	cr_expect_str_eq(names, "k80, p100, v100, t4, a10, a100-40gb, "
			 "a100-80gb, h100, h200, l40s");
}

Test(gputypes, derived_from_the_nearest_measured_type)
{
	unsigned c = r50();
	double v100 = jobclass_throughput(c, JOBCLASS_GPU_V100, 1, true);
	struct jobclass_origin why;
	double h = jobclass_thr1_origin(NULL, c, JOBCLASS_GPU_H100, &why);
	cr_expect_eq(why.kind, JOBCLASS_FIG_DERIVED);
	cr_expect_eq(why.source, JOBCLASS_GPU_V100);
	cr_expect(fabs(why.factor - H100_FROM_V100) < 1e-9, "%.10f",
		  why.factor);
	cr_expect(fabs(h - v100 * H100_FROM_V100) < 1e-8 * h, "%f", h);
	/* T4 is derived too: from the K80, x sqrt(8.1/4.365 x 320/240) =
	 * sqrt(2.474227) = 1.572968. */
	jobclass_thr1_origin(NULL, c, JOBCLASS_GPU_T4, &why);
	cr_expect_eq(why.kind, JOBCLASS_FIG_DERIVED);
	cr_expect_eq(why.source, JOBCLASS_GPU_K80);
	cr_expect(fabs(why.factor - 1.572968) < 1e-6, "%f", why.factor);
	/* Measured types keep their figures. */
	cr_expect_eq(jobclass_thr1_origin(NULL, c, JOBCLASS_GPU_P100, &why),
		     jobclass_throughput(c, JOBCLASS_GPU_P100, 1, true));
	cr_expect_eq(why.kind, JOBCLASS_FIG_MEASURED);
	/* No class, no figure. */
	cr_expect(isnan(jobclass_thr1_origin(NULL, JOB_CLASS_NONE,
					     JOBCLASS_GPU_H100, &why)));
	cr_expect_eq(why.kind, JOBCLASS_FIG_NONE);

	/* The rule "fp32", and "none". */
	struct jobclass_overrides o = { .derive = JOBCLASS_DERIVE_FP32 };
	h = jobclass_thr1_origin(&o, c, JOBCLASS_GPU_H100, &why);
	cr_expect(fabs(why.factor - H100_FROM_V100_FP32) < 1e-9);
	cr_expect(fabs(h - v100 * H100_FROM_V100_FP32) < 1e-8 * h);
	o.derive = JOBCLASS_DERIVE_NONE;
	cr_expect(isnan(jobclass_thr1_origin(&o, c, JOBCLASS_GPU_H100, &why)));
	cr_expect_eq(why.kind, JOBCLASS_FIG_NONE);
	/* A mapped class borrows its proxy's figure, so its derived speed
	 * ratio is the proxy's. */
	unsigned vgg = (unsigned)jobclass_find("vgg16", NULL);
	double rv = jobclass_thr1(NULL, vgg, JOBCLASS_GPU_H100) /
		    jobclass_thr1(NULL, vgg, JOBCLASS_GPU_V100);
	cr_expect(fabs(rv - H100_FROM_V100) < 1e-9, "%f", rv);
}

/*
 * The experiment's own type "old" (fp32 9, 250 GB/s): by fp32_membw its
 * nearest measured type is the K80 (distance sqrt(ln(9/4.365)^2 +
 * ln(250/240)^2) = 0.725 against the P100's sqrt(ln(9/9.3)^2 +
 * ln(250/732)^2) = 1.075); by fp32 alone the P100 (|ln(9/9.3)| = 0.033).
 * Factors: sqrt(9/4.365 x 250/240) = sqrt(2.147766) = 1.465526;
 * 9/9.3 = 0.967742.
 */
Test(gputypes, experiment_types_and_the_rule_pick_the_source)
{
	struct experiment e;
	gt_parse(", \"gpu_types\": {\"old\": {\"memory_gb\": 8, "
		 "\"fp32_tflops\": 9, \"fp16_tflops\": 18, \"memory_GBps\": "
		 "250, \"nvlink_GBps\": 0, \"source\": \"made up\"}}", &e);
	struct jobclass_overrides *o = &e.throughputs;
	cr_assert_eq(o->ntypes, 1);
	int g = jobclass_ovr_gpu_lookup(o, "OLD", NULL);
	cr_assert_eq(g, JOBCLASS_NGPU);
	cr_expect_str_eq(jobclass_ovr_gpu(o, g)->source, "made up");
	cr_expect_str_eq(jobclass_ovr_gpu(o, g)->model, "old");
	unsigned c = r50();
	struct jobclass_origin why;
	double v = jobclass_thr1_origin(o, c, g, &why);
	cr_expect_eq(why.source, JOBCLASS_GPU_K80);
	cr_expect(fabs(why.factor - 1.465526) < 1e-6, "%f", why.factor);
	cr_expect(fabs(v - jobclass_throughput(c, JOBCLASS_GPU_K80, 1, true) *
			       why.factor) < 1e-9);
	o->derive = JOBCLASS_DERIVE_FP32;
	jobclass_thr1_origin(o, c, g, &why);
	cr_expect_eq(why.source, JOBCLASS_GPU_P100);
	cr_expect(fabs(why.factor - 0.967742) < 1e-6, "%f", why.factor);
	exp_release(&e);
}

Test(gputypes, like_copies_and_overrides_win)
{
	struct experiment e;
	/* 0.9 of the V100's FP32 and bandwidth: factor 0.9 (distance to the
	 * V100 sqrt(2) x |ln 0.9| = 0.149; to the P100 sqrt(ln(14.13/9.3)^2
	 * + ln(810/732)^2) = 0.430). */
	gt_parse(", \"gpu_types\": {\"v100-90\": {\"like\": \"v100\", "
		 "\"fp32_tflops\": 14.13, \"memory_GBps\": 810}, "
		 "\"h100-pcie\": {\"like\": \"h100\", \"memory_GBps\": 2000}}, "
		 "\"throughputs\": {\"resnet50_bs64\": {\"v100\": 10, "
		 "\"h100-pcie\": 33}}", &e);
	struct jobclass_overrides *o = &e.throughputs;
	int v90 = jobclass_ovr_gpu_lookup(o, "v100-90", NULL);
	int pcie = jobclass_ovr_gpu_lookup(o, "h100-pcie", NULL);
	/* The experiment's name wins over the suffix rule (h100 + pcie). */
	cr_assert_eq(pcie, JOBCLASS_NGPU + 1);
	const struct jobclass_gpu_info *t = jobclass_ovr_gpu(o, v90);
	cr_expect_eq(t->mem_gb, 16);
	cr_expect_eq(t->nvlink_GBps, 300);
	cr_expect(strstr(t->source, "v100") != NULL, "%s", t->source);
	struct jobclass_origin why;
	/* Derived from the overridden V100 figure, 10 steps/s. */
	double v = jobclass_thr1_origin(o, r50(), v90, &why);
	cr_expect(fabs(v - 9) < 1e-12, "%f", v);
	cr_expect_eq(why.source, JOBCLASS_GPU_V100);
	cr_expect_eq(jobclass_thr1_origin(o, r50(), pcie, &why), 33);
	cr_expect_eq(why.kind, JOBCLASS_FIG_OVERRIDE);
	/* Printed back in the resolved configuration. */
	cJSON *j = cJSON_Parse(e.resolved_json);
	const cJSON *gt = cJSON_GetObjectItem(j, "gpu_types");
	cr_assert_not_null(cJSON_GetObjectItem(gt, "v100-90"));
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(gt, "h100-pcie"),
					 "fp32_tflops")->valuedouble, 67);
	cr_expect_str_eq(cJSON_GetObjectItem(j, "derive_throughputs")
				 ->valuestring, "fp32_membw");
	cr_expect_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(
			     cJSON_GetObjectItem(j, "throughputs"),
			     "ResNet-50 (batch size 64)"), "h100-pcie")
			     ->valuedouble, 33);
	cJSON_Delete(j);
	exp_release(&e);
}

Test(gputypes, bad_entries_name_the_json_path)
{
	gt_error(", \"gpu_types\": {\"x\": {\"like\": \"v100\", "
		 "\"memory_gbs\": 3}}",
		 "x.json: $.gpu_types.x: unknown key 'memory_gbs' (did you "
		 "mean 'memory_gb'?)");
	gt_error(", \"gpu_types\": {\"x\": {\"like\": \"v100\", "
		 "\"nvlink_GBps\": -1}}",
		 "x.json: $.gpu_types.x.nvlink_GBps: must be >= 0, got '-1'");
	gt_error(", \"gpu_types\": {\"x\": {\"like\": \"v100\", "
		 "\"fp32_tflops\": 0}}",
		 "x.json: $.gpu_types.x.fp32_tflops: must be > 0, got '0'");
	gt_error(", \"gpu_types\": {\"x\": {\"like\": \"tpu\"}}",
		 "x.json: $.gpu_types.x.like: unknown gpu type 'tpu' "
		 "(expected a built-in type, k80, p100, v100, t4, a10, "
		 "a100-40gb, a100-80gb, h100, h200, l40s, or an earlier "
		 "entry of \"gpu_types\")");
	gt_error(", \"gpu_types\": {\"x\": {\"memory_gb\": 8}}",
		 "x.json: $.gpu_types.x: missing key 'fp32_tflops' (give "
		 "every figure, or copy a type's with \"like\")");
	gt_error(", \"gpu_types\": {\"H100\": {\"like\": \"v100\"}}",
		 "x.json: $.gpu_types.H100: 'H100' is the built-in type "
		 "'h100': give the new type another name (copy its figures "
		 "with \"like\")");
	gt_error(", \"gpu_types\": {\"x-1\": {\"like\": \"v100\"}, "
		 "\"X_1\": {\"like\": \"v100\"}}",
		 "x.json: $.gpu_types.X_1: names the same gpu type as 'x-1'");
	gt_error(", \"gpu_types\": [1]",
		 "x.json: $.gpu_types: expected an object of gpu types by "
		 "name, got array");
	gt_error(", \"derive_throughputs\": \"fp16\"",
		 "x.json: $.derive_throughputs: unknown value 'fp16' "
		 "(expected 'fp32_membw', 'fp32' or 'none')");
	/* A like names only an earlier entry. */
	gt_error(", \"gpu_types\": {\"a\": {\"like\": \"b\"}, "
		 "\"b\": {\"like\": \"v100\"}}",
		 "x.json: $.gpu_types.a.like: unknown gpu type 'b' "
		 "(expected a built-in type, k80, p100, v100, t4, a10, "
		 "a100-40gb, a100-80gb, h100, h200, l40s, or an earlier "
		 "entry of \"gpu_types\")");
}

/* The rule's check against Gavel's measurements (figures in the file
 * comment). */
static double median_error(enum jobclass_derive rule, int from, int to)
{
	double err[JOBCLASS_NGAVEL];
	size_t n = 0;
	double f = jobclass_derive_factor(rule, jobclass_gpu_at((size_t)to),
					  jobclass_gpu_at((size_t)from));
	for (unsigned c = 1; c <= JOBCLASS_NGAVEL; c++) {
		double a = jobclass_throughput(c, from, 1, true);
		double b = jobclass_throughput(c, to, 1, true);
		if (a > 0 && b > 0)
			err[n++] = fabs(a * f / b - 1);
	}
	cr_assert_eq(n, JOBCLASS_NGAVEL);
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && err[k - 1] > err[k]; k--) {
			double t = err[k];
			err[k] = err[k - 1];
			err[k - 1] = t;
		}
	return n % 2 ? err[n / 2] : (err[n / 2 - 1] + err[n / 2]) / 2;
}

Test(gputypes, rule_checked_against_gavels_measurements)
{
	double a = median_error(JOBCLASS_DERIVE_FP32_MEMBW, JOBCLASS_GPU_V100,
				JOBCLASS_GPU_P100);
	double b = median_error(JOBCLASS_DERIVE_FP32_MEMBW, JOBCLASS_GPU_P100,
				JOBCLASS_GPU_K80);
	double c = median_error(JOBCLASS_DERIVE_FP32, JOBCLASS_GPU_V100,
				JOBCLASS_GPU_P100);
	double d = median_error(JOBCLASS_DERIVE_FP32, JOBCLASS_GPU_P100,
				JOBCLASS_GPU_K80);
	cr_expect(fabs(a - 0.211139) < 1e-6, "%f", a);
	cr_expect(fabs(b - 0.386858) < 1e-6, "%f", b);
	cr_expect(fabs(c - 0.270981) < 1e-6, "%f", c);
	cr_expect(fabs(d - 0.556645) < 1e-6, "%f", d);
	/* The default is the better rule on both checks. */
	cr_expect(a < c && b < d);
}

/* The manifest's list: every class on the cluster's derived types. */
Test(gputypes, derived_figures_are_listed_for_the_manifest)
{
	struct experiment e;
	char *text = xasprintf("{\"cluster\": {\"nodes\": [{\"count\": 1, "
			       "\"cpus\": 4, \"gpus\": 4, \"gpu_type\": "
			       "\"v100\"}, {\"count\": 1, \"cpus\": 4, "
			       "\"gpus\": 4, \"gpu_type\": \"h100\"}, "
			       "{\"count\": 1, \"cpus\": 4, \"gpus\": 4, "
			       "\"gpu_type\": \"NVIDIA H100\"}]}, "
			       "\"workload\": {\"trace\": \"t.swf\"}, "
			       "\"policies\": [\"fcfs\"]}");
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	free(text);
	cJSON *d = exp_derived_json(&e);
	/* h100 once (two spellings), every class; v100 is measured. */
	cr_assert_eq(cJSON_GetArraySize(d), (int)jobclass_count() - 1);
	const cJSON *x = cJSON_GetArrayItem(d, 0);
	cr_expect_str_eq(cJSON_GetObjectItem(x, "job_class")->valuestring,
			 jobclass_get(1)->name);
	cr_expect_str_eq(cJSON_GetObjectItem(x, "gpu_type")->valuestring,
			 "h100");
	cr_expect_str_eq(cJSON_GetObjectItem(x, "source_type")->valuestring,
			 "v100");
	cr_expect_str_eq(cJSON_GetObjectItem(x, "rule")->valuestring,
			 "fp32_membw");
	cr_expect(fabs(cJSON_GetObjectItem(x, "factor")->valuedouble -
		       H100_FROM_V100) < 1e-9);
	cJSON_Delete(d);
	exp_release(&e);
}

/* Rule "none": a run refuses a class with no figure on a cluster type. */
Test(gputypes, rule_none_refuses_a_job_without_a_figure)
{
	struct cluster_spec c;
	struct tjob t[] = { { 1, 0, 100, 100, 0 } };
	struct workload w;
	struct jobclass_overrides o = { .derive = JOBCLASS_DERIVE_NONE };
	struct sim_error err = { .msg = "" };
	tl_workload(&w, t, 1);
	w.jobs[0].gpus = 1;
	w.jobs[0].job_class = (uint16_t)r50();
	tl_cluster(&c, 1, 8);
	c.groups[0].gpus = 4;
	c.groups[0].gpu_type = xstrdup("a100-80gb");
	cr_expect_eq(speed_check(&c, &o, w.jobs, w.n, true, "x.json: ", &err),
		     -SIM_EINPUT);
	cr_expect_str_eq(err.msg, "x.json: $.derive_throughputs: job class "
			 "'ResNet-50 (batch size 64)' has no throughput on gpu "
			 "type 'a100-80gb' ($.cluster.nodes[0]) and \"none\" "
			 "derives none: give it in \"throughputs\", or derive "
			 "it with \"fp32_membw\" or \"fp32\"");
	/* Measured there: accepted; and the default rule derives. */
	free(c.groups[0].gpu_type);
	c.groups[0].gpu_type = xstrdup("p100");
	cr_expect_eq(speed_check(&c, &o, w.jobs, w.n, true, "", &err), 0);
	free(c.groups[0].gpu_type);
	c.groups[0].gpu_type = xstrdup("h200");
	o.derive = JOBCLASS_DERIVE_FP32_MEMBW;
	cr_expect_eq(speed_check(&c, &o, w.jobs, w.n, true, "", &err), 0);
	/* A generated workload may draw any of Gavel's classes. */
	o.derive = JOBCLASS_DERIVE_NONE;
	cr_expect_eq(speed_check(&c, &o, NULL, 0, true, "", &err),
		     -SIM_EINPUT);
	cr_expect_eq(speed_check(&c, &o, NULL, 0, false, "", &err), 0);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * One 1-GPU ResNet-50 (batch size 64) job of 100 s of V100 work on the
 * experiment's "v100-90" (0.9 of the V100's FP32 peak and bandwidth:
 * factor 0.9, from the V100) takes 100 / 0.9 = 111.1111 s.  (Half the
 * V100's figures would be nearer the P100 and derive from it.)
 */
Test(gputypes, a_run_on_an_experiment_type)
{
	struct experiment e;
	gt_parse(", \"gpu_types\": {\"v100-90\": {\"like\": \"v100\", "
		 "\"fp32_tflops\": 14.13, \"memory_GBps\": 810}}", &e);
	struct tjob t[] = { { 1, 0, 100, 100, 0 } };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	struct sim_error err = { .msg = "" };
	tl_workload(&w, t, 1);
	w.jobs[0].gpus = 1;
	w.jobs[0].cpus = 0;
	w.jobs[0].job_class = (uint16_t)r50();
	tl_cluster(&c, 1, 8);
	c.groups[0].gpus = 4;
	c.groups[0].gpu_type = xstrdup("v100-90");
	cr_assert_eq(speed_check(&c, &e.throughputs, w.jobs, w.n, true, "",
				 &err), 0, "%s", err.msg);
	memset(&sc, 0, sizeof(sc));
	net_spec_default(&sc.net);
	sc.ref_gpu = JOBCLASS_GPU_V100;
	sc.thr = &e.throughputs;
	struct sim *s = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	size_t n;
	double end = (double)sim_jobs(s, &n)[0].end / SIM_SEC;
	cr_expect(fabs(end - 100 / 0.9) < 2e-6, "%f", end);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
	exp_release(&e);
}
