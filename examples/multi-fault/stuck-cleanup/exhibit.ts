import { deletionCompletes } from '../../../properties/deletion-completes.js';
import { fakeRestService } from '../../../src/index.js';
import { CLIENT_TIMEOUT_MS } from '../../bug-zoo/zoo-entry.js';
import type { MultiFaultExhibit } from '../exhibit.js';
import { stuckCleanupBuggy } from './buggy.js';
import { stuckCleanupCorrect } from './correct.js';
import { BROKER_API, QUEUE } from './queue.js';

export const stuckCleanup: MultiFaultExhibit = {
  name: 'stuck-cleanup',
  description: 'a Queue controller deletes its queue at the broker with a DELETE that fails on 404; when the Queue is deleted and the controller crashes right after that DELETE, every retry gets 404 and the Queue stays Terminating',
  needs: ['recreation (the Queue deleted)', 'crash-restart right after the cleanup\'s DELETE (or its response lost, or a conflict on the finalizer removal)'],
  caughtBy: 'deletion-completes',
  property: () => deletionCompletes(),
  buggy: [stuckCleanupBuggy],
  correct: [stuckCleanupCorrect],
  options: {
    objects: { kind: QUEUE, name: 'orders', spec: [{ retentionHours: 24, fifo: true }, { retentionHours: 72, fifo: true }] },
    // nobody but the faults deletes a Queue: the bug needs the deletion to come from a fault
    actions: ['update', 'reapply', 'patch'],
    downstream: () => ({ services: [fakeRestService({ baseUrl: BROKER_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: CLIENT_TIMEOUT_MS }),
  },
  properties: [],
  reproduction: {
    seed: 1,
    controllers: [{ name: 'queue' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: QUEUE, metadata: { name: 'orders', namespace: 'default' }, spec: { retentionHours: 24, fifo: true } } }],
    faults: {
      events: [
        { kind: 'recreation', at: 1000, params: { pick: 0, gapMs: 0 } },
        { kind: 'crash-restart', nth: 2, target: 'queue', params: { point: 'after-fetch' } },
      ],
      background: [],
    },
    options: { faultWindowMs: 10_000, settleMs: 20_000 },
  },
};
