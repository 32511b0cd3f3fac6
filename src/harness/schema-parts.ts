import { z } from 'zod';
import { shown } from './schema-problem.js';

/** Building blocks of the scenario schema shared by its files (scenario.ts, fault-plan.ts). @internal */

/** Longest virtual time a scenario may name (7 days, in ms): beyond it a time is a typo, not a plan. @public */
export const MAX_SCENARIO_MS = 604_800_000;

/** How a time should look. @internal */
export const FIX_MS = `a number of virtual milliseconds between 0 and ${MAX_SCENARIO_MS} (7 days), e.g. 2000`;

/** Virtual milliseconds, [0, 7 days]. @internal */
export const msSchema = z
  .number({ error: (i) => `must be ${FIX_MS}; got ${shown(i.input)}` })
  .refine((n) => Number.isFinite(n) && n >= 0 && n <= MAX_SCENARIO_MS, { error: (i) => `must be ${FIX_MS}; got ${shown(i.input)}` });

/** A whole number ≥ 0 (an occurrence index, a count). @internal */
export const count = (what: string) =>
  z.number({ error: (i) => `must be ${what} (a whole number ≥ 0); got ${shown(i.input)}` }).refine((n) => Number.isSafeInteger(n) && n >= 0, { error: (i) => `must be ${what} (a whole number ≥ 0); got ${shown(i.input)}` });

/** A non-empty string. @internal */
export const nonEmpty = (what: string) => z.string({ error: (i) => (i.input === undefined ? `is required: ${what}` : `must be ${what} (a non-empty string); got ${shown(i.input)}`) }).min(1, { error: `must be ${what}, not an empty string` });

/** A JSON object. @internal */
export const jsonObject = z.record(z.string(), z.json(), { error: (i) => `must be a JSON object; got ${shown(i.input)}` });
/** Label and annotation maps. @internal */
export const stringMap = z.record(z.string(), z.string({ error: (i) => `must be a string (label and annotation values are strings); got ${shown(i.input)}` }), { error: (i) => `must be an object of strings; got ${shown(i.input)}` });

