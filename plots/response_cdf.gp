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
# Values are rounded up to 1/100 of a decade before the cumulative sum
# (a few hundred points per run, exact at every drawn x).  Rejected jobs
# have an empty cell and are left out.

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

set datafile separator ","
set datafile columnheaders
if (resource eq "gpu") {
	set title "Job completion time (JCT) CDF"
	set xlabel "JCT + 1 (s, log scale)"
} else {
	set title "Job response time (JCT), CDF"
	set xlabel "response + 1 (s, log scale)"
}
set ylabel "fraction of jobs"
set logscale x
set format x "10^{%L}"
set yrange [0:1.02]
set grid
set key bottom right opaque

bin(v) = 10**(ceil(log10(v + 1) * 100) / 100.0)
plot for [i=1:words(runs)] outdir."/".word(runs, i)."/jobs.csv" \
	using (bin(column("response"))):(1.0) smooth cnormal with lines lw 2 \
	title word(labels, i) noenhanced
