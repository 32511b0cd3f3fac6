import { defineController, podLifecycle, pvcBinding, type ReconcileContext, type StoredObject } from '../../src/index.js';
import { apply, deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { podReady } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { setCondition, writeStatus, type Condition } from './_shared/status.js';

/**
 * A `Quorum` runs `members` database members as Pods with stable ordinal names `<name>-<i>`,
 * each with its own PersistentVolumeClaim `data-<name>-<i>` (what a StatefulSet does, written by
 * hand as many operators do). Scaling up adds the missing ordinals; scaling down removes the
 * highest ones and their claims. A new image is rolled onto running members by changing only the
 * container image, the one Pod field that may change.
 */
export const QUORUM = 'Quorum';

interface QuorumSpec {
  members: number;
  image: string;
}
interface QuorumStatus {
  members?: number;
  readyMembers?: number;
  observedGeneration?: number;
  conditions?: Condition[];
}
type Quorum = StoredObject<QuorumSpec, QuorumStatus>;

const ordinalOf = (q: Quorum, name: string): number => {
  const m = new RegExp(`^${q.metadata.name}-(\\d+)$`).exec(name);
  return m ? Number(m[1]) : -1;
};

async function reconcile(ctx: ReconcileContext): Promise<void> {
  const q = await ctx.client.tryGet<QuorumSpec, QuorumStatus>(QUORUM, ctx.key, { live: true });
  if (!q || q.metadata.deletionTimestamp !== undefined) return;
  const ns = q.metadata.namespace;
  const owner = [controllerRef(q)];
  for (let i = 0; i < q.spec.members; i++) {
    const claim = `data-${q.metadata.name}-${i}`;
    await apply(ctx, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: claim, namespace: ns, labels: { quorum: q.metadata.name }, ownerReferences: owner },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    await apply(ctx, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${q.metadata.name}-${i}`, namespace: ns, labels: { quorum: q.metadata.name }, ownerReferences: owner },
      spec: { containers: [{ name: 'member', image: q.spec.image }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] },
    });
  }
  // scale down: members beyond the count go, highest ordinal first, with their claims
  const pods = (await ctx.client.list('Pod', { namespace: ns, labelSelector: `quorum=${q.metadata.name}` })).filter((p) => controlledBy(p, q));
  const extra = pods.filter((p) => ordinalOf(q, p.metadata.name) >= q.spec.members).sort((a, b) => ordinalOf(q, b.metadata.name) - ordinalOf(q, a.metadata.name));
  for (const p of extra) await deleteIfPresent(ctx, 'Pod', { namespace: ns, name: p.metadata.name }, { uid: p.metadata.uid });
  const claims = (await ctx.client.list('PersistentVolumeClaim', { namespace: ns, labelSelector: `quorum=${q.metadata.name}` })).filter((c) => controlledBy(c, q));
  for (const c of claims) {
    const ordinal = Number(/-(\d+)$/.exec(c.metadata.name)?.[1] ?? '-1');
    if (ordinal >= q.spec.members) await deleteIfPresent(ctx, 'PersistentVolumeClaim', { namespace: ns, name: c.metadata.name }, { uid: c.metadata.uid });
  }
  const ready = pods.filter((p) => ordinalOf(q, p.metadata.name) < q.spec.members && podReady(p) && (p.spec['containers'] as { image?: string }[] | undefined)?.[0]?.image === q.spec.image).length;
  const allReady = ready === q.spec.members;
  const conditions = setCondition(
    q.status.conditions,
    { type: 'Ready', status: allReady ? 'True' : 'False', reason: allReady ? 'MembersReady' : 'MembersNotReady', message: `${ready}/${q.spec.members} members ready`, observedGeneration: q.metadata.generation },
    ctx.clock.now(),
  );
  await writeStatus(ctx, q, { members: q.spec.members, readyMembers: ready, observedGeneration: q.metadata.generation, conditions });
}

export const quorumController = defineController({
  name: 'quorum',
  for: QUORUM,
  owns: ['Pod', 'PersistentVolumeClaim'],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile,
});

export const ordinalMembers: FalsePositiveCase = {
  name: 'ordinal-members',
  description: 'a Quorum keeps ordinal member Pods, each with its own PVC, scaling up and down and rolling the image in place',
  controllers: [quorumController],
  options: {
    objects: { kind: QUORUM, name: 'etcd', spec: [{ members: 3, image: 'etcd:3.5' }, { members: 1, image: 'etcd:3.5' }, { members: 4, image: 'etcd:3.6' }] },
    environment: [podLifecycle, pvcBinding],
  },
  properties: podEndStateProperties(),
};
