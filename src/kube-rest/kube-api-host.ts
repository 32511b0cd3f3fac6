/**
 * What the API needs from its surroundings: a clock, timers, and a way to say "a client has work
 * to do". In a simulation these are the kernel's (virtual time; `activity` keeps virtual time
 * still until the in-process client has reacted); standalone, {@link wallClockHost}.
 * @public
 */
export interface KubeApiHost {
  /** Milliseconds (virtual in a simulation). */
  now(): number;
  /** Runs fn after `ms`; returns a function that cancels it. */
  after(ms: number, fn: () => void): () => void;
  /** Called whenever the API hands a client something to react to (a response, a watch event). */
  activity(): void;
}

/**
 * A host on real timers, for the loopback server and tests outside a simulation. `now` reads
 * `clock` when given (e.g. the store's virtual clock), else milliseconds since creation.
 * @public
 */
export function wallClockHost(clock?: { now(): number }): KubeApiHost {
  const t0 = performance.now();
  return {
    now: clock ? () => clock.now() : () => Math.floor(performance.now() - t0),
    after(ms, fn) {
      const timer = setTimeout(fn, ms);
      timer.unref?.();
      return () => clearTimeout(timer);
    },
    activity() {},
  };
}
