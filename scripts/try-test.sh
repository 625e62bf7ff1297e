#!/bin/sh
# Development helper: builds one Criterion test file with just the sources
# named, using the project's warnings, and runs it.  For working on one
# module while others are in flux:
#   scripts/try-test.sh tests/test_swf.c sim/workload/trace_swf.c sim/workload/workload.c sim/base/util.c
set -eu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -std=c11 -O1 -g -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
   -Wformat=2 -Wvla -Wno-unused-parameter -Werror -D_GNU_SOURCE -Iinclude -Isim \
   -fsanitize=address,undefined -fno-omit-frame-pointer \
   $(pkg-config --cflags gsl libcjson nettle) "$@" -o "$out/t" \
   $(pkg-config --libs gsl libcjson nettle) -lcsv -lz -lm -ldl -lpthread -lcriterion
"$out/t" ${TRY_ARGS:-}
