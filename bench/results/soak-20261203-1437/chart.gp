# Redraws chart.png from samples.csv (written by bench/soak): cd soak-20261203-1437 && gnuplot chart.gp
set datafile separator ","
set datafile columnheaders
set terminal pngcairo size 1500,1300 font ",10" noenhanced
set output "chart.png"
set multiplot layout 3,2 title "restcached soak: 20000 departments, 900 s, a sample every 10 s; tiered, memory budget 9480000 B, LMDB budget 40960000 B"
set grid
set xlabel "elapsed (min)"
set key top left
set yrange [0:*]

set title "daemon RSS (MiB, VmRSS)"
plot "samples.csv" using ($1/60):($3/1024) with lines lw 2 title "RSS"

set title "open file descriptors (/proc/PID/fd)"
plot "samples.csv" using ($1/60):6 with lines lw 2 title "fds"

set title "actor mailboxes (messages, restcache_actor_mailbox_messages)"
plot \
  "samples.csv" using ($1/60):23 with linespoints pt 7 ps 0.4 title columnhead(23), \
  "samples.csv" using ($1/60):24 with linespoints pt 7 ps 0.4 title columnhead(24), \
  "samples.csv" using ($1/60):25 with linespoints pt 7 ps 0.4 title columnhead(25), \
  "samples.csv" using ($1/60):26 with linespoints pt 7 ps 0.4 title columnhead(26), \
  "samples.csv" using ($1/60):27 with linespoints pt 7 ps 0.4 title columnhead(27), \
  "samples.csv" using ($1/60):28 with linespoints pt 7 ps 0.4 title columnhead(28)

set title "LMDB (MB)"
plot "samples.csv" using ($1/60):($7/1e6) with lines lw 2 title "data.mdb file size", \
     "samples.csv" using ($1/60):($8/1e6) with lines lw 2 title "pages in use", \
     40960000/1e6 with lines dt 2 title "lmdb.max-bytes"

set title "cache entries"
plot "samples.csv" using ($1/60):9 with lines lw 2 title "memory tier entries", \
     "samples.csv" using ($1/60):12 with lines lw 2 title "LMDB records", \
     "samples.csv" using ($1/60):11 with lines lw 1 title "negative entries (memory)"

set title "load: requests/s (spikes: wrk bursts) and CPU"
set ylabel "req/s"
set y2label "CPU % (100 = one core)"
set ytics nomirror
set y2tics
set y2range [0:*]
p = NaN; t = NaN; q = NaN; u = NaN
plot "samples.csv" using ($1/60):(d = ($14 - p) / ($1 - t), p = $14, t = $1, d) with lines lw 2 title "daemon req/s", \
     "samples.csv" using ($1/60):(c = 100 * ($21 - q) / ($1 - u), q = $21, u = $1, c) axes x1y2 with lines lw 2 title "daemon CPU %", \
     "samples.csv" using ($1/60):($22 * 2) axes x1y2 with lines title "machine CPU % (every process)"
unset multiplot
