import { describe, expect, it } from 'vitest';
import { check, type ControllerDefinition, type Scenario } from '../../src/index.js';
import { propertiesOf } from '../helpers/false-positives.js';
import { falsePositiveCorpus, type FalsePositiveCase } from '../../examples/false-positives/index.js';

/**
 * The corpus cases of stop 43b (lease-cron, ca-rotation, txt-registry): each case's own story under the faults
 * its shape is about, replayed with every property (the case's own in place of the built-ins):
 * the correct controller passes, and its buggy twin fails the same history, so a regression of
 * the case, of a fault or of an oracle shows here, not only in a hunt. (Their gate and their buggy
 * twins' small-world runs are in false-positives-a/-b with the rest of the corpus.)
 */
const byName = (name: string): FalsePositiveCase => falsePositiveCorpus.find((x) => x.name === name)!;

/** The case's story as a scenario, with `faults`. */
function storyScenario(name: string, faults: Scenario['faults']): Scenario {
  const c = byName(name);
  const story = c.options.story as { objects?: Scenario['initialObjects']; actions?: Scenario['workload'] };
  return { seed: 1, controllers: c.controllers.map((x) => ({ name: x.name })), initialObjects: story.objects ?? [], workload: story.actions ?? [], faults };
}

async function judgeCase(name: string, scenario: Scenario, controllers?: readonly ControllerDefinition[]): Promise<string> {
  const c = byName(name);
  const out = await check([...(controllers ?? c.controllers)], { ...c.options, properties: propertiesOf(c), runs: 1, seed: 1, shrink: false, corpus: { scenarios: [scenario] } });
  return out.ok ? 'passed' : `${out.property}: ${out.summary}`;
}

describe('corpus cases of stop 43b: their stories under the faults of their shape', () => {
  // a second replica from the start (the controller runs without manager election: both reconcile every
  // schedule at each slot) and a crash of replica 0 after a write
  const twoReplicas = storyScenario('lease-cron', { events: [{ kind: 'second-replica', at: 0 }, { kind: 'crash-restart', nth: 6, params: { point: 'after-write' } }], background: [] });
  it('lease-cron: two active replicas and a crash fire every slot exactly once', { timeout: 60_000 }, async () => {
    expect(await judgeCase('lease-cron', twoReplicas)).toBe('passed');
  });
  // the twin's shrunk failure of the gate (seed 9): a 500 on the record of the audit's first firing
  const recordRefused: Scenario = {"seed":9,"controllers":[{"name":"lease-cron"}],"initialObjects":[{"apiVersion":"reports.example.com/v1","kind":"ReportSchedule","metadata":{"name":"audit","namespace":"default"},"spec":{"everyMs":5000,"runs":2,"report":"audit"}}],"workload":[],"faults":{"events":[{"kind":"api-error","nth":9,"params":{"status":500}}],"background":[]}};
  it('lease-cron: a refused record of a firing is retried without posting the run again', { timeout: 60_000 }, async () => {
    expect(await judgeCase('lease-cron', recordRefused)).toBe('passed');
  });
  it("lease-cron's twin, trusting its claim, posts the run again when the record of its firing is refused", { timeout: 60_000 }, async () => {
    expect(await judgeCase('lease-cron', recordRefused, byName('lease-cron').buggy!.controllers)).toMatch(/^no-duplicate-side-effects: .*reports\.example\/runs/);
  });

  // a reports API outage over the digest's first two slots, a lost answer to a POST that did land (504, applied)
  const apiDown = storyScenario('lease-cron', { events: [{ kind: 'flaky-downstream', at: 2500, params: { fail: 'outage', forMs: 3000, status: 503 } }], background: [] });
  it('lease-cron: slots due during a reports API outage are caught up once each', { timeout: 60_000 }, async () => {
    expect(await judgeCase('lease-cron', apiDown)).toBe('passed');
  });

  // conflicts and a crash mid-rotation, a cache behind by a few seconds
  const rotationFaults = storyScenario('ca-rotation', { events: [{ kind: 'crash-restart', nth: 5, params: { point: 'after-write' } }, { kind: 'api-conflict', nth: 3 }], background: [{ kind: 'stale-snapshot', rate: 0.3, params: { lagMs: 2000 } }] });
  it('ca-rotation: a crash and conflicts mid-rotation keep the served leaf trusted at every write', { timeout: 60_000 }, async () => {
    expect(await judgeCase('ca-rotation', rotationFaults)).toBe('passed');
  });
  it("ca-rotation's twin serves a leaf its clients' bundle does not trust yet", { timeout: 60_000 }, async () => {
    const noFaults = storyScenario('ca-rotation', { events: [], background: [] });
    expect(await judgeCase('ca-rotation', noFaults, byName('ca-rotation').buggy!.controllers)).toMatch(/^safety-invariants: invariant "clients trust the served leaf" broken .*signed by ca-2026/);
  });

  // lost answers to the DNS API (the TXT claim and the A record both applied, their answers lost) and a crash between the two
  const lostAnswers = storyScenario('txt-registry', { events: [{ kind: 'flaky-downstream', nth: 2, params: { fail: 'applied-but-lost' } }, { kind: 'flaky-downstream', nth: 3, params: { fail: 'applied-but-lost' } }, { kind: 'crash-restart', nth: 4, params: { point: 'after-write' } }], background: [] });
  it('txt-registry: lost answers and a crash between the claim and the record publish each name once, and take no record others made', { timeout: 60_000 }, async () => {
    expect(await judgeCase('txt-registry', lostAnswers)).toBe('passed');
  });
  it("txt-registry's twin takes over the record a person made by hand", { timeout: 60_000 }, async () => {
    const noFaults = storyScenario('txt-registry', { events: [], background: [] });
    expect(await judgeCase('txt-registry', noFaults, byName('txt-registry').buggy!.controllers)).toMatch(/^safety-invariants: invariant "records others made are never taken" broken .*legacy\.example\.com/);
  });
});
