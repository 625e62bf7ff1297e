# metrics_bars.gp: grouped bars comparing the runs of a results folder
# (summary.csv): left, mean and 95th percentile wait (s); right, mean and
# 95th percentile bounded slowdown.  One group per run, named by its
# label (each label then has one seed); with a label run on several seeds (bands set,
# lib/style.gp), one group per label from OUT/plots/seeds_summary.csv: the
# bar is the mean over its seeds, the error bar their min to max.
#
# Variables (set with -e by clustersim): outdir (results folder), term
# ("png" or "svg"), out (output file); runs and labels are not needed, as
# every row of summary.csv is a run.  A metric that does not apply (empty
# cell) draws no bar.  An axis is logarithmic where the runs' values span
# decades (fcfs against easy), as on a linear one the good policies
# vanish (a value of 0 draws no bar on it); else linear (see axis()).

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
set xtics rotate by 30 right noenhanced
set bmargin 7

if (exists("bands")) {
	f = outdir."/plots/seeds_summary.csv"
	run(x) = stringcolumn("label")
	set style histogram errorbars gap 1 lw 1.5
	sfx = "_mean"    # the bar; the error bar is _min to _max
} else {
	f = outdir."/summary.csv"
	run(x) = stringcolumn("label")  # one seed each: the label names it
	sfx = ""
}
# The bar of metric m: its value, or over seeds its mean, min and max.
bar(m) = exists("bands") ? sprintf("(column('%s_mean')):(column('%s_min')):(column('%s_max'))", m, m, m) : sprintf("(column('%s'))", m)

# Log y where the panel's values span more than 20 times (from half the
# smallest, so a bounded slowdown of 1 still shows a bar): on a linear axis
# the good policies would vanish.  Else linear from 0, whose tick labels
# read values that a log axis within one decade would not label; with no
# value (nothing applies) from 0 to 1.  axis(a, b, what): the command
# setting the axis and the ylabel "what (log scale)" of columns a and b.
pos(v) = v > 0 ? v : NaN
axis(a, b, what) = sprintf("lo = NaN; hi = NaN; unset logscale y; set yrange [*:*]; do for [c in '%s%s %s%s'] { undefine STATS_*; stats f using (pos(column(c))) nooutput; if (exists('STATS_records') && STATS_records > 0 && !(STATS_min >= lo)) { lo = STATS_min } }; do for [c in '%s%s %s%s'] { undefine STATS_*; stats f using (column(c)) nooutput; if (exists('STATS_records') && STATS_records > 0 && !(STATS_max <= hi)) { hi = STATS_max } }; if (lo == lo && hi > 20 * lo) { set logscale y; set yrange [lo / 2:*]; set format y '10^{%%L}'; set ylabel '%s, log scale)' } else { unset logscale y; if (hi > 0) { set yrange [0:*] } else { set yrange [0:1] }; set format y '%%g'; set ylabel '%s)' }", a, lsfx, b, lsfx, a, hsfx, b, hsfx, what, what)
# The smallest value drawn: the mean's, or over seeds the least seed's;
# the greatest: the mean's, or over seeds the greatest seed's.
hsfx = exists("bands") ? "_max" : ""
lsfx = exists("bands") ? "_min" : ""

note = exists("bands") ? "; bars: mean over seeds, error bars: min to max" : ""
set multiplot layout 1,2 margins 0.09, 0.98, 0.2, 0.84 spacing 0.1 \
	title etitle("policies compared".note) noenhanced
# One legend for both panels, under the title and above the data.
set key at screen 0.5, screen 0.9 center horizontal
set title "Wait"
eval axis("wait_mean", "wait_p95", "wait (s")
eval "plot f using ".bar("wait_mean").":xtic(run(0)) title 'mean', f using ".bar("wait_p95")." title 'p95'"
unset key
set title "Bounded slowdown"
eval axis("bsld_mean", "bsld_p95", "bounded slowdown (ratio")
eval "plot f using ".bar("bsld_mean").":xtic(run(0)) title 'mean', f using ".bar("bsld_p95")." title 'p95'"
unset multiplot
