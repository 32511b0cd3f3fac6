import { defineController, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import { apply, deleteIfPresent } from './_shared/apply.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { controlledBy, controllerRef, controllerUid } from './_shared/owner.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A three-level ownership tree torn down in order, as Cluster API tears down a Cluster
 * (Cluster → MachineDeployment → Machine): a `Fleet` keeps `spec.groups` `NodeGroup`s, each
 * NodeGroup keeps `spec.replicas` `Machine`s, and each level is its own controller with its own
 * finalizer. Children carry a controller ownerReference with `blockOwnerDeletion`, so the garbage
 * collector removes what an owner left behind; but a level's teardown must run while its owner
 * is still there (a Machine's drain needs its NodeGroup's bootstrap data, as a CAPI Machine needs
 * its Cluster's kubeconfig), so each finalizer deletes its children itself and is removed only
 * once a live list shows none of them left, being deleted or not: what foreground deletion gives
 * a user who deletes that way, but the user deletes with the default (Background) policy, so the
 * controllers do it themselves, as CAPI's do. A child deleted by someone else, or removed by the garbage collector after an owner
 * recreated under its name, is made again on the next reconcile; a scale-down deletes the
 * highest-numbered children with a uid precondition.
 *
 * Its buggy twin waits for its children with the count of the scale-up path: after issuing the
 * deletes it counts (in its cache) the children not being deleted, so it removes its finalizer as
 * soon as its cache shows the deletes, and the Fleet (or NodeGroup) is gone while its NodeGroups (Machines) are
 * still draining: the invariant below.
 */
export const FLEET = 'Fleet';
export const NODE_GROUP = 'NodeGroup';
export const MACHINE = 'Machine';
const FLEET_FINALIZER = 'fleet.example.com/teardown';
const GROUP_FINALIZER = 'nodegroup.example.com/teardown';
const MACHINE_FINALIZER = 'machine.example.com/drain';

/** One level of the tree: its kind, its children's kind and how many children an object wants. */
interface Level {
  kind: string;
  child: string;
  finalizer: string;
  count: (o: StoredObject) => number;
  childSpec: (o: StoredObject) => Record<string, number>;
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? Math.min(v, 3) : fallback);
const FLEET_LEVEL: Level = { kind: FLEET, child: NODE_GROUP, finalizer: FLEET_FINALIZER, count: (f) => num(f.spec['groups'], 1), childSpec: (f) => ({ replicas: num(f.spec['replicas'], 1) }) };
const GROUP_LEVEL: Level = { kind: NODE_GROUP, child: MACHINE, finalizer: GROUP_FINALIZER, count: (g) => num(g.spec['replicas'], 1), childSpec: () => ({}) };

const childName = (o: StoredObject, i: number) => `${o.metadata.name}-${i}`;
const indexOf = (o: StoredObject, c: StoredObject) => (c.metadata.name.startsWith(`${o.metadata.name}-`) ? Number(c.metadata.name.slice(o.metadata.name.length + 1)) : NaN);

/**
 * Reconciles one level: teardown behind its finalizer (delete the children, wait until a live
 * list has none), else the finalizer, one child per index below the count, nothing above it.
 * `waitsForDraining: false` is the buggy twin's count.
 */
function levelReconciler(level: Level, waitsForDraining: boolean) {
  return async (ctx: ReconcileContext): Promise<void> => {
    const o = await ctx.client.tryGet(level.kind, ctx.key, { live: true });
    if (!o) return;
    const ns = o.metadata.namespace !== undefined ? { namespace: o.metadata.namespace } : {};
    if (o.metadata.deletionTimestamp !== undefined) {
      if (!o.metadata.finalizers.includes(level.finalizer)) return;
      const children = (await ctx.client.list(level.child, { ...ns, live: true })).filter((c) => controlledBy(c, o));
      for (const c of children) if (c.metadata.deletionTimestamp === undefined) await deleteIfPresent(ctx, level.child, { namespace: c.metadata.namespace, name: c.metadata.name }, { uid: c.metadata.uid });
      const left = waitsForDraining ? children : (await ctx.client.list(level.child, ns)).filter((c) => controlledBy(c, o) && c.metadata.deletionTimestamp === undefined);
      if (left.length > 0) return; // each child's deletion enqueues this key (owns)
      await removeFinalizer(ctx, o, level.finalizer);
      return;
    }
    if (await addFinalizer(ctx, o, level.finalizer)) return;
    const want = level.count(o);
    const spec = level.childSpec(o);
    let ready = 0;
    for (let i = 0; i < want; i++) {
      const c = await apply(ctx, { kind: level.child, metadata: { ...ns, name: childName(o, i), ownerReferences: [controllerRef(o)] }, spec });
      if (controlledBy(c, o) && c.metadata.deletionTimestamp === undefined) ready++;
    }
    const extra = (await ctx.client.list(level.child, ns)).filter((c) => controlledBy(c, o) && c.metadata.deletionTimestamp === undefined && !(indexOf(o, c) < want));
    for (const c of extra) await deleteIfPresent(ctx, level.child, { namespace: c.metadata.namespace, name: c.metadata.name }, { uid: c.metadata.uid });
    await writeStatus(ctx, o, { ...(level.kind === FLEET ? { groups: ready } : { machines: ready }), observedGeneration: o.metadata.generation });
  };
}

/** A Machine: its drain finalizer, a Running status; being deleted, drained and let go (the drain is what its NodeGroup must outlive). */
async function reconcileMachine(ctx: ReconcileContext): Promise<void> {
  const m = await ctx.client.tryGet(MACHINE, ctx.key, { live: true });
  if (!m) return;
  if (m.metadata.deletionTimestamp !== undefined) {
    await removeFinalizer(ctx, m, MACHINE_FINALIZER);
    return;
  }
  if (await addFinalizer(ctx, m, MACHINE_FINALIZER)) return;
  await writeStatus(ctx, m, { phase: 'Running', observedGeneration: m.metadata.generation });
}

const defineLevel = (level: Level, name: string, waitsForDraining: boolean) =>
  defineController({ name, for: level.kind, owns: [level.child], leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: levelReconciler(level, waitsForDraining) });

export const fleetController = defineLevel(FLEET_LEVEL, 'fleet', true);
export const nodeGroupController = defineLevel(GROUP_LEVEL, 'node-group', true);
export const machineController = defineController({ name: 'machine', for: MACHINE, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: reconcileMachine });
/** The buggy twin's levels: they stop waiting once every child is being deleted (see the file's comment). */
export const fleetControllerHasty = defineLevel(FLEET_LEVEL, 'fleet', false);
export const nodeGroupControllerHasty = defineLevel(GROUP_LEVEL, 'node-group', false);

/** At every step, every NodeGroup's Fleet and every Machine's NodeGroup is still there (by uid): teardown runs top-down only after the bottom is gone. */
export function ownersOutliveChildren(view: WorldView): true | string {
  for (const [kind, ownerKind] of [[NODE_GROUP, FLEET], [MACHINE, NODE_GROUP]] as const) {
    const owners = new Set(view.list(ownerKind).map((o) => o.metadata.uid));
    for (const c of view.list(kind)) {
      const uid = controllerUid(c);
      if (uid !== undefined && !owners.has(uid)) return `${kind} ${c.metadata.name} outlived its ${ownerKind}${c.metadata.deletionTimestamp !== undefined ? ' (still being deleted)' : ''}`;
    }
  }
  return true;
}

export const fleetTeardown: FalsePositiveCase = {
  name: 'fleet-teardown',
  description: 'a Fleet keeps NodeGroups that keep Machines (Cluster API style), each level its own controller and finalizer; deletion runs bottom-up: a finalizer deletes its children and waits until a live list has none left',
  controllers: [fleetController, nodeGroupController, machineController],
  options: {
    objects: [{ kind: FLEET, name: 'fleet', spec: [{ groups: 1, replicas: 1 }, { groups: 2, replicas: 1 }, { groups: 1, replicas: 2 }] }],
    maxObjects: 2,
  },
  properties: [safetyInvariants({ invariants: { 'owners outlive their children': ownersOutliveChildren } })],
  buggy: {
    controllers: [fleetControllerHasty, nodeGroupControllerHasty, machineController],
    caughtBy: ['safety-invariants'],
    why: 'its finalizers count only the children not yet being deleted, so a Fleet (NodeGroup) lets go as soon as it has issued the deletes, and is gone while its NodeGroups (Machines) are still draining',
  },
};
