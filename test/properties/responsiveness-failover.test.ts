import { describe, expect, it } from 'vitest';
import { responsiveness } from '../../properties/responsiveness.js';
import { defineController } from '../../src/runtime/define-controller.js';
import { Leadership } from '../../properties/_internals/leadership.js';
import type { TraceEntry } from '../../src/sim/trace.js';
import { WIDGET, widget, widgetScenario } from '../../examples/property-targets/widget.js';
import { expectFailure, expectQuiet, judgeScenario } from '../helpers/property-laws.js';

// A widget controller run with two replicas (leader election); `blockMs` > 0 is its slow twin: each
// reconcile blocks its only worker that long before it writes.
const widgets = (blockMs: number) =>
  defineController({
    name: 'widget',
    for: WIDGET,
    resyncPeriodMs: 0,
    async reconcile(ctx) {
      const w = await ctx.client.tryGet(WIDGET, ctx.key);
      if (!w || w.status['size'] === w.spec['size']) return;
      if (blockMs > 0) await ctx.clock.sleep(blockMs);
      await ctx.client.updateStatus({ ...w, status: { size: w.spec['size'] } });
    },
  });

// The corpus' shrunk failover (issue 12; first seen as 7 runs in 19,800 with crash-restart,
// second-replica and drift): the leader dies right after its first write and comes back only after
// 20 s; the standby takes the Lease when it expires (t=16 s), with b and c queued since 3 s and 8 s;
// the old leader restarts as a standby at ~20 s, lists everything and never leads again.
const failover = widgetScenario(
  ['widget'],
  [
    { at: 0, type: 'create', object: widget('a', 1) },
    { at: 3000, type: 'create', object: widget('b', 1) },
    { at: 8000, type: 'create', object: widget('c', 1) },
  ],
  {
    controllers: [{ name: 'widget', replicas: 2 }],
    faults: { events: [{ kind: 'crash-restart', nth: 0, params: { point: 'after-write' } }], background: [] },
    options: { faultWindowMs: 30_000, settleMs: 30_000, restartDelayMs: 20_000 },
  },
);

describe('responsiveness across a leader failover', () => {
  it('passes a controller that reconciles at once whenever it holds the Lease (no leader while the Lease runs out, a restarted old leader standing by)', async () => {
    const { verdict, run } = await judgeScenario(responsiveness(), failover, { controllers: [widgets(0)] });
    // the scenario is the failover it claims to be
    const leaders = run.trace.filter((e) => e.type === 'controller:leader').map((e) => [e.t, e['identity'], e['leader']]);
    expect(leaders).toEqual([[0, 'widget-0', true], [16_000, 'widget-1', true]]);
    expect(run.trace.some((e) => e.type === 'controller:start' && e['replica'] === 0 && e.t >= 20_000)).toBe(true);
    expectQuiet(verdict);
  });

  it('judges the changes a standby held from the moment it took the Lease: a slow new leader fails', async () => {
    const v = expectFailure((await judgeScenario(responsiveness(), failover, { controllers: [widgets(3000)] })).verdict);
    expect(v.summary).toMatch(/^slow to respond: Widget default\/c waited 3\.0 s for its reconcile after widget\/1 took the Lease/);
    expect(v.evidence).toMatchObject({ replica: 1, key: 'default/c', leaderFrom: 16_000, latencyMs: 3000, startedAt: 19_000 });
    expect(v.explanation).toMatch(/3\.0 s of it after widget\/1 took the Lease at t=16\.0 s/);
    expect(v.explanation).toMatch(/the reconcile of default\/b by widget\/1 .* held a worker for 3\.0 s/);
  });

  it('reads who could take keys from the trace: election, lost Lease, crash, restart as standby, retired and split-brain replicas', () => {
    const e = (t: number, type: string, rest: Record<string, unknown>) => ({ t, type, ...rest }) as TraceEntry;
    const trace = [
      e(0, 'controller:start', { controller: 'w', replica: 0 }), // no election yet: active
      e(5, 'controller:leader', { identity: 'w-0', leader: true }), // a second replica arrives, the first elects
      e(5, 'controller:start', { controller: 'w', replica: 1 }), // stands by
      e(5, 'fault:inject', { kind: 'second-replica', controller: 'w', replica: 1, leaderElection: true, controllerUsesElection: true }),
      e(7, 'controller:start', { controller: 'w', replica: 2 }),
      e(7, 'fault:inject', { kind: 'second-replica', controller: 'w', replica: 2, leaderElection: false, controllerUsesElection: true }), // split brain
      e(10, 'controller:crash', { controller: 'w', replica: 0 }),
      e(20, 'controller:start', { controller: 'w', replica: 0 }), // restarted: stands by, no trace of it
      e(26, 'controller:leader', { identity: 'w-1', leader: true }),
      e(30, 'controller:stop', { controller: 'w', replica: 2 }),
      e(40, 'controller:leader', { identity: 'w-1', leader: false }),
    ];
    const l = new Leadership(trace, 50);
    expect([0, 9, 10, 25].map((t) => l.activeAt('w', 0, t))).toEqual([true, true, false, false]);
    expect([5, 25, 26, 39, 40].map((t) => l.activeAt('w', 1, t))).toEqual([false, false, true, true, false]);
    expect([7, 29, 30].map((t) => l.activeAt('w', 2, t))).toEqual([true, true, false]);
    expect(l.activeWithin('w', 1, 20, 45)).toEqual({ ms: 14, first: 26 });
    expect(l.activeWithin('w', 0, 12, 50)).toEqual({ ms: 0, first: undefined });
  });
});
