/*
 * Job classes and GPU types: lookups and the hand-written tables.
 *
 * The measured classes (Gavel's 26 configurations) are generated into
 * jobclass_table.c and the GPU types are jobclass_gpu.c's; this file
 * holds the lookups and what else is written by hand, each figure with
 * its source: the model families' parameter counts (which fix the
 * gradient bytes that a data-parallel step all-reduces), and the classes for models that Gavel did not measure, each mapped to
 * the closest measured class.  docs/gpu-models.md explains every choice.
 *
 * Class index space: 0 = JOB_CLASS_NONE, 1 .. JOBCLASS_NGAVEL = the
 * generated table, then the mapped classes.  All tables are const.
 */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "speed/jobclass.h"
#include "base/util.h"

/*
 * Model families: trainable parameters (fp32, so gradient bytes = 4 x
 * params).  Exact counts where a model summary gives them; the papers'
 * rounded figures agree (ResNet-50 25.6M, VGG-16 138M, AlexNet 60M ...).
 */
static const struct jobclass_family_info family_table[JOBFAM_COUNT] = {
	[JOBFAM_NONE] = { "none", 0, "no model" },
	[JOBFAM_RESNET_18] = { "ResNet-18", 11173962,
		"CIFAR-10 ResNet-18 (kuangliu/pytorch-cifar ResNet18, which "
		"Gavel's cifar10/main.py builds); He et al., CVPR'16. The "
		"ImageNet ResNet-18 has 11,689,512 (torchvision)" },
	[JOBFAM_RESNET_50] = { "ResNet-50", 25557032,
		"torchvision resnet50 summary (25.6M); He et al., CVPR'16" },
	[JOBFAM_TRANSFORMER] = { "Transformer", 65e6,
		"Vaswani et al., NeurIPS'17, Table 3, base model 65M (WMT "
		"vocabulary); Gavel's Multi30k vocabulary is smaller, so this "
		"is an upper bound" },
	[JOBFAM_LM] = { "LM", 13987678,
		"derived: Gavel's language_modeling (PyTorch word_language_"
		"model) defaults, 2-layer LSTM, emsize = nhid = 200, untied, "
		"Wikitext-2 vocabulary 33,278: 6,655,600 embedding + 643,200 "
		"LSTM + 6,688,878 decoder" },
	[JOBFAM_RECOMMENDATION] = { "Recommendation", 0,
		"unknown: Gavel's recoder DynamicAutoencoder([200]) has "
		"2 x 200 x N + N + 200 parameters for N items or users of "
		"ML-20M, and which N it is was not settled; Gavel measured it "
		"on one GPU only" },
	[JOBFAM_A3C] = { "A3C", 3249639,
		"derived: the A3C-LSTM of dgriff777/rl_a3c_pytorch that "
		"Gavel's rl/ runs (4 convs, LSTMCell(1024, 512), 6 Pong "
		"actions); Gavel measured it on one GPU only" },
	[JOBFAM_CYCLEGAN] = { "CycleGAN", 28286000,
		"Zhu et al., ICCV'17; official code's summary: 2 generators "
		"x 11.378M + 2 PatchGAN discriminators x 2.765M" },
	[JOBFAM_RESNET_101] = { "ResNet-101", 44549160,
		"torchvision resnet101 summary (44.5M); He et al., CVPR'16" },
	[JOBFAM_RESNET_152] = { "ResNet-152", 60192808,
		"torchvision resnet152 summary (60.2M); He et al., CVPR'16" },
	[JOBFAM_VGG_11] = { "VGG-11", 132863336,
		"torchvision vgg11 summary; Simonyan & Zisserman, ICLR'15, "
		"Table 2: 133M" },
	[JOBFAM_VGG_16] = { "VGG-16", 138357544,
		"torchvision vgg16 summary; Simonyan & Zisserman, ICLR'15, "
		"Table 2: 138M" },
	[JOBFAM_VGG_19] = { "VGG-19", 143667240,
		"torchvision vgg19 summary; Simonyan & Zisserman, ICLR'15, "
		"Table 2: 144M" },
	[JOBFAM_ALEXNET] = { "AlexNet", 61100840,
		"torchvision alexnet summary; Krizhevsky et al., NIPS'12: "
		"60M" },
	[JOBFAM_GOOGLENET] = { "GoogLeNet", 6624904,
		"torchvision googlenet summary (6.6M, no auxiliary heads); "
		"Szegedy et al., CVPR'15" },
	[JOBFAM_INCEPTION_V3] = { "Inception-v3", 27161264,
		"torchvision inception_v3 summary (27.2M, with the auxiliary "
		"head that training uses); Szegedy et al., CVPR'16" },
	[JOBFAM_INCEPTION_V4] = { "Inception-v4", 42679816,
		"timm inception_v4 model card (42.7M); Szegedy et al., "
		"AAAI'17" },
	[JOBFAM_BERT_LARGE] = { "BERT-large", 340e6,
		"Devlin et al., NAACL'19: BERT-large, 24 layers, H = 1024, "
		"340M" },
	[JOBFAM_GPT_2] = { "GPT-2", 1542e6,
		"Radford et al., 2019, Table 2: the 48-layer model the paper "
		"calls GPT-2, 1542M (the small 117M one is not this)" },
};
static_assert(ARRAY_SIZE(family_table) == JOBFAM_COUNT, "family table");

/*
 * Classes for models that Gavel did not measure (the Tiresias trace's
 * CNNs).  Each borrows the throughputs of ResNet-50 (batch size 64), the
 * only ImageNet CNN that Gavel measured (its ResNet-18 runs on 32x32
 * CIFAR-10 images, a very different load).  The factor is the ratio of
 * forward multiply-adds per image, ResNet-50 / model (torchvision's
 * GFLOPS column; timm's for Inception-v4), so absolute steps/s shrink
 * with model cost; a speed ratio between GPU types does not depend on
 * it.  The batch size is not in the trace: 64 is assumed.
 */
#define R50_GMAC 4.09
/* Index of "ResNet-50 (batch size 64)": 5 ResNet-18 classes, then
 * ResNet-50 at 16, 32, 64 (the generator's order; a test checks it). */
#define CLASS_R50_BS64 8
#define MAPPED(nm, fam, gmac)                                               \
	{                                                                   \
		.name = (nm), .family = (fam), .batch = 64,                 \
		.proxy = CLASS_R50_BS64, .factor = R50_GMAC / (gmac),       \
	}

static const struct jobclass mapped_table[] = {
	MAPPED("ResNet-101", JOBFAM_RESNET_101, 7.80),
	MAPPED("ResNet-152", JOBFAM_RESNET_152, 11.51),
	MAPPED("VGG-11", JOBFAM_VGG_11, 7.61),
	MAPPED("VGG-16", JOBFAM_VGG_16, 15.47),
	MAPPED("VGG-19", JOBFAM_VGG_19, 19.63),
	MAPPED("AlexNet", JOBFAM_ALEXNET, 0.71),
	MAPPED("GoogLeNet", JOBFAM_GOOGLENET, 1.50),
	MAPPED("Inception-v3", JOBFAM_INCEPTION_V3, 5.71),
	MAPPED("Inception-v4", JOBFAM_INCEPTION_V4, 12.28),
};
#undef MAPPED
#define NMAPPED ARRAY_SIZE(mapped_table)
#define PROXY_R50 "ResNet-50 (batch size 64)"

/* The explicit trace-name mapping (every model of tiresias-60job.csv). */
static const struct jobclass_alias alias_table[] = {
	{ "resnet50", PROXY_R50,
	  "measured by Gavel; batch 64 assumed (not in the trace)" },
	{ "resnet101", "ResNet-101", "ResNet-50 (batch size 64) x 4.09/7.80" },
	{ "resnet152", "ResNet-152",
	  "ResNet-50 (batch size 64) x 4.09/11.51" },
	{ "vgg11", "VGG-11", "ResNet-50 (batch size 64) x 4.09/7.61" },
	{ "vgg16", "VGG-16", "ResNet-50 (batch size 64) x 4.09/15.47" },
	{ "vgg19", "VGG-19", "ResNet-50 (batch size 64) x 4.09/19.63" },
	{ "alexnet", "AlexNet", "ResNet-50 (batch size 64) x 4.09/0.71" },
	{ "googlenet", "GoogLeNet", "ResNet-50 (batch size 64) x 4.09/1.50" },
	{ "inception3", "Inception-v3",
	  "ResNet-50 (batch size 64) x 4.09/5.71" },
	{ "inception4", "Inception-v4",
	  "ResNet-50 (batch size 64) x 4.09/12.28" },
};

/* Index 0: no class. */
static const struct jobclass class_none = {
	.name = "none",
	.family = JOBFAM_NONE,
};

/* Longest normalised name we compare; longer input never matches. */
#define KEY_MAX 96

/*
 * Normalises a spelling: lower case, letters and digits only.  Returns
 * false when it does not fit (such a name matches nothing).
 */
static bool norm_key(const char *s, char *key, size_t cap)
{
	size_t n = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (!isalnum(c))
			continue;
		if (n + 1 >= cap)
			return false;
		key[n++] = (char)tolower(c);
	}
	key[n] = '\0';
	return true;
}

static bool key_eq(const char *name, const char *key)
{
	char k[KEY_MAX];
	return norm_key(name, k, sizeof(k)) && strcmp(k, key) == 0;
}

size_t jobclass_alias_count(void)
{
	return ARRAY_SIZE(alias_table);
}

const struct jobclass_alias *jobclass_alias_get(size_t i)
{
	return i < ARRAY_SIZE(alias_table) ? &alias_table[i] : NULL;
}

unsigned jobclass_count(void)
{
	return 1 + JOBCLASS_NGAVEL + (unsigned)NMAPPED;
}

int jobclass_lookup(const char *name)
{
	unsigned n = jobclass_count();

	if (!name)
		return -1;
	for (unsigned i = 1; i < n; i++)
		if (strcmp(jobclass_get(i)->name, name) == 0)
			return (int)i;
	return -1;
}


const struct jobclass *jobclass_get(unsigned cls)
{
	if (cls == JOB_CLASS_NONE)
		return &class_none;
	if (cls <= JOBCLASS_NGAVEL)
		return &jobclass_gavel[cls - 1];
	if (cls - 1 - JOBCLASS_NGAVEL < NMAPPED)
		return &mapped_table[cls - 1 - JOBCLASS_NGAVEL];
	return NULL;
}

/* "bs64" or "batchsize64" after a family key: the batch size, or 0. */
static uint32_t batch_suffix(const char *rest)
{
	unsigned long v;
	char *end;

	if (strncmp(rest, "batchsize", 9) == 0)
		rest += 9;
	else if (strncmp(rest, "bs", 2) == 0)
		rest += 2;
	else
		return 0;
	if (!isdigit((unsigned char)*rest))
		return 0;
	v = strtoul(rest, &end, 10);
	if (*end || v == 0 || v > UINT32_MAX)
		return 0;
	return (uint32_t)v;
}

int jobclass_find(const char *spelling, struct sim_error *err)
{
	char key[KEY_MAX], fam[KEY_MAX];
	unsigned n = jobclass_count();
	int i;

	if (!spelling)
		return err_set(err, "unknown job class '(null)'");
	i = jobclass_lookup(spelling);
	if (i > 0)
		return i;
	if (!norm_key(spelling, key, sizeof(key)) || !*key)
		goto unknown;
	for (unsigned c = 1; c < n; c++)
		if (key_eq(jobclass_get(c)->name, key))
			return (int)c;
	for (size_t a = 0; a < ARRAY_SIZE(alias_table); a++)
		if (key_eq(alias_table[a].spelling, key))
			return jobclass_lookup(alias_table[a].cls);
	for (unsigned c = 1; c < n; c++) {
		const struct jobclass *jc = jobclass_get(c);
		size_t len;

		if (!jc->batch)
			continue;
		norm_key(family_table[jc->family].name, fam, sizeof(fam));
		len = strlen(fam);
		if (strncmp(key, fam, len) == 0 &&
		    batch_suffix(key + len) == jc->batch)
			return (int)c;
	}
unknown:
	return err_set(err, "unknown job class '%s'", spelling);
}

const struct jobclass_gpu_info *jobclass_gpu_get(int gpu)
{
	return gpu < 0 ? NULL : jobclass_gpu_at((size_t)gpu);
}

/* What may follow a GPU name: "sxm2", "pcie", "m32" (memory, as the
 * Alibaba trace writes it), "16gb" / "16g", in any order. */
static bool gpu_suffix_ok(const char *s)
{
	while (*s) {
		if (strncmp(s, "sxm", 3) == 0) {
			s += 3;
			if (isdigit((unsigned char)*s))
				s++;
		} else if (strncmp(s, "pcie", 4) == 0) {
			s += 4;
		} else if (*s == 'm' && isdigit((unsigned char)s[1])) {
			for (s++; isdigit((unsigned char)*s); s++)
				;
		} else if (isdigit((unsigned char)*s)) {
			while (isdigit((unsigned char)*s))
				s++;
			if (*s != 'g')
				return false;
			s++;
			if (*s == 'b')
				s++;
		} else {
			return false;
		}
	}
	return true;
}

int jobclass_gpu_lookup(const char *name, struct sim_error *err)
{
	char key[KEY_MAX];
	const char *k = key;

	if (!name)
		return err_set(err, "unknown gpu type '(null)'");
	if (!norm_key(name, key, sizeof(key)))
		goto unknown;
	if (strncmp(k, "nvidia", 6) == 0)
		k += 6;
	if (strncmp(k, "tesla", 5) == 0)
		k += 5;
	/* An exact name first: "a10" is a prefix of "a100-40gb". */
	int g = jobclass_gpu_find(k);
	if (g >= 0)
		return g;
	for (g = 0; g < JOBCLASS_NGPU; g++) {
		char nk[KEY_MAX];
		size_t len;

		norm_key(jobclass_gpu_at((size_t)g)->name, nk, sizeof(nk));
		len = strlen(nk);
		if (strncmp(k, nk, len) == 0 && gpu_suffix_ok(k + len))
			return g;
	}
unknown:
	return err_set(err, "unknown gpu type '%s'", name);
}

const struct jobclass_family_info *jobclass_family_get(unsigned fam)
{
	return fam < JOBFAM_COUNT ? &family_table[fam] : NULL;
}

int jobclass_family_find(const char *name)
{
	char key[KEY_MAX];
	int c;

	if (!name || !norm_key(name, key, sizeof(key)) || !*key)
		return -1;
	for (unsigned f = 1; f < JOBFAM_COUNT; f++)
		if (key_eq(family_table[f].name, key))
			return (int)f;
	c = jobclass_find(name, NULL);
	return c > 0 ? (int)jobclass_get((unsigned)c)->family : -1;
}

uint64_t jobclass_family_grad_bytes(unsigned fam)
{
	if (fam >= JOBFAM_COUNT)
		return 0;
	return (uint64_t)family_table[fam].params * 4;
}

uint64_t jobclass_grad_bytes(unsigned cls)
{
	const struct jobclass *c = jobclass_get(cls);
	return c ? jobclass_family_grad_bytes(c->family) : 0;
}

/* log2(scale) for a measured scale, else -1. */
static int scale_index(unsigned scale)
{
	for (int i = 0; i < JOBCLASS_NSCALE; i++)
		if (scale == 1u << i)
			return i;
	return -1;
}

/* A measured class's figure with the documented fallbacks. */
static double measured_thr(const struct jobclass *c, int gpu,
			   unsigned scale, bool consolidated)
{
	int si = scale_index(scale);
	double v = NAN;

	if (si >= 0) {
		v = c->thr[gpu][si][consolidated ? 0 : 1];
		if (isnan(v) && !consolidated)
			v = c->thr[gpu][si][0];
	}
	if (isnan(v))
		v = c->thr[gpu][0][0] * (double)scale;
	return v;
}

double jobclass_throughput(unsigned cls, int gpu, unsigned scale,
			   bool consolidated)
{
	const struct jobclass *c = jobclass_get(cls);
	const struct jobclass *p;

	if (!c || cls == JOB_CLASS_NONE || gpu < 0 ||
	    gpu >= JOBCLASS_NGPU_GAVEL || scale == 0)
		return NAN;
	if (c->proxy == JOB_CLASS_NONE)
		return measured_thr(c, gpu, scale, consolidated);
	p = jobclass_get(c->proxy);
	SIM_ASSERT(p && p->proxy == JOB_CLASS_NONE);
	return measured_thr(p, gpu, scale, consolidated) * c->factor;
}

double jobclass_speed(unsigned cls, int gpu, int ref, unsigned scale,
		      bool consolidated)
{
	double t, r;

	if (cls >= jobclass_count() || gpu < 0 || gpu >= JOBCLASS_NGPU ||
	    ref < 0 || ref >= JOBCLASS_NGPU || scale == 0)
		return NAN;
	if (cls == JOB_CLASS_NONE)
		return 1.0;
	t = jobclass_throughput(cls, gpu, scale, consolidated);
	r = jobclass_throughput(cls, ref, scale, true);
	if (isnan(t) || isnan(r) || r <= 0)
		return NAN;
	return t / r;
}

/* The measured class whose figures cls uses (itself, or its proxy). */
static unsigned measured_class(unsigned cls)
{
	const struct jobclass *c = jobclass_get(cls);
	return c->proxy == JOB_CLASS_NONE ? cls : c->proxy;
}

double jobclass_coloc_speed(unsigned a, unsigned b, int gpu, unsigned scale)
{
	if (a == JOB_CLASS_NONE || b == JOB_CLASS_NONE ||
	    a >= jobclass_count() || b >= jobclass_count() || gpu < 0 ||
	    gpu >= JOBCLASS_NGPU_GAVEL)
		return NAN;
	unsigned ma = measured_class(a), mb = measured_class(b);
	if (ma > JOBCLASS_NGAVEL || mb > JOBCLASS_NGAVEL)
		return NAN;
	for (unsigned k = 0; k < JOBCLASS_NSCALE; k++) {
		if (scale != 1u << k)
			continue;
		float f = jobclass_coloc[gpu][k][ma - 1][mb - 1];
		return f < 0 ? NAN : (double)f;
	}
	return NAN;
}
