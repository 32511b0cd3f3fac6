import { convergence, DEFAULT_HISTORY, defineController, isStoreError, recovery, sameEndState, type HistorySelector, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';
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
 * it never got one (a lost notification that resync repaired, or just a slow controller), and a
 * spec the user reverted keeps one; the numbers follow. So the check declares the revisions as
 * history (left out of same-end-state and recovery, held to the limit) and says in `converged`
 * what the current revision must be: the one `status.current` names, holding the spec's data.
 * (Before history was declarable it was the corpus's known false alarm: 19 of 1,000 runs.)
 */
export const APP_CONFIG = 'AppConfig';
const HISTORY = 2;
const REVISION = 'config.example.com/revision';

/** The revisions of each AppConfig: history, the current one and the HISTORY before it. */
const REVISIONS: HistorySelector = { kind: 'ConfigMap', labels: ['config.example.com/app'], limit: HISTORY + 1 };

interface AppConfigSpec {
  data: Record<string, string>;
}
interface AppConfigStatus {
  current?: string;
  observedGeneration?: number;
}

function makeReconcile(keep: number) {
  return async function reconcile(ctx: ReconcileContext): Promise<void> {
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
    // keep the newest `keep` revisions besides the current one
    const old = revisions.filter((c) => c.metadata.name !== name).sort((a, b) => rev(b) - rev(a));
    for (const c of old.slice(keep)) await deleteIfPresent(ctx, 'ConfigMap', { namespace: ns, name: c.metadata.name }, { uid: c.metadata.uid });
    if (ac.status.current !== name || ac.status.observedGeneration !== ac.metadata.generation) await writeStatus(ctx, ac, { current: name, observedGeneration: ac.metadata.generation });
  };
}

/** Converged: every AppConfig observed, and the revision its status names exists with its data. */
function currentRevisions(view: WorldView): true | string {
  for (const ac of view.list(APP_CONFIG) as unknown as StoredObject<AppConfigSpec, AppConfigStatus>[]) {
    if (ac.metadata.deletionTimestamp !== undefined) continue;
    const key = `${ac.metadata.namespace ?? ''}/${ac.metadata.name}`;
    if (ac.status.observedGeneration !== ac.metadata.generation) return `AppConfig ${key}: generation ${ac.metadata.generation} not observed`;
    const cm = ac.status.current === undefined ? undefined : (view.get('ConfigMap', `${ac.metadata.namespace ?? ''}/${ac.status.current}`) as (StoredObject & { data?: unknown }) | undefined);
    if (!cm) return `AppConfig ${key}: its current revision ${ac.status.current ?? '(none)'} does not exist`;
    if (!sameJson(cm.data, ac.spec.data)) return `AppConfig ${key}: its current revision ${cm.metadata.name} holds other data than its spec`;
  }
  return true;
}

export const configRevisionsController = defineController({
  name: 'config-revisions',
  for: APP_CONFIG,
  owns: ['ConfigMap'],
  resyncPeriodMs: RESYNC_MS,
  reconcile: makeReconcile(HISTORY),
});

export const configRevisions: FalsePositiveCase = {
  name: 'config-revisions',
  description: 'an AppConfig publishes its data as immutable, hash-named ConfigMaps (kustomize configMapGenerator style) and keeps the two previous revisions for rollback, like a Deployment\'s ReplicaSets',
  controllers: [configRevisionsController],
  options: {
    objects: { kind: APP_CONFIG, name: 'web', spec: [{ data: { LOG_LEVEL: 'info' } }, { data: { LOG_LEVEL: 'debug' } }, { data: { LOG_LEVEL: 'info', FEATURE_X: 'on' } }, { data: { LOG_LEVEL: 'warn' } }] },
    maxActions: 4,
  },
  properties: [
    sameEndState({ history: [...DEFAULT_HISTORY, REVISIONS] }),
    recovery({ history: [...DEFAULT_HISTORY, REVISIONS] }),
    convergence({ converged: currentRevisions }),
  ],
  buggy: {
    controllers: [defineController({ name: 'config-revisions', for: APP_CONFIG, owns: ['ConfigMap'], resyncPeriodMs: RESYNC_MS, reconcile: makeReconcile(Infinity) })],
    caughtBy: ['same-end-state'],
    why: 'it never prunes: every declaration it observes leaves a revision for good, beyond the declared limit of the current one and two before it',
    // four declarations to go beyond three revisions
    world: { maxActions: 6 },
  },
};
