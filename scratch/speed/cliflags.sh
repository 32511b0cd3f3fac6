#!/bin/bash
# A/B of node flags on a CLI check (launcher + child, user+sys s): cliflags.sh TARGET RUNS ROUNDS "flagsA" "flagsB" ... (extra CLI args in $EXTRA)
t=$1; r=$2; n=$3; shift 3
for i in $(seq $n); do
  for f in "$@"; do
    /usr/bin/time -o /tmp/s48/cliflags.time -f "%U %S" nice node $f bin/steadystate.js check scratch/speed/t-$t.ts --runs $r --seed 1 --report-dir /tmp/s48/rep $EXTRA > /dev/null 2>/tmp/s48/cliflags.err
    echo "$f|$(tail -1 /tmp/s48/cliflags.time | awk '{print $1+$2}')"
  done
done | awk -F'|' '{a[$1]=a[$1]" "$2} END {for (k in a) print k ":" a[k]}'
