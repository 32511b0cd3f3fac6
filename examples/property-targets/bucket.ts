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

function bucketController(onFailure: (status: number) => { requeueAfter: number } | never) {
  return defineController({
    name: 'bucket',
    for: BUCKET,
    resyncPeriodMs: 5_000,
    async reconcile(ctx) {
      const b = (await ctx.client.tryGet(BUCKET, ctx.key)) as Bucket | undefined;
      if (!b) return undefined;
      if (b.status.bucketId !== undefined) {
        if (b.status.observedGeneration === b.metadata.generation) return undefined;
        // a later generation is applied to the existing bucket (level-triggered: which region
        // the bucket ends in must not depend on whether it was created before the change)
        const res = await ctx.fetch(`${API}/${b.status.bucketId}`, { method: 'PATCH', body: JSON.stringify({ region: b.spec.region }) });
        if (!res.ok) return onFailure(res.status);
        await ctx.client.updateStatus({ ...b, status: { ...b.status, observedGeneration: b.metadata.generation } });
        return undefined;
      }
      const res = await ctx.fetch(API, { method: 'POST', headers: { 'Idempotency-Key': b.metadata.uid }, body: JSON.stringify({ owner: ctx.key, region: b.spec.region }) });
      if (!res.ok) return onFailure(res.status);
      const { id } = (await res.json()) as { id: string };
      await ctx.client.updateStatus({ ...b, status: { bucketId: id, observedGeneration: b.metadata.generation } });
      return undefined;
    },
  });
}

export const bucketCorrect = bucketController((status) => {
  throw new Error(`create bucket: ${status}`);
});

export const bucketRetryStormBuggy = bucketController(() => ({ requeueAfter: 10 }));
