import { defineController, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { RESYNC_MS } from './_shared/resync.js';

/**
 * In-use protection, as kube-controller-manager's pvc-protection (and pv-protection) controller:
 * a `VolumeClaim` carries the finalizer `example.com/volume-protection` from its creation (an
 * admission plugin adds it; the controller adds it to a claim that lacks it), and when the claim
 * is deleted the finalizer is removed only once no Pod uses it: a Pod, not finished (phase
 * Succeeded or Failed), one of whose volumes names the claim (`persistentVolumeClaim.claimName`).
 * Workloads create and delete the Pods; a Pod's event (its deletion above all) maps to the claims
 * it names, so a claim is let go as soon as its last consumer goes.
 *
 * The check for consumers asks the informer first (a consumer there: keep the finalizer, cheap)
 * and, when the cache shows none, the API server (a LIVE list, as the real controller's
 * `askAPIServer`): a cache that has not yet seen a Pod created a moment ago (its event delayed or
 * lost, a lagging replica answering the relist after a restart) shows the claim unused while a
 * Pod already mounts it. The claim itself is read live, and the finalizer removed by an update
 * carrying its resourceVersion. A Pod created after the claim was marked for deletion does not
 * count: the scheduler and the kubelet refuse to start a Pod on a terminating claim (the real
 * controller counts only scheduled Pods for that reason), so only the Pods created no later than
 * the mark can be using it, and the live list, taken after reading the mark, holds every one of
 * them. (The first version counted every Pod naming the claim, conservatively; found by the hunt:
 * a Pod created 2 s after the mark kept the claim for good when the controller came to the claim
 * late (its events replayed and its watch reconnecting), where the fault-free run had let it go
 * before the Pod came: the end depended on timing, and the Pod could never have used the claim.)
 *
 * Its buggy twin decides from its informer cache alone, as a first version does: a stale snapshot
 * lets it remove the finalizer while a Pod uses the claim, and the claim is gone under the Pod.
 */
export const VOLUME_CLAIM = 'VolumeClaim';
export const PROTECTION = 'example.com/volume-protection';

const finished = (p: StoredObject) => p.status['phase'] === 'Succeeded' || p.status['phase'] === 'Failed';

/** The claim names a Pod's volumes refer to. */
export function claimsOf(p: StoredObject): string[] {
  const volumes = Array.isArray(p.spec['volumes']) ? (p.spec['volumes'] as { persistentVolumeClaim?: { claimName?: unknown } }[]) : [];
  return volumes.map((v) => v.persistentVolumeClaim?.claimName).filter((n): n is string => typeof n === 'string' && n !== '');
}

/**
 * Whether any of `pods` uses the claim: same namespace, not finished, and, for a claim marked for
 * deletion, created no later than the mark (a Pod created after it never starts on the claim).
 */
function inUse(pods: readonly StoredObject[], claim: StoredObject): boolean {
  const mark = claim.metadata.deletionTimestamp;
  return pods.some((p) => p.metadata.namespace === claim.metadata.namespace && !finished(p) && claimsOf(p).includes(claim.metadata.name) && (mark === undefined || p.metadata.creationTimestamp <= mark));
}

function define(mistake: 'none' | 'cache-only') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    const claim = await ctx.client.tryGet(VOLUME_CLAIM, ctx.key, { live: true });
    if (!claim) return;
    if (claim.metadata.deletionTimestamp === undefined) {
      await addFinalizer(ctx, claim, PROTECTION);
      return;
    }
    if (!claim.metadata.finalizers.includes(PROTECTION)) return;
    const ns = claim.metadata.namespace !== undefined ? { namespace: claim.metadata.namespace } : {};
    // the informer first: a consumer there keeps the claim (a Pod event brings it back)
    if (inUse(await ctx.client.list('Pod', ns), claim)) return;
    // BUG (cache-only): the informer's "none" is taken as the answer
    // then the API server: the cache may not have seen a Pod created a moment ago
    if (mistake === 'none' && inUse(await ctx.client.list('Pod', { ...ns, live: true }), claim)) return;
    await removeFinalizer(ctx, claim, PROTECTION);
  }
  return defineController({
    name: 'volume-protection',
    for: VOLUME_CLAIM,
    // a Pod's change (its deletion, its finishing) concerns the claims it names
    watches: [{ kind: 'Pod', map: (p) => claimsOf(p).map((c) => `${p.metadata.namespace ?? ''}/${c}`) }],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const volumeProtectionController = define('none');

/**
 * The claims present at the previous write of a run (one world view per run), with the time each
 * was marked for deletion: when one is gone, the Pods that existed before its mark are checked.
 */
const seen = new WeakMap<WorldView, Map<string, { namespace: string | undefined; name: string; markedAt: string | undefined }>>();

/**
 * After every write: a claim is never gone while a Pod created before the claim was marked for
 * deletion still uses it. (A Pod created after the mark is not protected: the scheduler and the
 * kubelet refuse to start a Pod on a terminating claim.)
 */
export function neverGoneUnderAConsumer(view: WorldView): true | string {
  const prev = seen.get(view);
  const now = new Map(view.list(VOLUME_CLAIM).map((c) => [c.metadata.uid, { namespace: c.metadata.namespace, name: c.metadata.name, markedAt: c.metadata.deletionTimestamp }]));
  seen.set(view, now);
  for (const [uid, c] of prev ?? []) {
    if (now.has(uid) || c.markedAt === undefined) continue;
    const user = view.list('Pod').find((p) => p.metadata.namespace === c.namespace && !finished(p) && claimsOf(p).includes(c.name) && p.metadata.creationTimestamp < c.markedAt!);
    if (user) return `VolumeClaim ${c.namespace ?? ''}/${c.name} is gone while Pod ${user.metadata.name}, created before the claim was marked for deletion, still uses it`;
  }
  return true;
}

/** Converged, for the protection controller: every claim carries the finalizer, and a claim being deleted is still there only while a Pod created before its mark uses it. */
export function protectedClaims(view: WorldView): true | string {
  const pods = view.list('Pod');
  for (const c of view.list(VOLUME_CLAIM)) {
    if (c.metadata.deletionTimestamp === undefined) {
      if (!c.metadata.finalizers.includes(PROTECTION)) return `VolumeClaim ${c.metadata.name} lacks the protection finalizer`;
    } else if (c.metadata.finalizers.includes(PROTECTION) && !inUse(pods, c)) return `VolumeClaim ${c.metadata.name} is being deleted, no Pod uses it, and it still holds the protection finalizer`;
  }
  return true;
}

const claim = (name: string, storage: string) => ({ apiVersion: 'storage.example.com/v1', kind: VOLUME_CLAIM, metadata: { name, namespace: 'default', finalizers: [PROTECTION] }, spec: { storageClassName: 'fast', resources: { requests: { storage } } } });
const pod = (image: string, claim: string) => ({ containers: [{ name: 'app', image, volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] });

export const inUseProtection: FalsePositiveCase = {
  name: 'in-use-protection',
  description: 'pvc-protection style: a VolumeClaim keeps its protection finalizer while being deleted until no unfinished Pod created before the mark uses it, asking the cache and then the API server (a live list) before letting go',
  controllers: [volumeProtectionController],
  options: {
    // a claim and its database; the database goes, a backup Pod starts on the claim 20 ms before the claim is deleted, and finishes later (is deleted)
    story: {
      objects: [claim('data', '1Gi'), { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'db', namespace: 'default' }, spec: pod('postgres:15', 'data') as never }],
      actions: [
        { at: 3000, type: 'delete', kind: 'Pod', key: 'default/db' },
        { at: 6000, type: 'create', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'backup', namespace: 'default' }, spec: pod('restic:0.16', 'data') as never } },
        { at: 6020, type: 'delete', kind: VOLUME_CLAIM, key: 'default/data' },
        { at: 14_000, type: 'delete', kind: 'Pod', key: 'default/backup' },
      ],
      jitterMs: 10,
    },
    objects: [
      // the admission plugin's finalizer is there from the creation
      { kind: VOLUME_CLAIM, names: ['scratch', 'logs'], finalizers: [PROTECTION], spec: [{ storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } }, { storageClassName: 'fast', resources: { requests: { storage: '2Gi' } } }] },
      // consumers: a Pod's volumes cannot change, only its image
      { kind: 'Pod', name: 'db', spec: [pod('postgres:15', 'scratch'), pod('postgres:16', 'scratch')] },
      { kind: 'Pod', name: 'shipper', spec: [pod('fluentbit:2', 'logs'), pod('fluentbit:3', 'logs')] },
      { kind: 'Pod', name: 'restore', spec: [pod('restic:0.16', 'scratch')] },
    ],
    maxObjects: 4,
  },
  properties: [convergence({ converged: protectedClaims }), safetyInvariants({ invariants: { 'a claim is never gone under a Pod that used it before its deletion': neverGoneUnderAConsumer } })],
  withoutProperties: {
    'deletion-completes': 'a claim in use stays Terminating for as long as a Pod uses it, by design (the promise of pvc-protection); the user deleted the claim, not its consumers. Liveness stays judged: convergence (protectedClaims) requires a terminating claim no Pod uses to be gone',
  },
  buggy: {
    controllers: [define('cache-only')],
    caughtBy: ['safety-invariants'],
    why: 'it takes its informer cache\'s "no consumer" as the answer: a cache that has not yet seen a Pod created a moment ago lets it remove the finalizer, and the claim is gone under the Pod',
  },
};
