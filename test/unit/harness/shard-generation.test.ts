import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check } from '../../../src/harness/check.js';
import type { Scenario } from '../../../src/harness/scenario.js';
import { levelTriggered } from '../../../examples/replicas/level-triggered.js';
import { edgeTriggered } from '../../../examples/replicas/edge-triggered.js';
import { eventLoss } from '../../../faults/event-loss.js';
import { convergence } from '../../../properties/convergence.js';

/**
 * `--workers n` deals the run indices to n shards. Each shard used to generate every run's
 * scenario and skip the others' (n times the generation in all); now it generates only its own,
 * and each is still the scenario the unsharded check runs at that index.
 */
describe('sharded generation', () => {
  const counted = () => {
    const calls = { n: 0 };
    const objects = { kind: 'ReplicaSet', spec: fc.record({ replicas: fc.integer({ min: 1, max: 5 }).map((r) => (calls.n++, r)) }), status: { replicas: 0 } };
    return { calls, objects };
  };
  const generatedRuns = async (shard: { index: number; count: number } | undefined) => {
    const { calls, objects } = counted();
    const byIndex = new Map<number, Scenario>();
    const r = await check(levelTriggered, { faults: [eventLoss], properties: [convergence()], objects, runs: 24, seed: 9, determinism: false, ...(shard ? { shard } : {}), onSimulation: (s, i) => void (i !== undefined && !byIndex.has(i) && byIndex.set(i, s)) });
    return { r, calls: calls.n, byIndex };
  };

  it('generates only its own runs, each the scenario the unsharded check runs at that index', async () => {
    const all = await generatedRuns(undefined);
    const shards = [await generatedRuns({ index: 0, count: 2 }), await generatedRuns({ index: 1, count: 2 })];
    expect(all.r.ok).toBe(true);
    for (const [k, s] of shards.entries()) {
      expect(s.r.ok).toBe(true);
      expect(s.r.runs).toBe(12);
      expect([...s.byIndex.keys()].every((i) => i % 2 === k)).toBe(true);
      for (const [i, scenario] of s.byIndex) expect(scenario).toEqual(all.byIndex.get(i));
      // about half the draws of the whole check, not all of them
      expect(s.calls).toBeLessThan(all.calls * 0.75);
    }
  });

  it('finds and shrinks the same failure in the shard that owns its run', async () => {
    const objects = { kind: 'ReplicaSet', spec: fc.record({ replicas: fc.integer({ min: 1, max: 5 }) }), status: { replicas: 0 } };
    const options = { faults: [eventLoss], properties: [convergence()], objects, maxObjects: 3, maxActions: 6, runs: 40, seed: 3 };
    const all = await check(edgeTriggered, options);
    expect(all.ok).toBe(false);
    if (all.ok) return;
    const owner = (all.failedAtRun - 1) % 2;
    const shard = await check(edgeTriggered, { ...options, shard: { index: owner, count: 2 } });
    expect(shard.ok).toBe(false);
    if (shard.ok) return;
    expect(shard.failedAtRun).toBe(all.failedAtRun);
    expect(shard.path).toBe(all.path);
    expect(shard.scenario).toEqual(all.scenario);
  });
});
