import { describe, expect, it } from 'vitest';
import { crashAfterWritePlans, staleReadPlans, unnotifiedStatePlans, unobservedStatePlans } from '../../../src/harness/systematic-plans.js';
import type { TraceEntry } from '../../../src/sim/trace.js';
import { fakeRun } from './helpers.js';

const w = (t: number, actor: string, extra: Record<string, unknown> = {}): TraceEntry => ({ t, type: 'store:write', actor, verb: 'updateStatus', kind: 'RS', key: 'default/a', changed: ['status.replicas'], noop: false, ...extra });
const read = (t: number, actor: string, cached = true): TraceEntry => ({ t, type: 'store:read', actor, verb: 'get', kind: 'RS', key: 'default/a', cached });
const settle: TraceEntry = { t: 100, type: 'run:phase', phase: 'settle' };

describe('crashAfterWritePlans', () => {
  it('plans a crash after every controller write of the fault window, counted per controller', () => {
    const run = fakeRun({ trace: [w(1, 'user'), w(2, 'controller:a/0'), w(3, 'controller:b/0'), w(4, 'controller:a/1'), w(5, 'controller:a/0', { fault: 'api-error' }), settle, w(200, 'controller:a/0')] });
    expect(crashAfterWritePlans(run).map((p) => p.events)).toEqual([
      [{ kind: 'crash-restart', nth: 0, target: 'a', params: { point: 'after-write' } }],
      [{ kind: 'crash-restart', nth: 0, target: 'b', params: { point: 'after-write' } }],
      [{ kind: 'crash-restart', nth: 1, target: 'a', params: { point: 'after-write' } }],
    ]);
    expect(crashAfterWritePlans(run)[2]!.target).toMatch(/after write #1 of a: updateStatus RS default\/a at t=4 ms/);
  });
});

describe('staleReadPlans', () => {
  const deliver = (t: number, controller: string, seq: number, key = 'default/a'): TraceEntry => ({ t, type: 'watch:event', controller, replica: 0, kind: 'RS', key, event: 'MODIFIED', rv: seq + 10, decision: 'deliver', seq });
  it('holds back the delivery each write\'s cached read rests on until just after the write, once per delivery', () => {
    const run = fakeRun({
      trace: [
        deliver(1, 'a', 0),
        deliver(1, 'b', 1),
        deliver(2, 'a', 2, 'default/other'),
        read(3, 'controller:a/0'),
        read(3, 'controller:b/0'),
        w(4, 'controller:a/0'),
        w(5, 'controller:a/0'), // the same read: no second plan
        deliver(6, 'a', 3),
        read(7, 'controller:a/0', false), // live reads do not count
        read(7, 'controller:a/0'),
        w(9, 'controller:b/0'),
        w(10, 'controller:a/0'),
        settle,
        read(101, 'controller:a/0'),
        w(102, 'controller:a/0'),
      ],
    });
    expect(staleReadPlans(run).map((p) => p.events[0])).toEqual([
      // a's read of default/a rests on delivery 0 (at t=1): held until t=5, after the write at 4
      { kind: 'stale-snapshot', nth: 0, params: { lagMs: 4, forMs: 1 } },
      { kind: 'stale-snapshot', nth: 1, params: { lagMs: 9, forMs: 1 } },
      { kind: 'stale-snapshot', nth: 3, params: { lagMs: 5, forMs: 1 } },
    ]);
  });
});

describe('unobserved and unnotified state plans', () => {
  const trace: TraceEntry[] = [
    w(1, 'controller:a/0', { rv: 5, digest: 'x1' }),
    { t: 1, type: 'watch:event', controller: 'a', replica: 0, key: 'default/a', event: 'MODIFIED', rv: 5, decision: 'deliver', seq: 7 },
    { t: 1, type: 'informer:notify', controller: 'a', replica: 0, key: 'default/a', event: 'MODIFIED', decision: 'deliver', seq: 3 },
    { t: 1, type: 'watch:event', controller: 'b', replica: 0, key: 'default/a', event: 'MODIFIED', rv: 5, decision: 'deliver', seq: 8 },
    { t: 1, type: 'reconcile:start' },
    { t: 1, type: 'informer:notify', controller: 'b', replica: 0, key: 'default/a', event: 'MODIFIED', decision: 'deliver', seq: 4 },
    w(2, 'controller:a/0', { rv: 6, digest: 'x2' }),
    w(3, 'controller:a/0', { rv: 7, key: 'default/other', changed: ['spec.x'] }),
    settle,
  ];

  it('drops every watch delivery of a state a later write to the same fields cancels', () => {
    const plans = unobservedStatePlans(fakeRun({ trace }));
    expect(plans.map((p) => p.events)).toEqual([[{ kind: 'watch-event-loss', nth: 7 }, { kind: 'watch-event-loss', nth: 8 }]]);
    expect(plans[0]!.target).toMatch(/state of RS default\/a .* rv 5\) at t=1 ms, cancelled at t=2 ms/);
  });

  it('drops the notifications that directly follow those deliveries', () => {
    expect(unnotifiedStatePlans(fakeRun({ trace })).map((p) => p.events)).toEqual([[{ kind: 'event-loss', nth: 3 }]]);
  });

  it('counts a removal or a return to an earlier content as cancelling', () => {
    const t2: TraceEntry[] = [
      w(1, 'user', { rv: 1, changed: ['.'], digest: 'a' }),
      w(2, 'user', { rv: 2, changed: ['spec.x'], digest: 'b' }),
      w(3, 'user', { rv: 3, changed: ['spec.y'], digest: 'a' }),
      w(4, 'user', { rv: 4, changed: ['metadata.labels'], removed: true }),
      { t: 2, type: 'watch:event', controller: 'a', replica: 0, rv: 2, decision: 'deliver', seq: 1 },
      { t: 3, type: 'watch:event', controller: 'a', replica: 0, rv: 3, decision: 'deliver', seq: 2 },
      settle,
    ];
    expect(unobservedStatePlans(fakeRun({ trace: t2 })).map((p) => p.events[0]!.nth)).toEqual([1, 2]);
  });
});
