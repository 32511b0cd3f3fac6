import { defineController, isStoreError, type StoredObject } from '../../src/index.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `ShardSet` owns `count` ConfigMaps `<name>-<i>`, found by a label selector and its controller
 * reference (a previous incarnation's children, awaiting the collector, are not its own), patches
 * drifted ones with the resourceVersion read, and deletes extras (index ≥ count) with a uid
 * precondition. It reads the ShardSet from its cache, as controller-runtime's client does. Found by
 * the sixth red team (rt45, FA-1): a user who scales it down and deletes it at one instant, with the
 * deletion's event a millisecond behind, sees it trim the extra shard its owner no longer needs,
 * which the collector removes in the fault-free run moments later: no-extra-destructive-actions
 * counted that delete (`doomedDeletes` now leaves out deletes the cascade was making anyway).
 */
export const SHARD_SET = 'ShardSet';
const SHARD_LABEL = 'shards.example.com/set';

interface ShardSpec {
  count: number;
  payload: string;
}
interface ShardStatus {
  shards?: number;
  observedGeneration?: number;
}

export const labelFanoutController = defineController({
  name: 'label-fanout',
  for: SHARD_SET,
  owns: ['ConfigMap'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx) {
    const set = await ctx.client.tryGet<ShardSpec, ShardStatus>(SHARD_SET, ctx.key);
    if (!set || set.metadata.deletionTimestamp !== undefined) return;
    const ns = set.metadata.namespace ?? 'default';
    const name = set.metadata.name;
    const labelled = await ctx.client.list('ConfigMap', { namespace: ns, labelSelector: { matchLabels: { [SHARD_LABEL]: name } } });
    const have = new Map<number, StoredObject>();
    for (const c of labelled.filter((x) => controlledBy(x, set))) {
      if (c.metadata.deletionTimestamp !== undefined) continue;
      const m = new RegExp(`^${name}-(\\d+)$`).exec(c.metadata.name);
      const i = m ? Number(m[1]) : -1;
      if (i < 0 || i >= set.spec.count) {
        try {
          await ctx.client.delete('ConfigMap', { namespace: ns, name: c.metadata.name }, { preconditions: { uid: c.metadata.uid } });
        } catch (err) {
          if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
        }
        continue;
      }
      have.set(i, c);
    }
    for (let i = 0; i < set.spec.count; i++) {
      const data = { index: String(i), payload: set.spec.payload };
      const c = have.get(i);
      if (!c) {
        try {
          await ctx.client.create({ kind: 'ConfigMap', metadata: { name: `${name}-${i}`, namespace: ns, labels: { [SHARD_LABEL]: name }, ownerReferences: [controllerRef(set)] }, data });
        } catch (err) {
          // a shard of a previous incarnation still awaiting the collector holds the name
          if (isStoreError(err, 'AlreadyExists')) return { requeueAfter: 1_000 };
          throw err;
        }
      } else if (!sameJson((c as unknown as { data?: unknown }).data, data)) {
        await ctx.client.patch('ConfigMap', { namespace: ns, name: c.metadata.name }, { data }, { resourceVersion: c.metadata.resourceVersion });
      }
    }
    await writeStatus(ctx, set, { shards: set.spec.count, observedGeneration: set.metadata.generation });
    return undefined;
  },
});

export const labelFanout: FalsePositiveCase = {
  name: 'label-fanout',
  description: 'a ShardSet fans out to `count` labelled ConfigMaps found by selector and controller reference, patching drifted ones and deleting extras with a uid precondition; the ShardSet read from the cache',
  controllers: [labelFanoutController],
  options: { objects: { kind: SHARD_SET, name: 'web', spec: [{ count: 3, payload: 'a' }, { count: 1, payload: 'b' }, { count: 4, payload: 'a' }] } },
};
