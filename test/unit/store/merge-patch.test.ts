import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '../../../src/store/merge-patch.js';
import type { Json } from '../../../src/store/object.js';

describe('applyMergePatch (RFC 7386)', () => {
  // the test cases of RFC 7386, Appendix A
  it.each<[Json, Json, Json]>([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, result) => {
    expect(applyMergePatch(target, patch)).toEqual(result);
  });

  it('treats an undefined target as empty', () => {
    expect(applyMergePatch(undefined, { a: { b: 1, c: null } })).toEqual({ a: { b: 1 } });
  });

  it('keeps nulls inside arrays (arrays replace as a whole)', () => {
    expect(applyMergePatch({ a: [1] }, { a: [null, 2] })).toEqual({ a: [null, 2] });
  });

  it('merges deeply and leaves untouched members as they were', () => {
    const target = { spec: { replicas: 1, template: { image: 'v1', env: { A: '1' } } }, keep: true };
    expect(applyMergePatch(target, { spec: { template: { env: { B: '2' } } } })).toEqual({
      spec: { replicas: 1, template: { image: 'v1', env: { A: '1', B: '2' } } },
      keep: true,
    });
  });

  it('does not modify the target', () => {
    const target = { a: { b: 1, c: 2 }, d: [1] };
    const snapshot = JSON.parse(JSON.stringify(target)) as unknown;
    applyMergePatch(target, { a: { b: null, e: 3 }, d: [2], f: 4 });
    expect(target).toEqual(snapshot);
  });

  it('an empty patch object returns an equal copy', () => {
    const target = { a: 1 };
    const out = applyMergePatch(target, {});
    expect(out).toEqual(target);
    expect(out).not.toBe(target);
  });
});
