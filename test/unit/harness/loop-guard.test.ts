import { describe, expect, it } from 'vitest';
import { guardLoops } from '../../../src/harness/loop-guard.js';
import { Kernel } from '../../../src/sim/kernel.js';

// A check a timed-out test left running kept the guarded globals of its run and put them back
// after the guard was gone; the next run's guard then called through to itself (a stack overflow
// that crashed vitest's worker; h49 speed).
describe('the loop guard', () => {
  it('never calls through to itself when its own functions were put back as plain values', async () => {
    const first = guardLoops(new Kernel(), () => undefined, () => undefined);
    const keptResolve = Promise.resolve;
    const keptTick = process.nextTick;
    const keptQueue = queueMicrotask;
    first.release();
    Promise.resolve = keptResolve;
    process.nextTick = keptTick;
    globalThis.queueMicrotask = keptQueue;
    const second = guardLoops(new Kernel(), () => undefined, () => undefined);
    try {
      await expect(Promise.resolve(7)).resolves.toBe(7);
      await new Promise<void>((done) => process.nextTick(done));
      await new Promise<void>((done) => queueMicrotask(done));
    } finally {
      second.release();
    }
    expect(Promise.resolve(1)).toBeInstanceOf(Promise);
  });
});
