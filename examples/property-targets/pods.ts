import { defineController, isStoreError, type ReconcileContext, type StoredObject } from '../../src/index.js';

/**
 * A ReplicaSet-like controller that keeps `spec.replicas` Pods owned by each ReplicaSet, in
 * variants: the correct one uses deterministic names (`web-0`, `web-1`, …) so a create it does
 * not see yet fails with AlreadyExists instead of duplicating, deletes what the spec no longer
 * asks for, and reports status. Each buggy variant breaks one property.
 */
export interface PodSetSpec {
  replicas: number;
  image?: string;
}
export const RS = 'ReplicaSet';
export const POD = 'Pod';

async function owned(ctx: ReconcileContext, rs: StoredObject<PodSetSpec>, live = false): Promise<StoredObject[]> {
  const pods = await ctx.client.list(POD, { ...(ctx.namespace !== undefined ? { namespace: ctx.namespace } : {}), live });
  return pods.filter((p) => p.metadata.ownerReferences.some((r) => r.uid === rs.metadata.uid)).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
}

function podFor(rs: StoredObject<PodSetSpec>, name: { name: string } | { generateName: string }) {
  return {
    kind: POD,
    metadata: { ...name, namespace: rs.metadata.namespace ?? 'default', ownerReferences: [{ kind: RS, name: rs.metadata.name, uid: rs.metadata.uid, controller: true }] },
    spec: { containers: [{ name: 'app', image: rs.spec.image ?? 'app:1' }] },
  };
}

async function reportStatus(ctx: ReconcileContext, rs: StoredObject<PodSetSpec>, count: number): Promise<void> {
  if (rs.status['replicas'] === count && rs.status['observedGeneration'] === rs.metadata.generation) return;
  await ctx.client.updateStatus({ ...rs, status: { replicas: count, observedGeneration: rs.metadata.generation } });
}

export const podsCorrect = defineController({
  name: 'replicaset',
  for: RS,
  owns: [POD],
  resyncPeriodMs: 5_000,
  async reconcile(ctx) {
    // deletes are decided on live state, never on a cache that may lag or regress
    const rs = await ctx.client.tryGet<PodSetSpec>(RS, ctx.key, { live: true });
    if (!rs || rs.metadata.deletionTimestamp) return;
    const pods = await owned(ctx, rs, true);
    const want = new Set(Array.from({ length: rs.spec.replicas }, (_, i) => `${rs.metadata.name}-${i}`));
    for (const name of want) {
      if (pods.some((p) => p.metadata.name === name)) continue;
      try {
        await ctx.client.create(podFor(rs, { name }));
      } catch (err) {
        if (!isStoreError(err) || err.reason !== 'AlreadyExists') throw err;
      }
    }
    for (const p of pods) if (!want.has(p.metadata.name)) await ctx.client.delete(POD, { namespace: p.metadata.namespace, name: p.metadata.name });
    await reportStatus(ctx, rs, Math.min(pods.length, rs.spec.replicas));
  },
});

/**
 * Counts Pods in its cache and creates generated names for the shortfall, deleting the newest
 * when over: a Pod its cache missed is created twice, and the extra one deleted after the next
 * relist (caught by no-extra-destructive-actions).
 */
export const podsGeneratedNamesBuggy = defineController({
  name: 'replicaset',
  for: RS,
  owns: [POD],
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<PodSetSpec>(RS, ctx.key);
    if (!rs || rs.metadata.deletionTimestamp) return;
    const pods = await owned(ctx, rs);
    for (let i = pods.length; i < rs.spec.replicas; i++) await ctx.client.create(podFor(rs, { generateName: `${rs.metadata.name}-` }));
    for (const p of pods.slice(rs.spec.replicas)) await ctx.client.delete(POD, { namespace: p.metadata.namespace, name: p.metadata.name });
    await reportStatus(ctx, rs, Math.min(pods.length, rs.spec.replicas));
  },
});

/** Replaces every Pod on any spec change by creating the new set before deleting the old: briefly 2× replicas (caught by safety-invariants). */
export const podsSurgeBuggy = defineController({
  name: 'replicaset',
  for: RS,
  owns: [POD],
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<PodSetSpec>(RS, ctx.key);
    if (!rs || rs.metadata.deletionTimestamp) return;
    if (rs.status['observedGeneration'] === rs.metadata.generation) return;
    const old = await owned(ctx, rs);
    for (let i = 0; i < rs.spec.replicas; i++) await ctx.client.create(podFor(rs, { name: `${rs.metadata.name}-g${rs.metadata.generation}-${i}` }));
    for (const p of old) await ctx.client.delete(POD, { namespace: p.metadata.namespace, name: p.metadata.name });
    await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation } });
  },
});

/** Scales up but never down: after 2 → 4 → 2 it keeps 4 Pods (caught by recovery). */
export const podsNoScaleDownBuggy = defineController({
  name: 'replicaset',
  for: RS,
  owns: [POD],
  async reconcile(ctx) {
    const rs = await ctx.client.tryGet<PodSetSpec>(RS, ctx.key);
    if (!rs || rs.metadata.deletionTimestamp) return;
    const pods = await owned(ctx, rs);
    for (let i = 0; i < rs.spec.replicas; i++) {
      const name = `${rs.metadata.name}-${i}`;
      if (pods.some((p) => p.metadata.name === name)) continue;
      try {
        await ctx.client.create(podFor(rs, { name }));
      } catch (err) {
        if (!isStoreError(err) || err.reason !== 'AlreadyExists') throw err;
      }
    }
    await reportStatus(ctx, rs, rs.spec.replicas);
  },
});

/** A ReplicaSet to create. */
export function replicaSet(name: string, replicas: number) {
  return { kind: RS, metadata: { name, namespace: 'default' }, spec: { replicas } };
}
