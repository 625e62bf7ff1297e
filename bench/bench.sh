#!/usr/bin/env bash
# The benchmark table of `make bench`: jobs/s, events/s and peak memory for
#   easy on KTH-SP2, easy on CEA-Curie (real traces, skipped when absent)
#   without and with the default plots (the plots must cost less than the
#   simulation),
#   fcfs on a generated 1,000,000-job workload on 10,000 nodes,
#   easy on a month of a 4,096-GPU cluster with large-model jobs,
#   las and gittins (Tiresias' discretised index) and quota (quotas with
#   borrowing and reclaim, bench/philly-quota.json: the 15 VCs' shares of
#   the same 512 GPUs) on the whole Philly summary with the network model
#   on, and fcfs on
#   it with one pool of 512 GPUs, the three policies of KTH-SP2 with
#   run -j 1 and -j 2,
# each next to the cost of just reading its trace (`zcat FILE | awk`),
# timed in the same rounds so that ratios, not absolute times, are
# compared.  Last, the same pooled fcfs in plain Python (bench/py-fcfs.py),
# the way the simulators of this field are written, again in the same
# rounds: its time, and whether its mean wait agrees with ours.  Then the
# reproductions' run times.  Every figure is the least of BENCH_REPS
# (default 3) alternated rounds.
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
	zcat -f "$1" | awk '{s+=$4} END {print s}' >/dev/null
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}

row() { printf '%-22s %9s %8s %8s %8s %7s %11s %12s %9s %9s\n' "$@"; }

# Every row is the least of $reps runs, and the rows that are compared
# (a run and its scan, the Python peer, Curie with and without plots, the
# two cluster sizes) are run in alternation: each round runs each of them
# once, so that a busy spell of the machine slows all of them alike.
reps=${BENCH_REPS:-3}

# one NAME EXP TRACE [plots]: one round of a row (with the default
# plots when the fourth argument says so); its figures (awk, wall,
# sim, rss, jobs, events) are appended to $out/NAME.fig, one "KEY VALUE"
# a line.
one() {
	local name=$1 exp=$2 trace=$3 plots=--no-plots t0 t1 f="$out/$1.fig"
	[ "$4" = plots ] && plots=""
	[ -n "$trace" ] && echo "awk $(read_cost "$trace")" >>"$f"
	t0=$(now)
	# shellcheck disable=SC2086
	"$bin" run "$exp" -o "$out/$name" --quiet $plots --stats 2>"$out/$name.log"
	t1=$(now)
	echo "wall $(echo "$t1 - $t0" | bc -l)" >>"$f"
	sed -n 's/.*stats: run .* jobs=\([0-9]*\) events=\([0-9]*\) sim_s=\([0-9.]*\).*/jobs \1\nevents \2\nsim \3/p' \
		"$out/$name.log" >>"$f"
	sed -n 's/.*peak_rss_mb=\([0-9.]*\).*/rss \1/p' "$out/$name.log" >>"$f"
}

# fig NAME KEY: the least of KEY over the rounds ("" when never measured).
fig() {
	[ -f "$out/$1.fig" ] || return 0
	awk -v k="$2" '$1 == k && (n++ == 0 || $2 < m) { m = $2 } END { if (n) printf "%.6f", m }' \
		"$out/$1.fig"
}

# alternate "NAME|EXP|TRACE[|plots]" ... [-- HOOK]: $reps rounds over the
# rows (a row whose trace is absent is skipped, saying so), calling HOOK
# once per round after them; then one table row each.
alternate() {
	local rows=() hook="" spec name exp trace plots r
	while [ $# -gt 0 ]; do
		if [ "$1" = -- ]; then hook=$2; break; fi
		IFS='|' read -r name exp trace plots <<<"$1"
		if [ -n "$trace" ] && [ ! -f "$trace" ]; then
			echo "skip $name: $trace is absent" >&2
		else
			rows+=("$1")
		fi
		shift
	done
	[ ${#rows[@]} -gt 0 ] || return 0
	for ((r = 0; r < reps; r++)); do
		for spec in "${rows[@]}"; do
			IFS='|' read -r name exp trace plots <<<"$spec"
			one "$name" "$exp" "$trace" "$plots"
		done
		[ -n "$hook" ] && "$hook"
	done
	for spec in "${rows[@]}"; do
		IFS='|' read -r name exp trace plots <<<"$spec"
		print_row "$name"
	done
}

print_row() {
	local name=$1 awk_s ratio="-" wall sim jobs events rss
	awk_s=$(fig "$name" awk) wall=$(fig "$name" wall) sim=$(fig "$name" sim)
	jobs=$(fig "$name" jobs) events=$(fig "$name" events) rss=$(fig "$name" rss)
	jobs=${jobs%.*} events=${events%.*}
	if [ -n "$awk_s" ]; then
		ratio=$(printf '%.2f' "$(echo "$wall / $awk_s" | bc -l)")
		awk_s=$(printf '%.3f' "$awk_s")
	else
		awk_s="-"
	fi
	row "$name" "$jobs" "$(printf '%.3f' "$wall")" "$(printf '%.3f' "$sim")" "$awk_s" "$ratio" \
		"$(printf '%.0f' "$(echo "$jobs / $sim" | bc -l)")" \
		"$(printf '%.0f' "$(echo "$events / $sim" | bc -l)")" "$(printf '%.1f' "$rss")" \
		"$(printf '%.0f' "$(echo "($rss - $base_mb) * 1048576 / $jobs" | bc -l)")"
}

# The memory of the process itself (code, libraries, buffers): a run of
# the 20-job sample trace.  B/job is what each job adds on top of it.
"$bin" run "$here/baseline.json" -o "$out/baseline" --quiet --no-plots --stats 2>"$out/baseline.log"
base_mb=$(sed -n 's/.*peak_rss_mb=\([0-9.]*\).*/\1/p' "$out/baseline.log")

kth="$traces/hpc/KTH-SP2-1996-2.1-cln.swf.gz"
curie="$traces/hpc/CEA-Curie-2011-2.1-cln.swf.gz"
philly="$traces/gpu/philly.csv"
echo "each row: the least of $reps alternated runs (BENCH_REPS)"
row "run" "jobs" "wall_s" "sim_s" "awk_s" "ratio" "jobs/s" "events/s" "peak_MB" "B/job"
# The pyss reproduction's heaviest run (docs/validation.md, "pyss, job by
# job"): classic conservative with pyss's settings on KTH-SP2.
alternate "easy-kth|$here/kth-easy.json|$kth" \
	"cons-kth-pyss|$here/kth-pyss-conservative.json|$kth"
# The Shockwave reproduction's heaviest run (docs/gavel.md, "The
# Shockwave table"): the Themis LP (gavel, finish_time_fairness) on the
# 120-job trace, as experiments/shockwave-120.json runs it.
alternate "ftf-shockwave|$here/shockwave-themis.json|$traces/gpu/shockwave/shockwave-120job.trace"
alternate "easy-curie|$here/curie-easy.json|$curie" \
	"easy-curie+plots|$here/curie-easy.json|$curie|plots"
alternate "fcfs-gen-1m|$here/gen-1m.json|"
# A month of a 4,096-GPU cluster (512 nodes x 8 A100-80GB, racks of 32,
# 2:1 fat tree): 76,000 jobs of the philly preset with large-model jobs
# (256-1,024 GPUs, GPT-3 13B / Llama 2 70B / GPT-3 175B) holding half the
# GPU-hours, under easy (bench/llm-month.json; aim: under 5 s).
alternate "easy-llm-month|$here/llm-month.json|"
# EASY with 10^5 generated jobs on 2^17 and on 2^20 one-CPU nodes (jobs 8
# times as wide on the larger cluster: the same load); the ratio of their
# simulation times is printed below the table (aim: at most 2).
alternate "easy-nodes-128k|$here/easy-nodes-128k.json|" \
	"easy-nodes-1m|$here/easy-nodes-1m.json|"
alternate "las-philly|$here/philly-las.json|$philly" \
	"gittins-philly|$here/philly-gittins.json|$philly" \
	"quota-philly|$here/philly-quota.json|$philly"
# The same pooled fcfs in plain Python, run in the same rounds.
py_peer() {
	local jobs wait sim
	read -r jobs wait sim < <("$py" "$here/py-fcfs.py" "$philly" 512)
	printf 'jobs %s\nwait %s\nsim %s\n' "$jobs" "$wait" "$sim" >>"$out/py.fig"
}
# Debian's python3 (another may come first on PATH), else the first one.
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3 || true)
if [ -f "$philly" ] && [ -n "$py" ]; then
	alternate "fcfs-philly-pooled|$here/philly-fcfs-pooled.json|$philly" -- py_peer
	pysim=$(printf '%.3f' "$(fig py sim)")
	pyjobs=$(awk '$1 == "jobs" { print $2; exit }' "$out/py.fig")
	pywait=$(awk '$1 == "wait" { print $2; exit }' "$out/py.fig")
	ours=$(fig fcfs-philly-pooled sim)
	ourwait=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wait_mean") c = i }
		NR == 2 { print $c }' "$out/fcfs-philly-pooled/summary.csv")
	echo
	echo "fcfs on Philly, one pool of 512 GPUs, $pyjobs jobs: plain Python"
	echo "(bench/py-fcfs.py) ${pysim} s, clustersim $(printf '%.3f' "$ours") s of simulation:" \
		"$(printf '%.0f' "$(echo "$pysim / $ours" | bc -l)")x;" \
		"mean wait ${pywait} s vs ${ourwait} s" \
		"($([ "$pywait" = "$ourwait" ] && echo equal || echo DIFFERENT))"
else
	alternate "fcfs-philly-pooled|$here/philly-fcfs-pooled.json|$philly"
fi
echo
echo "wall_s: the whole command (load, simulate, write results); sim_s: the"
echo "event loop alone; ratio: wall_s / awk_s, the cost of zcat FILE | awk."
echo "B/job: peak resident memory above the process's own ($base_mb MB, a"
echo "20-job run), divided by the jobs."
if [ -n "$(fig easy-nodes-128k sim)" ] && [ -n "$(fig easy-nodes-1m sim)" ]; then
	echo "easy-nodes: 2^20 nodes against 2^17, simulation time" \
		"$(printf '%.2f' "$(echo "$(fig easy-nodes-1m sim) / $(fig easy-nodes-128k sim)" | bc -l)")x."
fi
if [ -n "$(fig quota-philly wall)" ] && [ -n "$(fig las-philly wall)" ]; then
	echo "quota-philly: quotas with borrowing and reclaim (aim: wall_s under 5 s)," \
		"wall_s $(printf '%.2f' "$(echo "$(fig quota-philly wall) / $(fig las-philly wall)" | bc -l)")x" \
		"that of plain las-philly on the same cluster and trace."
fi
if [ -n "$(fig easy-curie wall)" ] && [ -n "$(fig easy-curie+plots wall)" ]; then
	echo "easy-curie+plots: the same run with the default plots (PNG and SVG):"
	echo "plots add $(printf '%.3f' "$(echo "$(fig easy-curie+plots wall) - $(fig easy-curie wall)" | bc -l)") s" \
		"to wall_s, the simulation takes $(printf '%.3f' "$(fig easy-curie sim)") s."
fi

# Sweeps: a 200-run sweep of short runs (bench/sweep-200.json: 5 load
# scales x 4 cluster sizes x 2 policies x 5 seeds, 500 jobs each) with
# -j 1, -j 2 and, when built with MPI, mpirun -np 3 (rank 0 hands out, 2
# workers) on 2 cores.  Overhead per run: the wall time of -j 1 less the
# simulation time of its runs (sim_s of `run --stats`, summed), per run:
# fork, loading the point, writing its folder, manifest and the merge.
# Each figure is the least of $reps rounds, each round running -j 1, -j 2
# and mpirun once.  The simulation time is summed from every run's sim_s
# (printed to the nanosecond of the clock, so that the sum is exact, not
# a sum of rounded parts) of the same -j 1 round whose wall time is kept,
# so that the overhead subtracts like from like.
echo
sweep_row() { printf '%-16s %6s %9s %8s\n' "$@"; }
# sweep_once TAG "SWEEP OPTIONS" [LAUNCHER...]: one sweep; appends
# "WALL SIM_TOTAL" to $out/sweep.TAG.
sweep_once() {
	local tag=$1 opts=$2 t0 t1 total; shift 2
	rm -rf "$out/sweep"
	t0=$(now)
	# shellcheck disable=SC2086
	"$@" "$bin" sweep "$here/sweep-200.json" -o "$out/sweep" $opts \
		--quiet --no-plots --stats >/dev/null 2>"$out/sweep.log"
	t1=$(now)
	total=$(sed -n 's/.*stats: run .*sim_s=\([0-9.]*\).*/\1/p' "$out/sweep.log" |
		awk '{s += $1; n++} END {printf "%.9f %d", s, n}')
	echo "$(echo "$t1 - $t0" | bc -l) $total" >>"$out/sweep.$tag"
}
mpi=""
if command -v mpirun >/dev/null 2>&1 && ldd "$bin" | grep -q libmpi; then
	mpi=1 root=""; [ "$(id -u)" = 0 ] && root="--allow-run-as-root"
else
	echo "skip mpirun: not built with MPI or no mpirun" >&2
fi
for ((r = 0; r < reps; r++)); do
	sweep_once j1 "-j 1"
	sweep_once j2 "-j 2"
	# shellcheck disable=SC2086
	[ -n "$mpi" ] && sweep_once mpi "" mpirun $root --oversubscribe -np 3
done
# least TAG: the round of least wall time, "WALL SIM_TOTAL".
least_round() { sort -g "$out/sweep.$1" | head -n 1; }
sweep_row "sweep" "runs" "wall_s" "runs/s"
for tag in j1 j2 mpi; do
	[ -f "$out/sweep.$tag" ] || continue
	read -r wall _ < <(least_round "$tag")
	case $tag in j1) label="-j 1" ;; j2) label="-j 2" ;; *) label="mpirun -np 3" ;; esac
	sweep_row "$label" 200 "$(printf '%.3f' "$wall")" \
		"$(printf '%.1f' "$(echo "200 / $wall" | bc -l)")"
done
read -r j1_wall sim_total sim_runs < <(least_round j1)
echo
echo "sweep: 200 runs of 500 jobs (bench/sweep-200.json), the simulations"
echo "alone $(printf '%.6f' "$sim_total") s (sim_s of its $sim_runs runs, summed); overhead per run beyond the simulation (-j 1):"
echo "$(printf '%.2f' "$(echo "($j1_wall - $sim_total) * 1000 / 200" | bc -l)") ms (fork, loading the point, writing its folder and"
echo "manifest, and the run's share of the merge).  mpirun -np 3: rank 0"
echo "hands out runs, 2 workers run them."
# run -j: the three policies of experiments/kth.json (fcfs, easy,
# conservative) one after another (-j 1) and two at a time (-j 2, on the
# worker pool), alternated, the least of $reps each; and whether both
# results folders hold the same bytes.
run_j() {
	local t0 t1
	t0=$(now)
	"$bin" run "$here/../experiments/kth.json" -o "$out/kth-j$1" --quiet \
		--no-plots -j "$1"
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}
least() { if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc -l)" = 1 ]; then echo "$2"; else echo "$1"; fi; }
echo
if [ -f "$kth" ]; then
	kth_j1="" kth_j2=""
	for ((r = 0; r < reps; r++)); do
		kth_j1=$(least "$kth_j1" "$(run_j 1)")
		kth_j2=$(least "$kth_j2" "$(run_j 2)")
	done
	sweep_row "run kth -j" "runs" "wall_s" "speed-up"
	sweep_row "-j 1" 3 "$(printf '%.3f' "$kth_j1")" "1.00"
	sweep_row "-j 2" 3 "$(printf '%.3f' "$kth_j2")" \
		"$(printf '%.2f' "$(echo "$kth_j1 / $kth_j2" | bc -l)")"
	echo "run kth -j 2: the results folder is" \
		"$(diff -r "$out/kth-j1" "$out/kth-j2" >/dev/null &&
		   echo "the same bytes as with -j 1" || echo "DIFFERENT from -j 1")."
else
	echo "skip run kth -j: $kth is absent" >&2
fi
# Backfilling's scaling (bench/backfill-scale.sh): conservative against
# easy on CEA-Curie, and both over growing generated workloads; set
# CLUSTERSIM_BENCH_BASE to a second binary to pair every run with it.
"$here/backfill-scale.sh" "$bin" "${CLUSTERSIM_BENCH_BASE:-}"
# The batch evaluator (docs/gpu.md): evaluations/s on 1 core and on
# all cores, pooled and node-level, 100 and 1,000 jobs, 64 nodes x 8 GPUs.
echo
"$bin" bench-eval
# The fill experiment of the FGD paper (sim/fill/fill.c) on openb: one fgd run
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
# The Tiresias 60-job reproduction (docs/validation.md): gittins on 16 GPUs,
# far under a second (its sim_s rounds to 0, so no jobs/s row).
if [ -r "$traces/gpu/tiresias-60job.csv" ]; then
	t0=$(now)
	"$bin" run "$here/tiresias-gittins.json" -o "$out/tiresias" --quiet --no-plots
	t1=$(now)
	echo
	echo "gittins-tiresias60: wall_s=$(printf '%.3f' "$(echo "$t1 - $t0" | bc -l)")"
else
	echo "gittins-tiresias60: skipped (gpu/tiresias-60job.csv not in $traces)"
fi

# The eight policies of experiments/philly.json one at a time (wall time
# with --no-plots, the least of $reps runs), their sum and each one's
# ratio to fcfs (aims: under 6 s in all, none over 5x fcfs).  With
# CLUSTERSIM_BASE=BINARY each run alternates with the same run of BINARY
# (main's binary, say), whose column and sum are printed beside.
wall_of() {
	local t0 t1
	t0=$(now)
	"$1" run "$here/../experiments/philly.json" --policy "$2" -o "$out/ph" \
		--quiet --no-plots >/dev/null 2>&1
	t1=$(now)
	echo "$t1 - $t0" | bc -l
}
if [ -f "$philly" ]; then
	base=${CLUSTERSIM_BASE:-}
	echo
	printf '%-14s %8s %8s %10s\n' "philly.json" "wall_s" "x fcfs" "base_s"
	sum=0 bsum=0 fcfs=""
	for p in fcfs sjf srtf las gittins_cont themis gandiva easy; do
		ours="" theirs=""
		for _ in $(seq "$reps"); do
			ours=$(least "$ours" "$(wall_of "$bin" "$p")")
			[ -n "$base" ] && theirs=$(least "$theirs" "$(wall_of "$base" "$p")")
		done
		[ -z "$fcfs" ] && fcfs=$ours
		sum=$(echo "$sum + $ours" | bc -l)
		[ -n "$base" ] && bsum=$(echo "$bsum + $theirs" | bc -l)
		printf '%-14s %8.3f %8.1f %10s\n' "$p" "$ours" "$(echo "$ours / $fcfs" | bc -l)" \
			"$([ -n "$base" ] && printf '%.3f' "$theirs" || echo -)"
	done
	printf '%-14s %8.3f %8s %10s\n' "all eight" "$sum" "" \
		"$([ -n "$base" ] && printf '%.3f' "$bsum" || echo -)"
else
	echo "philly.json policies: skipped ($philly is absent)"
fi

# The Pollux artifact's Tiresias on its workload 6 (docs/pollux.md): 160
# jobs under the goodput model, las with 60 s rounds.
if [ -r "$traces/gpu/pollux/workloads/workload-6.csv" ]; then
	t0=$(now)
	"$bin" run "$here/../experiments/pollux-w6.json" -o "$out/pollux-w6" --quiet --no-plots
	t1=$(now)
	echo "tiresias-pollux-w6: wall_s=$(printf '%.3f' "$(echo "$t1 - $t0" | bc -l)")"
else
	echo "tiresias-pollux-w6: skipped (gpu/pollux/workloads/workload-6.csv not in $traces)"
fi

# The reinforcement-learning environment (docs/rl.md): decisions per second
# of one environment in C, of one through the Python binding, and of 64
# through the vectorised binding,
# on KTH-SP2 windows of 1,024 jobs with K = 128.
envb=$(dirname "$bin")/bench/env_bench
pylib=$here/../build/pic/libclustersim.so
if [ -r "$traces/hpc/KTH-SP2-1996-2.1-cln.swf.gz" ] && [ -x "$envb" ]; then
	(cd "$here/.." && "$envb" experiments/kth.json 3)
	if [ -r "$pylib" ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
		(cd "$here/.." && CLUSTERSIM_LIB=$pylib /usr/bin/python3 bench/env_bench.py \
			experiments/kth.json 3 1)
		(cd "$here/.." && CLUSTERSIM_LIB=$pylib /usr/bin/python3 bench/env_bench.py \
			experiments/kth.json 3 64)
	else
		echo "env-step-vec64: skipped (no numpy or no $pylib: make python)"
	fi
else
	echo "env-step: skipped (KTH trace absent or $envb not built)"
fi
