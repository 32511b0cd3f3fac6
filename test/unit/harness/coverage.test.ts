import { describe, expect, it } from 'vitest';
import { behaviourFingerprint, CoverageTracker, enabledKinds, injectionsByKind } from '../../../src/harness/coverage.js';
import { bareScenario, fakeRun, write } from './helpers.js';

const plan = { events: [{ kind: 'a', nth: 1 }], background: [{ kind: 'b', rate: 0.1 }] };

describe('enabledKinds / injectionsByKind', () => {
  it('reads the plan and the trace', () => {
    expect(enabledKinds(plan).sort()).toEqual(['a', 'b']);
    const run = fakeRun({ trace: [{ t: 1, type: 'fault:inject', kind: 'a' }, { t: 2, type: 'fault:inject', kind: 'a' }, { t: 3, type: 'log' }] });
    expect([...injectionsByKind(run)]).toEqual([['a', 2]]);
  });
});

describe('behaviourFingerprint', () => {
  it('ignores times and versions but not what the controller wrote', () => {
    const a = fakeRun({ writes: [write(1, 'controller:c/0', { rv: 5 }), write(2, 'user')] });
    const b = fakeRun({ writes: [write(900, 'controller:c/0', { rv: 9 })] });
    const c = fakeRun({ writes: [write(1, 'controller:c/0', { changed: ['status.ready'] })] });
    expect(behaviourFingerprint(a)).toBe(behaviourFingerprint(b));
    expect(behaviourFingerprint(a)).not.toBe(behaviourFingerprint(c));
  });

  it('counts what a controller did without writing: reconciles, requests on the wire, exits (in any order)', () => {
    const list = (t: number, rv: number) => ({ t, type: 'http:request' as const, controller: 'p', replica: 0, method: 'GET', path: `/api/v1/configmaps?resourceVersion=${rv}`, status: 200, ms: 5 });
    const watch = (t: number) => ({ t, type: 'http:request' as const, controller: 'p', replica: 0, method: 'GET', path: '/api/v1/configmaps?watch=true', status: 200, ms: 5, watch: true });
    const base = fakeRun({ trace: [list(10, 1), watch(20)] });
    // the same requests at other times and versions, in another order: the same behaviour
    expect(behaviourFingerprint(fakeRun({ trace: [watch(5), list(900, 7)] }))).toBe(behaviourFingerprint(base));
    // a relist the program made because of a fault: a change, though nothing was written
    expect(behaviourFingerprint(fakeRun({ trace: [list(10, 1), watch(20), list(30, 2)] }))).not.toBe(behaviourFingerprint(base));
    expect(behaviourFingerprint(fakeRun({ trace: [list(10, 1), watch(20), { t: 40, type: 'process:exit', controller: 'p', replica: 0, kind: 'exit', code: 1 }] }))).not.toBe(behaviourFingerprint(base));
    expect(behaviourFingerprint(fakeRun({ trace: [{ t: 1, type: 'reconcile:start', controller: 'c', key: 'default/a' }] }))).not.toBe(behaviourFingerprint(fakeRun()));
  });
});

describe('CoverageTracker', () => {
  it('counts enabled scenarios, injections, and scenarios whose behaviour changed vs the twin', () => {
    const t = new CoverageTracker(['a', 'b', 'c']);
    const s = bareScenario({ faults: plan });
    const twin = fakeRun({ writes: [write(1, 'controller:c/0')] });
    t.add(fakeRun({ scenario: s, trace: [{ t: 1, type: 'fault:inject', kind: 'a' }], writes: [write(1, 'controller:c/0')] }), twin);
    t.add(fakeRun({ scenario: s, trace: [{ t: 1, type: 'fault:inject', kind: 'a' }, { t: 2, type: 'fault:inject', kind: 'a' }], writes: [] }), twin);
    t.add(fakeRun({ scenario: s }), undefined);
    expect(t.result()).toEqual([
      { kind: 'a', enabled: 3, injected: 3, changedBehaviour: 1 },
      { kind: 'b', enabled: 3, injected: 0, changedBehaviour: 0 },
      { kind: 'c', enabled: 0, injected: 0, changedBehaviour: 0 },
    ]);
    expect(t.unfired()).toEqual(['b']);
  });
});
