import { defineController, pvcBinding, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `Volume` asks for a PersistentVolumeClaim of `sizeGi`. Storage only grows: a larger size
 * grows the claim's request (online expansion), a smaller one is refused in a condition, never
 * written (kube-apiserver rejects a shrink, and shrinking a filesystem loses data). Ready means
 * the claim is Bound with at least the requested capacity.
 */
export const VOLUME = 'Volume';

interface VolumeSpec {
  sizeGi: number;
}
interface VolumeStatus {
  capacity?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

const gi = (q: unknown): number => (typeof q === 'string' && q.endsWith('Gi') ? Number(q.slice(0, -2)) : 0);

/** `growOnly`: never ask for less than the claim has (correct), or ask for the spec's size (the buggy twin). */
const reconciler = (growOnly: boolean) => async (ctx: ReconcileContext): Promise<void> => {
  const v = await ctx.client.tryGet<VolumeSpec, VolumeStatus>(VOLUME, ctx.key, { live: true });
  if (!v || v.metadata.deletionTimestamp !== undefined) return;
  const ref = { namespace: v.metadata.namespace, name: `${v.metadata.name}-data` };
  const existing = await ctx.client.tryGet('PersistentVolumeClaim', ref);
  const requested = gi(((existing?.spec['resources'] as { requests?: { storage?: string } } | undefined)?.requests ?? {}).storage);
  // never ask for less than the claim already has
  const size = growOnly ? Math.max(v.spec.sizeGi, requested) : v.spec.sizeGi;
  const pvc: StoredObject = await apply(ctx, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: ref.name, namespace: ref.namespace, ownerReferences: [controllerRef(v)] },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: `${size}Gi` } } },
  });
  const bound = pvc.status['phase'] === 'Bound';
  const capacity = (pvc.status['capacity'] as { storage?: string } | undefined)?.storage;
  const ready = bound && gi(capacity) >= v.spec.sizeGi;
  const now = ctx.clock.now();
  let conditions = setCondition(v.status.conditions, { type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'Bound' : bound ? 'Resizing' : 'Pending', message: `capacity ${capacity ?? 'none'}`, observedGeneration: v.metadata.generation }, now);
  const shrink = v.spec.sizeGi < size;
  conditions = setCondition(conditions, { type: 'ShrinkRejected', status: shrink ? 'True' : 'False', reason: shrink ? 'VolumesOnlyGrow' : 'AsRequested', message: shrink ? `${v.spec.sizeGi}Gi < ${size}Gi: volumes only grow` : '', observedGeneration: v.metadata.generation }, now);
  await writeStatus(ctx, v, { ...(capacity !== undefined ? { capacity } : {}), observedGeneration: v.metadata.generation, conditions });
};

const definition = { name: 'volume-resizer', for: VOLUME, owns: ['PersistentVolumeClaim'], leaderElection: true, resyncPeriodMs: RESYNC_MS };

export const volumeController = defineController({ ...definition, reconcile: reconciler(true) });

/**
 * Buggy twin: asks for the spec's size even when the claim already has more. kube-apiserver
 * refuses to shrink a claim (422 Invalid on spec.resources.requests.storage, which the store
 * enforces since issue 11 item 5), so after a smaller size it fails on every reconcile.
 */
export const volumeControllerShrinking = defineController({ ...definition, reconcile: reconciler(false) });

export const volumeResizer: FalsePositiveCase = {
  name: 'volume-resizer',
  description: 'a Volume grows its PersistentVolumeClaim when asked for more and refuses (in a condition) to shrink it',
  controllers: [volumeController],
  options: {
    objects: { kind: VOLUME, name: 'db', spec: [{ sizeGi: 1 }, { sizeGi: 2 }, { sizeGi: 1 }, { sizeGi: 5 }] },
    environment: [pvcBinding],
  },
  // storage only grows, so how large the claim ends up depends on the largest size the controller
  // saw (a size replaced before it was seen never grows it): the end state compares everything else
  properties: endStateProperties('spec.resources.requests.storage', 'status.capacity', 'status.conditions'),
  buggy: { controllers: [volumeControllerShrinking], caughtBy: ['convergence', 'status-truthfulness'], why: 'it asks to shrink a claim, which the API server refuses with 422 Invalid, again on every reconcile' },
};
