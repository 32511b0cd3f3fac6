import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { edgeTriggered } from '../../../examples/replicas/edge-triggered.js';
import { eventLoss } from '../../../faults/event-loss.js';
import { convergence } from '../../../properties/convergence.js';
import { workload, type ObjectTemplate } from '../../../src/arbitrary/workload.js';
import { check } from '../../../src/harness/check.js';
import type { WorkloadAction } from '../../../src/harness/scenario.js';

const keysOf = (w: WorkloadAction[]) => w.filter((a) => a.type === 'create').map((a) => (a.type === 'create' ? `${a.object.metadata.namespace ?? ''}/${a.object.metadata.name}` : ''));
const sample = (t: ObjectTemplate, maxObjects = 3) => fc.sample(workload({ objects: [t], maxObjects, maxActions: 4 }), { seed: 7, numRuns: 100 });

describe('generated objects with real names (name and namespace templates)', () => {
  it('a list of names: the i-th object takes the i-th name (then <last>-<i>); actions act on those keys', () => {
    const runs = sample({ kind: 'WebApp', names: ['web', 'api'], spec: { replicas: 1 } });
    const all = new Set(runs.flatMap(keysOf));
    expect([...all].sort()).toEqual(['default/api', 'default/api-2', 'default/web']);
    for (const w of runs) for (const a of w) if ('key' in a) expect(keysOf(w)).toContain(a.key);
  });

  it('an arbitrary of names: each object draws one, and a name drawn twice gets its index', () => {
    const runs = sample({ kind: 'WebApp', names: fc.constantFrom('shop', 'blog'), spec: { replicas: 1 } });
    const names = new Set(runs.flatMap(keysOf).map((k) => k.split('/')[1]));
    expect(names.has('shop') && names.has('blog')).toBe(true);
    for (const w of runs) expect(new Set(keysOf(w)).size).toBe(keysOf(w).length);
  });

  it('namespaces spread the objects (a list cycles; "" is cluster-scoped)', () => {
    const runs = sample({ kind: 'WebApp', names: ['a', 'b', 'c'], namespaces: ['team-a', ''], spec: {} });
    const full = runs.find((w) => keysOf(w).length === 3)!;
    expect(keysOf(full).sort()).toEqual(['/b', 'team-a/a', 'team-a/c']);
    const b = full.find((a) => a.type === 'create' && a.object.metadata.name === 'b');
    expect(b && b.type === 'create' && 'namespace' in b.object.metadata).toBe(false);
  });

  it('refuses names that are not DNS-style, naming the option', () => {
    expect(() => workload({ objects: [{ kind: 'WebApp', names: ['Web App'], spec: {} }] })).toThrow(/options\.objects\[0\]\.names holds "Web App", which is not a DNS-style name/);
    expect(() => workload({ objects: [{ kind: 'WebApp', names: [], spec: {} }] })).toThrow(/options\.objects\[0\]\.names must be a non-empty list/);
  });

  it('check keeps the real names in the failure it reports', async () => {
    const r = await check(edgeTriggered, { faults: [eventLoss], properties: [convergence()], objects: { kind: 'ReplicaSet', names: ['checkout', 'search'], spec: [{ replicas: 3 }], status: { replicas: 0 } }, seed: 1, runs: 50 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const names = r.scenario.workload.flatMap((a) => (a.type === 'create' ? [a.object.metadata.name] : []));
    expect(names.every((n) => n === 'checkout' || n === 'search')).toBe(true);
    expect(r.explanation).toMatch(/default\/(checkout|search)/);
  });
});
