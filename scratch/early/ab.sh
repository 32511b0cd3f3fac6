#!/bin/bash
# A/B per-test durations: base copy (/tmp/early-base) vs this worktree, one file at a time, alternating.
# usage: ab.sh REP FILE...   writes /tmp/early-ab/<variant>-<file>-<rep>.json
mkdir -p /tmp/early-ab
rep=$1; shift
for f in "$@"; do
  n=$(basename $f .test.ts)
  for v in base mine; do
    dir=/tmp/early-base; [ $v = mine ] && dir=/work/wt/early
    ( cd $dir && EARLY_LOG=/tmp/early-ab/log-$v-$n-$rep.txt timeout 1500 nice npx vitest run $f --reporter=json --outputFile.json=/tmp/early-ab/$v-$n-$rep.json >/tmp/early-ab/$v-$n-$rep.out 2>&1 )
    echo "$(date +%T) $v $n rep $rep rc $?"
  done
done
