import type { RunRecord } from './property.js';
import { conflictAtWrite, errorAtWrite, requestFailure } from './systematic-strategies/calls.js';
import { crashAfterWrite, crashAroundRequest, crashBeforeWrite } from './systematic-strategies/crash.js';
import { coalescedState, delayedEvent, duplicatedEvent, heldChange, unnotifiedState, unobservedState } from './systematic-strategies/events.js';
import { permutedList, restartFromStaleReplica, staleAcrossChange, staleListAfterRestart, staleProgramList, staleReadBeforeWrite } from './systematic-strategies/reads.js';
import { recreateBetweenReconciles } from './systematic-strategies/recreation.js';
import type { Derivation, DerivedPlan, Strategy } from './systematic-strategies/strategy.js';
import { indexTrace, type TraceIndex } from './systematic-strategies/trace-index.js';

export type { Derivation, DerivedPlan } from './systematic-strategies/strategy.js';

/**
 * The systematic strategies (SPEC §3), each a way to derive concrete fault plans from a run,
 * after the research tools that find controller bugs this way (Sieve, Acto), pruned as Sieve
 * prunes (a point where nothing is half-done, a read with nothing older to show, a list of one):
 * - `crash-after-write`, `crash-before-write`, `crash-around-request`: the controller dies between
 *   two steps of a reconcile (store writes, mutating downstream requests): intermediate states;
 * - `stale-read-before-write`: the watch delivery each cached read (of any object) before a change rests on is held back until just after the change (a lagging cache): stale states;
 * - `unobserved-state`: the watch events of each state a later write cancels (and of each deletion) are lost;
 * - `unnotified-state`: the cache sees such a state, but the notification that would reconcile it is dropped;
 * - `coalesced-state`: a watch that falls behind skips such a state (a deletion arrives as a tombstone);
 * - `permuted-list`: each list of two or more items before a change comes back with another item first;
 * - `delayed-event`, `duplicated-event`: the events before each changing reconcile are delayed, or delivered again;
 * - `request-failure`: each downstream failure mode (500, 429, reset, hang, applied but lost) at each mutating request;
 * - `conflict-at-write`: a genuine 409 at each conditional write; `error-at-write`: a 500, or a timeout after applying, at each write;
 * - `recreation`: the primary object deleted and recreated after each reconcile that changed it, and while the controller is down;
 * - `stale-list-after-restart`: a restarted controller's informer lists from a lagging API server replica (after a crash: depth 2);
 * - `restart-from-stale-replica`: both in one plan (Sieve's time travel): a crash after a reconcile that followed a creation, and the restart's list from a replica from before it;
 * - `stale-across-change`: a controller's watch lags across another actor's change of an object, so it acts, after the change, on the version the change replaced;
 * - `held-change`: the event of another actor's change that reaches a controller while a reconcile of the object is queued is held back past its start (reordering), so it decides on the state before the change.
 * - `stale-program-list`: a hosted program's list served from an API server's watch cache (`resourceVersion=0`), relisted before one of its writes, comes from a replica lagging behind the newest object of its kind (a GC deleting what a missing owner owns).
 * @public
 */
export type SystematicStrategy =
  | 'crash-after-write'
  | 'stale-read-before-write'
  | 'unobserved-state'
  | 'unnotified-state'
  | 'crash-before-write'
  | 'crash-around-request'
  | 'coalesced-state'
  | 'permuted-list'
  | 'delayed-event'
  | 'duplicated-event'
  | 'request-failure'
  | 'conflict-at-write'
  | 'error-at-write'
  | 'recreation'
  | 'stale-list-after-restart'
  | 'restart-from-stale-replica'
  | 'stale-across-change'
  | 'held-change'
  | 'stale-program-list';

const STRATEGIES: Readonly<Record<SystematicStrategy, Strategy>> = {
  'crash-after-write': crashAfterWrite,
  'stale-read-before-write': staleReadBeforeWrite,
  'unobserved-state': unobservedState,
  'unnotified-state': unnotifiedState,
  'crash-before-write': crashBeforeWrite,
  'crash-around-request': crashAroundRequest,
  'coalesced-state': coalescedState,
  'permuted-list': permutedList,
  'delayed-event': delayedEvent,
  'duplicated-event': duplicatedEvent,
  'request-failure': requestFailure,
  'conflict-at-write': conflictAtWrite,
  'error-at-write': errorAtWrite,
  recreation: recreateBetweenReconciles,
  'stale-list-after-restart': staleListAfterRestart,
  'restart-from-stale-replica': restartFromStaleReplica,
  'stale-across-change': staleAcrossChange,
  'held-change': heldChange,
  'stale-program-list': staleProgramList,
};

/** Every strategy, in the order they run. @public */
export const ALL_STRATEGIES: readonly SystematicStrategy[] = Object.keys(STRATEGIES) as SystematicStrategy[];

/** The fault kind each strategy's plans use. @public */
export const STRATEGY_FAULT: Readonly<Record<SystematicStrategy, string>> = Object.fromEntries(ALL_STRATEGIES.map((s) => [s, STRATEGIES[s].kind])) as Record<SystematicStrategy, string>;

/** Every fault kind each strategy's plans use (its own, and what it needs besides). @internal */
export const STRATEGY_KINDS: Readonly<Record<SystematicStrategy, readonly string[]>> = Object.fromEntries(ALL_STRATEGIES.map((s) => [s, [STRATEGIES[s].kind, ...(STRATEGIES[s].needs ?? [])]])) as unknown as Record<SystematicStrategy, readonly string[]>;

/** Whether every fault kind a strategy's plans use is among `kinds`. @internal */
export function strategyEnabled(s: SystematicStrategy, kinds: ReadonlySet<string>): boolean {
  return STRATEGY_KINDS[s].every((k) => kinds.has(k));
}

/** The plans of one strategy for a run (or its index), with what was pruned. @internal */
export function derive(strategy: SystematicStrategy, run: RunRecord | TraceIndex): Derivation {
  return STRATEGIES[strategy].derive('reconciles' in run ? run : indexTrace(run));
}

/** The plans of one strategy. @internal */
export function derivePlans(strategy: SystematicStrategy, run: RunRecord | TraceIndex): DerivedPlan[] {
  return derive(strategy, run).plans;
}

/** Crash right after each controller write that has a further step in its reconcile. @internal */
export const crashAfterWritePlans = (run: RunRecord) => derivePlans('crash-after-write', run);
/** A one-version-stale read of each cached read before a change of its reconcile. @internal */
export const staleReadPlans = (run: RunRecord) => derivePlans('stale-read-before-write', run);
/** Drop every watch delivery of each cancelled state and each deletion. @internal */
export const unobservedStatePlans = (run: RunRecord) => derivePlans('unobserved-state', run);
/** Drop the notifications each cancelled state's delivery caused. @internal */
export const unnotifiedStatePlans = (run: RunRecord) => derivePlans('unnotified-state', run);
