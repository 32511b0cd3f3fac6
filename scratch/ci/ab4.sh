#!/bin/bash
M=/work/wt/ci/scratch/ci/measure.sh
for f in robustness/cli-usage e2e/cli-program-service e2e/cli-program e2e/cli-hostile e2e/cli-hostile-host e2e/cli-hostile-replay e2e/cli-fd1 e2e/cli-hostile-fork e2e/cli-hostile-corpus; do
  n=$(echo $f | tr / -)
  $M /tmp/ci-before $n-before3 test/$f.test.ts
  $M /work/wt/ci $n-after3 test/$f.test.ts
done
