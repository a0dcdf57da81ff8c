# The series' cost against the stock kernel for one scenario (launch/report.py
# writes the data and calls this): a panel per cost metric, a cluster per
# topology, a bar per mode of the series: how far its median is from the stock
# kernel's, in percent, with the bootstrap 95% interval of that ratio as the
# error bar.  The y axis is not pinned at 0, so differences of 0.01-1% show
# (the mode-against-mode bars start at 0 and cannot).
#   gnuplot -e 'datafile="..."; outfile="..."; title="..."; array M[n] = [...]; array L[k] = [...]' vs-stock.gp
# Data: one index block per metric; each row `"cluster" pct lo hi  pct lo hi ...`,
# three columns per mode in L's order, "?" where a side has no value.
set terminal pngcairo noenhanced size 1100, 280 * ceil(|M| / 2.0) + 40 font "sans,9"
set output outfile
set datafile missing "?"
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.75 border -1
set boxwidth 0.9
set key outside right top vertical samplen 1 font ",8"
set offsets 0, 0, graph 0.1, graph 0.1
set grid ytics lc rgb "#dddddd"
set xtics nomirror font ",8"
set ytics font ",8"
set ylabel "% against stock" font ",8"
set format y "%+g"
colours = "#4e79a7 #f28e2b #59a14f #b07aa1"
set multiplot layout ceil(|M| / 2.0), 2 title title font ",11"
do for [k = 1:|M|] {
	set title M[k]
	plot for [i = 1:|L|] datafile index (k - 1) using (column(3 * i - 1)):(column(3 * i)):(column(3 * i + 1)):xtic(1) \
		title L[i] lc rgb word(colours, i), \
		0 with lines lc rgb "black" lw 1 title "stock"
}
unset multiplot
