import { describe, expect, it } from 'vitest';
import { APP, POD, judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { secondReplica } from '../../faults/second-replica.js';
import { defineController, type FaultPlan } from '../../src/index.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: secondReplica,
  label: 'generated names without election vs deterministic names',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // both replicas see web's ADDED and each creates a Pod before it sees the other's
  breaking: { events: [{ kind: 'second-replica', at: 0, params: { leaderElection: true } }], background: [] },
  gen: { controllers: ['x'], kinds: [APP], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'second-replica', at: 0, params: { leaderElection: true } },
  // no search law: only a replica that starts before the Apps are handled (t < 200 of 10 s) can race
};

faultLaws(lawCase);

/** The same buggy reconcile, but the controller runs leader election. */
const buggyElected = defineController({ name: 'single-child-buggy-elected', for: APP, owns: [POD], leaderElection: true, reconcile: singleChildBuggy.reconcile });

describe('second-replica', () => {
  const plan = (leaderElection: boolean): FaultPlan => ({ events: [{ kind: 'second-replica', at: 0, params: { leaderElection } }], background: [] });

  it('leader election protects even the buggy reconcile: the second replica stays on standby', async () => {
    const run = await runCase(lawCase, buggyElected, plan(true));
    expect(judgeSingleChild(run)).toBe(true);
    expect(run.writes.some((w) => w.actor === 'controller:single-child-buggy-elected/1' && w.kind !== 'Lease')).toBe(false);
  });

  it('a split-brain replica that ignores the Lease breaks it again', async () => {
    const run = await runCase(lawCase, buggyElected, plan(false));
    expect(judgeSingleChild(run)).toMatch(/controls 2 Pods/);
  });

  it('the extra replica runs only during the fault window', async () => {
    const run = await runCase(lawCase, singleChildCorrect, { events: [{ kind: 'second-replica', at: 50, params: { leaderElection: true } }], background: [] });
    const replica1 = run.trace.filter((e) => e.type === 'reconcile:start' && e['replica'] === 1);
    expect(replica1.length).toBeGreaterThan(0);
    expect(replica1.every((e) => e.t < run.timing.settleStart)).toBe(true);
    expect(run.trace.some((e) => e.type === 'controller:start' && e['replica'] === 1 && e.t === 50)).toBe(true);
  });
});
