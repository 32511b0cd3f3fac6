import { describe, expect, it } from 'vitest';
import { defineController } from '../../src/index.js';
import { findRevert, recovery } from '../../properties/recovery.js';
import { podsCorrect, podsNoScaleDownBuggy, replicaSet } from '../../examples/property-targets/pods.js';
import { widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, expectQuiet, judgeScenario, propertyLaws } from '../helpers/property-laws.js';
import { SLOT_CLAIM, SLOT_POOL, slotAllocatorController, slotAllocatorLeaky } from '../../examples/false-positives/slot-allocator.js';
import { backup } from '../../examples/bug-zoo/no-leader-election/correct.js';
import { noLeaderElection } from '../../examples/bug-zoo/no-leader-election/scenario.js';

const scenario = widgetScenario(['replicaset'], [
  { at: 0, type: 'create', object: replicaSet('web', 2) },
  { at: 1000, type: 'update', kind: 'ReplicaSet', key: 'default/web', spec: { replicas: 4 } },
  { at: 3000, type: 'update', kind: 'ReplicaSet', key: 'default/web', spec: { replicas: 2 } },
]);

propertyLaws({
  property: recovery(),
  buggy: { controllers: [podsNoScaleDownBuggy], scenario },
  correct: {
    controllers: [podsCorrect],
    scenarios: [
      { name: 'fault-free', scenario },
      { name: 'event loss', scenario: { ...scenario, faults: { events: [{ kind: 'event-loss', nth: 2 }], background: [{ kind: 'event-loss', rate: 0.3 }] } } },
    ],
  },
  explains: ['the user changed the spec of ReplicaSet default/web at t=1.0 s from {"replicas":2} to {"replicas":4} and set it back at t=3.0 s', 'Pod default/web-2 exists, but not in the earlier end state', 'Pod default/web-3 exists'],
});

describe('findRevert', () => {
  it('finds an update away and back, also through a spec patch', () => {
    expect(findRevert(scenario)).toEqual({ kind: 'ReplicaSet', key: 'default/web', awayAt: 1000, backAt: 3000, spec: { replicas: 2 }, awaySpec: { replicas: 4 }, excursion: [1, 2] });
    const patched = { ...scenario, workload: [scenario.workload[0]!, scenario.workload[1]!, { at: 2000, type: 'patch' as const, kind: 'ReplicaSet', key: 'default/web', patch: { spec: { replicas: 2 } } }] };
    expect(findRevert(patched)?.backAt).toBe(2000);
    expect(findRevert({ ...scenario, workload: scenario.workload.slice(0, 2) })).toBeUndefined();
  });
  it('passes runs without a revert, saying so', async () => {
    const { verdict } = await judgeScenario(recovery(), { ...scenario, workload: scenario.workload.slice(0, 2) }, { controllers: [podsNoScaleDownBuggy] });
    expect(verdict).toEqual({ ok: true, judged: false, why: 'the workload reverts no spec' });
  });
  it('asks for a fault-free run of the workload without the change and its revert', () => {
    const extra = recovery().extraRuns!({ ...scenario, faults: { events: [{ kind: 'event-loss', nth: 0 }], background: [] } })['recovery:before']!;
    expect(extra.workload).toEqual([scenario.workload[0]]);
    expect(extra.faults).toEqual({ events: [], background: [] });
  });
  it('ignores actions that fail: an update before the create, a second create, and objects the workload deletes', () => {
    const early = { at: 0, type: 'update' as const, kind: 'ReplicaSet', key: 'default/web', spec: { replicas: 4 } };
    const create = { at: 500, type: 'create' as const, object: replicaSet('web', 2) };
    const back = { at: 1000, type: 'update' as const, kind: 'ReplicaSet', key: 'default/web', spec: { replicas: 4 } };
    // the update at t=0 found no object: replicas 4 at t=1.0 s is a change, not a revert
    expect(findRevert({ ...scenario, workload: [early, create, back] })).toBeUndefined();
    expect(findRevert({ ...scenario, workload: [...scenario.workload, { at: 4000, type: 'delete', kind: 'ReplicaSet', key: 'default/web' }] })).toBeUndefined();
    expect(findRevert({ ...scenario, workload: [...scenario.workload, { at: 3500, type: 'create', object: replicaSet('web', 4) }] })?.excursion).toEqual([1, 2]);
  });
  it('reports the differences in the evidence', async () => {
    const v = expectFailure((await judgeScenario(recovery(), scenario, { controllers: [podsNoScaleDownBuggy] })).verdict);
    expect(v.evidence['differences']).toEqual([
      { id: 'Pod default/web-2', change: 'extra', paths: [] },
      { id: 'Pod default/web-3', change: 'extra', paths: [] },
    ]);
  });
});

describe('recovery false positives (regressions)', () => {
  it('actions at the same time run in workload order: a change and its revert at t=0 are judged against the object, not against nothing', async () => {
    // found by bench/hunt-false-positives.ts on the zoo's ReplicaSet: the earlier end state was
    // taken from the actions before t=0, which left out the create itself
    const sameTime = widgetScenario(['replicaset'], [
      { at: 0, type: 'create', object: replicaSet('web', 3) },
      { at: 0, type: 'patch', kind: 'ReplicaSet', key: 'default/web', patch: { spec: { replicas: 5 } } },
      { at: 0, type: 'patch', kind: 'ReplicaSet', key: 'default/web', patch: { spec: { replicas: 3 } } },
    ]);
    const r = findRevert(sameTime);
    expect(r?.excursion).toEqual([1, 2]);
    expect(recovery().extraRuns!(sameTime)['recovery:before']!.workload).toEqual([sameTime.workload[0]]);
    const { verdict } = await judgeScenario(recovery(), sameTime, { controllers: [podsCorrect] });
    expect(verdict).toMatchObject({ ok: true, stats: { judged: true } });
  });

  it('a spec change after the revert happens in the earlier run too', async () => {
    const later = widgetScenario(['replicaset'], [...scenario.workload, { at: 5000, type: 'update', kind: 'ReplicaSet', key: 'default/web', spec: { replicas: 3 } }]);
    const { verdict } = await judgeScenario(recovery(), later, { controllers: [podsCorrect] });
    expect(verdict).toMatchObject({ ok: true, stats: { judged: true } });
    // and the high-water mark is still caught with the later change in both runs
    const buggy = expectFailure((await judgeScenario(recovery(), { ...later, workload: [...later.workload.slice(0, 3), { at: 5000, type: 'update', kind: 'ReplicaSet', key: 'default/web', spec: { replicas: 1 } }] }, { controllers: [podsNoScaleDownBuggy] })).verdict);
    expect(buggy.summary).toContain('no recovery');
  });

  it('judges the fault-free twin: a fault that changes where the run ends is not blamed on the revert', async () => {
    // a recreation replaces the ReplicaSet (new uid, new pods): the run differs from any
    // fault-free run, which same-end-state skips and recovery must not report either
    const recreated = { ...scenario, faults: { events: [{ kind: 'recreation', at: 4000, target: 'default/web' }], background: [] } };
    const quiet = await judgeScenario(recovery(), recreated, { controllers: [podsCorrect] });
    expect(quiet.verdict).toMatchObject({ ok: true, stats: { judged: true } });
    const v = expectFailure((await judgeScenario(recovery(), recreated, { controllers: [podsNoScaleDownBuggy] })).verdict);
    expect(v.explanation).toContain('the run is judged without its faults');
  });
});

describe('recovery compares external resources by what they are', () => {
  it('a snapshot retaken for the restored spec is the same snapshot, though taken later', async () => {
    // found by bench/hunt-false-positives.ts on the zoo's Backup controller: status.snapshotId
    // named a resource whose takenAt timestamp (and owner uid) made it look different
    const reverted = {
      seed: 0,
      controllers: [{ name: 'backup', replicas: 2 }],
      initialObjects: [],
      workload: [
        { at: 0, type: 'create' as const, object: { kind: 'Backup', metadata: { name: 'orders-db-0', namespace: 'default' }, spec: { database: 'orders-replica' } } },
        { at: 0, type: 'update' as const, kind: 'Backup', key: 'default/orders-db-0', spec: { database: 'orders' } },
        { at: 300, type: 'update' as const, kind: 'Backup', key: 'default/orders-db-0', spec: { database: 'orders-replica' } },
      ],
      faults: { events: [], background: [] },
    };
    const { verdict, run } = await judgeScenario(recovery(), reverted, { controllers: [backup], options: { downstream: noLeaderElection.options.downstream! } });
    expect(verdict).toMatchObject({ ok: true, stats: { judged: true } });
    // the snapshot was replaced twice: the comparison did have a new id to look through
    expect(run.requests.filter((r) => r.method === 'POST').length).toBeGreaterThanOrEqual(2);
  });
});

describe('recovery masks what a revert changes by nature', () => {
  it("conditions' observedGeneration differ by the change and its revert: not a difference", async () => {
    // found with the README tutorial's DnsRecord controller: Ready conditions carry observedGeneration
    const { defineController } = await import('../../src/runtime/define-controller.js');
    const ready = defineController({
      name: 'ready',
      for: 'Thing',
      async reconcile(ctx) {
        const t = await ctx.client.tryGet<{ v: number }, { observedGeneration?: number; conditions?: { type: string; status: string; observedGeneration: number }[] }>('Thing', ctx.key);
        if (!t || t.status.observedGeneration === t.metadata.generation) return;
        const g = t.metadata.generation;
        await ctx.client.updateStatus({ ...t, status: { observedGeneration: g, conditions: [{ type: 'Ready', status: 'True', observedGeneration: g }] } });
      },
    });
    const reverted = {
      seed: 0,
      controllers: [{ name: 'ready' }],
      initialObjects: [],
      workload: [
        { at: 0, type: 'create' as const, object: { kind: 'Thing', metadata: { name: 'a', namespace: 'default' }, spec: { v: 1 } } },
        { at: 100, type: 'update' as const, kind: 'Thing', key: 'default/a', spec: { v: 2 } },
        { at: 200, type: 'update' as const, kind: 'Thing', key: 'default/a', spec: { v: 1 } },
      ],
      faults: { events: [], background: [] },
    };
    const { verdict } = await judgeScenario(recovery(), reverted, { controllers: [ready] });
    expect(verdict).toMatchObject({ ok: true, stats: { judged: true } });
  });
});

describe('recovery masks are validated against the whole world', () => {
  // the masks are written for the world (same-end-state gets the same list), but recovery compares
  // only the reverted object's subtree: a ConfigMap outside it is no typo
  const withConfig: typeof scenario = {
    ...scenario,
    workload: [...scenario.workload, { at: 0, type: 'create', object: { kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { region: 'eu' } } }],
  };
  it('accepts a mask that matches an object outside the reverted subtree, and the harness placement fields', async () => {
    const p = recovery({ masks: ['metadata.generation', 'status.observedGeneration', 'data.region', 'spec.nodeName'] });
    const { verdict } = await judgeScenario(p, withConfig, { controllers: [podsCorrect] });
    if (!verdict.ok) throw new Error(verdict.summary);
    expect(p.problems!()).toEqual([]);
  });
  it('still reports a mask that matches nothing anywhere', async () => {
    const p = recovery({ masks: ['metadata.generation', 'data.regoin'] });
    await judgeScenario(p, withConfig, { controllers: [podsCorrect] });
    expect(p.problems!()).toEqual([expect.stringMatching(/^mask "data.regoin" matches no path in any of the 2 states compared; the nearest path is "data.region"/)]);
  });
});

describe('recovery and grants held by other objects (an allocator keeps what is in use when it shrinks)', () => {
  const pool = (size: number) => ({ kind: SLOT_POOL, metadata: { name: 'pool', namespace: 'default' }, spec: { size } });
  const claim = (name: string, slot: number) => ({ kind: SLOT_CLAIM, metadata: { name, namespace: 'default' }, spec: { pool: 'pool', slot } });
  // slot 2 is granted while the pool has 4 slots, and kept after it goes back to 2: its claim still holds it
  const grown = widgetScenario(['slot-allocator'], [
    { at: 0, type: 'create', object: pool(2) },
    { at: 100, type: 'create', object: claim('wide', 2) },
    { at: 1000, type: 'update', kind: SLOT_POOL, key: 'default/pool', spec: { size: 4 } },
    { at: 3000, type: 'update', kind: SLOT_POOL, key: 'default/pool', spec: { size: 2 } },
  ]);
  it('passes a correct allocator whose shrunk pool keeps the slot a live claim holds, naming what it left out', async () => {
    const { verdict } = await judgeScenario(recovery(), grown, { controllers: [slotAllocatorController] });
    expect(verdict).toEqual({ ok: true, stats: { judged: true, revertedAt: 3000, heldByOthers: ['SlotPool default/pool: status.slots (held by SlotClaim default/wide)'] } });
  });
  it('still fails what nobody holds any more: a reservation kept after its claim was deleted', async () => {
    const gone = { ...grown, workload: [...grown.workload, { at: 4000, type: 'delete' as const, kind: SLOT_CLAIM, key: 'default/wide' }] };
    // the correct allocator frees it: the earlier end state again
    expectQuiet((await judgeScenario(recovery(), gone, { controllers: [slotAllocatorController] })).verdict);
    const v = expectFailure((await judgeScenario(recovery(), gone, { controllers: [slotAllocatorLeaky] })).verdict);
    expect(v.evidence['differences']).toEqual([{ id: 'SlotPool default/pool', change: 'differs', paths: ['status.slots'] }]);
  });
});

/**
 * Red team rt47 FA-D: a ReplicaSet-style controller adopts a Pod someone else made; a scale-down
 * may delete it (any Pod it controls may go), and after the revert it makes a new one. The adopted
 * Pod cannot come back, so by name the end states differ with no fault at all; its Pods are alike
 * by design, which `interchangeable` declares. A count kept high stays a difference.
 */
describe('recovery with interchangeable kinds (rt47 FA-D)', () => {
  const adopter = (leaky: boolean) =>
    defineController({
      name: 'adopter',
      for: 'Pool',
      owns: ['Pod'],
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        const pool = await ctx.client.tryGet<{ replicas: number }>('Pool', ctx.key, { live: true });
        if (!pool) return;
        const ref = { apiVersion: 'example.com/v1', kind: 'Pool', name: pool.metadata.name, uid: pool.metadata.uid, controller: true };
        const pods = await ctx.client.list('Pod', { namespace: 'default', labelSelector: `pool=${pool.metadata.name}`, live: true });
        const mine = [];
        for (const p of pods) {
          if (p.metadata.deletionTimestamp !== undefined) continue;
          const ctl = p.metadata.ownerReferences.find((r) => r.controller === true);
          if (ctl?.uid === pool.metadata.uid) mine.push(p);
          else if (!ctl) mine.push(await ctx.client.patch('Pod', { namespace: 'default', name: p.metadata.name }, { metadata: { ownerReferences: [ref], resourceVersion: p.metadata.resourceVersion } }));
        }
        mine.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
        for (let i = mine.length; i < pool.spec.replicas; i++) await ctx.client.create({ kind: 'Pod', metadata: { generateName: `${pool.metadata.name}-`, namespace: 'default', labels: { pool: pool.metadata.name }, ownerReferences: [ref] }, spec: { containers: [{ name: 'w', image: 'worker' }] } });
        if (!leaky) for (const p of mine.slice(pool.spec.replicas)) await ctx.client.delete('Pod', { namespace: 'default', name: p.metadata.name });
      },
    });
  // the adopted Pod sorts last ("stray" after "pool-0-…"), so the scale-down deletes it
  const s = widgetScenario([], [
    { at: 0, type: 'create', object: { kind: 'Pod', metadata: { name: 'stray', namespace: 'default', labels: { pool: 'pool-0' } }, spec: { containers: [{ name: 'w', image: 'worker' }] } } },
    { at: 100, type: 'create', object: { kind: 'Pool', metadata: { name: 'pool-0', namespace: 'default' }, spec: { replicas: 2 } } },
    { at: 3000, type: 'update', kind: 'Pool', key: 'default/pool-0', spec: { replicas: 1 } },
    { at: 3600, type: 'update', kind: 'Pool', key: 'default/pool-0', spec: { replicas: 2 } },
  ]);
  const scen = { ...s, controllers: [{ name: 'adopter' }] };
  it('by name, the adopted Pod the scale-down deleted is a difference, and the failure suggests the option', async () => {
    const v = expectFailure((await judgeScenario(recovery(), scen, { controllers: [adopter(false)] })).verdict);
    expect(v.explanation).toContain('recovery({ interchangeable: ["Pod"] })');
  });
  it("with interchangeable: ['Pod'] the correct adopter recovers", async () => {
    expectQuiet((await judgeScenario(recovery({ interchangeable: ['Pod'] }), scen, { controllers: [adopter(false)] })).verdict);
  });
  it('a controller that never scales down still fails with the option (2 → 3 → 2 Pods)', async () => {
    const up = { ...scen, workload: scen.workload.map((a) => (a.type === 'update' ? { ...a, spec: { replicas: a.at === 3000 ? 3 : 2 } } : a)) };
    expectQuiet((await judgeScenario(recovery({ interchangeable: ['Pod'] }), up, { controllers: [adopter(false)] })).verdict);
    const v = expectFailure((await judgeScenario(recovery({ interchangeable: ['Pod'] }), up, { controllers: [adopter(true)] })).verdict);
    expect(v.summary).toContain('interchangeable Pod');
  });
  it('refuses an interchangeable that is not a list of kind names', () => {
    expect(() => recovery({ interchangeable: [''] })).toThrow(/interchangeable must be an array of kind names/);
  });
});

/**
 * Red team rt47: `masks` replaces the defaults, so a user adding one path of their own dropped
 * `metadata.generation` with it and got a failure whose diff showed only generations. The failure
 * now says which default they left out and how to keep it.
 */
describe('masks given without the defaults (rt47)', () => {
  it('a failure on a path only a left-out default masks names that default', async () => {
    const v = expectFailure((await judgeScenario(recovery({ masks: ['metadata.labels'] }), scenario, { controllers: [podsCorrect] })).verdict);
    expect(v.explanation).toContain('the masks given replace the defaults, and default masks that were left out match what differs: "metadata.generation", "status.observedGeneration"');
    expect(v.explanation).toContain('["metadata.generation","status.observedGeneration"');
    // with the defaults listed too, the correct controller recovers
    expectQuiet((await judgeScenario(recovery({ masks: ['metadata.generation', 'status.observedGeneration', 'metadata.labels'] }), scenario, { controllers: [podsCorrect] })).verdict);
  });
  it('a real difference with the defaults kept carries no such note', async () => {
    const v = expectFailure((await judgeScenario(recovery(), scenario, { controllers: [podsNoScaleDownBuggy] })).verdict);
    expect(v.explanation).not.toContain('replace the defaults');
  });
});
