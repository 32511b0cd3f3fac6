import { defineController, type ControllerDefinition, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { apply, deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A handoff between two controllers, as a Job with `spec.managedBy` (KEP-4368), an EndpointSlice's
 * `managed-by` label or a storage migration between two provisioners work: a `Bucket` says which
 * provisioner serves it (`spec.class`: `legacy` or `next`), and each provisioner is its own
 * controller. The one that holds a bucket marks it (the `storage.example.com/provisioner`
 * annotation, with its own finalizer, in one optimistic update, so of two claims only one wins)
 * and keeps the bucket's backing ConfigMap `<bucket>-<provisioner>` (owned, the bucket's size).
 * When the class moves away from it, the holder deletes its ConfigMap and then releases the
 * bucket (removes the annotation and its finalizer, again one update); the other provisioner
 * claims only a bucket nobody holds. So a bucket is never served by both (the invariant below),
 * and never dropped: a released bucket is claimed by whichever provisioner its class names, a
 * class flipped back mid-handoff is claimed back. Deletion: the holder removes its ConfigMap and
 * its finalizer; a bucket deleted while nobody holds it has no finalizer and goes at once.
 *
 * Each provisioner reads the bucket from the API server (`live`): the marker is what decides who
 * acts, and a cache behind a release would have the new one wait a resync for nothing (or, behind
 * a claim, have the old one act on a bucket it no longer holds: its update gets a 409 anyway).
 *
 * Its buggy twin is the new provisioner written against the class alone, as a controller that
 * filters on its class does: it takes any bucket of its class, overwriting the marker, without
 * waiting for the old one to release it. Both then serve the bucket (the old one's ConfigMap is
 * still there when the new one makes its own), and the old one, no longer named by the marker,
 * never cleans up.
 */
export const BUCKET = 'Bucket';
const HOLDER = 'storage.example.com/provisioner';
const finalizerOf = (provisioner: string) => `${provisioner}.storage.example.com/bucket`;
const PROVISIONERS = ['legacy', 'next'] as const;

interface BucketSpec {
  class: string;
  size: number;
}
interface BucketStatus {
  provisioner?: string;
  size?: number;
  observedGeneration?: number;
}
type Bucket = StoredObject<BucketSpec, BucketStatus>;

const backingName = (b: StoredObject<unknown, unknown>, provisioner: string) => `${b.metadata.name}-${provisioner}`;

/** The bucket with the marker and finalizer of `provisioner` (claim), or without them (release: `undefined`). */
function marked(b: Bucket, provisioner: string, claim: boolean): Bucket {
  const { [HOLDER]: _old, ...annotations } = b.metadata.annotations;
  const fin = finalizerOf(provisioner);
  const finalizers = b.metadata.finalizers.filter((f) => f !== fin);
  return { ...b, metadata: { ...b.metadata, annotations: claim ? { ...annotations, [HOLDER]: provisioner } : annotations, finalizers: claim ? [...finalizers, fin] : finalizers } };
}

/** Deletes this provisioner's backing ConfigMap of `b` (a 404 is success). */
async function removeBacking(ctx: ReconcileContext, b: Bucket, provisioner: string): Promise<void> {
  await deleteIfPresent(ctx, 'ConfigMap', { namespace: b.metadata.namespace, name: backingName(b, provisioner) });
}

function reconcilerOf(provisioner: string, claimsHeld: boolean) {
  return async (ctx: ReconcileContext): Promise<void> => {
    const b = (await ctx.client.tryGet<BucketSpec, BucketStatus>(BUCKET, ctx.key, { live: true })) as Bucket | undefined;
    if (!b) return;
    const holder = b.metadata.annotations[HOLDER];
    const mine = holder === provisioner;
    if (b.metadata.deletionTimestamp !== undefined) {
      if (!b.metadata.finalizers.includes(finalizerOf(provisioner))) return;
      await removeBacking(ctx, b, provisioner);
      await ctx.client.update({ ...b, metadata: { ...b.metadata, finalizers: b.metadata.finalizers.filter((f) => f !== finalizerOf(provisioner)) } });
      return;
    }
    const wanted = b.spec.class === provisioner;
    if (mine && !wanted) {
      // release: what it served goes first, so the next holder never finds it still there
      await removeBacking(ctx, b, provisioner);
      await ctx.client.update(marked(b, provisioner, false));
      return;
    }
    if (!mine) {
      const free = holder === undefined || holder === '';
      if (wanted && (free || claimsHeld)) await ctx.client.update(marked(b, provisioner, true)); // its event brings the key back
      return;
    }
    const cm = await apply(ctx, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: b.metadata.namespace, name: backingName(b, provisioner), ownerReferences: [controllerRef(b)] },
      data: { size: String(b.spec.size), provisioner },
    });
    if (!controlledBy(cm, b)) return;
    await writeStatus(ctx, b, { provisioner, size: b.spec.size, observedGeneration: b.metadata.generation });
  };
}

const defineProvisioner = (provisioner: string, claimsHeld = false): ControllerDefinition =>
  defineController({ name: `${provisioner}-provisioner`, for: BUCKET, owns: ['ConfigMap'], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: reconcilerOf(provisioner, claimsHeld) });

export const legacyProvisioner = defineProvisioner('legacy');
export const nextProvisioner = defineProvisioner('next');
/** The buggy twin's new provisioner: claims any bucket of its class, held or not (see the file's comment). */
export const nextProvisionerGreedy = defineProvisioner('next', true);

/** At every step, a bucket is served by one provisioner at most (one backing ConfigMap). */
export function servedOnce(view: WorldView): true | string {
  for (const b of view.list(BUCKET)) {
    const serving = PROVISIONERS.filter((p) => view.get('ConfigMap', `${b.metadata.namespace}/${backingName(b, p)}`) !== undefined);
    if (serving.length > 1) return `bucket ${b.metadata.name} is served by ${serving.join(' and ')} at once`;
  }
  return true;
}

export const provisionerHandoff: FalsePositiveCase = {
  name: 'provisioner-handoff',
  description: 'two provisioner controllers hand a Bucket over when its class changes (Job managedBy style): the holder marks it (annotation and finalizer in one optimistic update), deletes its backing ConfigMap and releases it before the other claims it',
  controllers: [nextProvisioner, legacyProvisioner],
  options: {
    objects: [{ kind: BUCKET, name: 'bucket', spec: [{ class: 'legacy', size: 1 }, { class: 'next', size: 1 }, { class: 'legacy', size: 2 }, { class: 'next', size: 2 }] }],
    maxObjects: 3,
  },
  properties: [safetyInvariants({ invariants: { 'served by one provisioner': servedOnce } })],
  buggy: {
    controllers: [nextProvisionerGreedy, legacyProvisioner],
    caughtBy: ['safety-invariants'],
    why: 'the new provisioner takes any bucket of its class, overwriting the marker without waiting for the old one to release it: both serve the bucket, and the old one, no longer named, never cleans up',
  },
};
