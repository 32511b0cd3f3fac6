import { describe, expect, it } from 'vitest';
import { explanation, fmtActor, fmtDuration, fmtFault, fmtList, fmtObject, fmtPaths, fmtRequest, fmtTime, fmtUserAction, fmtWrite, letFacts } from '../../src/report/explain.js';
import type { TraceEntry } from '../../src/sim/trace.js';

describe('fmtTime / fmtDuration', () => {
  it('formats virtual instants and spans as people read them', () => {
    expect(fmtTime(1200)).toBe('t=1.2 s');
    expect(fmtTime(0)).toBe('t=0.0 s');
    expect(fmtTime(1234)).toBe('t=1.234 s');
    expect(fmtTime(20_000)).toBe('t=20.0 s');
    expect(fmtDuration(250)).toBe('250 ms');
    expect(fmtDuration(30_000)).toBe('30.0 s');
  });
});

describe('objects, actors, paths, lists', () => {
  it('names things the way a controller author does', () => {
    expect(fmtObject('ReplicaSet', 'default/web')).toBe('ReplicaSet default/web');
    expect(fmtActor('controller:web/0')).toBe('controller web/0');
    expect(fmtActor('user')).toBe('the user');
    expect(fmtActor('environment:kubelet')).toBe('environment actor kubelet');
    expect(fmtActor('fault:api-conflict')).toBe('the api-conflict fault');
    expect(fmtPaths(['status.replicas', '.'])).toBe('status.replicas, the whole object');
    expect(fmtPaths([])).toBe('nothing');
    expect(fmtList(['a'])).toBe('a');
    expect(fmtList(['a', 'b', 'c'])).toBe('a, b and c');
    expect(fmtList(['a', 'b', 'c', 'd'], 2)).toBe('a, b and 2 more');
  });
});

describe('fmtWrite / fmtRequest', () => {
  it('says what a write did', () => {
    const w = { t: 1000, actor: 'controller:web/0', verb: 'updateStatus', kind: 'ReplicaSet', key: 'default/web', changed: ['status.replicas'], noop: false };
    expect(fmtWrite(w)).toBe('updateStatus ReplicaSet default/web by controller web/0 at t=1.0 s (changed status.replicas)');
    expect(fmtWrite({ ...w, noop: true, changed: [] })).toContain('(a no-op: it changed nothing)');
    expect(fmtWrite({ ...w, error: 'Conflict' })).toContain('(failed: Conflict)');
  });
  it('says how a request ended', () => {
    expect(fmtRequest({ t: 500, method: 'POST', url: 'https://dns.example/records', status: 503, outcome: 'http-error', fault: 'status' })).toBe('POST https://dns.example/records at t=0.5 s → 503 (injected status)');
    expect(fmtRequest({ t: 500, method: 'POST', url: 'https://x/y', status: 0, outcome: 'reset', applied: true })).toBe('POST https://x/y at t=0.5 s → reset (applied, response lost)');
  });
});

describe('fmtFault / fmtUserAction / letFacts', () => {
  const trace: TraceEntry[] = [
    { t: 0, type: 'user:action', action: 'create', kind: 'ReplicaSet', key: 'default/web' },
    { t: 1200, type: 'fault:inject', kind: 'event-loss', nth: 3, controller: 'web', key: 'default/web-1', event: 'ADDED' },
    { t: 1500, type: 'fault:inject', kind: 'crash-restart', nth: 1, point: 'after-write', controller: 'web', replica: 0, verb: 'create' },
    { t: 2000, type: 'fault:inject', kind: 'flaky-downstream', nth: 0, actor: 'controller:web/0', endpoint: 'POST https://dns.example/records', decision: 'hang' },
    { t: 3000, type: 'fault:inject', kind: 'brand-new', target: 'x', weight: 3 },
    { t: 9000, type: 'run:phase', phase: 'tail' },
    { t: 9000, type: 'user:action', action: 'reapply', kind: 'ReplicaSet', key: 'default/web' },
  ];
  it('phrases built-in fault kinds and lists unknown ones', () => {
    expect(fmtFault(trace[1]!)).toBe('the ADDED notification of default/web-1 to web at t=1.2 s was dropped (event-loss)');
    expect(fmtFault(trace[2]!)).toBe('controller web/0 crashed at t=1.5 s right after a create call and restarted with empty memory (crash-restart)');
    expect(fmtFault(trace[3]!)).toBe('the downstream call POST https://dns.example/records at t=2.0 s hung until the client timeout (flaky-downstream)');
    expect(fmtFault(trace[4]!)).toBe('a brand-new fault at t=3.0 s (target x, weight 3)');
    expect(fmtUserAction(trace[0]!)).toBe('the user created ReplicaSet default/web at t=0.0 s');
  });
  it('gives the Let facts: user actions then faults, without the tail probes', () => {
    const facts = letFacts(trace);
    expect(facts[0]).toBe('the user created ReplicaSet default/web at t=0.0 s');
    expect(facts).toHaveLength(5);
    expect(facts.join(' ')).not.toContain('re-applied');
    expect(letFacts(trace, { until: 1000 })).toEqual(['the user created ReplicaSet default/web at t=0.0 s', 'no fault was injected']);
  });
  it('folds a fault kind that fired many times into one fact', () => {
    const many: TraceEntry[] = Array.from({ length: 9 }, (_, i) => ({ t: i * 100, type: 'fault:inject' as const, kind: 'event-loss', key: 'default/a', event: 'MODIFIED', controller: 'c' }));
    expect(letFacts(many)).toEqual(['the MODIFIED notification of default/a to c at t=0.0 s was dropped (event-loss), and 8 more event-loss injections until t=0.8 s']);
  });
  it('joins facts in the Let/Then form', () => {
    expect(explanation(['the Pod web-1 ADDED event at t=1.2 s was dropped'], ['no reconcile of default/web ran after t=1.2 s', 'replicas stayed 2 ≠ 3.'])).toBe(
      'Let: the Pod web-1 ADDED event at t=1.2 s was dropped. Then: no reconcile of default/web ran after t=1.2 s; replicas stayed 2 ≠ 3.',
    );
  });
});

describe('advice from the mechanism found', () => {
  it('names a split-brain replica as one that ignores leader election, not as taking part in it', () => {
    const e = (leaderElection: boolean, uses: boolean): TraceEntry => ({ t: 0, type: 'fault:inject', kind: 'second-replica', controller: 'web', replica: 1, leaderElection, controllerUsesElection: uses });
    expect(fmtFault(e(false, true))).toBe('a second replica web/1 started at t=0.0 s, ignoring the leader election the first replica takes part in (split brain) (second-replica)');
    expect(fmtFault(e(true, true))).toContain('both replicas taking part in leader election');
    expect(fmtFault(e(true, false))).toContain('the controller does not use leader election');
  });

  it('does not say "no controller ever reconciled" an owned object next to the reconcile that wrote it', async () => {
    const { build } = await import('../../properties/_internals/timeline.js');
    const { lastActions } = await import('../../properties/_internals/last-actions.js');
    const tl = build([
      { t: 0, type: 'reconcile:start', controller: 'web', replica: 0, key: 'default/web', n: 1 },
      { t: 1, type: 'store:write', actor: 'controller:web/0', verb: 'create', kind: 'ConfigMap', key: 'default/web-config', changed: [], noop: false },
      { t: 2, type: 'reconcile:end', controller: 'web', replica: 0, key: 'default/web', n: 1, result: 'done' },
    ]);
    const s = lastActions(tl, 'ConfigMap', 'default/web-config');
    expect(s).not.toContain('no controller ever reconciled');
    expect(s).toContain('in the reconcile of default/web by web/0');
  });
});
