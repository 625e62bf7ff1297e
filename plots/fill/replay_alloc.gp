# replay_alloc.gp: GPU allocation ratio over time in a replay experiment
# (sim/run/fill_replay_run.c), one curve per policy: the mean over seeds, with
# a band from the seeds' minimum to maximum (only random differs by seed).
# Read from replay-<list>.csv columns "time_s" and "<label>_alloc_mean",
# "_min", "_max"; time is drawn in seconds, hours or days, by the
# span.
#
# Variables (set with -e by clustersim): data (the replay-<list>.csv file),
# labels (policy labels, space-separated), term ("png" or "svg"), out
# (output file), list (the pod list's name, for the title), experiment
# (its name, for the title), plotdir (for lib/style.gp), window_s (the
# seconds from the first arrival to the last).

if (!exists("term")) term = "png"
if (!exists("out")) out = "replay_alloc.".term
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
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s; tunit(s) = s < 7200 ? 1 : (s < 5 * 86400 ? 3600 : 86400); tname(t) = t == 1 ? "s" : (t == 3600 ? "hours" : "days") }

set datafile separator ","
set datafile columnheaders
set title etitle("GPU allocation ratio over time: ".list."\n(line: mean of the seeds; band: min to max)") noenhanced
# The measurement window, common to every policy: first to last arrival
# (window_s, in seconds, from clustersim; time_s counts from the first).
wend = exists("window_s") ? real(window_s) : NaN
stats data using (column("time_s")) nooutput
tlast = STATS_max
wend = wend == wend ? wend : tlast
# Drawn over the window, which every policy's run spans (past the last
# arrival a run samples on only while pods wait, so the runs end apart).
span = wend
tu = tunit(span)
set xrange [0:(span > 0 ? span / tu : 1)]
set xlabel "time since the first arrival, to the last (".tname(tu).")"
set ylabel "allocated GPUs / GPU capacity (fraction)"
set grid
set key outside right top
set style fill transparent solid 0.2 noborder

plot for [i=1:words(labels)] data \
	using (column("time_s") / tu):(column(word(labels, i)."_alloc_min")):(column(word(labels, i)."_alloc_max")) \
	with filledcurves lt i notitle, \
     for [i=1:words(labels)] data \
	using (column("time_s") / tu):(column(word(labels, i)."_alloc_mean")) \
	with lines lw 2 lt i title word(labels, i) noenhanced
