import fc from 'fast-check';
import { environmentSeams, type EnvironmentStepInfo } from '../src/harness/environment.js';
import { defineFault } from '../src/harness/fault.js';
import type { FaultEvent } from '../src/harness/fault-plan.js';

/** The steps a slow rollout slows: workload controllers creating pods, and containers starting. */
const SLOW_STEPS = new Set(['pod:start', 'replicaset:create-pods', 'statefulset:create-pod', 'job:create-pods']);

/**
 * A slow rollout: while faults act, every pod a workload controller creates and every container
 * that starts takes `delayMs` longer (a cold registry pulling large images, API throttling of
 * the ReplicaSet and StatefulSet controllers, a cluster autoscaler adding nodes). Acts through
 * the `pod-lifecycle`, `deployment`, `stateful-set` and `job` environment actors.
 *
 * A correct reconciler survives it because it has no readiness deadline it treats as a
 * permanent failure, keeps reporting not-ready while the rollout crawls, and reports Ready when
 * the rollout really completes.
 *
 * Events: `{ kind: 'environment-slow-rollout', params: { delayMs } }` delays each such step by
 * `delayMs` (default 10 s); `target` narrows to object keys starting with it (`'default/web'`
 * covers the Deployment's ReplicaSet and pods); `at` starts at that time. Background:
 * `{ rate, params: { delayMs } }` delays each step with that probability.
 * @public
 */
export const environmentSlowRollout = defineFault({
  kind: 'environment-slow-rollout',
  models: 'a rollout that crawls: slow image pulls and throttled pod creation',
  survivedBy: 'no readiness deadline treated as permanent failure; Ready reported when the rollout really completes',
  actsOn: 'environment',
  slowsTheWorld: true,
  arbitrary: () => fc.array(fc.record({ kind: fc.constant('environment-slow-rollout'), params: fc.record({ delayMs: fc.integer({ min: 1000, max: 20_000 }) }) }), { maxLength: 1 }),
  backgroundArbitrary: () =>
    fc.record({ kind: fc.constant('environment-slow-rollout'), rate: fc.integer({ min: 0, max: 50 }).map((p) => p / 100), params: fc.record({ delayMs: fc.integer({ min: 1000, max: 20_000 }) }) }),
  install({ world, rng, fired }, plan) {
    const rate = plan.background.reduce((r, b) => Math.max(r, b.rate), 0);
    if (plan.events.length === 0 && rate <= 0) return () => undefined;
    const bgDelay = delayOf(plan.background.find((b) => b.rate === rate)?.params);
    const matches = (e: FaultEvent, i: EnvironmentStepInfo) => (e.target === undefined || i.key.startsWith(e.target)) && (e.at === undefined || i.t >= e.at);
    return environmentSeams(world).install({
      onStep(i) {
        if (!SLOW_STEPS.has(i.step)) return undefined;
        const e = plan.events.find((x) => matches(x, i));
        if (e) {
          const ms = delayOf(e.params);
          fired({ objectKind: i.kind, key: i.key, step: i.step, delayMs: ms });
          return { type: 'delay', ms };
        }
        if (rate > 0 && rng.chance(rate)) {
          fired({ objectKind: i.kind, key: i.key, step: i.step, delayMs: bgDelay, background: true });
          return { type: 'delay', ms: bgDelay };
        }
        return undefined;
      },
    });
  },
});

function delayOf(params: FaultEvent['params']): number {
  const v = params?.['delayMs'];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.min(v, 3_600_000) : 10_000;
}
