# training.gp: the training curve of python/train_ppo.py, from its
# progress.csv (iteration, steps, episodes, mean_return, last100_return,
# entropy, seconds): the mean return of the episodes that ended in each
# iteration (points), the mean of the last 100 episodes (line), against
# the environment steps, and the policy's entropy on a second axis.
# These are the returns of the sampled policy that training follows; the
# rl policy takes the greedy action, whose return is usually better
# (docs/rl.md, "A result").
#
# Variables (set with -e): in (progress.csv), out (the PNG), title.

if (!exists("title")) title = "training"
set terminal pngcairo size 900,500 font ",10" noenhanced
set output out
set datafile separator ","
set datafile columnheaders
set title title." (python/train_ppo.py)"
set xlabel "environment steps (millions)"
set ylabel "episode return"
set yrange [-300:20]
set y2label "policy entropy (nats)"
set ytics nomirror
set y2tics
set grid
set key top left opaque box

plot in using ($2 / 1e6):4 with points pt 7 ps 0.4 lc rgb "#9ecae1" title "episodes ended in an iteration (mean), sampled actions", \
     in using ($2 / 1e6):5 with lines lw 2 lc rgb "#08519c" title "last 100 episodes (mean)", \
     in using ($2 / 1e6):6 axes x1y2 with lines lw 1 lc rgb "#d95f0e" title "entropy"
