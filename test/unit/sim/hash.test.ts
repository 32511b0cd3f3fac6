import { describe, expect, it } from 'vitest';
import { fnv1a, hex8 } from '../../../src/sim/hash.js';

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
});
