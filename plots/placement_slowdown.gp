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
# The curve is drawn from the run's cdf_placement_slowdown.csv (at most
# ~2,000 exact points of the CDF of its multi-GPU jobs, written by
# clustersim; docs/metrics.md).  Jobs of one GPU, CPU jobs and jobs that
# did not end are not in it.  A run with no multi-GPU job has a file with
# the header only and draws no curve; when no run has one, the plot says
# so instead of failing.

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
# The shared look (plots/lib/style.gp): palette, dash types, etitle().
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s; seedsnote = "" }

set datafile separator ","
set datafile columnheaders

file(i) = outdir."/".word(runs, i)."/cdf_placement_slowdown.csv"

# Points per run (a file with no row leaves no STATS_ variables, which
# counts as none).
total = 0
do for [i=1:words(runs)] {
	undefine STATS_*
	stats file(i) using (column("rank")) nooutput
	n = exists("STATS_records") ? int(STATS_records) : 0
	total = total + n
}

set title etitle("placement slowdown of multi-GPU jobs, CDF".seedsnote) noenhanced
set xlabel "placement slowdown (time run / time with all-reduce at NVLink speed; ratio, 1 = no loss)"
set ylabel "fraction of multi-GPU jobs"
set yrange [0:1.02]
set grid
if (exists("plotdir")) { eval keyplace(words(runs)) } else { set key outside right top }

if (total == 0) {
	unset key
	set xrange [0:2]
	set label 1 "no job of more than one GPU ran" at graph 0.5, 0.5 center
	plot NaN notitle
} else {
	set xrange [1:*]
	# A run with no multi-GPU job is drawn from an empty file (gnuplot
	# warns and skips it).
	if (exists("bands")) {
		# One curve per label over its seeds (lib/style.gp, seedsnote);
		# a label with no multi-GPU job has an empty block.
		bf = outdir."/plots/seeds_cdf_placement_slowdown.dat"
		set datafile separator whitespace
		set datafile nocolumnheaders
		set style fill transparent solid 0.2 noborder
		eval keyplace(words(groups))
		plot for [g=1:words(groups)] bf index (g - 1) using 1:3:4 \
			with filledcurves lt g notitle, \
		     for [g=1:words(groups)] bf index (g - 1) using 1:2 \
			with steps lw 2 lt g title gtitle(g) noenhanced
	} else {
		plot for [i=1:words(runs)] file(i) \
			using (column("value")):(column("fraction")) \
			with steps lw 2 title word(labels, i) noenhanced
	}
}
