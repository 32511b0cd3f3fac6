import { writeFileSync } from 'node:fs';
let seen = false;
// per-run verdicts of the owned-job twin under the foreground-delete story (no shrinking)
import { check, type Story } from '../../src/index.js';
import { cleanupJobCase } from './fixtures/controllers.js';
const db = { apiVersion: 'example.com/v1', kind: 'Database', metadata: { name: 'orders', namespace: 'default' }, spec: { engine: 'postgres', sizeGi: 10 } };
const story: Story = { objects: [db], actions: [{ at: 5_000, type: 'delete', kind: 'Database', key: 'default/orders', propagationPolicy: 'Foreground' } as never] };
const t0 = performance.now();
const r = await check([...cleanupJobCase.buggy!], {
  environment: cleanupJobCase.options.environment, story, runs: Number(process.argv[2] ?? 2), seed: 1, shrink: false,
  onSimulation: (s: unknown, i: unknown) => { if (i === 0 && !seen) { seen = true; writeFileSync('/tmp/rt46-cj-run1.json', JSON.stringify(s)); } },
} as never);
console.log(r.ok ? `PASS ${JSON.stringify((r as unknown as { cut?: unknown }).cut ?? '')}` : `FAIL at run ${r.failedAtRun} ${r.property}`, Math.round(performance.now() - t0), 'ms');
const x = r as unknown as Record<string, unknown>; console.log(JSON.stringify({ stats: x['stats'], propertyRuns: x['propertyRuns'], behaviour: x['behaviour'], summary: x['summary'] }, null, 1).slice(0, 5000));
