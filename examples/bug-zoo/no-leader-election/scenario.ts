import { noDuplicateSideEffects } from '../../../properties/no-duplicate-side-effects.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import { fakeRestService } from '../../../src/index.js';
import { CLIENT_TIMEOUT_MS, endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { BACKUP_API, BACKUP_KIND } from './backup.js';
import { buggyBackup } from './buggy.js';
import { backup } from './correct.js';

/** Both versions are deployed with two replicas, for availability. */
const REPLICAS = 2;
/**
 * The backup service takes 200 ms to answer, as real snapshot APIs do: long enough for the other
 * replica to look, find nothing, and ask too. No fault needed: this is the API on a good day.
 */
const BACKUP_API_LATENCY_MS = 200;

export const noLeaderElection: BugZooEntry = {
  name: 'no-leader-election',
  family: 'anti-pattern',
  description: 'a Backup controller runs two replicas without leader election; both look up, find nothing, and take a snapshot each',
  caughtBy: 'no-duplicate-side-effects',
  property: () => noDuplicateSideEffects(),
  buggy: [buggyBackup],
  correct: [backup],
  options: {
    objects: { kind: BACKUP_KIND, name: 'orders-db', spec: [{ database: 'orders' }, { database: 'orders-replica' }] },
    replicas: REPLICAS,
    downstream: () => ({ services: [fakeRestService({ baseUrl: BACKUP_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: BACKUP_API_LATENCY_MS })], timeoutMs: CLIENT_TIMEOUT_MS }),
  },
  extraFaults: [],
  properties: [sameEndState({ masks: endStateMasks('status.snapshotId') })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'backup', replicas: REPLICAS }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: BACKUP_KIND, metadata: { name: 'orders-db', namespace: 'default' }, spec: { database: 'orders' } } }],
    // no fault: the two replicas overlap on the backup service's own latency
    faults: { events: [], background: [] },
    options: { faultWindowMs: 5_000, settleMs: 20_000 },
  },
};
