import { describe, expect, it } from 'vitest';
import { createHostProbe } from '../../src/host-probe.js';

/**
 * The determinism self-check's host probe patches the host's sources of nondeterminism around
 * every re-run. The run guard snapshots the built-ins a run starts with and keeps the snapshot
 * only while they look the same: a probe that put fresh wrappers in place at each re-run made it
 * take and compile a new snapshot at every re-run (a re-run cost about 1.5 runs).
 */
describe('host probe', () => {
  it('puts the same wrappers in place at every re-run, and restores the real functions after each', () => {
    const probe = createHostProbe();
    const real = { random: Math.random, now: Date.now, Date: globalThis.Date, setTimeout: globalThis.setTimeout };
    const seen = (): unknown[] => [Math.random, Date.now, globalThis.Date, globalThis.setTimeout, performance.now];
    let stop = probe.start();
    const first = seen();
    stop();
    expect([Math.random, Date.now, globalThis.Date, globalThis.setTimeout]).toEqual([real.random, real.now, real.Date, real.setTimeout]);
    stop = probe.start();
    const second = seen();
    stop();
    expect(second).toHaveLength(first.length);
    for (let i = 0; i < first.length; i++) expect(second[i]).toBe(first[i]);
    expect(first[0]).not.toBe(real.random);
  });

  it('counts each re-run on its own and shifts the clock in each', () => {
    const probe = createHostProbe();
    for (let run = 1; run <= 2; run++) {
      const stop = probe.start();
      for (let i = 0; i < run; i++) Math.random();
      const shifted = new Date().getTime() - Date.now();
      const counts = stop();
      expect(counts['Math.random()']).toBe(run);
      expect(counts['new Date()']).toBe(1);
      // both read the shifted clock: the difference is the time between the two calls
      expect(Math.abs(shifted)).toBeLessThan(1_000);
      expect(new Date().getTime()).toBeLessThan(Date.now() + 1_000);
    }
  });
});
