import { describe, expect, it } from 'vitest';
import { TwinRunner, twinScenario } from '../../../src/harness/twin.js';
import type { Scenario } from '../../../src/harness/scenario.js';
import { bareScenario, fakeRun } from './helpers.js';

describe('twinScenario', () => {
  it('keeps everything but the faults', () => {
    const s = bareScenario({ seed: 9, faults: { events: [{ kind: 'a', nth: 0 }], background: [{ kind: 'b', rate: 1 }] } });
    expect(twinScenario(s)).toEqual({ ...s, faults: { events: [], background: [] } });
    expect(s.faults.events).toHaveLength(1);
  });
});

describe('TwinRunner', () => {
  it('runs each distinct twin once and serves repeats from its cache', async () => {
    const ran: Scenario[] = [];
    const twins = new TwinRunner(async (s) => (ran.push(s), fakeRun({ scenario: s })));
    const a = bareScenario({ faults: { events: [{ kind: 'x', nth: 0 }], background: [] } });
    const b = bareScenario({ faults: { events: [{ kind: 'x', nth: 5 }], background: [] } });
    const r1 = await twins.twinOf(a);
    const r2 = await twins.twinOf(b);
    expect(r2).toBe(r1);
    await twins.twinOf(bareScenario({ seed: 2, faults: b.faults }));
    expect(ran).toHaveLength(2);
    expect(ran[0]!.faults).toEqual({ events: [], background: [] });
  });

  it('uses a fault-free run as its own twin', async () => {
    const twins = new TwinRunner(async () => {
      throw new Error('must not run');
    });
    const run = fakeRun();
    expect(await twins.twinOf(run.scenario, run)).toBe(run);
  });

  it('forgets the oldest twins beyond its capacity', async () => {
    let n = 0;
    const twins = new TwinRunner(async (s) => (n++, fakeRun({ scenario: s })), 2);
    const f = { events: [{ kind: 'x' }], background: [] };
    for (const seed of [1, 2, 3, 1]) await twins.twinOf(bareScenario({ seed, faults: f }));
    expect(n).toBe(4);
  });
});
