# sweep.gp: a sweep's metrics against each of its axes (rows) - mean
# wait, mean bounded slowdown and utilization (columns) - one line per
# policy, the mean over the runs at that axis value (seeds and the other
# axes' values), with a band from their min to their max.
# draw: sweep
#
# Variables (set with -e by clustersim): outdir (results folder), term
# ("png" or "svg"), out (output file).  The data, written by the merge:
# outdir/plots/sweep.dat, one block per axis and policy (gnuplot index
# (axis-1)*npol + policy-1), rows "x label mean min max" x 3 metrics; and
# outdir/plots/sweep_vars.gp (naxes, npol, axis_names, axis_numeric,
# policies, metric_titles).  A value that does not apply is "?".

if (!exists("term")) term = "png"
if (!exists("out")) out = "sweep.".term
load outdir."/plots/sweep_vars.gp"
h = 320 * naxes + 80
if (term eq "svg") {
	set terminal svg size 1200,h enhanced font "Sans,12" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 1200,h enhanced font "Sans,11"
	} else {
		set terminal png size 1200,h
	}
}
set output out
# The shared look (plots/lib/style.gp): palette, dash types, etitle().
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s }

f = outdir."/plots/sweep.dat"
set datafile missing "?"
set style fill transparent solid 0.2 noborder
set grid
set key below horizontal noenhanced
set multiplot layout naxes,3 title etitle("sweep: metrics against each axis, one line per policy (mean; band: min to max over seeds and other axes)") noenhanced
do for [a = 1:naxes] {
	numeric = word(axis_numeric, a) eq "1"
	do for [m = 1:3] {
		col = 3 * m      # mean; min and max follow
		set xlabel word(axis_names, a) noenhanced
		set ylabel word(metric_titles, m)
		if (numeric) {
			unset xtics
			set xtics
			plot for [p = 1:npol] f index ((a - 1) * npol + p - 1) \
			       using 1:(column(col + 1)):(column(col + 2)) \
			       with filledcurves linetype p notitle, \
			     for [p = 1:npol] f index ((a - 1) * npol + p - 1) \
			       using 1:(column(col)) with linespoints \
			       linetype p lw 1.5 title word(policies, p)
		} else {
			plot for [p = 1:npol] f index ((a - 1) * npol + p - 1) \
			       using 1:(column(col + 1)):(column(col + 2)) \
			       with filledcurves linetype p notitle, \
			     for [p = 1:npol] f index ((a - 1) * npol + p - 1) \
			       using 1:(column(col)):xtic(2) with linespoints \
			       linetype p lw 1.5 title word(policies, p)
		}
	}
}
unset multiplot
