import { defineController, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { apply, HeldByAnotherOwner } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { shortHash } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * Sharding without leader election, as large fleets run a controller (Argo CD's application
 * controller shards, KubeVela's sharding): two deployments of one controller, each owning the
 * `Tenant`s whose key hashes to its shard number and ignoring the rest, so both work at once and
 * no object has two writers. Each renders its tenants' quota `ConfigMap` and reports, in status,
 * which shard serves the tenant. The split depends on nothing but the key, so every replica of
 * every shard, whatever its cache shows, agrees on who owns what.
 *
 * Its buggy twin splits by position: a shard lists the Tenants (from its cache) and owns those at
 * its positions in that list. Two caches list in different orders (a relist, a lagging replica),
 * so a tenant can be served by both shards, which keep overwriting each other's status, or by
 * neither, and is never rendered.
 */
export const TENANT = 'Tenant';
const SHARDS = 2;

interface TenantSpec {
  cpu: string;
  memory: string;
}
interface TenantStatus {
  shard?: number;
  observedGeneration?: number;
}

function makeReconcile(shard: number, byPosition: boolean) {
  return async (ctx: ReconcileContext): Promise<ReconcileResult> => {
    let mine: boolean;
    if (byPosition) {
      const keys = (await ctx.client.list(TENANT)).map((t) => `${t.metadata.namespace ?? ''}/${t.metadata.name}`);
      const at = keys.indexOf(ctx.key);
      mine = at >= 0 && at % SHARDS === shard;
    } else {
      // a stable hash of the key: every shard computes the same owner, whatever it has seen
      mine = Number.parseInt(shortHash(ctx.key).slice(0, 6), 36) % SHARDS === shard;
    }
    if (!mine) return;
    const t = await ctx.client.tryGet<TenantSpec, TenantStatus>(TENANT, ctx.key, { live: true });
    if (!t || t.metadata.deletionTimestamp !== undefined) return;
    try {
      await apply(ctx, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${t.metadata.name}-quota`, namespace: t.metadata.namespace, ownerReferences: [controllerRef(t)] },
        data: { cpu: t.spec.cpu, memory: t.spec.memory },
      });
    } catch (err) {
      if (err instanceof HeldByAnotherOwner) return { requeueAfter: 1000 };
      throw err;
    }
    await writeStatus(ctx, t, { shard, observedGeneration: t.metadata.generation });
    return undefined;
  };
}

const shardController = (shard: number, byPosition: boolean) =>
  defineController({ name: `tenants-shard-${shard}`, for: TENANT, owns: ['ConfigMap'], resyncPeriodMs: RESYNC_MS, reconcile: makeReconcile(shard, byPosition) });

export const tenantShards = [shardController(0, false), shardController(1, false)];
/** Splits by the position of the key in its cached list. */
export const tenantShardsByPosition = [shardController(0, true), shardController(1, true)];

export const shardedWorkers: FalsePositiveCase = {
  name: 'sharded-workers',
  description: 'two shards of one controller, without leader election, each serving the Tenants whose key hashes to it',
  controllers: tenantShards,
  options: {
    objects: { kind: TENANT, name: 'team', spec: [{ cpu: '2', memory: '4Gi' }, { cpu: '4', memory: '8Gi' }, { cpu: '1', memory: '2Gi' }] },
    maxObjects: 3,
  },
  properties: endStateProperties(),
  buggy: {
    controllers: tenantShardsByPosition,
    caughtBy: ['convergence', 'no-fighting', 'same-end-state', 'idempotence', 'no-hot-loop'],
    why: 'it owns the Tenants at its positions in its cached list: two caches in different orders make a tenant served by both shards (they overwrite each other) or by neither',
    // two shards that fight write on every reconcile: short phases keep the gate fast
    world: { faultWindowMs: 5_000, settleMs: 5_000 },
  },
};
