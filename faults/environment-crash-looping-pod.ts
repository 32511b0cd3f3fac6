import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import { installPodReadinessFault } from './_internals/pod-readiness.js';

/**
 * A crash-looping pod: its container exits before it becomes Ready, is restarted with kubelet's
 * doubling back-off (`CrashLoopBackOff`, `restartCount` climbing) and exits again, for as long
 * as faults act (a bad config, a missing secret, an OOM kill). The pod stays in phase Running
 * the whole time. With `at`, pods already Ready at that time start crashing too. Acts through
 * the `pod-lifecycle` environment actor.
 *
 * A correct reconciler survives it because it does not take phase Running for Ready, reports
 * not-ready while the container restarts, and reports Ready once the pod recovers.
 *
 * Events: `{ kind: 'environment-crash-looping-pod', nth }` picks the nth pod the environment
 * acted on; `target` narrows to pod keys starting with it; `at` starts at that time.
 * Background: `{ rate }` picks each pod with that probability.
 * @public
 */
export const environmentCrashLoopingPod = defineFault({
  kind: 'environment-crash-looping-pod',
  models: 'a container that keeps exiting and being restarted with back-off (CrashLoopBackOff)',
  survivedBy: 'not taking phase Running for Ready, and reporting readiness when the pod really recovers',
  actsOn: 'environment',
  slowsTheWorld: true,
  arbitrary: (ctx) => fc.array(fc.record({ kind: fc.constant('environment-crash-looping-pod'), nth: fc.nat({ max: Math.min(ctx.maxNth, 5) }) }), { maxLength: 2 }),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('environment-crash-looping-pod'), rate: fc.integer({ min: 0, max: 50 }).map((p) => p / 100) }),
  install: (ctx, plan) => installPodReadinessFault(ctx, plan, { type: 'fail', reason: 'Error' }),
});
