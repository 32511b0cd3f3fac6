import { defineController, fakeRestService, type ControllerDefinition, type ReconcileContext, type ReconcileResult, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { jsonApi, type Remote } from '../bug-zoo/shared/json-api.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * KEDA ScaledObject style: a `ScaledObject` sizes a workload it does not own, of any kind with a
 * scale subresource (here a custom `Worker` whose CRD declares `subresources.scale`), from a queue
 * depth read at an external metrics API: ceil(depth / 10) clamped to [min, max], polled every 15 s.
 * It reads the target's Scale (always live) and writes only replicas through the scale
 * subresource, conditional on the Scale's resourceVersion, so the person editing the Worker's
 * other fields never loses an edit; a failed metrics read keeps the current size (an error,
 * retried). One ScaledObject per target (KEDA's admission webhook refuses a second: `maxObjects` 1).
 * The Worker's own operator reports status.ready. Written by the eleventh red team (rt51).
 *
 * Its twin scales the way one does without knowing the subresource: a merge patch of the Worker's
 * whole spec, as its informer cache shows it, with the new size: when the cache is behind a
 * person's edit of the image, the patch puts the old image back.
 */
export const SCALED_OBJECT = 'ScaledObject';
export const METRICS_API = 'https://metrics.example/v1';
const WORKER = 'Worker';

interface ScaledObjectSpec {
  target: string;
  queue: string;
  min: number;
  max: number;
}
interface ScaledObjectStatus {
  desiredReplicas?: number;
  observedGeneration?: number;
}
interface Queue {
  name: string;
  depth: number;
}

const desiredFor = (depth: number, s: ScaledObjectSpec): number => Math.min(s.max, Math.max(s.min, Math.ceil(depth / 10)));

function metricScaler(mistake: 'none' | 'whole-spec'): ControllerDefinition {
  return defineController({
    name: 'metric-scaler',
    for: SCALED_OBJECT,
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    async reconcile(ctx): Promise<ReconcileResult> {
      const so = await ctx.client.tryGet<ScaledObjectSpec, ScaledObjectStatus>(SCALED_OBJECT, ctx.key, { live: true });
      if (!so || so.metadata.deletionTimestamp !== undefined) return;
      const api = jsonApi(ctx.fetch, METRICS_API);
      const queue = (await api.list<Queue>('queues', { name: so.spec.queue }))[0];
      const desired = desiredFor(queue?.depth ?? 0, so.spec);
      const ref = { namespace: so.metadata.namespace, name: so.spec.target };
      if (mistake === 'whole-spec') {
        const w = await ctx.client.tryGet(WORKER, ref);
        if (w && w.spec['size'] !== desired) await ctx.client.patch(WORKER, ref, { spec: { ...w.spec, size: desired } });
      } else {
        const scale = await ctx.client.getScale(WORKER, ref);
        if (scale.spec.replicas !== desired) await ctx.client.updateScale(WORKER, { ...scale, spec: { replicas: desired } });
      }
      await writeStatus(ctx, so, { desiredReplicas: desired, observedGeneration: so.metadata.generation });
      return { requeueAfter: 15_000 };
    },
  });
}

/** The Worker's operator: reports the size it runs (status.ready, the Scale's status.replicas). */
export const workerOperator = defineController({
  name: 'worker-operator',
  for: WORKER,
  resyncPeriodMs: RESYNC_MS,
  async reconcile(ctx: ReconcileContext): Promise<void> {
    const w = await ctx.client.tryGet(WORKER, ctx.key, { live: true });
    if (!w || w.metadata.deletionTimestamp !== undefined) return;
    await writeStatus(ctx, w, { ready: w.spec['size'] ?? 0, image: w.spec['image'] ?? '', observedGeneration: w.metadata.generation });
  },
});

export const metricScalerController = metricScaler('none');

const CHANGE_CAUSE = 'kubernetes.io/change-cause';
const setImage = (at: number, image: string) => ({ at, type: 'patch' as const, kind: WORKER, key: 'default/ingest', patch: { metadata: { annotations: { [CHANGE_CAUSE]: `kubectl set image worker/ingest worker=${image}` } }, spec: { image } } });

/** The target runs the size its queue asks for, and the image the person set last. */
function scaled(view: WorldView): true | string {
  const queues = view.downstream('metrics.example', 'queues') as unknown as Remote<Queue>[];
  for (const so of view.list(SCALED_OBJECT)) {
    if (so.metadata.deletionTimestamp !== undefined) continue;
    const spec = so.spec as unknown as ScaledObjectSpec;
    const w = view.get(WORKER, `${so.metadata.namespace}/${spec.target}`);
    if (!w) continue;
    const want = desiredFor(queues.find((q) => q.name === spec.queue)?.depth ?? 0, spec);
    if (w.spec['size'] !== want) return `Worker ${spec.target} has size ${String(w.spec['size'])}, queue ${spec.queue} asks for ${want}`;
  }
  // the image the person set last, as their change-cause records it (the story's first image before any)
  for (const w of view.list(WORKER)) {
    const cause = w.metadata.annotations[CHANGE_CAUSE];
    const last = cause === undefined ? 'ingest:1' : cause.slice(cause.lastIndexOf('=') + 1);
    if (w.spec['image'] !== last) return `Worker ${w.metadata.name} runs ${String(w.spec['image'])}, not ${last}, the image set last`;
  }
  return true;
}

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'workers.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { kind: WORKER, plural: 'workers' },
    versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.ready' } } }],
  },
};

export const metricScalerCase: FalsePositiveCase = {
  name: 'metric-scaler',
  description: "KEDA ScaledObject style: sizes a custom Worker (its CRD declares the scale subresource) from a queue depth at a metrics API, writing only replicas through /scale with the Scale's resourceVersion, so a person's edits of the Worker's other fields survive",
  controllers: [metricScalerController, workerOperator],
  options: {
    // the person rolls the Worker's image twice while it is being scaled (`kubectl set image --record`: the change-cause says to what)
    story: {
      objects: [crd, { apiVersion: 'example.com/v1', kind: WORKER, metadata: { name: 'ingest', namespace: 'default' }, spec: { size: 1, image: 'ingest:1' } }],
      actions: [setImage(3000, 'ingest:2'), setImage(9000, 'ingest:3')],
    },
    objects: { kind: SCALED_OBJECT, name: 'ingest', spec: [{ target: 'ingest', queue: 'orders', min: 1, max: 10 }, { target: 'ingest', queue: 'orders', min: 1, max: 3 }, { target: 'ingest', queue: 'emails', min: 0, max: 5 }] },
    maxObjects: 1,
    downstream: () => ({ services: [fakeRestService({ baseUrl: METRICS_API, latencyMs: 10, resources: { queues: [{ name: 'orders', depth: 35 }, { name: 'emails', depth: 0 }] } })], timeoutMs: 5_000 }),
  },
  // once its ScaledObject is deleted a Worker keeps the size it was last given (KEDA's default, without
  // restoreToOriginalReplicaCount), which depends on what the scaler saw before: a scaler whose cache never
  // showed a short-lived ScaledObject (a lost watch event) leaves the size as it was. The size is judged by
  // `converged` while a ScaledObject sizes the Worker; the end state compares everything else (rt51: 8 of
  // 2,000 runs failed same-end-state on it, every one ending with the ScaledObject deleted)
  properties: [convergence({ converged: scaled }), ...endStateProperties('spec.size', 'status.ready')],
  buggy: {
    controllers: [metricScaler('whole-spec'), workerOperator],
    caughtBy: ['convergence', 'same-end-state', 'recovery'],
    // bench/twin-seeds.ts
    seed: 9,
    why: "it merge-patches the Worker's whole spec from its cache with the new size: a cache behind the person's image edit puts the old image back",
  },
};
