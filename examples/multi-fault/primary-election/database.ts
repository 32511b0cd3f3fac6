import { isStoreError, type ReconcileContext, type StoredObject } from '../../../src/index.js';

/**
 * A `Database` runs `spec.replicas` `DbInstance` objects named by ordinal (`orders-0`, …); exactly
 * one of them carries the label `role=primary`, and `status.primary` records which. The first
 * ordinal bootstraps the cluster; when no instance holds the role any more (the primary was
 * deleted, its label lost), the controller fails over to a surviving instance. Shared by both
 * controllers; they differ only in which instance a failover promotes.
 */
export const DATABASE = 'Database';
export const INSTANCE = 'DbInstance';

export interface DatabaseSpec {
  replicas: number;
  version: string;
}
export interface DatabaseStatus {
  primary?: string;
  observedGeneration?: number;
}
export type Database = StoredObject<DatabaseSpec, DatabaseStatus>;
export type Instance = StoredObject<{ version: string }>;

/** The ordinal of an instance name (`orders-2` → 2). */
export function ordinalOf(name: string): number {
  return Number(name.slice(name.lastIndexOf('-') + 1));
}

/** The reconcile both share; `failoverPick` chooses the instance a failover promotes. */
export function reconcileDatabase(failoverPick: (instances: readonly Instance[]) => Instance) {
  return async (ctx: ReconcileContext): Promise<void> => {
    const db = await ctx.client.tryGet<DatabaseSpec, DatabaseStatus>(DATABASE, ctx.key);
    if (!db || db.metadata.deletionTimestamp !== undefined) return;
    const ns = db.metadata.namespace;
    const instances = await ctx.client.list<{ version: string }>(INSTANCE, { ...(ns !== undefined ? { namespace: ns } : {}), labelSelector: { matchLabels: { database: db.metadata.name } } });
    for (let i = 0; i < db.spec.replicas; i++) {
      const name = `${db.metadata.name}-${i}`;
      const have = instances.find((m) => m.metadata.name === name);
      if (have) {
        if (have.spec.version !== db.spec.version) await ctx.client.patch(INSTANCE, { namespace: ns, name }, { spec: { version: db.spec.version } });
        continue;
      }
      try {
        await ctx.client.create({
          kind: INSTANCE,
          metadata: { name, namespace: ns, labels: { database: db.metadata.name, role: 'replica' }, ownerReferences: [{ kind: DATABASE, name: db.metadata.name, uid: db.metadata.uid, controller: true }] },
          spec: { version: db.spec.version },
        });
      } catch (err) {
        if (!isStoreError(err, 'AlreadyExists')) throw err;
      }
    }
    const primaries = instances.filter((m) => m.metadata.labels['role'] === 'primary');
    let want: string | undefined = db.status.primary;
    if (want === undefined) {
      // bootstrap: the first ordinal starts the cluster, once it exists
      want = instances.some((m) => m.metadata.name === `${db.metadata.name}-0`) ? `${db.metadata.name}-0` : undefined;
    } else if (primaries.length === 0 && instances.length > 0) {
      // failover: nobody holds the role any more
      want = failoverPick(instances).metadata.name;
    }
    if (want === undefined) return;
    if (db.status.primary !== want) await ctx.client.patchStatus(DATABASE, ctx.key, { status: { primary: want } });
    for (const m of instances) {
      const role = m.metadata.name === want ? 'primary' : 'replica';
      if (m.metadata.labels['role'] !== role) await ctx.client.patch(INSTANCE, { namespace: ns, name: m.metadata.name }, { metadata: { labels: { role } } });
    }
    if (db.status.observedGeneration !== db.metadata.generation) await ctx.client.patchStatus(DATABASE, ctx.key, { status: { observedGeneration: db.metadata.generation } });
  };
}
