# metrics_bars.gp: grouped bars comparing the runs of a results folder
# (summary.csv): left, mean and 95th percentile wait (s); right, mean and
# 95th percentile bounded slowdown.  One group per run, named by its
# folder "<label>-s<seed>".
#
# Variables (set with -e by clustersim): outdir (results folder), term
# ("png" or "svg"), out (output file); runs and labels are not needed, as
# every row of summary.csv is a run.  A metric that does not apply (empty
# cell) draws no bar.  Both axes are logarithmic: the runs' values span
# decades (fcfs against easy), so on a linear axis the good policies
# vanish; a value of 0 draws no bar on it.

if (!exists("term")) term = "png"
if (!exists("out")) out = "metrics_bars.".term
if (term eq "svg") {
	set terminal svg size 1000,560 enhanced font "Sans,12" background rgb "white"
} else {
	if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
		set terminal pngcairo size 1000,560 enhanced font "Sans,11"
	} else {
		set terminal png size 1000,560
	}
}
set output out
# The shared look (plots/lib/style.gp): palette, dash types, etitle().
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s }

set datafile separator ","
set datafile columnheaders
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key above horizontal
set xtics rotate by -25 noenhanced
set bmargin 6

run(x) = stringcolumn("label")."-s".stringcolumn("seed")
f = outdir."/summary.csv"

# Log y where the panel has a positive value, from half the smallest one
# (so a bounded slowdown of 1 still shows a bar); else (nothing applies,
# or all zero) a linear axis, as a log axis cannot draw that.
pos(v) = v > 0 ? v : NaN
axis(a, b) = sprintf("lo = NaN; unset logscale y; set yrange [*:*]; do for [c in '%s %s'] { undefine STATS_*; stats f using (pos(column(c))) nooutput; if (exists('STATS_records') && STATS_records > 0 && !(STATS_min >= lo)) { lo = STATS_min } }; if (lo == lo) { set logscale y; set yrange [lo / 2:*]; set format y '10^{%%L}' } else { unset logscale y; set yrange [0:1]; set format y '%%g' }", a, b)

set multiplot layout 1,2 title etitle("policies compared (log scale)") noenhanced
set title "Wait"
set ylabel "wait (s, log scale)"
eval axis("wait_mean", "wait_p95")
plot f using (column("wait_mean")):xtic(run(0)) title "mean", \
     f using (column("wait_p95")) title "p95"
set title "Bounded slowdown"
set ylabel "bounded slowdown (ratio, log scale)"
eval axis("bsld_mean", "bsld_p95")
plot f using (column("bsld_mean")):xtic(run(0)) title "mean", \
     f using (column("bsld_p95")) title "p95"
unset multiplot
