import { AlreadyExistsError, defineController, fromVirtualTimestamp, isStoreError, virtualTimestamp, type ReconcileContext, type ReconcileResult, type StoredObject } from '../../src/index.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { controlledBy, controllerRef } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A `WorkerGroup` keeps `spec.replicas` `Member`s with stable ordinal names `<group>-<i>` (queue
 * consumers that register as Members; a dispatcher sends work only to members that are not
 * draining). Scaling down never deletes a member at once: the surplus (the highest ordinals) are
 * first marked with the annotation `draining-since` (the controller's clock, a timestamp on the
 * Member itself, so a restarted controller or another replica knows how long it has drained), and
 * a member is deleted only once it has drained for `GRACE_MS`, the reconcile asking to come back
 * after the time that remains. Scaling back up before the grace is over un-drains the member (the
 * annotation removed) instead of making a new one, so its in-flight work is never lost. The group
 * is read live (a cached replicas count the user has since raised would delete a member the user
 * asked to keep); Members come from the cache, and every write to one carries the cached
 * resourceVersion (a mark, an un-drain, a delete), so a cache showing an older drain of a member
 * that was un-drained and marked again since gets a 409 instead of deleting it early.
 *
 * Its buggy twin is the naive grace: mark, sleep the grace out inside the reconcile, delete. (The
 * other mistake the shape invites, the group read from the cache, deletes a member whose scale-up
 * the cache has not shown by the deadline; a story finds it in a few dozen runs, but generated
 * workloads scale down and back up within the grace in about 3 runs in 100, and none of 6,000
 * runs lost that event too, so it cannot be the gate's twin.)
 */
export const WORKER_GROUP = 'WorkerGroup';
export const MEMBER = 'Member';
const GROUP_LABEL = 'workers.example.com/group';
export const DRAINING = 'workers.example.com/draining-since';
/** How long a member drains before it is deleted (virtual ms). */
export const GRACE_MS = 15_000;

interface GroupSpec {
  replicas: number;
  image: string;
}
interface GroupStatus {
  replicas?: number;
  draining?: number;
  observedGeneration?: number;
}
interface MemberSpec {
  image: string;
}
type Group = StoredObject<GroupSpec, GroupStatus>;
type Member = StoredObject<MemberSpec, unknown>;

const ordinalOf = (g: Group, m: Member): number => {
  const x = new RegExp(`^${g.metadata.name}-(\\d+)$`).exec(m.metadata.name);
  return x ? Number(x[1]) : -1;
};

/** When the member started draining, or undefined (not draining, or a mark nobody can read: marked again). */
const drainingSince = (m: Member): number | undefined => {
  const v = m.metadata.annotations[DRAINING];
  if (v === undefined) return undefined;
  const t = fromVirtualTimestamp(v);
  return Number.isFinite(t) ? t : undefined;
};

/** A merge patch of a member with its cached resourceVersion: a stale view gets a 409 and the reconcile is retried. */
const patchMember = (ctx: ReconcileContext, m: Member, patch: Record<string, unknown>) =>
  ctx.client.patch<MemberSpec, unknown>(MEMBER, { namespace: m.metadata.namespace, name: m.metadata.name }, patch as never, { resourceVersion: m.metadata.resourceVersion });

/** @param mistake - 'sleeps': the buggy twin waits the grace out inside the reconcile instead of asking to come back */
function define(mistake: 'none' | 'sleeps') {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const g: Group | undefined = await ctx.client.tryGet<GroupSpec, GroupStatus>(WORKER_GROUP, ctx.key, { live: true });
    if (!g || g.metadata.deletionTimestamp !== undefined) return;
    const ns = g.metadata.namespace;
    const now = ctx.clock.now();
    const members = (await ctx.client.list<MemberSpec, unknown>(MEMBER, { ...(ns !== undefined ? { namespace: ns } : {}), labelSelector: `${GROUP_LABEL}=${g.metadata.name}` })).filter((m) => controlledBy(m, g));
    const byOrdinal = new Map(members.map((m) => [ordinalOf(g, m), m]));
    let active = 0;
    let draining = 0;
    let wake: number | undefined;
    const soon = (ms: number) => (wake = Math.max(1, Math.min(wake ?? ms, ms)));

    // the members the group wants: made when missing, un-drained when marked, on the group's image
    for (let i = 0; i < g.spec.replicas; i++) {
      const m = byOrdinal.get(i);
      if (!m) {
        try {
          await ctx.client.create<MemberSpec, unknown>({
            apiVersion: 'workers.example.com/v1',
            kind: MEMBER,
            metadata: { name: `${g.metadata.name}-${i}`, ...(ns !== undefined ? { namespace: ns } : {}), labels: { [GROUP_LABEL]: g.metadata.name }, ownerReferences: [controllerRef(g)] },
            spec: { image: g.spec.image },
          });
        } catch (err) {
          // there already (the cache is behind, or a predecessor's member the garbage collector has not removed yet): its event brings us back
          if (!(err instanceof AlreadyExistsError)) throw err;
          soon(1_000);
          continue;
        }
        active++;
        continue;
      }
      if (m.metadata.deletionTimestamp !== undefined) {
        soon(1_000);
        continue;
      }
      const patch: { metadata?: { annotations: Record<string, null> }; spec?: MemberSpec } = {};
      // scaled back up within the grace: it stays, with its work
      if (m.metadata.annotations[DRAINING] !== undefined) patch.metadata = { annotations: { [DRAINING]: null } };
      if (m.spec.image !== g.spec.image) patch.spec = { image: g.spec.image };
      if (patch.metadata || patch.spec) await patchMember(ctx, m, patch);
      active++;
    }

    // the surplus, highest ordinal first: marked, then deleted once drained for the grace
    const surplus = members.filter((m) => ordinalOf(g, m) >= g.spec.replicas || ordinalOf(g, m) < 0).sort((a, b) => ordinalOf(g, b) - ordinalOf(g, a));
    for (const m of surplus) {
      if (m.metadata.deletionTimestamp !== undefined) continue;
      let since = drainingSince(m);
      let seen = m;
      if (since === undefined) {
        seen = await patchMember(ctx, m, { metadata: { annotations: { [DRAINING]: virtualTimestamp(now) } } });
        since = now;
        if (mistake !== 'sleeps') {
          draining++;
          soon(GRACE_MS);
          continue;
        }
      }
      const left = since + GRACE_MS - ctx.clock.now();
      if (left > 0 && mistake === 'sleeps') {
        // BUG (sleeps): waits the grace out inside the reconcile, holding the worker (and missing a scale-up meanwhile)
        await ctx.clock.sleep(left);
      } else if (left > 0) {
        draining++;
        soon(left);
        continue;
      }
      try {
        // the precondition: the member as this reconcile saw it drained, not one un-drained and marked again since
        await ctx.client.delete(MEMBER, { namespace: m.metadata.namespace, name: m.metadata.name }, { preconditions: { uid: seen.metadata.uid, resourceVersion: seen.metadata.resourceVersion } });
      } catch (err) {
        if (!isStoreError(err, 'NotFound')) throw err;
      }
    }
    await writeStatus(ctx, g, { replicas: active, draining, observedGeneration: g.metadata.generation });
    return wake !== undefined ? { requeueAfter: wake } : undefined;
  }
  return defineController({ name: 'worker-group', for: WORKER_GROUP, owns: [MEMBER], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile });
}

export const workerGroupController = define('none');

export const gracefulScaledown: FalsePositiveCase = {
  name: 'graceful-scaledown',
  description: 'a WorkerGroup scales its ordinal Members down gracefully: the surplus is marked draining-since (a timestamp on the Member), deleted once drained for 15 s (requeueAfter the rest), and un-drained instead of replaced when the group is scaled back up in time',
  controllers: [workerGroupController],
  options: {
    objects: {
      kind: WORKER_GROUP,
      name: 'consumers',
      spec: [
        { replicas: 3, image: 'consumer:1' },
        { replicas: 1, image: 'consumer:1' },
        { replicas: 3, image: 'consumer:2' },
      ],
    },
  },
  properties: endStateProperties(),
  buggy: {
    controllers: [define('sleeps')],
    caughtBy: ['responsiveness', 'convergence', 'no-extra-destructive-actions'],
    why: 'it waits the grace out inside the reconcile (ctx.clock.sleep) instead of returning requeueAfter: the worker is held for 15 s, so a scale-up meanwhile (or any change of another group) waits, and the member the user scaled back up for is deleted anyway and made again',
  },
};
