# queue.gp: the number of pending jobs over time (timeline.csv column
# "queued"), one curve per run; time in hours since the workload's start.
#
# Variables (set with -e by clustersim): outdir (results folder), runs
# (run folders, space-separated), labels (legend texts, same order),
# term ("png" or "svg"), out (output file).
#
# A sample is the state after everything at its time happened, and it
# holds until the next sample, hence steps.  y is pending jobs + 1 on a
# log axis: queues of policies differ by decades (fcfs against easy on
# KTH), and an empty queue (0) shows at y = 1.

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
# The shared look (plots/lib/style.gp): palette, dash types, etitle().
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s }

set datafile separator ","
set datafile columnheaders
set title etitle("queue length over time") noenhanced
set xlabel "time (hours)"
set ylabel "pending jobs + 1 (jobs, log scale)"
set logscale y
set yrange [1:*]
set grid
if (exists("plotdir")) { eval keyplace(words(runs)) } else { set key outside right top }

plot for [i=1:words(runs)] outdir."/".word(runs, i)."/timeline.csv" \
	using (column("time") / 3600.0):(column("queued") + 1) \
	with steps lw 1 title word(labels, i) noenhanced
