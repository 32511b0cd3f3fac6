import type { JsonObject } from '../store/object.js';

/**
 * One concrete fault event: what, where, when. Small integers (`nth`, `order`) rather than
 * opaque random streams, so fast-check shrinks a plan toward fewer faults and plain FIFO order.
 * @public
 */
export interface FaultEvent {
  /** The fault module's kind (its file name), e.g. `'event-loss'`. */
  kind: string;
  /** Acts on the nth occurrence at the fault's seam (0-based), when the fault counts occurrences. */
  nth?: number;
  /** Acts at this virtual time (ms), when the fault is timed. */
  at?: number;
  /** Optional target: a controller name, an object key, an endpoint. */
  target?: string;
  /** Kind-specific parameters (plain JSON). */
  params?: JsonObject;
}

/** A background rate: each occurrence at the seam is hit with this probability (seeded). @public */
export interface BackgroundFault {
  kind: string;
  /** Probability in [0, 1]. */
  rate: number;
  params?: JsonObject;
}

/** The faults of one scenario, plain JSON. @public */
export interface FaultPlan {
  events: FaultEvent[];
  background: BackgroundFault[];
}

/** The empty plan. @public */
export function emptyFaultPlan(): FaultPlan {
  return { events: [], background: [] };
}
