# placement_slowdown.gp: the empirical CDF of the placement slowdown of
# multi-GPU jobs (jobs.csv column "placement_slowdown", for jobs whose
# "gpus" is above 1), one curve per run.  y: the fraction of those jobs
# whose slowdown was at most x.  The placement slowdown is the time a job
# ran over the time the same work would have taken with its all-reduce at
# NVLink speed on the same GPU types (docs/metrics.md): 1 = no loss to
# the fabric.
#
# The next line makes clustersim draw this plot on GPU clusters only:
# draw: gpu
#
# Variables (set with -e by clustersim): outdir (results folder), runs
# (run folders, space-separated), labels (legend texts, same order),
# term ("png" or "svg"), out (output file).
#
# Jobs of one GPU, CPU jobs and jobs that did not run have no value or
# are left out: they are drawn at x = 1 with weight 0 rather than as
# undefined points, because an undefined point splits gnuplot's curve and
# `smooth cnormal` then cumulates each piece on its own (a mixed workload
# drew flat curves near y = 0).  A run with no multi-GPU job draws no curve; when no
# run has one, the plot says so instead of failing.

if (!exists("term")) term = "png"
if (!exists("out")) out = "placement_slowdown.".term
if (term eq "svg") {
	set terminal svg size 900,560 enhanced font "Sans,12" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 900,560 enhanced font "Sans,11"
	} else {
		set terminal png size 900,560
	}
}
set output out

set datafile separator ","
set datafile columnheaders

# The value of a multi-GPU job, else undefined (the point is skipped).
ps(g, v) = (g > 1 && v > 0) ? v : NaN
# What is drawn: every row, the left-out ones at x = 1 with weight 0.
pw(g, v) = (g > 1 && v > 0) ? 1.0 : 0.0
psx(g, v) = (g > 1 && v > 0) ? v : 1.0
file(i) = outdir."/".word(runs, i)."/jobs.csv"

# Multi-GPU jobs per run (stats of a 0/1 indicator; a file with no usable
# row leaves no STATS_ variables, which counts as none).
has = ""
total = 0
do for [i=1:words(runs)] {
	undefine STATS_*
	stats file(i) using (ps(column("gpus"), column("placement_slowdown")) > 0 ? 1 : 0) nooutput
	n = exists("STATS_sum") ? int(STATS_sum) : 0
	has = has.(n > 0 ? "1" : "0")
	total = total + n
}

set title "Placement slowdown of multi-GPU jobs, CDF"
set xlabel "placement slowdown (time run / time with all-reduce at NVLink speed)"
set ylabel "fraction of multi-GPU jobs"
set yrange [0:1.02]
set grid
set key bottom right opaque

if (total == 0) {
	unset key
	set xrange [0:2]
	set label 1 "no job of more than one GPU ran" at graph 0.5, 0.5 center
	plot NaN notitle
} else {
	# A run with no multi-GPU job is drawn from an empty selection
	# (gnuplot warns and skips it).
	set xrange [1:*]
	plot for [i=1:words(runs)] file(i) \
		using (has[i:i] eq "1" ? psx(column("gpus"), column("placement_slowdown")) : NaN) \
		:(pw(column("gpus"), column("placement_slowdown"))) \
		smooth cnormal with steps lw 2 title word(labels, i) noenhanced
}
