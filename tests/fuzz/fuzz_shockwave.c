/*
 * libFuzzer harness for the shockwave trace reader (trace_load_shockwave): whatever
 * the bytes, the reader must return 0 with a workload that keeps every
 * promise of workload.h, or a negative code with a "FILE:LINE: message" -
 * never crash, leak, hit undefined behaviour or abort.  The reader takes a
 * path, so the input is written to a temporary file under /tmp and read
 * under several option sets (fuzzlib.c has the checks).
 *
 * fuzz_shockwave_one() is linked into the Criterion binary, which replays
 * tests/fuzz/corpus/shockwave/ (tests/test_fuzz_corpus.c); the libFuzzer entry
 * point is compiled only with -DFUZZ_TARGET_SHOCKWAVE, as `make fuzz` does.
 */
#include <stdint.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzzlib.h"

int fuzz_shockwave_one(const uint8_t *data, size_t size)
{
	char path[FUZZ_PATH_MAX];

	if (fuzz_write_tmp(data, size, path) != 0)
		return 0;
	fuzz_trace_reader(trace_load_shockwave, path);
	unlink(path);
	return 0;
}

#ifdef FUZZ_TARGET_SHOCKWAVE
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_shockwave_one(data, size);
}
#endif
