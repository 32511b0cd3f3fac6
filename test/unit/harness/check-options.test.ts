import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveCheckOptions, type CheckOptions } from '../../../src/harness/check-options.js';
import { defineController } from '../../../src/runtime/define-controller.js';
import { levelTriggered } from '../../../examples/replicas/level-triggered.js';
import { convergence } from '../../../properties/convergence.js';

const withSample = defineController({ name: 'web', for: 'WebApp', sample: [{ replicas: 3 }, { replicas: 1 }], reconcile: async () => undefined });

describe('resolveCheckOptions', () => {
  it('applies the documented defaults', () => {
    const r = resolveCheckOptions(levelTriggered);
    expect(r).toMatchObject({ runs: 100, swarm: true, maxObjects: 2, maxActions: 4, maxFaultEvents: 4, tailMs: 10_000, replicas: 1, determinism: true, determinismEvery: 10, coverage: true, requireAllFaultsFired: false, traceReads: true });
    expect(r.shrink).toEqual({ enabled: true, maxSteps: 1000, maxMinimizeTests: 400 });
    expect(r.faults).toEqual([]);
    expect(r.properties).toEqual([]);
    expect(r.scenarioOptions).toEqual({});
  });

  it('derives object templates from the controllers: kind from `for`, specs from `sample`', () => {
    const [t] = resolveCheckOptions(withSample).objects;
    expect(t).toMatchObject({ kind: 'WebApp', namespace: 'default', name: 'webapp' });
    expect(fc.sample(t!.spec, { seed: 1, numRuns: 50 }).every((s) => [3, 1].includes(s['replicas'] as number))).toBe(true);
    const noSample = defineController({ name: 'no-sample', for: 'Thing', reconcile: () => undefined });
    const [empty] = resolveCheckOptions(noSample).objects;
    expect(fc.sample(empty!.spec, 1)).toEqual([{}]);
  });

  it('accepts one template or a list, with an arbitrary, a list or a single spec', () => {
    const r = resolveCheckOptions(levelTriggered, { objects: [{ spec: { replicas: 2 } }, { kind: 'Other', name: 'o', spec: [{ a: 1 }], namespace: '' }], faultWindowMs: 5000, settleMs: 0 });
    expect(r.objects.map((o) => [o.kind, o.name, o.namespace])).toEqual([
      ['ReplicaSet', 'replicaset', 'default'],
      ['Other', 'o', ''],
    ]);
    expect(r.scenarioOptions).toEqual({ faultWindowMs: 5000, settleMs: 0 });
  });

  const bad: [string, unknown, CheckOptions | undefined, RegExp][] = [
    ['not a controller', { name: 'x' }, undefined, /the first argument is not a controller .* defineController/],
    ['duplicate names', [levelTriggered, levelTriggered], undefined, /two controllers are named "level-triggered"/],
    ['runs', levelTriggered, { runs: 0 }, /options\.runs must be an integer ≥ 1, got 0/],
    ['path without seed', levelTriggered, { path: '1:2' }, /options\.path replays a failure only together with its seed/],
    ['malformed path', levelTriggered, { seed: 1, path: 'x' }, /options\.path must be a fast-check path/],
    ['property factory', levelTriggered, { properties: [convergence as never] }, /options\.properties\[0\] is a property factory; call it: properties\.convergence\(\)/],
    ['fault', levelTriggered, { faults: [{} as never] }, /options\.faults\[0\] is not a fault module/],
    ['spec', levelTriggered, { objects: { spec: undefined as never } }, /options\.objects\.spec is required/],
    ['empty spec list', levelTriggered, { objects: [{ spec: [] }] }, /options\.objects\[0\]\.spec is an empty list/],
    ['name', levelTriggered, { objects: { name: 'Bad_Name', spec: {} } }, /options\.objects\.name must be a DNS-style prefix/],
    ['window', levelTriggered, { faultWindowMs: -1 }, /options\.faultWindowMs must be a finite number of virtual milliseconds/],
    ['shard', levelTriggered, { shard: { index: 3, count: 2 } }, /shard\.index must be an integer in \[0, 1\]/],
    ['template clash', levelTriggered, { objects: [{ spec: {} }, { spec: { a: 1 } }] }, /options\.objects\[1\] would name its objects like an earlier template/],
    ['action', levelTriggered, { actions: ['explode' as never] }, /options\.actions contains "explode"/],
    ['corpus controller', levelTriggered, { corpus: { scenarios: [{ seed: 1, controllers: [{ name: 'other' }], initialObjects: [], workload: [], faults: { events: [], background: [] } }] } }, /corpus\.scenarios\[0\] cannot run in this check: it names controller "other"/],
  ];
  for (const [what, target, options, message] of bad) {
    it(`rejects a bad ${what} with a message naming the option and the fix`, () => {
      expect(() => resolveCheckOptions(target as never, options)).toThrow(TypeError);
      expect(() => resolveCheckOptions(target as never, options)).toThrow(/^steadystate\.check: /);
      expect(() => resolveCheckOptions(target as never, options)).toThrow(message);
    });
  }
});
