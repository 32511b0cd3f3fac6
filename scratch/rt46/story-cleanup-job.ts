// npx tsx scratch/rt46/story-cleanup-job.ts [runs]: cleanup-job (correct and owned-job twin) under a story:
// create a Database, then delete it in the foreground 5 s later.
import { check, type Story } from '../../src/index.js';
import { cleanupJobCase } from './fixtures/controllers.js';
const db = { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', sizeGi: 10 } };
const story: Story = { objects: [db], actions: [{ at: 5_000, type: 'delete', kind: 'Database', key: 'default/orders', propagationPolicy: 'Foreground' } as never] };
for (const [label, ctrls] of [['correct', cleanupJobCase.controllers], ['owned-job', cleanupJobCase.buggy!]] as const) {
  const t0 = performance.now();
  const r = await check([...ctrls], { environment: cleanupJobCase.options.environment, story, runs: Number(process.argv[2] ?? 20), seed: 1 } as never);
  console.log(label, r.ok ? 'PASS' : `FAIL at run ${r.failedAtRun} ${r.property}: ${r.summary}`, Math.round(performance.now() - t0), 'ms');
  if (!r.ok && process.argv[3]) console.log(r.explanation.slice(0, 2000));
}
