import { describe, expect, it } from 'vitest';
import { check, type Scenario } from '../../src/index.js';
import { defaultProperties } from '../../properties/index.js';
import { falsePositiveCorpus } from '../../examples/false-positives/index.js';

/**
 * Shrunk scenarios the hunts found on correct corpus controllers, replayed with every default
 * property: each failed before the fix its entry names (in the controller, with the mechanism in
 * its file's comment), so a regression of either shows here, not only in a hunt.
 */
const REGRESSIONS: { name: string; found: string; scenario: Scenario }[] = [
  {
    name: 'worker-pool',
    found: 'npx tsx bench/hunt-fp-rate.ts --runs 150 --seeds 30-31 --only corpus:worker-pool: seed 31 run 60, no-extra-destructive-actions (Pods made for a pool whose DELETED event was lost, and a real Pod deleted for one whose DELETED event was lost)',
    scenario: {
      seed: 9,
      controllers: [{ name: 'worker-pool' }],
      environment: [{ name: 'pod-lifecycle' }],
      initialObjects: [],
      workload: [
        { at: 4500, type: 'create', object: { kind: 'WorkerPool', metadata: { name: 'workers-1', namespace: 'default' }, spec: { replicas: 4, image: 'worker:2' } } },
        { at: 15900, kind: 'WorkerPool', key: 'default/workers-1', type: 'delete' },
      ],
      faults: {
        events: [
          { kind: 'watch-disconnect', nth: 0, params: { how: 'close' } },
          { kind: 'watch-disconnect', nth: 5, params: { how: 'close' } },
          { kind: 'watch-event-loss', nth: 29 },
          { kind: 'watch-event-loss', nth: 30 },
          { kind: 'watch-event-loss', nth: 34 },
        ],
        background: [],
      },
    },
  },
];

describe('false-positive corpus: hunt findings replayed', () => {
  for (const r of REGRESSIONS) {
    it(`${r.name}: ${r.found}`, { timeout: 60_000 }, async () => {
      const c = falsePositiveCorpus.find((x) => x.name === r.name)!;
      const own = new Map((c.properties ?? []).map((p) => [p.name, p]));
      const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
      const out = await check(c.controllers, { ...c.options, properties, runs: 1, seed: 1, shrink: false, corpus: { scenarios: [r.scenario] } });
      expect(out.ok ? 'passed' : `${out.property}: ${out.summary}`).toBe('passed');
    });
  }
});
