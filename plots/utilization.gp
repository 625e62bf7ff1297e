# utilization.gp: CPU utilization over time (timeline.csv column
# "utilization_avg", the time-weighted mean since the previous sample),
# or on a GPU cluster GPU utilization ("gpu_utilization_avg"), one curve
# per run; time in hours since the workload's start.
#
# Variables (set with -e by clustersim): outdir (results folder), runs
# (run folders, space-separated), labels (legend texts, same order),
# term ("png" or "svg"), out (output file), resource ("cpu" or "gpu").
#
# A sample's utilization_avg covers the interval that ends at its time,
# so the curve is drawn with fsteps (rise at the interval's start).

if (!exists("term")) term = "png"
if (!exists("out")) out = "utilization.".term
if (!exists("resource")) resource = "cpu"
col = (resource eq "gpu") ? "gpu_utilization_avg" : "utilization_avg"
what = (resource eq "gpu") ? "GPU" : "CPU"
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
set title etitle(what." utilization over time") noenhanced
set xlabel "time (hours)"
set ylabel "utilization (allocated / capacity, fraction)"
set yrange [0:1.05]
set grid
if (exists("plotdir")) { eval keyplace(words(runs)) } else { set key outside right top }

plot for [i=1:words(runs)] outdir."/".word(runs, i)."/timeline.csv" \
	using (column("time") / 3600.0):(column(col)) \
	with fsteps lw 1.5 title word(labels, i) noenhanced
