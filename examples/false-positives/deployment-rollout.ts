import { AlreadyExistsError, defineController, DEFAULT_HISTORY, deployment, podLifecycle, type HistorySelector, type JsonObject, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { recovery } from '../../properties/recovery.js';
import { sameEndState } from '../../properties/same-end-state.js';
import { convergence } from '../../properties/convergence.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { PLACEMENT_FIELDS } from '../../src/index.js';
import { deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef, controllerUid } from './_shared/owner.js';
import { shortHash } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';
import { canonical } from './daemon-pods.js';

/**
 * The Deployment controller's rolling update, for a `Rollout` (apps.example.com, Argo Rollouts'
 * shape: a Deployment look-alike run by its own controller): each pod template gets a ReplicaSet
 * named `<rollout>-<hash of the template>` (keys sorted, so the name is the template's, whatever
 * order a client wrote it in), labelled `pod-template-hash` and controlled by the Rollout; the
 * ReplicaSets' own controller (the built-in `deployment` environment actor's ReplicaSet loop,
 * kube's, which makes the Pods and reports `readyReplicas` and `availableReplicas`; podLifecycle
 * plays the kubelet) does the rest. A new template rolls with maxSurge 1 and maxUnavailable 0:
 * the new ReplicaSet grows while the ReplicaSets together ask for at most `replicas + 1` Pods,
 * and the old ones shrink to `replicas − available Pods of the new one` (NewRSNewReplicas and
 * reconcileOldReplicaSets' arithmetic), so as many Pods as asked serve all along. A template
 * reverted to one that still has a ReplicaSet reuses it (with the next revision number). Once
 * the rollout is complete, the `revisionHistoryLimit` (1) newest old ReplicaSets stay, scaled to
 * 0, for rollback; older ones are deleted (uid precondition). Status reports replicas, updated,
 * ready and available Pods for the generation it saw.
 *
 * It reads the Rollout and lists its ReplicaSets LIVE and resizes a ReplicaSet with an update
 * carrying the resourceVersion it read, so every size it writes was decided on the sizes that
 * stand (a concurrent write of the ReplicaSet controller's status: a 409 and a fresh look). The
 * arithmetic is only safe on one consistent view: the ReplicaSets of a cache do not lag together
 * (each object's events come on their own), so a cache showing the previous new ReplicaSet
 * smaller than it has grown since lets the next one surge past `replicas + 1`.
 *
 * Its buggy twin reads the Rollout and its ReplicaSets from the informer cache (the writes still
 * carry the resourceVersion it read), as the real controller does: a cache that does not yet show
 * the ReplicaSet it made a moment ago (its ADDED event late) sizes the next template's ReplicaSet
 * as if no Pod ran, and the two ReplicaSets ask for replicas + 2 Pods.
 */
export const ROLLOUT = 'Rollout';
const RS = 'ReplicaSet';
const HASH_LABEL = 'pod-template-hash';
const REVISION = 'deployment.kubernetes.io/revision';
const MAX_SURGE = 1;
const HISTORY_LIMIT = 1;

interface RolloutSpec {
  replicas: number;
  revisionHistoryLimit?: number;
  template: { metadata: { labels: Record<string, string> }; spec: JsonObject };
}
type Rollout = StoredObject<RolloutSpec, JsonObject>;

const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const sizeOf = (rs: StoredObject) => int(rs.spec['replicas']);
const availableOf = (rs: StoredObject) => Math.min(sizeOf(rs), int(rs.status['availableReplicas']));
const revisionOf = (rs: StoredObject) => Number(rs.metadata.annotations[REVISION] ?? 0) || 0;
export const hashOf = (r: Rollout) => shortHash(canonical(r.spec.template));

function define(mistake: 'none' | 'cached') {
  const live = mistake === 'none';
  return async function reconcile(ctx: ReconcileContext): Promise<void> {
    // BUG (cached): the Rollout and its ReplicaSets as the informer last saw them
    const r = await ctx.client.tryGet<RolloutSpec, JsonObject>(ROLLOUT, ctx.key, { live });
    if (!r || r.metadata.deletionTimestamp !== undefined) return;
    const ns = r.metadata.namespace;
    const hash = hashOf(r);
    const name = `${r.metadata.name}-${hash}`;
    const replicas = Math.max(0, r.spec.replicas);
    const all = (await ctx.client.list(RS, { ...(ns !== undefined ? { namespace: ns } : {}), live })).filter((rs) => controlledBy(rs, r) && rs.metadata.deletionTimestamp === undefined);
    let current = all.find((rs) => rs.metadata.name === name);
    const old = all.filter((rs) => rs !== current);
    const total = () => old.reduce((n, rs) => n + sizeOf(rs), 0) + (current ? sizeOf(current) : 0);
    const nextRevision = String(Math.max(0, ...all.map(revisionOf)) + 1);

    if (!current) {
      // as many as the surge allows (all of them when nothing runs yet)
      const size = Math.max(0, Math.min(replicas, replicas + MAX_SURGE - total()));
      const labels = { ...r.spec.template.metadata.labels, [HASH_LABEL]: hash };
      try {
        current = await ctx.client.create({
          apiVersion: 'apps/v1',
          kind: RS,
          metadata: { name, namespace: ns, labels, annotations: { [REVISION]: nextRevision }, ownerReferences: [controllerRef(r)] },
          spec: { replicas: size, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: r.spec.template.spec } },
        });
      } catch (err) {
        if (!(err instanceof AlreadyExistsError)) throw err;
        const there = await ctx.client.get(RS, { namespace: ns, name }, { live: true });
        // a ReplicaSet of the Rollout this one replaced under the same name: the garbage collector removes it, its deletion brings us back
        if (controllerUid(there) !== r.metadata.uid) return;
        throw err; // ours, and the list did not show it: look again
      }
      return; // its status brings us back
    }
    if (revisionOf(current) < Math.max(0, ...old.map(revisionOf))) {
      // a template reverted to: its ReplicaSet becomes the newest revision again
      current = await ctx.client.update({ ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [REVISION]: nextRevision } } });
    }
    // scale the new one up within the surge (or down to replicas, when the user asked fewer)
    const grow = sizeOf(current) < replicas ? Math.min(replicas, sizeOf(current) + Math.max(0, replicas + MAX_SURGE - total())) : replicas;
    if (grow !== sizeOf(current)) {
      current = await ctx.client.update({ ...current, spec: { ...current.spec, replicas: grow } });
    }
    // scale the old ones down to what the new one does not yet serve (maxUnavailable 0), oldest first
    let keep = Math.max(0, replicas - availableOf(current));
    const active = old.filter((rs) => sizeOf(rs) > 0).sort((a, b) => revisionOf(b) - revisionOf(a) || a.metadata.name.localeCompare(b.metadata.name));
    for (const rs of active) {
      const size = Math.min(sizeOf(rs), keep);
      keep -= size;
      if (size !== sizeOf(rs)) await ctx.client.update({ ...rs, spec: { ...rs.spec, replicas: size } });
    }
    // complete: keep the newest revisionHistoryLimit old ReplicaSets (at 0), delete the others
    const complete = sizeOf(current) === replicas && availableOf(current) === replicas && active.length === 0;
    if (complete) {
      const limit = r.spec.revisionHistoryLimit ?? HISTORY_LIMIT;
      const drained = old.filter((rs) => sizeOf(rs) === 0 && int(rs.status['replicas']) === 0).sort((a, b) => revisionOf(b) - revisionOf(a) || a.metadata.name.localeCompare(b.metadata.name));
      for (const rs of drained.slice(limit)) await deleteIfPresent(ctx, RS, { namespace: ns, name: rs.metadata.name }, { uid: rs.metadata.uid });
    }
    const pods = (f: (rs: StoredObject) => number) => all.reduce((n, rs) => n + f(rs), 0);
    await writeStatus(ctx, r, {
      observedGeneration: r.metadata.generation,
      replicas: pods((rs) => int(rs.status['replicas'])),
      updatedReplicas: int(current.status['replicas']),
      readyReplicas: pods((rs) => int(rs.status['readyReplicas'])),
      availableReplicas: pods((rs) => int(rs.status['availableReplicas'])),
    });
  };
}

const defineRollout = (mistake: 'none' | 'cached') => defineController({ name: 'deployment-rollout', for: ROLLOUT, owns: [RS], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: define(mistake) });

export const deploymentRolloutController = defineRollout('none');

const owned = (view: WorldView, r: StoredObject<unknown, unknown>) => view.list(RS).filter((rs) => controlledBy(rs, r));

/** After every write: the ReplicaSets of a Rollout never ask for more than replicas + maxSurge Pods. */
export const noOversurge = safetyInvariants({
  invariants: {
    'a Rollout asks for at most replicas + 1 Pods': (view) => {
      for (const r of view.list(ROLLOUT)) {
        const asked = owned(view, r).reduce((n, rs) => n + sizeOf(rs), 0);
        if (asked > int(r.spec['replicas']) + MAX_SURGE) return `Rollout ${r.metadata.name}'s ReplicaSets ask for ${asked} Pods, over ${int(r.spec['replicas'])} + ${MAX_SURGE}`;
      }
      return true;
    },
  },
});

/** Converged: each Rollout's current ReplicaSet serves every replica, the old ones are at 0, and its status says so. */
export function rolledOut(view: WorldView): true | string {
  for (const r of view.list(ROLLOUT) as unknown as Rollout[]) {
    if (r.metadata.deletionTimestamp !== undefined) continue;
    const rss = owned(view, r);
    const current = rss.find((rs) => rs.metadata.name === `${r.metadata.name}-${hashOf(r)}`);
    if (!current) return `Rollout ${r.metadata.name} has no ReplicaSet for its template`;
    if (sizeOf(current) !== r.spec.replicas || availableOf(current) !== r.spec.replicas) return `Rollout ${r.metadata.name}'s ReplicaSet ${current.metadata.name} has ${availableOf(current)}/${sizeOf(current)} available, wants ${r.spec.replicas}`;
    const busy = rss.find((rs) => rs !== current && (sizeOf(rs) > 0 || int(rs.status['replicas']) > 0));
    if (busy) return `Rollout ${r.metadata.name}'s old ReplicaSet ${busy.metadata.name} still runs Pods`;
    if (r.status['observedGeneration'] !== r.metadata.generation || r.status['availableReplicas'] !== r.spec.replicas) return `Rollout ${r.metadata.name}'s status does not report ${r.spec.replicas} available for generation ${r.metadata.generation}`;
  }
  return true;
}

/** The ReplicaSets of each Rollout: history (which templates got one depends on which the controller saw), the current one and one before it. */
const REPLICA_SETS: HistorySelector = { kind: RS, labels: [HASH_LABEL], limit: HISTORY_LIMIT + 1 };

const template = (image: string, extra: JsonObject = {}) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image, ...extra }] } });

export const deploymentRollout: FalsePositiveCase = {
  name: 'deployment-rollout',
  description: "the Deployment controller's rolling update for a Rollout: hash-named ReplicaSets per pod template, maxSurge 1 / maxUnavailable 0 driven by the ReplicaSets' availableReplicas, old ones scaled down as the new one becomes available, one kept for rollback and older ones deleted",
  controllers: [deploymentRolloutController],
  options: {
    // the user rolls images forward and back (the same template in another key order is the same template)
    objects: {
      kind: ROLLOUT,
      name: 'web',
      spec: [
        { replicas: 2, template: template('web:1') },
        { replicas: 2, template: template('web:2') },
        { template: { spec: { containers: [{ image: 'web:1', name: 'web' }] }, metadata: { labels: { app: 'web' } } }, replicas: 2 },
        { replicas: 2, template: template('web:3', { args: ['--verbose'] }) },
      ],
    },
    // the ReplicaSet controller (its Deployment loop has no Deployments here) and the kubelet
    environment: [deployment, podLifecycle],
  },
  properties: [
    noOversurge,
    convergence({ converged: rolledOut }),
    sameEndState({ masks: [...(sameEndState().options['masks'] as string[]), ...PLACEMENT_FIELDS], history: [...DEFAULT_HISTORY, REPLICA_SETS] }),
    recovery({ masks: [...(recovery().options['masks'] as string[]), ...PLACEMENT_FIELDS], history: [...DEFAULT_HISTORY, REPLICA_SETS] }),
  ],
  buggy: {
    controllers: [defineRollout('cached')],
    caughtBy: ['safety-invariants', 'no-extra-destructive-actions', 'same-end-state'],
    why: "it reads the Rollout and its ReplicaSets from its informer cache: a cache that does not yet show a ReplicaSet it made (the event late) sizes the next template's ReplicaSet as if nothing ran, and the two ask for replicas + 2 Pods",
    // the gate's seed misses it in its runs (seeds 13, 18, 20, 21 of 11-24 find it; 18 shrinks to a late ADDED event after a create that got a 500 but was applied)
    seed: 18,
  },
};
