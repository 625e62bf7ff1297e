# lib/style.gp: the look every plot of plots/ shares, loaded by each
# script (it is in a subfolder, so clustersim does not draw it as a plot).
#
# Line types: 8 colours that stay apart for colour-blind readers
# (Okabe and Ito's palette, its yellow replaced by black) times 3 dash
# types (solid, dashed, dash-dot), so 24 series are all distinct before
# any repeats; a sweep's 12 or 18 curves never share a look.
#
# etitle(s): the title s, prefixed with the experiment's name when
# clustersim passed one (variable "experiment").

colours = "#0072B2 #D55E00 #009E73 #CC79A7 #E69F00 #56B4E9 #000000 #999999"
do for [i=1:24] {
	c = word(colours, (i - 1) % 8 + 1)
	d = (i <= 8) ? 1 : (i <= 16) ? 2 : 4
	set linetype i linecolor rgb c linewidth 2 dashtype d
}
set linetype cycle 24

etitle(s) = (exists("experiment") && experiment ne "") ? experiment.": ".s : s

# keyplace(n): the command placing the legend of n curves outside the
# data: at the right for up to 12 short names, else below in columns
# with a smaller font (a sweep's runs, whose names are long), so the data
# keeps most of the canvas.  keywide: the longest legend (set below).
keywide = 0
keyplace(n) = (n <= 12 && keywide <= 24) ? "set key outside right top vertical" : \
	sprintf("set key below horizontal height 1.5 maxcols %d maxrows %d font \",9\"", \
		keywide > 30 ? 2 : 4, int(ceil(n / (keywide > 30 ? 2.0 : 4.0))))

# The runs grouped by label (a label run on several seeds is one group),
# as clustersim passes them: groups (the labels), gseeds (runs of each),
# rungroup (each run's group, 1-based); bands is set when some label has
# several seeds and OUT/plots/seeds_* hold the curves over seeds
# (docs/metrics.md, "Plots of several seeds").  Without them (a script run
# by hand), every run is its own group.
# gtitle(g): group g's legend; rlt(i): run i's line type (its group's);
# rtitle(i): run i's legend, "" (none) but for its group's first run.
if (!exists("rungroup")) {
	groups = exists("labels") ? labels : ""
	rungroup = ""
	gseeds = ""
	do for [i=1:words(groups)] {
		rungroup = rungroup.sprintf(" %d", i)
		gseeds = gseeds." 1"
	}
}
gtitle(g) = word(groups, g).(word(gseeds, g) eq "1" ? "" : \
	" (".word(gseeds, g)." seeds)")
rlt(i) = int(word(rungroup, i))
gfirst = ""
do for [i=1:words(rungroup)] {
	seen = 0
	do for [j=1:i-1] { if (word(rungroup, j) eq word(rungroup, i)) { seen = 1 } }
	gfirst = gfirst.(seen ? " 0" : " 1")
}
rtitle(i) = word(gfirst, i) eq "1" ? gtitle(rlt(i)) : ""
do for [g=1:words(groups)] { keywide = strlen(gtitle(g)) > keywide ? strlen(gtitle(g)) : keywide }
# What a curve over seeds shows, for the titles.
seedsnote = exists("bands") ? " (line: all seeds' jobs pooled; band: the seeds' range)" : ""

# The time unit of an axis spanning span seconds: seconds below 2 hours,
# hours below 5 days, else days; tname(tu) names it.
tunit(span) = span < 7200 ? 1 : (span < 5 * 86400 ? 3600 : 86400)
tname(tu) = tu == 1 ? "s" : (tu == 3600 ? "hours" : "days")
