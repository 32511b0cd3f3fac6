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

  it('worldOf: the run\'s world-slowing faults pinned to the objects they acted on, without the control-plane faults', async () => {
    const varied: Scenario[] = [];
    const twins = new TwinRunner(async (s) => fakeRun({ scenario: s }), 32, async (s) => (varied.push(s), fakeRun({ scenario: s })));
    const slow = new Set(['environment-pod-never-ready', 'environment-slow-rollout']);
    const scenario = bareScenario({ faults: { events: [{ kind: 'environment-pod-never-ready', nth: 5 }, { kind: 'coalescing', nth: 1 }], background: [{ kind: 'environment-slow-rollout', rate: 0.3, params: { delayMs: 4000 } }] } });
    const run = fakeRun({
      scenario,
      trace: [
        { type: 'fault:inject', t: 10, kind: 'coalescing', key: 'default/db' },
        { type: 'fault:inject', t: 20, kind: 'environment-pod-never-ready', key: 'default/db-1', nth: 5, step: 'pod:ready' },
        { type: 'fault:inject', t: 30, kind: 'environment-slow-rollout', key: 'default/db-2', step: 'pod:start', delayMs: 4000, background: true },
        { type: 'fault:inject', t: 40, kind: 'environment-slow-rollout', key: 'default/db-2', step: 'statefulset:create-pod', delayMs: 4000, background: true },
      ],
    });
    const [world] = await twins.worldOf(run, slow);
    expect(varied).toHaveLength(1);
    expect(world!.scenario.faults).toEqual({
      events: [
        { kind: 'environment-pod-never-ready', target: 'default/db-1' },
        { kind: 'environment-slow-rollout', target: 'default/db-2', params: { delayMs: 4000 } },
      ],
      background: [],
    });
    // a run whose faults all slow the world is that world already; one with none of them has none
    const own = fakeRun({ scenario: bareScenario({ faults: { events: [{ kind: 'environment-pod-never-ready', nth: 0 }], background: [] } }) });
    expect(await twins.worldOf(own, slow)).toEqual([own]);
    expect(await twins.worldOf(fakeRun({ scenario: bareScenario({ faults: { events: [{ kind: 'coalescing', nth: 0 }], background: [] } }) }), slow)).toEqual([]);
    expect(varied).toHaveLength(1);
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
