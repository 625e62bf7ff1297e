# searches.gp: hyperparameter searches under each policy (searches.csv of
# each run, docs/metrics.md "Searches"): left, the time from a search's
# submit until its best trial finished (hours; a search whose best trial
# never finished draws no point); right, the GPU-hours its trials held.
# One point per search (x: the search's number), one line per run.
#
# draw: searches
#
# Variables (set with -e by clustersim): outdir (results folder), runs
# (run folders, space-separated), labels (legend texts, same order),
# term ("png" or "svg"), out (output file); groups, gseeds, rungroup
# (lib/style.gp).

if (!exists("term")) term = "png"
if (!exists("out")) out = "searches.".term
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s; groups = labels; rlt(i) = i; rtitle(i) = word(labels, i) }

if (term eq "svg") {
	set terminal svg size 1100,520 enhanced font "Sans,12" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 1100,520 enhanced font "Sans,11"
	} else {
		set terminal png size 1100,520
	}
}
set output out

set datafile separator ","
set datafile columnheaders
file(i) = outdir."/".word(runs, i)."/searches.csv"
# An empty cell (no best trial) is no point.
cell(c) = strcol(c) eq "" ? NaN : column(c)

set grid xtics ytics
set xlabel "search"
set key top left noenhanced
set multiplot layout 1,2 title etitle("hyperparameter searches: time to the best trial and GPU-hours, per search") noenhanced
set ylabel "time to best trial (hours)"
set yrange [0:*]
plot for [i=1:words(runs)] file(i) using (column("search")):(cell("time_to_best") / 3600) \
	with linespoints lt rlt(i) pt 7 ps 0.7 title rtitle(i)
set ylabel "GPU-hours of its trials"
plot for [i=1:words(runs)] file(i) using (column("search")):(column("gpu_hours")) \
	with linespoints lt rlt(i) pt 7 ps 0.7 title rtitle(i)
unset multiplot
