# gnuplot chart.gp (in this folder) redraws chart.png from points.csv
set terminal pngcairo size 1400,510 font 'sans,10'
set output 'chart.png'
set datafile separator ' '
set multiplot layout 1,2 title 'restcache 100000 departments, populated, 2 cores: req/s and p99 against concurrency'
set logscale x 2
set grid
set key outside right top
set xtics (4096)
set xrange [2925.71:5734.4]
set xlabel 'concurrent connections'
unset logscale y
set yrange [0:*]
set ylabel 'requests/s'
set title 'ab: requests/s'
plot "< awk -F, -v a=ab -v b=nginx '$1 == a && $2 == b && $7 + 0 > 0 {print $4, $7}' points.csv" using 1:2 with linespoints lw 2 dt 2 lc rgb 'black' title 'nginx',"< awk -F, -v a=ab -v b=memory '$1 == a && $2 == b && $7 + 0 > 0 {print $4, $7}' points.csv" using 1:2 with linespoints lw 2 title 'memory'
set logscale y 10
set yrange [*:*]
set ylabel 'p99 latency ms (log)'
set title 'ab: p99 latency'
plot "< awk -F, -v a=ab -v b=nginx '$1 == a && $2 == b && $10 + 0 > 0 {print $4, $10}' points.csv" using 1:2 with linespoints lw 2 dt 2 lc rgb 'black' title 'nginx',"< awk -F, -v a=ab -v b=memory '$1 == a && $2 == b && $10 + 0 > 0 {print $4, $10}' points.csv" using 1:2 with linespoints lw 2 title 'memory'
unset multiplot
