import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stableStringify } from '../../../src/sim/hash.js';

/** The definition stableStringify keeps: sorted keys, undefined members left out, arrays as join gives them. */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return value === undefined ? 'null' : JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map(reference).join(',') + ']';
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + reference(obj[k])).join(',') + '}';
}

describe('stableStringify', () => {
  it('gives the reference serialization for any JSON value, with keys in any order', () => {
    const key = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('10', '2', '-1', '01', 'b', 'a', '\u00e9', '\ud83d\ude00', '__proto__'));
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), fc.constant(undefined), fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(key, tie('v'), { maxKeys: 5 })),
    })).v;
    fc.assert(fc.property(value, (v) => {
      expect(stableStringify(v)).toBe(reference(v));
    }), { numRuns: 2000, seed: 16 });
  });

  it('keeps the edge cases of the reference: holes, functions, undefined members, non-plain objects', () => {
    // eslint-disable-next-line no-sparse-arrays
    const cases: unknown[] = [[1, , 3], [() => 1, Symbol('s'), undefined], { b: undefined, a: () => 1 }, { z: 1, a: [], m: {} }, new Date(0), new Map([[1, 2]]), [], {}, { 10: 'x', 2: 'y', a: 'z' }, -0, NaN, 'a"b'];
    for (const c of cases) expect(stableStringify(c)).toBe(reference(c));
  });
});
