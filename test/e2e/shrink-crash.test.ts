import { describe, expect, it } from 'vitest';
import { check } from '../../src/harness/check.js';
import type { CheckFailed } from '../../src/harness/check-result.js';
import type { TraceEntry } from '../../src/sim/trace.js';
import { crashRestart } from '../../faults/crash-restart.js';
import { convergence } from '../../properties/convergence.js';
import { noExtraDestructiveActions } from '../../properties/no-extra-destructive-actions.js';
import { appObjects, deterministicNameApp, generateNameApp } from './crash-fixtures.js';

const base = { faults: [crashRestart], properties: [convergence(), noExtraDestructiveActions()], objects: appObjects, maxObjects: 2, maxActions: 4 };

/** One crash, and it lands between the Pod create and the status write that would record it. */
function expectOneCrashAtTheRightWrite(r: CheckFailed): void {
  expect(r.property).toBe('no-extra-destructive-actions');
  expect(r.scenario.faults.background).toEqual([]);
  expect(r.scenario.faults.events).toHaveLength(1);
  expect(r.scenario.faults.events[0]!.kind).toBe('crash-restart');
  expect(r.scenario.workload.map((a) => a.type)).toEqual(['create']);
  const trace = r.run.trace;
  const crashes = trace.filter((e) => e.type === 'controller:crash');
  expect(crashes).toHaveLength(1);
  const at = trace.indexOf(crashes[0]!);
  const writesBefore = trace.slice(0, at).filter((e): e is TraceEntry => e.type === 'store:write' && String(e['actor']).startsWith('controller:'));
  // the last controller write before the crash created the Pod; its name was never recorded
  expect(writesBefore.at(-1)).toMatchObject({ verb: 'create', kind: 'Pod' });
  expect(writesBefore.some((e) => e['kind'] === 'App')).toBe(false);
  expect(r.explanation).toMatch(/crash-restart/);
}

describe('shrinking a crash-consistency bug', () => {
  for (const seed of [1, 2, 3]) {
    it(`shrinks to one crash right after the create (seed ${seed})`, async () => {
      const r = await check(generateNameApp, { ...base, seed, runs: 300 });
      expect(r.ok).toBe(false);
      expectOneCrashAtTheRightWrite(r as CheckFailed);
    });
  }

  it('makes a background crash concrete (its nth call) and shrinks to it', async () => {
    const r = (await check(generateNameApp, { ...base, maxFaultEvents: 0, seed: 4, runs: 500 })) as CheckFailed;
    expect(r.ok).toBe(false);
    expect(r.originalScenario.faults.events).toEqual([]);
    expectOneCrashAtTheRightWrite(r);
    expect(r.scenario.faults.events[0]).toMatchObject({ params: { point: 'before-call' } });
  });

  it('passes the fixed controller (deterministic names) under the same crashes', async () => {
    const r = await check(deterministicNameApp, { ...base, seed: 1, runs: 300 });
    expect(r.ok).toBe(true);
    expect(r.coverage.find((c) => c.kind === 'crash-restart')!.injected).toBeGreaterThan(10);
  });
});
