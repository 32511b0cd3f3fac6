import { defineController, deployment, podLifecycle, type ReconcileContext } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `Cache` runs a Deployment and a Service and reports only metav1.Conditions (the modern API
 * convention): `Available`, `Progressing` and `Degraded`, each with its own `observedGeneration`
 * and a `lastTransitionTime` that moves only when the condition's status does. There is no
 * top-level `status.observedGeneration`.
 */
export const CACHE = 'Cache';

interface CacheSpec {
  replicas: number;
  version: string;
}
interface CacheStatus {
  conditions?: Condition[];
}

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const c = await ctx.client.tryGet<CacheSpec, CacheStatus>(CACHE, ctx.key, { live: true });
  if (!c || c.metadata.deletionTimestamp !== undefined) return;
  const ns = c.metadata.namespace;
  const owner = [controllerRef(c)];
  const labels = { cache: c.metadata.name };
  const dep = await apply(ctx, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: c.metadata.name, namespace: ns, ownerReferences: owner },
    spec: { replicas: c.spec.replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'redis', image: `redis:${c.spec.version}` }] } } },
  });
  await apply(ctx, { apiVersion: 'v1', kind: 'Service', metadata: { name: c.metadata.name, namespace: ns, ownerReferences: owner }, spec: { selector: labels, ports: [{ name: 'redis', port: 6379 }] } });
  const observed = dep.status['observedGeneration'] === dep.metadata.generation;
  const ready = observed ? Number(dep.status['availableReplicas'] ?? 0) : 0;
  const updated = observed ? Number(dep.status['updatedReplicas'] ?? 0) : 0;
  const gen = c.metadata.generation;
  const now = ctx.clock.now();
  let conditions = setCondition(c.status.conditions, { type: 'Available', status: ready >= c.spec.replicas ? 'True' : 'False', reason: ready >= c.spec.replicas ? 'AllReplicasAvailable' : 'ReplicasUnavailable', message: `${ready}/${c.spec.replicas} available`, observedGeneration: gen }, now);
  const progressing = !observed || updated < c.spec.replicas;
  conditions = setCondition(conditions, { type: 'Progressing', status: progressing ? 'True' : 'False', reason: progressing ? 'RollingOut' : 'Complete', message: `${updated}/${c.spec.replicas} updated`, observedGeneration: gen }, now);
  const degraded = observed && ready === 0 && c.spec.replicas > 0 && !progressing;
  conditions = setCondition(conditions, { type: 'Degraded', status: degraded ? 'True' : 'False', reason: degraded ? 'NoReplicas' : 'AsExpected', message: '', observedGeneration: gen }, now);
  await writeStatus(ctx, c, { conditions });
}

export const cacheController = defineController({
  name: 'cache',
  for: CACHE,
  owns: ['Deployment', 'Service'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const conditionStatus: FalsePositiveCase = {
  name: 'condition-status',
  description: 'a Cache reports only metav1.Conditions (Available, Progressing, Degraded), each with its own observedGeneration',
  controllers: [cacheController],
  options: {
    objects: { kind: CACHE, name: 'sessions', spec: [{ replicas: 2, version: '7.2' }, { replicas: 3, version: '7.4' }, { replicas: 1, version: '7.2' }] },
    environment: [deployment, podLifecycle],
  },
  properties: podEndStateProperties(),
};
