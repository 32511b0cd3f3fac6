import { defineController, fakeRestService, isStoreError, type FakeRestService, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { pvcBinding } from '../../src/environment/pvc-binding.js';
import { convergence } from '../../properties/convergence.js';
import { sameEndState, type SameEndStateOptions } from '../../properties/same-end-state.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';
import { withServerFields } from './_shared/server-fields.js';

/**
 * CSI volume snapshots, as kubernetes-csi/external-snapshotter splits them: the common
 * `snapshot-controller` and the driver's `csi-snapshotter` sidecar.
 *
 * A user makes a namespaced `VolumeSnapshot` naming a PersistentVolumeClaim
 * (`spec.source.persistentVolumeClaimName`) and a class (whose `deletionPolicy`, Delete or Retain,
 * is copied onto the content). The snapshot controller binds it two-way to a cluster-scoped
 * `VolumeSnapshotContent` named `snapcontent-<snapshot uid>` (a name a retry after a lost answer
 * or a crash finds again), whose `spec.volumeSnapshotRef` carries the snapshot's uid, and records
 * `status.boundVolumeSnapshotContentName`; a content whose ref holds another uid is never taken
 * (a snapshot deleted and made again under its name is another snapshot). It waits for the source
 * claim to be Bound, and keeps `pvc-as-source-protection` on the claim while a snapshot of it is
 * being cut, so the volume is not deleted under the storage's copy. The sidecar cuts the snapshot
 * at the storage API asynchronously: `POST /snapshots` with the CSI name `snapshot-<snapshot uid>`
 * as its idempotency key (CSI CreateSnapshot is idempotent by name), records the id
 * (`status.snapshotHandle`: status is its memory) and polls (`requeueAfter`) until the provider
 * says `readyToUse`, which the snapshot controller copies back to the VolumeSnapshot.
 *
 * Finalizers keep everything in use: the VolumeSnapshot carries `volumesnapshot-bound-protection`
 * (its content is dealt with before it goes) and `volumesnapshot-as-source-protection` (kept while
 * a claim is being restored from it: Pending with `spec.dataSource` naming it); the content
 * carries `volumesnapshotcontent-bound-protection`, which the snapshot controller lifts only once
 * its snapshot is being deleted (someone deleting a content in use waits), and the sidecar's own
 * finalizer (as external-provisioner's on PVs), under which it deletes the storage snapshot for a
 * Delete policy once it is the last finalizer left. Deleting a snapshot deletes a Delete-policy
 * content (and waits until it is gone), or lets a Retain-policy content stay with its storage
 * snapshot. Every object is read live before a write that depends on it.
 *
 * Its buggy twin's sidecar sends the POST without the CSI name as idempotency key (a driver that
 * calls its cloud's CreateSnapshot without a client token): a create whose answer was lost, or
 * whose status write was, cuts a second storage snapshot.
 */
export const VOLUME_SNAPSHOT = 'VolumeSnapshot';
export const SNAPSHOT_CONTENT = 'VolumeSnapshotContent';
const PVC = 'PersistentVolumeClaim';
const API_VERSION = 'snapshot.storage.k8s.io/v1';
export const STORAGE_API = 'https://storage.example/v1';
const DRIVER = 'csi.storage.example';
const SNAPSHOT_BOUND = 'snapshot.storage.kubernetes.io/volumesnapshot-bound-protection';
const SNAPSHOT_AS_SOURCE = 'snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection';
const CONTENT_BOUND = 'snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection';
const PVC_AS_SOURCE = 'snapshot.storage.kubernetes.io/pvc-as-source-protection';
const SIDECAR = `${DRIVER}/snapshot-cleanup`;
/** Polls of a storage snapshot until the provider says it is ready (the second one says so). */
const POLLS_TO_READY = 2;

/** The VolumeSnapshotClasses the cluster's admin installed (cluster config, not under test). */
const CLASSES: Readonly<Record<string, 'Delete' | 'Retain'>> = { 'csi-delete': 'Delete', 'csi-retain': 'Retain' };

interface SnapshotSpec {
  source: { persistentVolumeClaimName: string };
  volumeSnapshotClassName: string;
}
interface SnapshotStatus {
  boundVolumeSnapshotContentName?: string;
  readyToUse?: boolean;
  restoreSize?: string;
  error?: { message: string };
}
interface ContentSpec {
  volumeSnapshotRef: { apiVersion: string; kind: string; namespace: string; name: string; uid: string };
  source: { volumeHandle: string };
  deletionPolicy: 'Delete' | 'Retain';
  driver: string;
  volumeSnapshotClassName: string;
}
interface ContentStatus {
  snapshotHandle?: string;
  readyToUse?: boolean;
  restoreSize?: string;
  error?: { message: string };
}
interface StorageSnapshot {
  name: string;
  sourceVolume: string;
  /** The content the storage snapshot belongs to (the driver tags it, as --extra-create-metadata does). */
  owner: string;
  readyToUse?: boolean;
  size?: string;
}
type Snapshot = StoredObject<SnapshotSpec, SnapshotStatus>;
type Content = StoredObject<ContentSpec, ContentStatus>;

const contentNameOf = (snap: { metadata: { uid: string } }) => `snapcontent-${snap.metadata.uid}`;
const deleting = (o: { metadata: { deletionTimestamp?: string | undefined } }) => o.metadata.deletionTimestamp !== undefined;
const withoutFinalizer = (o: StoredObject<unknown, unknown>, f: string) => o.metadata.finalizers.filter((x) => x !== f);

/** Writes the finalizer list (an update at the version read: a stale object is a 409 and a retry). */
async function setFinalizers<S, T>(ctx: ReconcileContext, o: StoredObject<S, T>, finalizers: string[]): Promise<StoredObject<S, T>> {
  return ctx.client.update({ ...o, metadata: { ...o.metadata, finalizers } });
}

/** A claim that is being restored from the snapshot: not yet Bound, its dataSource naming it. */
function restoringFrom(pvc: StoredObject, snap: Snapshot): boolean {
  const ds = pvc.spec['dataSource'] as { kind?: unknown; name?: unknown } | undefined;
  return !deleting(pvc) && pvc.status['phase'] !== 'Bound' && ds?.kind === VOLUME_SNAPSHOT && ds.name === snap.metadata.name;
}

/**
 * Lifts the claim's pvc-as-source-protection when no snapshot of it is being cut any more: a live
 * snapshot of this claim whose content exists, is not being deleted, and is neither ready nor
 * failed. (The controller runs one worker, so no other snapshot's reconcile is between its
 * finalizer check and its content create while this runs; one that crashed there checks again.)
 */
async function releaseClaim(ctx: ReconcileContext, ns: string, claim: string): Promise<void> {
  const pvc = await ctx.client.tryGet(PVC, { namespace: ns, name: claim }, { live: true });
  if (!pvc || !pvc.metadata.finalizers.includes(PVC_AS_SOURCE)) return;
  for (const s of await ctx.client.list<SnapshotSpec, SnapshotStatus>(VOLUME_SNAPSHOT, { namespace: ns, live: true })) {
    if (s.spec.source?.persistentVolumeClaimName !== claim || deleting(s)) continue;
    const c = await ctx.client.tryGet<ContentSpec, ContentStatus>(SNAPSHOT_CONTENT, contentNameOf(s), { live: true });
    if (c && c.spec.volumeSnapshotRef.uid === s.metadata.uid && !deleting(c) && c.status.readyToUse !== true && c.status.error === undefined) return;
  }
  await setFinalizers(ctx, pvc, withoutFinalizer(pvc, PVC_AS_SOURCE));
}

async function deleteSnapshot(ctx: ReconcileContext, snap: Snapshot): Promise<ReconcileResult> {
  const ns = snap.metadata.namespace!;
  if (!snap.metadata.finalizers.includes(SNAPSHOT_BOUND) && !snap.metadata.finalizers.includes(SNAPSHOT_AS_SOURCE)) return;
  if (snap.metadata.finalizers.includes(SNAPSHOT_AS_SOURCE)) {
    // live: a claim created from it a moment ago is being provisioned from its data
    const claims = await ctx.client.list(PVC, { namespace: ns, live: true });
    if (claims.some((p) => restoringFrom(p, snap))) return; // the claim's Bound event brings it back
    snap = (await setFinalizers(ctx, snap, withoutFinalizer(snap, SNAPSHOT_AS_SOURCE))) as Snapshot;
  }
  const content = await ctx.client.tryGet<ContentSpec, ContentStatus>(SNAPSHOT_CONTENT, contentNameOf(snap), { live: true });
  if (content && content.spec.volumeSnapshotRef.uid === snap.metadata.uid) {
    if (content.spec.deletionPolicy === 'Delete' && !deleting(content)) {
      try {
        await ctx.client.delete(SNAPSHOT_CONTENT, content.metadata.name, { preconditions: { uid: content.metadata.uid } });
      } catch (err) {
        if (!isStoreError(err, 'NotFound')) throw err; // gone already: nothing to wait for
      }
    }
    // no longer in use: it goes (Delete, once the sidecar has deleted the storage snapshot) or stays (Retain)
    const fresh = await ctx.client.tryGet(SNAPSHOT_CONTENT, content.metadata.name, { live: true });
    if (fresh && fresh.metadata.finalizers.includes(CONTENT_BOUND)) await setFinalizers(ctx, fresh, withoutFinalizer(fresh, CONTENT_BOUND));
    if (content.spec.deletionPolicy === 'Delete') return; // its DELETED event brings the snapshot back
  }
  await releaseClaim(ctx, ns, snap.spec.source.persistentVolumeClaimName);
  await setFinalizers(ctx, snap, withoutFinalizer(snap, SNAPSHOT_BOUND));
  return;
}

async function reconcileSnapshot(ctx: ReconcileContext): Promise<ReconcileResult> {
  const snap = await ctx.client.tryGet<SnapshotSpec, SnapshotStatus>(VOLUME_SNAPSHOT, ctx.key, { live: true });
  if (!snap) return;
  if (deleting(snap)) return deleteSnapshot(ctx, snap);
  const ns = snap.metadata.namespace!;
  // the finalizers before anything exists that their cleanup must find
  const missing = [SNAPSHOT_AS_SOURCE, SNAPSHOT_BOUND].filter((f) => !snap.metadata.finalizers.includes(f));
  if (missing.length > 0) {
    await setFinalizers(ctx, snap, [...snap.metadata.finalizers, ...missing]);
    return; // the update's event brings it back
  }
  const claim = snap.spec.source.persistentVolumeClaimName;
  const wait = (message: string) => writeStatus(ctx, snap, { ...snap.status, readyToUse: false, error: { message } });
  let content = await ctx.client.tryGet<ContentSpec, ContentStatus>(SNAPSHOT_CONTENT, contentNameOf(snap), { live: true });
  if (!content) {
    // bound once, its content gone (deleted out of band and let go): the data is gone, never re-cut silently
    if (snap.status.boundVolumeSnapshotContentName !== undefined) return wait(`VolumeSnapshotContent ${snap.status.boundVolumeSnapshotContentName} is missing`);
    const policy = CLASSES[snap.spec.volumeSnapshotClassName];
    if (policy === undefined) return wait(`VolumeSnapshotClass ${snap.spec.volumeSnapshotClassName} not found`);
    const pvc = await ctx.client.tryGet(PVC, { namespace: ns, name: claim }, { live: true });
    const volume = pvc?.spec['volumeName'];
    if (!pvc || deleting(pvc) || pvc.status['phase'] !== 'Bound' || typeof volume !== 'string') {
      // a protection this snapshot added before it was stopped (a timed-out write that was applied, a crash
      // before the content was made) is lifted when it will not cut after all: found by the guided hunt, a claim
      // deleted in between stayed Terminating for good under a protection no snapshot would ever lift
      if (pvc?.metadata.finalizers.includes(PVC_AS_SOURCE)) await releaseClaim(ctx, ns, claim);
      return wait(`waiting for PersistentVolumeClaim ${claim} to be bound`);
    }
    // the claim is protected before its volume is copied
    if (!pvc.metadata.finalizers.includes(PVC_AS_SOURCE)) await setFinalizers(ctx, pvc, [...pvc.metadata.finalizers, PVC_AS_SOURCE]);
    const desired = {
      apiVersion: API_VERSION,
      kind: SNAPSHOT_CONTENT,
      metadata: { name: contentNameOf(snap), finalizers: [CONTENT_BOUND] },
      spec: {
        volumeSnapshotRef: { apiVersion: API_VERSION, kind: VOLUME_SNAPSHOT, namespace: ns, name: snap.metadata.name, uid: snap.metadata.uid },
        source: { volumeHandle: volume },
        deletionPolicy: policy,
        driver: DRIVER,
        volumeSnapshotClassName: snap.spec.volumeSnapshotClassName,
      },
    };
    try {
      content = await ctx.client.create<ContentSpec, ContentStatus>(desired);
    } catch (err) {
      if (!isStoreError(err, 'AlreadyExists')) throw err;
      content = await ctx.client.get<ContentSpec, ContentStatus>(SNAPSHOT_CONTENT, desired.metadata.name, { live: true });
    }
  }
  // two-way binding by uid: a content made for a snapshot of this name before it was recreated is not ours
  if (content.spec.volumeSnapshotRef.uid !== snap.metadata.uid) return wait(`VolumeSnapshotContent ${content.metadata.name} is bound to another snapshot`);
  const ready = content.status.readyToUse === true;
  const status: SnapshotStatus = {
    boundVolumeSnapshotContentName: content.metadata.name,
    readyToUse: ready,
    ...(content.status.restoreSize !== undefined ? { restoreSize: content.status.restoreSize } : {}),
    ...(content.status.error !== undefined ? { error: content.status.error } : {}),
  };
  await writeStatus(ctx, snap, status);
  if (ready || content.status.error !== undefined) await releaseClaim(ctx, ns, claim);
  return;
}

/** VolumeSnapshots to look at when a claim changes: those it is the source of, and the one it is restored from. */
function snapshotsOfClaim(pvc: StoredObject, ctx: { list(kind: string, options?: { namespace?: string }): StoredObject[] }): string[] {
  const ns = pvc.metadata.namespace ?? '';
  const keys = ctx
    .list(VOLUME_SNAPSHOT, { namespace: ns })
    .filter((s) => (s.spec['source'] as { persistentVolumeClaimName?: unknown } | undefined)?.persistentVolumeClaimName === pvc.metadata.name)
    .map((s) => `${ns}/${s.metadata.name}`);
  const ds = pvc.spec['dataSource'] as { kind?: unknown; name?: unknown } | undefined;
  if (ds?.kind === VOLUME_SNAPSHOT && typeof ds.name === 'string') keys.push(`${ns}/${ds.name}`);
  return keys;
}

/** The VolumeSnapshot a content is bound to. */
function snapshotOfContent(c: StoredObject): string[] {
  const ref = c.spec['volumeSnapshotRef'] as { namespace?: unknown; name?: unknown } | undefined;
  return typeof ref?.namespace === 'string' && typeof ref.name === 'string' ? [`${ref.namespace}/${ref.name}`] : [];
}

export const snapshotController = defineController({
  name: 'snapshot-controller',
  for: VOLUME_SNAPSHOT,
  watches: [
    { kind: SNAPSHOT_CONTENT, map: snapshotOfContent },
    { kind: PVC, map: snapshotsOfClaim },
  ],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileSnapshot,
});

function reconcileContent(idempotent: boolean) {
  return async (ctx: ReconcileContext): Promise<ReconcileResult> => {
    const c = (await ctx.client.tryGet<ContentSpec, ContentStatus>(SNAPSHOT_CONTENT, ctx.key, { live: true })) as Content | undefined;
    if (!c || c.spec.driver !== DRIVER) return;
    const api = jsonApi(ctx.fetch, STORAGE_API);
    if (deleting(c)) {
      if (!c.metadata.finalizers.includes(SIDECAR)) return;
      // still in use: the snapshot controller lets go of it first
      if (c.metadata.finalizers.some((f) => f !== SIDECAR)) return;
      // by owner, so one whose id never reached status (a lost answer, a crash) goes too
      if (c.spec.deletionPolicy === 'Delete') for (const s of await api.list<StorageSnapshot>('snapshots', { owner: c.metadata.name })) await api.removeIfPresent('snapshots', s.id);
      await setFinalizers(ctx, c, withoutFinalizer(c, SIDECAR));
      return;
    }
    if (!c.metadata.finalizers.includes(SIDECAR)) {
      await setFinalizers(ctx, c, [...c.metadata.finalizers, SIDECAR]);
      return; // the update's event brings it back
    }
    // cut once: a ready or failed snapshot is never looked at again (it does not change)
    if (c.status.readyToUse === true || c.status.error !== undefined) return;
    const handle = c.status.snapshotHandle;
    if (handle === undefined) {
      // CSI CreateSnapshot is idempotent by name: the name comes from the VolumeSnapshot's uid
      const name = `snapshot-${c.spec.volumeSnapshotRef.uid}`;
      const body: StorageSnapshot = { name, sourceVolume: c.spec.source.volumeHandle, owner: c.metadata.name };
      // BUG (twin): no client token, so a retried create cuts another snapshot
      const made = await api.create<StorageSnapshot>('snapshots', body, idempotent ? { idempotencyKey: name } : {});
      await writeStatus(ctx, c, { snapshotHandle: made.id, readyToUse: false });
      return { requeueAfter: 1000 };
    }
    const s = await api.get<StorageSnapshot>('snapshots', handle);
    if (!s) {
      await writeStatus(ctx, c, { snapshotHandle: handle, readyToUse: false, error: { message: `snapshot ${handle} not found at the storage provider` } });
      return;
    }
    if (s.readyToUse !== true) return { requeueAfter: 1000 };
    await writeStatus(ctx, c, { snapshotHandle: handle, readyToUse: true, ...(s.size !== undefined ? { restoreSize: s.size } : {}) });
    return;
  };
}

const defineSidecar = (idempotent: boolean) => defineController({ name: 'csi-snapshotter', for: SNAPSHOT_CONTENT, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: reconcileContent(idempotent) });
export const csiSnapshotterController = defineSidecar(true);

/**
 * The storage API: snapshots in a fake REST service (so duplicates and leaks are seen), cut
 * asynchronously: a new one is not ready, and becomes ready (with its size) at its second poll.
 * Readiness and size are the provider's (server fields): a console edit of a snapshot (its name,
 * a tag) never makes an unfinished one ready.
 */
function storageApi(): FakeRestService {
  const store = fakeRestService({ baseUrl: STORAGE_API, name: 'storage', collections: ['snapshots'], idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 });
  return withServerFields(store, {
    created: () => ({ readyToUse: false }),
    polled: (_id, f, n) => (n >= POLLS_TO_READY ? { readyToUse: true, size: '1Gi' } : { ...f }),
  });
}

/**
 * Settled: every VolumeSnapshot not being deleted is bound to its own content and ready, or has
 * an error saying why not (its claim is not bound, its content was lost), and a bound one's claim
 * is not held by the protection any longer.
 */
export function snapshotsSettled(view: WorldView): true | string {
  const contents = view.list(SNAPSHOT_CONTENT) as unknown as Content[];
  for (const s of view.list(VOLUME_SNAPSHOT) as unknown as Snapshot[]) {
    if (deleting(s)) continue;
    const what = `VolumeSnapshot ${s.metadata.namespace ?? ''}/${s.metadata.name}`;
    const c = contents.find((x) => x.metadata.name === contentNameOf(s));
    if (!c) {
      if (s.status.error === undefined) return `${what} has no content and no error`;
      continue;
    }
    if (s.status.boundVolumeSnapshotContentName !== c.metadata.name) return `${what} does not name its content ${c.metadata.name}`;
    if (c.status.readyToUse !== true && c.status.error === undefined) return `${what}: its content is not ready yet`;
    if (s.status.readyToUse !== c.status.readyToUse) return `${what} says readyToUse ${String(s.status.readyToUse)}, its content ${String(c.status.readyToUse)}`;
  }
  return true;
}

const claim = (storage: string) => ({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } });
const snapshot = (pvc: string, cls: string) => ({ source: { persistentVolumeClaimName: pvc }, volumeSnapshotClassName: cls });

export const volumeSnapshots: FalsePositiveCase = {
  name: 'volume-snapshots',
  description: 'CSI volume snapshots: a VolumeSnapshot binds two-way (by uid) to a cluster-scoped VolumeSnapshotContent, a sidecar cuts it at a storage API asynchronously (CSI name from the snapshot uid as idempotency key, polled until ready), finalizers protect the source claim, a snapshot being restored from and a content in use; Delete/Retain policy on delete',
  controllers: [snapshotController, csiSnapshotterController],
  options: {
    objects: [
      { kind: VOLUME_SNAPSHOT, name: 'snap', spec: [snapshot('data', 'csi-delete'), snapshot('data', 'csi-retain'), snapshot('logs', 'csi-delete')] },
      { kind: PVC, names: ['data', 'logs'], spec: [claim('1Gi'), claim('2Gi')] },
      // a claim restored from the first snapshot
      { kind: PVC, name: 'restored', spec: [{ ...claim('1Gi'), dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: VOLUME_SNAPSHOT, name: 'snap-0' } }] },
    ],
    environment: [pvcBinding],
    // a snapshot's source and class cannot change (the CRD's validation)
    validation: { immutable: { [VOLUME_SNAPSHOT]: ['spec.source', 'spec.volumeSnapshotClassName'] } },
    downstream: () => ({ services: [storageApi()], timeoutMs: 5_000 }),
    maxObjects: 4,
  },
  properties: [
    convergence({ converged: snapshotsSettled }),
    // the storage assigns the ids, in the order the snapshots were cut; a storage snapshot is a
    // moment's data: deleted out of band it is lost, and one cut again would hold other data
    ...endStateProperties('status.snapshotHandle').map((p) => (p.name === 'same-end-state' ? sameEndState({ ...(p.options as unknown as SameEndStateOptions), madeOnce: ['storage/snapshots'] }) : p)),
  ],
  withoutProperties: {
    'deletion-completes': 'a content in use stays Terminating while its snapshot exists (the snapshot-bound-protection finalizer, as the real snapshotter keeps it), and a Retain-policy content keeps its storage snapshot on purpose when deleted: neither is a stuck deletion or a leak. What stays judged: convergence (snapshotsSettled) requires every snapshot not being deleted to be bound and ready or to report its error',
  },
  buggy: {
    controllers: [snapshotController, defineSidecar(false)],
    caughtBy: ['no-duplicate-side-effects'],
    // the gate's small worlds hold a snapshot and its bound claim in few runs; seed 3 meets a lost create answer within them
    seed: 3,
    why: 'its sidecar cuts the storage snapshot without the CSI name as idempotency key: a create retried after its answer (or its status write) was lost cuts a second snapshot',
  },
};
