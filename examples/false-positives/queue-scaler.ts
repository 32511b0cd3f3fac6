import { http, HttpResponse } from 'msw';
import { CrashedError, defineController, isStoreError, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { HttpError, jsonApi } from '../bug-zoo/shared/json-api.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `QueueScaler` sizes a worker Deployment by the length of a queue it reads from an external
 * metrics API (KEDA style): `ceil(length / perReplica)` workers, clamped to [min, max], checked
 * every `pollMs`. When the metrics API fails it keeps the current size (never scales on a
 * missing reading), says so in a condition and retries on the next poll.
 */
export const QUEUE_SCALER = 'QueueScaler';
export const METRICS_API = 'https://metrics.example/v1';

interface QueueScalerSpec {
  queue: string;
  image: string;
  perReplica: number;
  min: number;
  max: number;
}
interface QueueScalerStatus {
  queueLength?: number;
  replicas?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}

/** How often the queue is read (KEDA's default polling interval is 30 s). */
const POLL_MS = 15_000;

async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
  const s = await ctx.client.tryGet<QueueScalerSpec, QueueScalerStatus>(QUEUE_SCALER, ctx.key, { live: true });
  if (!s || s.metadata.deletionTimestamp !== undefined) return;
  let length: number | undefined;
  let failure: string | undefined;
  try {
    const m = (await jsonApi(ctx.fetch, METRICS_API).get<{ length: number }>('queues', s.spec.queue)) as { length?: number } | undefined;
    length = typeof m?.length === 'number' ? m.length : undefined;
    if (length === undefined) failure = `queue ${s.spec.queue} unknown`;
  } catch (err) {
    // a failed call (HTTP error, timeout, reset) is a missing reading; a crash is not
    if (err instanceof CrashedError || isStoreError(err)) throw err;
    failure = err instanceof HttpError ? `HTTP ${err.status}` : err instanceof Error ? err.name : String(err);
  }
  const clamp = (n: number) => Math.min(s.spec.max, Math.max(s.spec.min, n));
  // without a reading, keep the size last chosen (or the minimum before the first reading)
  const replicas = length !== undefined ? clamp(Math.ceil(length / Math.max(1, s.spec.perReplica))) : clamp(s.status.replicas ?? s.spec.min);
  const labels = { app: s.metadata.name };
  await apply(ctx, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `${s.metadata.name}-workers`, namespace: s.metadata.namespace, ownerReferences: [controllerRef(s)] },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'worker', image: s.spec.image }] } } },
  });
  const conditions = setCondition(
    s.status.conditions,
    { type: 'MetricsAvailable', status: failure === undefined ? 'True' : 'False', reason: failure === undefined ? 'Read' : 'ReadFailed', message: failure ?? '', observedGeneration: s.metadata.generation },
    ctx.clock.now(),
  );
  await writeStatus(ctx, s, { ...(length !== undefined ? { queueLength: length } : s.status.queueLength !== undefined ? { queueLength: s.status.queueLength } : {}), replicas, observedGeneration: s.metadata.generation, conditions });
  return { requeueAfter: POLL_MS };
}

export const queueScalerController = defineController({
  name: 'queue-scaler',
  for: QUEUE_SCALER,
  owns: ['Deployment'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

/** The metrics API: each queue's length (fixed per run). */
const LENGTHS: Record<string, number> = { orders: 35, emails: 4 };

export const queueScaler: FalsePositiveCase = {
  name: 'queue-scaler',
  description: 'a QueueScaler sizes a worker Deployment from a queue length read from an external metrics API, keeping its size when the API fails',
  controllers: [queueScalerController],
  options: {
    objects: {
      kind: QUEUE_SCALER,
      name: 'workers',
      spec: [
        { queue: 'orders', image: 'worker:1', perReplica: 10, min: 1, max: 5 },
        { queue: 'emails', image: 'worker:1', perReplica: 2, min: 1, max: 3 },
        { queue: 'orders', image: 'worker:2', perReplica: 20, min: 2, max: 4 },
      ],
    },
    downstream: () => ({
      handlers: [http.get(`${METRICS_API}/queues/:queue`, ({ params }) => (LENGTHS[String(params['queue'])] !== undefined ? HttpResponse.json({ id: params['queue'], length: LENGTHS[String(params['queue'])] }) : new HttpResponse(null, { status: 404 })))],
      timeoutMs: 5_000,
    }),
  },
  properties: endStateProperties(),
};
