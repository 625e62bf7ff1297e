# sweep.gp: a sweep's metrics against each of its axes (rows) - mean
# wait, mean bounded slowdown and utilization (columns).  Against an axis,
# one line per series: a policy, and with several axes a value of each
# other axis (easy+count=64), at each of the axis' values the mean over
# the seeds of that point, with a band from their min to their max.  One
# legend per row, at its right.  Wait and bounded slowdown are on a log
# axis when their values are all above 0 and span more than a decade.
# draw: sweep
#
# Variables (set with -e by clustersim): outdir (results folder), term
# ("png" or "svg"), out (output file).  The data, written by the merge:
# outdir/plots/sweep.dat, one block per axis and series, rows "x label
# mean min max" x 3 metrics; and outdir/plots/sweep_vars.gp (naxes, npol,
# axis_names, axis_numeric, policies, metric_titles, nser: series per
# axis, stitles: their titles in block order, metric_log, fixed: the
# axes of one value, "name=value, ...", which get no row but are named in
# the title).  A value that does not apply is "?".

if (!exists("term")) term = "png"
if (!exists("out")) out = "sweep.".term
load outdir."/plots/sweep_vars.gp"
if (!exists("fixed")) fixed = ""
if (!exists("nser")) {
	nser = ""
	stitles = ""
	metric_log = "0 0 0"
	do for [a = 1:naxes] {
		nser = nser." ".npol
		stitles = stitles." ".policies
	}
}
h = 300 * naxes + 70
if (term eq "svg") {
	set terminal svg size 1400,h enhanced font "Sans,12" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 1400,h enhanced font "Sans,11"
	} else {
		set terminal png size 1400,h
	}
}
set output out
# The shared look (plots/lib/style.gp): palette, dash types, etitle().
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s }

f = outdir."/plots/sweep.dat"
set datafile missing "?"
set style fill transparent solid 0.2 noborder
set grid
# Panels: 3 per row over the left 76% of the canvas, the legend right.
pw = 0.76 / 3
ph = (1.0 - 60.0 / h) / naxes
at = (fixed eq "") ? "" : " at ".fixed
set multiplot title etitle("sweep: metrics against each axis".at." (line: mean over the seeds; band: min to max)") noenhanced
first = 0
do for [a = 1:naxes] {
	numeric = word(axis_numeric, a) eq "1"
	ns = int(word(nser, a))
	y0 = 1.0 - 60.0 / h - a * ph
	do for [m = 1:3] {
		col = 3 * m      # mean; min and max follow
		set origin (m - 1) * pw, y0
		set size pw, ph
		set xlabel word(axis_names, a) noenhanced
		set ylabel word(metric_titles, m)
		unset key
		if (word(metric_log, m) eq "1") {
			set logscale y
			set format y "10^{%L}"
		} else {
			unset logscale y
			set format y "%g"
		}
		if (numeric) {
			unset xtics
			set xtics
			plot for [s = 1:ns] f index (first + s - 1) \
			       using 1:(column(col + 1)):(column(col + 2)) \
			       with filledcurves lt s notitle, \
			     for [s = 1:ns] f index (first + s - 1) \
			       using 1:(column(col)) with linespoints \
			       lt s lw 1.5 notitle
		} else {
			plot for [s = 1:ns] f index (first + s - 1) \
			       using 1:(column(col + 1)):(column(col + 2)) \
			       with filledcurves lt s notitle, \
			     for [s = 1:ns] f index (first + s - 1) \
			       using 1:(column(col)):xtic(2) with linespoints \
			       lt s lw 1.5 notitle
		}
	}
	# The row's legend: an empty plot with the series' keys.
	set origin 3 * pw, y0
	set size 1 - 3 * pw, ph
	unset logscale y
	unset xlabel
	unset ylabel
	unset border
	unset tics
	unset grid
	set xrange [0:1]
	set yrange [0:1]
	set key inside left center vertical noenhanced font ",10"
	set key title "against ".word(axis_names, a) noenhanced
	plot for [s = 1:ns] NaN with linespoints lt s lw 1.5 \
		title word(stitles, first + s)
	set border
	set tics
	set grid
	set xrange [*:*]
	set yrange [*:*]
	unset key
	first = first + ns
}
unset multiplot
