import { defineController, type ReconcileContext } from '../../src/index.js';
import { apply, deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';

/**
 * A cluster-scoped `SharedConfig` publishes the same ConfigMap into each namespace it lists and
 * removes it from namespaces it no longer lists: one parent, children in several namespaces
 * (found again by label across all namespaces, owned by the parent's uid).
 */
export const SHARED_CONFIG = 'SharedConfig';

interface SharedConfigSpec {
  namespaces: string[];
  data: Record<string, string>;
}
interface SharedConfigStatus {
  published?: string[];
  observedGeneration?: number;
}

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const sc = await ctx.client.tryGet<SharedConfigSpec, SharedConfigStatus>(SHARED_CONFIG, ctx.key, { live: true });
  if (!sc || sc.metadata.deletionTimestamp !== undefined) return;
  const name = `shared-${sc.metadata.name}`;
  const labels = { 'config.example.com/shared': sc.metadata.name };
  const wanted = [...new Set(sc.spec.namespaces)].sort();
  for (const namespace of wanted) {
    const cm = await apply(ctx, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels, ownerReferences: [controllerRef(sc)] }, data: sc.spec.data });
    // exactly the shared data: entries someone added by hand, or the spec dropped, go
    if (!sameJson(cm['data'] ?? {}, sc.spec.data)) await ctx.client.update({ ...cm, data: sc.spec.data });
  }
  for (const cm of await ctx.client.list('ConfigMap', { labelSelector: `config.example.com/shared=${sc.metadata.name}` })) {
    if (controlledBy(cm, sc) && !wanted.includes(cm.metadata.namespace ?? '')) await deleteIfPresent(ctx, 'ConfigMap', { namespace: cm.metadata.namespace, name: cm.metadata.name }, { uid: cm.metadata.uid });
  }
  await writeStatus(ctx, sc, { published: wanted, observedGeneration: sc.metadata.generation });
}

export const sharedConfigController = defineController({
  name: 'shared-config',
  for: SHARED_CONFIG,
  owns: ['ConfigMap'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const sharedConfig: FalsePositiveCase = {
  name: 'shared-config',
  description: 'a cluster-scoped SharedConfig keeps one ConfigMap in each namespace it lists, and none elsewhere',
  controllers: [sharedConfigController],
  options: {
    // the namespaces it publishes into exist, as the test's setup creates them on a real cluster
    // (kube-apiserver answers 404 to a ConfigMap into a namespace nobody created)
    story: { objects: ['team-a', 'team-b', 'team-c'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })) },
    objects: {
      kind: SHARED_CONFIG,
      namespace: '',
      name: 'ca',
      spec: [
        { namespaces: ['team-a', 'team-b'], data: { 'ca.crt': 'CA-1' } },
        { namespaces: ['team-b', 'team-c'], data: { 'ca.crt': 'CA-2' } },
        { namespaces: ['team-a'], data: { 'ca.crt': 'CA-1', extra: 'x' } },
      ],
    },
  },
  properties: endStateProperties(),
};
