# projects.gp: each project's GPUs over time against its quota, one panel
# per project (runs on a cluster with tenants, docs/tenants.md): the mean
# GPUs its running jobs held in each of 400 bins of the run (solid) and
# its guaranteed quota (dashed).  Above the dashed line it borrows idle
# GPUs of others; a drop back to it is a reclaim or jobs ending.
#
# The next line makes clustersim draw this plot once per run that has a
# projects_gpus.csv, into plots/projects-<run folder>.png and .svg:
# draw: tenants
#
# Variables (set with -e by clustersim): runs (the run's folder), labels
# (its label), term ("png" or "svg"), out (output file), data (the run's
# projects_gpus.csv: a header naming the projects, a row "quota", then
# one row per bin: its middle in hours and each project's mean GPUs).

if (!exists("term")) term = "png"
if (!exists("out")) out = "projects.".term
if (!exists("runs")) runs = "run"
if (!exists("data")) data = "projects_gpus.csv"
set datafile separator ","
stats data every ::2 nooutput
n = STATS_columns - 1
cols = (n <= 1) ? 1 : (n <= 4) ? 2 : (n <= 9) ? 3 : (n <= 16) ? 4 : 5
rows = int(ceil(n * 1.0 / cols))
if (term eq "svg") {
	set terminal svg size 320 * cols + 80, 220 * rows + 60 enhanced font "Sans,10" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 320 * cols + 80, 220 * rows + 60 enhanced font "Sans,9"
	} else {
		set terminal png size 320 * cols + 80, 220 * rows + 60
	}
}
set output out
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s }
set key top left opaque font ",8" samplen 2
set grid
set tics font ",7"
set multiplot layout rows, cols title etitle("GPUs held per project (solid) and quota (dashed), ".runs) noenhanced
do for [c = 2:n + 1] {
	set autoscale y
	stats data every ::1::1 using c nooutput
	q = STATS_max
	stats data every ::2 using c nooutput
	top = (STATS_max > q ? STATS_max : q)
	set yrange [0:(top > 0 ? top * 1.3 : 1)]
	set xlabel "time (hours)" offset 0,0.5
	set ylabel "GPUs" offset 1,0
	set key noenhanced
	plot data every ::2 using 1:c with lines lt 1 title columnhead(c), \
	     q with lines lt 2 dashtype 2 lw 1.5 title "quota"
}
unset multiplot
