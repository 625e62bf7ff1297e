# fill_alloc.gp: GPU allocation ratio against the arrived GPU load in a fill experiment
# (sim/run/fill_run.c), one curve per policy: the mean over seeds, with a band
# from the seeds' minimum to maximum.  Read from fill-<list>.csv columns
# "<label>_alloc_mean", "_min", "_max".
#
# Variables (set with -e by clustersim): data (the fill-<list>.csv file),
# labels (policy labels, space-separated), term ("png" or "svg"), out
# (output file), list (the pod list's name, for the title), experiment
# (its name, for the title), plotdir (for lib/style.gp).  Every policy's
# curve spans the same loads, 1% to the experiment's last.
# Kept in plots/fill/, not plots/, so replay results do not draw it.

if (!exists("term")) term = "png"
if (!exists("out")) out = "fill_alloc.".term
if (!exists("list")) list = ""
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
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s }

set datafile separator ","
set datafile columnheaders
set title etitle("GPU allocation ratio vs arrived load: ".list."\n(line: mean of the seeds; band: min to max)") noenhanced
set xlabel "arrived GPU load (% of GPU capacity)"
set ylabel "allocated GPUs / GPU capacity (fraction)"
set grid
set key outside right top
set style fill transparent solid 0.2 noborder

plot for [i=1:words(labels)] data \
	using 1:(column(word(labels, i)."_alloc_min")):(column(word(labels, i)."_alloc_max")) \
	with filledcurves lt i notitle, \
     for [i=1:words(labels)] data \
	using 1:(column(word(labels, i)."_alloc_mean")) \
	with lines lw 2 lt i title word(labels, i) noenhanced
