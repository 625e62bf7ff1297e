#!/usr/bin/env bash
# Regenerates the figures of clustersim's own results that the docs quote
# (README.md, experiments/README.md, docs/*.md), from the shipped
# experiments, and rewrites them in place, so that no quoted figure can go
# stale.  A figure is a block between two marker lines:
#
#   <!-- figures: NAME begin -->
#   ... written by this script ...
#   <!-- figures: NAME end -->
#
# NAME is one of the figures below (fig_NAME); a block may appear in
# several files.  Everything outside the markers is the author's.  Times
# of runs are measurements of one machine and are not figures here; peers'
# figures (papers' numbers) are quoted with their source, never generated.
#
#   scripts/docs-figures.sh [NAME...]          regenerate (all by default)
#   scripts/docs-figures.sh --check [NAME...]  compare, change nothing:
#                                              exit 1 when a block differs
#   scripts/docs-figures.sh --print NAME       print one figure's block
#   scripts/docs-figures.sh --list             the figures and what they run
#
# Every mode first checks the markers of every doc: each begin has its end,
# blocks do not nest, and each names a known figure (exit 2 otherwise).  A
# figure whose traces are missing (under $CLUSTERSIM_TRACE_DIR, default
# ../shared/traces beside the checkout; traces/fetch-traces.sh fetches
# them) is skipped, saying so, and its blocks are left as they are.
# The binary is $CLUSTERSIM_BIN (default build/clustersim).  `make
# docs-figures` runs it all (a few minutes of CPU, most of it
# philly-vc.json, openb-fill.json and curie.json); `make test` runs
# `--check make-run` and `--check parallelism` (a few seconds).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=${CLUSTERSIM_BIN:-build/clustersim}
case $bin in /*) ;; *) bin=$root/$bin ;; esac
traces=${CLUSTERSIM_TRACE_DIR:-$root/../shared/traces}
export CLUSTERSIM_TRACE_DIR=$traces

# name | traces it needs (under $traces, space-separated) | what it runs
figures='
make-run||experiments/default.json: the table `make run` prints
philly-gen||experiments/philly-gen.json: the table and the offered load measured over its jobs
gavel-hetero|gpu/gavel/max_min_fairness.trace|experiments/gavel-hetero.json, and gavel with throughput false and with 60 s rounds: JCTs, makespan, GPU utilisation, preemptions
shockwave-120|gpu/shockwave/shockwave-120job.trace|experiments/shockwave-120.json: makespan, mean JCT, worst FTF (static as Shockwave reports it, and with contention), preemptions
philly-las|gpu/philly.csv|experiments/philly.json --policy las: preemptions and scheduling points
philly-las-job54|gpu/philly.csv|experiments/philly.json --policy las: job 54 and the slowdowns below 1
philly-vc|gpu/philly.csv|experiments/philly-vc.json: waits and bounded slowdowns
philly-quota|gpu/philly.csv|experiments/philly-quota.json: waits, JCT, preemptions, reclaims and the Jain index of hard partitions, borrowing and one pool
slurm-priority|hpc/LLNL-Atlas-2006-2.1-cln.swf.gz|experiments/slurm-priority.json: waits overall and per partition, and bounded slowdowns, under three multifactor weight settings and Fair Tree
hpo||experiments/hpo.json: waits, GPU utilisation, the mean time to the best trial of a search and the GPU-hours per search
placement||experiments/placement-comm.json and placement-compute.json: mean JCT and placement slowdown
llm-mixed||experiments/llm-mixed.json: the large-model jobs against the others, waits, JCTs, placement slowdowns and nodes, and their share of the GPU-hours
search-online|hpc/KTH-SP2-1996-2.1-cln.swf.gz|experiments/search-online.json: mean wait and response
openb-fill|gpu/openb/openb_node_list_gpu_node.csv gpu/openb/openb_pod_list_default.csv gpu/openb/openb_pod_list_gpushare100.csv gpu/openb/openb_pod_list_multigpu50.csv|experiments/openb-fill.json: GPU allocation at the last point, means over the seeds
openb-replay|gpu/openb/openb_node_list_gpu_node.csv gpu/openb/openb_pod_list_default.csv gpu/openb/openb_pod_list_gpushare100.csv|experiments/openb-replay.json: waits, time-averaged allocation and fragmentation, means over the seeds
openb-replay-x20000|gpu/openb/openb_node_list_gpu_node.csv gpu/openb/openb_pod_list_default.csv gpu/openb/openb_pod_list_gpushare100.csv|experiments/openb-replay-x20000.json: the same at 20,000 times the arrival rate
kth|hpc/KTH-SP2-1996-2.1-cln.swf.gz|experiments/kth.json: the validation table
nasa|hpc/NASA-iPSC-1993-3.1-cln.swf.gz|experiments/nasa.json: the validation table
curie|hpc/CEA-Curie-2011-2.1-cln.swf.gz|experiments/curie.json: the validation table
pollux-w6|gpu/pollux/workloads/workload-6.csv|experiments/pollux-w6.json: the mean JCT against the Tiresias of the Pollux artifact
rl-lublin|hpc/lublin_256.swf.gz|clustersim sweep experiments/rl-lublin.json: each policy and the trained agent (experiments/data/rl-lublin.bin) on the 10 held-out windows, means over them
parallelism||clustersim parallelism: the large-model model against Megatron-LM (Table 1, sensitivity, eq. 4)
'
docs=(README.md experiments/README.md docs/*.md)

known() { printf '%s\n' "$figures" | awk -F'|' 'NF == 3 { print $1 }'; }
needs() { printf '%s\n' "$figures" | awk -F'|' -v n="$1" '$1 == n { print $2 }'; }

usage() {
	echo "usage: scripts/docs-figures.sh [--check] [NAME...] | --list" >&2
	exit 2
}

# ---- markers ----------------------------------------------------------

# Checks every doc's markers; prints FILE:LINE: problems, exit 2 on one.
check_markers() {
	awk -v names="$(known | tr '\n' ' ')" '
	BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
	FNR == 1 { if (open != "") bad(prev, "block " open " never ends"); open = "" }
	{ prev = FILENAME ":" FNR }
	/<!-- figures:/ {
		if (!match($0, /^<!-- figures: [a-z0-9-]+ (begin|end) -->$/)) {
			bad(prev, "malformed figures marker: " $0); next
		}
		name = $3; end = $4 == "end"
		if (!(name in ok)) bad(prev, "unknown figure " name)
		if (!end && open != "") bad(prev, "block " name " inside block " open)
		if (end && open != name) bad(prev, "end of " name " outside its block")
		open = end ? "" : name
	}
	END { if (open != "") bad(prev, "block " open " never ends"); exit errs > 0 }
	function bad(where, msg) { print where ": " msg > "/dev/stderr"; errs++ }
	' "${docs[@]}" || exit 2
}

# Names that have a block in some doc.
used() {
	awk '/^<!-- figures: [a-z0-9-]+ begin -->$/ { print $3 }' "${docs[@]}" |
		sort -u
}

# Rewrites file's blocks whose NAME.txt is in dir; prints the result.
rewrite() {
	awk -v dir="$2" '
	/^<!-- figures: [a-z0-9-]+ begin -->$/ {
		print; f = dir "/" $3 ".txt"
		if ((getline line < f) > 0) {
			skip = 1; print line
			while ((getline line < f) > 0) print line
			close(f)
		}
		next
	}
	/^<!-- figures: [a-z0-9-]+ end -->$/ { skip = 0 }
	!skip { print }
	' "$1"
}

# ---- helpers for the figures ------------------------------------------

# run NAME FILE [OPTIONS...]: FILE's runs into $work/NAME, quietly.
run() {
	local name=$1 file=$2
	shift 2
	"$bin" run "$file" --no-plots -q -o "$work/$name" "$@" >/dev/null ||
		{ echo "docs-figures: $file failed" >&2; exit 1; }
}

# col DIR LABEL COLUMN: the value of COLUMN in LABEL's row of summary.csv.
col() {
	awk -F, -v l="$2" -v c="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	$1 == l { print $(k[c]); found = 1 }
	END { if (!found || !(c in k)) exit 1 }' "$1/summary.csv" ||
		{ echo "docs-figures: no $3 for $2 in $1" >&2; exit 1; }
}

# counter DIR LABEL KEY: a counter of LABEL-s1/summary.json.
counter() {
	sed -n "s/^[[:space:]]*\"$3\":[[:space:]]*\([0-9.]*\),*$/\1/p" \
		"$1/$2-s1/summary.json" | head -n 1
}

# fmt FORMAT VALUE: int (rounded, thousands separated), f1/f2/f3 (that
# many decimals, separated), pct1/pct2 (a fraction as a percentage).
fmt() {
	awk -v f="$1" -v v="$2" '
	function sep(s,   neg, ip, fp, i, out) {
		neg = substr(s, 1, 1) == "-"; if (neg) s = substr(s, 2)
		i = index(s, "."); ip = i ? substr(s, 1, i - 1) : s
		fp = i ? substr(s, i) : ""
		while (length(ip) > 3) {
			out = "," substr(ip, length(ip) - 2) out
			ip = substr(ip, 1, length(ip) - 3)
		}
		return (neg ? "-" : "") ip out fp
	}
	BEGIN {
		if (f == "int") print sep(sprintf("%.0f", v))
		else if (f ~ /^f[0-9]$/) print sep(sprintf("%." substr(f, 2) "f", v))
		else if (f ~ /^pct[0-9]$/) print sprintf("%." substr(f, 4) "f%%", 100 * v)
		else exit 1
	}'
}

# val DIR LABEL COLUMN FORMAT: a value of summary.csv, formatted.
val() { fmt "$4" "$(col "$1" "$2" "$3")"; }

# row DIR LABEL SHOWN COLUMN:FORMAT...: one Markdown table row.
row() {
	local dir=$1 label=$2 line="| $3 |" spec
	shift 3
	for spec in "$@"; do
		line="$line $(fmt "${spec#*:}" "$(col "$dir" "$label" "${spec%%:*}")") |"
	done
	printf '%s\n' "$line"
}

# An experiment with its "policies" replaced by $2 (JSON), into $3; the
# shipped files keep "policies": [ ... ] on lines of their own.
with_policies() {
	awk -v p="$2" '
	/^\t"policies": \[/ { print "\t\"policies\": " p ","; skip = 1; next }
	skip && /^\t\],?$/ { skip = 0; next }
	!skip { print }' "$1" >"$3"
}

# ---- the figures: each prints its block ---------------------------------

fig_make_run() {
	local out
	out=$("$bin" run experiments/default.json --no-plots -o "$work/default") ||
		{ echo "docs-figures: default.json failed" >&2; exit 1; }
	echo '```'
	printf '%s\n' "$out" | awk '/^policy / { on = 1 } on && /^$/ { exit } on'
	echo '```'
}

fig_philly_gen() {
	local d=$work/philly-gen l load
	run philly-gen experiments/philly-gen.json
	echo "| policy | mean wait (s) | p99 wait (s) | mean bounded slowdown | preemptions | GPU utilization | makespan (s) |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	for l in fcfs sjf las; do
		echo "| $l | $(val "$d" $l wait_mean f1) | $(val "$d" $l wait_p99 int) | $(val "$d" $l bsld_mean f2) | $(fmt int "$(counter "$d" $l preemptions)") | $(val "$d" $l utilization_gpu pct1) | $(val "$d" $l makespan int) |"
	done
	# The offered load: GPUs x run time at reference speed (a generated
	# job's estimate, its factor being 1) over the span of submits and the
	# cluster's 512 GPUs.
	load=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	{ s = $(k["submit"]); if (NR == 2 || s < lo) lo = s; if (s > hi) hi = s
	  g += $(k["gpus"]) * $(k["estimate"]); n++ }
	END { print n, g / n, g / (hi - lo) / 512 }' "$d/fcfs-s1/jobs.csv")
	set -- $load
	echo
	echo "Over its $(fmt int "$1") jobs: $(fmt int "$2") GPU-seconds per job at reference speed, an"
	echo "offered load of $(fmt f2 "$3") of the 512 GPUs over the span of the submits."
}

fig_hpo() {
	local d=$work/hpo l
	run hpo experiments/hpo.json
	echo "| policy | mean wait (s) | mean bounded slowdown | GPU utilization | preemptions | mean time to best trial (s) | GPU-hours per search |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	for l in fcfs las hpo_rung; do
		echo "| $l | $(val "$d" $l wait_mean int) | $(val "$d" $l bsld_mean f2) | $(val "$d" $l utilization_gpu pct1) | $(fmt int "$(counter "$d" $l preemptions)") | $(fmt int "$(counter "$d" $l mean_time_to_best)") | $(fmt f1 "$(counter "$d" $l gpu_hours_per_search)") |"
	done
}

fig_gavel_hetero() {
	local d=$work/gavel v=$work/gavel-v l
	run gavel experiments/gavel-hetero.json
	with_policies experiments/gavel-hetero.json '[ { "name": "gavel",
	  "label": "gavel-nothroughput", "params": { "throughput": false } },
	  { "name": "gavel", "label": "gavel-round60",
	  "params": { "round_s": 60 } } ]' "$work/gavel-v.json"
	"$bin" run "$work/gavel-v.json" --no-plots -q -o "$v" >/dev/null
	echo "| policy | mean JCT (s) | p99 JCT (s) | makespan (s) | GPU utilisation |"
	echo "|---|---|---|---|---|"
	for l in fcfs srtf las fairshare gavel; do
		row "$d" $l $l response_mean:int response_p99:int makespan:int \
			utilization_gpu:pct1
	done
	row "$v" gavel-nothroughput 'gavel, `throughput` false' \
		response_mean:int response_p99:int makespan:int utilization_gpu:pct1
	row "$v" gavel-round60 'gavel, `round_s` 60' \
		response_mean:int response_p99:int makespan:int utilization_gpu:pct1
	echo
	echo "gavel makes $(fmt int "$(counter "$d" gavel preemptions)") preemptions with 360 s rounds, and $(fmt int "$(counter "$v" gavel-round60 preemptions)") with 60 s"
	echo "rounds."
}

fig_shockwave_120() {
	local d=$work/shockwave-120 l
	run shockwave-120 experiments/shockwave-120.json
	echo "| policy | makespan (s) | mean JCT (s) | worst FTF, static N | \`ftf_max\` | preemptions per job |"
	echo "|---|---:|---:|---:|---:|---:|"
	for l in themis-lp max-min min-makespan; do
		# Shockwave's reported FTF: N = the trace's 120 jobs on 32 GPUs.
		echo "| $l | $(val "$d" $l makespan int) | $(val "$d" $l response_mean int) | $(fmt f2 "$(awk -v v="$(col "$d" $l ftf_isolated_max)" 'BEGIN { print v / (120 / 32) }')") | $(val "$d" $l ftf_max f2) | $(val "$d" $l preemptions_mean f1) |"
	done
}

philly_las() {
	[ -d "$work/philly-las" ] || run philly-las experiments/philly.json --policy las
}

fig_philly_las() {
	local d=$work/philly-las
	philly_las
	echo "Under las (Tiresias), \`philly.json\` (the whole Philly summary,"
	echo "$(val "$d" las jobs int) jobs, the fat-tree network model on) makes $(fmt int "$(counter "$d" las preemptions)")"
	echo "preemptions at $(fmt int "$(counter "$d" las schedule_calls)") scheduling points."
}

fig_philly_las_job54() {
	local d=$work/philly-las
	philly_las
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	$(k["state"]) == "finished" && $(k["slowdown"]) < 1 {
		below++; if (min == "" || $(k["slowdown"]) < min) min = $(k["slowdown"]) }
	{ n++ }
	$(k["id"]) == 54 { for (c in k) j[c] = $(k[c]) }
	function sep(x,   s, o) { s = sprintf("%.0f", x)
		while (length(s) > 3) { o = "," substr(s, length(s) - 2) o
			s = substr(s, 1, length(s) - 3) } return s o }
	END {
		printf "On `philly.json` under las, %d of %s jobs have a slowdown below 1\n", below, sep(n)
		printf "(%.3f at the least). Job 54 (%d GPUs, submitted at %s s,\n", min, j["gpus"], sep(j["submit"])
		printf "%s, preempted %d times) queued %s s in all and ended\n", j["first_wait"] == 0 ? "started at once" : "started after " sep(j["first_wait"]) " s", j["preemptions"], sep(j["queued"])
		printf "%s s after its submit; its service is %s s, so its slowdown\n", sep(j["response"]), sep(j["service"])
		printf "is %.2f, where `response / run` would say %.0f.\n", j["slowdown"], j["response"] / j["run"]
	}' "$d/las-s1/jobs.csv"
}

fig_philly_vc() {
	local d=$work/philly-vc l
	run philly-vc experiments/philly-vc.json
	echo "| policy | mean wait (s) | mean bounded slowdown |"
	echo "|---|---:|---:|"
	for l in fcfs sjf easy conservative las; do
		row "$d" $l $l wait_mean:f1 bsld_mean:f2
	done
	echo
	echo "The wait is the total time queued, waits after a preemption included, and"
	echo "the bounded slowdown divides by each job's service time, its run time"
	echo "alone (\`docs/metrics.md\`); las's first starts come after $(val "$d" las first_wait_mean f1) s on"
	echo "average, but its preempted jobs queue again."
}

fig_philly_quota() {
	local d=$work/philly-quota l
	run philly-quota experiments/philly-quota.json
	echo "| setup | mean wait (s) | p99 wait (s) | mean JCT (s) | preemptions per job | reclaims | Jain (GPU-h / quota) |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	for l in hard borrow shared; do
		row "$d" $l $l wait_mean:int wait_p99:int response_mean:int \
			preemptions_mean:f3 reclaims:int jain_quota:f3
	done
}

# part_wait DIR LABEL PARTITION: its mean wait in LABEL-s1/partitions.csv.
part_wait() {
	awk -F, -v p="$3" '
	NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	$1 == p { print $(k["wait_mean_s"]); found = 1 }
	END { if (!found) exit 1 }' "$1/$2-s1/partitions.csv" ||
		{ echo "docs-figures: no $3 in $1/$2-s1/partitions.csv" >&2; exit 1; }
}

fig_slurm_priority() {
	local d=$work/slurm-priority l
	run slurm-priority experiments/slurm-priority.json
	echo "| weights | mean wait (s) | p95 wait (s) | mean bounded slowdown | pbatch mean wait (s) | pdebug mean wait (s) |"
	echo "|---|---:|---:|---:|---:|---:|"
	for l in fifo-backfill age-size fairshare fair-tree; do
		echo "$(row "$d" $l $l wait_mean:int wait_p95:int bsld_mean:f2) $(fmt int "$(part_wait "$d" $l pbatch)") | $(fmt int "$(part_wait "$d" $l pdebug)") |"
	done
}

fig_placement() {
	local k d
	run placement-comm experiments/placement-comm.json
	run placement-compute experiments/placement-compute.json
	echo "| experiment | model | mean JCT (s), consolidate | spread | mean placement slowdown, consolidate | spread |"
	echo "|---|---|---:|---:|---:|---:|"
	for k in comm:'Transformer (batch size 16)' compute:'ResNet-50 (batch size 128)'; do
		d=$work/placement-${k%%:*}
		echo "| \`placement-${k%%:*}.json\` | ${k#*:} | $(val "$d" consolidate response_mean int) | $(val "$d" spread response_mean int) | $(val "$d" consolidate placement_slowdown_mean f3) | $(val "$d" spread placement_slowdown_mean f3) |"
	done
}

# The generated large jobs of llm-mixed.json are the ids after its 6,000
# ordinary jobs; the rows are the measured jobs (its "measure" window).
fig_llm_mixed() {
	local d=$work/llm-mixed l
	run llm-mixed experiments/llm-mixed.json
	echo "| policy | large jobs: mean wait (s) | mean JCT (s) | mean placement slowdown | mean nodes (ideal) | other jobs: mean wait (s) | mean bounded slowdown | GPU utilization |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	for l in fcfs easy easy-shape-blind las; do
		awk -F, -v l="$l" -v u="$(val "$d" "$l" utilization_gpu pct1)" '
		NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$(k["measured"]) != 1 { next }
		$(k["id"]) > 6000 { n++; w += $(k["wait"]); r += $(k["response"])
			s += $(k["placement_slowdown"]); nd += $(k["nodes"]); g += $(k["gpus"]); next }
		{ m++; w2 += $(k["wait"]); b2 += $(k["bounded_slowdown"]) }
		function sep(x,   t, o) { t = sprintf("%.0f", x)
			while (length(t) > 3) { o = "," substr(t, length(t) - 2) o
				t = substr(t, 1, length(t) - 3) } return t o }
		END { printf "| %s | %s | %s | %.3f | %.1f (%.1f) | %s | %.2f | %s |\n", l,
			sep(w / n), sep(r / n), s / n, nd / n, g / n / 8, sep(w2 / m), b2 / m, u }' \
			"$d/$l-s1/jobs.csv"
	done
	# The share: GPUs x work (a generated job's estimate is its work
	# rounded up to the second) of the jobs of 64 GPUs or more.
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	{ h = $(k["gpus"]) * $(k["estimate"]); a += h; if ($(k["gpus"]) >= 64) b += h
	  if ($(k["id"]) > 6000) n++ }
	END { printf "\nThe workload: %d large-model jobs among 6,000 ordinary ones; jobs of 64 GPUs\nor more hold %.2f%% of its GPU-hours (the section asks 50%%).\n", n, 100 * b / a }' \
		"$d/fcfs-s1/jobs.csv"
}

fig_rl_lublin() {
	local d=$work/rl-lublin
	"$bin" sweep experiments/rl-lublin.json -q -j 1 -o "$d" >/dev/null ||
		{ echo "docs-figures: rl-lublin.json failed" >&2; exit 1; }
	echo "| policy | mean bounded slowdown | mean wait (s) | worst window's bounded slowdown | windows where rl is better |"
	echo "|---|---:|---:|---:|---:|"
	awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	{ split($(k["label"]), a, "+"); p = a[1]; w = $(k["label"]); sub(/^[^+]*/, "", w)
	  if (!(p in n)) order[++np] = p
	  n[p]++; b[p] += $(k["bsld_mean"]); t[p] += $(k["wait_mean"])
	  if ($(k["bsld_mean"]) > worst[p]) worst[p] = $(k["bsld_mean"])
	  v[p, w] = $(k["bsld_mean"]); wins[w] = 1 }
	END { for (i = 1; i <= np; i++) { p = order[i]; better = 0
		for (w in wins) if (v["rl", w] < v[p, w]) better++
		printf "| %s | %.2f | %.0f | %.2f | %s |\n", p, b[p] / n[p],
			t[p] / n[p], worst[p], p == "rl" ? "-" : better " of " n[p] } }' \
		"$d/summary.csv"
}

fig_search_online() {
	local d=$work/search-online l
	run search-online experiments/search-online.json
	echo "| policy | mean wait (s) | mean response (s) |"
	echo "|---|---:|---:|"
	for l in fcfs easy ga sa ilp; do
		row "$d" $l $l wait_mean:int response_mean:int
	done
}

# The fill experiment: each policy's GPU allocation when the arrivals
# stop (the last point), the mean over the seeds, one column per list.
fig_openb_fill() {
	run openb-fill experiments/openb-fill.json
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	{ l = $(k["label"]); p = $(k["pods_list"]); sub(/^openb_pod_list_/, "", p)
	  if (!(l in seen)) { seen[l] = 1; order[++nl] = l }
	  if (!(p in seenp)) { seenp[p] = 1; lists[++np] = p }
	  s[l, p] += $(k["alloc_ratio"]); n[l, p]++ }
	END {
		printf "| policy |"; for (j = 1; j <= np; j++) printf " %s |", lists[j]
		printf "\n|---|"; for (j = 1; j <= np; j++) printf "---:|"; print ""
		for (i = 1; i <= nl; i++) {
			printf "| %s |", order[i]
			for (j = 1; j <= np; j++)
				printf " %.1f%% |", 100 * s[order[i], lists[j]] / n[order[i], lists[j]]
			print ""
		}
	}' "$work/openb-fill/fill_summary.csv"
}

# A replay experiment: per list and policy, the means over the seeds.
replay_table() {
	run "$1" "experiments/$1.json"
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
	{ l = $(k["label"]); p = $(k["pods_list"]); sub(/^openb_pod_list_/, "", p)
	  if (!((p, l) in seen)) { seen[p, l] = 1; order[++n] = p SUBSEP l }
	  c[p, l]++; w[p, l] += $(k["wait_mean_s"]); q[p, l] += $(k["wait_p99_s"])
	  a[p, l] += $(k["alloc_ratio_mean"]); f[p, l] += $(k["frag_ratio_mean"]) }
	END {
		print "| pod list | policy | mean wait (s) | p99 wait (s) | GPU allocation | fragmentation |"
		print "|---|---|---:|---:|---:|---:|"
		for (i = 1; i <= n; i++) {
			split(order[i], pl, SUBSEP); x = order[i]
			printf "| %s | %s | %.1f | %.1f | %.2f%% | %.2f%% |\n", pl[1], pl[2],
				w[x] / c[x], q[x] / c[x], 100 * a[x] / c[x], 100 * f[x] / c[x]
		}
	}' "$work/$1/replay_summary.csv"
}
fig_openb_replay() { replay_table openb-replay; }
fig_openb_replay_x20000() { replay_table openb-replay-x20000; }

# The validation tables: replays of Parallel Workloads Archive logs.
validation() {
	local d=$work/$1 l
	run "$1" "experiments/$1.json"
	echo "| policy | mean wait (s) | median wait (s) | p99 wait (s) | mean bounded slowdown | utilization | makespan (s) |"
	echo "|---|---|---|---|---|---|---|"
	for l in fcfs easy conservative; do
		row "$d" $l $l wait_mean:f1 wait_median:f1 wait_p99:f1 \
			bsld_mean:f1 utilization:pct2 makespan:int
	done
}
fig_kth() { validation kth; }
fig_curie() { validation curie; }

fig_nasa() {
	local d=$work/nasa l
	run nasa experiments/nasa.json
	echo "| policy | mean wait (s) | mean bounded slowdown | utilization | makespan (s) |"
	echo "|---|---|---|---|---|"
	for l in fcfs easy conservative; do
		row "$d" $l $l wait_mean:f2 bsld_mean:f3 utilization:pct2 \
			makespan:int
	done
}

# The Pollux artifact's baselines on workload 6: its README's mean JCTs
# are 3,469.69375 s (Tiresias) and 5,301.875 s (Optimus+Oracle).
fig_pollux_w6() {
	local d=$work/pollux-w6 m l ref shown
	run pollux-w6 experiments/pollux-w6.json
	echo "| policy | mean JCT (s) | the artifact (s) | difference | preemptions |"
	echo "|---|---:|---:|---:|---:|"
	for l in tiresias optimus; do
		m=$(col "$d" $l response_mean)
		case $l in
		tiresias) ref=3469.69375 shown="tiresias (las)" ;;
		*) ref=5301.875 shown="optimus (Optimus+Oracle)" ;;
		esac
		echo "| $shown | $(fmt f1 "$m") | $(fmt f1 "$ref") | $(awk -v m="$m" -v r="$ref" 'BEGIN { printf "%+.1f%%", 100 * (m - r) / r }') | $(fmt int "$(counter "$d" $l preemptions)") |"
	done
}

# The large-model training model's validation tables, as the command
# prints them (no run, no trace; a fraction of a second).
fig_parallelism() {
	"$bin" parallelism || { echo "docs-figures: parallelism failed" >&2; exit 1; }
}

# ---- main ---------------------------------------------------------------

check=0 print=0
case ${1:-} in
--list)
	printf '%s\n' "$figures" | awk -F'|' 'NF == 3 { printf "%-18s %s\n", $1, $3 }'
	exit 0 ;;
--check) check=1; shift ;;
--print) [ $# -eq 2 ] || usage; print=1; shift ;;
-*) usage ;;
esac
check_markers
want=("$@")
[ ${#want[@]} -gt 0 ] || mapfile -t want < <(known)
for n in "${want[@]}"; do
	known | grep -qx -- "$n" || { echo "docs-figures: unknown figure '$n' (--list)" >&2; exit 2; }
	[ $print = 1 ] || used | grep -qx -- "$n" ||
		{ echo "docs-figures: figure '$n' has no block in the docs" >&2; exit 2; }
done
[ -x "$bin" ] || { echo "docs-figures: $bin: no binary (make build/clustersim)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/docs-figures.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/blocks"
skipped=()
for n in "${want[@]}"; do
	missing=
	for t in $(needs "$n"); do
		[ -e "$traces/$t" ] || missing="$missing $t"
	done
	if [ -n "$missing" ]; then
		skipped+=("$n")
		echo "docs-figures: skipped $n: missing$missing under $traces" >&2
		continue
	fi
	"fig_${n//-/_}" >"$work/blocks/$n.txt"
done
if [ $print = 1 ]; then
	cat "$work/blocks/$1.txt" 2>/dev/null || exit 1
	exit 0
fi

stale=0
for f in "${docs[@]}"; do
	rewrite "$f" "$work/blocks" >"$work/new"
	cmp -s "$f" "$work/new" && continue
	if [ $check = 1 ]; then
		echo "docs-figures: $f: figures are stale (run scripts/docs-figures.sh):" >&2
		diff -u "$f" "$work/new" | sed -n '3,$p' >&2 || true
		stale=1
	else
		cat "$work/new" >"$f"
		echo "docs-figures: rewrote $f"
	fi
done
[ ${#skipped[@]} -eq 0 ] || echo "docs-figures: skipped (traces missing): ${skipped[*]}" >&2
exit $stale
