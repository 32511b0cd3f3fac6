/**
 * The bug zoo: realistic small controllers, each in a buggy version and its fixed twin, for the
 * five classic controller bugs and the anti-patterns of SPEC §1. Each entry names the property
 * that catches the bug; `test/e2e/bug-zoo.test.ts` proves it with `check`, and proves the fixed
 * twin passes every property under swarm faults.
 */
import { blockingReconcile } from './blocking-reconcile/scenario.js';
import { controllersFighting } from './controllers-fighting/scenario.js';
import { heavyHandler } from './heavy-handler/scenario.js';
import { hotLoop } from './hot-loop/scenario.js';
import { lostEvent } from './lost-event/scenario.js';
import { lyingStatus } from './lying-status/scenario.js';
import { noLeaderElection } from './no-leader-election/scenario.js';
import { nonIdempotentApi } from './non-idempotent-api/scenario.js';
import { retryStorm } from './retry-storm/scenario.js';
import { specWriter } from './spec-writer/scenario.js';
import { stampingWait } from './stamping-wait/scenario.js';
import { staleSnapshot } from './stale-snapshot/scenario.js';
import { stuckDeletion } from './stuck-deletion/scenario.js';
import type { BugZooEntry } from './zoo-entry.js';

export type { BugFamily, BugZooEntry } from './zoo-entry.js';

/** Every exhibit: the five classic bugs first (SPEC §1's table), then the anti-patterns. */
export const bugZoo: readonly BugZooEntry[] = [
  hotLoop,
  stuckDeletion,
  controllersFighting,
  staleSnapshot,
  retryStorm,
  lostEvent,
  blockingReconcile,
  noLeaderElection,
  specWriter,
  nonIdempotentApi,
  lyingStatus,
  heavyHandler,
  stampingWait,
];

export { blockingReconcile, controllersFighting, heavyHandler, hotLoop, lostEvent, lyingStatus, noLeaderElection, nonIdempotentApi, retryStorm, specWriter, staleSnapshot, stampingWait, stuckDeletion };
