import { defineController, type StoredObject } from '../../src/index.js';
import { fakeRestService } from '../../src/downstream/fake-rest-service.js';
import type { CreateDownstreamOptions } from '../../src/downstream/intercept.js';

/**
 * A storage-bucket controller: each `Bucket` gets one bucket at `https://storage.example/buckets`.
 * The correct one lets a failure throw, so the rate-limited queue backs off exponentially; the
 * buggy one retries every 10 ms whatever happens (a retry storm, caught by bounded-downstream-qps).
 * Neither handles deletion (no finalizer): deleting a Bucket leaks its bucket, which
 * deletion-completes reports; the DNS target shows the finalizer done right.
 */
export const BUCKET = 'Bucket';
const API = 'https://storage.example/buckets';

export function storageDownstream(): CreateDownstreamOptions {
  return { services: [fakeRestService({ baseUrl: 'https://storage.example', idempotencyKeyHeader: 'Idempotency-Key' })] };
}

export function bucket(name: string) {
  return { kind: BUCKET, metadata: { name, namespace: 'default' }, spec: { region: 'eu' } };
}

type Bucket = StoredObject<{ region: string }, { bucketId?: string; observedGeneration?: number }>;

/** A bucket as the storage API returns it. */
interface StorageBucket {
  id: string;
  region: string;
}

function bucketController(onFailure: (status: number) => { requeueAfter: number } | never) {
  return defineController({
    name: 'bucket',
    for: BUCKET,
    resyncPeriodMs: 5_000,
    async reconcile(ctx) {
      // external writes are decided on live state: a lagging cache must not send an old region
      let b = (await ctx.client.tryGet(BUCKET, ctx.key, { live: true })) as Bucket | undefined;
      if (!b) return undefined;
      // level-triggered: look at the bucket itself (someone may have deleted or changed it)
      let found: StorageBucket | undefined;
      if (b.status.bucketId !== undefined) {
        const res = await ctx.fetch(`${API}/${b.status.bucketId}`);
        if (res.ok) found = (await res.json()) as StorageBucket;
        else if (res.status !== 404) return onFailure(res.status);
      }
      if (!found) {
        // the key names the bucket this one replaces, so a retry replays the create and a lost bucket is replaced
        const res = await ctx.fetch(API, { method: 'POST', headers: { 'Idempotency-Key': `${b.metadata.uid}/${b.status.bucketId ?? 'first'}` }, body: JSON.stringify({ owner: ctx.key, region: b.spec.region }) });
        if (!res.ok) return onFailure(res.status);
        // a replayed create answers as the first time, maybe with an older spec: compared below
        found = (await res.json()) as StorageBucket;
        // recorded before anything else can fail: if this bucket is gone by the next pass (deleted
        // out of band, or a replay of one already gone), the next create's key names it and makes a new one
        if (b.status.bucketId !== found.id) b = (await ctx.client.updateStatus({ ...b, status: { ...b.status, bucketId: found.id } })) as Bucket;
      }
      if (found.region !== b.spec.region) {
        const res = await ctx.fetch(`${API}/${found.id}`, { method: 'PATCH', body: JSON.stringify({ region: b.spec.region }) });
        if (!res.ok) return onFailure(res.status);
      }
      if (b.status.bucketId !== found.id || b.status.observedGeneration !== b.metadata.generation) await ctx.client.updateStatus({ ...b, status: { bucketId: found.id, observedGeneration: b.metadata.generation } });
      return undefined;
    },
  });
}

export const bucketCorrect = bucketController((status) => {
  throw new Error(`create bucket: ${status}`);
});

export const bucketRetryStormBuggy = bucketController(() => ({ requeueAfter: 10 }));
