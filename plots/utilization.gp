# utilization.gp: CPU utilization over time (timeline.csv column
# "utilization_avg", the time-weighted mean since the previous sample),
# or on a GPU cluster GPU utilization ("gpu_utilization_avg"), as small
# multiples: one panel per policy (per label: the seeds of a label share
# its panel and colour), stacked on one time axis, each from 0 to 1 (its name above the 1).  The
# curves of several policies cross each other hundreds of times, so drawn
# over each other they cannot be told apart; side by side they can, and
# the shared axes keep them comparable.  Time in seconds, hours or days
# since the workload's start, by the span.
#
# Variables (set with -e by clustersim): outdir (results folder), runs
# (run folders, space-separated), labels (legend texts, same order),
# term ("png" or "svg"), out (output file), resource ("cpu" or "gpu");
# groups, gseeds, rungroup (lib/style.gp).
#
# A sample's utilization_avg covers the interval that ends at its time,
# so the curve is drawn with fsteps (rise at the interval's start).

if (!exists("term")) term = "png"
if (!exists("out")) out = "utilization.".term
if (!exists("resource")) resource = "cpu"
col = (resource eq "gpu") ? "gpu_utilization_avg" : "utilization_avg"
what = (resource eq "gpu") ? "GPU" : "CPU"
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s; tunit(s) = 3600; tname(t) = "hours"; groups = labels; gtitle(g) = word(groups, g); rlt(i) = i; rungroup = ""; do for [i=1:words(runs)] { rungroup = rungroup.sprintf(" %d", i) } }

set datafile separator ","
set datafile columnheaders
file(i) = outdir."/".word(runs, i)."/timeline.csv"

# The panels: one per group, in up to 8 rows, then two columns.
np = words(groups)
np = np < 1 ? 1 : np
ncol = np <= 8 ? 1 : 2
nrow = int(ceil(np / real(ncol)))
ph = nrow <= 2 ? 240 : 150
h = ph * nrow + 110
if (term eq "svg") {
	set terminal svg size 900,h enhanced font "Sans,12" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 900,h enhanced font "Sans,11"
	} else {
		set terminal png size 900,h
	}
}
set output out

# One time axis for every panel: the latest sample of any run.
tmax = 0
tmin = NaN
do for [i=1:words(runs)] {
	undefine STATS_*
	stats file(i) using (column("time")) nooutput
	if (exists("STATS_max") && STATS_max > tmax) { tmax = STATS_max }
	if (exists("STATS_min") && !(STATS_min >= tmin)) { tmin = STATS_min }
}
# From the first sample (a trace's times may start late: Curie's at day
# 366), in the unit of the span.
tmin = tmin == tmin ? tmin : 0
tu = tunit(tmax - tmin)
set xrange [tmin / tu:(tmax > tmin ? tmax / tu : tmin / tu + 1)]
# Room above 1 for the panel's name, so it hides no data.
set yrange [0:1.32]
set ytics 0, 0.5, 1 format "%.1f"
set mytics 5
set grid xtics ytics mytics
unset key
set lmargin 10
set rmargin 3

top = 1.0 - 60.0 / h
bot = 70.0 / h
set multiplot layout nrow,ncol columnsfirst margins screen 0.1, 0.97, bot, top spacing 0.08, 0.012 \
	title etitle(what." utilization over time (allocated / capacity, fraction), one panel per ".(strstrt(groups, "+") > 0 ? "policy and sweep point" : "policy")) noenhanced
do for [p=1:np] {
	row = (p - 1) % nrow + 1
	if (row == nrow || p == np) {
		set format x "%g"
		set xlabel "time (".tname(tu).")"
	} else {
		set format x ""
		unset xlabel
	}
	unset label 1
	set label 1 gtitle(p) at graph 0.01, first 1.16 left front noenhanced
	set ylabel (row == int((nrow + 1) / 2) ? "utilization" : "")
	sel = ""
	do for [i=1:words(runs)] { if (rlt(i) == p) { sel = sel.sprintf(" %d", i) } }
	plot for [k in sel] file(int(k)) using (column("time") / tu):(column(col)) \
		with fsteps lw 1 lt p notitle
}
unset multiplot
