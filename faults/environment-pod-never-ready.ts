import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { installPodReadinessFault } from './_internals/pod-readiness.js';

/**
 * A pod that never becomes Ready while faults act: its containers run, but the readiness probe
 * keeps failing (a misconfigured probe, a dependency that is down, a warm-up that never ends).
 * With `at`, pods already Ready at that time lose readiness too. Acts through the
 * `pod-lifecycle` environment actor; once faults stop the probe passes.
 *
 * A correct reconciler survives it because it reports readiness from the pods' (or the
 * Deployment's) Ready/Available conditions, not from "created" or "Running", and waits (requeue)
 * instead of giving up after a deadline.
 *
 * Events: `{ kind: 'environment-pod-never-ready', nth }` picks the nth pod the environment acted
 * on (0-based); `target` narrows to pod keys starting with it (`'default/web-'`), without `nth`
 * every such pod; `at` starts at that virtual time. Background: `{ rate }` picks each pod with
 * that probability.
 * @public
 */
export const environmentPodNeverReady = defineFault({
  kind: 'environment-pod-never-ready',
  models: 'a pod whose readiness probe never passes (a bad probe, a dependency down, an endless warm-up)',
  survivedBy: 'reporting readiness from Ready conditions, and waiting instead of giving up after a deadline',
  actsOn: 'environment',
  slowsTheWorld: true,
  arbitrary: (ctx) => fc.array(fc.record({ kind: fc.constant('environment-pod-never-ready'), nth: fc.nat({ max: Math.min(ctx.maxNth, 5) }) }), { maxLength: 2 }),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('environment-pod-never-ready'), rate: fc.integer({ min: 0, max: 50 }).map((p) => p / 100) }),
  install: (ctx, plan) => installPodReadinessFault(ctx, plan, { type: 'block' }),
});
