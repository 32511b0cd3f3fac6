import { describe, expect, it } from 'vitest';
import { crashAfterWritePlans, derive, staleReadPlans, unnotifiedStatePlans, unobservedStatePlans } from '../../../src/harness/systematic-plans.js';
import { seedMovingFirst } from '../../../src/harness/systematic-strategies/reads.js';
import { indexTrace } from '../../../src/harness/systematic-strategies/trace-index.js';
import { permuteList } from '../../../src/runtime/list-permutation.js';
import type { TraceEntry } from '../../../src/sim/trace.js';
import { fakeRun } from './helpers.js';

const w = (t: number, actor: string, extra: Record<string, unknown> = {}): TraceEntry => ({ t, type: 'store:write', actor, verb: 'updateStatus', kind: 'RS', key: 'default/a', changed: ['status.replicas'], noop: false, ...extra });
const read = (t: number, actor: string, extra: Record<string, unknown> = {}): TraceEntry => ({ t, type: 'store:read', actor, verb: 'get', kind: 'RS', key: 'default/a', cached: true, ...extra });
const start = (t: number, controller: string, replica = 0, key = 'default/a'): TraceEntry => ({ t, type: 'reconcile:start', controller, replica, key });
const end = (t: number, controller: string, replica = 0, key = 'default/a'): TraceEntry => ({ t, type: 'reconcile:end', controller, replica, key, result: 'done' });
const request = (t: number, actor: string, seq: number, method = 'POST'): TraceEntry => ({ t, type: 'downstream:request', seq, start: t, actor, method, url: 'https://api.example/things', status: 201, mutating: method !== 'GET' });
const settle: TraceEntry = { t: 100, type: 'run:phase', phase: 'settle' };

describe('the trace index', () => {
  it('groups steps by reconcile, counts writes per controller and requests by seq, and skips leader-election Leases', () => {
    const ix = indexTrace(
      fakeRun({
        trace: [
          { t: 0, type: 'store:write', actor: 'controller:a/0', verb: 'create', kind: 'Lease', key: 'kube-system/a-leader', changed: ['.'], noop: false, rv: 1 },
          start(1, 'a'),
          w(1, 'controller:a/0', { rv: 2 }),
          request(3, 'controller:a/0', 0),
          w(3, 'controller:a/0', { noop: true }),
          w(3, 'controller:a/0', { rv: 3 }),
          end(3, 'a'),
          w(4, 'controller:b/0', { rv: 4 }),
          settle,
          w(200, 'controller:a/0', { rv: 5 }),
        ],
      }),
    );
    expect(ix.writes.map((x) => [x.controller, x.seq, x.perController])).toEqual([
      ['a', 0, 0],
      ['a', 1, 1],
      ['a', 2, 2],
      ['b', 3, 0],
    ]);
    expect(ix.reconciles).toHaveLength(1);
    expect(ix.reconciles[0]!.steps.map((s) => s.type)).toEqual(['write', 'request', 'write']);
    expect(ix.requests.map((r) => [r.seq, r.perController])).toEqual([[0, 0]]);
    expect(ix.versions.get('RS default/a')!.map((v) => v.entry['rv'])).toEqual([2, 3, 4]);
  });
});

describe('crash strategies: only points between two steps of a reconcile', () => {
  const trace = [start(1, 'a'), w(1, 'controller:a/0', { rv: 1 }), request(2, 'controller:a/0', 0), w(2, 'controller:a/0', { rv: 2 }), end(2, 'a'), start(5, 'a'), w(5, 'controller:a/0', { rv: 3 }), end(5, 'a'), settle];
  const run = fakeRun({ trace });

  it('crash-after-write: after a write that another step follows; the last write of a reconcile is pruned', () => {
    const d = derive('crash-after-write', run);
    expect(d.plans.map((p) => p.events)).toEqual([[{ kind: 'crash-restart', nth: 0, target: 'a', params: { point: 'after-write' } }]]);
    expect(d.plans[0]!.target).toMatch(/^after write #0 of a: updateStatus RS default\/a at t=1 ms, before POST https:\/\/api.example\/things/);
    expect(d.pruned).toEqual({ 'after the last step of a reconcile: nothing half-done': 2 });
    expect(crashAfterWritePlans(run)).toEqual(d.plans);
  });

  it('crash-before-write and crash-around-request reach the other points, with the point each shares', () => {
    const before = derive('crash-before-write', run);
    expect(before.plans.map((p) => [p.events[0]!.nth, p.events[0]!.params])).toEqual([[1, { point: 'before-write' }]]);
    const around = derive('crash-around-request', run);
    expect(around.plans.map((p) => p.events[0]!.params!['point'])).toEqual(['before-fetch', 'after-fetch']);
    // before the request = after the first write; after the request = before the second write
    expect(around.plans[0]!.point).toBe(crashAfterWritePlans(run)[0]!.point);
    expect(around.plans[1]!.point).toBe(before.plans[0]!.point);
  });
});

describe('stale-read-before-write', () => {
  const deliver = (t: number, seq: number, key: string, rv: number): TraceEntry => ({ t, type: 'watch:event', controller: 'a', replica: 0, kind: 'RS', key, event: 'MODIFIED', rv, decision: 'deliver', seq });
  it('holds back the delivery each cached read rests on until just after its reconcile\'s first change', () => {
    const run = fakeRun({
      trace: [
        w(0, 'user', { rv: 1 }),
        deliver(0, 0, 'default/a', 1),
        start(1, 'a'),
        read(1, 'controller:a/0'), // rests on delivery 0: held back, the cache shows nothing
        w(1, 'controller:a/0', { rv: 2 }),
        end(1, 'a'),
        deliver(1, 1, 'default/a', 2),
        w(1, 'user', { key: 'default/b', rv: 3 }),
        deliver(1, 2, 'default/b', 3),
        start(2, 'a'),
        read(2, 'controller:a/0'), // rests on delivery 1
        read(2, 'controller:a/0', { verb: 'list', key: undefined, count: 2 }), // rests on delivery 2 (the kind's last)
        read(2, 'controller:a/0'), // delivery 1 again: pruned
        read(2, 'controller:a/0', { cached: false }), // live: not counted
        w(2, 'controller:a/0', { rv: 4 }),
        read(2, 'controller:a/0'), // nothing after it
        end(2, 'a'),
        settle,
      ],
    });
    const d = derive('stale-read-before-write', run);
    expect(d.plans.map((p) => p.events[0])).toEqual([
      { kind: 'stale-snapshot', nth: 0, target: 'a', params: { lagMs: 2, forMs: 1 } },
      { kind: 'stale-snapshot', nth: 1, target: 'a', params: { lagMs: 2, forMs: 1 } },
      { kind: 'stale-snapshot', nth: 2, target: 'a', params: { lagMs: 2, forMs: 1 } },
    ]);
    expect(d.pruned).toEqual({ 'no change follows it in its reconcile': 1, 'it rests on a delivery an earlier plan holds back': 1 });
    expect(staleReadPlans(run)).toEqual(d.plans);
  });
});

describe('permuted-list', () => {
  it('a seed that moves the first item, for every list of two or more before a change', () => {
    for (const n of [2, 3, 5]) expect(permuteList([...Array(n).keys()], seedMovingFirst(n))[0]).not.toBe(0);
    const run = fakeRun({
      trace: [start(1, 'a'), read(1, 'controller:a/0', { verb: 'list', count: 1 }), read(1, 'controller:a/0', { verb: 'list', count: 3, cached: false }), w(1, 'controller:a/0', { rv: 1 }), end(1, 'a'), settle],
    });
    const d = derive('permuted-list', run);
    expect(d.plans.map((p) => p.events)).toEqual([[{ kind: 'list-order', nth: 1, target: 'a', params: { order: seedMovingFirst(3) } }]]);
    expect(d.pruned).toEqual({ 'fewer than two items': 1 });
  });
});

describe('unobserved, unnotified and coalesced states', () => {
  const trace: TraceEntry[] = [
    w(1, 'controller:a/0', { rv: 5, digest: 'x1' }),
    { t: 1, type: 'watch:event', controller: 'a', replica: 0, kind: 'RS', key: 'default/a', event: 'MODIFIED', rv: 5, decision: 'deliver', seq: 7 },
    { t: 1, type: 'informer:notify', controller: 'a', replica: 0, key: 'default/a', event: 'MODIFIED', decision: 'deliver', seq: 3 },
    { t: 1, type: 'watch:event', controller: 'b', replica: 0, kind: 'RS', key: 'default/a', event: 'MODIFIED', rv: 5, decision: 'deliver', seq: 8 },
    { t: 1, type: 'reconcile:start' },
    { t: 1, type: 'informer:notify', controller: 'b', replica: 0, key: 'default/a', event: 'MODIFIED', decision: 'deliver', seq: 4 },
    w(2, 'controller:a/0', { rv: 6, digest: 'x2' }),
    { t: 3, type: 'watch:event', controller: 'a', replica: 0, kind: 'RS', key: 'default/a', event: 'MODIFIED', rv: 6, decision: 'deliver', seq: 9 },
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

  it('coalesces each stream from the state until just past the event that cancels it', () => {
    expect(derive('coalesced-state', fakeRun({ trace })).plans.map((p) => p.events)).toEqual([
      [
        { kind: 'coalescing', nth: 7, params: { ms: 3 } },
        { kind: 'coalescing', nth: 8, params: { ms: 1001 } },
      ],
    ]);
  });

  it('counts a removal or a return to an earlier content as cancelling, and plans for the deletion itself', () => {
    const t2: TraceEntry[] = [
      w(1, 'user', { rv: 1, changed: ['.'], digest: 'a' }),
      w(2, 'user', { rv: 2, changed: ['spec.x'], digest: 'b' }),
      w(3, 'user', { rv: 3, changed: ['spec.y'], digest: 'a' }),
      w(4, 'user', { rv: 4, changed: ['metadata.labels'], removed: true }),
      { t: 2, type: 'watch:event', controller: 'a', replica: 0, kind: 'RS', key: 'default/a', rv: 2, decision: 'deliver', seq: 1 },
      { t: 3, type: 'watch:event', controller: 'a', replica: 0, kind: 'RS', key: 'default/a', rv: 3, decision: 'deliver', seq: 2 },
      { t: 4, type: 'watch:event', controller: 'a', replica: 0, kind: 'RS', key: 'default/a', event: 'DELETED', rv: 4, decision: 'deliver', seq: 3 },
      settle,
    ];
    const plans = unobservedStatePlans(fakeRun({ trace: t2 }));
    expect(plans.map((p) => p.events[0]!.nth)).toEqual([1, 2, 3]);
    expect(plans[2]!.target).toMatch(/^the deletion of RS default\/a at t=4 ms/);
  });
});

describe('request-failure, conflict-at-write, error-at-write, recreation', () => {
  const trace: TraceEntry[] = [
    start(1, 'a'),
    request(1, 'controller:a/0', 0, 'GET'),
    request(2, 'controller:a/0', 1, 'POST'),
    w(2, 'controller:a/0', { rv: 1, verb: 'create' }),
    read(2, 'controller:a/0', { cached: false }),
    w(2, 'controller:a/0', { rv: 2, verb: 'update' }),
    w(2, 'controller:a/0', { rv: 3, verb: 'patch' }),
    end(2, 'a'),
    { t: 3, type: 'controller:crash', controller: 'a', replica: 0 },
    settle,
  ];
  const run = fakeRun({ trace, controllers: ['a'], primaryKinds: ['RS'] });

  it('every failure mode at every mutating request, none at reads', () => {
    const d = derive('request-failure', run);
    expect(d.plans.map((p) => `${p.events[0]!.nth} ${String(p.events[0]!.params!['fail'])}${p.events[0]!.params!['status'] ? ` ${String(p.events[0]!.params!['status'])}` : ''}`)).toEqual(['1 status 500', '1 status 429', '1 reset', '1 hang', '1 applied-but-lost']);
    expect(d.pruned).toEqual({ 'a read-only request': 5 });
  });

  it('a conflict only before conditional writes; errors counted over writes and live reads', () => {
    expect(derive('conflict-at-write', run).plans.map((p) => p.events[0]!.nth)).toEqual([1]);
    expect(derive('error-at-write', run).plans.map((p) => [p.events[0]!.nth, p.events[0]!.params!['status']])).toEqual([
      [0, 500],
      [0, 504],
      [2, 500],
      [2, 504],
      [3, 500],
    ]);
  });

  it('recreation right after each changing reconcile of a primary object, and while its controller is down', () => {
    expect(derive('recreation', run).plans.map((p) => p.events[0])).toEqual([
      { kind: 'recreation', at: 3, target: 'default/a', params: { pick: 0, gapMs: 0 } },
      { kind: 'recreation', at: 4, target: 'default/a', params: { pick: 0, gapMs: 0 } },
    ]);
  });
});

describe('event strategies on a long run', () => {
  it('derive in linear time: each state finds its own deliveries, each reconcile the freshest event before it', () => {
    // a controller that writes on every reconcile, each write cancelling the last: 20,000 states, 20,000 deliveries
    const n = 20_000;
    const trace: TraceEntry[] = [];
    for (let i = 0; i < n; i++) {
      const t = i * 10;
      trace.push(start(t, 'a'), w(t, 'controller:a/0', { rv: i + 1 }), end(t, 'a'));
      trace.push({ t: t + 1, type: 'watch:event', controller: 'a', replica: 0, kind: 'RS', key: 'default/a', event: 'MODIFIED', rv: i + 1, decision: 'deliver', seq: i });
    }
    trace.push({ t: n * 10 + 5, type: 'run:phase', phase: 'settle' });
    const run = fakeRun({ trace });
    const t0 = performance.now();
    const unobserved = derive('unobserved-state', run);
    const coalesced = derive('coalesced-state', run);
    const delayed = derive('delayed-event', run);
    const duplicated = derive('duplicated-event', run);
    // a scan of every delivery per state or per reconcile (400M steps each) took tens of seconds
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(unobserved.plans.map((p) => p.events)).toEqual(Array.from({ length: n - 1 }, (_, i) => [{ kind: 'watch-event-loss', nth: i }]));
    expect(coalesced.plans.map((p) => p.events[0]!.nth)).toEqual(Array.from({ length: n - 1 }, (_, i) => i));
    expect(delayed.plans.map((p) => p.events)).toEqual(Array.from({ length: n - 1 }, (_, i) => [{ kind: 'delay', nth: i, params: { ms: 3000 } }]));
    expect(duplicated.plans.map((p) => p.events[0]!.nth)).toEqual(Array.from({ length: n - 1 }, (_, i) => i));
  });

  it('held-change and stale-across-change derive in linear time too', () => {
    // another controller's watch of the hot object (b never writes it): every change is foreign to b
    const n = 10_000;
    const trace: TraceEntry[] = [];
    for (let i = 0; i < n; i++) {
      const t = i * 10;
      trace.push(start(t, 'a'), w(t, 'controller:a/0', { rv: i + 1 }), end(t, 'a'));
      trace.push({ t: t + 1, type: 'watch:event', controller: 'a', replica: 0, kind: 'RS', key: 'default/a', event: 'MODIFIED', rv: i + 1, decision: 'deliver', seq: 2 * i });
      trace.push({ t: t + 1, type: 'watch:event', controller: 'b', replica: 0, kind: 'RS', key: 'default/a', event: 'MODIFIED', rv: i + 1, decision: 'deliver', seq: 2 * i + 1 });
      trace.push(start(t + 2, 'b'), w(t + 2, 'controller:b/0', { kind: 'Pod', key: `default/p${i}`, rv: n + i + 1 }), end(t + 2, 'b'));
    }
    trace.push({ t: n * 10 + 5, type: 'run:phase', phase: 'settle' });
    const run = fakeRun({ trace });
    const t0 = performance.now();
    const held = derive('held-change', run);
    const across = derive('stale-across-change', run);
    // a scan of the object's deliveries per reconcile or per change (100M steps) takes tens of seconds
    expect(performance.now() - t0).toBeLessThan(5000);
    // a's own changes: nothing; b lags across each of a's changes after one it acted on (each delivery once)
    expect(held.plans).toEqual([]);
    expect(across.plans.map((p) => p.events[0]!.nth)).toEqual(Array.from({ length: n - 1 }, (_, i) => 2 * i + 1));
  });
});

describe('stale-program-list (red team round 10 M-1)', () => {
  const gc = 'controller:gc/0';
  const plist = (t: number, reason: 'list' | 'relist', rv: number, notOlderThan = 0): TraceEntry => ({ t, type: 'program:list', controller: 'gc', replica: 0, actor: gc, kind: 'Echo', reason, rv, notOlderThan });
  const create = (t: number, kind: string, key: string, rv: number): TraceEntry => ({ t, type: 'store:write', actor: 'user', verb: 'create', kind, key, changed: ['.'], noop: false, rv });
  const del = (t: number, key: string, rv: number): TraceEntry => ({ t, type: 'store:write', actor: gc, verb: 'delete', kind: 'ConfigMap', key, changed: ['.'], noop: false, rv });
  const trace: TraceEntry[] = [
    create(0, 'Echo', 'default/a', 1),
    plist(1000, 'list', 1), // its first list: the fault does not lag it
    del(1010, 'default/orphan-1', 2),
    { t: 1200, type: 'informer:relist', controller: 'other', replica: 0, kind: 'Pod', count: 0, rv: 2 }, // counted (nth 0)
    create(1500, 'Echo', 'default/b', 3),
    create(1600, 'ConfigMap', 'default/b', 4),
    plist(2000, 'relist', 4), // nth 1: misses Echo b (2 versions back), then deletes
    del(2010, 'default/orphan-2', 5),
    plist(3000, 'relist', 5), // nth 2: Echo b again
    del(3010, 'default/orphan-3', 6),
    plist(4000, 'relist', 6), // nth 3: no write follows before its next list
    plist(5000, 'relist', 6), // nth 4
    create(5500, 'Echo', 'default/c', 7),
    plist(6000, 'relist', 7, 7), // nth 5: the client asked for rv 7, which has Echo c
    del(6010, 'default/orphan-4', 8),
    settle,
  ];

  it('lags each relist before a write of the program behind the newest creation of its kind, counted as stale-snapshot counts lists, and prunes the rest', () => {
    const d = derive('stale-program-list', fakeRun({ trace: trace.map((e) => (e === settle ? { ...settle, t: 9000 } : e)) }));
    expect(d.plans.map((p) => p.events)).toEqual([[{ kind: 'stale-snapshot', nth: 1, target: 'gc', params: { versionsBack: 2, list: true, catchUpMs: 0 } }]]);
    expect(d.plans[0]!.target).toBe('the list of Echo by controller:gc/0 at t=2000 ms (resourceVersion=0), from a replica lagging 2 versions behind (before the newest Echo), before its delete of ConfigMap default/orphan-2 at t=2010 ms');
    expect(d.pruned).toEqual({
      "the process's first list of the kind (the fault lags only relists and lists after a restart)": 1,
      'an earlier plan lags a list behind the same creation': 1,
      'no write of the program follows it before its next list of the kind': 2,
      'the client asked for data not older than the newest creation': 1,
    });
  });

  it("counts a program's relists among the lists a native informer's restart list comes after", () => {
    const run = fakeRun({
      trace: [create(0, 'Pod', 'default/p', 1), plist(10, 'list', 1), plist(20, 'relist', 1), { t: 30, type: 'controller:crash', controller: 'rs', replica: 0 }, { t: 40, type: 'informer:list', controller: 'rs', replica: 0, kind: 'Pod', count: 1, rv: 1 }, { ...settle, t: 9000 }],
    });
    expect(derive('stale-list-after-restart', run).plans.map((p) => p.events[0]!.nth)).toEqual([1]);
  });
});
