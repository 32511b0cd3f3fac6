import { defineController, fakeRestService, StoreError, type JsonObject, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Topic` keeps a topic at a messaging API. On a failed call the controller backs off by itself,
 * exponentially (250 ms doubling to 8 s, per key, in the process's memory: a restart starts over,
 * as client-go's rate limiter does) with `requeueAfter`, instead of throwing to the workqueue. It
 * writes its Degraded flag once, not on every attempt: its own status event would start the next
 * attempt at once and cut the backoff short. The topic is created with an idempotency key naming
 * the topic it replaces, and a finalizer deletes it. (Red team rt46.)
 */
export const TOPIC = 'Topic';
export const MSG_API = 'https://msg.example/v1';
const FINALIZER = 'msg.example/topic';

interface TopicSpec {
  partitions: number;
}

function reconcileWith(fixedRetryMs: number | undefined) {
  return async (ctx: ReconcileContext<Map<string, number>>): Promise<ReconcileResult> => {
    const t = await ctx.client.tryGet<TopicSpec, JsonObject>(TOPIC, ctx.key, { live: true });
    if (!t) return undefined;
    const api = jsonApi(ctx.fetch, MSG_API);
    if (t.metadata.deletionTimestamp !== undefined) {
      if (!t.metadata.finalizers.includes(FINALIZER)) return undefined;
      await api.removeOwned('topics', t.metadata.uid);
      await removeFinalizer(ctx, t, FINALIZER);
      return undefined;
    }
    if (await addFinalizer(ctx, t, FINALIZER)) return undefined;
    let topicId: string;
    try {
      const found = await api.list<{ owner: string; partitions: number }>('topics', { owner: t.metadata.uid });
      const cur = found[0];
      if (!cur) topicId = (await api.create('topics', { owner: t.metadata.uid, partitions: t.spec.partitions }, { idempotencyKey: `${t.metadata.uid}/after-${String(t.status['topicId'] ?? 'none')}` })).id;
      else topicId = cur.id;
      if (cur && cur.partitions !== t.spec.partitions) await api.patch('topics', cur.id, { partitions: t.spec.partitions });
    } catch (err) {
      // an API server error is the workqueue's to retry; a downstream failure is ours to back off
      if (err instanceof StoreError) throw err;
      const n = (ctx.state.get(ctx.key) ?? 0) + 1;
      ctx.state.set(ctx.key, n);
      if (t.status['degraded'] !== true) await ctx.client.patchStatus(TOPIC, ctx.key, { status: { degraded: true } });
      return { requeueAfter: fixedRetryMs ?? Math.min(250 * 2 ** (n - 1), 8_000) };
    }
    ctx.state.delete(ctx.key);
    await writeStatus(ctx, t, { degraded: false, topicId, partitions: t.spec.partitions, observedGeneration: t.metadata.generation });
    return undefined;
  };
}

const define = (fixedRetryMs: number | undefined) =>
  defineController<Map<string, number>>({ name: 'self-backoff', for: TOPIC, resyncPeriodMs: RESYNC_MS, state: () => new Map<string, number>(), reconcile: reconcileWith(fixedRetryMs) });

export const selfBackoffController = define(undefined);

export const selfBackoff: FalsePositiveCase = {
  name: 'self-backoff',
  description: 'a Topic keeps a topic at a messaging API and backs off exponentially by itself (requeueAfter from an in-memory attempt count) while the API fails, flagging Degraded once',
  controllers: [selfBackoffController],
  options: {
    objects: { kind: TOPIC, name: 'orders', spec: [{ partitions: 3 }, { partitions: 6 }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: MSG_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: 5_000 }),
  },
  buggy: {
    controllers: [define(50)],
    caughtBy: ['bounded-downstream-qps'],
    why: 'it retries every 50 ms however long the API keeps failing: 20 calls a second, no growing gap',
  },
};
