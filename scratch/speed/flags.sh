#!/bin/bash
# Screens V8 flags on a cold in-process check: flags.sh WORKLOAD RUNS ROUNDS "flagsA" "flagsB" ...; prints process CPU (user+sys, s) per config, all rounds
w=$1; r=$2; n=$3; shift 3
for i in $(seq $n); do
  for f in "$@"; do
    c=$( { /usr/bin/time -f "%U %S" nice node $f --import tsx scratch/speed/inproc.ts $w $r > /dev/null; } 2>&1 | tail -1 | awk '{print $1+$2}')
    echo "$f|$c"
  done
done | awk -F'|' '{a[$1]=a[$1]" "$2} END {for (k in a) print k ":" a[k]}'
