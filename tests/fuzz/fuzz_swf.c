/*
 * libFuzzer harness for the SWF reader: whatever the bytes, trace_load_swf
 * must return 0 or a negative code with a message - never crash, leak or
 * abort.  The reader takes a path, so each input is written to a temporary
 * file and read twice, strict and lenient.
 *
 * Not built by default.  With clang:
 *   clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
 *     -Iinclude -Isim tests/fuzz/fuzz_swf.c sim/trace_swf.c sim/trace_csv.c \
 *     sim/workload.c sim/util.c -lcsv -lz -lm -o fuzz_swf
 *   ./fuzz_swf tests/data/swf-bad traces
 * Built with -DFUZZ_MAIN (any compiler, no libFuzzer) it replays the files
 * named on the command line instead.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/clustersim-fuzz-swf-XXXXXX";
	struct trace_opts o;
	struct workload w;
	struct sim_error err;
	int fd = mkstemp(path);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	trace_opts_default(&o);
	for (int lenient = 0; lenient < 2; lenient++) {
		o.lenient = lenient;
		int rc = trace_load_swf(path, &o, &w, &err);
		if (rc == 0) {
			/* The promises of a loaded workload. */
			for (size_t i = 0; i < w.n; i++) {
				SIM_ASSERT(w.jobs[i].idx == i);
				SIM_ASSERT(w.jobs[i].run > 0);
				SIM_ASSERT(w.jobs[i].cpus > 0);
				SIM_ASSERT(w.jobs[i].submit >= 0);
				SIM_ASSERT(w.jobs[i].estimate >= w.jobs[i].run ||
					   !(w.jobs[i].flags &
					     JOB_HAS_ESTIMATE) ||
					   o.overrun == OVERRUN_ALLOW);
				SIM_ASSERT(i == 0 || w.jobs[i - 1].submit <=
							     w.jobs[i].submit);
			}
			workload_release(&w);
		} else {
			SIM_ASSERT(rc < 0 && err.msg[0] != '\0');
			SIM_ASSERT(w.n == 0 && w.jobs == NULL);
		}
	}
	unlink(path);
	return 0;
}

#ifdef FUZZ_MAIN
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		size_t cap = 1 << 16, n = 0, got;
		uint8_t *buf = xmalloc(cap);
		while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
			n += got;
			if (n == cap)
				buf = xrealloc(buf, cap *= 2);
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
	}
	return 0;
}
#endif
