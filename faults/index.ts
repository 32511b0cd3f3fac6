import type { FaultModule } from '../src/harness/fault.js';
import { apiConflict } from './api-conflict.js';
import { apiError } from './api-error.js';
import { coalescing } from './coalescing.js';
import { crashRestart } from './crash-restart.js';
import { delay } from './delay.js';
import { drift, driftWith, type DriftOptions } from './drift.js';
import { duplication } from './duplication.js';
import { environmentCrashLoopingPod } from './environment-crash-looping-pod.js';
import { environmentPodEviction } from './environment-pod-eviction.js';
import { environmentPodNeverReady } from './environment-pod-never-ready.js';
import { environmentPvcNeverBinds } from './environment-pvc-never-binds.js';
import { environmentSlowRollout } from './environment-slow-rollout.js';
import { eventLoss } from './event-loss.js';
import { flakyDownstream } from './flaky-downstream.js';
import { listOrder } from './list-order.js';
import { recreation } from './recreation.js';
import { reordering } from './reordering.js';
import { secondReplica } from './second-replica.js';
import { staleSnapshot } from './stale-snapshot.js';
import { watchDisconnect } from './watch-disconnect.js';
import { watchEventLoss } from './watch-event-loss.js';

/**
 * Every built-in fault kind (SPEC §3), by its camelCase name (msw `http` style):
 * `faults.eventLoss`, `faults.crashRestart`, …; each module's `kind` is its file name.
 * @public
 */
export const faults = {
  eventLoss,
  watchEventLoss,
  duplication,
  reordering,
  delay,
  watchDisconnect,
  staleSnapshot,
  apiConflict,
  apiError,
  flakyDownstream,
  crashRestart,
  secondReplica,
  drift,
  recreation,
  listOrder,
  coalescing,
  // the environment (SPEC §2.2): faults of the simulated cluster around the controller
  environmentPodNeverReady,
  environmentCrashLoopingPod,
  environmentPodEviction,
  environmentPvcNeverBinds,
  environmentSlowRollout,
} as const;

/** Every built-in fault module, in a stable order (the order of SPEC §3). @public */
// frozen: a module under test that swapped a catalogue entry at import would judge with its own
Object.freeze(faults);
export const allFaults: readonly FaultModule[] = Object.freeze(Object.values(faults));

export {
  eventLoss,
  watchEventLoss,
  duplication,
  reordering,
  delay,
  watchDisconnect,
  staleSnapshot,
  apiConflict,
  apiError,
  flakyDownstream,
  crashRestart,
  secondReplica,
  drift,
  recreation,
  listOrder,
  coalescing,
  environmentPodNeverReady,
  environmentCrashLoopingPod,
  environmentPodEviction,
  environmentPvcNeverBinds,
  environmentSlowRollout,
};

export { driftWith };
export type { DriftOptions };
