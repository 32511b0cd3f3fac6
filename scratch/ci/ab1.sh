#!/bin/bash
M=/work/wt/ci/scratch/ci/measure.sh
for f in cli-hostile cli-hostile-replay cli-hostile-host cli-fd1; do
  $M /tmp/ci-before $f-before test/e2e/$f.test.ts
  $M /work/wt/ci $f-after test/e2e/$f.test.ts
done
