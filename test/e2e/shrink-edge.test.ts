import { describe, expect, it } from 'vitest';
import { check } from '../../src/harness/check.js';
import type { CheckFailed } from '../../src/harness/check-result.js';
import { simulate } from '../../src/harness/simulate.js';
import { edgeTriggered } from '../../examples/replicas/edge-triggered.js';
import { levelTriggered } from '../../examples/replicas/level-triggered.js';
import { eventLoss } from '../../faults/event-loss.js';
import { convergence } from '../../properties/convergence.js';
import { replicaObjects } from './check-fixtures.js';

const base = { faults: [eventLoss], properties: [convergence()], objects: replicaObjects, maxObjects: 3, maxActions: 6 };

/** The shrunk reproduction of SPEC §6: one create and exactly one dropped notification. */
function expectOneDroppedEvent(r: CheckFailed): void {
  expect(r.property).toBe('convergence');
  expect(r.scenario.faults.background).toEqual([]);
  expect(r.scenario.faults.events).toHaveLength(1);
  expect(r.scenario.faults.events[0]!.kind).toBe('event-loss');
  expect(r.scenario.workload.map((a) => a.type)).toEqual(['create']);
  const injected = r.run.trace.filter((e) => e.type === 'fault:inject');
  expect(injected).toHaveLength(1);
  expect(injected[0]).toMatchObject({ kind: 'event-loss', nth: r.scenario.faults.events[0]!.nth });
}

describe('shrinking the edge-triggered failure', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`shrinks to exactly one dropped notification (seed ${seed})`, async () => {
      const r = await check(edgeTriggered, { ...base, seed });
      expect(r.ok).toBe(false);
      expectOneDroppedEvent(r as CheckFailed);
    });
  }

  it('turns a background loss rate into that one concrete event (concretize + delta debugging)', async () => {
    const r = (await check(edgeTriggered, { ...base, maxFaultEvents: 0, seed: 21 })) as CheckFailed;
    expect(r.ok).toBe(false);
    expect(r.originalScenario.faults.events).toEqual([]);
    expect(r.originalScenario.faults.background.length).toBeGreaterThan(0);
    expectOneDroppedEvent(r);
  });

  it('gives a reproduction that fails for edge-triggered and passes for level-triggered', async () => {
    const r = (await check(edgeTriggered, { ...base, seed: 7 })) as CheckFailed;
    const prop = convergence();
    const edge = await simulate(r.scenario, { controllers: [edgeTriggered], faults: [eventLoss], properties: [prop] });
    expect(prop.judge(edge.run, undefined).ok).toBe(false);
    const level = await simulate({ ...r.scenario, controllers: [{ name: 'level-triggered' }] }, { controllers: [levelTriggered], faults: [eventLoss], properties: [prop] });
    expect(prop.judge(level.run, undefined).ok).toBe(true);
  });

  it('without shrinking, reports the scenario as found', async () => {
    const r = (await check(edgeTriggered, { ...base, seed: 1, shrink: false })) as CheckFailed;
    expect(r.ok).toBe(false);
    expect(r.scenario).toEqual(r.originalScenario);
    expect(r.shrinks).toBe(0);
  });
});
