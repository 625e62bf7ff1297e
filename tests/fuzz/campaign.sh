#!/bin/sh
# The fuzzing campaign (make fuzz-campaign): SECONDS split evenly over the
# harnesses named, each run as `make fuzz` runs it (on a copy of its
# corpus, one process), then one line per harness: the executions, the
# coverage (libFuzzer's cov: edges, ft: features) and the corpus it ended
# with, and whether it found anything (an input left in build/fuzz/).
#
#   tests/fuzz/campaign.sh SECONDS "LIBFUZZER-ARGS" NAME...
#
# Logs go to build/fuzz/campaign/<name>.log.  Exit status 1 when a harness
# found something.
set -u
total=$1
args=$2
shift 2
dir=build/fuzz
log=$dir/campaign
mkdir -p "$log"
each=$((total / $#))
[ "$each" -ge 1 ] || each=1
found=0
for n in "$@"; do
	rm -rf "$dir/corpus/$n" && mkdir -p "$dir/corpus" &&
		cp -r "tests/fuzz/corpus/$n" "$dir/corpus/$n" || exit 2
	dict=
	[ -f "tests/fuzz/$n.dict" ] && dict=-dict=tests/fuzz/$n.dict
	echo "fuzz_$n: $each s" >&2
	# shellcheck disable=SC2086
	"$dir/fuzz_$n" $dict -max_total_time="$each" -timeout=30 \
		-print_final_stats=1 -artifact_prefix="$dir/$n-" $args \
		"$dir/corpus/$n" >"$log/$n.log" 2>&1
	echo $? >"$log/$n.rc"
done
printf '%-14s %10s %8s %8s %8s %10s  %s\n' harness execs exec/s cov ft corpus \
	result
for n in "$@"; do
	f=$log/$n.log
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$f" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$f" | tail -1)
	last=$(grep -E '^#[0-9]+.*cov: ' "$f" | tail -1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p')
	if [ "$(cat "$log/$n.rc")" = 0 ]; then
		res=ok
	else
		res="FOUND (see $f)"
		found=1
	fi
	printf '%-14s %10s %8s %8s %8s %10s  %s\n' "fuzz_$n" "${execs:-?}" \
		"${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$res"
done
exit $found
