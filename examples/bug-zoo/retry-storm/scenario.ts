import { boundedDownstreamQps } from '../../../properties/bounded-downstream-qps.js';
import { sameEndState } from '../../../properties/same-end-state.js';
import { fakeRestService } from '../../../src/index.js';
import { CLIENT_TIMEOUT_MS, endStateMasks, type BugZooEntry } from '../zoo-entry.js';
import { BUCKET_KIND, STORAGE_API } from './bucket.js';
import { buggyBucket } from './buggy.js';
import { bucket } from './correct.js';

export const retryStorm: BugZooEntry = {
  name: 'retry-storm',
  family: 'classic bug',
  description: 'a Bucket controller answers a failing storage API with a fixed 50 ms requeue, bypassing backoff, and hammers it while it is down',
  caughtBy: 'bounded-downstream-qps',
  property: () => boundedDownstreamQps(),
  buggy: [buggyBucket],
  correct: [bucket],
  options: {
    objects: { kind: BUCKET_KIND, name: 'assets', spec: [{ region: 'eu-west-1', versioning: false }, { region: 'eu-west-1', versioning: true }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: STORAGE_API, idempotencyKeyHeader: 'Idempotency-Key' })], timeoutMs: CLIENT_TIMEOUT_MS }),
  },
  // the built-in flaky-downstream fault generates outages (every call fails for a while)
  extraFaults: [],
  properties: [sameEndState({ masks: endStateMasks('status.bucketId') })],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'bucket' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: BUCKET_KIND, metadata: { name: 'assets', namespace: 'default' }, spec: { region: 'eu-west-1', versioning: false } } }],
    // the storage API is down for the first 5 s
    faults: { events: [{ kind: 'flaky-downstream', at: 0, params: { fail: 'outage', forMs: 5_000, status: 503 } }], background: [] },
    options: { faultWindowMs: 10_000, settleMs: 20_000 },
  },
};
