# search/convergence.gp: the best score found against evaluations for the
# searches of `clustersim optimize` (ga and sa; greedy and ilp are single
# points), one step curve per method, log-scaled evaluations.  Drawn by
# `clustersim optimize` (a subfolder, so the results plots skip it).
#
# Variables (set with -e): data (OUTPUT/optimize/convergence.csv: method,
# evals, wall_s, best), out (the PNG to write).

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
	set terminal pngcairo size 900,500
} else {
	set terminal png size 900,500
}
set output out
set datafile separator ','
set xlabel 'evaluations'
set ylabel 'best score'
set logscale x
set key top right
plot for [m in 'ga sa'] data using (strcol(1) eq m ? $2 : NaN):4 \
	with steps title m
