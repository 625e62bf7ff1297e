/*
 * The built-in GPU types and their data-sheet figures (jobclass_gpu.h).
 *
 * One row per GPU model, each with the data sheet it comes from.  Peak
 * FLOP/s are dense (NVIDIA's newer sheets print the 2:4-sparsity figure,
 * twice the dense one, with an asterisk; the dense half is taken here),
 * at boost clock.  A board of two GPUs (K80) is split into its two GPUs,
 * as Gavel and the clouds count them.  Where a product comes in several
 * form factors the row names the one taken and why.  Only the first three
 * types have measured throughputs of Gavel's job classes; the speed of a
 * class on any other is derived from these figures (jobclass_override.h)
 * and marked as derived.
 */
#include "speed/jobclass_gpu.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"

static const struct jobclass_gpu_info gpu_table[JOBCLASS_NGPU] = {
	[JOBCLASS_GPU_K80] = {
		.name = "k80",
		.model = "NVIDIA Tesla K80 (one GK210 of the board)",
		.mem_gb = 12, .fp32_tflops = 4.365, .fp16_tflops = 4.365,
		.memory_GBps = 240, .nvlink_GBps = 0,
		.source = "NVIDIA Tesla K80 data sheet: per board of 2 GPUs "
			  "8.73 TFLOP/s FP32 (boost), 24 GB GDDR5, 480 GB/s; "
			  "no faster FP16 path; throughputs: Gavel OSDI'20 "
			  "artifact (measured)",
	},
	[JOBCLASS_GPU_P100] = {
		.name = "p100",
		.model = "NVIDIA Tesla P100 PCIe 16GB",
		.mem_gb = 16, .fp32_tflops = 9.3, .fp16_tflops = 18.7,
		.memory_GBps = 732, .nvlink_GBps = 0,
		.source = "NVIDIA Tesla P100 data sheet, PCIe 16 GB (the "
			  "clouds' part; SXM2: 10.6 / 21.2 TFLOP/s, NVLink "
			  "160 GB/s; a 12 GB PCIe part has 549 GB/s); "
			  "throughputs: Gavel OSDI'20 artifact (measured)",
	},
	[JOBCLASS_GPU_V100] = {
		.name = "v100",
		.model = "NVIDIA Tesla V100 SXM2 16GB",
		.mem_gb = 16, .fp32_tflops = 15.7, .fp16_tflops = 125,
		.memory_GBps = 900, .nvlink_GBps = 300,
		.source = "NVIDIA Tesla V100 data sheet, SXM2 (PCIe: 14 / "
			  "112 TFLOP/s, no NVLink; a 32 GB part exists); "
			  "throughputs: Gavel OSDI'20 artifact (measured)",
	},
	[JOBCLASS_GPU_T4] = {
		.name = "t4",
		.model = "NVIDIA T4",
		.mem_gb = 16, .fp32_tflops = 8.1, .fp16_tflops = 65,
		.memory_GBps = 320, .nvlink_GBps = 0,
		.source = "NVIDIA T4 data sheet (16 GB GDDR6, 320 GB/s); "
			  "measured step times of the Pollux OSDI'21 "
			  "artifact's six applications (goodput.h); Gavel's "
			  "classes: derived",
	},
	[JOBCLASS_GPU_A10] = {
		.name = "a10",
		.model = "NVIDIA A10",
		.mem_gb = 24, .fp32_tflops = 31.2, .fp16_tflops = 125,
		.memory_GBps = 600, .nvlink_GBps = 0,
		.source = "NVIDIA A10 data sheet (24 GB GDDR6, 600 GB/s; "
			  "BF16/FP16 tensor 125 dense, 250 sparse); Gavel's "
			  "classes: derived",
	},
	[JOBCLASS_GPU_A100_40GB] = {
		.name = "a100-40gb",
		.model = "NVIDIA A100 SXM4 40GB",
		.mem_gb = 40, .fp32_tflops = 19.5, .fp16_tflops = 312,
		.memory_GBps = 1555, .nvlink_GBps = 600,
		.source = "NVIDIA A100 data sheet, SXM4 40 GB HBM2 (1,555 "
			  "GB/s; BF16/FP16 tensor 312 dense, 624 sparse; "
			  "NVLink 600 GB/s); Gavel's classes: derived",
	},
	[JOBCLASS_GPU_A100_80GB] = {
		.name = "a100-80gb",
		.model = "NVIDIA A100 SXM4 80GB",
		.mem_gb = 80, .fp32_tflops = 19.5, .fp16_tflops = 312,
		.memory_GBps = 2039, .nvlink_GBps = 600,
		.source = "NVIDIA A100 data sheet, SXM4 80 GB HBM2e (2,039 "
			  "GB/s; BF16/FP16 tensor 312 dense; NVLink 600 "
			  "GB/s); Gavel's classes: derived",
	},
	[JOBCLASS_GPU_H100] = {
		.name = "h100",
		.model = "NVIDIA H100 SXM5 80GB",
		.mem_gb = 80, .fp32_tflops = 67, .fp16_tflops = 989.4,
		.memory_GBps = 3350, .nvlink_GBps = 900,
		.source = "NVIDIA H100 data sheet, SXM (80 GB HBM3, 3.35 "
			  "TB/s; BF16/FP16 tensor 1,979 with sparsity, so "
			  "989.4 dense; NVLink 900 GB/s; the PCIe and NVL "
			  "parts are slower); Gavel's classes: derived",
	},
	[JOBCLASS_GPU_H200] = {
		.name = "h200",
		.model = "NVIDIA H200 SXM 141GB",
		.mem_gb = 141, .fp32_tflops = 67, .fp16_tflops = 989.4,
		.memory_GBps = 4800, .nvlink_GBps = 900,
		.source = "NVIDIA H200 data sheet, SXM (141 GB HBM3e, 4.8 "
			  "TB/s; BF16/FP16 tensor 1,979 with sparsity, so "
			  "989.4 dense; NVLink 900 GB/s); Gavel's classes: "
			  "derived",
	},
	[JOBCLASS_GPU_L40S] = {
		.name = "l40s",
		.model = "NVIDIA L40S",
		.mem_gb = 48, .fp32_tflops = 91.6, .fp16_tflops = 362.05,
		.memory_GBps = 864, .nvlink_GBps = 0,
		.source = "NVIDIA L40S data sheet (48 GB GDDR6, 864 GB/s; "
			  "BF16/FP16 tensor 362.05 dense, 733 sparse; no "
			  "NVLink); Gavel's classes: derived",
	},
};
static_assert(ARRAY_SIZE(gpu_table) == JOBCLASS_NGPU, "gpu table size");

size_t jobclass_gpu_count(void)
{
	return JOBCLASS_NGPU;
}

const struct jobclass_gpu_info *jobclass_gpu_at(size_t i)
{
	return i < JOBCLASS_NGPU ? &gpu_table[i] : NULL;
}

bool jobclass_same_name(const char *a, const char *b)
{
	for (;;) {
		while (*a && !isalnum((unsigned char)*a))
			a++;
		while (*b && !isalnum((unsigned char)*b))
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
		a++;
		b++;
	}
}

int jobclass_gpu_find(const char *name)
{
	if (!name)
		return -1;
	for (int g = 0; g < JOBCLASS_NGPU; g++)
		if (jobclass_same_name(name, gpu_table[g].name))
			return g;
	return -1;
}

void jobclass_gpu_names(char *buf, size_t cap)
{
	size_t n = 0;
	if (!cap)
		return;
	buf[0] = '\0';
	for (int g = 0; g < JOBCLASS_NGPU && n < cap; g++) {
		int k = snprintf(buf + n, cap - n, "%s%s", g ? ", " : "",
				 gpu_table[g].name);
		if (k < 0)
			break;
		n += (size_t)k;
	}
}

double jobclass_gpu_peak_flops(const struct jobclass_gpu_info *t)
{
	return t->fp16_tflops * 1e12;
}

double jobclass_gpu_mem_bytes(const struct jobclass_gpu_info *t)
{
	return t->mem_gb * 1e9;
}

double jobclass_gpu_nvlink_Bps(const struct jobclass_gpu_info *t)
{
	return t->nvlink_GBps * 1e9;
}
