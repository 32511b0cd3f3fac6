import { keyOf, virtualTimestamp, type JsonObject } from '../store/object.js';
import { defineEnvironmentActor } from './define-environment-actor.js';
import { conditionsJson, conditionsOf, isConditionTrue, specNumber, withConditions } from './_internals/conditions.js';
import { checkNumber } from './_internals/params.js';
import { isActive, podFor, RUN_MS_ANNOTATION, templateOf } from './_internals/pods.js';

/** Parameters of {@link job}, in virtual ms. @public */
export interface JobParams extends JsonObject {
  /** How long each pod runs before it exits 0, unless the pod template sets `steadystate.dev/run-ms`. @defaultValue 2000 */
  durationMs: number;
}

/**
 * The Job controller: runs up to `parallelism` pods at a time (restartPolicy Never unless the
 * template says OnFailure) until `completions` have succeeded (`Complete` condition,
 * `completionTime`), replacing failed ones until more than `backoffLimit` failed (`Failed`
 * condition, reason BackoffLimitExceeded). Reports `active`, `succeeded`, `failed` and
 * `startTime`. Pods run for `durationMs` (through podLifecycle, which must be installed too).
 * Steps faults act on: `job:create-pods`.
 *
 * Known limits: no retry back-off delay, no `activeDeadlineSeconds`, no indexed completion mode,
 * no suspension, finished pods are kept.
 * @public
 */
export const job = defineEnvironmentActor<JobParams>({
  name: 'job',
  description: 'Jobs run pods to completion and report Complete',
  defaults: { durationMs: 2000 },
  validate: (p) => checkNumber(p, 'durationMs'),
  for: 'Job',
  owns: ['Pod'],
  sync(ctx) {
    const j = ctx.object;
    if (!j || j.metadata.deletionTimestamp !== undefined) return;
    if (isConditionTrue(j, 'Complete') || isConditionTrue(j, 'Failed')) return;
    const now = ctx.now();
    const completions = Math.max(1, specNumber(j, 'completions', 1));
    const parallelism = Math.max(0, specNumber(j, 'parallelism', 1));
    const backoffLimit = Math.max(0, specNumber(j, 'backoffLimit', 6));
    const owned = () => ctx.list('Pod', { namespace: j.metadata.namespace, ownedBy: j });
    let pods = owned();
    const succeeded = pods.filter((p) => p.status['phase'] === 'Succeeded').length;
    const failed = pods.filter((p) => p.status['phase'] === 'Failed').length;
    const startTime = typeof j.status['startTime'] === 'string' ? j.status['startTime'] : virtualTimestamp(now);
    if (succeeded >= completions || failed > backoffLimit) {
      const done = succeeded >= completions;
      if (!done) for (const p of pods.filter(isActive)) ctx.delete('Pod', keyOf(p.metadata));
      ctx.patchStatus('Job', ctx.key, {
        status: {
          startTime,
          active: 0,
          succeeded,
          failed,
          ...(done ? { completionTime: virtualTimestamp(now) } : {}),
          conditions: conditionsJson(
            withConditions(conditionsOf(j), [done ? { type: 'Complete', status: 'True' } : { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }], now),
          ),
        },
      });
      ctx.record(done ? 'job:complete' : 'job:failed', { key: ctx.key, succeeded, failed });
      return;
    }
    const active = pods.filter(isActive).length;
    const want = Math.min(parallelism, completions - succeeded) - active;
    if (want > 0) {
      const d = ctx.decide('job:create-pods', j, succeeded + failed + active);
      if (d.type === 'delay') return { afterMs: d.ms };
      if (d.type === 'proceed') {
        const t = templateOf(j);
        const policy = t.spec['restartPolicy'] === 'OnFailure' ? 'OnFailure' : 'Never';
        for (let i = 0; i < want; i++) {
          ctx.create(
            podFor(j, { generateName: `${j.metadata.name}-` }, {
              labels: { 'job-name': j.metadata.name, 'batch.kubernetes.io/job-name': j.metadata.name, 'controller-uid': j.metadata.uid },
              annotations: { [RUN_MS_ANNOTATION]: t.annotations[RUN_MS_ANNOTATION] ?? String(ctx.params.durationMs) },
              spec: { restartPolicy: policy },
            }),
          );
        }
      }
      pods = owned();
    }
    ctx.patchStatus('Job', ctx.key, { status: { startTime, active: pods.filter(isActive).length, succeeded, failed } });
    return undefined;
  },
});
