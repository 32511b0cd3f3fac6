import { describe, expect, it } from 'vitest';
import { defineController } from '../../src/runtime/define-controller.js';
import { isStoreError, TooManyRequestsError } from '../../src/store/errors.js';
import type { JsonObject, NewObject } from '../../src/store/object.js';
import { create, find, obj, ofKind, runEnv } from './helpers.js';

/**
 * The `disruption` actor: kube-controller-manager's disruption controller, keeping each
 * PodDisruptionBudget's status from the Pods it selects, which the eviction subresource reads
 * and takes disruptions from (red team round 9 E-1).
 */
const web = obj('Deployment', 'web', { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } });
const budget = (name: string, spec: JsonObject): NewObject => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec } });
const eviction = (pod: string, deleteOptions?: JsonObject): NewObject => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' }, ...(deleteOptions ? { deleteOptions } : {}) }) as unknown as NewObject;
const actors = [{ name: 'pod-lifecycle' }, { name: 'deployment' }, { name: 'disruption' }];

describe('disruption (the PodDisruptionBudget status controller)', () => {
  it('counts expectedPods and desiredHealthy from an integer minAvailable, a percentage (the Deployment\'s scale, rounded up) and maxUnavailable', async () => {
    const { run } = await runEnv({ environment: actors, workload: [create(0, web), create(0, budget('min', { minAvailable: 2 })), create(0, { ...budget('pct', { minAvailable: '50%' }) }), create(0, budget('max', { maxUnavailable: 1 }))] });
    const status = (name: string) => find(run.finalObjects, 'PodDisruptionBudget', `default/${name}`)!.status;
    const allowed = { type: 'DisruptionAllowed', status: 'True', observedGeneration: 1, lastTransitionTime: expect.any(String), reason: 'SufficientPods', message: '' };
    expect(status('min')).toEqual({ observedGeneration: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1, conditions: [allowed] });
    expect(status('pct')).toMatchObject({ currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1 });
    expect(status('max')).toMatchObject({ currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1 });
    // while the Pods were starting, nothing was allowed
    const first = run.writes.find((w) => w.actor === 'environment:disruption' && w.key === 'default/min');
    expect(first?.t).toBe(0);
  });

  it('an unmanaged Pod is left out of a maxUnavailable count (no disruption allowed); a malformed percentage is refused, as a cluster refuses it', async () => {
    const lone = obj('Pod', 'lone', { containers: [{ name: 'app', image: 'nginx' }] }, { labels: { app: 'web' } });
    const { run } = await runEnv({ environment: actors, workload: [create(0, lone), create(0, budget('max', { maxUnavailable: 1 })), create(10, { ...budget('bad', { minAvailable: 'half' }), metadata: { name: 'bad', namespace: 'default' } })] });
    expect(find(run.finalObjects, 'PodDisruptionBudget', 'default/max')!.status).toMatchObject({ currentHealthy: 1, desiredHealthy: 0, expectedPods: 0, disruptionsAllowed: 0 });
    // ValidatePodDisruptionBudgetSpec: the disruption controller never meets such a budget
    expect(find(run.finalObjects, 'PodDisruptionBudget', 'default/bad')).toBeUndefined();
    expect(run.writes.filter((w) => w.key === 'default/bad').map((w) => [w.verb, w.error])).toEqual([['create', 'Invalid']]);
  });

  it('two evictions in one reconcile: the first takes the disruption, the second is 429; the budget recounts once the replacement is Ready', async () => {
    const outcomes: string[] = [];
    const drainer = defineController({
      name: 'drainer',
      for: 'ConfigMap',
      async reconcile(ctx) {
        const pods = (await ctx.client.list('Pod', { namespace: 'default', live: true })).filter((p) => p.metadata.deletionTimestamp === undefined);
        for (const p of pods.slice(0, 2)) {
          try {
            await ctx.client.create(eviction(p.metadata.name));
            outcomes.push('evicted');
          } catch (err) {
            if (!isStoreError(err, 'TooManyRequests')) throw err;
            outcomes.push(`${err.code} ${(err as TooManyRequestsError).causes[0]!.message}`);
          }
        }
      },
    });
    const { run } = await runEnv({ environment: actors, controllers: [drainer], workload: [create(0, web), create(0, budget('web', { minAvailable: 2 })), create(5_000, obj('ConfigMap', 'drain'))] });
    expect(outcomes).toEqual(['evicted', '429 The disruption budget web needs 2 healthy pods and has 3 currently']);
    expect(run.writes.filter((w) => w.kind === 'Pod' && w.verb === 'delete' && w.actor.startsWith('controller:drainer')).map((w) => w.error ?? 'deleted')).toEqual(['deleted', 'TooManyRequests']);
    expect(ofKind(run.finalObjects, 'Pod')).toHaveLength(3);
    expect(find(run.finalObjects, 'PodDisruptionBudget', 'default/web')!.status).toMatchObject({ currentHealthy: 3, disruptionsAllowed: 1 });
    expect(find(run.finalObjects, 'PodDisruptionBudget', 'default/web')!.status['disruptedPods']).toBeUndefined();
  });

  it('a grant whose Pod was not deleted keeps the Pod out of the healthy count for the DeletionTimeout (2 min), then lapses', async () => {
    const lone = (name: string) => obj('Pod', name, { containers: [{ name: 'app', image: 'nginx' }] }, { labels: { app: 'web' } });
    // one eviction with a uid precondition that fails: the disruption is taken, the Pod stays
    let sent = false;
    const evictor = defineController({
      name: 'evictor',
      for: 'ConfigMap',
      async reconcile(ctx) {
        if (sent) return;
        sent = true;
        await ctx.client.create(eviction('a', { preconditions: { uid: 'not-a' } })).catch((err: unknown) => {
          if (!isStoreError(err, 'Conflict')) throw err;
        });
      },
    });
    const { run } = await runEnv({
      environment: actors,
      controllers: [evictor],
      workload: [create(0, lone('a')), create(0, lone('b')), create(0, budget('web', { minAvailable: 1 })), create(5_000, obj('ConfigMap', 'go'))],
      faultWindowMs: 10_000,
      settleMs: 130_000,
    });
    const healthy = run.writes.filter((w) => w.key === 'default/web' && w.verb !== 'create' && w.t >= 5_000 && w.changed.some((c) => c === 'status.disruptedPods' || c === 'status.currentHealthy'));
    const evictedAt = healthy[0]!.t;
    expect(healthy.map((w) => [w.t - evictedAt, w.actor, w.changed.join(',')])).toEqual([
      [0, 'environment:eviction', 'status.conditions,status.disruptedPods,status.disruptionsAllowed'],
      [0, 'environment:disruption', 'status.currentHealthy'],
      [120_001, 'environment:disruption', 'status.conditions,status.currentHealthy,status.disruptedPods,status.disruptionsAllowed'],
    ]);
    expect(find(run.finalObjects, 'PodDisruptionBudget', 'default/web')!.status).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 1 });
    expect(find(run.finalObjects, 'Pod', 'default/a')).toBeDefined();
  });
});
