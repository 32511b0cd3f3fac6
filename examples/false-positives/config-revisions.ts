import { defineController, isStoreError, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { shortHash } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * An `AppConfig` publishes its data the way kustomize's configMapGenerator does: as an immutable
 * ConfigMap named after a hash of the data (`<name>-<hash>`), which `status.current` points at, so
 * pods roll to a new name instead of seeing a file change under them. Like a Deployment's
 * ReplicaSets, the previous revisions are kept for rollback, the newest `HISTORY` of them; older
 * ones are deleted. Which revisions exist is history: a spec superseded before the controller saw
 * it never got one. A known false alarm of same-end-state and recovery, which do not yet tell
 * history from state (test/helpers/false-positives.ts PENDING_ORACLE_FIXES).
 */
export const APP_CONFIG = 'AppConfig';
const HISTORY = 2;
const REVISION = 'config.example.com/revision';

interface AppConfigSpec {
  data: Record<string, string>;
}
interface AppConfigStatus {
  current?: string;
  observedGeneration?: number;
}

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const ac = await ctx.client.tryGet<AppConfigSpec, AppConfigStatus>(APP_CONFIG, ctx.key, { live: true });
  if (!ac || ac.metadata.deletionTimestamp !== undefined) return;
  const ns = ac.metadata.namespace;
  const name = `${ac.metadata.name}-${shortHash(JSON.stringify(Object.entries(ac.spec.data).sort()))}`;
  const revisions = (await ctx.client.list('ConfigMap', { ...(ns !== undefined ? { namespace: ns } : {}), labelSelector: { matchLabels: { 'config.example.com/app': ac.metadata.name } }, live: true })).filter((c) => controlledBy(c, ac));
  const rev = (c: StoredObject) => Number(c.metadata.annotations[REVISION] ?? 0);
  const newest = revisions.reduce((n, c) => Math.max(n, rev(c)), 0);
  if (!revisions.some((c) => c.metadata.name === name)) {
    try {
      await ctx.client.create({ apiVersion: 'v1', kind: 'ConfigMap', immutable: true, metadata: { name, namespace: ns, labels: { 'config.example.com/app': ac.metadata.name }, annotations: { [REVISION]: String(newest + 1) }, ownerReferences: [controllerRef(ac)] }, data: ac.spec.data } as never);
    } catch (err) {
      if (!isStoreError(err, 'AlreadyExists')) throw err;
    }
  }
  // keep the newest HISTORY revisions besides the current one
  const old = revisions.filter((c) => c.metadata.name !== name).sort((a, b) => rev(b) - rev(a));
  for (const c of old.slice(HISTORY)) await deleteIfPresent(ctx, 'ConfigMap', { namespace: ns, name: c.metadata.name }, { uid: c.metadata.uid });
  if (ac.status.current !== name || ac.status.observedGeneration !== ac.metadata.generation) await writeStatus(ctx, ac, { current: name, observedGeneration: ac.metadata.generation });
}

export const configRevisionsController = defineController({
  name: 'config-revisions',
  for: APP_CONFIG,
  owns: ['ConfigMap'],
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const configRevisions: FalsePositiveCase = {
  name: 'config-revisions',
  description: 'an AppConfig publishes its data as immutable, hash-named ConfigMaps (kustomize configMapGenerator style) and keeps the two previous revisions for rollback, like a Deployment\'s ReplicaSets',
  controllers: [configRevisionsController],
  options: {
    objects: { kind: APP_CONFIG, name: 'web', spec: [{ data: { LOG_LEVEL: 'info' } }, { data: { LOG_LEVEL: 'debug' } }, { data: { LOG_LEVEL: 'info', FEATURE_X: 'on' } }, { data: { LOG_LEVEL: 'warn' } }] },
    maxActions: 4,
  },
};
