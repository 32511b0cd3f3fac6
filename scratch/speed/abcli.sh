#!/bin/bash
# CLI check A/B, alternating /tmp/wt-base48 and this worktree: abcli.sh TARGET RUNS ROUNDS [extra CLI args]; CPU s (user+sys, launcher + child) per round
t=$1; r=$2; n=$3; shift 3
for i in $(seq $n); do
  for wt in /tmp/wt-base48 /work/wt/speed; do
    (cd $wt && /usr/bin/time -o /tmp/s48/abcli.time -f "%U %S" nice node bin/steadystate.js check scratch/speed/t-$t.ts --runs $r --seed 1 --report-dir /tmp/s48/abrep "$@" > /dev/null 2>&1)
    echo "$(basename $wt)|$(tail -1 /tmp/s48/abcli.time | awk '{print $1+$2}')"
  done
done | awk -F'|' '{a[$1]=a[$1]" "$2} END {for (k in a) print k ":" a[k]}'
