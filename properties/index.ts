import { registerBuiltInProperties, type Property, type PropertyFactory } from '../src/harness/property.js';
import { boundedDownstreamQps } from './bounded-downstream-qps.js';
import { convergence } from './convergence.js';
import { deletionCompletes } from './deletion-completes.js';
import { idempotence } from './idempotence.js';
import { noDuplicateSideEffects } from './no-duplicate-side-effects.js';
import { noExtraDestructiveActions } from './no-extra-destructive-actions.js';
import { noFighting } from './no-fighting.js';
import { noHotLoop } from './no-hot-loop.js';
import { recovery } from './recovery.js';
import { responsiveness } from './responsiveness.js';
import { safetyInvariants } from './safety-invariants.js';
import { sameEndState } from './same-end-state.js';
import { specStatusOwnership } from './spec-status-ownership.js';
import { statusTruthfulness } from './status-truthfulness.js';
import { neverExits } from './never-exits.js';
import { honoursRetryAfter } from './honours-retry-after.js';

/**
 * Every built-in property (SPEC §5) by its camelCase name, msw `http` style:
 * `properties.convergence({ stableFor: 3 })`.
 * @public
 */
export const properties = {
  neverExits,
  noFighting,
  noHotLoop,
  convergence,
  deletionCompletes,
  specStatusOwnership,
  idempotence,
  boundedDownstreamQps,
  noDuplicateSideEffects,
  noExtraDestructiveActions,
  safetyInvariants,
  responsiveness,
  recovery,
  statusTruthfulness,
  sameEndState,
  honoursRetryAfter,
} as const;

/**
 * Properties judged only when named in `properties`: promises most correct controllers do not
 * make (waiting exactly as long as an API's Retry-After asked, where exponential backoff is the
 * usual answer).
 */
const OPT_IN: ReadonlySet<PropertyFactory<object>> = new Set<PropertyFactory<object>>([honoursRetryAfter as PropertyFactory<object>]);

/**
 * Every built-in property factory, in a stable order: never-exits first (a process that died
 * explains whatever else went wrong), then the most specific diagnoses before the more general
 * ones that the same bug also breaks, so a report that names the first failing property names the
 * most telling one. Fighting and hot loops come next: they also keep the world from ever becoming
 * quiet, which convergence would report less precisely. Then convergence, then hot loop before
 * idempotence, duplicates before same-end-state, which comes last.
 * @public
 */
export const allProperties: readonly PropertyFactory<object>[] = Object.freeze((Object.values(properties) as PropertyFactory<object>[]).filter((p) => !OPT_IN.has(p)));
// frozen: a module under test that swapped a catalogue entry at import would judge with its own look-alikes (red team, stop 40)
Object.freeze(properties);
// what these make is told apart from a user's property that takes a built-in's name
registerBuiltInProperties(Object.values(properties) as PropertyFactory<object>[]);

/**
 * Every built-in property configured with its SPEC §5 defaults: what `check` judges when the
 * user names none. Fresh instances on each call.
 * @public
 */
export function defaultProperties(): Property[] {
  return allProperties.map((p) => p());
}

export {
  honoursRetryAfter,
  neverExits,
  boundedDownstreamQps,
  convergence,
  deletionCompletes,
  idempotence,
  noDuplicateSideEffects,
  noExtraDestructiveActions,
  noFighting,
  noHotLoop,
  recovery,
  responsiveness,
  safetyInvariants,
  sameEndState,
  specStatusOwnership,
  statusTruthfulness,
};
export type { BoundedDownstreamQpsOptions } from './bounded-downstream-qps.js';
export type { ConvergenceOptions } from './convergence.js';
export type { DeletionCompletesOptions } from './deletion-completes.js';
export type { IdempotenceOptions } from './idempotence.js';
export type { NeverExitsOptions } from './never-exits.js';
export type { NoDuplicateSideEffectsOptions } from './no-duplicate-side-effects.js';
export type { HonoursRetryAfterOptions } from './honours-retry-after.js';
export type { NoExtraDestructiveActionsOptions } from './no-extra-destructive-actions.js';
export type { NoFightingOptions } from './no-fighting.js';
export type { NoHotLoopOptions } from './no-hot-loop.js';
export type { RecoveryOptions, Revert } from './recovery.js';
export type { ResponsivenessOptions } from './responsiveness.js';
export type { Invariant, SafetyInvariantsOptions } from './safety-invariants.js';
export type { SameEndStateOptions } from './same-end-state.js';
export { DEFAULT_HISTORY, type HistorySelector } from './_internals/history.js';
export type { SpecStatusOwnershipOptions } from './spec-status-ownership.js';
export type { StatusTruthfulnessOptions } from './status-truthfulness.js';
