import { describe, expect, it } from 'vitest';
import { changedPaths } from '../../../src/store/field-diff.js';

describe('changedPaths', () => {
  it('is empty for equal values (key order and undefined members do not matter)', () => {
    expect(changedPaths({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toEqual([]);
    expect(changedPaths({ a: 1, u: undefined }, { a: 1 })).toEqual([]);
    expect(changedPaths(5, 5)).toEqual([]);
  });

  it('names changed, added and removed leaves by dotted path, sorted', () => {
    expect(changedPaths({ spec: { replicas: 1, a: 1 } }, { spec: { replicas: 2, b: 1 } })).toEqual(['spec.a', 'spec.b', 'spec.replicas']);
  });

  it('reports an array as a whole', () => {
    expect(changedPaths({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: ['a', 'b'] } })).toEqual(['metadata.finalizers']);
  });

  it('reports a type change at the point where it happens', () => {
    expect(changedPaths({ spec: { x: { y: 1 } } }, { spec: { x: 5 } })).toEqual(['spec.x']);
    expect(changedPaths({ spec: { x: null } }, { spec: { x: { y: 1 } } })).toEqual(['spec.x']);
  });

  it('reports "." when the whole value changes', () => {
    expect(changedPaths(undefined, { a: 1 })).toEqual(['.']);
    expect(changedPaths(1, 2)).toEqual(['.']);
  });

  it('stops at maxDepth segments (4 by default)', () => {
    const before = { a: { b: { c: { d: { e: 1 } } } } };
    const after = { a: { b: { c: { d: { e: 2 } } } } };
    expect(changedPaths(before, after)).toEqual(['a.b.c.d']);
    expect(changedPaths(before, after, 2)).toEqual(['a.b']);
    expect(changedPaths(before, after, 10)).toEqual(['a.b.c.d.e']);
  });

  it('counts a key containing dots as one segment', () => {
    const before = { spec: { 'a.b.c': { x: { y: 1 } } } };
    const after = { spec: { 'a.b.c': { x: { y: 2 } } } };
    expect(changedPaths(before, after)).toEqual(['spec.a.b.c.x.y']);
  });

  it('ignores metadata.resourceVersion and metadata.generation, but nowhere else', () => {
    expect(changedPaths({ metadata: { resourceVersion: '1', generation: 1 } }, { metadata: { resourceVersion: '2', generation: 2 } })).toEqual([]);
    expect(changedPaths({ spec: { generation: 1 } }, { spec: { generation: 2 } })).toEqual(['spec.generation']);
    expect(changedPaths({ spec: { metadata: { resourceVersion: 1 } } }, { spec: { metadata: { resourceVersion: 2 } } })).toEqual(['spec.metadata.resourceVersion']);
  });
});
