import { describe, expect, it } from 'vitest';
import { check } from '../../src/check.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { replicaObjects } from '../e2e/check-fixtures.js';

/**
 * `corpus.onFailure` is handed each new failure. Red team, stop 42 (F8): it was handed the very
 * object `check` then returned, so `failure.ok = true` turned a failing check into a pass. It now
 * gets a frozen copy with its own copy of the scenario.
 */
describe('corpus.onFailure', () => {
  it('cannot change the verdict or the scenario check returns', async () => {
    const seen: unknown[] = [];
    const result = await check(edgeTriggered, {
      objects: replicaObjects,
      runs: 30,
      seed: 1,
      corpus: {
        onFailure(failure) {
          seen.push(failure.scenario.seed);
          expect(() => ((failure as { ok: boolean }).ok = true)).toThrow(TypeError);
          failure.scenario.faults.events.length = 0;
        },
      },
    });
    expect(seen).toHaveLength(1);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.scenario.faults.events.length).toBeGreaterThan(0);
  });
});
