/*
 * The "throughputs" overrides of an experiment file (jobclass_override.h,
 * exp_throughputs.c): read, checked with JSON paths, printed back for
 * the manifest, and used by the speed model of one run.
 *
 * Figures by hand: Gavel's ResNet-50 (batch size 64) on one GPU, quoted
 * from gavel-throughputs.json: k80 0.6190282202246573 steps/s, v100
 * 4.394774823323071 steps/s (the reference type).  A 1-GPU job's rate is
 * throughput(its type) / throughput(reference), so 100 s of V100 work
 * take 100 x thr(v100) / thr(k80) s on a K80.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

#include "exp/exp.h"
#include "speed/jobclass.h"
#include "speed/jobclass_override.h"
#include "testlib.h"
#include "base/util.h"

#define OV_K80 0.6190282202246573
#define OV_V100 4.394774823323071
#define OV_BYTES 102228128.0

#define OV_HEAD "{\"cluster\": {\"nodes\": [{\"count\": 1, \"cpus\": 4}]}, " \
	"\"workload\": {\"trace\": \"t.swf\"}, \"policies\": [\"fcfs\"], "

/* Parses OV_HEAD + "throughputs": thr; asserts success. */
static void ov_parse(const char *thr, struct experiment *e)
{
	char *text = xasprintf(OV_HEAD "\"throughputs\": %s}", thr);
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", e, &err), 0, "%s", err.msg);
	free(text);
}

static void ov_error(const char *thr, const char *msg)
{
	char *text = xasprintf(OV_HEAD "\"throughputs\": %s}", thr);
	struct experiment e;
	struct sim_error err = { .msg = "" };
	int rc = exp_parse(text, "x.json", &e, &err);
	cr_expect_eq(rc, -SIM_EINPUT, "rc %d for %s", rc, thr);
	cr_expect_str_eq(err.msg, msg);
	free(text);
}

/* One 1-GPU ResNet-50 (batch size 64) job of 100 s, on one node of 4
 * GPUs of the given type, with the overrides o; its end in seconds. */
static double ov_end(const char *type, const struct jobclass_overrides *o)
{
	struct tjob t[] = { { 1, 0, 100, 100, 0 } };
	struct workload w;
	struct cluster_spec c;
	struct speed_config sc;
	tl_workload(&w, t, 1);
	w.jobs[0].gpus = 1;
	w.jobs[0].cpus = 0;
	w.jobs[0].job_class = (uint16_t)jobclass_lookup(
		"ResNet-50 (batch size 64)");
	tl_cluster(&c, 1, 8);
	c.groups[0].gpus = 4;
	c.groups[0].gpu_type = xstrdup(type);
	memset(&sc, 0, sizeof(sc));
	net_spec_default(&sc.net);
	sc.ref_gpu = JOBCLASS_GPU_V100;
	sc.thr = o;
	struct sim *s = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
	size_t n;
	double end = (double)sim_jobs(s, &n)[0].end / SIM_SEC;
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
	return end;
}

Test(jobclass_override, parsed_sorted_and_looked_up)
{
	struct experiment e;
	ov_parse("{\"transformer_bs16\": {\"gradient_bytes\": 5000},"
		 " \"resnet50\": {\"Tesla K80\": 2, \"v100\": 8.5}}", &e);
	const struct jobclass_overrides *o = &e.throughputs;
	int r50 = jobclass_lookup("ResNet-50 (batch size 64)");
	int tr = jobclass_lookup("Transformer (batch size 16)");
	cr_assert_eq(o->n, 2);
	cr_expect_eq(o->v[0].cls, r50); /* ResNet-50 comes first */
	cr_expect_eq(o->v[1].cls, tr);
	cr_expect_eq(jobclass_thr1(o, (unsigned)r50, JOBCLASS_GPU_K80), 2);
	cr_expect_eq(jobclass_thr1(o, (unsigned)r50, JOBCLASS_GPU_V100), 8.5);
	/* Not overridden: the table's figure. */
	cr_expect_eq(jobclass_thr1(o, (unsigned)r50, JOBCLASS_GPU_P100),
		     jobclass_throughput((unsigned)r50, JOBCLASS_GPU_P100, 1,
					 true));
	cr_expect_eq(jobclass_grad_bytes_ovr(o, (unsigned)r50), OV_BYTES);
	cr_expect_eq(jobclass_grad_bytes_ovr(o, (unsigned)tr), 5000);
	cr_expect_eq(jobclass_thr1(NULL, (unsigned)r50, JOBCLASS_GPU_K80),
		     OV_K80);
	exp_release(&e);
}

/*
 * A 1-GPU job of 100 s of V100 work:
 *   defaults, on a K80:       100 x 4.394774823323071 / 0.6190282202246573
 *                             = 709.95... s
 *   k80 = 2 steps/s:          100 x 4.394774823323071 / 2 = 219.7387... s
 *   v100 = 8.8, K80 default:  100 x 8.8 / 0.6190282202246573 = 1421.58... s
 *   v100 = 8.8, on a V100:    100 s (the reference runs at rate 1)
 * End times are whole microseconds, rounded up: tolerance 2 us.
 */
Test(jobclass_override, single_gpu_run_time_scales_by_the_ratio)
{
	struct experiment e;
	double def = ov_end("k80", NULL);
	cr_expect(fabs(def - 100 * OV_V100 / OV_K80) < 2e-6, "%f", def);

	ov_parse("{\"resnet50_bs64\": {\"k80\": 2}}", &e);
	double got = ov_end("k80", &e.throughputs);
	cr_expect(fabs(got - 100 * OV_V100 / 2) < 2e-6, "%f", got);
	/* The run time changed by exactly the throughput ratio. */
	cr_expect(fabs(got / def - OV_K80 / 2) < 1e-8, "%f", got / def);
	exp_release(&e);

	ov_parse("{\"resnet50_bs64\": {\"v100\": 8.8}}", &e);
	got = ov_end("k80", &e.throughputs);
	cr_expect(fabs(got - 100 * 8.8 / OV_K80) < 2e-6, "%f", got);
	cr_expect_eq(ov_end("v100", &e.throughputs), 100.0);
	exp_release(&e);

	/* Another class's override changes nothing for this one. */
	ov_parse("{\"vgg16\": {\"k80\": 2}}", &e);
	cr_expect_eq(ov_end("k80", &e.throughputs), def);
	exp_release(&e);
}

/*
 * T4: a type the class tables have no figure for.  Without an override
 * its figure is derived from the nearest measured type, the K80
 * (distance sqrt(ln(8.1/4.365)^2 + ln(320/240)^2) = 0.68 against the
 * P100's 0.84), x sqrt(8.1/4.365 x 320/240) = 1.5729675152792288, so the
 * job takes 100 x 4.394774823323071 / (0.6190282202246573 x 1.57297) =
 * 451.3 s; with the T4 figure 2 steps/s it runs 100 x 4.394774823323071 /
 * 2 s.
 */
Test(jobclass_override, t4_figure_from_an_override)
{
	struct experiment e;
	double derived = ov_end("t4", NULL);
	cr_expect(fabs(derived - 100 * OV_V100 / (OV_K80 * 1.5729675152792288))
		  < 2e-6, "%f", derived);
	ov_parse("{\"resnet50_bs64\": {\"Tesla T4\": 2}}", &e);
	cr_expect_eq(jobclass_thr1(&e.throughputs,
				   (unsigned)jobclass_lookup(
					   "ResNet-50 (batch size 64)"),
				   JOBCLASS_GPU_T4), 2);
	double got = ov_end("t4", &e.throughputs);
	cr_expect(fabs(got - 100 * OV_V100 / 2) < 2e-6, "%f", got);
	exp_release(&e);
}

/*
 * gradient_bytes: a 2-GPU ResNet-50 job spread over two V100 nodes, one
 * per rack, 100 Gb/s NICs (12.5e9 B/s), 0.5 us per link (4 links between
 * racks): rate = (t + bytes / 300e9) / (t + 4e-6 + bytes / 12.5e9), with
 * t = 1 / 4.394774823323071.  With 1e9 bytes instead of 102,228,128:
 * rate = (0.2275430 + 0.0033333) / (0.2275430 + 0.000004 + 0.08) =
 * 0.750703...; with 0 bytes there is no all-reduce: rate 1, 100 s.
 */
Test(jobclass_override, gradient_bytes_set_the_allreduce)
{
	struct tjob t[] = { { 1, 0, 100, 100, 0 } };
	const double bytes[] = { 1e9, 0 };
	const char *thr[] = { "{\"resnet50\": {\"gradient_bytes\": 1e9}}",
			      "{\"resnet50\": {\"gradient_bytes\": 0}}" };
	for (size_t k = 0; k < 2; k++) {
		struct experiment e;
		struct workload w;
		struct cluster_spec c;
		struct speed_config sc;
		ov_parse(thr[k], &e);
		tl_workload(&w, t, 1);
		w.jobs[0].gpus = 2;
		w.jobs[0].cpus = 0;
		w.jobs[0].job_class = (uint16_t)jobclass_lookup(
			"ResNet-50 (batch size 64)");
		tl_cluster(&c, 2, 8);
		c.groups[0].gpus = 1;
		c.groups[0].gpu_type = xstrdup("v100");
		c.rack_nodes = 1;
		memset(&sc, 0, sizeof(sc));
		net_spec_default(&sc.net);
		sc.net.nic_gbps = 100;
		sc.net.uplinks = 0;
		sc.net.uplink_gbps = 0;
		sc.net.oversubscription = 1;
		sc.net.latency_usec = 0.5;
		sc.net.nvlink_gBps = 300;
		sc.ref_gpu = JOBCLASS_GPU_V100;
		sc.thr = &e.throughputs;
		struct sim *s = tl_run_speed("fcfs", "first_fit", &w, &c, &sc);
		double tt = 1 / OV_V100, b = bytes[k];
		double rate = b > 0 ? (tt + b / 300e9) / (tt + 4e-6 + b / 12.5e9)
				    : 1;
		if (k == 0)
			cr_expect(fabs(rate - 0.750703) < 1e-6, "%f", rate);
		size_t n;
		double end = (double)sim_jobs(s, &n)[0].end / SIM_SEC;
		cr_expect(fabs(end - 100 / rate) < 2e-6, "end %.9f, want %.9f",
			  end, 100 / rate);
		sim_free(s);
		workload_release(&w);
		cluster_spec_release(&c);
		exp_release(&e);
	}
}

/* The manifest's resolved configuration names the overrides canonically
 * (exact class name, table GPU name) and reads back to itself. */
Test(jobclass_override, resolved_json_records_the_overrides)
{
	struct experiment e, again;
	struct sim_error err = { .msg = "" };
	ov_parse("{\"resnet50\": {\"Tesla V100-SXM2-16GB\": 9.5, "
		 "\"gradient_bytes\": 42}}", &e);
	cJSON *j = cJSON_Parse(e.resolved_json);
	cr_assert_not_null(j);
	cJSON *t = cJSON_GetObjectItem(j, "throughputs");
	cr_assert_not_null(t);
	cJSON *r = cJSON_GetObjectItem(t, "ResNet-50 (batch size 64)");
	cr_assert_not_null(r);
	cr_expect_eq(cJSON_GetArraySize(r), 2);
	cr_expect_eq(cJSON_GetObjectItem(r, "v100")->valuedouble, 9.5);
	cr_expect_eq(cJSON_GetObjectItem(r, "gradient_bytes")->valuedouble,
		     42);
	cJSON_Delete(j);
	cr_assert_eq(exp_parse(e.resolved_json, "x.json", &again, &err), 0,
		     "%s", err.msg);
	cr_expect_str_eq(again.resolved_json, e.resolved_json);
	exp_release(&again);
	exp_release(&e);

	/* None given: an empty object. */
	ov_parse("{}", &e);
	j = cJSON_Parse(e.resolved_json);
	t = cJSON_GetObjectItem(j, "throughputs");
	cr_expect(cJSON_IsObject(t) && cJSON_GetArraySize(t) == 0);
	cJSON_Delete(j);
	exp_release(&e);
}

Test(jobclass_override, errors_name_the_json_path)
{
	ov_error("[1]", "x.json: $.throughputs: expected an object, got array");
	ov_error("{\"resnet5_bs64\": {\"v100\": 1}}",
		 "x.json: $.throughputs.resnet5_bs64: unknown job class "
		 "'resnet5_bs64' (did you mean 'resnet50_bs64'?)");
	ov_error("{\"nosuchmodel\": {\"v100\": 1}}",
		 "x.json: $.throughputs.nosuchmodel: unknown job class "
		 "'nosuchmodel' (the classes are listed in "
		 "docs/gpu-models.md)");
	ov_error("{\"resnet50\": {\"v10\": 1}}",
		 "x.json: $.throughputs.resnet50.v10: unknown gpu type 'v10' "
		 "(did you mean 'v100'?)");
	ov_error("{\"resnet50\": {\"gradient_byte\": 1}}",
		 "x.json: $.throughputs.resnet50.gradient_byte: unknown gpu "
		 "type 'gradient_byte' (did you mean 'gradient_bytes'?)");
	/* 'a100' is no typo of 'p100' or 'a10': the two A100s are named. */
	ov_error("{\"resnet50\": {\"a100\": 1}}",
		 "x.json: $.throughputs.resnet50.a100: unknown gpu type "
		 "'a100' (did you mean 'a100-40gb' or 'a100-80gb'?)");
	ov_error("{\"resnet50\": {\"tpu-v4\": 1}}",
		 "x.json: $.throughputs.resnet50['tpu-v4']: unknown gpu type "
		 "'tpu-v4' (expected a built-in type, k80, p100, v100, t4, "
		 "a10, a100-40gb, a100-80gb, h100, h200, l40s, one of "
		 "\"gpu_types\" or 'gradient_bytes': docs/gpu-models.md)");
	ov_error("{\"resnet50\": {\"v100\": 0}}",
		 "x.json: $.throughputs.resnet50.v100: must be > 0, got '0'");
	ov_error("{\"resnet50\": {\"k80\": -2.5}}",
		 "x.json: $.throughputs.resnet50.k80: must be > 0, got "
		 "'-2.5'");
	ov_error("{\"resnet50\": {\"k80\": 1e999}}",
		 "x.json: $.throughputs.resnet50.k80: expected a finite "
		 "number");
	ov_error("{\"resnet50\": {\"k80\": \"fast\"}}",
		 "x.json: $.throughputs.resnet50.k80: expected a number, got "
		 "string");
	ov_error("{\"resnet50\": {\"v100\": {\"1\": 9.5, \"8\": 70}}}",
		 "x.json: $.throughputs.resnet50.v100: expected a number "
		 "(steps/s on one GPU), got object: multi-GPU speed comes "
		 "from the all-reduce model (docs/gpu-models.md)");
	ov_error("{\"resnet50\": {\"gradient_bytes\": 1.5}}",
		 "x.json: $.throughputs.resnet50.gradient_bytes: expected an "
		 "integer, got '1.5'");
	ov_error("{\"resnet50\": {}}",
		 "x.json: $.throughputs.resnet50: no figure given (expected "
		 "a gpu type or 'gradient_bytes')");
	ov_error("{\"resnet50\": 3}",
		 "x.json: $.throughputs.resnet50: expected an object of "
		 "figures by GPU type, got number");
	ov_error("{\"resnet50\": {\"v100\": 1}, \"ResNet-50 (batch size "
		 "64)\": {\"k80\": 1}}",
		 "x.json: $.throughputs['ResNet-50 (batch size 64)']: names "
		 "the same job class as 'resnet50' (ResNet-50 (batch size "
		 "64))");
	ov_error("{\"resnet50\": {\"v100\": 1, \"Tesla V100\": 2}}",
		 "x.json: $.throughputs.resnet50['Tesla V100']: names the "
		 "same gpu type as 'v100' (v100)");
}
