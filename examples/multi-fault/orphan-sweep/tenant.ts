import { isStoreError, type Client, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../../src/index.js';
import { addFinalizer, removeFinalizer } from '../../bug-zoo/shared/finalizers.js';
import { latest } from '../../bug-zoo/shared/latest.js';
import { sameJson } from '../../bug-zoo/shared/same-json.js';

/**
 * A `Tenant` gets a `TenantQuota` in its own namespace (`tenant-<name>`, which the controller
 * creates and leaves in place). An owner reference
 * cannot cross namespaces, so the quota carries its tenant's uid in a label and the controller
 * cleans it up itself, behind a finalizer. Both controllers also sweep orphans when they start (a
 * quota whose tenant was deleted while the controller was down, or whose finalizer someone
 * removed by hand): on the first reconcile of a process, every quota whose tenant is not among the
 * Tenants it knows is deleted. They differ in how they know.
 */
export const TENANT = 'Tenant';
export const QUOTA = 'TenantQuota';
const OWNER_LABEL = 'tenant.example/owner';
const FINALIZER = 'tenant.example/quota';

export interface TenantSpec {
  cpu: number;
  memoryGi: number;
}
export type Tenant = StoredObject<TenantSpec, { observedGeneration?: number }>;

/** The Tenant uids that exist, as the controller sees them. */
export type TenantsOf = (ctx: ReconcileContext) => Promise<Set<string>>;

/** The reconcile both share: the start-up orphan sweep (`tenants` says which exist), then the sync. */
export function reconcileTenant(tenants: TenantsOf) {
  // processes (clients) that have swept already
  const swept = new WeakSet<Client>();
  return async (ctx: ReconcileContext): Promise<ReconcileResult> => {
    if (!swept.has(ctx.client)) {
      const live = await tenants(ctx);
      for (const q of await ctx.client.list(QUOTA)) {
        if (live.has(q.metadata.labels[OWNER_LABEL] ?? '')) continue;
        await deleteQuota(ctx, q.metadata.namespace!);
      }
      swept.add(ctx.client);
    }
    const t = await latest<TenantSpec, { observedGeneration?: number }>(ctx, TENANT);
    if (!t) return;
    const ns = `tenant-${t.metadata.name}`;
    if (t.metadata.deletionTimestamp !== undefined) {
      if (!t.metadata.finalizers.includes(FINALIZER)) return;
      await deleteQuota(ctx, ns);
      await removeFinalizer(ctx, t, FINALIZER);
      return;
    }
    if (await addFinalizer(ctx, t, FINALIZER)) return;
    const want = { cpu: t.spec.cpu, memoryGi: t.spec.memoryGi };
    const have = await ctx.client.tryGet(QUOTA, { namespace: ns, name: 'quota' });
    if (!have) {
      await ensureNamespace(ctx, ns);
      try {
        await ctx.client.create({ kind: QUOTA, metadata: { name: 'quota', namespace: ns, labels: { [OWNER_LABEL]: t.metadata.uid } }, spec: want });
      } catch (err) {
        // the cache has not seen it yet: look again once it has
        if (isStoreError(err, 'AlreadyExists')) return { requeue: true };
        throw err;
      }
    } else if (!sameJson(have.spec, want) || have.metadata.labels[OWNER_LABEL] !== t.metadata.uid) {
      await ctx.client.update({ ...have, metadata: { ...have.metadata, labels: { ...have.metadata.labels, [OWNER_LABEL]: t.metadata.uid } }, spec: want });
    }
    if (t.status.observedGeneration !== t.metadata.generation) await ctx.client.patchStatus(TENANT, ctx.key, { status: { observedGeneration: t.metadata.generation } });
    return undefined;
  };
}

/**
 * The tenant's namespace, created once (kube-apiserver refuses a quota in a namespace nobody
 * created). Read live, only before a quota is made: no Namespace informer of its own.
 */
async function ensureNamespace(ctx: ReconcileContext, name: string): Promise<void> {
  if (await ctx.client.tryGet('Namespace', name, { live: true })) return;
  try {
    await ctx.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch (err) {
    if (!isStoreError(err, 'AlreadyExists')) throw err;
  }
}

async function deleteQuota(ctx: ReconcileContext, namespace: string): Promise<void> {
  try {
    await ctx.client.delete(QUOTA, { namespace, name: 'quota' });
  } catch (err) {
    if (!isStoreError(err, 'NotFound')) throw err;
  }
}
