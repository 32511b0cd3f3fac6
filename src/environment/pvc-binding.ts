import { fnv1a, hex8 } from '../sim/hash.js';
import { fromVirtualTimestamp, virtualTimestamp, type JsonObject } from '../store/object.js';
import { defineEnvironmentActor, type EnvironmentSyncContext } from './define-environment-actor.js';
import { createdAt, isRecord } from './_internals/conditions.js';
import { checkNumber } from './_internals/params.js';
import { parseQuantity } from '../store/quantity.js';

/** Parameters of {@link pvcBinding}, in virtual ms. @public */
export interface PvcBindingParams extends JsonObject {
  /** Creation → Bound (provisioning a volume). @defaultValue 500 */
  bindMs: number;
  /** A grown storage request → the new `status.capacity` (online volume expansion). @defaultValue 500 */
  resizeMs: number;
}

/**
 * The PersistentVolume controller with a dynamic provisioner, reduced to what a controller
 * observes: a PersistentVolumeClaim is `Pending` when created and `Bound` `bindMs` later, with
 * `spec.volumeName` (`pvc-<hash of the claim's key>`), `status.capacity` (the requested storage) and
 * `status.accessModes`. Pods that mount an unbound claim stay unschedulable (see podLifecycle).
 * Growing a Bound claim's `spec.resources.requests.storage` (the only growth the API accepts)
 * expands the volume: `status.capacity` follows `resizeMs` later (online expansion, as CSI
 * drivers with `allowVolumeExpansion` do).
 *
 * Step faults act on: `pvc:bind` (block = the claim never binds while faults act).
 *
 * Known limits: no PersistentVolume objects, no storage classes (every claim is provisioned),
 * no `WaitForFirstConsumer` binding.
 * @public
 */
export const pvcBinding = defineEnvironmentActor<PvcBindingParams>({
  name: 'pvc-binding',
  description: 'persistent volume claims bind after a virtual delay',
  defaults: { bindMs: 500, resizeMs: 500 },
  validate: (p) => checkNumber(p, 'bindMs') ?? checkNumber(p, 'resizeMs'),
  for: 'PersistentVolumeClaim',
  sync(ctx) {
    const pvc = ctx.object;
    if (!pvc || pvc.metadata.deletionTimestamp !== undefined) return;
    const phase = pvc.status['phase'];
    if (phase === 'Bound') return expand(ctx);
    if (phase === 'Lost') return;
    if (phase !== 'Pending') ctx.patchStatus(ctx.kind, ctx.key, { status: { phase: 'Pending' } });
    const now = ctx.now();
    const due = createdAt(pvc) + ctx.params.bindMs;
    if (now < due) return { afterMs: due - now };
    const d = ctx.decide('pvc:bind', pvc);
    if (d.type === 'delay') return { afterMs: d.ms };
    if (d.type === 'block') return d.untilMs !== undefined ? { afterMs: Math.max(0, d.untilMs - now) } : undefined;
    if (d.type === 'fail') return undefined;
    const resources = isRecord(pvc.spec['resources']) ? pvc.spec['resources'] : {};
    const requests = isRecord(resources['requests']) ? resources['requests'] : {};
    const storage = typeof requests['storage'] === 'string' ? requests['storage'] : '1Gi';
    const accessModes = Array.isArray(pvc.spec['accessModes']) ? pvc.spec['accessModes'] : ['ReadWriteOnce'];
    // named after the claim, not its uid, so end states compare across runs
    const volumeName = typeof pvc.spec['volumeName'] === 'string' ? pvc.spec['volumeName'] : `pvc-${hex8(fnv1a(ctx.key))}`;
    if (pvc.spec['volumeName'] !== volumeName) ctx.patch(ctx.kind, ctx.key, { spec: { volumeName } });
    ctx.patchStatus(ctx.kind, ctx.key, { status: { phase: 'Bound', accessModes, capacity: { storage } } });
    ctx.record('pvc:bound', { key: ctx.key, volumeName });
    return undefined;
  },
});

/**
 * A Bound claim whose request grew: the resizer marks it `Resizing` (a condition with its
 * transition time), and `resizeMs` later the capacity follows and the condition goes.
 */
function expand(ctx: EnvironmentSyncContext<PvcBindingParams>): { afterMs: number } | undefined {
  const pvc = ctx.object!;
  const requested = storageOf(pvc.spec['resources'], 'requests');
  const capacity = isRecord(pvc.status['capacity']) ? pvc.status['capacity']['storage'] : undefined;
  const want = parseQuantity(requested);
  const have = parseQuantity(capacity);
  if (typeof requested !== 'string' || want === undefined || (have !== undefined && want <= have)) return undefined;
  const conditions = Array.isArray(pvc.status['conditions']) ? pvc.status['conditions'] : [];
  const resizing = conditions.find((c) => isRecord(c) && c['type'] === 'Resizing');
  const since = isRecord(resizing) && typeof resizing['lastTransitionTime'] === 'string' ? fromVirtualTimestamp(resizing['lastTransitionTime']) : undefined;
  if (since === undefined) {
    ctx.patchStatus(ctx.kind, ctx.key, { status: { conditions: [{ type: 'Resizing', status: 'True', lastTransitionTime: virtualTimestamp(ctx.now()) }] } });
    return { afterMs: ctx.params.resizeMs };
  }
  const due = since + ctx.params.resizeMs;
  if (ctx.now() < due) return { afterMs: due - ctx.now() };
  ctx.patchStatus(ctx.kind, ctx.key, { status: { capacity: { storage: requested }, conditions: null } });
  ctx.record('pvc:resized', { key: ctx.key, storage: requested });
  return undefined;
}

function storageOf(resources: unknown, field: string): unknown {
  if (!isRecord(resources) || !isRecord(resources[field])) return undefined;
  return resources[field]['storage'];
}
