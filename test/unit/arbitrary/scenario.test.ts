import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scenario } from '../../../src/arbitrary/scenario.js';
import { simulate } from '../../../src/harness/simulate.js';
import { eventLoss } from '../../../faults/event-loss.js';
import { levelTriggered } from '../../../examples/replicas/level-triggered.js';
import { minimal, template } from './helpers.js';

const base = { controllers: [{ name: 'level-triggered' }], objects: [template()], faults: [eventLoss], options: { faultWindowMs: 5000, settleMs: 5000 } };

describe('scenario', () => {
  it('generates plain-JSON scenarios that simulate', async () => {
    const samples = fc.sample(scenario(base), { seed: 1, numRuns: 20 });
    for (const s of samples) {
      expect(JSON.parse(JSON.stringify(s))).toEqual(s);
      expect(s.controllers).toEqual([{ name: 'level-triggered' }]);
      expect(s.options).toEqual({ faultWindowMs: 5000, settleMs: 5000 });
      const { run } = await simulate(s, { controllers: [levelTriggered], faults: [eventLoss], tailMs: 0 });
      expect(run.trace.some((e) => e.type === 'user:action' && e['action'] === 'create')).toBe(true);
    }
    expect(new Set(samples.map((s) => s.seed)).size).toBeGreaterThan(10);
  });

  it('bounds objects, actions and fault events', () => {
    for (const s of fc.sample(scenario({ ...base, maxObjects: 1, maxActions: 2, maxFaultEvents: 1 }), { seed: 2, numRuns: 200 })) {
      expect(s.workload.filter((a) => a.type === 'create')).toHaveLength(1);
      expect(s.workload.length).toBeLessThanOrEqual(3);
      expect(s.faults.events.length).toBeLessThanOrEqual(1);
    }
  });

  it('shrinks to seed 0, one create and no faults', () => {
    const s = minimal(scenario(base));
    expect(s.seed).toBe(0);
    expect(s.workload).toHaveLength(1);
    expect(s.faults).toEqual({ events: [], background: [] });
  });

  it('names environment actors and copies the scenario options', () => {
    const [s] = fc.sample(scenario({ ...base, environment: [{ name: 'pods', params: { delayMs: 5 } }] }), { seed: 3, numRuns: 1 });
    expect(s!.environment).toEqual([{ name: 'pods', params: { delayMs: 5 } }]);
  });
});
