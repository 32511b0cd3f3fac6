#!/bin/bash
# `npm run bench benchwaste` alternating between the base worktree and this one, $1 rounds; outputs in /tmp/p46/bw-{base,cur}-N.txt
n=${1:-3}
for i in $(seq $n); do
  (cd /tmp/wt-base46 && nice npm run bench benchwaste > /tmp/p46/bw-base-$i.txt 2>&1)
  (cd /work/wt/speed46 && nice npm run bench benchwaste > /tmp/p46/bw-cur-$i.txt 2>&1)
done
