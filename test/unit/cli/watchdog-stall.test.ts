import { describe, expect, it } from 'vitest';
import { stalledFor } from '../../../src/cli/worker-pool.js';

/**
 * The worker watchdog's judgement, with the clocks given: wall time since the last heartbeat and
 * how much of it the worker thread was busy (its event loop running code). A thread that only
 * waits (a module loading on the loader thread, a host starving it of CPU) is not stuck.
 */
describe('stalledFor', () => {
  it('never fires within the limit', () => {
    expect(stalledFor(900, 900, 1_000)).toBe(false);
    expect(stalledFor(1_000, 1_000, 1_000)).toBe(false);
  });

  it('fires on a thread busy past the limit: a synchronous loop, a loop on await null, a blocking call', () => {
    expect(stalledFor(1_001, 1_001, 1_000)).toBe(true);
    expect(stalledFor(10_200, 10_150, 10_000)).toBe(true);
  });

  it('does not fire on a thread that waited most of the time, however long on the wall clock', () => {
    expect(stalledFor(10_200, 600, 10_000)).toBe(false);
    expect(stalledFor(120_000, 9_999, 10_000)).toBe(false);
  });

  it('still ends a wait that never ends, after the idle ceiling', () => {
    expect(stalledFor(599_999, 0, 10_000)).toBe(false);
    expect(stalledFor(600_001, 0, 10_000)).toBe(true);
    // a --watchdog above the ceiling is the bound itself
    expect(stalledFor(700_000, 0, 700_000)).toBe(false);
    expect(stalledFor(700_001, 0, 700_000)).toBe(true);
  });

  it('falls back to wall time when the thread cannot be measured', () => {
    expect(stalledFor(1_001, undefined, 1_000)).toBe(true);
    expect(stalledFor(999, undefined, 1_000)).toBe(false);
  });
});
