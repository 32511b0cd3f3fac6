import fc from 'fast-check';
import { environmentSeams } from '../src/harness/environment.js';
import { defineFault } from '../src/harness/fault.js';
import { ObjectPicker, oncePerObject } from '../src/environment/_internals/select.js';

/**
 * A PersistentVolumeClaim that stays Pending while faults act: no volume can satisfy it (no
 * capacity in the zone, a missing storage class, the provisioner is down). Pods that mount it
 * stay unschedulable. Acts through the `pvc-binding` environment actor; once faults stop it
 * binds.
 *
 * A correct reconciler survives it because it waits for the claim to bind (requeue, or the
 * claim's watch event), reports not-ready meanwhile, and does not turn a slow bind into a
 * permanent failure.
 *
 * Events: `{ kind: 'environment-pvc-never-binds', nth }` picks the nth claim the environment
 * acted on; `target` narrows to claim keys starting with it. Background: `{ rate }` picks each
 * claim with that probability.
 * @public
 */
export const environmentPvcNeverBinds = defineFault({
  kind: 'environment-pvc-never-binds',
  models: 'a volume claim no volume can satisfy while it lasts (no capacity, a missing storage class, a provisioner down)',
  survivedBy: 'waiting for the claim to bind and reporting not-ready meanwhile, instead of failing for good',
  actsOn: 'environment',
  slowsTheWorld: true,
  arbitrary: (ctx) => fc.array(fc.record({ kind: fc.constant('environment-pvc-never-binds'), nth: fc.nat({ max: Math.min(ctx.maxNth, 3) }) }), { maxLength: 2 }),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('environment-pvc-never-binds'), rate: fc.integer({ min: 0, max: 50 }).map((p) => p / 100) }),
  install({ world, rng, fired }, plan) {
    if (plan.events.length === 0 && !plan.background.some((b) => b.rate > 0)) return () => undefined;
    const picker = new ObjectPicker(plan.events, plan.background, rng);
    const once = oncePerObject(fired);
    return environmentSeams(world).install({
      onStep(i) {
        if (i.step !== 'pvc:bind') return undefined;
        const how = picker.picks(i);
        if (how === undefined) return undefined;
        once(i, how);
        return { type: 'block' };
      },
    });
  },
});
