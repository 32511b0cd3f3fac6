#!/bin/bash
M=/work/wt/ci/scratch/ci/measure.sh
while pgrep -f "scratch/ci/ab1.sh" > /dev/null; do sleep 5; done
$M /tmp/ci-break break-emit test/e2e/cli-hostile.test.ts -t "process.emit wrapped"
$M /tmp/ci-break break-f11 test/e2e/cli-hostile-host.test.ts -t "F11"
$M /tmp/ci-before cli-program-service-before test/e2e/cli-program-service.test.ts
$M /work/wt/ci cli-program-service-after test/e2e/cli-program-service.test.ts
