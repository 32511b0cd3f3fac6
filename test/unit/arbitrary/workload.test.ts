import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { workload } from '../../../src/arbitrary/workload.js';
import type { WorkloadAction } from '../../../src/harness/scenario.js';
import { minimal, template } from './helpers.js';

const creates = (w: WorkloadAction[]) => w.filter((a) => a.type === 'create');

describe('workload', () => {
  it('creates 1..maxObjects objects named after their template, and acts only on those keys', () => {
    const samples = fc.sample(workload({ objects: [template()], maxObjects: 3, maxActions: 5 }), { seed: 3, numRuns: 200 });
    for (const w of samples) {
      const made = creates(w);
      expect(made.length).toBeGreaterThanOrEqual(1);
      expect(made.length).toBeLessThanOrEqual(3);
      const keys = made.map((a) => (a.type === 'create' ? `${a.object.metadata.namespace}/${a.object.metadata.name}` : ''));
      expect([...keys].sort()).toEqual(keys.map((_, i) => `default/rs-${i}`));
      for (const a of w) if (a.type !== 'create' && 'key' in a) expect(keys).toContain(a.key);
      expect(w.length - made.length).toBeLessThanOrEqual(5);
    }
    expect(samples.some((w) => creates(w).length === 3)).toBe(true);
  });

  it('orders actions by time, creates first among actions at the same time', () => {
    for (const w of fc.sample(workload({ objects: [template()], maxObjects: 2, maxActions: 6 }), { seed: 5, numRuns: 200 })) {
      for (let i = 1; i < w.length; i++) expect(w[i]!.at).toBeGreaterThanOrEqual(w[i - 1]!.at);
      for (let i = 1; i < w.length; i++) if (w[i]!.at === w[i - 1]!.at && w[i]!.type === 'create') expect(w[i - 1]!.type).toBe('create');
    }
  });

  it('uses every action type, keeps times inside the window, and copies template status and labels', () => {
    const seen = new Set<string>();
    const t = template({ labels: { app: 'web' }, removableFinalizers: ['example.com/cleanup'] });
    for (const w of fc.sample(workload({ objects: [t], maxObjects: 2, maxActions: 6, windowMs: 5000 }), { seed: 7, numRuns: 300 })) {
      for (const a of w) {
        seen.add(a.type);
        expect(a.at).toBeGreaterThanOrEqual(0);
        expect(a.at).toBeLessThanOrEqual(5000);
        if (a.type === 'create') {
          expect(a.object.status).toEqual({ replicas: 0 });
          expect(a.object.metadata.labels).toEqual({ app: 'web' });
        }
        if (a.type === 'removeFinalizer') expect(a.finalizer).toBe('example.com/cleanup');
        if (a.type === 'patch') expect(Object.keys(a.patch).length).toBeGreaterThan(0);
      }
    }
    expect([...seen].sort()).toEqual(['create', 'delete', 'patch', 'reapply', 'removeFinalizer', 'update']);
  });

  it('never removes a finalizer when the template names none it may remove', () => {
    for (const w of fc.sample(workload({ objects: [template()], maxActions: 8 }), { seed: 9, numRuns: 200 })) expect(w.some((a) => a.type === 'removeFinalizer')).toBe(false);
  });

  it('restricts action types to the given ones', () => {
    for (const w of fc.sample(workload({ objects: [template()], maxActions: 8, actions: ['delete'] }), { seed: 11, numRuns: 100 })) {
      for (const a of w) expect(['create', 'delete']).toContain(a.type);
    }
  });

  it('shrinks to one create at t=0 with the smallest spec of the first template', () => {
    const w = minimal(workload({ objects: [template(), template({ kind: 'Other', name: 'other' })], maxObjects: 3, maxActions: 5 }));
    expect(w).toEqual([{ at: 0, type: 'create', object: { kind: 'ReplicaSet', metadata: { name: 'rs-0', namespace: 'default' }, spec: { replicas: 1 }, status: { replicas: 0 } } }]);
  });

  it('shrinks a failure that needs a delete to exactly a create and a delete', () => {
    const w = minimal(workload({ objects: [template()], maxObjects: 3, maxActions: 6 }), (v) => v.some((a) => a.type === 'delete'));
    expect(w.map((a) => a.type)).toEqual(['create', 'delete']);
  });

  it('accepts a list of specs (shrinking toward the first) or a single spec', () => {
    const list = minimal(workload({ objects: [template({ spec: fc.constantFrom({ replicas: 7 }, { replicas: 9 }) })] }));
    expect(list[0]!.type === 'create' && list[0]!.object.spec).toEqual({ replicas: 7 });
  });

  it('rejects an empty template list with a message naming the option', () => {
    expect(() => workload({ objects: [] })).toThrow(/steadystate\.workload: options\.objects is empty/);
  });
});

describe('workload with user-form templates', () => {
  it('accepts plain templates (spec as one object) and requires a kind', () => {
    const [w] = fc.sample(workload({ objects: [{ kind: 'Web', spec: { replicas: 2 }, namespace: '' }], maxActions: 0 }), { seed: 1, numRuns: 1 });
    expect(w![0]).toEqual({ at: w![0]!.at, type: 'create', object: { kind: 'Web', metadata: { name: 'web-0' }, spec: { replicas: 2 } } });
    expect(() => workload({ objects: [{ spec: {} }] })).toThrow(/steadystate\.workload: options\.objects\[0\]\.kind must be a non-empty string/);
  });
});
