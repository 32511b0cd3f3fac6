import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { faultsFor } from '../../bench/hunt-targets.js';
import { falsePositiveStories, storyOptions } from '../../examples/stories/false-positive-stories.js';
import { boundedDownstreamQps } from '../../properties/bounded-downstream-qps.js';
import type { Scenario } from '../../src/harness/scenario.js';
import { check } from '../../src/index.js';

/**
 * A correct controller retrying through client-go's rate-limited queue, where a reconcile of the
 * key that succeeds without calling the failing endpoint (an API error answered first, then a
 * reconcile that had nothing to call) makes the queue forget: the next failure waits 5 ms again.
 * Three story hunts of the false-positive corpus (1,000 runs) read that as "5 consecutive failed
 * attempts retried without backoff (waits 40, 40, 5 ms)". These are their shrunk scenarios; the
 * queue's waits are now judged per episode between two forgets. The buggy direction (a fixed
 * short requeue, a retry loop, a 1 ms requeue) stays in qps-backoff-matrix.test.ts.
 */
const scenarios = JSON.parse(readFileSync(new URL('./fixtures/qps-forget-scenarios.json', import.meta.url), 'utf8')) as Record<string, Scenario>;

describe('bounded-downstream-qps: the queue forgets a key after a success', () => {
  for (const [name, scenario] of Object.entries(scenarios)) {
    it(`${name}: the shrunk false alarm of its story hunt passes`, async () => {
      const c = falsePositiveStories.find((s) => s.case.name === name)!;
      const r = await check(c.case.controllers, { ...storyOptions(c), faults: faultsFor(c.case, []), properties: [boundedDownstreamQps()], corpus: { scenarios: [scenario] }, runs: 1, seed: 1 });
      expect(r.ok, r.ok ? '' : r.summary).toBe(true);
    });
  }
});
