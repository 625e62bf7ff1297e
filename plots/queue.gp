# queue.gp: the number of pending jobs over time (timeline.csv column
# "queued") as small multiples, as utilization.gp draws them: one panel per
# policy (per label: the seeds of a label share its panel and colour),
# stacked on one time axis and one y axis.  Time in seconds, hours or days
# (by the span) since the workload's start.
#
# Variables (set with -e by clustersim): outdir (results folder), runs
# (run folders, space-separated), labels (legend texts, same order),
# term ("png" or "svg"), out (output file); groups, gseeds, rungroup
# (lib/style.gp).
#
# A sample is the state after everything at its time happened, and it
# holds until the next sample, hence steps.  y is pending jobs + 1 on a
# log axis: queues of policies differ by decades (fcfs against easy on
# KTH), and an empty queue (0) shows at y = 1.

if (!exists("term")) term = "png"
if (!exists("out")) out = "queue.".term
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s; tunit(s) = 3600; tname(t) = "hours"; groups = labels; gtitle(g) = word(groups, g); rlt(i) = i }

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

# One time axis and one y axis for every panel.
tmax = 0
tmin = NaN
qmax = 1
do for [i=1:words(runs)] {
	undefine STATS_*
	stats file(i) using (column("time")):(column("queued") + 1) nooutput
	if (exists("STATS_max_x") && STATS_max_x > tmax) { tmax = STATS_max_x }
	if (exists("STATS_min_x") && !(STATS_min_x >= tmin)) { tmin = STATS_min_x }
	if (exists("STATS_max_y") && STATS_max_y > qmax) { qmax = STATS_max_y }
}
# From the first sample (a trace's times may start late: Curie's at day
# 366), in the unit of the span.
tmin = tmin == tmin ? tmin : 0
tu = tunit(tmax - tmin)
set xrange [tmin / tu:(tmax > tmin ? tmax / tu : tmin / tu + 1)]
set logscale y
# The top decade above the data holds the panel's name.
qtop = 10 ** (ceil(log10(qmax)) + 1)
set yrange [1:qtop]
# No tick at the top, where it would meet the next panel's lowest.
set ytics 1, 10, qtop / 10 format "10^{%L}"
set grid xtics ytics
unset key
set lmargin 10
set rmargin 3

top = 1.0 - 60.0 / h
bot = 70.0 / h
set multiplot layout nrow,ncol columnsfirst margins screen 0.1, 0.97, bot, top spacing 0.08, 0.012 \
	title etitle("queue length over time (pending jobs + 1, log scale), one panel per ".(strstrt(groups, "+") > 0 ? "policy and sweep point" : "policy")) noenhanced
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
	set label 1 gtitle(p) at graph 0.01, first qtop / 4 left front noenhanced
	set ylabel (row == int((nrow + 1) / 2) ? "pending jobs + 1" : "")
	sel = ""
	do for [i=1:words(runs)] { if (rlt(i) == p) { sel = sel.sprintf(" %d", i) } }
	plot for [k in sel] file(int(k)) \
		using (column("time") / tu):(column("queued") + 1) \
		with steps lw 1 lt p notitle
}
unset multiplot
