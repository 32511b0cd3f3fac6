import { virtualTimestamp, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../../src/index.js';
import { addFinalizer, removeFinalizer } from '../shared/finalizers.js';
import { jsonApi } from '../shared/json-api.js';
import { latest } from '../shared/latest.js';

/**
 * A `Backup` keeps one snapshot of a database at an external backup service. The reconcile
 * looks for an existing snapshot before taking one (enough within one process), re-checks it
 * periodically, and deletes it behind a finalizer. The two variants of the pair differ in how the controller is
 * deployed (two replicas, with or without leader election) and in whether the snapshot request
 * carries an idempotency key (the defence when two processes do act at once).
 */
export const BACKUP_KIND = 'Backup';
export const BACKUP_API = 'https://backup.example/v1';
export const BACKUP_FINALIZER = 'backup.example/snapshot';

export interface BackupSpec {
  database: string;
}
export interface BackupStatus {
  snapshotId?: string;
  phase?: 'Completed';
  observedGeneration?: number;
}
export type Backup = StoredObject<BackupSpec, BackupStatus>;

export interface Snapshot {
  /** uid of the Backup. */
  owner: string;
  database: string;
  /** RFC 3339. */
  takenAt: string;
}

/** What the two variants decide differently. */
export interface SnapshotPolicy {
  /** Send the Backup's uid as the snapshot request's idempotency key. */
  idempotencyKey: boolean;
}

/** Re-check a completed backup's snapshot this often (someone may delete it at the service). */
export const BACKUP_RESYNC_MS = 10_000;

/**
 * Keeps one snapshot per backup: looks for it (by the id status remembers, else by owner) before
 * taking one, and deletes it when the backup goes.
 */
export async function reconcileBackup(ctx: ReconcileContext, policy: SnapshotPolicy): Promise<ReconcileResult> {
  const b = await latest<BackupSpec, BackupStatus>(ctx, BACKUP_KIND);
  if (!b) return;
  const api = jsonApi(ctx.fetch, BACKUP_API);
  if (b.metadata.deletionTimestamp !== undefined) {
    if (!b.metadata.finalizers.includes(BACKUP_FINALIZER)) return;
    await api.removeOwned('snapshots', b.metadata.uid);
    await removeFinalizer(ctx, b, BACKUP_FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, b, BACKUP_FINALIZER)) return;
  const recorded = b.status.snapshotId !== undefined ? await api.get<Snapshot>('snapshots', b.status.snapshotId) : undefined;
  let snap = recorded ?? (await api.list<Snapshot>('snapshots', { owner: b.metadata.uid }))[0];
  if (snap && snap.database !== b.spec.database) {
    // the spec now names another database: this snapshot is not the backup asked for
    await api.removeIfPresent('snapshots', snap.id);
    snap = undefined;
  }
  if (!snap) {
    // the key names the snapshot this one replaces, so a lost or outdated snapshot can be replaced
    const key = `${b.metadata.uid}/${b.status.snapshotId ?? 'first'}`;
    snap = await api.create<Snapshot>('snapshots', { owner: b.metadata.uid, database: b.spec.database, takenAt: virtualTimestamp(ctx.clock.now()) }, policy.idempotencyKey ? { idempotencyKey: key } : {});
  }
  if (b.status.snapshotId !== snap.id || b.status.phase !== 'Completed' || b.status.observedGeneration !== b.metadata.generation) {
    await ctx.client.updateStatus({ ...b, status: { snapshotId: snap.id, phase: 'Completed', observedGeneration: b.metadata.generation } });
  }
  return { requeueAfter: BACKUP_RESYNC_MS };
}
