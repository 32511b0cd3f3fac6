import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/simulate.js';
import { firstDivergence } from '../../src/sim/trace.js';
import { experimentScenario } from '../../examples/replicas/experiment.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { defineController } from '../../src/index.js';

const opts = { trials: 1, target: 3, ticks: 60, lossRate: 0.3, seed: 1 };

describe('simulate determinism', () => {
  it('the same scenario gives a byte-identical trace (same hash, same entries)', async () => {
    const s = experimentScenario('level-triggered', 11, opts);
    const a = await simulate(s, { controllers: [levelTriggered] });
    const b = await simulate(s, { controllers: [levelTriggered] });
    expect(a.run.hash).toBe(b.run.hash);
    expect(JSON.stringify(a.run.trace)).toBe(JSON.stringify(b.run.trace));
    expect(firstDivergence(a.run.trace, b.run.trace)).toBeUndefined();
  });

  it('a different seed gives a different trace where randomness matters (background faults)', async () => {
    const hashes = new Set<string>();
    for (let seed = 1; seed <= 8; seed++) hashes.add((await simulate(experimentScenario('level-triggered', seed, opts), { controllers: [levelTriggered] })).run.hash);
    expect(hashes.size).toBeGreaterThan(1);
  });

  it('a reconciler reading Math.random diverges between two runs, and firstDivergence points at it', async () => {
    const flaky = defineController({
      name: 'level-triggered',
      for: 'ReplicaSet',
      async reconcile(ctx) {
        const rs = await ctx.client.get('ReplicaSet', ctx.key);
        await ctx.client.updateStatus({ ...rs, status: { replicas: 3, observedGeneration: rs.metadata.generation, nonce: Math.random() } });
      },
    });
    const s = experimentScenario('level-triggered', 1, { ...opts, lossRate: 0, ticks: 2 });
    const a = await simulate(s, { controllers: [flaky] });
    const b = await simulate(s, { controllers: [flaky] });
    expect(a.run.hash).not.toBe(b.run.hash);
    const d = firstDivergence(a.run.trace, b.run.trace)!;
    expect(d.a?.type).toBe('store:write');
  });
});
