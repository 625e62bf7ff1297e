# replay_frag.gp: GPU fragmentation (frag.h, against the list's pod shapes) over time in a replay experiment
# (sim/run/fill_replay_run.c) as small multiples: one panel per policy on
# shared axes (hourly samples of six policies over months cross each other
# too often to read drawn together), each the mean over seeds with a band
# from the seeds' minimum to maximum (only random differs by seed).
# Read from replay-<list>.csv columns "time_s" and "<label>_frag_mean",
# "_min", "_max"; time is drawn in seconds, hours or days, by the
# span.
#
# Variables (set with -e by clustersim): data (the replay-<list>.csv file),
# labels (policy labels, space-separated), term ("png" or "svg"), out
# (output file), list (the pod list's name, for the title), experiment
# (its name, for the title), plotdir (for lib/style.gp), window_s (the
# seconds from the first arrival to the last).

if (!exists("term")) term = "png"
if (!exists("out")) out = "replay_frag.".term
if (!exists("list")) list = ""
np = words(labels)
np = np < 1 ? 1 : np
ph = np <= 2 ? 240 : 130
h = ph * np + 130
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
# The shared look (plots/lib/style.gp): palette, dash types, etitle().
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s; tunit(s) = s < 7200 ? 1 : (s < 5 * 86400 ? 3600 : 86400); tname(t) = t == 1 ? "s" : (t == 3600 ? "hours" : "days") }

set datafile separator ","
set datafile columnheaders
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
# One y axis: the greatest max of any policy, with room for the name.
fmax = 0
do for [i=1:words(labels)] {
	undefine STATS_*
	stats data using (column(word(labels, i)."_frag_max")) nooutput
	fmax = exists("STATS_max") && STATS_max > fmax ? STATS_max : fmax
}
fmax = fmax > 0 ? fmax : 1
set yrange [0:fmax * 1.3]
# Ticks at a round step, at most four, none at the top.
e = 10 ** floor(log10(fmax))
ystep = fmax / e >= 5 ? 2 * e : (fmax / e >= 2 ? e : e / 2)
set ytics 0, ystep, fmax format "%g"
set mytics 2
set grid xtics ytics
unset key
set style fill transparent solid 0.25 noborder
set lmargin 10
set rmargin 3
top = 1.0 - 70.0 / h
bot = 70.0 / h
set multiplot layout np,1 margins screen 0.1, 0.97, bot, top spacing 0, 0.012 \
	title etitle("GPU fragmentation over time: ".list."\n(line: mean of the seeds; band: min to max; one panel per policy)") noenhanced
do for [i=1:np] {
	if (i == np) {
		set format x "%g"
		set xlabel "time since the first arrival, to the last (".tname(tu).")"
	} else {
		set format x ""
		unset xlabel
	}
	unset label 1
	set label 1 word(labels, i) at graph 0.01, first fmax * 1.15 left front noenhanced
	set ylabel (i == int((np + 1) / 2) ? "fragmented GPUs / GPU capacity (fraction)" : "")
	plot data using (column("time_s") / tu):(column(word(labels, i)."_frag_min")):(column(word(labels, i)."_frag_max")) \
		with filledcurves lt i notitle, \
	     data using (column("time_s") / tu):(column(word(labels, i)."_frag_mean")) \
		with lines lw 1.5 lt i notitle
}
unset multiplot
