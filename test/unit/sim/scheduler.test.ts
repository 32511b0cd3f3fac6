import { describe, expect, it } from 'vitest';
import { Scheduler } from '../../../src/sim/scheduler.js';

describe('Scheduler', () => {
  it('pops by time, then by insertion order for equal times', () => {
    const s = new Scheduler();
    const out: string[] = [];
    s.schedule(5, () => out.push('b5'));
    s.schedule(1, () => out.push('a1'));
    s.schedule(5, () => out.push('c5'));
    s.schedule(3, () => out.push('d3'));
    s.schedule(5, () => out.push('e5'));
    while (s.size > 0) s.pop()!.fn();
    expect(out).toEqual(['a1', 'd3', 'b5', 'c5', 'e5']);
  });

  it('skips cancelled events', () => {
    const s = new Scheduler();
    const a = s.schedule(1, () => {});
    s.schedule(2, () => {});
    a.cancelled = true;
    expect(s.peekTime()).toBe(2);
    expect(s.pop()!.at).toBe(2);
    expect(s.pop()).toBeUndefined();
  });

  it('keeps heap order over many random inserts', () => {
    const s = new Scheduler();
    let x = 7;
    for (let i = 0; i < 2000; i++) {
      x = (x * 1103515245 + 12345) % 2 ** 31;
      s.schedule(x % 100, () => {});
    }
    let last = -1;
    let lastSeq = -1;
    while (s.size > 0) {
      const ev = s.pop()!;
      expect(ev.at > last || (ev.at === last && ev.seq > lastSeq)).toBe(true);
      last = ev.at;
      lastSeq = ev.seq;
    }
  });
});
