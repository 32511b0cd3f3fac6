import type { StoredObject } from '../../../src/index.js';
import type { JsonApi } from '../../bug-zoo/shared/json-api.js';
import { reconcileExternal, type ExternalStatus } from '../shared/external-resource.js';

/**
 * A `Queue` is a queue at an external message broker (`POST /queues` creates one with a
 * server-chosen id; the broker honours an `Idempotency-Key` header). Both controllers keep it in
 * line with the spec and delete it behind a finalizer; they differ only in how the cleanup
 * deletes it.
 */
export const QUEUE = 'Queue';
export const BROKER_API = 'https://broker.example/v2';

export interface QueueSpec {
  retentionHours: number;
  fifo: boolean;
}
export type Queue = StoredObject<QueueSpec, ExternalStatus>;

/** The reconcile both share; `cleanup` deletes what the Queue owns at the broker. */
export function reconcileQueue(cleanup: (api: JsonApi, q: Queue) => Promise<void>) {
  return reconcileExternal<QueueSpec>({
    kind: QUEUE,
    baseUrl: BROKER_API,
    collection: 'queues',
    finalizer: 'broker.example/queue',
    desired: (q) => ({ owner: q.metadata.uid, retentionHours: q.spec.retentionHours, fifo: q.spec.fifo }),
    cleanup,
  });
}
