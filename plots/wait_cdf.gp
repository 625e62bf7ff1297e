# wait_cdf.gp: the empirical CDF of job waits (jobs.csv column "wait"),
# one curve per run.  y: the fraction of jobs that waited at most x.
#
# Variables (set with -e by clustersim): outdir (results folder), runs
# (run folders, space-separated), labels (legend texts, same order),
# term ("png" or "svg"), out (output file).
#
# x is wait + 1 s on a log axis: waits span seconds to days, so a log axis
# is needed, and many jobs wait 0 s, which a log axis cannot show; adding
# 1 s puts them at x = 1.  The curve is drawn from the run's
# cdf_wait.csv (at most ~2,000 exact points of the CDF, written by
# clustersim; docs/metrics.md), not from every job, so a run of millions
# of jobs plots in a moment.  Jobs that never started (rejected) are left
# out.

if (!exists("term")) term = "png"
if (!exists("out")) out = "wait_cdf.".term
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
set title etitle("job wait time, CDF".seedsnote) noenhanced
set xlabel "wait + 1 (s, log scale)"
set ylabel "fraction of jobs"
set logscale x
set format x "10^{%L}"
set grid
if (exists("plotdir")) { eval keyplace(words(runs)) } else { set key outside right top }

# Where most jobs do not wait (NASA: 99.9%, philly-gen: 91%), every curve
# starts near 1 and the whole plot is one flat line at the top: the y
# axis then starts just below the least share of jobs that waited no
# longer than the first point (said in the label), so the tail shows.
fmin = 1
do for [i=1:words(runs)] {
	undefine STATS_*
	stats outdir."/".word(runs, i)."/cdf_wait.csv" using (column("fraction")) nooutput
	if (exists("STATS_min") && STATS_min < fmin) { fmin = STATS_min }
}
if (fmin >= 0.5 && fmin < 1) {
	ylo = floor((1 - 1.25 * (1 - fmin)) * 1000) / 1000.0
	set yrange [ylo:1 + 0.02 * (1 - ylo)]
	set ylabel sprintf("fraction of jobs (axis from %g)", ylo)
} else {
	set yrange [0:1.02]
}

if (exists("bands")) {
	# One curve per label over its seeds (lib/style.gp, seedsnote).
	bf = outdir."/plots/seeds_cdf_wait.dat"
	set datafile separator whitespace
	set datafile nocolumnheaders
	set style fill transparent solid 0.2 noborder
	eval keyplace(words(groups))
	plot for [g=1:words(groups)] bf index (g - 1) using ($1 + 1):3:4 \
		with filledcurves lt g notitle, \
	     for [g=1:words(groups)] bf index (g - 1) using ($1 + 1):2 \
		with steps lw 2 lt g title gtitle(g) noenhanced
} else {
	plot for [i=1:words(runs)] outdir."/".word(runs, i)."/cdf_wait.csv" \
		using (column("value") + 1):(column("fraction")) with steps lw 2 \
		title word(labels, i) noenhanced
}
