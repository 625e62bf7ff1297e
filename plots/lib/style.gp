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
# data: at the right for up to 12, else below in four columns with a
# smaller font (a sweep's runs), so the data keeps most of the canvas.
keyplace(n) = (n <= 12) ? "set key outside right top" : \
	sprintf("set key below horizontal maxcols 4 maxrows %d font \",8\"", int(ceil(n / 4.0)))
