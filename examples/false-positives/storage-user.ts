import { defineController, fakeRestService, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `StorageUser` gets a user and an access key at an external object-storage IAM API, and hands
 * the key to its workloads in a Secret (written as `stringData`). The key is the credential: when
 * the Secret no longer holds the key the API has (someone deleted the Secret or the key), the
 * controller rotates it (deletes the old key, creates a new one) rather than guessing. Everything
 * external is found by owner tag and removed behind a finalizer.
 */
export const STORAGE_USER = 'StorageUser';
export const IAM_API = 'https://iam.storage.example/v1';
const FINALIZER = 'storage.example/credentials';

interface StorageUserSpec {
  bucket: string;
  access: 'read' | 'write';
}
interface StorageUserStatus {
  userId?: string;
  observedGeneration?: number;
}
interface IamUser {
  owner: string;
  bucket: string;
  access: string;
}
interface AccessKey {
  owner: string;
  user: string;
}

async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
  const u = await ctx.client.tryGet<StorageUserSpec, StorageUserStatus>(STORAGE_USER, ctx.key, { live: true });
  if (!u) return;
  const iam = jsonApi(ctx.fetch, IAM_API);
  const owner = u.metadata.uid;
  if (u.metadata.deletionTimestamp !== undefined) {
    if (!u.metadata.finalizers.includes(FINALIZER)) return;
    await iam.removeOwned('keys', owner);
    await iam.removeOwned('users', owner);
    await removeFinalizer(ctx, u, FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, u, FINALIZER)) return;
  const users = await iam.list<IamUser>('users', { owner });
  for (const extra of users.slice(1)) await iam.removeIfPresent('users', extra.id);
  let user = users[0];
  if (!user) user = await iam.create<IamUser>('users', { owner, bucket: u.spec.bucket, access: u.spec.access }, { idempotencyKey: `${owner}/user/after-${u.status.userId ?? 'none'}` });
  else if (user.bucket !== u.spec.bucket || user.access !== u.spec.access) user = await iam.patch<IamUser>('users', user.id, { bucket: u.spec.bucket, access: u.spec.access });
  const secretRef = { namespace: u.metadata.namespace, name: `${u.metadata.name}-credentials` };
  const secret = await ctx.client.tryGet('Secret', secretRef, { live: true });
  const held = secret ? Buffer.from(String((secret['data'] as Record<string, string> | undefined)?.['accessKeyId'] ?? ''), 'base64').toString('utf8') : '';
  const keys = await iam.list<AccessKey>('keys', { owner });
  let key = keys.find((k) => k.id === held && k.user === user.id);
  if (!key) {
    // rotate: no key the workloads can use is known, so every old one goes before a new one is made
    for (const k of keys) await iam.removeIfPresent('keys', k.id);
    key = await iam.create<AccessKey>('keys', { owner, user: user.id }, { idempotencyKey: `${owner}/key/after-${held || 'none'}` });
  } else {
    for (const k of keys) if (k.id !== key.id) await iam.removeIfPresent('keys', k.id);
  }
  await apply(ctx, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { ...secretRef, ownerReferences: [controllerRef(u)] },
    type: 'Opaque',
    data: { accessKeyId: Buffer.from(key.id, 'utf8').toString('base64'), bucket: Buffer.from(u.spec.bucket, 'utf8').toString('base64') },
  });
  await writeStatus(ctx, u, { userId: user.id, observedGeneration: u.metadata.generation });
  return { requeueAfter: 15_000 };
}

export const storageUserController = defineController({
  name: 'storage-user',
  for: STORAGE_USER,
  owns: ['Secret'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const storageUser: FalsePositiveCase = {
  name: 'storage-user',
  description: 'a StorageUser keeps a user and one access key at an external IAM API and the key in a Secret, rotating it when the Secret lost it',
  controllers: [storageUserController],
  options: {
    objects: { kind: STORAGE_USER, name: 'app', spec: [{ bucket: 'uploads', access: 'write' }, { bucket: 'uploads', access: 'read' }, { bucket: 'archive', access: 'read' }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: IAM_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: 5_000 }),
  },
  properties: endStateProperties('status.userId', 'data.accessKeyId'),
};
