import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fnv1a, fnv1aJson, fnv1aJsonList, hex8 } from '../../../src/sim/hash.js';

/** The digests and trace hashes reports carry are made of these two: they must never change. */
describe('hash primitives', () => {
  it('hex8 is (n >>> 0).toString(16).padStart(8, "0")', () => {
    const values = [0, 1, 15, 16, 255, 256, 0xabcdef, 0x7fffffff, 0x80000000, 0xffffffff, -1, -0x80000000, 2 ** 32, 2 ** 32 + 5, 1.5, NaN];
    for (let i = 0; i < 2000; i++) values.push(Math.imul(i, 0x9e3779b1) >>> 0);
    for (const n of values) expect(hex8(n)).toBe((n >>> 0).toString(16).padStart(8, '0'));
  });

  it('fnv1a is 32-bit FNV-1a over UTF-16 code units, chained through its seed', () => {
    const reference = (text: string, seed = 0x811c9dc5): number => {
      let h = seed >>> 0;
      for (let i = 0; i < text.length; i++) {
        h ^= text.charCodeAt(i);
        h = Math.imul(h, 0x01000193) >>> 0;
      }
      return h >>> 0;
    };
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    const texts = ['', 'a', '{"t":0,"type":"run:start","seed":1}', 'ünïcødé ☃ 𝄞', '\u0000\uffff'];
    for (let i = 0; i < 300; i++) texts.push(String.fromCharCode(...Array.from({ length: i % 40 }, (_, j) => (Math.imul(i * 31 + j, 0x9e3779b1) >>> 16) & 0xffff)));
    for (const t of texts) for (const seed of [undefined, 0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x811c9dc5]) expect(fnv1a(t, seed)).toBe(reference(t, seed));
  });

  it('fnv1aJson and fnv1aJsonList hash the JSON text without building it: the same number as fnv1a(JSON.stringify(...))', () => {
    const text = fc.oneof(fc.string(), fc.constantFrom('"', '\\', '\n', '\u0001', '\ud800', '😀', 'é', '\u2028', '\u007f', '0', '1'));
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.constantFrom(-0, 1e21, 1e-7, 2 ** 53, NaN, Infinity), text, fc.constant(undefined), fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(text, tie('v'), { maxKeys: 5 })),
    })).v;
    const skip = (k: string): boolean => k === 'spec' || k === 'status' || k === 'metadata' || k === 'kind' || k === 'apiVersion';
    fc.assert(
      fc.property(value, fc.array(value, { maxLength: 7 }), fc.dictionary(fc.oneof(text, fc.constantFrom('spec', 'status', 'kind')), value, { maxKeys: 6 }), (v, parts, rest) => {
        if (v !== undefined) expect(fnv1aJson(v)).toBe(fnv1a(JSON.stringify(v)));
        let others: Record<string, unknown> | undefined;
        for (const k in rest) if (!skip(k) && rest[k] !== undefined) (others ??= {})[k] = rest[k];
        expect(fnv1aJsonList(parts, rest, skip)).toBe(fnv1a(JSON.stringify(others ? [...parts, others] : parts)));
      }),
      { numRuns: 3000 },
    );
    // values it does not walk (class instances, holes, functions, toJSON) fall back to the text
    class K {
      x = 1;
    }
    // eslint-disable-next-line no-sparse-arrays
    for (const v of [new Date(0), [1, , 2], { f: () => 1, a: 1 }, { n: NaN }, new K(), { toJSON: () => 'z' }, Object.create(null)]) expect(fnv1aJson(v)).toBe(fnv1a(JSON.stringify(v)));
  });
});
