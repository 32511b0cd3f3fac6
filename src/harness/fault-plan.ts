import { z } from 'zod';
import { count, jsonObject, msSchema } from './schema-parts.js';
import { shown } from './schema-problem.js';

const faultKind = z
  .string({ error: (i) => `must be a fault kind such as "event-loss"; got ${shown(i.input)}` })
  .regex(/^[a-z][a-z0-9-]*$/, { error: (i) => `must be a fault kind in kebab-case such as "event-loss"; got ${shown(i.input)}` });

const probability = { error: (i: { input?: unknown }) => `must be a probability between 0 and 1; got ${shown(i.input)}` };

/** One concrete fault event (part of the one scenario schema). @internal */
export const faultEventSchema = z.strictObject({
  kind: faultKind,
  nth: count('the 0-based occurrence the fault acts on').exactOptional(),
  at: msSchema.exactOptional(),
  target: z.string().exactOptional(),
  params: jsonObject.exactOptional(),
});

/** One background rate. @internal */
export const backgroundFaultSchema = z.strictObject({
  kind: faultKind,
  rate: z.number(probability).min(0, probability).max(1, probability),
  params: jsonObject.exactOptional(),
});

/** A fault plan. @internal */
export const faultPlanSchema = z.strictObject({ events: z.array(faultEventSchema), background: z.array(backgroundFaultSchema) });

/**
 * One concrete fault event: what, where, when. Small integers (`nth`, `order`) rather than
 * opaque random streams, so fast-check shrinks a plan toward fewer faults and plain FIFO order.
 * - `kind`: the fault module's kind (its file name), e.g. `'event-loss'`;
 * - `nth`: acts on the nth occurrence at the fault's seam (0-based), when the fault counts occurrences;
 * - `at`: acts at this virtual time (ms), when the fault is timed;
 * - `target`: a controller name, an object key, an endpoint, or `'user'` (the user's writes);
 * - `params`: kind-specific parameters (plain JSON).
 * @public
 */
export type FaultEvent = z.infer<typeof faultEventSchema>;

/** A background rate: each occurrence at the seam is hit with probability `rate` in [0, 1] (seeded). @public */
export type BackgroundFault = z.infer<typeof backgroundFaultSchema>;

/** The faults of one scenario, plain JSON. @public */
export type FaultPlan = z.infer<typeof faultPlanSchema>;

/** The empty plan. @public */
export function emptyFaultPlan(): FaultPlan {
  return { events: [], background: [] };
}
