import { describe, expect, it } from 'vitest';
import { chai, expect as vitestExpect } from 'vitest';
import { check } from '../../src/check.js';
import { checkSystematic } from '../../src/check-systematic.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { eventLoss } from '../../faults/index.js';
import { convergence } from '../../properties/convergence.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import '../../src/vitest/index.js';

/**
 * `check`'s `signal` (and `toPassCheck`'s use of vitest's `context.signal`): a test that timed out
 * used to leave its check running beside the next tests of its worker (stop 50: a leftover check
 * broke 24 later tests). Aborting stops the simulation in progress at its next host yield, and
 * the check rejects with the signal's reason.
 */

let reconciles = 0;
/** Processes spec.items one per reconcile: one simulation is 1,500 reconciles long. */
const migrator = defineController({
  name: 'migrator',
  for: 'Migration',
  async reconcile(ctx) {
    reconciles++;
    const m = await ctx.client.tryGet<{ items: number }, { processed?: number; observedGeneration?: number }>('Migration', ctx.key);
    if (!m) return;
    const done = m.status.processed ?? 0;
    if (done >= m.spec.items) return;
    await ctx.client.updateStatus({ ...m, status: { processed: done + 1, observedGeneration: m.metadata.generation } });
  },
});
const migrations = { kind: 'Migration', spec: [{ items: 1500 }] };
const replicaSets = { kind: 'ReplicaSet', spec: [{ replicas: 3 }], status: { replicas: 0 } };

describe('check with a signal', () => {
  it('stops the simulation in progress when the signal aborts, and rejects with its reason', async () => {
    const ac = new AbortController();
    const reason = new Error('test timed out');
    let simulations = 0;
    let t = 0;
    reconciles = 0;
    const running = check(migrator, {
      objects: migrations,
      runs: 50,
      seed: 1,
      properties: [convergence()],
      determinism: false,
      signal: ac.signal,
      // a host yield every few kernel turns
      wallClock: () => (t += 5),
      onSimulation: () => {
        if (++simulations === 1) ac.abort(reason);
      },
    });
    await expect(running).rejects.toBe(reason);
    expect(simulations).toBe(1);
    // the one simulation began and was cut at a yield: far from its 1,500 reconciles
    expect(reconciles).toBeGreaterThan(0);
    expect(reconciles).toBeLessThan(500);
  });

  it('runs nothing when the signal has already aborted', async () => {
    let simulations = 0;
    const signal = AbortSignal.abort(new Error('cancelled before it began'));
    await expect(check(levelTriggered, { objects: replicaSets, runs: 5, signal, onSimulation: () => simulations++ })).rejects.toThrow('cancelled before it began');
    expect(simulations).toBe(0);
  });

  it('stops while shrinking a failure, and fast-check draws no further run', async () => {
    const ac = new AbortController();
    let after = 0;
    const running = check(edgeTriggered, {
      objects: replicaSets,
      runs: 100,
      seed: 5,
      faults: [eventLoss],
      properties: [convergence()],
      signal: ac.signal,
      onProgress: (p) => {
        if (p.phase === 'shrinking' && p.shrink && p.shrink.step >= 2) ac.abort(new Error('stop shrinking'));
      },
      onSimulation: () => {
        if (ac.signal.aborted) after++;
      },
    });
    await expect(running).rejects.toThrow('stop shrinking');
    expect(after).toBe(0);
  });

  it('checkSystematic stops too', async () => {
    const ac = new AbortController();
    let simulations = 0;
    const running = checkSystematic(edgeTriggered, {
      objects: replicaSets,
      faults: [eventLoss],
      properties: [convergence()],
      signal: ac.signal,
      onSimulation: () => {
        if (++simulations === 3) ac.abort(new Error('systematic cancelled'));
      },
    });
    await expect(running).rejects.toThrow('systematic cancelled');
    expect(simulations).toBe(3);
  });

  it('is validated with the option named', async () => {
    await expect(check(levelTriggered, { signal: 'soon' as unknown as AbortSignal })).rejects.toThrow(/options\.signal must be an AbortSignal \(vitest's `context\.signal`/);
  });
});

describe('toPassCheck', () => {
  it("passes the running test's context.signal to the check", async () => {
    // the matcher reads the test vitest flags on its assertion; a stand-in test with its own signal
    const ac = new AbortController();
    const assertion = vitestExpect(migrator);
    chai.util.flag(assertion, 'vitest-test', { type: 'test', fullTestName: 'stand-in', context: { signal: ac.signal } });
    let simulations = 0;
    let t = 0;
    reconciles = 0;
    const running = assertion.toPassCheck({
      objects: migrations,
      runs: 50,
      properties: [convergence()],
      reportDir: false,
      // a host yield every few kernel turns: on the real clock a fast host finished the run before its first 50 ms yield
      wallClock: () => (t += 5),
      onSimulation: () => {
        if (++simulations === 1) ac.abort(new Error('the test timed out'));
      },
    });
    await expect(running).rejects.toThrow('the test timed out');
    expect(simulations).toBe(1);
    expect(reconciles).toBeLessThan(1500);
  });
});
