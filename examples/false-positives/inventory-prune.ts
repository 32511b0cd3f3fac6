import { defineController, isStoreError, type ControllerDefinition, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';

/**
 * Flux kustomize-controller style pruning by inventory: a `Kustomization` applies one ConfigMap per
 * entry of spec.configs (no ownerReference: what it applies is found through the inventory in its
 * status, as Flux and `kubectl apply --prune` with an ApplySet do) and prunes what an earlier
 * revision applied and this one dropped. The inventory is a promise "everything I may have made is
 * listed here", so it is WIDENED (old ∪ new, an optimistic status write) before anything new is
 * applied, and narrowed to the new set only after the dropped objects are gone. A finalizer prunes
 * the whole inventory when the Kustomization is deleted. Written by the eleventh red team (rt51).
 *
 * Its twin records the new inventory first and then applies and prunes what the old one listed:
 * when a crash or a refused write stops it between the two, the next pass reads an inventory that
 * no longer names the dropped ConfigMaps, and they are never pruned.
 */
export const KUSTOMIZATION = 'Kustomization';
const FINALIZER = 'kustomize.example.com/prune';
const LABEL = 'kustomize.example.com/name';

interface KustomizationSpec {
  configs: Record<string, Record<string, string>>;
}
interface KustomizationStatus {
  inventory?: string[];
  observedGeneration?: number;
}
type Kustomization = StoredObject<KustomizationSpec, KustomizationStatus>;

const childName = (k: { metadata: { name: string } }, entry: string): string => `${k.metadata.name}-${entry}`;

/** Deletes a ConfigMap the inventory names, if it is still one this Kustomization applied (its label). */
async function prune(ctx: ReconcileContext, k: Kustomization, name: string): Promise<void> {
  const ref = { namespace: k.metadata.namespace, name };
  const cm = await ctx.client.tryGet('ConfigMap', ref, { live: true });
  if (!cm || cm.metadata.labels[LABEL] !== k.metadata.name) return;
  try {
    await ctx.client.delete('ConfigMap', ref, { preconditions: { uid: cm.metadata.uid } });
  } catch (err) {
    if (!isStoreError(err, 'NotFound')) throw err;
  }
}

async function writeInventory(ctx: ReconcileContext, k: Kustomization, inventory: string[], observed: boolean): Promise<Kustomization> {
  const status: KustomizationStatus = { ...k.status, inventory, ...(observed ? { observedGeneration: k.metadata.generation } : {}) };
  if (sameJson(k.status, status)) return k;
  return ctx.client.updateStatus<KustomizationSpec, KustomizationStatus>({ ...k, status });
}

function inventoryPrune(mistake: 'none' | 'narrow-first'): ControllerDefinition {
  return defineController({
    name: 'kustomize',
    for: KUSTOMIZATION,
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    watches: [{ kind: 'ConfigMap', map: (cm) => (cm.metadata.labels[LABEL] !== undefined ? [`${cm.metadata.namespace}/${cm.metadata.labels[LABEL]}`] : []) }],
    async reconcile(ctx) {
      let k: Kustomization | undefined = await ctx.client.tryGet<KustomizationSpec, KustomizationStatus>(KUSTOMIZATION, ctx.key, { live: true });
      if (!k) return;
      const old = k.status.inventory ?? [];
      if (k.metadata.deletionTimestamp !== undefined) {
        if (!k.metadata.finalizers.includes(FINALIZER)) return;
        for (const name of old) await prune(ctx, k, name);
        await removeFinalizer(ctx, k, FINALIZER);
        return;
      }
      if (await addFinalizer(ctx, k, FINALIZER)) return;
      const desired = Object.keys(k.spec.configs).map((e) => childName(k!, e)).sort();
      const dropped = old.filter((n) => !desired.includes(n));
      if (mistake === 'narrow-first') {
        k = await writeInventory(ctx, k, desired, true);
      } else {
        // widen first: nothing is applied that the inventory does not name
        k = await writeInventory(ctx, k, [...new Set([...old, ...desired])].sort(), false);
      }
      for (const [entry, data] of Object.entries(k.spec.configs)) {
        const cm = await apply(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: childName(k, entry), namespace: k.metadata.namespace, labels: { [LABEL]: k.metadata.name } }, data });
        // exactly the declared data: a key added by hand or dropped from the spec goes
        if (!sameJson(cm['data'] ?? {}, data)) await ctx.client.update({ ...cm, data });
      }
      for (const name of dropped) await prune(ctx, k, name);
      await writeInventory(ctx, k, desired, true);
    },
  });
}

export const inventoryPruneController = inventoryPrune('none');

/** Every Kustomization's ConfigMaps are exactly its entries, with their data; none is left of a deleted one. */
function pruned(view: WorldView): true | string {
  const live = new Map(view.list(KUSTOMIZATION).filter((k) => k.metadata.deletionTimestamp === undefined).map((k) => [`${k.metadata.namespace}/${k.metadata.name}`, k as unknown as Kustomization]));
  for (const cm of view.list('ConfigMap')) {
    const owner = cm.metadata.labels[LABEL];
    if (owner === undefined) continue;
    const k = live.get(`${cm.metadata.namespace}/${owner}`);
    if (!k) return `ConfigMap ${cm.metadata.name} outlived Kustomization ${owner}`;
    const entry = Object.keys(k.spec.configs).find((e) => childName(k, e) === cm.metadata.name);
    if (entry === undefined) return `ConfigMap ${cm.metadata.name} was dropped from Kustomization ${owner} but not pruned`;
  }
  for (const k of live.values()) {
    for (const [entry, data] of Object.entries(k.spec.configs)) {
      const cm = view.get('ConfigMap', `${k.metadata.namespace}/${childName(k, entry)}`);
      if (!cm || !sameJson(cm['data'] ?? {}, data)) return `ConfigMap ${childName(k, entry)} of ${k.metadata.name} is ${cm ? 'not as declared' : 'missing'}`;
    }
  }
  return true;
}

export const inventoryPruneCase: FalsePositiveCase = {
  name: 'inventory-prune',
  description: 'Flux kustomize-controller style: a Kustomization applies unowned ConfigMaps and prunes those a revision dropped through an inventory in its status, widened before applying and narrowed after pruning; a finalizer prunes all',
  controllers: [inventoryPruneController],
  options: {
    objects: {
      kind: KUSTOMIZATION,
      name: 'apps',
      spec: [
        { configs: { web: { port: '80' }, worker: { threads: '4' } } },
        { configs: { web: { port: '8080' }, cron: { schedule: '@hourly' } } },
        { configs: { api: { port: '9000' } } },
      ],
    },
  },
  properties: [convergence({ converged: pruned }), ...endStateProperties()],
  buggy: {
    controllers: [inventoryPrune('narrow-first')],
    caughtBy: ['convergence', 'same-end-state', 'recovery'],
    // bench/twin-seeds.ts
    seed: 14,
    why: 'it records the new inventory before it prunes what the old one listed: a crash or a refused write in between leaves the dropped ConfigMaps unnamed, never pruned',
  },
};
