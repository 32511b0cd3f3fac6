import { deletionCompletes } from '../../../properties/deletion-completes.js';
import { fakeRestService } from '../../../src/index.js';
import { CLIENT_TIMEOUT_MS } from '../../bug-zoo/zoo-entry.js';
import type { MultiFaultExhibit } from '../exhibit.js';
import { BUCKET, STORAGE_API } from './bucket.js';
import { leakedBucketBuggy } from './buggy.js';
import { leakedBucketCorrect } from './correct.js';

export const leakedBucket: MultiFaultExhibit = {
  name: 'leaked-bucket',
  description: 'a Bucket controller crashes right after creating the external bucket; the Bucket is deleted before the restarted controller records the id, and the cleanup (by recorded id) leaks the bucket',
  needs: ['crash-restart right after the POST /buckets (before the id is recorded)', 'recreation (the Bucket deleted) before the restarted controller reconciles it'],
  caughtBy: 'deletion-completes',
  property: () => deletionCompletes(),
  buggy: [leakedBucketBuggy],
  correct: [leakedBucketCorrect],
  options: {
    objects: { kind: BUCKET, name: 'logs', spec: [{ region: 'eu-west-1', versioning: false }, { region: 'eu-west-1', versioning: true }] },
    // nobody but the faults deletes a Bucket: the bug needs the deletion to come from a fault
    actions: ['update', 'reapply', 'patch'],
    faultWindowMs: 10_000,
    // a restarted controller comes back after its pod is rescheduled and its image pulled
    scenarioOptions: { restartDelayMs: 5_000 },
    downstream: () => ({ services: [fakeRestService({ baseUrl: STORAGE_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: CLIENT_TIMEOUT_MS }),
  },
  properties: [],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'bucket' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: BUCKET, metadata: { name: 'logs', namespace: 'default' }, spec: { region: 'eu-west-1', versioning: false } } }],
    faults: {
      events: [
        { kind: 'crash-restart', nth: 0, target: 'bucket', params: { point: 'after-fetch' } },
        { kind: 'recreation', at: 300, params: { pick: 0, gapMs: 0 } },
      ],
      background: [],
    },
    options: { faultWindowMs: 10_000, settleMs: 20_000, restartDelayMs: 5_000 },
  },
};
