import { describe, expect, it } from 'vitest';
import { concretize, ddmin, minimize } from '../../../src/harness/minimize.js';
import type { Scenario } from '../../../src/harness/scenario.js';
import { bareScenario, fakeRun } from './helpers.js';

describe('ddmin', () => {
  it('finds the 1-minimal failing subset', async () => {
    const items = Array.from({ length: 16 }, (_, i) => i);
    let tests = 0;
    const found = await ddmin(items, async (s) => {
      tests++;
      return s.includes(3) && s.includes(11);
    });
    expect(found).toEqual([3, 11]);
    expect(tests).toBeLessThan(60);
  });

  it('returns the empty set when the failure needs nothing', async () => {
    expect(await ddmin([1, 2, 3], async () => true)).toEqual([]);
  });

  it('keeps everything when every element is needed', async () => {
    expect(await ddmin([1, 2, 3], async (s) => s.length === 3)).toEqual([1, 2, 3]);
  });
});

describe('concretize', () => {
  const s = bareScenario({ faults: { events: [{ kind: 'event-loss', nth: 9 }], background: [{ kind: 'event-loss', rate: 0.3 }, { kind: 'opaque', rate: 0.2 }] } });

  it('turns fired background injections with nth into concrete events and drops their rate', () => {
    const run = fakeRun({
      trace: [
        { t: 1, type: 'fault:inject', kind: 'event-loss', nth: 2, background: true },
        { t: 2, type: 'fault:inject', kind: 'event-loss', nth: 9 },
        { t: 3, type: 'fault:inject', kind: 'event-loss', nth: 5, background: true },
        { t: 4, type: 'fault:inject', kind: 'opaque', background: true },
      ],
    });
    expect(concretize(s, run)!.faults).toEqual({
      events: [
        { kind: 'event-loss', nth: 9 },
        { kind: 'event-loss', nth: 2 },
        { kind: 'event-loss', nth: 5 },
      ],
      background: [{ kind: 'opaque', rate: 0.2 }],
    });
  });

  it('carries the rate\'s parameters (or the injection\'s own) into the events', () => {
    const withParams = bareScenario({ faults: { events: [], background: [{ kind: 'delay', rate: 0.5, params: { ms: 100 } }] } });
    const run = fakeRun({ trace: [{ t: 1, type: 'fault:inject', kind: 'delay', nth: 0, background: true }, { t: 1, type: 'fault:inject', kind: 'delay', nth: 1, background: true, params: { ms: 7 } }] });
    expect(concretize(withParams, run)!.faults.events).toEqual([
      { kind: 'delay', nth: 0, params: { ms: 100 } },
      { kind: 'delay', nth: 1, params: { ms: 7 } },
    ]);
  });

  it('does nothing without background rates', () => {
    expect(concretize(bareScenario(), fakeRun())).toBeUndefined();
  });
});

describe('minimize', () => {
  it('concretizes, then removes every fault event and action the failure does not need', async () => {
    const s: Scenario = bareScenario({
      workload: [
        { at: 0, type: 'create', object: { kind: 'K', metadata: { name: 'a' } } },
        { at: 5, type: 'reapply', kind: 'K', key: 'a' },
        { at: 6, type: 'delete', kind: 'K', key: 'a' },
      ],
      faults: { events: [{ kind: 'x', nth: 1 }], background: [{ kind: 'x', rate: 0.5 }] },
    });
    const run = fakeRun({ scenario: s, trace: [{ t: 1, type: 'fault:inject', kind: 'x', nth: 4, background: true }, { t: 2, type: 'fault:inject', kind: 'x', nth: 7, background: true }] });
    // fails when the create and the concrete drop #7 are both there
    const stillFails = async (c: Scenario) => (c.workload.some((a) => a.type === 'create') && c.faults.events.some((e) => e.nth === 7) ? fakeRun({ scenario: c }) : undefined);
    const m = await minimize(s, run, { stillFails });
    expect(m.scenario.faults).toEqual({ events: [{ kind: 'x', nth: 7 }], background: [] });
    expect(m.scenario.workload.map((a) => a.type)).toEqual(['create']);
    expect(m.run.scenario).toBe(m.scenario);
    expect(m.reductions).toBeGreaterThan(0);
  });

  it('keeps the background rate when its concrete form does not fail', async () => {
    const s = bareScenario({ workload: [{ at: 0, type: 'create', object: { kind: 'K', metadata: { name: 'a' } } }], faults: { events: [], background: [{ kind: 'x', rate: 0.5 }] } });
    const run = fakeRun({ scenario: s, trace: [{ t: 1, type: 'fault:inject', kind: 'x', nth: 4, background: true }] });
    const m = await minimize(s, run, { stillFails: async (c) => (c.faults.background.length > 0 && c.workload.length > 0 ? fakeRun({ scenario: c }) : undefined) });
    expect(m.scenario.faults.background).toEqual([{ kind: 'x', rate: 0.5 }]);
    expect(m.scenario.workload).toHaveLength(1);
  });

  it('stops after maxTests candidates', async () => {
    const s = bareScenario({ workload: Array.from({ length: 20 }, (_, i) => ({ at: i, type: 'reapply' as const, kind: 'K', key: `k${i}` })) });
    let calls = 0;
    const m = await minimize(s, fakeRun({ scenario: s }), { maxTests: 5, stillFails: async () => (calls++, undefined) });
    expect(calls).toBe(5);
    expect(m.scenario).toBe(s);
  });
});
