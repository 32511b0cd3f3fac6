import { defineController, podLifecycle, type ReconcileContext } from '../../src/index.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { podReady } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `Backend` publishes which Pods matching its selector are Ready to serve (an Endpoints /
 * load-balancer-target controller): it owns nothing, only reads Pods others run, and writes the
 * sorted list of ready Pod names and an `Available` condition (at least `minReady` ready). Pod
 * events map to every Backend whose selector matches the Pod (listed from the cache).
 */
export const BACKEND = 'Backend';

interface BackendSpec {
  selector: Record<string, string>;
  minReady: number;
}
interface BackendStatus {
  ready?: string[];
  observedGeneration?: number;
  conditions?: Condition[];
}

const selectorOf = (sel: Record<string, string>) => Object.entries(sel).map(([k, v]) => `${k}=${v}`).sort().join(',');

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const b = await ctx.client.tryGet<BackendSpec, BackendStatus>(BACKEND, ctx.key);
  if (!b || b.metadata.deletionTimestamp !== undefined) return;
  const pods = await ctx.client.list('Pod', { namespace: b.metadata.namespace, labelSelector: selectorOf(b.spec.selector) });
  const ready = pods.filter(podReady).map((p) => p.metadata.name).sort();
  const ok = ready.length >= b.spec.minReady;
  const conditions = setCondition(b.status.conditions, { type: 'Available', status: ok ? 'True' : 'False', reason: ok ? 'EnoughReady' : 'TooFewReady', message: `${ready.length}/${b.spec.minReady} ready`, observedGeneration: b.metadata.generation }, ctx.clock.now());
  await writeStatus(ctx, b, { ready, observedGeneration: b.metadata.generation, conditions });
}

export const backendController = defineController({
  name: 'backend',
  for: BACKEND,
  watches: [
    {
      kind: 'Pod',
      map: (pod, ctx) =>
        ctx
          .list(BACKEND, { namespace: pod.metadata.namespace ?? '' })
          .filter((b) => Object.entries((b.spec['selector'] ?? {}) as Record<string, string>).every(([k, v]) => pod.metadata.labels[k] === v))
          .map((b) => `${b.metadata.namespace}/${b.metadata.name}`),
    },
  ],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

const pod = (image: string) => ({ containers: [{ name: 'web', image }] });

export const readyBackends: FalsePositiveCase = {
  name: 'ready-backends',
  description: 'a Backend lists the Ready Pods its selector matches (Pods it neither owns nor runs) and says whether enough are ready',
  controllers: [backendController],
  options: {
    objects: [
      { kind: BACKEND, name: 'web', spec: [{ selector: { app: 'web' }, minReady: 1 }, { selector: { app: 'web' }, minReady: 2 }] },
      // Pods change only their image (the one field a Pod lets change)
      { kind: 'Pod', name: 'web', labels: { app: 'web' }, spec: [pod('web:1'), pod('web:2')] },
    ],
    maxObjects: 4,
    environment: [podLifecycle],
  },
  properties: podEndStateProperties(),
};
