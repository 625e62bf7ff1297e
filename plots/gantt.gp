# gantt.gp: the Gantt chart of one run: x the time, y the node, one box
# per placement interval of a job (allocations.csv; a preempted or
# migrated job has several), each job in its own colour, the colours
# taken in turn by job id.  A GPU job's box says nothing of how many of
# the node's GPUs it held (allocations.csv's gpus column does); jobs that
# share GPUs draw overlapping, half-transparent boxes.
#
# The next line makes clustersim draw this plot once per run that has an
# allocations.csv ("allocations": true or run --allocations) of at most
# 5,000 jobs, into plots/gantt-<run folder>.png and .svg:
# draw: allocations
#
# Variables (set with -e by clustersim): runs (the run's folder), labels
# (its label), term ("png" or "svg"), out (output file), data (the boxes:
# clustersim writes plots/gantt-<run folder>.dat from allocations.csv, one
# line "job start end first_node last_node gpus" per range of a row's node
# set, since gnuplot cannot split the quoted sets "0-3,7").
#
# Time is in seconds since the workload's start (hours for a span of more
# than two hours), from the first start to the last end.

if (!exists("term")) term = "png"
if (!exists("out")) out = "gantt.".term
if (!exists("runs")) runs = "run"
if (term eq "svg") {
	set terminal svg size 1000,600 enhanced font "Sans,12" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 1000,600 enhanced font "Sans,11"
	} else {
		set terminal png size 1000,600
	}
}
set output out
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s }

stats data using 2:3 nooutput
t0 = STATS_min_x
tmax = STATS_max_y
stats data using 5 nooutput
nmax = STATS_max
hours = (tmax - t0 > 7200)
unit = hours ? 3600.0 : 1.0
set title etitle("Gantt chart of ".runs." (one box per placement interval)") noenhanced
set xlabel hours ? "time (hours)" : "time (s)"
set ylabel "node"
set xrange [t0 / unit:tmax / unit]
set yrange [-0.5:nmax + 0.5]
# Integer node ticks while they stay readable.
if (nmax < 32) { set ytics 1 }
set grid xtics
set key off
# Borders part the boxes of few jobs; with many they would hide them.
if (STATS_records <= 500) {
	set style fill transparent solid 0.6 border lc rgb "#404040"
} else {
	set style fill transparent solid 0.7 noborder
}

# A job's colour: one of the palette's eight, in turn by id.
colour(j) = int(j) % 8 + 1
boxes = "data using (($2 + $3) / 2 / unit):(($4 + $5) / 2.0):($2 / unit):($3 / unit):($4 - 0.4):($5 + 0.4):(colour($1)) with boxxyerror lc variable"
# Few boxes: each says its job.
ids = "'' using (($2 + $3) / 2 / unit):(($4 + $5) / 2.0):(sprintf(\"%d\", $1)) with labels font \",9\" tc rgb \"black\""
if (STATS_records <= 60) {
	eval "plot ".boxes.", ".ids
} else {
	eval "plot ".boxes
}
