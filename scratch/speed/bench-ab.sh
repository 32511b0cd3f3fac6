#!/bin/bash
# bench/waste-child.ts rows, base and branch alternating (CPU time in the child): bench-ab.sh <pairs>
for i in $(seq 1 $1); do
  for w in hot zoo ref; do
    for side in base new; do
      d=/tmp/speed-base; [ $side = new ] && d=/work/wt/speed
      (cd $d && node --import tsx bench/waste-child.ts waste $w 2>/dev/null | tail -1 | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{for(const r of JSON.parse(s))console.log('$side', '$w', r.name.padEnd(80), (Math.round(r.value*100)/100), r.unit)})")
    done
  done
done
