import { defineController, fromVirtualTimestamp, podLifecycle, virtualTimestamp, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { apply, deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { podReady } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `Sandbox` is an ephemeral environment (a preview pod for a pull request) that expires: the
 * controller runs its Pod, reports when it expires, and deletes the Sandbox itself once `ttlMs`
 * has passed since creation (the TTL-after-finished pattern), with a uid precondition so that a
 * Sandbox recreated under the same name is never deleted for its predecessor's age. Deleting the
 * Sandbox takes the Pod with it (garbage collection).
 */
export const SANDBOX = 'Sandbox';

interface SandboxSpec {
  image: string;
  ttlMs: number;
}
interface SandboxStatus {
  expiresAt?: string;
  observedGeneration?: number;
  conditions?: Condition[];
}

async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
  const s = await ctx.client.tryGet<SandboxSpec, SandboxStatus>(SANDBOX, ctx.key, { live: true });
  if (!s || s.metadata.deletionTimestamp !== undefined) return;
  const expiresAt = fromVirtualTimestamp(s.metadata.creationTimestamp) + s.spec.ttlMs;
  const now = ctx.clock.now();
  if (now >= expiresAt) {
    await deleteIfPresent(ctx, SANDBOX, { namespace: s.metadata.namespace, name: s.metadata.name }, { uid: s.metadata.uid });
    return;
  }
  // the Pod template is fixed at creation except the image, the one field a Pod lets change
  const pod = await apply(ctx, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${s.metadata.name}-env`, namespace: s.metadata.namespace, labels: { sandbox: s.metadata.name }, ownerReferences: [controllerRef(s)] },
    spec: { containers: [{ name: 'env', image: s.spec.image }] },
  });
  const ready = podReady(pod) && (pod.spec['containers'] as { image?: string }[])[0]?.image === s.spec.image;
  const conditions = setCondition(s.status.conditions, { type: 'Ready', status: ready ? 'True' : 'False', reason: ready ? 'PodReady' : 'PodStarting', message: '', observedGeneration: s.metadata.generation }, now);
  await writeStatus(ctx, s, { expiresAt: virtualTimestamp(expiresAt), observedGeneration: s.metadata.generation, conditions });
  return { requeueAfter: expiresAt - now };
}

export const sandboxController = defineController({
  name: 'sandbox',
  for: SANDBOX,
  owns: ['Pod'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const sandboxTtl: FalsePositiveCase = {
  name: 'sandbox-ttl',
  description: 'a Sandbox runs a preview Pod and deletes itself (uid precondition) once its TTL has passed',
  controllers: [sandboxController],
  options: {
    objects: { kind: SANDBOX, name: 'pr', spec: [{ image: 'preview:1', ttlMs: 20_000 }, { image: 'preview:2', ttlMs: 20_000 }, { image: 'preview:2', ttlMs: 120_000 }] },
    environment: [podLifecycle],
  },
  properties: podEndStateProperties(),
};
