import { describe, expect, it } from 'vitest';
import { APP, POD, judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { secondReplica } from '../../faults/second-replica.js';
import { defineController, type ControllerDefinition, type FaultPlan } from '../../src/index.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

/** Declared to run without leader election: every replica reconciles. */
const withoutElection = (c: ControllerDefinition, name: string) => defineController({ name, for: c.for, owns: [...c.owns], leaderElection: false, reconcile: c.reconcile });
const buggyUnelected = withoutElection(singleChildBuggy, 'single-child-buggy');
const correctUnelected = withoutElection(singleChildCorrect, 'single-child-correct');

const lawCase: FaultLawCase = {
  fault: secondReplica,
  label: 'generated names without election vs deterministic names, both declared without election',
  scenario: singleChildScenario,
  buggy: buggyUnelected,
  correct: correctUnelected,
  judge: judgeSingleChild,
  // both replicas see web's ADDED and each creates a Pod before it sees the other's
  breaking: { events: [{ kind: 'second-replica', at: 0 }], background: [] },
  gen: { controllers: ['x'], kinds: [APP], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'second-replica', at: 0 },
  // no search law: only a replica that starts before the Apps are handled (t < 200 of 10 s) can race
};

faultLaws(lawCase);

/** The same buggy reconcile, but the controller runs leader election. */
const buggyElected = defineController({ name: 'single-child-buggy-elected', for: APP, owns: [POD], leaderElection: true, reconcile: singleChildBuggy.reconcile });

describe('second-replica', () => {
  const plan = (leaderElection: boolean): FaultPlan => ({ events: [{ kind: 'second-replica', at: 0, ...(leaderElection ? {} : { params: { leaderElection } }) }], background: [] });

  it('deploys a controller that does not declare `leaderElection: false` with election: the second replica stands by', async () => {
    // singleChildBuggy declares nothing: as deployed, more than one replica means leader election
    const run = await runCase(lawCase, singleChildBuggy, plan(true));
    expect(judgeSingleChild(run)).toBe(true);
    expect(run.writes.some((w) => w.actor === 'controller:single-child-buggy/1' && w.kind !== 'Lease')).toBe(false);
    expect(run.trace.find((e) => e.type === 'fault:inject')).toMatchObject({ leaderElection: true, twoActive: false });
    // replica 0 started electing when the second replica came, and won the free Lease at once
    expect(run.trace.find((e) => e.type === 'controller:leader' && e['identity'] === 'single-child-buggy-0')).toMatchObject({ t: 0, leader: true });
  });

  it('runs two active replicas only for a controller that declares it runs without election', async () => {
    const run = await runCase(lawCase, buggyUnelected, plan(true));
    expect(judgeSingleChild(run)).toMatch(/controls 2 Pods/);
    expect(run.trace.find((e) => e.type === 'fault:inject')).toMatchObject({ leaderElection: false, twoActive: true });
  });

  it('generates no split-brain parameter (only round trips)', async () => {
    const fc = await import('fast-check');
    const plans = fc.default.sample(secondReplica.arbitrary(lawCase.gen), { seed: 1, numRuns: 50 }).flat();
    expect(plans.length).toBeGreaterThan(0);
    expect(plans.every((e) => e.params === undefined || Object.keys(e.params).every((k) => k === 'roundTripMs' || k === 'jitterMs'))).toBe(true);
  });

  it('leader election protects even the buggy reconcile: the second replica stays on standby', async () => {
    const run = await runCase(lawCase, buggyElected, plan(true));
    expect(judgeSingleChild(run)).toBe(true);
    expect(run.writes.some((w) => w.actor === 'controller:single-child-buggy-elected/1' && w.kind !== 'Lease')).toBe(false);
  });

  it('an explicit split-brain replica (params.leaderElection: false, never generated) ignores the Lease and breaks it again', async () => {
    const run = await runCase(lawCase, buggyElected, plan(false));
    expect(judgeSingleChild(run)).toMatch(/controls 2 Pods/);
  });

  it('the extra replica runs only during the fault window', async () => {
    const run = await runCase(lawCase, correctUnelected, { events: [{ kind: 'second-replica', at: 50 }], background: [] });
    const replica1 = run.trace.filter((e) => e.type === 'reconcile:start' && e['replica'] === 1);
    expect(replica1.length).toBeGreaterThan(0);
    expect(replica1.every((e) => e.t < run.timing.settleStart)).toBe(true);
    expect(run.trace.some((e) => e.type === 'controller:start' && e['replica'] === 1 && e.t === 50)).toBe(true);
  });
});
