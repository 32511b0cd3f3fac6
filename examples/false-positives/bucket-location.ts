import { defineController, fakeRestService, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi, type Remote } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { createFresh } from './_shared/create-fresh.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';

/**
 * Config Connector / Crossplane style replacement: a storage bucket's location cannot change at
 * the provider, so a Bucket whose spec.location changes gets a new bucket there and the old one
 * is deleted (what the old one held is the user's to move; the controller never destroys a
 * bucket that is where the spec wants it). The bucket is found by the Bucket's uid tag, its id
 * and location land in status, and a finalizer deletes it with the Bucket.
 */
export const STORAGE_API = 'https://storage.example/v1';
const FINALIZER = 'storage.example/bucket-cleanup';

interface BucketSpec {
  location: string;
}
interface BucketStatus {
  bucketId?: string;
  location?: string;
}
interface CloudBucket {
  owner: string;
  location: string;
}

type Bucket = StoredObject<BucketSpec, BucketStatus>;

function define(mistake: 'none' | 'remembered-location') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    // BUG (remembered-location): the cached Bucket, whose status may not show this controller's last write yet
    const b: Bucket | undefined = await ctx.client.tryGet<BucketSpec, BucketStatus>('Bucket', ctx.key, { live: mistake === 'none' });
    if (!b) return;
    const api = jsonApi(ctx.fetch, STORAGE_API);
    const uid = b.metadata.uid;
    if (b.metadata.deletionTimestamp !== undefined) {
      await api.removeOwned('buckets', uid);
      await removeFinalizer(ctx, b, FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, b, FINALIZER)) return;
    const location = b.spec.location;
    let keep: Remote<CloudBucket> | undefined;
    if (mistake === 'none') {
      // the provider says where the buckets are: keep the one in the right place, delete the others
      const found = await api.list<CloudBucket>('buckets', { owner: uid });
      keep = found.find((x) => x.location === location);
      for (const other of found) if (other !== keep) await api.removeIfPresent('buckets', other.id);
    } else if (b.status.location !== location) {
      // BUG: "status says it is elsewhere" is what it remembers, not what the provider holds
      for (const other of await api.list<CloudBucket>('buckets', { owner: uid })) await api.removeIfPresent('buckets', other.id);
    } else if (b.status.bucketId !== undefined) {
      keep = await api.get<CloudBucket>('buckets', b.status.bucketId);
    }
    // the key names the location, so a lost response to this create replays it; one replaced since moves on (createFresh)
    keep ??= await createFresh<CloudBucket>(api, 'buckets', { owner: uid, location }, `${uid}/${location}`);
    if (b.status.bucketId !== keep.id || b.status.location !== location) await ctx.client.updateStatus({ ...b, status: { bucketId: keep.id, location } });
  }
  return defineController({ name: 'bucket-location', for: 'Bucket', leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

export const bucketLocationController = define('none');

export const bucketLocation: FalsePositiveCase = {
  name: 'bucket-location',
  description: 'Config Connector / Crossplane style replacement: a bucket cannot move, so a Bucket whose location changes gets a new bucket at the provider and the old one is deleted; found by uid tag, a finalizer deletes it with the Bucket',
  controllers: [bucketLocationController],
  options: {
    objects: { kind: 'Bucket', name: 'data', spec: [{ location: 'eu' }, { location: 'us' }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: STORAGE_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: 5_000 }),
  },
  // the bucket's id is the provider's to assign
  properties: endStateProperties('status.bucketId'),
  buggy: {
    controllers: [define('remembered-location')],
    caughtBy: ['no-extra-destructive-actions'],
    why: "it decides that a bucket must be replaced from the status in its cache: a cache that has not yet seen its own status write after a replacement (or a crash between the create and that write) makes it delete the bucket it just made in the right place and create it again; the end state converges, the bucket's contents are gone",
  },
};
