/*
 * Job classes and GPU types: spot checks of the generated throughput
 * table against Gavel's JSON (the lines quoted by hand), a full
 * comparison with the JSON read by cJSON where the file is present, name
 * normalisation, the fallbacks, speed ratios, gradient bytes from the
 * papers' figures, and the Tiresias mapping against the trace's models.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "speed/jobclass.h"
#include "base/util.h"

#define V100 JOBCLASS_GPU_V100
#define P100 JOBCLASS_GPU_P100
#define K80 JOBCLASS_GPU_K80

/* Relative comparison: the table holds the JSON's doubles exactly, but
 * a ratio may round. */
static void jc_near(double got, double want, const char *what)
{
	cr_assert(fabs(got - want) <= 1e-12 * fabs(want),
		  "%s: got %.17g want %.17g", what, got, want);
}

static unsigned jc_cls(const char *name)
{
	int i = jobclass_lookup(name);
	cr_assert_gt(i, 0, "class '%s' missing", name);
	return (unsigned)i;
}

static char *jc_trace_path(const char *name)
{
	const char *dir = getenv("CLUSTERSIM_TRACE_DIR");
	char *p = xasprintf("%s/%s", dir && *dir ? dir : "../shared/traces",
			    name);
	if (access(p, R_OK) != 0) {
		free(p);
		return NULL;
	}
	return p;
}

Test(jobclass, resnet50_bs64_spot_values)
{
	unsigned c = jc_cls("ResNet-50 (batch size 64)");

	/* gavel-throughputs.json, section "v100", line 15326:
	 *   "('ResNet-50 (batch size 64)', 1)": { "null": 4.394774823323071, */
	jc_near(jobclass_throughput(c, V100, 1, true), 4.394774823323071,
		"v100 x1");
	/* section "p100", line 8039: "null": 2.6194694075770055 */
	jc_near(jobclass_throughput(c, P100, 1, true), 2.6194694075770055,
		"p100 x1");
	/* section "k80", line 752: "null": 0.6190282202246573 */
	jc_near(jobclass_throughput(c, K80, 1, true), 0.6190282202246573,
		"k80 x1");
	/* section "v100", line 19413, ('ResNet-50 (batch size 64)', 4):
	 *   "null": 9.451949566394442 */
	jc_near(jobclass_throughput(c, V100, 4, true), 9.451949566394442,
		"v100 x4");
	/* section "v100_unconsolidated", line 26700, same key:
	 *   "null": 11.136430014818272 */
	jc_near(jobclass_throughput(c, V100, 4, false), 11.136430014818272,
		"v100 x4 unconsolidated");
	/* One GPU: unconsolidated is the same placement. */
	jc_near(jobclass_throughput(c, V100, 1, false), 4.394774823323071,
		"v100 x1 unconsolidated");
	cr_assert_eq(jobclass_get(c)->family, JOBFAM_RESNET_50);
	cr_assert_eq(jobclass_get(c)->batch, 64);
}

Test(jobclass, other_spot_values)
{
	/* "v100", line 16075: "('A3C', 1)": { "null": 7.175767179667988 */
	jc_near(jobclass_throughput(jc_cls("A3C"), V100, 1, true),
		7.175767179667988, "a3c v100");
	cr_assert_eq(jobclass_get(jc_cls("A3C"))->batch, 0);
	/* "v100", line 21151: "('Transformer (batch size 32)', 8)":
	 *   { "null": 63.97766004389649 */
	jc_near(jobclass_throughput(jc_cls("Transformer (batch size 32)"),
				    V100, 8, true),
		63.97766004389649, "transformer32 v100 x8");
	/* "p100", line 9430: Recommendation 512 x1 48.882390510045944 */
	jc_near(jobclass_throughput(jc_cls("Recommendation (batch size 512)"),
				    P100, 1, true),
		48.882390510045944, "rec512 p100");
}

Test(jobclass, fallbacks)
{
	unsigned r64 = jc_cls("ResNet-50 (batch size 64)");
	unsigned r128 = jc_cls("ResNet-50 (batch size 128)");
	unsigned a3c = jc_cls("A3C");

	/* k80_unconsolidated has no ('ResNet-50 (batch size 64)', 2): the
	 * consolidated "k80" line 3338 figure 1.2636370655757299 is used. */
	jc_near(jobclass_throughput(r64, K80, 2, false), 1.2636370655757299,
		"missing unconsolidated -> consolidated");
	/* "k80", line 3417: ('ResNet-50 (batch size 128)', 2): "null": 0.0
	 * - kept as "cannot run", not replaced by a fallback. */
	cr_assert_eq(jobclass_throughput(r128, K80, 2, true), 0.0);
	cr_assert_eq(jobclass_throughput(r128, K80, 2, false), 0.0);
	/* A3C is measured on one GPU only: x2 = 2 x 7.175767179667988. */
	jc_near(jobclass_throughput(a3c, V100, 2, true), 2 * 7.175767179667988,
		"a3c x2 linear");
	/* Scale 3 is never measured: 3 x the 1-GPU 4.394774823323071. */
	jc_near(jobclass_throughput(r64, V100, 3, true), 3 * 4.394774823323071,
		"scale 3 linear");
	jc_near(jobclass_throughput(r64, V100, 16, false),
		16 * 4.394774823323071, "scale 16 linear");
	/* Bad arguments: NaN, never a crash. */
	cr_assert(isnan(jobclass_throughput(JOB_CLASS_NONE, V100, 1, true)));
	cr_assert(isnan(jobclass_throughput(r64, -1, 1, true)));
	cr_assert(isnan(jobclass_throughput(r64, JOBCLASS_NGPU, 1, true)));
	cr_assert(isnan(jobclass_throughput(r64, V100, 0, true)));
	cr_assert(isnan(jobclass_throughput(jobclass_count(), V100, 1, true)));
	cr_assert_null(jobclass_get(jobclass_count()));
	cr_assert_null(jobclass_get(65535));
}

Test(jobclass, speed_ratios)
{
	unsigned r64 = jc_cls("ResNet-50 (batch size 64)");
	unsigned r128 = jc_cls("ResNet-50 (batch size 128)");

	/* V100 relative to K80, one GPU: 4.394774823323071 /
	 * 0.6190282202246573 = 7.0994... (by hand: 4.3948 / 0.6190 ~ 7.10). */
	jc_near(jobclass_speed(r64, V100, K80, 1, true),
		4.394774823323071 / 0.6190282202246573, "v100/k80");
	cr_assert(fabs(jobclass_speed(r64, V100, K80, 1, true) - 7.0995) <
		  1e-3);
	/* K80 relative to V100 is the inverse. */
	jc_near(jobclass_speed(r64, K80, V100, 1, true),
		0.6190282202246573 / 4.394774823323071, "k80/v100");
	/* Same type: 1. */
	jc_near(jobclass_speed(r64, P100, P100, 4, true), 1.0, "self");
	/* Spread over servers at x4 on V100 against consolidated V100:
	 * 11.136430014818272 / 9.451949566394442. */
	jc_near(jobclass_speed(r64, V100, V100, 4, false),
		11.136430014818272 / 9.451949566394442, "unconsolidated");
	/* Cannot run on K80 x2 at batch 128: speed 0; with K80 as the
	 * reference the ratio is undefined. */
	cr_assert_eq(jobclass_speed(r128, K80, V100, 2, true), 0.0);
	cr_assert(isnan(jobclass_speed(r128, V100, K80, 2, true)));
	/* No class: reference speed everywhere. */
	cr_assert_eq(jobclass_speed(JOB_CLASS_NONE, K80, V100, 1, true), 1.0);
	cr_assert(isnan(jobclass_speed(r64, V100, 7, 1, true)));
	cr_assert(isnan(jobclass_speed(jobclass_count(), V100, K80, 1, true)));
}

Test(jobclass, mapped_classes_use_proxy)
{
	unsigned vgg19 = jc_cls("VGG-19");
	unsigned r64 = jc_cls("ResNet-50 (batch size 64)");

	/* VGG-19 borrows ResNet-50 bs64 x 4.09 / 19.63 (GMACs). */
	jc_near(jobclass_throughput(vgg19, V100, 1, true),
		4.394774823323071 * 4.09 / 19.63, "vgg19 v100");
	/* The factor cancels in a speed ratio. */
	jc_near(jobclass_speed(vgg19, V100, K80, 2, true),
		jobclass_speed(r64, V100, K80, 2, true), "vgg19 speed");
	/* Every mapped class points at a measured class; the index that
	 * jobclass.c hard-codes is ResNet-50 bs64. */
	for (unsigned c = 1; c < jobclass_count(); c++) {
		const struct jobclass *jc = jobclass_get(c);
		if (jc->proxy == JOB_CLASS_NONE)
			continue;
		cr_assert_gt(c, JOBCLASS_NGAVEL);
		cr_assert_str_eq(jobclass_get(jc->proxy)->name,
				 "ResNet-50 (batch size 64)", "%s", jc->name);
		cr_assert_gt(jc->factor, 0);
	}
}

Test(jobclass, every_class_has_v100_x1)
{
	cr_assert_eq(jobclass_count(), 1 + 26 + 9);
	cr_assert_str_eq(jobclass_get(JOB_CLASS_NONE)->name, "none");
	for (unsigned c = 1; c < jobclass_count(); c++) {
		const struct jobclass *jc = jobclass_get(c);
		for (int g = 0; g < JOBCLASS_NGPU_GAVEL; g++) {
			double t = jobclass_throughput(c, g, 1, true);
			cr_assert(isfinite(t) && t > 0, "%s on %s: %g",
				  jc->name, jobclass_gpu_get(g)->name, t);
		}
		cr_assert_gt(jc->family, JOBFAM_NONE);
		cr_assert_lt(jc->family, JOBFAM_COUNT);
		/* Names are unique and found exactly. */
		cr_assert_eq(jobclass_lookup(jc->name), (int)c);
	}
}

Test(jobclass, name_normalisation)
{
	struct sim_error err;
	unsigned r64 = jc_cls("ResNet-50 (batch size 64)");
	unsigned r18 = jc_cls("ResNet-18 (batch size 128)");

	cr_assert_eq(jobclass_find("ResNet-50 (batch size 64)", &err),
		     (int)r64);
	cr_assert_eq(jobclass_find("resnet-50 (BATCH SIZE 64)", &err),
		     (int)r64);
	cr_assert_eq(jobclass_find("resnet50", &err), (int)r64);
	cr_assert_eq(jobclass_find("ResNet-50 bs64", &err), (int)r64);
	cr_assert_eq(jobclass_find("resnet18_bs128", &err), (int)r18);
	cr_assert_eq(jobclass_find("vgg19", &err), jobclass_lookup("VGG-19"));
	cr_assert_eq(jobclass_find("inception3", &err),
		     jobclass_lookup("Inception-v3"));
	cr_assert_eq(jobclass_find("Inception_V4", &err),
		     jobclass_lookup("Inception-v4"));
	cr_assert_eq(jobclass_find("cyclegan", &err),
		     jobclass_lookup("CycleGAN"));
	cr_assert_eq(jobclass_find("lm (batch size 5)", &err),
		     jobclass_lookup("LM (batch size 5)"));
	/* Unknown, ambiguous (no batch), unmeasured batch, empty, NULL. */
	cr_assert_eq(jobclass_find("resnet9000", &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, "unknown job class 'resnet9000'");
	cr_assert_eq(jobclass_find("Transformer", &err), -SIM_EINPUT);
	cr_assert_eq(jobclass_find("ResNet-50 bs48", &err), -SIM_EINPUT);
	cr_assert_eq(jobclass_find("", &err), -SIM_EINPUT);
	cr_assert_eq(jobclass_find("--", NULL), -SIM_EINPUT);
	cr_assert_eq(jobclass_find(NULL, NULL), -SIM_EINPUT);
	char big[300];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cr_assert_eq(jobclass_find(big, NULL), -SIM_EINPUT);
	cr_assert_eq(jobclass_lookup("resnet50"), -1);
	cr_assert_eq(jobclass_lookup(NULL), -1);
}

Test(jobclass, gpu_names)
{
	struct sim_error err;

	cr_assert_eq(jobclass_gpu_lookup("v100", &err), V100);
	cr_assert_eq(jobclass_gpu_lookup("V100", &err), V100);
	cr_assert_eq(jobclass_gpu_lookup("Tesla V100-SXM2-16GB", &err), V100);
	cr_assert_eq(jobclass_gpu_lookup("NVIDIA Tesla K80", &err), K80);
	/* The Alibaba openb node list writes V100M16, V100M32, P100. */
	cr_assert_eq(jobclass_gpu_lookup("V100M32", &err), V100);
	cr_assert_eq(jobclass_gpu_lookup("P100", &err), P100);
	cr_assert_eq(jobclass_gpu_lookup("p100-pcie-12gb", &err), P100);
	/* T4: a type of its own (the Pollux artifact's), with no figure
	 * for Gavel's classes. */
	cr_assert_eq(jobclass_gpu_lookup("T4", &err), JOBCLASS_GPU_T4);
	cr_assert_eq(jobclass_gpu_lookup("Tesla T4", NULL), JOBCLASS_GPU_T4);
	cr_assert_eq(jobclass_gpu_lookup("t4-16gb", NULL), JOBCLASS_GPU_T4);
	cr_assert_str_eq(jobclass_gpu_get(JOBCLASS_GPU_T4)->name, "t4");
	cr_assert_eq(jobclass_gpu_get(JOBCLASS_GPU_T4)->mem_gb, 16);
	cr_assert(isnan(jobclass_throughput(jc_cls("ResNet-50 (batch size "
						   "64)"), JOBCLASS_GPU_T4,
					    1, true)));
	cr_assert(isnan(jobclass_coloc_speed(1, 2, JOBCLASS_GPU_T4, 1)));
	cr_assert_eq(jobclass_gpu_lookup("T40", &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, "unknown gpu type 'T40'");
	cr_assert_eq(jobclass_gpu_lookup("p1000", &err), -SIM_EINPUT);
	cr_assert_eq(jobclass_gpu_lookup("a100", NULL), -SIM_EINPUT);
	cr_assert_eq(jobclass_gpu_lookup(NULL, NULL), -SIM_EINPUT);
	cr_assert_eq(jobclass_gpu_lookup("", NULL), -SIM_EINPUT);
	/* Memory from the data sheets: 12 GB per K80 GPU, 16 GB others. */
	cr_assert_eq(jobclass_gpu_get(K80)->mem_gb, 12);
	cr_assert_eq(jobclass_gpu_get(P100)->mem_gb, 16);
	cr_assert_eq(jobclass_gpu_get(V100)->mem_gb, 16);
	cr_assert_null(jobclass_gpu_get(JOBCLASS_NGPU));
	cr_assert_null(jobclass_gpu_get(-1));
	for (int g = 0; g < JOBCLASS_NGPU; g++)
		cr_assert(jobclass_gpu_get(g)->source &&
			  *jobclass_gpu_get(g)->source);
}

Test(jobclass, gradient_bytes)
{
	/* ResNet-50: 25,557,032 parameters (torchvision; the paper's
	 * 25.6M) x 4 bytes = 102,228,128 bytes = 102.2 MB. */
	cr_assert_eq(jobclass_grad_bytes(jc_cls("ResNet-50 (batch size 64)")),
		     102228128u);
	cr_assert_eq(jobclass_grad_bytes(jc_cls("ResNet-50 (batch size 16)")),
		     102228128u);
	/* VGG-19 (mapped class): 143,667,240 x 4 = 574,668,960. */
	cr_assert_eq(jobclass_grad_bytes(jc_cls("VGG-19")), 574668960u);
	/* LM: 33278*200 + 2*4*(200*200*2 + 2*200) + 200*33278 + 33278
	 *   = 6,655,600 + 643,200 + 6,688,878 = 13,987,678 params. */
	cr_assert_eq(jobclass_grad_bytes(jc_cls("LM (batch size 20)")),
		     4u * (33278u * 200 + 2 * 4 * (200 * 200 * 2 + 2 * 200) +
			   200 * 33278u + 33278));
	/* BERT-large 340M and GPT-2 1542M (the papers' figures). */
	cr_assert_eq(jobclass_family_grad_bytes(JOBFAM_BERT_LARGE),
		     1360000000ull);
	cr_assert_eq(jobclass_family_grad_bytes(JOBFAM_GPT_2),
		     6168000000ull);
	cr_assert_eq(jobclass_family_find("bert-large"), JOBFAM_BERT_LARGE);
	cr_assert_eq(jobclass_family_find("gpt2"), JOBFAM_GPT_2);
	cr_assert_eq(jobclass_family_find("inception3"), JOBFAM_INCEPTION_V3);
	cr_assert_eq(jobclass_family_find("ResNet-50 (batch size 32)"),
		     JOBFAM_RESNET_50);
	cr_assert_eq(jobclass_family_find("nope"), -1);
	/* Unknown: no class, no family, the unsourced recommendation
	 * model. */
	cr_assert_eq(jobclass_grad_bytes(JOB_CLASS_NONE), 0);
	cr_assert_eq(jobclass_grad_bytes(jobclass_count()), 0);
	cr_assert_eq(jobclass_family_grad_bytes(JOBFAM_COUNT), 0);
	cr_assert_eq(jobclass_family_grad_bytes(JOBFAM_RECOMMENDATION), 0);
	for (unsigned f = 0; f < JOBFAM_COUNT; f++) {
		const struct jobclass_family_info *fi = jobclass_family_get(f);
		cr_assert(fi && fi->name && fi->source && *fi->source);
		if (f != JOBFAM_NONE)
			cr_assert_eq(jobclass_family_find(fi->name), (int)f);
	}
}

/* Every model_name of tiresias-60job.csv (5th column) is in the explicit
 * mapping table and resolves to a class. */
Test(jobclass, tiresias_mapping_covers_trace)
{
	char *path = jc_trace_path("gpu/tiresias-60job.csv");
	char line[512];
	FILE *f;
	int rows = 0;

	if (!path)
		cr_skip_test("gpu/tiresias-60job.csv not in "
			     "$CLUSTERSIM_TRACE_DIR");
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(line, sizeof(line), f)); /* header */
	cr_assert(strncmp(line, "job_id,num_gpu,submit_time,iterations,"
			  "model_name,", 44) == 0, "header: %s", line);
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *model;
		bool listed = false;

		for (int col = 0; col < 4 && p; col++) {
			p = strchr(p, ',');
			if (p)
				p++;
		}
		cr_assert_not_null(p, "short line: %s", line);
		model = p;
		p = strchr(model, ',');
		cr_assert_not_null(p);
		*p = '\0';
		for (size_t a = 0; a < jobclass_alias_count(); a++)
			if (strcmp(jobclass_alias_get(a)->spelling, model) == 0)
				listed = true;
		cr_assert(listed, "model '%s' not in the mapping table", model);
		cr_assert_gt(jobclass_find(model, NULL), 0, "%s", model);
		rows++;
	}
	fclose(f);
	free(path);
	cr_assert_eq(rows, 60);
	/* The mapping table itself: ten models, each naming a class. */
	cr_assert_eq(jobclass_alias_count(), 10);
	cr_assert_null(jobclass_alias_get(10));
	for (size_t a = 0; a < jobclass_alias_count(); a++)
		cr_assert_gt(jobclass_lookup(jobclass_alias_get(a)->cls), 0);
}

/* Compares one table cell with the JSON's "null" figure (NaN when the
 * key is absent); 1 when the JSON has the figure. */
static int jc_json_check(const cJSON *root, unsigned c, const char *sect,
			 int g, int s, int u)
{
	const struct jobclass *jc = jobclass_get(c);
	char *key = xasprintf("('%s', %d)", jc->name, 1 << s);
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(root, sect), key);
	const cJSON *nul = cJSON_GetObjectItemCaseSensitive(e, "null");
	double t = jc->thr[g][s][u];

	if (nul) {
		cr_assert(cJSON_IsNumber(nul));
		cr_assert_eq(t, nul->valuedouble, "%s %s", sect, key);
	} else {
		cr_assert(isnan(t), "%s %s: %g", sect, key, t);
	}
	free(key);
	return nul != NULL;
}

/* The whole generated table against the JSON read a second way (cJSON):
 * every class, GPU type, scale and placement. */
Test(jobclass, generated_table_matches_json)
{
	char *path = jc_trace_path("gpu/gavel-throughputs.json");
	static const char *const sect[2][JOBCLASS_NGPU_GAVEL] = {
		{ "k80", "p100", "v100" },
		{ "k80_unconsolidated", "p100_unconsolidated",
		  "v100_unconsolidated" },
	};
	char *text;
	size_t len, cap = 1 << 21;
	FILE *f;
	cJSON *root;
	int seen = 0, present = 0;

	if (!path)
		cr_skip_test("gpu/gavel-throughputs.json not in "
			     "$CLUSTERSIM_TRACE_DIR");
	f = fopen(path, "rb");
	cr_assert_not_null(f);
	text = xmalloc(cap);
	len = fread(text, 1, cap - 1, f);
	cr_assert_lt(len, cap - 1, "file grew: raise cap");
	text[len] = '\0';
	fclose(f);
	root = cJSON_Parse(text);
	cr_assert_not_null(root);
	/* Cell n: class, placement, GPU type, scale in mixed radix. */
	int cells = JOBCLASS_NGAVEL * 2 * JOBCLASS_NGPU_GAVEL *
		    JOBCLASS_NSCALE;

	for (int n = 0; n < cells; n++) {
		int s = n % JOBCLASS_NSCALE;
		int g = n / JOBCLASS_NSCALE % JOBCLASS_NGPU_GAVEL;
		int u = n / (JOBCLASS_NSCALE * JOBCLASS_NGPU_GAVEL) % 2;
		unsigned c = 1 + (unsigned)(n / (JOBCLASS_NSCALE *
						 JOBCLASS_NGPU_GAVEL * 2));

		present += jc_json_check(root, c, sect[u][g], g, s, u);
		seen++;
	}
	/* 83 configurations x 3 consolidated + 77 + 83 + 83 unconsolidated
	 * entries (k80_unconsolidated lacks 6). */
	cr_assert_eq(present, 83 * 3 + 83 * 2 + 77);
	cr_assert_eq(seen, 26 * 2 * 3 * 4);
	cJSON_Delete(root);
	free(text);
	free(path);
}
