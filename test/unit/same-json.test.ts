import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameJson, stableJson as stable } from '../../examples/bug-zoo/shared/same-json.js';

describe('sameJson (the zoo controllers\' compare-before-write)', () => {
  it('ignores key order and undefined members, and compares as JSON does', () => {
    expect(sameJson({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, u: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: null }, {})).toBe(false);
    expect(sameJson([undefined], [null])).toBe(true);
    expect(sameJson(NaN, null)).toBe(true);
    expect(sameJson(1, '1')).toBe(false);
    expect(sameJson({}, [])).toBe(false);
    expect(sameJson({ d: new Date(0) }, { d: {} })).toBe(true); // a Date has no own keys, as before
  });

  it('agrees with the stable serialization on arbitrary values', () => {
    const leaf = fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant(NaN), fc.constant(-0), fc.integer({ min: -2, max: 2 }), fc.constantFrom('a', '1'), fc.boolean(), fc.constant(new Date(0)));
    const value = fc.letrec((tie) => ({ v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('v'), { maxKeys: 3 })) })).v;
    fc.assert(fc.property(value, value, (a, b) => sameJson(a, b) === (stable(a) === stable(b)) && sameJson(a, a)), { numRuns: 2000, seed: 16 });
  });
});
