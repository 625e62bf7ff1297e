# search/convergence.gp: the best score found against evaluations for the
# searches of `clustersim optimize` (ga and sa, one step curve each;
# greedy and ilp are single points), log-scaled evaluations, with two
# horizontal references from summary.csv beside the data: the lower bound
# (no schedule scores below it) and greedy's score (what the searches
# must beat).  Drawn by `clustersim optimize` (a subfolder, so the
# results plots skip it).
#
# Variables (set with -e): data (OUTPUT/optimize/convergence.csv: method,
# evals, wall_s, best), term ("png", the default, or "svg"), out (the
# file to write), objective (the score optimized, e.g. "twct"), experiment (its name, for the title), plotdir
# (the plots folder, for lib/style.gp).  summary.csv is read from the
# folder of data.

if (!exists("term")) term = "png"
if (term eq "svg") {
	set terminal svg size 900,500 enhanced font "Sans,12" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 900,500 enhanced font "Sans,11"
	} else {
		set terminal png size 900,500
	}
}
set output out
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s }
if (!exists("objective")) objective = "score"
set datafile separator ','
set datafile columnheaders

summ = data[1:strlen(data) - strlen("convergence.csv")]."summary.csv"
# lower_bound (column 4, equal on every row) and greedy's score (column 3);
# NaN where summary.csv has no such row.
undefine STATS_*
stats summ using 4 nooutput
lb = exists("STATS_max") ? STATS_max : NaN
undefine STATS_*
stats summ using (strcol(1) eq "greedy" ? $3 : NaN) nooutput
gr = exists("STATS_max") && STATS_records > 0 ? STATS_max : NaN

# The searches' final scores: when they, greedy and the bound are one
# value, the lines lie on each other, so the plot says so.
undefine STATS_*
stats data using (strcol(1) eq "ga" || strcol(1) eq "sa" ? $4 : NaN) nooutput
best_hi = exists("STATS_records") && STATS_records > 0 ? STATS_max : NaN
same(a, b) = abs(a - b) <= 1e-9 * abs(b)
if (lb == lb && gr == gr && best_hi == best_hi && same(gr, lb) && same(best_hi, lb)) {
	set label 1 sprintf("greedy, ga and sa all reach the lower bound, %.10g:\nthe lines coincide", lb) at graph 0.5, graph 0.3 center
}
set title etitle("search convergence, objective ".objective." (lower is better)") noenhanced
set xlabel 'evaluations (log scale)'
set ylabel 'best score ('.objective.')' noenhanced
set format y '%.4g'
set logscale x
set format x '10^{%L}'
set grid
set key outside right top
plot for [m in 'ga sa'] data using (strcol(1) eq m ? $2 : NaN):4 \
	with steps title m, \
     (lb == lb ? lb : NaN) with lines lt 7 dt 3 lw 1.5 title "lower bound", \
     (gr == gr ? gr : NaN) with lines lt 8 dt 2 lw 1.5 title "greedy"
