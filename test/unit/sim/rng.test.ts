import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/sim/rng.js';

describe('createRng', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const a = createRng(42);
    const b = createRng(42);
    const c = createRng(43);
    const sa = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(sa);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(sa);
  });

  it('forks independent named streams that do not shift each other', () => {
    const root = createRng(1);
    const x1 = root.fork('x');
    const y = root.fork('y');
    y.next();
    y.next();
    const x2 = createRng(1).fork('x');
    expect(x1.next()).toBe(x2.next());
  });

  it('int stays within bounds and chance honours 0 and 1', () => {
    const r = createRng('s');
    for (let i = 0; i < 1000; i++) {
      const v = r.int(2, 4);
      expect(v).toBeGreaterThanOrEqual(2);
      expect(v).toBeLessThanOrEqual(4);
    }
    expect(r.chance(0)).toBe(false);
    expect(r.chance(1)).toBe(true);
  });

  it('chance(0.3) hits about 30% of the time', () => {
    const r = createRng(9);
    let hits = 0;
    for (let i = 0; i < 10_000; i++) if (r.chance(0.3)) hits++;
    expect(hits).toBeGreaterThan(2800);
    expect(hits).toBeLessThan(3200);
  });
});
