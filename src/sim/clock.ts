/**
 * Virtual clock in milliseconds. Nothing in a run reads wall time: the kernel moves this clock
 * forward to the time of the next scheduled event.
 * @public
 */
export interface Clock {
  /** Current virtual time in milliseconds since the start of the run. */
  now(): number;
}

/** @internal */
export class VirtualClock implements Clock {
  private current = 0;
  now(): number {
    return this.current;
  }
  /** Moves time forward; time never goes backwards. */
  advanceTo(ms: number): void {
    if (ms > this.current) this.current = ms;
  }
}
