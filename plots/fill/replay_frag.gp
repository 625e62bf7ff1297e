# replay_frag.gp: GPU fragmentation (frag.h, against the list's pod shapes) over time in a replay experiment
# (sim/run/fill_replay_run.c), one curve per policy: the mean over seeds, with
# a band from the seeds' minimum to maximum (only random differs by seed).
# Read from replay-<list>.csv columns "time_s" and "<label>_frag_mean",
# "_min", "_max"; time is drawn in seconds, hours or days, by the
# span of the samples.
#
# Variables (set with -e by clustersim): data (the replay-<list>.csv file),
# labels (policy labels, space-separated), term ("png" or "svg"), out
# (output file), list (the pod list's name, for the title).

if (!exists("term")) term = "png"
if (!exists("out")) out = "replay_frag.".term
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

set datafile separator ","
set datafile columnheaders
set title "GPU fragmentation over time: ".list noenhanced
# The time unit: by the span of the samples.
stats data using (column("time_s")) nooutput
span = STATS_max
tu = span < 7200 ? 1 : (span < 5 * 86400 ? 3600 : 86400)
tname = tu == 1 ? "s" : (tu == 3600 ? "hours" : "days")
set xlabel "time since the first arrival (".tname.")"
set ylabel "fragmented GPU share / GPU capacity"
set grid
set key outside right top
set style fill transparent solid 0.2 noborder

plot for [i=1:words(labels)] data \
	using (column("time_s") / tu):(column(word(labels, i)."_frag_min")):(column(word(labels, i)."_frag_max")) \
	with filledcurves lc i notitle, \
     for [i=1:words(labels)] data \
	using (column("time_s") / tu):(column(word(labels, i)."_frag_mean")) \
	with lines lw 2 lc i title word(labels, i) noenhanced
