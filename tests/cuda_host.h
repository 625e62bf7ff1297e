/*
 * A stand-in for the part of the CUDA runtime that sim/eval/eval_cuda.cu uses,
 * so that the same file, compiled by the host C++ compiler with
 * -DEVAL_CUDA_HOST, runs its kernels on the calling thread: every
 * (block, thread) of a launch in turn, each seeing its own blockIdx and
 * threadIdx.  The test suite links this build into a second runner and
 * runs the CPU-vs-CUDA parity tests against it, so the backend's own
 * code - scratch strides, grid-stride loops, the population's double
 * buffers, the copies between host and "device" - is exercised on every
 * machine, device or not.  What it cannot check is nvcc's code for the
 * device itself; `make gpu-check` does that where a GPU is present.
 *
 * Sequential execution is a faithful model here only because the
 * kernels share nothing between threads (no shared memory, no atomics,
 * no barriers): each writes its own candidates and scratch.  Fresh
 * "device" memory is filled with a byte pattern, not zeros, so a kernel
 * that reads scratch before writing it sees garbage, as on a GPU.
 */
#ifndef CLUSTERSIM_CUDA_HOST_H
#define CLUSTERSIM_CUDA_HOST_H

#include <stdlib.h>
#include <string.h>

#define __global__
#define __device__
#define __host__

typedef enum {
	cudaSuccess = 0,
	cudaErrorMemoryAllocation = 2,
} cudaError_t;

enum cudaMemcpyKind {
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2,
	cudaMemcpyDeviceToDevice = 3,
};

struct cuda_host_dim {
	unsigned x;
};

/* The running thread's coordinates, set by CUDA_LAUNCH. */
static struct cuda_host_dim blockIdx, threadIdx, blockDim;

/* Far fewer threads than on a device: the scratch stays small, and a
 * launch of a few hundred candidates already has threads that take
 * several, which tests the grid-stride loops. */
#define EVAL_CUDA_THREADS 256

/* Bytes of every fresh allocation: reading them before a write gives
 * values no decoder state should start from. */
#define CUDA_HOST_FILL 0xA5

static inline const char *cudaGetErrorString(cudaError_t e)
{
	return e == cudaSuccess ? "no error" : "out of memory";
}

static inline cudaError_t cudaGetLastError(void)
{
	return cudaSuccess;
}

static inline cudaError_t cudaGetDeviceCount(int *count)
{
	*count = 1;
	return cudaSuccess;
}

template <typename T> static cudaError_t cudaMalloc(T **p, size_t bytes)
{
	void *m = malloc(bytes ? bytes : 1);
	*p = (T *)m;
	if (!m)
		return cudaErrorMemoryAllocation;
	memset(m, CUDA_HOST_FILL, bytes);
	return cudaSuccess;
}

static inline cudaError_t cudaFree(void *p)
{
	free(p);
	return cudaSuccess;
}

static inline cudaError_t cudaMemcpy(void *dst, const void *src,
				     size_t bytes, enum cudaMemcpyKind kind)
{
	(void)kind;
	if (bytes)
		memmove(dst, src, bytes);
	return cudaSuccess;
}

/* kernel<<<grid, block>>>(args...), one thread after another. */
#define CUDA_LAUNCH(kernel, grid, block, ...)                                 \
	do {                                                                 \
		blockDim.x = (block);                                        \
		for (blockIdx.x = 0; blockIdx.x < (unsigned)(grid);          \
		     blockIdx.x++)                                           \
			for (threadIdx.x = 0; threadIdx.x < blockDim.x;      \
			     threadIdx.x++)                                  \
				kernel(__VA_ARGS__);                         \
	} while (0)

#endif
