#!/bin/bash
# alternates base and branch runs of a scratch script: ab.sh <script> <pairs> [args]
s=$1; n=$2; shift 2
for i in $(seq 1 $n); do
  (cd /tmp/speed-base && node --import tsx scratch/speed/$s "$@" 2>&1 | tail -1 | sed 's/^/base /')
  (cd /work/wt/speed && node --import tsx scratch/speed/$s "$@" 2>&1 | tail -1 | sed 's/^/new  /')
done
