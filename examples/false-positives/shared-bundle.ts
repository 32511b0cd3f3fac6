import { defineController, isStoreError, type JsonObject, type OwnerReference, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * `Bundle`s that name one bundle share a ConfigMap `bundle-<name>`, each listed in it as a
 * non-controller owner (no `controller`, no `blockOwnerDeletion`): the garbage collector drops a
 * deleted Bundle's reference and deletes the ConfigMap with the last one, a Foreground delete of
 * one Bundle only takes its reference off. Every pass recomputes the owners and the users from a
 * live list of the live Bundles naming it (resourceVersion precondition); a Bundle that moves to
 * another bundle takes itself off the ConfigMaps that still list its uid, deleting one nobody uses
 * any more (the first version did not: recovery caught the ConfigMap it left for ever). (Red team rt46.)
 */
export const BUNDLE = 'Bundle';

interface BundleSpec {
  bundle: string;
}

const ref = (x: StoredObject<BundleSpec, JsonObject>): OwnerReference => ({ apiVersion: 'example.com/v1', kind: BUNDLE, name: x.metadata.name, uid: x.metadata.uid });
const byName = (x: StoredObject<BundleSpec, JsonObject>, y: StoredObject<BundleSpec, JsonObject>) => (x.metadata.name < y.metadata.name ? -1 : 1);

function reconcileWith(replaceOwners: boolean) {
  return async (ctx: ReconcileContext): Promise<void> => {
    const b = await ctx.client.tryGet<BundleSpec, JsonObject>(BUNDLE, ctx.key, { live: true });
    if (!b || b.metadata.deletionTimestamp !== undefined) return;
    const ns = b.metadata.namespace ?? 'default';
    const name = `bundle-${b.spec.bundle}`;
    const all = await ctx.client.list<BundleSpec, JsonObject>(BUNDLE, { namespace: ns, live: true });
    const usersOf = (bundle: string) => all.filter((x) => x.spec.bundle === bundle && x.metadata.deletionTimestamp === undefined).sort(byName);
    const users = usersOf(b.spec.bundle);
    // the buggy twin makes itself the only owner, so the Bundles take the ConfigMap from each other
    const owners = replaceOwners ? [ref(b)] : users.map(ref);
    const data = { users: users.map((x) => x.metadata.name).join(',') };
    for (const old of await ctx.client.list('ConfigMap', { namespace: ns, live: true })) {
      if (old.metadata.name === name || old.metadata.deletionTimestamp !== undefined || !old.metadata.ownerReferences.some((r) => r.uid === b.metadata.uid)) continue;
      const left = usersOf(old.metadata.name.slice('bundle-'.length));
      if (left.length === 0) await deleteIfPresent(ctx, 'ConfigMap', { namespace: ns, name: old.metadata.name }, { uid: old.metadata.uid, resourceVersion: old.metadata.resourceVersion });
      else await ctx.client.patch('ConfigMap', { namespace: ns, name: old.metadata.name }, { metadata: { ownerReferences: left.map(ref) as never }, data: { users: left.map((x) => x.metadata.name).join(',') } }, { resourceVersion: old.metadata.resourceVersion });
    }
    const cm = await ctx.client.tryGet('ConfigMap', { namespace: ns, name }, { live: true });
    if (!cm) {
      try {
        await ctx.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, ownerReferences: owners }, data } as never);
      } catch (err) {
        if (!isStoreError(err, 'AlreadyExists')) throw err;
      }
    } else if (cm.metadata.deletionTimestamp !== undefined) {
      return;
    } else if (!sameJson(cm.metadata.ownerReferences, owners) || !sameJson((cm as unknown as { data?: unknown }).data, data)) {
      await ctx.client.patch('ConfigMap', { namespace: ns, name }, { metadata: { ownerReferences: owners as never }, data }, { resourceVersion: cm.metadata.resourceVersion });
    }
    await writeStatus(ctx, b, { configMap: name, observedGeneration: b.metadata.generation });
  };
}

/** A ConfigMap's owners are the Bundles to reconcile when it changes. */
const ownersOf = (cm: StoredObject): string[] => cm.metadata.ownerReferences.filter((r) => r.kind === BUNDLE).map((r) => `${cm.metadata.namespace}/${r.name}`);

const define = (replaceOwners: boolean) =>
  defineController({ name: 'shared-bundle', for: BUNDLE, watches: [{ kind: 'ConfigMap', map: ownersOf }], resyncPeriodMs: RESYNC_MS, reconcile: reconcileWith(replaceOwners) });

export const sharedBundleController = define(false);

export const sharedBundle: FalsePositiveCase = {
  name: 'shared-bundle',
  description: 'Bundles naming one bundle share a ConfigMap as non-controller owners: the collector drops a deleted owner and deletes it with the last; a Bundle that moves leaves the old one',
  controllers: [sharedBundleController],
  options: { objects: { kind: BUNDLE, name: 'svc', spec: [{ bundle: 'common' }, { bundle: 'extra' }] }, maxObjects: 3 },
  buggy: {
    controllers: [define(true)],
    caughtBy: ['no-hot-loop', 'no-fighting'],
    why: 'each Bundle writes itself as the only owner, so two Bundles of one bundle take the ConfigMap from each other on every event of it, for ever',
  },
};
