# response_cdf.gp: the empirical CDF of job response times (JCT, end -
# submit; jobs.csv column "response"), one curve per run.  y: the fraction
# of jobs whose response time was at most x.  On a GPU cluster it is
# titled and labelled as the GPU-scheduling literature names it: the JCT
# (job completion time) CDF.
#
# Variables (set with -e by clustersim): outdir (results folder), runs
# (run folders, space-separated), labels (legend texts, same order),
# term ("png" or "svg"), out (output file), resource ("cpu" or "gpu").
#
# x is response + 1 s on a log axis, as in wait_cdf.gp: a zero-length job
# that started at once has response 0, which a log axis cannot show.
# The curve is drawn from the run's cdf_response.csv (at most ~2,000
# exact points of the CDF, written by clustersim; docs/metrics.md).  Jobs
# that did not end are left out.

if (!exists("term")) term = "png"
if (!exists("out")) out = "response_cdf.".term
if (!exists("resource")) resource = "cpu"
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
if (exists("plotdir")) { load plotdir."/lib/style.gp" } else { etitle(s) = s; seedsnote = "" }

set datafile separator ","
set datafile columnheaders
if (resource eq "gpu") {
	set title etitle("job completion time (JCT), CDF".seedsnote) noenhanced
	set xlabel "JCT + 1 (s, log scale)"
} else {
	set title etitle("job response time, CDF".seedsnote) noenhanced
	set xlabel "response + 1 (s, log scale)"
}
set ylabel "fraction of jobs"
set logscale x
set format x "10^{%L}"
set yrange [0:1.02]
set grid
if (exists("plotdir")) { eval keyplace(words(runs)) } else { set key outside right top }

if (exists("bands")) {
	# One curve per label over its seeds (lib/style.gp, seedsnote).
	bf = outdir."/plots/seeds_cdf_response.dat"
	set datafile separator whitespace
	set datafile nocolumnheaders
	set style fill transparent solid 0.2 noborder
	eval keyplace(words(groups))
	plot for [g=1:words(groups)] bf index (g - 1) using ($1 + 1):3:4 \
		with filledcurves lt g notitle, \
	     for [g=1:words(groups)] bf index (g - 1) using ($1 + 1):2 \
		with steps lw 2 lt g title gtitle(g) noenhanced
} else {
	plot for [i=1:words(runs)] outdir."/".word(runs, i)."/cdf_response.csv" \
		using (column("value") + 1):(column("fraction")) with steps lw 2 \
		title word(labels, i) noenhanced
}
