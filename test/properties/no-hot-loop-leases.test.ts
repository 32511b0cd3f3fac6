import { describe, expect, it } from 'vitest';
import { defineController, type Scenario } from '../../src/index.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { idempotence } from '../../properties/idempotence.js';
import { convergence } from '../../properties/convergence.js';
import { ElectionScan, MIN_RENEW_GAP_MS } from '../../properties/_internals/election.js';
import { check } from '../../src/check.js';
import { createAll, widget, widgetScenario, WIDGET, type WidgetSpec, type WidgetStatus } from '../../examples/property-targets/widget.js';
import { judgeAll, judgeScenario } from '../helpers/property-laws.js';
import type { TraceEntry } from '../../src/sim/trace.js';
import { build } from '../../properties/_internals/timeline.js';
import { scheduledWork } from '../../properties/_internals/scheduled.js';

// Red team H1b (scratch/rt43): Leases were left out of every property by default (meant for
// leader election's renewals), so a loop on a Lease passed. Only election traffic is left out now.

type Lease = { holderIdentity?: string; leaseDurationSeconds?: number; leaseTransitions?: number; renewTime?: number };

/** A status writer with a per-object lock Lease (`<widget>-lock`); `renew`: how it renews the lock. */
function lockHolder(renew: 'every-reconcile' | 'when-due') {
  return defineController({
    name: 'lock-holder',
    for: WIDGET,
    owns: [],
    resyncPeriodMs: 5_000,
    async reconcile(ctx) {
      const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
      if (!w || w.metadata.deletionTimestamp) return;
      const ref = { namespace: w.metadata.namespace, name: `${w.metadata.name}-lock` };
      const lease = await ctx.client.tryGet<Lease>('Lease', ref);
      const now = ctx.clock.now();
      if (!lease) {
        const owner = { apiVersion: 'example.com/v1', kind: WIDGET, name: w.metadata.name, uid: w.metadata.uid, controller: true };
        await ctx.client.create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { ...ref, ownerReferences: [owner] }, spec: { holderIdentity: 'lock-holder', leaseDurationSeconds: 15, renewTime: now } });
      } else if (renew === 'every-reconcile') {
        // BUG: "renews" its lock on every reconcile, and requeues every 100 ms to do it again
        await ctx.client.update({ ...lease, spec: { ...lease.spec, leaseTransitions: (lease.spec.leaseTransitions ?? 0) + 1 } });
      } else if (now - (lease.spec.renewTime ?? 0) >= 5_000) {
        await ctx.client.update({ ...lease, spec: { ...lease.spec, renewTime: now } });
      }
      if (w.status.size !== w.spec.size || w.status.observedGeneration !== w.metadata.generation) {
        await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation } });
      }
      return { requeueAfter: renew === 'every-reconcile' ? 100 : 5_000 };
    },
  });
}

/** A correct status writer run under leader election (the runtime's elector renews `kube-system/elected-leader`). */
const elected = defineController({
  name: 'elected',
  for: WIDGET,
  leaderElection: true,
  resyncPeriodMs: 5_000,
  async reconcile(ctx) {
    const w = await ctx.client.tryGet<WidgetSpec, WidgetStatus>(WIDGET, ctx.key);
    if (!w || w.metadata.deletionTimestamp) return;
    if (w.status.size === w.spec.size && w.status.observedGeneration === w.metadata.generation) return;
    await ctx.client.updateStatus({ ...w, status: { size: w.spec.size, observedGeneration: w.metadata.generation } });
  },
});

const objects = createAll([widget('a', 2), widget('b', 3)]);
const scenario = (name: string, replicas = 1): Scenario => ({ ...widgetScenario([name], objects), controllers: [{ name, ...(replicas > 1 ? { replicas } : {}) }] });
const properties = () => [noHotLoop(), idempotence(), convergence()];

describe('no-hot-loop on Leases', () => {
  it('a lock Lease rewritten on every reconcile is a hot loop (no-hot-loop and idempotence fail)', async () => {
    const failures = await judgeAll(properties(), scenario('lock-holder'), { controllers: [lockHolder('every-reconcile')] });
    const names = failures.map((f) => f.property);
    expect(names).toContain('no-hot-loop');
    expect(names).toContain('idempotence');
    const loop = failures.find((f) => f.property === 'no-hot-loop')!.verdict;
    expect(loop.summary).toMatch(/to Lease default\/a-lock \(spec\.leaseTransitions\)|to Lease default\/b-lock \(spec\.leaseTransitions\)/);
  });

  it('the check fails it too, under faults', async () => {
    const r = await check(lockHolder('every-reconcile'), { properties: [noHotLoop()], objects: { kind: WIDGET, spec: [{ size: 2 }, { size: 3 }] }, runs: 3, seed: 3, shrink: false });
    expect(r.ok).toBe(false);
  });

  it("a lock Lease renewed only when due (every 5 s, by the controller's own timer or its resync) passes", async () => {
    const failures = await judgeAll(properties(), scenario('lock-holder'), { controllers: [lockHolder('when-due')] });
    expect(failures).toEqual([]);
    const r = await check(lockHolder('when-due'), { properties: properties(), objects: { kind: WIDGET, spec: [{ size: 2 }, { size: 3 }] }, runs: 10, seed: 3 });
    expect(r.ok).toBe(true);
  });

  it('ignoreKinds: ["Lease"] given explicitly still leaves every Lease write out', async () => {
    const { verdict } = await judgeScenario(noHotLoop({ ignoreKinds: ['Lease'] }), scenario('lock-holder'), { controllers: [lockHolder('every-reconcile')] });
    expect(verdict.ok).toBe(true);
  });

  it('leader election renewing its Lease in the quiet tail is no hot loop and no lost idempotence, also with ignoreKinds: []', async () => {
    for (const replicas of [1, 2]) {
      const { run } = await judgeScenario(noHotLoop(), scenario('elected', replicas), { controllers: [elected] });
      // the elector did renew in the tail: without the rule these writes would count
      const renewals = run.writes.filter((w) => w.kind === 'Lease' && w.key === 'kube-system/elected-leader' && w.t >= run.timing.tailStart && w.error === undefined);
      expect(renewals.length).toBeGreaterThan(0);
      for (const props of [properties(), [noHotLoop({ ignoreKinds: [] }), idempotence({ ignoreKinds: [] }), convergence({ ignoreKinds: [] })]]) {
        expect(await judgeAll(props, scenario('elected', replicas), { controllers: [elected] })).toEqual([]);
      }
    }
    const r = await check(elected, { properties: properties(), objects: { kind: WIDGET, spec: [{ size: 2 }, { size: 3 }] }, replicas: 2, runs: 10, seed: 3 });
    expect(r.ok).toBe(true);
  });
});

describe('ElectionScan', () => {
  const write = (t: number, actor: string, key: string, changed: string[], extra: Record<string, unknown> = {}): TraceEntry => ({ t, type: 'store:write', actor, verb: 'update', kind: 'Lease', key, changed, noop: false, ...extra });
  const found = (trace: TraceEntry[]) => {
    const scan = new ElectionScan().scan(trace);
    return trace.map((_, i) => scan.has(i));
  };

  it("the runtime's election Lease, created then renewed every 10 s, and a lock Lease renewed every 2 s, are renewal traffic", () => {
    const a = 'controller:web/0';
    expect(found([write(0, a, 'kube-system/web-leader', ['.'], { verb: 'create' }), write(10_000, a, 'kube-system/web-leader', ['spec.renewTime']), write(20_000, a, 'kube-system/web-leader', ['spec.holderIdentity', 'spec.renewTime'])])).toEqual([true, true, true]);
    expect(found([0, 2000, 4000].map((t) => write(t, 'controller:op/0', 'default/op-lock', ['spec.renewTime'])))).toEqual([true, true, true]);
  });

  it('ten renewals a second count (all but the first), and so does a Lease write changing anything but an elector field, or deleting it', () => {
    const a = 'controller:op/0';
    expect(found([0, 100, 200, 300].map((t) => write(t, a, 'default/op-lock', ['spec.leaseTransitions'])))).toEqual([true, false, false, false]);
    expect(found([0, 100, 200].map((t) => write(t, a, 'kube-system/op-leader', ['spec.renewTime'])))).toEqual([true, false, false]);
    expect(found([write(0, a, 'default/op-lock', ['metadata.labels.x'])])).toEqual([false]);
    expect(found([write(0, a, 'default/op-lock', ['metadata.annotations.slot', 'spec.renewTime'])])).toEqual([false]);
    expect(found([write(0, a, 'default/op-lock', [], { verb: 'delete', removed: true })])).toEqual([false]);
    expect(found([write(0, 'user', 'default/op-lock', ['spec.renewTime'])])).toEqual([false]);
  });

  it('the pace is per replica and per Lease, and a restart resets it', () => {
    const trace = [write(0, 'controller:web/0', 'kube-system/web-leader', ['spec.renewTime']), write(10, 'controller:web/1', 'kube-system/web-leader', ['spec.renewTime']), write(20, 'controller:web/0', 'default/other', ['spec.renewTime'])];
    expect(found(trace)).toEqual([true, true, true]);
    const a = 'controller:web/0';
    const restarted: TraceEntry[] = [write(0, a, 'kube-system/web-leader', ['spec.renewTime']), { t: MIN_RENEW_GAP_MS / 2, type: 'controller:start', controller: 'web', replica: 0 }, write(MIN_RENEW_GAP_MS / 2, a, 'kube-system/web-leader', ['spec.renewTime'])];
    expect(found(restarted)).toEqual([true, false, true]);
  });
});

describe('scheduled work: a requeueAfter timer still queued behind a later reconcile (hand-made traces)', () => {
  const a = 'controller:c/0';
  let n = 0;
  /** A reconcile of default/a from `start` to `start`, ending as `end` says, writing `write` (a Lease renewal) if given. */
  const reconcile = (start: number, end: Record<string, unknown>, write?: string): TraceEntry[] => {
    n++;
    const out: TraceEntry[] = [{ t: start, type: 'reconcile:start', controller: 'c', replica: 0, key: 'default/a', n }];
    if (write) out.push({ t: start, type: 'store:write', actor: a, verb: 'update', kind: 'Lease', key: write, changed: ['spec.renewTime'], noop: false, rv: 100 + n });
    out.push({ t: start, type: 'reconcile:end', controller: 'c', replica: 0, key: 'default/a', n, ...end });
    return out;
  };
  const timer = { result: 'requeueAfter', requeueAfter: 5000 };
  const scheduledAt = (trace: TraceEntry[], from: number) => {
    const tl = build(trace);
    const s = scheduledWork(tl, from);
    return tl.reconciles.filter((r) => r.start >= from).map((r) => s.has(r));
  };

  it('the timer asked by an earlier reconcile fires after another reconcile (a resync) came between: timer work', () => {
    // 10.001 asks for 15.001; the resync at 15.000 asks for 20.000, which the queue drops (the earlier timer wins)
    const trace = [...reconcile(10_001, timer, 'default/a-lock'), ...reconcile(15_000, timer), ...reconcile(15_001, timer, 'default/a-lock')];
    expect(scheduledAt(trace, 15_000)).toEqual([true, true]);
  });

  it("a retry's backoff took the timer's place: a reconcile at the old timer's time is no timer work", () => {
    const trace = [...reconcile(10_001, timer), ...reconcile(12_000, { result: 'error', error: 'boom', retryInMs: 5 }), ...reconcile(12_005, { result: 'done' }), ...reconcile(15_001, { result: 'done' }, 'default/a-lock')];
    expect(scheduledAt(trace, 12_000)).toEqual([false, false, false]);
  });
});
