import { describe, expect, it } from 'vitest';
import { hex8 } from '../../../src/sim/hash.js';

describe('hex8', () => {
  it('is (n >>> 0).toString(16).padStart(8, "0") (it names every digest and trace hash)', () => {
    const values = [0, 1, 15, 16, 255, 256, 0xabcdef, 0x7fffffff, 0x80000000, 0xffffffff, -1, -0x80000000, 2 ** 32, 2 ** 32 + 5, 1.5, NaN];
    for (let i = 0; i < 2000; i++) values.push(Math.imul(i, 0x9e3779b1) >>> 0);
    for (const n of values) expect(hex8(n)).toBe((n >>> 0).toString(16).padStart(8, '0'));
  });
});
