import { describe, expect, it } from 'vitest';
import { dropPattern, leafDiffs, parsePattern, type PatternStep } from '../../../properties/_internals/paths.js';

const pattern = (mask: string): PatternStep[] => parsePattern(mask) as PatternStep[];

describe('dropPattern (copy on write)', () => {
  it('returns the value itself when the mask selects nothing in it', () => {
    const value = { metadata: { labels: { app: 'web' } }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    const hits = { n: 0 };
    expect(dropPattern(value, pattern('status.conditions[*].lastTransitionTime'), hits)).toBe(value);
    expect(dropPattern(value, pattern('spec.replicas'), hits)).toBe(value);
    expect(hits.n).toBe(0);
  });

  it('copies only the path to what it drops, keeping key order and counting hits', () => {
    const value = { a: 1, status: { observedGeneration: 2, phase: 'Ready' }, z: { untouched: true } };
    const hits = { n: 0 };
    const out = dropPattern(value, pattern('status.observedGeneration'), hits) as typeof value;
    expect(out).toEqual({ a: 1, status: { phase: 'Ready' }, z: { untouched: true } });
    expect(Object.keys(out)).toEqual(['a', 'status', 'z']);
    expect(out).not.toBe(value);
    expect(out.z).toBe(value.z);
    expect(value.status.observedGeneration).toBe(2);
    expect(hits.n).toBe(1);
  });

  it('removes selected elements of a list and leaves holes out of a copy, as it always did', () => {
    const list = [{ type: 'A', t: 1 }, { type: 'B', t: 2 }];
    const hits = { n: 0 };
    expect(dropPattern({ c: list }, pattern('c[type=A]'), hits)).toEqual({ c: [{ type: 'B', t: 2 }] });
    expect(hits.n).toBe(1);
    // eslint-disable-next-line no-sparse-arrays
    const holed = [1, , 3];
    expect(dropPattern({ c: holed }, pattern('c[*].x'))).toEqual({ c: [1, 3] });
  });
});

describe('leafDiffs', () => {
  it('finds no difference between equal values without a path, and every differing leaf otherwise', () => {
    expect(leafDiffs({ a: [1, { b: 'x' }], c: undefined }, { a: [1, { b: 'x' }] })).toEqual([]);
    expect(leafDiffs({ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }], d: 2 })).toEqual([
      { path: ['a', 1, 'b'], expected: 'x', actual: 'y' },
      { path: ['d'], expected: undefined, actual: 2 },
    ]);
    // equal as JSON only (NaN): no difference, as the JSON comparison of leaves says
    expect(leafDiffs({ n: Number.NaN }, { n: Number.NaN })).toEqual([]);
  });
});
