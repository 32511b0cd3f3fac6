import { defineController, deployment, fromVirtualTimestamp, podLifecycle, virtualTimestamp, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { deploymentAvailable } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `Canary` moves traffic to a new image step by step (Flagger / Argo Rollouts style): a canary
 * Deployment runs the new image next to the stable one, a `TrafficSplit` gives it `steps[i]`
 * percent, and each step holds for `stepMs` once the canary is Available before the next; at 100
 * the stable Deployment takes the new image and the canary scales to zero. Progress lives in
 * status (which step, since when, for which image), so a restarted controller picks up where it
 * was; a new image restarts the walk from the first step.
 */
export const CANARY = 'Canary';
export const TRAFFIC_SPLIT = 'TrafficSplit';

interface CanarySpec {
  image: string;
  replicas: number;
  steps: number[];
  stepMs: number;
}
interface CanaryStatus {
  stableImage?: string;
  canaryImage?: string;
  step?: number;
  stepStartedAt?: string;
  phase?: 'Progressing' | 'Promoted';
  observedGeneration?: number;
}

/** The image of the stable Deployment this Canary (this uid) already runs, read live, if any. */
async function runningStableImage(ctx: ReconcileContext, c: { metadata: { namespace?: string; name: string; uid: string } }): Promise<string | undefined> {
  const d = await ctx.client.tryGet<{ template?: { spec?: { containers?: { image?: string }[] } } }>('Deployment', { namespace: c.metadata.namespace, name: `${c.metadata.name}-stable` }, { live: true });
  if (!d || d.metadata.deletionTimestamp !== undefined || !d.metadata.ownerReferences.some((r) => r.uid === c.metadata.uid)) return undefined;
  return d.spec.template?.spec?.containers?.[0]?.image;
}

async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
  // progress is kept in status: decide on the latest one, not on a cache that may lag this controller's own writes
  const c = await ctx.client.tryGet<CanarySpec, CanaryStatus>(CANARY, ctx.key, { live: true });
  if (!c || c.metadata.deletionTimestamp !== undefined) return;
  const ns = c.metadata.namespace;
  const owner = [controllerRef(c)];
  const now = ctx.clock.now();
  const st = c.status;
  // the first image is stable at once; a later one starts a walk over the steps. With none recorded
  // yet, the stable Deployment this Canary already runs says which image is stable (read live): a
  // crash between creating it and recording status, then a new image, would otherwise promote that
  // image to stable at once, every stable Pod replaced without a canary walk (found by
  // no-extra-destructive-actions counting Pod-template changes: crash-restart before the first
  // status write, then a new image at 2 s and the old one back at 5.8 s, the stable Deployment
  // rolled to web:2 and back where the fault-free run never touched it)
  const stableImage = st.stableImage ?? (await runningStableImage(ctx, c)) ?? c.spec.image;
  let step = st.canaryImage === c.spec.image ? (st.step ?? 0) : 0;
  // undefined while the step's hold has not begun (its canary does not serve yet)
  let startedAt = st.canaryImage === c.spec.image && st.stepStartedAt !== undefined ? fromVirtualTimestamp(st.stepStartedAt) : undefined;
  const walking = c.spec.image !== stableImage;
  const steps = c.spec.steps.length > 0 ? c.spec.steps : [100];
  const weight = walking ? (steps[Math.min(step, steps.length - 1)] ?? 100) : 0;
  const canaryReplicas = walking ? Math.max(1, Math.ceil((c.spec.replicas * weight) / 100)) : 0;
  const deploy = (suffix: string, image: string, replicas: number) => {
    const labels = { app: c.metadata.name, track: suffix };
    return apply(ctx, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: `${c.metadata.name}-${suffix}`, namespace: ns, ownerReferences: owner },
      spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'app', image }] } } },
    });
  };
  await deploy('stable', stableImage, c.spec.replicas);
  const canary = await deploy('canary', walking ? c.spec.image : stableImage, canaryReplicas);
  await apply(ctx, {
    apiVersion: 'split.example.com/v1',
    kind: TRAFFIC_SPLIT,
    metadata: { name: c.metadata.name, namespace: ns, ownerReferences: owner },
    spec: { backends: [{ service: `${c.metadata.name}-stable`, weight: 100 - weight }, { service: `${c.metadata.name}-canary`, weight }] },
  });
  let requeueAfter: number | undefined;
  let promoted = !walking;
  if (walking) {
    if (!deploymentAvailable(canary)) {
      // the hold starts once the canary serves: its Deployment's status change brings the next pass.
      // (Was: stamped now on every pass while waiting, a status write whose own event brought the
      // next pass at once: a write per virtual ms while the canary scaled, found by a story probe.)
      startedAt = undefined;
    } else {
      startedAt ??= now;
      if (now - startedAt >= c.spec.stepMs) {
        if (weight >= 100) promoted = true;
        else {
          step += 1;
          startedAt = now;
        }
      }
    }
    if (!promoted && startedAt !== undefined) requeueAfter = Math.max(1, c.spec.stepMs - (now - startedAt));
  }
  const status: CanaryStatus = promoted
    ? { stableImage: c.spec.image, phase: 'Promoted', observedGeneration: c.metadata.generation }
    : { stableImage, canaryImage: c.spec.image, step, ...(startedAt !== undefined ? { stepStartedAt: virtualTimestamp(startedAt) } : {}), phase: 'Progressing', observedGeneration: c.metadata.generation };
  await writeStatus(ctx, c, status);
  // promoted: the next pass moves the stable Deployment to the new image and scales the canary down
  return requeueAfter !== undefined ? { requeueAfter } : undefined;
}

export const canaryController = defineController({
  name: 'canary',
  for: CANARY,
  owns: ['Deployment', TRAFFIC_SPLIT],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const canaryRollout: FalsePositiveCase = {
  name: 'canary-rollout',
  description: 'a Canary shifts traffic to a new image step by step (10, 50, 100 %), holding each step while the canary is available, then promotes it',
  controllers: [canaryController],
  options: {
    objects: {
      kind: CANARY,
      name: 'web',
      spec: [
        { image: 'web:1', replicas: 4, steps: [10, 50, 100], stepMs: 2000 },
        { image: 'web:2', replicas: 4, steps: [10, 50, 100], stepMs: 2000 },
        { image: 'web:3', replicas: 2, steps: [50, 100], stepMs: 1000 },
      ],
    },
    environment: [deployment, podLifecycle],
  },
  // no mask for status.stepStartedAt: a settled rollout is no longer Progressing and drops it (a
  // mask matching no compared path is a configuration error)
  properties: podEndStateProperties(),
};
