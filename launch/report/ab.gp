# Mode-vs-mode bars for one scenario (launch/report.py writes the data and
# calls this): one panel per metric, a cluster per topology (and LRU), a bar
# per mode; the error bar spans the repeats (min..max; none for one run).
#   gnuplot -e 'datafile="..."; outfile="..."; title="..."; array M[n] = [...]; array L[k] = [...]' ab.gp
# Data: one index block per metric; each row `"cluster" v lo hi  v lo hi ...`,
# three columns per mode in L's order, "?" where a cell has no value.
set terminal pngcairo noenhanced size 1100, 260 * ceil(|M| / 2.0) + 40 font "sans,9"
set output outfile
set datafile missing "?"
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.75 border -1
set boxwidth 0.9
set key outside right top vertical samplen 1 font ",8"
set yrange [0:*]
# headroom above the tallest bar and its error bar
set offsets 0, 0, graph 0.1, 0
set grid ytics lc rgb "#dddddd"
set xtics nomirror font ",8"
set ytics font ",8"
colours = "#4e79a7 #f28e2b #59a14f #9c755f #b07aa1"
set multiplot layout ceil(|M| / 2.0), 2 title title font ",11"
do for [k = 1:|M|] {
	set title M[k]
	plot for [i = 1:|L|] datafile index (k - 1) using (column(3 * i - 1)):(column(3 * i)):(column(3 * i + 1)):xtic(1) \
		title L[i] lc rgb word(colours, i)
}
unset multiplot
