#!/usr/bin/env bash
# The benchmark table of `make bench`: jobs/s, events/s and peak memory for
#   easy on KTH-SP2, easy on CEA-Curie (real traces, skipped when absent),
#   fcfs on a generated 1,000,000-job workload on 10,000 nodes,
# each next to the cost of just reading its trace (`zcat FILE | awk`),
# timed in the same run so that ratios, not absolute times, are compared.
set -euo pipefail
bin=${1:-build/clustersim}
here=$(cd "$(dirname "$0")" && pwd)
traces=${CLUSTERSIM_TRACE_DIR:-$here/../../shared/traces}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

now() { date +%s.%N; }

# zcat | awk over a trace: the floor a replay is compared with.
read_cost() {
	local t0 t1
	t0=$(now)
	zcat "$1" | awk '{s+=$4} END {print s}' >/dev/null
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}

row() { printf '%-22s %9s %8s %8s %8s %7s %11s %12s %9s %9s\n' "$@"; }

bench() {
	local name=$1 exp=$2 trace=${3:-}
	local awk_s="-" ratio="-"
	if [ -n "$trace" ]; then
		if [ ! -f "$trace" ]; then
			echo "skip $name: $trace is absent" >&2
			return
		fi
		awk_s=$(read_cost "$trace")
	fi
	local t0 t1 wall
	t0=$(now)
	"$bin" run "$exp" -o "$out/$name" --quiet --no-plots --stats 2>"$out/$name.log"
	t1=$(now)
	wall=$(echo "$t1 - $t0" | bc -l)
	local jobs events sim_s rss
	jobs=$(sed -n 's/.*stats: run .* jobs=\([0-9]*\).*/\1/p' "$out/$name.log")
	events=$(sed -n 's/.*events=\([0-9]*\).*/\1/p' "$out/$name.log")
	sim_s=$(sed -n 's/.*sim_s=\([0-9.]*\).*/\1/p' "$out/$name.log")
	rss=$(sed -n 's/.*peak_rss_mb=\([0-9.]*\).*/\1/p' "$out/$name.log")
	[ "$awk_s" != "-" ] && ratio=$(printf '%.2f' "$(echo "$wall / $awk_s" | bc -l)")
	[ "$awk_s" != "-" ] && awk_s=$(printf '%.3f' "$awk_s")
	row "$name" "$jobs" "$(printf '%.3f' "$wall")" "$sim_s" "$awk_s" "$ratio" \
		"$(printf '%.0f' "$(echo "$jobs / $sim_s" | bc -l)")" \
		"$(printf '%.0f' "$(echo "$events / $sim_s" | bc -l)")" "$rss" \
		"$(printf '%.0f' "$(echo "($rss - $base_mb) * 1048576 / $jobs" | bc -l)")"
}

# The memory of the process itself (code, libraries, buffers): a run of
# the 20-job sample trace.  B/job is what each job adds on top of it.
"$bin" run "$here/baseline.json" -o "$out/baseline" --quiet --no-plots --stats 2>"$out/baseline.log"
base_mb=$(sed -n 's/.*peak_rss_mb=\([0-9.]*\).*/\1/p' "$out/baseline.log")

row "run" "jobs" "wall_s" "sim_s" "awk_s" "ratio" "jobs/s" "events/s" "peak_MB" "B/job"
bench easy-kth "$here/kth-easy.json" "$traces/hpc/KTH-SP2-1996-2.1-cln.swf.gz"
bench easy-curie "$here/curie-easy.json" "$traces/hpc/CEA-Curie-2011-2.1-cln.swf.gz"
bench fcfs-gen-1m "$here/gen-1m.json"
echo
echo "wall_s: the whole command (load, simulate, write results); sim_s: the"
echo "event loop alone; ratio: wall_s / awk_s, the cost of zcat FILE | awk."
echo "B/job: peak resident memory above the process's own ($base_mb MB, a"
echo "20-job run), divided by the jobs."

# The fill experiment of the FGD paper (sim/fill.c) on openb: one fgd run
# (about 10.8k pods on 1,213 nodes), then the whole comparison
# (experiments/openb-fill.json: 6 policies x 10 seeds x 3 pod lists).
fill_bench() {
	local name=$1 exp=$2
	if [ ! -r "$traces/gpu/openb/openb_node_list_gpu_node.csv" ]; then
		echo "$name: skipped (gpu/openb not in $traces)"
		return
	fi
	local t0 t1 runs sim_s
	t0=$(now)
	"$bin" run "$exp" -o "$out/$name" --quiet --no-plots --stats 2>"$out/$name.log"
	t1=$(now)
	runs=$(grep -c 'stats: fill' "$out/$name.log")
	sim_s=$(sed -n 's/.*stats: fill .* sim_s=\([0-9.]*\).*/\1/p' "$out/$name.log" |
		awk '{s += $1; if ($1 > m) m = $1} END {printf "%.3f %.3f", s, m}')
	echo "$name: runs=$runs wall_s=$(printf '%.3f' "$(echo "$t1 - $t0" | bc -l)") fill_s_total/max_run=$sim_s"
}
echo
fill_bench fill-fgd-openb "$here/openb-fill-fgd.json"
fill_bench fill-openb-all "$here/../experiments/openb-fill.json"
