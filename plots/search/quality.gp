# search/quality.gp: the gap to the lower bound of each search method
# (greedy, ga, sa, ilp) on each instance of scripts/search-quality.sh, as
# grouped bars.  Drawn by that script only (a subfolder, so clustersim's
# results plots, which are the scripts directly in plots/, skip it).
#
# Variables (set with -e): dat (the data: a header row, then one row per
# instance "name greedy ga sa ilp" with gaps in percent, "?" where a
# method gave no schedule), out (the PNG to write).

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 1000,480 enhanced font "Sans,11"
} else {
	set terminal png size 1000,480
}
set output out
set datafile missing "?"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left
set grid ytics
set yrange [0:*]
set ylabel "gap to the lower bound (%)"
set xlabel "instance (trace-jobs), twct, equal wall-clock budget per method"
set title "Search quality: (score - lower bound) / score, lower is better"
plot dat using 2:xtic(1) title columnheader(2), \
	'' using 3 title columnheader(3), \
	'' using 4 title columnheader(4), \
	'' using 5 title columnheader(5)
