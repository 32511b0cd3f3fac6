import { describe, expect, it } from 'vitest';
import { sameEndState } from '../../properties/same-end-state.js';
import { noExtraDestructiveActions } from '../../properties/no-extra-destructive-actions.js';
import { recovery } from '../../properties/recovery.js';
import { CRON_TASK, cronTaskController, cronTaskStuckController, cronTaskTwiceController } from '../../examples/false-positives/cron-task.js';
import { defineController, job, podLifecycle, simulate, type Scenario } from '../../src/index.js';
import { ScenarioRunner } from '../../src/harness/scenario-runner.js';
import { cronRunnerController } from '../../examples/client-node/steadystate.js';
import type { TraceEntry } from '../../src/sim/trace.js';
import { BENIGN_VARIATIONS, SLOW_HOLDS_MS, type BenignVariation, behindAtChangeWindows, divergedKeyWindows, idleKeyWindows, idleVariations, idleWindows, installVariation, keepsDeciding, lagPoints, lagVariations, lateVariations, overtakenPoints, pausePoints, phaseVariations, slowPoints, slowVariations, twinScenario } from '../../src/harness/twin.js';
import { payoutController } from '../../examples/false-positives/payout-transfer.js';
import { allFaults } from '../../faults/index.js';
import { expectFailure, judgeScenario } from '../helpers/property-laws.js';

/**
 * Time-based decisions (session 9, /work/notes/trusttime.md): a CronJob-like controller misses a
 * slot that waited on Forbid past its starting deadline. A slow Pod start keeps the previous run
 * going a few seconds longer, the slot is missed, and the end state legitimately differs from the
 * fault-free twin's; a fault-free run whose controller made that decision a second later ends the
 * same way (the `slow` benign variation), and same-end-state accepts exactly those ends.
 */
const environment = [job, podLifecycle];
const task = { kind: CRON_TASK, metadata: { name: 'nightly', namespace: 'default' }, spec: { everyMs: 20_000, startingDeadlineMs: 4000, runMs: 22_000, historyLimit: 1, image: 'report:1' } };

/** One task created at 4.5 s: slot 1 at 24.5 s runs 22 s, slot 2 at 44.5 s waits on Forbid until slot 1's Job finishes. */
function cron(delayMs: number | undefined): Scenario {
  return {
    seed: 1,
    controllers: [{ name: cronTaskController.name }],
    environment: [{ name: 'job' }, { name: 'pod-lifecycle' }],
    initialObjects: [],
    workload: [{ at: 4500, type: 'create', object: task }],
    faults: { events: delayMs === undefined ? [] : [{ kind: 'environment-slow-rollout', params: { delayMs } }], background: [] },
  };
}

describe('same-end-state on time-based decisions (slow-controller destinations)', () => {
  const runner = () => new ScenarioRunner({ controllers: [cronTaskController], faults: allFaults, environment }, [sameEndState()]);

  it('the decision points are the reconciles of a controller that sets timers that changed something, before the tail', async () => {
    const { run } = await judgeScenario(sameEndState(), cron(undefined), { controllers: [cronTaskController], options: { environment } });
    const points = slowPoints(run, [cronTaskController]);
    // the create's status, slot 1 (its timer; the status once its Job runs, a millisecond later, is held with it),
    // slot 2 once slot 1's Job finished (it waited on Forbid), …
    expect(points.map((p) => p.at).slice(0, 3)).toEqual([4501, 24500, 47601]);
    expect(points.every((p) => p.controller === 'cron-task' && p.at < run.timing.tailStart)).toBe(true);
    // a controller that never sets a timer gets none
    expect(slowPoints({ ...run, trace: run.trace.filter((e) => e.type !== 'reconcile:end') }, [cronTaskController])).toEqual([]);
  });

  it('a slow Pod start makes slot 2 miss its deadline: the run ends as a slow controller\'s does, so it passes', async () => {
    const scenario = cron(6000);
    // the difference is there (judged alone, without what benign runs teach)
    const v = expectFailure((await judgeScenario(sameEndState(), scenario, { controllers: [cronTaskController], options: { environment } })).verdict);
    expect(v.summary).toContain('CronTask default/nightly: status.active[0] is absent, "nightly-2" in the fault-free run');
    const r = runner();
    const out = await r.judge(scenario);
    expect(out.failure).toBeUndefined();
    expect(r.learned.summary()[0]?.masks).toContain('CronTask default/nightly (ends as in a fault-free run of a busy or slow controller)');
    // the timing variations, then each decision point held for each length
    const { run: twin } = await judgeScenario(sameEndState(), cron(undefined), { controllers: [cronTaskController], options: { environment } });
    expect(r.twins.benignSimulations).toBe(BENIGN_VARIATIONS.length + slowPoints(twin, [cronTaskController]).length * SLOW_HOLDS_MS.length);
  });

  it('a slot run twice is still caught: no slow fault-free run makes its Job twice', async () => {
    // the status write that records slot 1 meets a conflict: the buggy twin takes the slot for not started and runs it again
    const scenario: Scenario = { ...cron(undefined), workload: [{ at: 0, type: 'create', object: { ...task, spec: { ...task.spec, runMs: 2000 } } }], faults: { events: [{ kind: 'api-conflict', nth: 2 }], background: [] } };
    const both = () => [noExtraDestructiveActions(), sameEndState()];
    const buggy = new ScenarioRunner({ controllers: [cronTaskTwiceController], faults: allFaults, environment }, both());
    const out = await buggy.judge(scenario);
    expect(out.failure?.property).toBe('no-extra-destructive-actions');
    expect(out.failure?.summary).toBe('extra destructive actions on Job default/nightly-1: 2 creates and 2 deletes under faults, 1 and 1 without');
    // the correct controller finds the slot's Job and records the slot
    expect((await new ScenarioRunner({ controllers: [cronTaskController], faults: allFaults, environment }, both()).judge(scenario)).failure).toBeUndefined();
  });
});

describe('a slow run is a reference only if its controller goes on deciding', () => {
  // a crash after slot 1's create and a stale relist: nightly-1's slot 1 is missed past its deadline
  const tasks = ['nightly-0', 'nightly-1'].map((name) => ({ at: 0, type: 'create' as const, object: { ...task, metadata: { name, namespace: 'default' }, spec: { ...task.spec, runMs: 2000 } } }));
  const scenario: Scenario = {
    ...cron(undefined),
    seed: 89493303,
    workload: tasks,
    faults: {
      events: [
        { kind: 'crash-restart', nth: 2, target: 'cron-task', params: { point: 'after-write' } },
        { kind: 'stale-snapshot', nth: 0, target: 'cron-task', params: { versionsBack: 10, list: true, catchUpMs: 3000 } },
      ],
      background: [],
    },
  };

  it('a cron that never passes a missed slot is still caught: its slow runs stop deciding, and teach nothing', async () => {
    const r = new ScenarioRunner({ controllers: [cronTaskStuckController], faults: allFaults, environment }, [sameEndState()]);
    const out = await r.judge(scenario);
    expect(out.failure?.summary).toBe('end state differs from the fault-free run: CronTask default/nightly-1: status.lastScheduleTime is absent, "<time>" in the fault-free run');
    // some of its slow runs are left out: held past a deadline, it never started a slot again
    const twin = await r.twins.twinOf(twinScenario(scenario));
    expect((await r.twins.slowOf(twin, [cronTaskStuckController])).length).toBeLessThan(slowVariations(twin, [cronTaskStuckController]).length);
  });

  it('the correct cron passes the same scenario, and every one of its slow runs goes on deciding', async () => {
    const r = new ScenarioRunner({ controllers: [cronTaskController], faults: allFaults, environment }, [sameEndState()]);
    expect((await r.judge(scenario)).failure).toBeUndefined();
    const twin = await r.twins.twinOf(twinScenario(scenario));
    expect((await r.twins.slowOf(twin, [cronTaskController])).length).toBe(slowVariations(twin, [cronTaskController]).length);
  });
});

describe('recovery on a schedule whose slot ran while the spec was away', () => {
  it("the finished Job it keeps as history, and that Job's Pods, were made from a template no one can change: not compared", async () => {
    // slot 1 (26 s) runs with the away spec (report:2, kept 2 deep) and is kept as history after the revert at 26.7 s;
    // without the excursion slot 1 runs report:1. The Job's template is immutable, and its Pods are made from it
    const away = { ...task.spec, runMs: 2000, historyLimit: 2, image: 'report:2' };
    const scenario: Scenario = {
      ...cron(undefined),
      workload: [
        { at: 6000, type: 'create', object: task },
        { at: 13_800, type: 'update', kind: CRON_TASK, key: 'default/nightly', spec: { ...task.spec, runMs: 2000 } },
        { at: 21_600, type: 'update', kind: CRON_TASK, key: 'default/nightly', spec: away },
        { at: 26_700, type: 'update', kind: CRON_TASK, key: 'default/nightly', spec: task.spec },
      ],
    };
    const { verdict, run } = await judgeScenario(recovery(), scenario, { controllers: [cronTaskController], options: { environment } });
    expect(run.writes.some((w) => w.verb === 'create' && w.kind === 'Job' && w.key === 'default/nightly-1' && w.t < 26_700)).toBe(true);
    expect(verdict.ok).toBe(true);
    const left = verdict.ok ? (verdict.stats?.['fixedAtCreation'] as string[]) : [];
    expect(left.some((l) => l.startsWith('Job default/nightly-1: spec.template'))).toBe(true);
    expect(left.some((l) => /^Pod default\/nightly-1-\S+: spec\.containers\[0\]\.image$/.test(l))).toBe(true);
  });
});

describe('slow points of hosted programs (hand-made traces)', () => {
  const write = (t: number, key: string, fire?: { fire: string; firedAt: number }): TraceEntry => ({ t, type: 'store:write', actor: 'controller:cron-runner/0', verb: 'create', kind: 'ConfigMap', key, changed: ['.'], noop: false, ...(fire ? { timer: '1.1', ...fire } : {}) }) as TraceEntry;
  const timing = { faultWindowEnd: 30_000, lastActionAt: 0, settleStart: 30_000, tailStart: 60_000, end: 70_000 };

  it('a program whose own schedule wrote decides by the clock: each changing write is a point, begun when its timer fired (50 ms before, for a reaction)', () => {
    const trace = [write(10_030, 'default/a', { fire: '1.10', firedAt: 10_000 }), write(12_000, 'default/b'), write(61_000, 'default/c', { fire: '1.61', firedAt: 60_970 })];
    expect(slowPoints({ trace, timing }, [cronRunnerController])).toEqual([
      { controller: 'cron-runner', at: 10_000, hosted: true },
      { controller: 'cron-runner', at: 11_950, hosted: true },
    ]);
  });

  it('a program none of whose schedules wrote is left alone when the user deleted nothing, and so is any program when no definition says it is hosted', () => {
    expect(slowPoints({ trace: [write(12_000, 'default/b')], timing }, [cronRunnerController])).toEqual([]);
    expect(slowPoints({ trace: [write(10_030, 'default/a', { fire: '1.10', firedAt: 10_000 })], timing }, [])).toEqual([]);
  });

  it('a program none of whose schedules wrote is held at its writes a user deletion overtakes, as an untimed reconciler is (red team round 10 F-1: a hosted slot claimer)', () => {
    const userDelete = (t: number): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'delete', kind: 'Claim', key: 'default/a', changed: ['.'], noop: false }) as TraceEntry;
    // before the fix: [] (an untimed program has no reconciles, and only reconciles made a controller untimed)
    expect(slowPoints({ trace: [write(1_005, 'default/a'), write(5_005, 'default/c'), userDelete(6_000)], timing }, [cronRunnerController])).toEqual([
      { controller: 'cron-runner', at: 955, hosted: true },
      { controller: 'cron-runner', at: 4_955, hosted: true },
    ]);
    // a write more than 10 s before the deletion is no point
    expect(slowPoints({ trace: [write(1_005, 'default/a'), userDelete(12_000)], timing }, [cronRunnerController])).toEqual([]);
    // and held at all its points at once too, for each length (hunt seed 865 run 1: late at two claims, each before a deletion)
    const trace = [write(1_005, 'default/a'), write(5_005, 'default/c'), userDelete(6_000)];
    expect(slowVariations({ trace, timing }, [cronRunnerController]).filter((v) => v.also !== undefined)).toEqual(
      SLOW_HOLDS_MS.map((ms, i) => ({ seed: 1500 + i, jitterMs: 0, shuffleLists: false, slow: { controller: 'cron-runner', at: 955, ms, hosted: true }, also: [{ controller: 'cron-runner', at: 4_955, ms }] })),
    );
    // not a program whose own schedule wrote (it has its single holds at every decision)
    expect(slowVariations({ trace: [...trace, write(7_030, 'default/d', { fire: '1.7', firedAt: 7_000 })], timing }, [cronRunnerController]).filter((v) => v.also !== undefined)).toEqual([]);
  });

  it("a program's first look at an object the user made, overtaken by a user's deletion 10 to 30 s later, is held (whole) until just past it (hunt host:slot-claimer seed 921 run 45)", () => {
    const user = (t: number, verb: string, key: string): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb, kind: 'Claim', key, changed: ['.'], noop: false }) as TraceEntry;
    const status = (t: number, key: string): TraceEntry => ({ t, type: 'store:write', actor: 'controller:cron-runner/0', verb: 'patchStatus', kind: 'Claim', key, changed: ['status.slot'], noop: false }) as TraceEntry;
    const pool = (t: number): TraceEntry => ({ t, type: 'store:write', actor: 'controller:cron-runner/0', verb: 'patch', kind: 'ConfigMap', key: 'default/slots', changed: ['data.0'], noop: false }) as TraceEntry;
    // claim-1 made at 11.7 s and served at once; claim-0 made at 12.9 s, served 31 ms later; claim-1 deleted at 24.3 s
    const trace = [user(11_700, 'create', 'default/claim-1'), pool(11_726), status(11_731, 'default/claim-1'), user(12_900, 'create', 'default/claim-0'), pool(12_926), status(12_931, 'default/claim-0'), user(24_300, 'delete', 'default/claim-1'), pool(24_316)];
    // before the fix: no variation held the program past the deletion (11.4 s after its decision: beyond the 10 s slow holds)
    // held from more than 10 s before the deletion (the slow holds start within 10 s of it) until after it
    const across = (d: number) => (v: BenignVariation) => v.slow !== undefined && v.slow.at < d - 10_000 && v.slow.at + v.slow.ms > d;
    const held = slowVariations({ trace, timing }, [cronRunnerController]).filter(across(24_300));
    // (claim-1's first look, 12.6 s before its own deletion, too: a notification lost until then)
    expect(held).toEqual([
      { seed: 2100, jitterMs: 0, shuffleLists: false, slow: { controller: 'cron-runner', at: 11_681, ms: 24_301 - 11_680, hosted: true } },
      { seed: 2101, jitterMs: 0, shuffleLists: false, slow: { controller: 'cron-runner', at: 12_881, ms: 24_301 - 12_880, hosted: true } },
    ]);
    // a deletion more than 30 s later, none at all, or an object the program made itself: no such hold
    const late = [...trace.slice(0, 6), user(43_000, 'delete', 'default/claim-1')];
    expect(slowVariations({ trace: late, timing }, [cronRunnerController]).filter(across(43_000))).toEqual([]);
    expect(slowVariations({ trace: trace.slice(0, 6), timing }, [cronRunnerController]).filter((v) => v.slow !== undefined)).toEqual([]);
    const own = [pool(12_000), user(24_300, 'delete', 'default/claim-1')];
    expect(slowVariations({ trace: own, timing }, [cronRunnerController]).filter(across(24_300))).toEqual([]);
  });
});

describe('phase variations of hosted programs (hand-made traces)', () => {
  const twinWrite = (t: number, every: number): TraceEntry => ({ t, type: 'store:write', actor: 'controller:cron-runner/0', verb: 'create', kind: 'ConfigMap', key: 'default/run', changed: ['.'], noop: false, timer: '1.1', fire: '1.5', firedAt: t - 30, every }) as TraceEntry;
  const start = (t: number, replica: number): TraceEntry => ({ t, type: 'controller:start', controller: 'cron-runner', replica }) as TraceEntry;

  it('a program that started again in the faulty run is started that much later (modulo its timer) in the twin: one write of its schedule is enough to know the period', () => {
    const twin = { trace: [start(0, 0), twinWrite(21_030, 1000)] };
    expect(phaseVariations({ trace: [start(0, 0), start(3090, 1), start(9000, 1)] }, twin, [cronRunnerController])).toEqual([{ seed: 200, jitterMs: 0, shuffleLists: false, startDelay: { controller: 'cron-runner', ms: 90 } }]);
  });

  it('none for a start on the phase, for a program none of whose schedules wrote, or for a controller not hosted', () => {
    expect(phaseVariations({ trace: [start(0, 0), start(3000, 1)] }, { trace: [twinWrite(21_030, 1000)] }, [cronRunnerController])).toEqual([]);
    expect(phaseVariations({ trace: [start(3090, 1)] }, { trace: [] }, [cronRunnerController])).toEqual([]);
    expect(phaseVariations({ trace: [start(3090, 1)] }, { trace: [twinWrite(21_030, 1000)] }, [])).toEqual([]);
  });
});

describe('slow points of a controller that sets no timer: only decisions a user deletion overtakes (hand-made traces)', () => {
  const timing = { faultWindowEnd: 30_000, lastActionAt: 0, settleStart: 30_000, tailStart: 60_000, end: 70_000 };
  const reconcile = (t: number, n: number, key: string): TraceEntry[] => [
    { t, type: 'reconcile:start', controller: 'machine-pool', replica: 0, key, n } as TraceEntry,
    { t: t + 1, type: 'store:write', actor: 'controller:machine-pool/0', verb: 'patch', kind: 'Machine', key: 'default/m', changed: ['metadata.ownerReferences'], noop: false } as TraceEntry,
    { t: t + 2, type: 'reconcile:end', controller: 'machine-pool', replica: 0, key, n, result: 'done' } as TraceEntry,
  ];
  const userDelete = (t: number): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'delete', kind: 'MachinePool', key: 'default/east', changed: ['.'], noop: false }) as TraceEntry;

  it('each changing reconcile that began at most 10 s before a user deleted something is a point; the others, and every reconcile of a run without a deletion, are not', () => {
    const trace = [...reconcile(100, 1, 'default/east'), ...reconcile(15_000, 2, 'default/east'), ...reconcile(20_000, 3, 'default/west'), userDelete(21_000), ...reconcile(40_000, 4, 'default/west')];
    expect(slowPoints({ trace, timing }, [])).toEqual([
      { controller: 'machine-pool', at: 15_000 },
      { controller: 'machine-pool', at: 20_000 },
    ]);
    expect(slowPoints({ trace: trace.filter((e) => e['actor'] !== 'user'), timing }, [])).toEqual([]);
    // a deletion in the quiet tail overtakes nothing the differential properties compare
    expect(slowPoints({ trace: [...reconcile(55_000, 1, 'default/east'), userDelete(61_000)], timing }, [])).toEqual([]);
  });

  it('a deletion of an object the run had that is gone already (NotFound) overtakes too: a slower finalizer had not let it go (hunt seed 864 run 1)', () => {
    const created: TraceEntry = { t: 50, type: 'store:write', actor: 'user', verb: 'create', kind: 'MachinePool', key: 'default/east', changed: ['.'], noop: false } as TraceEntry;
    const notFound = (t: number, key: string): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'delete', kind: 'MachinePool', key, changed: [], noop: false, error: 'NotFound' }) as TraceEntry;
    // the fault-free run released the Machine and dropped the finalizer at 12 s; the user's second delete at 18.9 s found nothing (before the fix: no point)
    expect(slowPoints({ trace: [created, ...reconcile(12_000, 1, 'default/east'), notFound(18_900, 'default/east')], timing }, [])).toEqual([{ controller: 'machine-pool', at: 12_000 }]);
    // a delete of something the run never had overtakes nothing: no slower controller would have kept it
    expect(slowPoints({ trace: [created, ...reconcile(12_000, 1, 'default/east'), notFound(18_900, 'default/west')], timing }, [])).toEqual([]);
  });
});

describe('slow points of a controller that sets no timer: evictions the user soon makes moot (hand-made traces)', () => {
  const timing = { faultWindowEnd: 30_000, lastActionAt: 0, settleStart: 30_000, tailStart: 60_000, end: 70_000 };
  const drainer = defineController({ name: 'drainer', for: 'MaintenanceNode', watches: [{ kind: 'Pod', map: () => [] }], reconcile: async () => {} });
  const reconcile = (t: number, n: number, verb: string, kind: string): TraceEntry[] => [
    { t, type: 'reconcile:start', controller: 'drainer', replica: 0, key: 'node-0', n } as TraceEntry,
    { t: t + 1, type: 'store:write', actor: 'controller:drainer/0', verb, kind, key: kind === 'Pod' ? 'default/web' : 'node-0', changed: ['.'], noop: false } as TraceEntry,
    { t: t + 2, type: 'reconcile:end', controller: 'drainer', replica: 0, key: 'node-0', n, result: 'done' } as TraceEntry,
  ];
  const uncordon = (t: number, key = 'node-0'): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'update', kind: 'MaintenanceNode', key, changed: ['spec.unschedulable'], noop: false }) as TraceEntry;

  it('a reconcile that deleted an object neither of its kind nor owned is a point when the user changed its object within 10 s; a status write is not, nor an eviction the user left standing', () => {
    expect(slowPoints({ trace: [...reconcile(100, 1, 'delete', 'Pod'), uncordon(400)], timing }, [drainer])).toEqual([{ controller: 'drainer', at: 100 }]);
    // the same reconcile writing only its own status: a level-triggered controller follows its latest spec (an edge-triggered one must still fail)
    expect(slowPoints({ trace: [...reconcile(100, 1, 'updateStatus', 'MaintenanceNode'), uncordon(400)], timing }, [drainer])).toEqual([]);
    // another node changed, or this one only after 10 s
    expect(slowPoints({ trace: [...reconcile(100, 1, 'delete', 'Pod'), uncordon(400, 'node-1')], timing }, [drainer])).toEqual([]);
    expect(slowPoints({ trace: [...reconcile(100, 1, 'delete', 'Pod'), uncordon(10_200)], timing }, [drainer])).toEqual([]);
    // a Pod it owned is its own to recreate: no eviction
    expect(slowPoints({ trace: [...reconcile(100, 1, 'delete', 'Pod'), uncordon(400)], timing }, [{ ...drainer, owns: ['Pod'] }])).toEqual([]);
  });
});

describe('slow points of a controller that decides by the clock: contended keys held alone (hand-made traces)', () => {
  const timing = { faultWindowEnd: 30_000, lastActionAt: 0, settleStart: 30_000, tailStart: 60_000, end: 70_000 };
  const sync = defineController({ name: 'dns', for: 'DnsSync', reconcile: async () => ({ requeueAfter: 20_000 }) });
  const reconcile = (t: number, n: number, key: string): TraceEntry[] => [
    { t, type: 'reconcile:start', controller: 'dns', replica: 0, key, n } as TraceEntry,
    { t: t + 1, type: 'store:write', actor: 'controller:dns/0', verb: 'updateStatus', kind: 'DnsSync', key, changed: ['status.records'], noop: false } as TraceEntry,
    { t: t + 2, type: 'reconcile:end', controller: 'dns', replica: 0, key, n, result: 'requeueAfter' } as TraceEntry,
  ];
  const userUpdate = (t: number, key: string): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'update', kind: 'DnsSync', key, changed: ['spec.zone'], noop: false }) as TraceEntry;

  it('a key whose rivals decide later is held alone until each of them has (and a second), once per point', () => {
    const trace = [...reconcile(100, 1, 'default/a'), ...reconcile(1_500, 2, 'default/b'), ...reconcile(14_000, 3, 'default/c')];
    const points = slowPoints({ trace, timing }, [sync]);
    expect(points[0]).toEqual({ controller: 'dns', at: 100, key: 'default/a', keyUntil: 15_000 });
    expect(points[1]).toEqual({ controller: 'dns', at: 1_500, key: 'default/b', keyUntil: 15_000 });
    // the last key has no rival after it
    expect(points[2]).toEqual({ controller: 'dns', at: 14_000 });
    const alone = slowVariations({ trace, timing }, [sync]).filter((v) => v.slow?.key !== undefined);
    expect(alone.map((v) => v.slow)).toEqual([
      { controller: 'dns', at: 100, ms: 14_901, key: 'default/a' },
      { controller: 'dns', at: 1_500, ms: 13_501, key: 'default/b' },
    ]);
  });

  it('not when the user changed the key\'s own object while it would wait (that hides a declaration), nor for one key alone', () => {
    const trace = [...reconcile(100, 1, 'default/a'), userUpdate(800, 'default/a'), ...reconcile(1_500, 2, 'default/b')];
    expect(slowPoints({ trace, timing }, [sync])[0]).toEqual({ controller: 'dns', at: 100 });
    expect(slowPoints({ trace: reconcile(100, 1, 'default/a'), timing }, [sync])).toEqual([{ controller: 'dns', at: 100 }]);
  });
});

describe('decisions a deletion of their own object overtakes from afar (hand-made traces)', () => {
  const timing = { faultWindowEnd: 30_000, lastActionAt: 0, settleStart: 30_000, tailStart: 60_000, end: 70_000 };
  const reconcile = (t: number, key: string, n: number): TraceEntry[] => [
    { t, type: 'reconcile:start', controller: 'payout', replica: 0, key, n } as TraceEntry,
    { t: t + 20, type: 'store:write', actor: 'controller:payout/0', verb: 'updateStatus', kind: 'Payout', key, changed: ['status.phase'], noop: false } as TraceEntry,
    { t: t + 20, type: 'reconcile:end', controller: 'payout', replica: 0, key, n, result: 'done' } as TraceEntry,
  ];
  const userDelete = (t: number, key: string): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'delete', kind: 'Payout', key, changed: ['.'], noop: false }) as TraceEntry;
  const points = (trace: TraceEntry[]) => overtakenPoints({ trace, timing }, [payoutController]);

  it('a changing reconcile whose own object the user deleted 10 to 30 s later: its key is held until just past the deletion', () => {
    expect(points([...reconcile(100, 'default/p-0', 1), userDelete(13_900, 'default/p-0')])).toEqual([{ controller: 'payout', at: 100, key: 'default/p-0', overtakenAt: 13_900 }]);
    const [v] = slowVariations({ trace: [...reconcile(100, 'default/p-0', 1), userDelete(13_900, 'default/p-0')], timing }, [payoutController]).filter((x) => x.slow?.key !== undefined);
    expect(v?.slow).toEqual({ controller: 'payout', at: 100, ms: 13_900 + 1 - 99, key: 'default/p-0' });
  });

  it('a user\'s change of a kind the controller reads without owning, up to 30 s later, overtakes it too', () => {
    const reads = defineController({ name: 'payout', for: 'Payout', reconcile: async () => undefined });
    const change = (t: number, kind: string): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'update', kind, key: 'default/x', changed: ['spec.size'], noop: false }) as TraceEntry;
    expect(overtakenPoints({ trace: [...reconcile(100, 'default/p-0', 1), change(24_000, 'Pool')], timing }, [reads])).toEqual([{ controller: 'payout', at: 100, key: 'default/p-0', overtakenAt: 24_000 }]);
    // also within 10 s: no slow hold covers an input's change (slot-allocator, corpus hunt seed 67: a pool shrunk 3.3 s after the claim was bound)
    expect(overtakenPoints({ trace: [...reconcile(100, 'default/p-0', 1), change(3_400, 'Pool')], timing }, [reads])).toEqual([{ controller: 'payout', at: 100, key: 'default/p-0', overtakenAt: 3_400 }]);
    // its own kind is no input: a level-triggered controller ends as the latest declaration says
    expect(overtakenPoints({ trace: [...reconcile(100, 'default/p-0', 1), change(24_000, 'Payout')], timing }, [reads])).toEqual([]);
  });

  it('for a kind declared timing dependent: each change of the key\'s own object up to 30 s after any of its decisions, each change apart', () => {
    const userChange = (t: number, key: string): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'update', kind: 'Payout', key, changed: ['spec.amount'], noop: false }) as TraceEntry;
    const trace = [...reconcile(100, 'default/p-0', 1), ...reconcile(2_100, 'default/p-0', 2), userChange(9_000, 'default/p-0'), userChange(25_000, 'default/p-0')];
    const lag = (t: TraceEntry[], kinds: string[]) => lagPoints({ trace: t, timing }, [payoutController], new Set(kinds));
    expect(lag(trace, ['Payout'])).toEqual([
      { controller: 'payout', at: 100, key: 'default/p-0', overtakenAt: 9_000 },
      { controller: 'payout', at: 100, key: 'default/p-0', overtakenAt: 25_000 },
      { controller: 'payout', at: 2_100, key: 'default/p-0', overtakenAt: 9_000 },
      { controller: 'payout', at: 2_100, key: 'default/p-0', overtakenAt: 25_000 },
    ]);
    // undeclared: none (an end that depends on when the controller saw its object is a bug to report)
    expect(lag(trace, [])).toEqual([]);
    expect(lag(trace, ['Wave'])).toEqual([]);
    // not more than 30 s later, nor another object's change
    expect(lag([...reconcile(100, 'default/p-0', 1), userChange(31_000, 'default/p-0'), userChange(5_000, 'default/p-1')], ['Payout'])).toEqual([]);
    // the user's deletion too: a request withdrawn before a slow controller came to it (disruption-budget's evictions, stop 39)
    expect(lag([...reconcile(100, 'default/p-0', 1), userDelete(18_900, 'default/p-0')], ['Payout'])).toEqual([{ controller: 'payout', at: 100, key: 'default/p-0', overtakenAt: 18_900 }]);
  });

  it("ends when the points kept per change are fewer than the cap (it spun for ever: node-upgrade, stop 42)", () => {
    const userChange = (t: number): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'update', kind: 'Payout', key: 'default/p-0', changed: ['spec.amount'], noop: false }) as TraceEntry;
    // five decisions before the first change: 5 × 2 points, over the cap; the second change's are
    // all before the first change (dropped), leaving five
    const trace = [...[100, 200, 300, 400, 500].flatMap((t, i) => reconcile(t, 'default/p-0', i + 1)), userChange(1_000), userChange(2_000)];
    const points = lagPoints({ trace, timing }, [payoutController], new Set(['Payout']));
    expect(points.map((p) => [p.at, p.overtakenAt])).toEqual([100, 200, 300, 400, 500].map((t) => [t, 1_000]));
  });

  it('for a kind declared timing dependent: every request the user created and withdrew, held from its creation until its withdrawal, all at once', () => {
    const userCreate = (t: number, key: string): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'create', kind: 'Payout', key, changed: ['.'], noop: false }) as TraceEntry;
    // two requests, each denied until the user withdrew it (disruption-budget, stop 40), and a third never withdrawn
    const trace = [userCreate(3_000, 'default/a'), ...reconcile(3_001, 'default/a', 1), userCreate(3_600, 'default/b'), ...reconcile(3_601, 'default/b', 2), userCreate(4_000, 'default/c'), ...reconcile(4_001, 'default/c', 3), userDelete(6_000, 'default/b'), userDelete(18_300, 'default/a')];
    const all = lagVariations({ trace, timing }, [payoutController], new Set(['Payout'])).find((v) => v.seed === 3998);
    expect(all).toEqual({ seed: 3998, jitterMs: 0, shuffleLists: false, slow: { controller: 'payout', at: 3_001, ms: 18_301 - 3_000, key: 'default/a' }, also: [{ controller: 'payout', at: 3_601, ms: 6_001 - 3_600, key: 'default/b' }] });
    // one withdrawn request alone is the lag points' (no combined hold), and undeclared kinds get none
    expect(lagVariations({ trace: trace.slice(0, -1), timing }, [payoutController], new Set(['Payout'])).some((v) => v.also !== undefined)).toBe(false);
    expect(lagVariations({ trace, timing }, [payoutController], new Set())).toEqual([]);
    // a creation after a deletion starts afresh: only what preceded each deletion is held
    const again = [userCreate(1_000, 'default/a'), userDelete(2_000, 'default/a'), userCreate(9_000, 'default/a'), userCreate(1_500, 'default/b'), userDelete(2_500, 'default/b'), userCreate(9_500, 'default/b')];
    expect(lagVariations({ trace: again.sort((x, y) => x.t - y.t), timing }, [payoutController], new Set(['Payout'])).find((v) => v.seed === 3998)?.also).toEqual([{ controller: 'payout', at: 1_501, ms: 2_501 - 1_500, key: 'default/b' }]);
  });

  it('not a deletion within 10 s (the slow holds cover it), nor one more than 30 s later, nor another object\'s', () => {
    expect(points([...reconcile(100, 'default/p-0', 1), userDelete(5_000, 'default/p-0')])).toEqual([]);
    expect(points([...reconcile(100, 'default/p-0', 1), userDelete(40_000, 'default/p-0')])).toEqual([]);
    expect(points([...reconcile(100, 'default/p-0', 1), userDelete(13_900, 'default/p-1')])).toEqual([]);
  });
});

describe('keepsDeciding: a held controller must go on deciding after its hold', () => {
  const timing = { faultWindowEnd: 30_000, lastActionAt: 0, settleStart: 30_000, tailStart: 60_000, end: 70_000 };
  const change = (t: number, n: number, key: string): TraceEntry[] => [
    { t, type: 'reconcile:start', controller: 'mirror', replica: 0, key, n } as TraceEntry,
    { t, type: 'store:write', actor: 'controller:mirror/0', verb: 'update', kind: 'ImageMirror', key, changed: ['metadata.finalizers'], noop: false } as TraceEntry,
    { t, type: 'reconcile:end', controller: 'mirror', replica: 0, key, n, result: 'done' } as TraceEntry,
  ];
  const removed = (t: number, key: string): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'delete', kind: 'ImageMirror', key, changed: ['.'], noop: false, removed: true }) as TraceEntry;
  // the fault-free run cleans the mirror up after the user's delete at 13.8 s (its finalizer)
  const twin = { trace: [...change(1_800, 1, 'default/m'), ...change(14_000, 2, 'default/m')], timing };
  const hold = { controller: 'mirror', at: 1_801, ms: 12_001 };
  it('a key the fault-free run changed after the hold that the held run never changed again: a controller that stopped deciding', () => {
    expect(keepsDeciding({ trace: [], timing }, twin, hold)).toBe(false);
  });
  it('unless its object is gone in the held run: deleted before the controller came to it, it never got the finalizer whose cleanup the fault-free run did', () => {
    expect(keepsDeciding({ trace: [removed(13_800, 'default/m')], timing }, twin, hold)).toBe(true);
  });
  it('a hold of one key asks that key only: another key the held run decided early, not again after the hold, is no stop (corpus disruption-budget, swarm seed 502)', () => {
    // fault-free: m decided at 1.8 s, n only at 16 s; held on m until 14.4 s: n decided at 4 s, m after the hold
    const both = { trace: [...change(1_800, 1, 'default/m'), ...change(16_000, 2, 'default/n')], timing };
    const held = { trace: [...change(4_000, 1, 'default/n'), ...change(14_402, 2, 'default/m')], timing };
    expect(keepsDeciding(held, both, { controller: 'mirror', at: 1_801, ms: 12_601, key: 'default/m' })).toBe(true);
    // the same hold of the whole controller: n not decided again after it, a stop
    expect(keepsDeciding(held, both, { controller: 'mirror', at: 1_801, ms: 12_601 })).toBe(false);
    // and the held key itself not decided again after its hold: a stop
    const stopped = { trace: [...change(4_000, 1, 'default/n')], timing };
    const later = { trace: [...change(1_800, 1, 'default/m'), ...change(16_000, 2, 'default/m')], timing };
    expect(keepsDeciding(stopped, later, { controller: 'mirror', at: 1_801, ms: 12_601, key: 'default/m' })).toBe(false);
  });
});

describe('idle windows: where a faulty run\'s controller of a timing-dependent kind decided nothing while its twin decided', () => {
  const timing = { faultWindowEnd: 30_000, lastActionAt: 0, settleStart: 30_000, tailStart: 60_000, end: 70_000 };
  const sched = defineController({ name: 'sched', for: 'Pod', reconcile: async () => {} });
  const bind = (t: number, n: number, key: string): TraceEntry[] => [
    { t, type: 'reconcile:start', controller: 'sched', replica: 0, key, n } as TraceEntry,
    { t, type: 'store:write', actor: 'controller:sched/0', verb: 'update', kind: 'Pod', key, changed: ['spec.nodeName'], noop: false } as TraceEntry,
    { t, type: 'reconcile:end', controller: 'sched', replica: 0, key, n, result: 'done' } as TraceEntry,
  ];
  // the twin binds as Pods come (0, 12 s, 13 s, 20.1 s); the faulty run's watch stalled: nothing from 1 s to its resync at 21 s
  const twin = { trace: [...bind(0, 1, 'default/web'), ...bind(12_000, 2, 'default/critical'), ...bind(13_000, 3, 'default/probe'), ...bind(20_100, 4, 'default/ingest')], timing };
  const run = { trace: [...bind(0, 1, 'default/web'), ...bind(1_000, 2, 'default/web'), ...bind(21_000, 3, 'default/web'), ...bind(21_050, 4, 'default/web')], timing };

  it('holds the twin from its first decision the faulty run did not make until the faulty run decided again (decisions sharing that moment merged)', () => {
    expect(idleWindows(run, twin, [sched], new Set(['Pod']))).toEqual([{ controller: 'sched', at: 12_000, ms: 21_000 - 11_999 }]);
    expect(idleVariations(run, twin, [sched], new Set(['Pod']))).toEqual([{ seed: 5000, jitterMs: 0, shuffleLists: false, slow: { controller: 'sched', at: 12_000, ms: 9_001 } }]);
  });
  it('per key: a key whose reconciles all failed for seconds (API errors) is held until its first reconcile that worked, while the controller\'s other keys go on', () => {
    const fail = (t: number, n: number, key: string): TraceEntry[] => [
      { t, type: 'reconcile:start', controller: 'sched', replica: 0, key, n } as TraceEntry,
      { t, type: 'reconcile:end', controller: 'sched', replica: 0, key, n, result: 'error' } as TraceEntry,
    ];
    const look = (t: number, n: number, key: string): TraceEntry[] => [
      { t, type: 'reconcile:start', controller: 'sched', replica: 0, key, n } as TraceEntry,
      { t, type: 'reconcile:end', controller: 'sched', replica: 0, key, n, result: 'done' } as TraceEntry,
    ];
    // the twin moves web at 6 s; the faulty run's reconciles of web fail until 20 s, which changes nothing; api decides at 14 s in both
    const twin2 = { trace: [...bind(0, 1, 'default/web'), ...bind(6_000, 2, 'default/web'), ...bind(14_000, 3, 'default/api')], timing };
    const run2 = { trace: [...bind(0, 1, 'default/web'), ...fail(6_000, 2, 'default/web'), ...fail(9_000, 3, 'default/web'), ...bind(14_000, 4, 'default/api'), ...look(20_000, 5, 'default/web')], timing };
    expect(idleKeyWindows(run2, twin2, [sched], new Set(['Pod']))).toEqual([{ controller: 'sched', at: 6_000, ms: 20_000 - 5_999, key: 'default/web' }]);
    expect(idleVariations(run2, twin2, [sched], new Set(['Pod']))).toContainEqual({ seed: 5100, jitterMs: 0, shuffleLists: false, slow: { controller: 'sched', at: 6_000, ms: 14_001, key: 'default/web' } });
    // a reconcile of web that worked at 6.2 s: no window
    const worked = { trace: [...bind(0, 1, 'default/web'), ...fail(6_000, 2, 'default/web'), ...look(6_200, 3, 'default/web'), ...bind(14_000, 4, 'default/api')], timing };
    expect(idleKeyWindows(worked, twin2, [sched], new Set(['Pod']))).toEqual([]);
    expect(idleKeyWindows(run2, twin2, [sched], new Set(['Wave']))).toEqual([]);
  });

  it('per key: a key whose every reconcile since its last good look failed until the user deleted its object is held from that look until just past the deletion (corpus image-mirror, hunt seed 731 run 11)', () => {
    const end = (t: number, n: number, key: string, result: string): TraceEntry[] => [
      { t, type: 'reconcile:start', controller: 'sched', replica: 0, key, n } as TraceEntry,
      { t: t + 30, type: 'reconcile:end', controller: 'sched', replica: 0, key, n, result } as TraceEntry,
    ];
    const userDelete = (t: number): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'delete', kind: 'Pod', key: 'default/web', changed: ['metadata.deletionTimestamp'], noop: false }) as TraceEntry;
    // both runs bind web at 0 and 2 s; the faulty run then only looks at 3.5 s and fails from 3.8 s until the user deletes web at 10.4 s
    const twin3 = { trace: [...bind(0, 1, 'default/web'), ...bind(2_000, 2, 'default/web')], timing };
    const failing = [...bind(0, 1, 'default/web'), ...bind(2_000, 2, 'default/web'), ...end(3_500, 3, 'default/web', 'requeueAfter'), ...end(3_800, 4, 'default/web', 'error'), ...end(6_000, 5, 'default/web', 'error')];
    const run3 = { trace: [...failing, userDelete(10_400), ...end(10_401, 6, 'default/web', 'done')], timing };
    // before the fix: [] (the twin decided nothing the faulty run did not)
    expect(idleKeyWindows(run3, twin3, [sched], new Set(['Pod']))).toEqual([{ controller: 'sched', at: 3_500, ms: 10_401 - 3_499, key: 'default/web' }]);
    // a look that worked before the deletion: no window; nor without the deletion, nor for an undeclared kind
    expect(idleKeyWindows({ trace: [...failing, ...end(9_000, 6, 'default/web', 'requeueAfter'), userDelete(10_400)], timing }, twin3, [sched], new Set(['Pod']))).toEqual([]);
    expect(idleKeyWindows({ trace: failing, timing }, twin3, [sched], new Set(['Pod']))).toEqual([]);
    expect(idleKeyWindows(run3, twin3, [sched], new Set(['Wave']))).toEqual([]);
  });

  it('only for kinds declared timing dependent, and not for a delay under half a second', () => {
    expect(idleWindows(run, twin, [sched], new Set())).toEqual([]);
    expect(idleWindows(run, twin, [sched], new Set(['Wave']))).toEqual([]);
    const late = { trace: [...bind(0, 1, 'default/web'), ...bind(12_300, 2, 'default/critical'), ...bind(13_300, 3, 'default/probe'), ...bind(20_400, 4, 'default/ingest')], timing };
    expect(idleWindows(late, twin, [sched], new Set(['Pod']))).toEqual([]);
  });
  it("past cut-short reconciles: a decision whose reconcile ended in an error after its first write holds on to the controller's first reconcile that ended well", () => {
    const cut = (t: number, n: number, key: string, result = 'error'): TraceEntry[] => [
      { t, type: 'reconcile:start', controller: 'sched', replica: 0, key, n } as TraceEntry,
      { t, type: 'store:write', actor: 'controller:sched/0', verb: 'update', kind: 'Pod', key, changed: ['spec.nodeName'], noop: false } as TraceEntry,
      { t, type: 'reconcile:end', controller: 'sched', replica: 0, key, n, result } as TraceEntry,
    ];
    const fail = (t: number, n: number, key: string): TraceEntry[] => [
      { t, type: 'reconcile:start', controller: 'sched', replica: 0, key, n } as TraceEntry,
      { t, type: 'reconcile:end', controller: 'sched', replica: 0, key, n, result: 'error' } as TraceEntry,
    ];
    // the twin walks the queue at 0 s; the faulty run bound web at 6 s and its next binding failed, its retries failed, and its walk at 20 s ended well
    const twin3 = { trace: bind(0, 1, 'default/web'), timing };
    const run3 = { trace: [...cut(6_000, 1, 'default/web'), ...fail(9_000, 2, 'default/web'), ...bind(20_000, 3, 'default/web')], timing };
    expect(idleWindows(run3, twin3, [sched], new Set(['Pod']))).toEqual([{ controller: 'sched', at: 0, ms: 6_000 }]);
    expect(idleWindows(run3, twin3, [sched], new Set(['Pod']), true)).toEqual([{ controller: 'sched', at: 0, ms: 20_000 }]);
    expect(idleVariations(run3, twin3, [sched], new Set(['Pod']))).toContainEqual({ seed: 5050, jitterMs: 0, shuffleLists: false, slow: { controller: 'sched', at: 0, ms: 20_000 } });
    // a reconcile that ended well, or asked for a requeue, is a decision made: no window past it
    for (const result of ['done', 'requeue', 'requeueAfter']) {
      const whole = { trace: [...cut(6_000, 1, 'default/web', result), ...fail(9_000, 2, 'default/web'), ...bind(20_000, 3, 'default/web')], timing };
      expect(idleWindows(whole, twin3, [sched], new Set(['Pod']), true)).toEqual([{ controller: 'sched', at: 0, ms: 6_000 }]);
      expect(idleVariations(whole, twin3, [sched], new Set(['Pod'])).map((v) => v.seed)).not.toContain(5050);
    }
    // windows carried past it that overlap are one hold (a controller is held or not): web's runs on to a look that
    // ended well at 10 s (the controller's first), into api's window from 8 s to its binding at 15 s
    const look = (t: number, n: number, key: string): TraceEntry[] => [
      { t, type: 'reconcile:start', controller: 'sched', replica: 0, key, n } as TraceEntry,
      { t, type: 'reconcile:end', controller: 'sched', replica: 0, key, n, result: 'done' } as TraceEntry,
    ];
    const twin4 = { trace: [...bind(0, 1, 'default/web'), ...bind(8_000, 2, 'default/api')], timing };
    const run4 = { trace: [...cut(6_000, 1, 'default/web'), ...look(10_000, 2, 'default/web'), ...bind(15_000, 3, 'default/api')], timing };
    expect(idleWindows(run4, twin4, [sched], new Set(['Pod']))).toEqual([
      { controller: 'sched', at: 0, ms: 6_000 },
      { controller: 'sched', at: 8_000, ms: 15_000 - 7_999 },
    ]);
    expect(idleWindows(run4, twin4, [sched], new Set(['Pod']), true)).toEqual([{ controller: 'sched', at: 0, ms: 15_000 }]);
  });
  it('several windows: all at once, and each alone', () => {
    // the faulty run decided again at 14.5 s (after the twin's 12 s and 13 s) and at 21 s (after its 20.1 s)
    const twice = { trace: [...bind(0, 1, 'default/web'), ...bind(1_000, 2, 'default/web'), ...bind(14_500, 3, 'default/a'), ...bind(21_000, 4, 'default/b')], timing };
    const a = { controller: 'sched', at: 12_000, ms: 14_500 - 11_999 };
    const b = { controller: 'sched', at: 20_100, ms: 21_000 - 20_099 };
    expect(idleVariations(twice, twin, [sched], new Set(['Pod']))).toEqual([
      { seed: 5000, jitterMs: 0, shuffleLists: false, slow: a, also: [b] },
      { seed: 5001, jitterMs: 0, shuffleLists: false, slow: a },
      { seed: 5002, jitterMs: 0, shuffleLists: false, slow: b },
    ]);
  });
});

describe('late variations: a faulty run cut short or late in the middle of what its fault-free run did at once (hand-made traces)', () => {
  const timing = { faultWindowEnd: 30_000, lastActionAt: 0, settleStart: 30_000, tailStart: 60_000, end: 70_000 };
  const sched = defineController({ name: 'sched', for: 'Pod', reconcile: async () => {} });
  const start = (t: number, n: number, key: string) => ({ t, type: 'reconcile:start', controller: 'sched', replica: 0, key, n }) as TraceEntry;
  const end = (t: number, n: number, key: string, result = 'done') => ({ t, type: 'reconcile:end', controller: 'sched', replica: 0, key, n, result }) as TraceEntry;
  const write = (t: number, verb: string, key: string, changed: string[] = ['spec.nodeName']) => ({ t, type: 'store:write', actor: 'controller:sched/0', verb, kind: 'Pod', key, changed, noop: false }) as TraceEntry;
  // the fault-free walk binds report-0 and report-1 at once; the faulty one crashed right after report-0,
  // and its restarted process evicted report-0 a second later for a Pod created meanwhile
  const twin = { trace: [start(5000, 1, 'default/report-0'), write(5000, 'update', 'default/report-0'), write(5000, 'update', 'default/report-1'), end(5000, 1, 'default/report-0')], timing };
  const crashed = {
    trace: [start(5000, 1, 'default/report-0'), write(5000, 'update', 'default/report-0'), { t: 5000, type: 'controller:crash', controller: 'sched', replica: 0 } as TraceEntry, start(6000, 1, 'default/api'), write(6000, 'delete', 'default/report-0', ['.']), end(6000, 1, 'default/api')],
    timing,
  };

  it('pauses the fault-free reconcile right after the last write the two runs share, until the faulty run wrote again', () => {
    expect(pausePoints(crashed, twin, [sched], new Set(['Pod']))).toEqual([{ controller: 'sched', at: 5000, verb: 'update', kind: 'Pod', key: 'default/report-0', ms: 1000 }]);
    expect(lateVariations(crashed, twin, [sched], new Set(['Pod']))).toEqual([{ seed: 5200, jitterMs: 0, shuffleLists: false, pause: { controller: 'sched', at: 5000, verb: 'update', kind: 'Pod', key: 'default/report-0', ms: 1000 } }]);
  });

  it('not for kinds not declared timing dependent, nor when the runs part at the first write, nor for another choice made at the same moment, nor between two reconciles (the idle windows hold those)', () => {
    const apart = { trace: [start(5000, 1, 'default/report-0'), write(5000, 'update', 'default/report-0'), end(5000, 1, 'default/report-0'), start(5000, 2, 'default/report-1'), write(5000, 'update', 'default/report-1'), end(5000, 2, 'default/report-1')], timing };
    expect(pausePoints(crashed, apart, [sched], new Set(['Pod']))).toEqual([]);
    expect(pausePoints(crashed, twin, [sched], new Set(['Wave']))).toEqual([]);
    const other = { trace: [start(5000, 1, 'default/report-1'), write(5000, 'update', 'default/report-1'), end(5000, 1, 'default/report-1')], timing };
    expect(pausePoints(other, twin, [sched], new Set(['Pod']))).toEqual([]);
    const sameMoment = { trace: [start(5000, 1, 'default/report-0'), write(5000, 'update', 'default/report-0'), write(5000, 'delete', 'default/logs', ['.']), end(5000, 1, 'default/report-0')], timing };
    expect(pausePoints(sameMoment, twin, [sched], new Set(['Pod']))).toEqual([]);
  });

  it("a hosted program of a declared kind, crashed between two writes its fault-free run made in one burst and back later: restarted right after the last shared write, its answers held until the faulty run's came back (F-1b: a slot claimer's sync split)", () => {
    const kind = cronRunnerController.for;
    const w = (t: number, key: string, changed = 'data.1'): TraceEntry => ({ t, type: 'store:write', actor: 'controller:cron-runner/0', verb: 'patch', kind: 'ConfigMap', key, changed: [changed], noop: false }) as TraceEntry;
    const life = (t: number, type: string): TraceEntry => ({ t, type, controller: 'cron-runner', replica: 0 }) as TraceEntry;
    // the fault-free sync grants x (pool, then x's status) and y at once; the faulty one crashed after x's status and came back at 6.03 s
    const base = { trace: [w(5026, 'default/slots'), w(5031, 'default/x', 'status.slot'), w(5041, 'default/slots', 'data.2')], timing };
    const run = { trace: [w(5026, 'default/slots'), w(5031, 'default/x', 'status.slot'), life(5031, 'controller:crash'), life(6031, 'controller:start'), w(6060, 'default/slots', 'data.0')], timing };
    // before the fix: [] (pausePoints and the other late variations are the reconcilers')
    expect(lateVariations(run, base, [cronRunnerController], new Set([kind]))).toEqual([{ seed: 5400, jitterMs: 0, shuffleLists: false, restart: { controller: 'cron-runner', at: 5032, ms: 6031 - 5032 } }]);
    // not for a kind not declared, nor without a crash between, nor when the fault-free run's next write was no part of the same burst
    expect(lateVariations(run, base, [cronRunnerController], new Set(['Wave']))).toEqual([]);
    expect(lateVariations({ ...run, trace: run.trace.filter((e) => e.type !== 'controller:crash') }, base, [cronRunnerController], new Set([kind]))).toEqual([]);
    const apart = { trace: [w(5026, 'default/slots'), w(5031, 'default/x', 'status.slot'), w(5400, 'default/slots', 'data.2')], timing };
    expect(lateVariations(run, apart, [cronRunnerController], new Set([kind]))).toEqual([]);
  });

  it('per key: the first reconcile where the faulty run decided otherwise holds the key until the faulty run\'s next reconcile of it that worked', () => {
    const evictor = defineController({ name: 'sched', for: 'EvictionRequest', reconcile: async () => {} });
    const status = (t: number, message: string) => ({ t, type: 'store:write', actor: 'controller:sched/0', verb: 'updateStatus', kind: 'EvictionRequest', key: 'default/drain', changed: [message], noop: false }) as TraceEntry;
    const look = (t: number, n: number, writes: TraceEntry[]) => [start(t, n, 'default/drain'), ...writes, end(t, n, 'default/drain', 'requeueAfter')];
    // both refuse at 4 s; at 16 s the fault-free run grants (takes the budget's disruption, deletes the Pod),
    // the faulty one refuses again (a budget status a fault held back) and tries again at 18 s
    const base = { trace: [...look(4000, 1, [status(4000, 'status.message')]), ...look(16_000, 2, [write(16_000, 'delete', 'default/web-0', ['.']), status(16_000, 'status.phase')])], timing };
    const run = { trace: [...look(4000, 1, [status(4000, 'status.message')]), ...look(16_000, 2, [status(16_000, 'status.message')]), ...look(18_000, 3, [status(18_000, 'status.message')])], timing };
    expect(divergedKeyWindows(run, base, [evictor], new Set(['EvictionRequest']))).toEqual([{ controller: 'sched', at: 16_000, ms: 18_000 - 15_999, key: 'default/drain' }]);
    expect(lateVariations(run, base, [evictor], new Set(['EvictionRequest']))).toEqual([{ seed: 5300, jitterMs: 0, shuffleLists: false, slow: { controller: 'sched', at: 16_000, ms: 2001, key: 'default/drain' } }]);
    // the same grant a quarter of a second later (its request first seen late): held until then
    const late = { trace: [...look(4000, 1, [status(4000, 'status.message')]), ...look(16_250, 2, [write(16_250, 'delete', 'default/web-0', ['.']), status(16_250, 'status.phase')])], timing };
    expect(divergedKeyWindows(late, base, [evictor], new Set(['EvictionRequest']))).toEqual([{ controller: 'sched', at: 16_000, ms: 16_250 - 15_999, key: 'default/drain' }]);
    // decided alike throughout: no hold; a kind not declared: none
    expect(divergedKeyWindows(base, base, [evictor], new Set(['EvictionRequest']))).toEqual([]);
    expect(divergedKeyWindows(run, base, [evictor], new Set(['Pod']))).toEqual([]);
  });

  it("per key: the same decisions made later are followed to the one where the runs part (disruption-budget, seed 202 unshrunk)", () => {
    const evictor = defineController({ name: 'sched', for: 'EvictionRequest', reconcile: async () => {} });
    const status = (t: number, message: string) => ({ t, type: 'store:write', actor: 'controller:sched/0', verb: 'updateStatus', kind: 'EvictionRequest', key: 'default/drain', changed: [message], noop: false }) as TraceEntry;
    const look = (t: number, n: number, writes: TraceEntry[]) => [start(t, n, 'default/drain'), ...writes, end(t, n, 'default/drain', 'requeueAfter')];
    // both refuse at 4 s; the fault-free run refuses again at 10 s, the faulty one at 12 s (its beat
    // moved); both refuse at 16 s; at 16.002 s the fault-free run grants, the faulty one refuses at 18 s
    const grant = (t: number) => [write(t, 'delete', 'default/web-0', ['.']), status(t, 'status.phase')];
    const base = { trace: [...look(4000, 1, [status(4000, 'status.message')]), ...look(10_000, 2, [status(10_000, 'status.message')]), ...look(16_001, 3, [status(16_001, 'status.message')]), ...look(16_002, 4, grant(16_002))], timing };
    const run = { trace: [...look(4000, 1, [status(4000, 'status.message')]), ...look(12_000, 2, [status(12_000, 'status.message')]), ...look(16_001, 3, [status(16_001, 'status.message')]), ...look(18_000, 4, [status(18_000, 'status.message')])], timing };
    const windows = [
      { controller: 'sched', at: 10_000, ms: 12_000 - 9_999, key: 'default/drain' },
      { controller: 'sched', at: 16_002, ms: 18_000 - 16_001, key: 'default/drain' },
    ];
    expect(divergedKeyWindows(run, base, [evictor], new Set(['EvictionRequest']))).toEqual(windows);
    expect(lateVariations(run, base, [evictor], new Set(['EvictionRequest']))).toEqual([
      { seed: 5300, jitterMs: 0, shuffleLists: false, slow: windows[0] },
      { seed: 5310, jitterMs: 0, shuffleLists: false, slow: windows[0], also: [windows[1]] },
    ]);
    // after another decision the runs' decisions no longer pair up: held until the next attempt, nothing past it
    const other = { trace: [...look(4000, 1, [status(4000, 'status.message')]), ...look(10_000, 2, grant(10_000)), ...look(12_000, 3, [status(12_000, 'status.message')]), ...look(16_500, 4, [status(16_500, 'status.message')])], timing };
    expect(divergedKeyWindows(other, base, [evictor], new Set(['EvictionRequest']))).toEqual([{ controller: 'sched', at: 10_000, ms: 12_000 - 9_999, key: 'default/drain' }]);
  });
});

describe('late variations: several keys late at once, each through all its late decisions (hand-made traces)', () => {
  const timing = { faultWindowEnd: 30_000, lastActionAt: 0, settleStart: 30_000, tailStart: 60_000, end: 70_000 };
  const sync = defineController({ name: 'sync', for: 'DnsSync', reconcile: async () => {} });
  const step = (t: number, n: number, key: string, field: string) => [
    { t, type: 'reconcile:start', controller: 'sync', replica: 0, key, n },
    { t, type: 'store:write', actor: 'controller:sync/0', verb: 'updateStatus', kind: 'DnsSync', key, changed: [field], noop: false },
    { t, type: 'reconcile:end', controller: 'sync', replica: 0, key, n, result: 'requeueAfter' },
  ] as TraceEntry[];
  const byTime = (...steps: TraceEntry[][]) => ({ trace: steps.flat().sort((x, y) => x.t - y.t), timing });
  // the fault-free run: a decides at 1 s and 5 s, b at 3 s; the faulty one made each later: a's at 2 s and 9 s, b's at 8 s
  const base = byTime(step(1000, 1, 'default/a', 'status.x'), step(3000, 2, 'default/b', 'status.z'), step(5000, 3, 'default/a', 'status.y'));
  const run = byTime(step(2000, 1, 'default/a', 'status.x'), step(8000, 2, 'default/b', 'status.z'), step(9000, 3, 'default/a', 'status.y'));

  it("holds every key from its first late decision to its last, all at once, when several keys were late; not one key alone, nor kinds not declared (dns-sync, guided hunt seeds 491-492: sync-1 held, sync-2 took the name between its windows)", () => {
    expect(divergedKeyWindows(run, base, [sync], new Set(['DnsSync']))).toEqual([
      { controller: 'sync', at: 1000, ms: 2000 - 999, key: 'default/a' },
      { controller: 'sync', at: 3000, ms: 8000 - 2999, key: 'default/b' },
      { controller: 'sync', at: 5000, ms: 9000 - 4999, key: 'default/a' },
    ]);
    expect(lateVariations(run, base, [sync], new Set(['DnsSync']))).toContainEqual({
      seed: 5330,
      jitterMs: 0,
      shuffleLists: false,
      slow: { controller: 'sync', at: 1000, ms: 9000 - 999, key: 'default/a' },
      also: [{ controller: 'sync', at: 3000, ms: 8000 - 2999, key: 'default/b' }],
    });
    // not for one key alone (its windows all at once are held already), nor for kinds not declared
    const one = byTime(step(2000, 1, 'default/a', 'status.x'), step(3000, 2, 'default/b', 'status.z'), step(9000, 3, 'default/a', 'status.y'));
    expect(lateVariations(one, base, [sync], new Set(['DnsSync'])).map((v) => v.seed)).not.toContain(5330);
    expect(lateVariations(run, base, [sync], new Set(['Pod']))).toEqual([]);
  });
});

describe("the faulty run's progress at a user's change, carried to the fault-free run (hand-made traces)", () => {
  const timing = { faultWindowEnd: 30_000, lastActionAt: 0, settleStart: 30_000, tailStart: 60_000, end: 70_000 };
  const roll = defineController({ name: 'roll', for: 'Wave', reconcile: async () => {} });
  const start = (t: number, n: number) => ({ t, type: 'reconcile:start', controller: 'roll', replica: 0, key: 'default/web', n }) as TraceEntry;
  const end = (t: number, n: number) => ({ t, type: 'reconcile:end', controller: 'roll', replica: 0, key: 'default/web', n, result: 'done' }) as TraceEntry;
  const pod = (t: number, verb: string, name: string) => ({ t, type: 'store:write', actor: 'controller:roll/0', verb, kind: 'Pod', key: `default/${name}`, changed: ['.'], noop: false }) as TraceEntry;
  const status = (t: number, changed: string[]) => ({ t, type: 'store:write', actor: 'controller:roll/0', verb: 'updateStatus', kind: 'Wave', key: 'default/web', changed, noop: false }) as TraceEntry;
  const user = (t: number) => ({ t, type: 'store:write', actor: 'user', verb: 'update', kind: 'Wave', key: 'default/web', changed: ['spec.partition'], noop: false }) as TraceEntry;
  const step = (t: number, n: number, ...writes: TraceEntry[]) => [start(t, n), ...writes, end(t, n)];
  // the fault-free run replaces web-2 then web-1 within 4 s, before the user's change at 10 s
  const base = { trace: [...step(1000, 1, pod(1000, 'delete', 'web-2'), status(1000, ['status.ready'])), ...step(2000, 2, pod(2000, 'create', 'web-2'), status(2000, ['status.updated'])), ...step(3000, 3, pod(3000, 'delete', 'web-1')), ...step(4000, 4, pod(4000, 'create', 'web-1'), status(4000, ['status.currentRevision'])), user(10_000)], timing };

  it("holds the key from the first step the faulty run had not made when the user's change came until just past the change (statefulset-partition, hunt seed 2 run 83)", () => {
    // the faulty run makes the same steps seconds later each (crash loops), the last one after the change; its
    // status writes differ (other counters, split by a crash), which does not matter: they report progress
    const run = { trace: [...step(3000, 1, pod(3000, 'delete', 'web-2')), ...step(3500, 2, status(3500, ['status.ready', 'status.replicas'])), ...step(5000, 3, pod(5000, 'create', 'web-2')), ...step(7000, 4, pod(7000, 'delete', 'web-1'), status(7000, ['status.ready'])), user(10_000), ...step(11_000, 5, pod(11_000, 'create', 'web-1'))], timing };
    const w = { controller: 'roll', at: 4000, ms: 10_001 - 3_999, key: 'default/web' };
    expect(behindAtChangeWindows(run, base, [roll], new Set(['Wave']))).toEqual([w]);
    expect(lateVariations(run, base, [roll], new Set(['Wave']))).toContainEqual({ seed: 5320, jitterMs: 0, shuffleLists: false, slow: w });
    // a step the faulty run never made (it went otherwise) before the change: held from there
    const other = { trace: [...step(3000, 1, pod(3000, 'delete', 'web-2')), ...step(5000, 2, pod(5000, 'create', 'web-2')), ...step(7000, 3, pod(7000, 'delete', 'web-0')), user(10_000)], timing };
    expect(behindAtChangeWindows(other, base, [roll], new Set(['Wave']))).toEqual([{ controller: 'roll', at: 3000, ms: 10_001 - 2_999, key: 'default/web' }]);
  });

  it("by downstream calls (a cron's posts, for a controller that decides by the clock): store writes alone, however far behind, give none (lease-cron, hunt seed 319 run 34)", () => {
    const post = (t: number) => ({ t, type: 'downstream:request', actor: 'controller:roll/0', method: 'POST', url: 'https://reports.example/v1/runs', status: 201, mutating: true }) as TraceEntry;
    // the fault-free run posts slots at 1 s, 3 s and 5 s; the faulty one posted two by the user's change at 10 s, the third after it
    const posted = { trace: [...step(1000, 1, post(1000)), ...step(3000, 2, post(3000)), ...step(5000, 3, post(5000)), user(10_000)], timing };
    const late = { trace: [...step(4000, 1, post(4000)), ...step(8000, 2, post(8000)), user(10_000), ...step(11_000, 3, post(11_000))], timing };
    expect(behindAtChangeWindows(late, posted, [roll], new Set(['Wave']), 'calls')).toEqual([{ controller: 'roll', at: 5000, ms: 10_001 - 4_999, key: 'default/web' }]);
    expect(behindAtChangeWindows(posted, posted, [roll], new Set(['Wave']), 'calls')).toEqual([]);
    // a walk of store writes frozen behind (a paced wave, undeclared): nothing to pair, no window
    const run = { trace: [...step(3000, 1, pod(3000, 'delete', 'web-2')), ...step(5000, 2, pod(5000, 'create', 'web-2')), ...step(7000, 3, pod(7000, 'delete', 'web-1')), user(10_000)], timing };
    expect(behindAtChangeWindows(run, base, [roll], new Set(['Wave']), 'calls')).toEqual([]);
  });

  it('none when the faulty run had made every step by the change, for a kind not declared, or for a change more than 30 s after the step', () => {
    const early = { trace: [...step(1500, 1, pod(1500, 'delete', 'web-2')), ...step(2500, 2, pod(2500, 'create', 'web-2')), ...step(8000, 3, pod(8000, 'delete', 'web-1'), pod(8000, 'create', 'web-1')), user(10_000)], timing };
    expect(behindAtChangeWindows(early, base, [roll], new Set(['Wave']))).toEqual([]);
    expect(behindAtChangeWindows(base, base, [roll], new Set(['Wave']))).toEqual([]);
    const run = { trace: [...step(3000, 1, pod(3000, 'delete', 'web-2')), user(10_000)], timing };
    expect(behindAtChangeWindows(run, base, [roll], new Set(['Pod']))).toEqual([]);
    const far = { trace: [...base.trace.filter((e) => e.actor !== 'user'), user(40_000)], timing };
    expect(behindAtChangeWindows({ trace: [...step(3000, 1, pod(3000, 'delete', 'web-2')), user(40_000)], timing }, far, [roll], new Set(['Wave']))).toEqual([]);
  });
});

describe('the pause variation: a write answered late', () => {
  const ITEM = 'Item';
  // one reconcile, two status writes
  const twoSteps = defineController({
    name: 'two-steps',
    for: ITEM,
    reconcile: async (ctx) => {
      const o = await ctx.client.tryGet(ITEM, ctx.key, { live: true });
      if (!o || o.status['b'] === 1) return;
      await ctx.client.patchStatus(ITEM, ctx.key, { status: { a: 1 } });
      await ctx.client.patchStatus(ITEM, ctx.key, { status: { b: 1 } });
    },
  });
  const scenario: Scenario = { seed: 1, controllers: [{ name: 'two-steps' }], initialObjects: [], workload: [{ at: 1000, type: 'create', object: { kind: ITEM, metadata: { name: 'x', namespace: 'default' }, spec: {} } }], faults: { events: [], background: [] } };
  const writes = (r: { trace: readonly TraceEntry[] }) => r.trace.filter((e) => e.type === 'store:write' && e['actor'] === 'controller:two-steps/0').map((e) => `${e.t} ${String(e['changed'])}`);

  it('the write is applied on time, and the reconcile goes on only after the pause', async () => {
    const plain = (await simulate(scenario, { controllers: [twoSteps] })).run;
    const [first] = writes(plain);
    const at = Number(first!.split(' ')[0]);
    expect(writes(plain)).toEqual([`${at} status.a`, `${at} status.b`]);
    const paused = (await simulate(scenario, { controllers: [twoSteps], install: [(w) => installVariation(w, { seed: 1, jitterMs: 0, shuffleLists: false, pause: { controller: 'two-steps', at, verb: 'patchStatus', kind: ITEM, key: 'default/x', ms: 700 } }, 30_000)] })).run;
    expect(writes(paused)).toEqual([`${at} status.a`, `${at + 700} status.b`]);
  });

  it('a write through the scale subresource is paused as the write of its object it is recorded as', async () => {
    const scaler = defineController({
      name: 'two-steps',
      for: ITEM,
      reconcile: async (ctx) => {
        const o = await ctx.client.tryGet(ITEM, ctx.key, { live: true });
        if (!o || o.status['b'] === 1) return;
        await ctx.client.patchScale('Deployment', ctx.key, { spec: { replicas: 2 } });
        await ctx.client.patchStatus(ITEM, ctx.key, { status: { b: 1 } });
      },
    });
    const target = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x', namespace: 'default' }, spec: { replicas: 1, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'c:1' }] } } } };
    const s: Scenario = { ...scenario, workload: [{ at: 0, type: 'create', object: target }, ...scenario.workload] };
    const plain = (await simulate(s, { controllers: [scaler] })).run;
    const [first] = writes(plain);
    const at = Number(first!.split(' ')[0]);
    expect(writes(plain)).toEqual([`${at} spec.replicas`, `${at} status.b`]);
    const paused = (await simulate(s, { controllers: [scaler], install: [(w) => installVariation(w, { seed: 1, jitterMs: 0, shuffleLists: false, pause: { controller: 'two-steps', at, verb: 'patch', kind: 'Deployment', key: 'default/x', ms: 700 } }, 30_000)] })).run;
    expect(writes(paused)).toEqual([`${at} spec.replicas`, `${at + 700} status.b`]);
  });
});

describe('holds of one key combine', () => {
  const ITEM = 'Item';
  const stamp = defineController({
    name: 'stamp',
    for: ITEM,
    reconcile: async (ctx) => {
      const o = await ctx.client.tryGet(ITEM, ctx.key, { live: true });
      if (o && o.status['done'] !== 1) await ctx.client.patchStatus(ITEM, ctx.key, { status: { done: 1 } });
    },
  });
  // the user's patch at 5 s brings the key back between the inner hold's end and the outer one's
  const scenario: Scenario = { seed: 1, controllers: [{ name: 'stamp' }], initialObjects: [], workload: [{ at: 1000, type: 'create', object: { kind: ITEM, metadata: { name: 'x', namespace: 'default' }, spec: {} } }, { at: 5000, type: 'patch', kind: ITEM, key: 'default/x', patch: { spec: { size: 2 } } }], faults: { events: [], background: [] } };

  it('a shorter hold installed inside a longer one does not cut it short (every window at once is their union)', async () => {
    const outer = { controller: 'stamp', at: 1000, ms: 9000, key: 'default/x' };
    const inner = { controller: 'stamp', at: 3000, ms: 1000, key: 'default/x' };
    const held = (await simulate(scenario, { controllers: [stamp], install: [(w) => installVariation(w, { seed: 1, jitterMs: 0, shuffleLists: false, slow: outer, also: [inner] }, 30_000)] })).run;
    const done = held.trace.find((e) => e.type === 'store:write' && e['actor'] === 'controller:stamp/0' && e['kind'] === ITEM);
    expect(done?.t).toBeGreaterThanOrEqual(999 + 9000);
  });
});

describe('idle windows date a faulted reconcile by what it did (hand-made traces)', () => {
  const timing = { faultWindowEnd: 30_000, lastActionAt: 0, settleStart: 30_000, tailStart: 60_000, end: 70_000 };
  const mirror = defineController({ name: 'mirror', for: 'ImageMirror', reconcile: async () => {} });
  const start = (t: number, n: number) => ({ t, type: 'reconcile:start', controller: 'mirror', replica: 0, key: 'default/m', n }) as TraceEntry;
  const end = (t: number, n: number) => ({ t, type: 'reconcile:end', controller: 'mirror', replica: 0, key: 'default/m', n, result: 'requeueAfter' }) as TraceEntry;
  const status = (t: number) => ({ t, type: 'store:write', actor: 'controller:mirror/0', verb: 'updateStatus', kind: 'ImageMirror', key: 'default/m', changed: ['status.tags'], noop: false }) as TraceEntry;
  const copy = (t: number, status = 202) => ({ t, type: 'downstream:request', start: t - 30, actor: 'controller:mirror/0', method: 'POST', url: 'https://registry.example/api/copies', status, mutating: true }) as TraceEntry;
  const lease = (t: number) => ({ t, type: 'store:write', actor: 'controller:mirror/0', verb: 'update', kind: 'Lease', key: 'kube-system/mirror-leader', changed: ['spec.renewTime'], noop: false }) as TraceEntry;
  // fault-free: copies at once (0 s) and again at 2.5 s; faulted: one reconcile begun at 5 s whose slow calls ran
  // until it copied at 20 s (its elector renewed the lease at 10 s meanwhile)
  const twin = { trace: [start(0, 1), copy(30), status(30), end(30, 1), start(2500, 2), copy(2530), end(2530, 2)], timing };
  const run = { trace: [start(5000, 1), lease(10_000), copy(20_030), status(20_030), end(20_030, 1)], timing };

  it('a reconcile decided when it first changed something (a mutating call the service accepted, or a store write), not when it began', () => {
    expect(idleWindows(run, twin, [mirror], new Set(['ImageMirror']))).toEqual([{ controller: 'mirror', at: 0, ms: 20_030 - 0 }]);
  });

  it('a lease renewal inside an open reconcile is no decision, nor is a copy the service refused', () => {
    const refused = { trace: [start(5000, 1), lease(10_000), copy(12_000, 503), copy(20_030), end(20_030, 1)], timing };
    expect(idleWindows(refused, twin, [mirror], new Set(['ImageMirror']))).toEqual([{ controller: 'mirror', at: 0, ms: 20_030 }]);
  });
});
