import { noDuplicateSideEffects } from '../../../properties/no-duplicate-side-effects.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import { fakeRestService } from '../../../src/index.js';
import { CLIENT_TIMEOUT_MS, endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { BACKUP_API, BACKUP_KIND } from './backup.js';
import { buggyBackup } from './buggy.js';
import { backup } from './correct.js';
import { slowApi } from './slow-api.js';

/** Both versions are deployed with two replicas, for availability. */
const REPLICAS = 2;

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
    downstream: () => ({ services: [fakeRestService({ baseUrl: BACKUP_API, idempotencyKeyHeader: 'Idempotency-Key' })], timeoutMs: CLIENT_TIMEOUT_MS }),
  },
  extraFaults: [slowApi],
  properties: [sameEndState({ masks: endStateMasks('status.snapshotId') })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'backup', replicas: REPLICAS }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: BACKUP_KIND, metadata: { name: 'orders-db', namespace: 'default' }, spec: { database: 'orders' } } }],
    // the backup service takes 200 ms to answer: long enough for the other replica to look,
    // find nothing, and ask too
    faults: { events: [{ kind: 'slow-api', params: { ms: 200 } }], background: [] },
    options: { faultWindowMs: 5_000, settleMs: 20_000 },
  },
};
