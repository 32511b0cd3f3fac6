#!/bin/bash
# A/B of drive.ts workload $1 (reps $2) between /tmp/wt-base46 and this worktree, $3 alternations; min and median CPU ms
w=$1; r=${2:-3}; n=${3:-5}
for i in $(seq $n); do
  (cd /tmp/wt-base46 && nice node --import tsx scratch/speed46/drive.ts $w $r | awk '{print "base", $4}')
  (cd /work/wt/speed46 && nice node --import tsx scratch/speed46/drive.ts $w $r | awk '{print "cur", $4}')
done | sort -k1,1 -k2n | awk '{a[$1]=a[$1]" "$2} END {for (k in a) print k, a[k]}'
