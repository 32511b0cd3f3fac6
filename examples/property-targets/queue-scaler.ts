import { defineController, isStoreError, type NewObject, type ReconcileContext, type Scale, type WorldView } from '../../src/index.js';

/**
 * A KEDA-like autoscaler: a `QueueScaler` sizes the Deployment of its own name from the length of
 * a work queue (the ConfigMap of its own name, `data.length`, standing in for a queue's metrics
 * API): `ceil(length / perReplica)` replicas, clamped to [minReplicas, maxReplicas]. Like KEDA and
 * the HorizontalPodAutoscaler it scales through the Deployment's scale subresource (`getScale`,
 * then `updateScale` with the Scale's resourceVersion: a conditional write, so a Scale read before
 * someone else changed the Deployment answers 409 and is read again), and it never owns the
 * Deployment: the user does. It polls, as KEDA polls its scalers, and reacts to the queue at once.
 *
 * Its buggy twin treats an idle queue as "scale to zero" whatever `minReplicas` says (KEDA's
 * `minReplicaCount: 0` behaviour applied to a scaler that asks for at least one replica), so an
 * idle service loses its last Pod; caught by {@link queueScalerConverged} (convergence).
 */
export const QUEUE_SCALER = 'QueueScaler';
/** How often a scaler polls its queue (KEDA's pollingInterval defaults to 30 s). */
const POLL_MS = 3_000;

export interface QueueScalerSpec {
  /** Queue items one replica handles. */
  perReplica: number;
  minReplicas: number;
  maxReplicas: number;
}
export interface QueueScalerStatus {
  desiredReplicas?: number;
  observedGeneration?: number;
}

/** The replicas a scaler asks for at a queue length (the correct rule). */
export function desiredReplicas(spec: QueueScalerSpec, length: number): number {
  return Math.min(spec.maxReplicas, Math.max(spec.minReplicas, Math.ceil(length / spec.perReplica)));
}

function queueLength(data: unknown): number {
  const raw = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)['length'] : undefined;
  const n = Number(raw ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

function defineQueueScaler(idleToZero: boolean) {
  return defineController({
    name: 'queue-scaler',
    for: QUEUE_SCALER,
    resyncPeriodMs: 10_000,
    // the queue of the same name: a change of its length is acted on at once
    watches: [{ kind: 'ConfigMap', map: (cm) => [`${cm.metadata.namespace ?? ''}/${cm.metadata.name}`] }],
    async reconcile(ctx: ReconcileContext) {
      const so = await ctx.client.tryGet<QueueScalerSpec, QueueScalerStatus>(QUEUE_SCALER, ctx.key, { live: true });
      if (!so || so.metadata.deletionTimestamp !== undefined) return;
      const ref = { namespace: so.metadata.namespace, name: so.metadata.name };
      const queue = await ctx.client.tryGet('ConfigMap', ref, { live: true });
      const length = queueLength(queue?.['data']);
      const desired = idleToZero && length === 0 ? 0 : desiredReplicas(so.spec, length);
      let scale: Scale;
      try {
        scale = await ctx.client.getScale('Deployment', ref);
      } catch (err) {
        // no target (yet): nothing to scale; look again at the next poll
        if (isStoreError(err, 'NotFound')) return { requeueAfter: POLL_MS };
        throw err;
      }
      // a 409 (the Deployment changed since the Scale was read) is thrown: the retry reads it again
      if (scale.spec.replicas !== desired) await ctx.client.updateScale('Deployment', { ...scale, spec: { replicas: desired } });
      const status: QueueScalerStatus = { desiredReplicas: desired, observedGeneration: so.metadata.generation };
      if (so.status.desiredReplicas !== status.desiredReplicas || so.status.observedGeneration !== status.observedGeneration) await ctx.client.updateStatus({ ...so, status });
      return { requeueAfter: POLL_MS };
    },
  });
}

export const queueScalerCorrect = defineQueueScaler(false);
export const queueScalerBuggy = defineQueueScaler(true);

/**
 * The converged predicate of the pair: every QueueScaler's Deployment has the replicas its queue
 * asks for (the correct rule), or says why not.
 */
export function queueScalerConverged(view: WorldView): true | string {
  for (const so of view.list(QUEUE_SCALER)) {
    const key = `${so.metadata.namespace ?? ''}/${so.metadata.name}`;
    const target = view.get('Deployment', key);
    if (!target) continue;
    const length = queueLength(view.get('ConfigMap', key)?.['data']);
    const want = desiredReplicas(so.spec as unknown as QueueScalerSpec, length);
    const has = target.spec['replicas'];
    if (has !== want) return `Deployment ${key} has ${String(has)} replicas; QueueScaler ${so.metadata.name} asks for ${want} (queue length ${length}, minReplicas ${(so.spec as unknown as QueueScalerSpec).minReplicas})`;
  }
  return true;
}

/** The Deployment a QueueScaler sizes (the user's, with `replicas` to start with). */
export function queueTarget(name: string, replicas: number): NewObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'worker', image: 'worker:1' }] } } },
  };
}

/** The queue of a QueueScaler: a ConfigMap holding its length. */
export function queue(name: string, length: number): NewObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { length: String(length) } } as NewObject;
}

/** A QueueScaler. */
export function queueScaler(name: string, spec: QueueScalerSpec): NewObject {
  return { apiVersion: 'example.com/v1', kind: QUEUE_SCALER, metadata: { name, namespace: 'default' }, spec: { ...spec } };
}
