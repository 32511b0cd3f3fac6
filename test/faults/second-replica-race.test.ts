import { describe, expect, it } from 'vitest';
import { REMINDER, judgeReminders, mailDownstream, reminderScenario } from '../../examples/fault-targets/reminder/reminder.js';
import { reminderBuggy, reminderCorrect } from '../../examples/fault-targets/reminder/sender.js';
import { falsePositiveCorpus } from '../../examples/false-positives/index.js';
import { secondReplica } from '../../faults/second-replica.js';
import { check, defineController, type Client, type ControllerDefinition, type FaultPlan, type ReconcileContext, type Scenario, type TraceEntry } from '../../src/index.js';
import { propertiesOf } from '../helpers/false-positives.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

/**
 * Two active replicas race a read-modify-write: while the second-replica fault runs two active
 * replicas of a controller, each API call of their reconciles is a round trip, so one replica's
 * read and write can land between the other's (before, a reconcile's calls took no virtual time
 * and each reconcile ran start to end before the other replica's began).
 */
const lawCase: FaultLawCase = {
  fault: secondReplica,
  label: 'a count claimed with a merge patch vs with the resourceVersion read, both declared without election',
  scenario: reminderScenario,
  buggy: reminderBuggy,
  correct: reminderCorrect,
  judge: judgeReminders,
  // both replicas read the stand-up's count at t=2100, before either wrote it
  breaking: { events: [{ kind: 'second-replica', at: 0 }], background: [] },
  gen: { controllers: ['x'], kinds: [REMINDER], keys: ['default/standup', 'default/retro'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'second-replica', at: 0 },
  options: { downstream: mailDownstream },
  search: { numRuns: 30, shrinksTo: 1 },
};

faultLaws(lawCase);

const plan = (params?: Record<string, number>): FaultPlan => ({ events: [{ kind: 'second-replica', at: 0, ...(params ? { params } : {}) }], background: [] });

/** The trace entries of the stand-up Reminder's first slot (t in [2100, 2200)): reads and writes, by replica. */
function firstSlot(trace: readonly TraceEntry[]): string[] {
  return trace
    .filter((e) => e.t >= 2100 && e.t < 2200 && (e.type === 'store:read' || e.type === 'store:write') && e['key'] === 'default/standup')
    .map((e) => `${String(e['actor']).slice(-1)} ${e.type === 'store:read' ? 'read' : `${String(e['verb'])}${e['error'] !== undefined ? ` ${String(e['error'])}` : ''}`}`);
}

describe('second-replica: two active replicas interleave their API calls', () => {
  it("the buggy reminder's two replicas both read the count before either writes it, and both send", async () => {
    const run = await runCase(lawCase, reminderBuggy, plan());
    expect(firstSlot(run.trace).slice(0, 4)).toEqual(['0 read', '1 read', '0 patchStatus', '1 patchStatus']);
    expect(judgeReminders(run)).toMatch(/sent mail 1 2 times/);
  });

  it('the correct reminder: the replica that loses the race gets a 409, re-reads and finds the slot taken', async () => {
    const run = await runCase(lawCase, reminderCorrect, plan());
    expect(firstSlot(run.trace).slice(0, 5)).toEqual(['0 read', '1 read', '0 updateStatus', '1 updateStatus Conflict', '0 read']);
    const posts = run.trace.filter((e) => e['method'] === 'POST' && e.t >= 2100 && e.t < 2200);
    expect(posts.map((e) => e['actor'])).toEqual(['controller:reminder-correct/0']);
    expect(judgeReminders(run)).toBe(true);
  });

  it('a round trip takes virtual time, half out and half back; jitter is seeded per replica', async () => {
    const timed = await runCase(lawCase, reminderCorrect, plan({ roundTripMs: 10 }));
    const reads = timed.trace.filter((e) => e.type === 'store:read' && e['key'] === 'default/standup' && e.t >= 2100 && e.t < 2200);
    // reconciles wake at 2100; the request leg of the first live read is 5 ms
    expect(reads[0]?.t).toBe(2105);
    const a = await runCase(lawCase, reminderCorrect, plan({ roundTripMs: 4, jitterMs: 9 }));
    const b = await runCase(lawCase, reminderCorrect, plan({ roundTripMs: 4, jitterMs: 9 }));
    expect(a.hash).toBe(b.hash);
    expect(a.hash).not.toBe((await runCase(lawCase, reminderCorrect, plan({ roundTripMs: 4 }))).hash);
  });

  it('only two active replicas make calls take time: not a single replica, nor one standing by under leader election', async () => {
    const elected = defineController({ name: 'reminder-elected', for: REMINDER, leaderElection: true, reconcile: reminderBuggy.reconcile });
    const ms = async (def: ControllerDefinition, p: FaultPlan) => {
      const ends = (await runCase(lawCase, def, p)).trace.filter((e) => e.type === 'reconcile:end' && e.t < 10_000);
      expect(ends.length).toBeGreaterThan(0);
      return Math.max(...ends.map((e) => Number(e['ms'])));
    };
    expect(await ms(reminderCorrect, plan({ roundTripMs: 10 }))).toBeGreaterThanOrEqual(20);
    expect(await ms(reminderCorrect, { events: [], background: [] })).toBe(0);
    expect(await ms(elected, plan({ roundTripMs: 10 }))).toBe(0);
  });

  it('a client kept past its reconcile still works: its round trips park whoever calls it', async () => {
    // the code under test may keep ctx.client (a helper built once); it must not look blocked
    const kept = new Map<number, Client>();
    const keeping = defineController({
      name: 'reminder-keeping',
      for: REMINDER,
      leaderElection: false,
      reconcile: (ctx) => {
        const client = kept.get(ctx.replica) ?? ctx.client;
        kept.set(ctx.replica, client);
        return reminderCorrect.reconcile(new Proxy(ctx, { get: (t, p) => (p === 'client' ? client : Reflect.get(t, p)) }) as ReconcileContext);
      },
    });
    const run = await runCase(lawCase, keeping, plan({ roundTripMs: 6, jitterMs: 4 }));
    expect(run.trace.filter((e) => e.type === 'kernel:blocked')).toEqual([]);
    expect(judgeReminders(run)).toBe(true);
  });

  it('the overlap ends with the fault window: calls take no time again in the settle phase', async () => {
    const run = await runCase(lawCase, reminderCorrect, plan({ roundTripMs: 10 }));
    const ends = run.trace.filter((e) => e.type === 'reconcile:end');
    const settling = ends.filter((e) => e.t > run.timing.settleStart);
    expect(settling.length).toBeGreaterThan(0);
    expect(settling.every((e) => e['ms'] === 0)).toBe(true);
    expect(ends.some((e) => e.t < run.timing.settleStart && Number(e['ms']) > 0)).toBe(true);
  });
});

describe("second-replica alone catches lease-cron's buggy twin (a slot claimed with a merge patch)", () => {
  const c = falsePositiveCorpus.find((x) => x.name === 'lease-cron')!;
  const story = c.options.story as { objects: Scenario['initialObjects']; actions: Scenario['workload'] };
  const scenario: Scenario = { seed: 1, controllers: [{ name: 'lease-cron' }], initialObjects: story.objects, workload: story.actions, faults: plan() };
  const judge = async (controllers: readonly ControllerDefinition[]) => {
    const out = await check([...controllers], { ...c.options, properties: propertiesOf(c), runs: 1, seed: 1, shrink: false, corpus: { scenarios: [scenario] } });
    return out.ok ? 'passed' : `${out.property}: ${out.summary}`;
  };
  it('the twin: both replicas claim the first slot and both post its run', { timeout: 60_000 }, async () => {
    expect(await judge(c.buggy!.controllers)).toMatch(/^no-duplicate-side-effects: .*reports\.example\/runs/);
  });
  it('the correct lease-cron: one claim wins, the other gets a 409 and leaves the slot to it', { timeout: 60_000 }, async () => {
    expect(await judge(c.controllers)).toBe('passed');
  });
});
