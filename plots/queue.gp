# queue.gp: the number of pending jobs over time (timeline.csv column
# "queued"), one curve per run; time in hours since the workload's start.
#
# Variables (set with -e by clustersim): outdir (results folder), runs
# (run folders, space-separated), labels (legend texts, same order),
# term ("png" or "svg"), out (output file).
#
# A sample is the state after everything at its time happened, and it
# holds until the next sample, hence steps.

if (!exists("term")) term = "png"
if (!exists("out")) out = "queue.".term
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
set title "Queue length over time"
set xlabel "time (hours)"
set ylabel "pending jobs"
set yrange [0:*]
set grid
set key top right opaque

plot for [i=1:words(runs)] outdir."/".word(runs, i)."/timeline.csv" \
	using (column("time") / 3600.0):(column("queued")) \
	with steps lw 1.5 title word(labels, i) noenhanced
