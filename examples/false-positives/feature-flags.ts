import { defineController, fakeRestService, type ReconcileContext, type ReconcileResult } from '../../src/index.js';
import { removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { jsonApi } from '../bug-zoo/shared/json-api.js';
import { apply } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `FeatureFlag` is rendered into a ConfigMap its application mounts, by a kubebuilder-style
 * operator with controller-runtime's `GenerationChanged` predicate on its primary (as the
 * kubebuilder book recommends for controllers that write their own status: the status writes do
 * not come back as work). The flag is also registered at an external flag service (the edge
 * evaluators read it there), found again by its owner tag and created with an idempotency key, and
 * a finalizer unregisters it before the flag goes.
 * What the predicate demands of the code, each found by the harness on a first version:
 * - adding the finalizer and returning (the usual pattern) leaves the flag unreconciled: the
 *   finalizer's update changes no generation, so the predicate drops it, and every resync with it
 *   (the buggy twin below);
 * - the flag's own ConfigMap is owned, and owned events are not filtered, so drift is repaired;
 * - a flag deleted and recreated under the same name while a watch was reconnecting reaches the
 *   cache only at the relist, as an update from generation 1 to generation 1, which the predicate
 *   drops too (as controller-runtime's does): a re-check after the finalizer is released is what
 *   brings such a key back; and so is a re-check when the flag is gone from the API server but
 *   still in the cache (found by a hunt, seed 13: a flag created and deleted again before the
 *   operator added its finalizer, its ADDED event held back so that the one reconcile it caused
 *   found nothing, its DELETED event folded into the recreated flag's ADDED; that update of the
 *   same generation was dropped, and the recreated flag was never rendered);
 * - a flag removed at the edge service by hand is registered again with a new idempotency key
 *   (one naming the registration it replaces: a reused key would only replay the deleted one).
 */
export const FEATURE_FLAG = 'FeatureFlag';
const FINALIZER = 'flags.example.com/edge';
export const FLAGS_API = 'https://edge-flags.example/v1';

interface FlagSpec {
  enabled: boolean;
  rollout: number;
}
interface FlagStatus {
  conditions?: Condition[];
  observedGeneration?: number;
  edgeId?: string;
}
interface EdgeFlag {
  owner: string;
  enabled: boolean;
  rollout: number;
}

function makeReconcile(addFinalizerThenReturn: boolean) {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    let f = await ctx.client.tryGet<FlagSpec, FlagStatus>(FEATURE_FLAG, ctx.key, { live: true });
    // gone from the API server but still in the cache: the cache is behind, and a flag recreated
    // under this name before the cache hears of the deletion reaches it as an update of the same
    // generation, which the predicate drops; look once more when the cache has caught up
    if (!f) return (await ctx.client.tryGet(FEATURE_FLAG, ctx.key)) ? { requeueAfter: 20_000 } : undefined;
    const api = jsonApi(ctx.fetch, FLAGS_API);
    if (f.metadata.deletionTimestamp !== undefined) {
      if (!f.metadata.finalizers.includes(FINALIZER)) return;
      await api.removeOwned('flags', f.metadata.uid);
      await removeFinalizer(ctx, f, FINALIZER);
      // look once more: a flag recreated under this name while the watch was down reaches the
      // cache only at the relist, as an update of the same generation the predicate drops
      return { requeueAfter: 20_000 };
    }
    if (!f.metadata.finalizers.includes(FINALIZER)) {
      f = await ctx.client.update({ ...f, metadata: { ...f.metadata, finalizers: [...f.metadata.finalizers, FINALIZER] } });
      if (addFinalizerThenReturn) return;
    }
    const want: EdgeFlag = { owner: f.metadata.uid, enabled: f.spec.enabled, rollout: f.spec.rollout };
    const [edge] = await api.list<EdgeFlag>('flags', { owner: f.metadata.uid });
    const id = edge ? edge.id : (await api.create('flags', want, { idempotencyKey: `${f.metadata.uid}/after-${f.status.edgeId ?? 'none'}` })).id;
    if (edge && (edge.enabled !== want.enabled || edge.rollout !== want.rollout)) await api.patch<EdgeFlag>('flags', edge.id, { enabled: want.enabled, rollout: want.rollout });
    await apply(ctx, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `flag-${f.metadata.name}`, namespace: f.metadata.namespace, ownerReferences: [controllerRef(f)] },
      data: { enabled: String(f.spec.enabled), rollout: String(f.spec.rollout) },
    });
    const gen = f.metadata.generation;
    const conditions = setCondition(f.status.conditions, { type: 'Ready', status: 'True', reason: 'Rendered', message: '', observedGeneration: gen }, ctx.clock.now());
    await writeStatus(ctx, f, { conditions, observedGeneration: gen, edgeId: id });
    return { requeueAfter: 20_000 };
  };
}

const define = (addFinalizerThenReturn: boolean) =>
  defineController({
    name: 'feature-flags',
    for: FEATURE_FLAG,
    owns: ['ConfigMap'],
    predicates: ['GenerationChanged'],
    // the predicate drops resyncs, so after a long outage of the flag service only the failed key's
    // own backoff brings it back: client-go's default grows to 1000 s (found by the hunt, seed 5: a
    // deletion that failed through a 20 s outage waited over 33 s after it), so cap it, as operators do
    rateLimiter: { maxDelayMs: 10_000 },
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile: makeReconcile(addFinalizerThenReturn),
  });

export const featureFlagController = define(false);

export const featureFlags: FalsePositiveCase = {
  name: 'feature-flags',
  description: "a FeatureFlag is rendered into an owned ConfigMap by an operator with controller-runtime's GenerationChanged predicate; a finalizer unregisters it at an external flag service",
  controllers: [featureFlagController],
  options: {
    objects: { kind: FEATURE_FLAG, name: 'checkout', spec: [{ enabled: true, rollout: 10 }, { enabled: true, rollout: 50 }, { enabled: false, rollout: 0 }] },
    downstream: () => ({ services: [fakeRestService({ baseUrl: FLAGS_API, idempotencyKeyHeader: 'Idempotency-Key', latencyMs: 20 })], timeoutMs: 5_000 }),
  },
  properties: endStateProperties('status.edgeId'),
  buggy: {
    controllers: [define(true)],
    caughtBy: ['convergence'],
    why: 'it adds its finalizer and returns: the update changes no generation, so the GenerationChanged predicate drops it and every resync, and the flag is never rendered',
  },
};
