#!/bin/bash
M=/work/wt/ci/scratch/ci/measure.sh
for f in e2e/cli-hostile-fork e2e/cli-hostile-corpus e2e/cli-hostile e2e/cli-hostile-host e2e/cli-fd1 e2e/cli-hostile-replay; do
  n=$(basename $f)
  $M /tmp/ci-before $n-before2 test/$f.test.ts
  $M /work/wt/ci $n-after2 test/$f.test.ts
done
