import { fnv1a, hex8 } from '../sim/hash.js';
import type { JsonObject } from '../store/object.js';
import { defineEnvironmentActor } from './define-environment-actor.js';
import { createdAt, isRecord } from './_internals/conditions.js';
import { checkNumber } from './_internals/params.js';

/** Parameters of {@link pvcBinding}, in virtual ms. @public */
export interface PvcBindingParams extends JsonObject {
  /** Creation → Bound (provisioning a volume). @defaultValue 500 */
  bindMs: number;
}

/**
 * The PersistentVolume controller with a dynamic provisioner, reduced to what a controller
 * observes: a PersistentVolumeClaim is `Pending` when created and `Bound` `bindMs` later, with
 * `spec.volumeName` (`pvc-<hash of the claim's key>`), `status.capacity` (the requested storage) and
 * `status.accessModes`. Pods that mount an unbound claim stay unschedulable (see podLifecycle).
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
  defaults: { bindMs: 500 },
  validate: (p) => checkNumber(p, 'bindMs'),
  for: 'PersistentVolumeClaim',
  sync(ctx) {
    const pvc = ctx.object;
    if (!pvc || pvc.metadata.deletionTimestamp !== undefined) return;
    const phase = pvc.status['phase'];
    if (phase === 'Bound' || phase === 'Lost') return;
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
