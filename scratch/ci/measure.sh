#!/bin/bash
# usage: measure.sh <root> <label> <test file>... ; JSON in /work/wt/ci/scratch/ci/runs/<label>.json;
# prints summed test s + CPU s (vitest + every child it spawned, user+sys)
R=/work/wt/ci/scratch/ci/runs
root=$1; label=$2; shift 2
cd $root
/usr/bin/time -f "%e %U %S" -o $R/$label.time nice npx vitest run "$@" --reporter=json --outputFile.json=$R/$label.json > $R/$label.log 2>&1
node -e '
const r=require(process.argv[1]);const [w,u,s]=require("fs").readFileSync(process.argv[2],"utf8").trim().split("\n").pop().split(" ").map(Number);
let sum=0,fail=0;for(const t of r.testResults){for(const a of t.assertionResults){sum+=(a.duration||0);if(a.status==="failed")fail++;}}
console.log(new Date().toISOString().slice(11,19), process.argv[3].padEnd(28),"summed",(sum/1000).toFixed(1),"s  cpu",(u+s).toFixed(1),"s  wall",w,"s  failed",fail, "of", r.numTotalTests, " load", require("os").loadavg()[0].toFixed(1));
' $R/$label.json $R/$label.time $label | tee -a $R/summary.txt
