import { defineController, defineEnvironmentActor, isStoreError, virtualTimestamp, fromVirtualTimestamp, type JsonObject, type NewObject, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { sameEndState, type SameEndStateOptions } from '../../properties/same-end-state.js';
import { addFinalizer, removeFinalizer } from '../bug-zoo/shared/finalizers.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { endStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * A rolling node upgrade orchestrator (system-upgrade-controller / kured style, concurrency 1):
 * a cluster-scoped `UpgradePlan` names a kubelet version, and the orchestrator takes the Nodes
 * still on another version one at a time, by name: cordon (`spec.unschedulable`, plus an
 * annotation naming the plan, so it never lifts a cordon it did not make), drain (the Pods bound
 * there deleted, uid precondition), ask for the upgrade (a target-version annotation the node's
 * upgrade agent acts on: the `kubelet-upgrade` environment actor reboots it, Ready False for 2 s,
 * then reports the new version Ready), and once the Node reports the version and Ready, uncordon.
 *
 * One at a time is the promise (maxUnavailable 1): the node being upgraded is a lock in the
 * plan's status (`status.upgrading`), claimed with the resourceVersion of a live read before the
 * node is cordoned (a second leader, or a pass on an old copy, gets a 409), and released only after
 * the node is uncordoned, so a crash or a refused write between the two leaves the lock on the
 * node still cordoned. A node cordoned by this plan comes first when there is no lock (a plan
 * deleted by hand, its finalizer removed, and made again under the same name). Nodes and Pods are
 * read live: which node is next, and what is left to drain, are decided on what the API server
 * holds. Deleting the plan waits for a node mid-reboot, uncordons what it cordoned, and lets go.
 *
 * The case's oracle (a safety invariant after every write): at most one Node is unavailable
 * (cordoned by the plan, or not Ready).
 *
 * One plan per cluster, the one named `cluster` (OpenShift's ClusterVersion `version` style): any
 * other is reported Ignored. (The first version acted on every plan, and two plans of different
 * versions re-upgraded the same Nodes to and fro for ever: each a lock of its own, so two nodes
 * down at once as well; found by the corpus gate's first runs.)
 *
 * Its buggy twin releases the lock before it uncordons, and without a lock picks the next node by
 * version alone: an uncordon refused (an API error) or cut by a crash after the release leaves the
 * finished node cordoned, and the next pass cordons the next node beside it.
 */
export const PLAN = 'UpgradePlan';
export const NODE = 'Node';
const CORDONED_BY = 'upgrade.example.com/cordoned-by';
const TARGET = 'upgrade.example.com/target-version';
const FINALIZER = 'upgrade.example.com/uncordon';
const REBOOT_MS = 2_000;
/** The one plan acted on. */
const SINGLETON = 'cluster';

interface PlanSpec {
  version: string;
}
interface PlanStatus {
  phase?: 'Upgrading' | 'Upgraded' | 'Ignored';
  /** The lock: the one node being upgraded. */
  upgrading?: string;
  version?: string;
  observedGeneration?: number;
}
type Plan = StoredObject<PlanSpec, PlanStatus>;

interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  lastTransitionTime?: string;
}
const conditionsOf = (n: StoredObject) => (n.status['conditions'] ?? []) as unknown as NodeCondition[];
const ready = (n: StoredObject) => conditionsOf(n).some((c) => c.type === 'Ready' && c.status === 'True');
const versionOf = (n: StoredObject) => ((n.status['nodeInfo'] ?? {}) as { kubeletVersion?: string }).kubeletVersion;
const cordonedBy = (n: StoredObject, plan: string) => n.metadata.annotations[CORDONED_BY] === plan;
/** Its upgrade agent still has work: a target it does not run yet, or it is not back Ready. */
const rebooting = (n: StoredObject) => (n.metadata.annotations[TARGET] !== undefined && n.metadata.annotations[TARGET] !== versionOf(n)) || !ready(n);
const byName = (a: StoredObject, b: StoredObject) => a.metadata.name.localeCompare(b.metadata.name);

const cordon = (ctx: ReconcileContext, n: StoredObject, plan: string) => ctx.client.patch(NODE, n.metadata.name, { spec: { unschedulable: true }, metadata: { annotations: { [CORDONED_BY]: plan } } });
const uncordon = (ctx: ReconcileContext, n: StoredObject) => ctx.client.patch(NODE, n.metadata.name, { spec: { unschedulable: false }, metadata: { annotations: { [CORDONED_BY]: null } } });

/** Deletes every Pod still bound to the node (live list); true when none is left, terminating ones included. */
async function drain(ctx: ReconcileContext, node: string): Promise<boolean> {
  const pods = (await ctx.client.list('Pod', { live: true })).filter((p) => p.spec['nodeName'] === node && p.status['phase'] !== 'Succeeded' && p.status['phase'] !== 'Failed');
  for (const p of pods) {
    if (p.metadata.deletionTimestamp !== undefined) continue;
    try {
      await ctx.client.delete('Pod', { namespace: p.metadata.namespace, name: p.metadata.name }, { preconditions: { uid: p.metadata.uid } });
    } catch (err) {
      if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
    }
  }
  return (await ctx.client.list('Pod', { live: true })).every((p) => p.spec['nodeName'] !== node);
}

function define(mistake: 'none' | 'release-first') {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    let plan: Plan | undefined = await ctx.client.tryGet<PlanSpec, PlanStatus>(PLAN, ctx.key, { live: true });
    if (!plan) return undefined;
    const name = plan.metadata.name;
    if (name !== SINGLETON) {
      // the cluster has one plan (OpenShift's ClusterVersion style): another would want its own version of the same Nodes
      if (plan.metadata.deletionTimestamp === undefined) await writeStatus(ctx, plan, { phase: 'Ignored', observedGeneration: plan.metadata.generation });
      return undefined;
    }
    const nodes = (await ctx.client.list(NODE, { live: true })).sort(byName);
    if (plan.metadata.deletionTimestamp !== undefined) {
      // a node mid-reboot stays cordoned until it is back; then every cordon of ours is lifted
      const mine = nodes.filter((n) => cordonedBy(n, name));
      if (mine.some(rebooting)) return { requeueAfter: 1_000 };
      for (const n of mine) await uncordon(ctx, n);
      await removeFinalizer(ctx, plan, FINALIZER);
      return undefined;
    }
    if (await addFinalizer(ctx, plan, FINALIZER)) return undefined;
    const want = plan.spec.version;
    let lock = plan.status.upgrading;
    if (lock === undefined || !nodes.some((n) => n.metadata.name === lock)) {
      // BUG (release-first): without a lock, the next node by version alone
      const next = (mistake === 'none' ? nodes.find((n) => cordonedBy(n, name)) : undefined) ?? nodes.find((n) => versionOf(n) !== want);
      if (!next) {
        await writeStatus(ctx, plan, { phase: 'Upgraded', version: want, observedGeneration: plan.metadata.generation });
        return undefined;
      }
      // the claim: with the resourceVersion read, so only one pass, of one leader, gets it
      plan = await ctx.client.updateStatus({ ...plan, status: { phase: 'Upgrading', upgrading: next.metadata.name, observedGeneration: plan.metadata.generation } });
      lock = next.metadata.name;
    }
    const node = nodes.find((n) => n.metadata.name === lock)!;
    if (versionOf(node) === want && !rebooting(node)) {
      const release = () => ctx.client.updateStatus({ ...plan!, status: { phase: 'Upgrading', observedGeneration: plan!.metadata.generation } });
      if (mistake === 'none') {
        // uncordon first: the lock stays on a node still cordoned until it is not
        if (cordonedBy(node, name)) await uncordon(ctx, node);
        await release();
      } else {
        await release();
        if (cordonedBy(node, name)) await uncordon(ctx, node);
      }
      return { requeue: true };
    }
    if (!cordonedBy(node, name)) await cordon(ctx, node, name);
    if (!(await drain(ctx, node.metadata.name))) return { requeueAfter: 1_000 };
    if (node.metadata.annotations[TARGET] !== want) await ctx.client.patch(NODE, node.metadata.name, { metadata: { annotations: { [TARGET]: want } } });
    await writeStatus(ctx, plan, { phase: 'Upgrading', upgrading: lock, observedGeneration: plan.metadata.generation });
    // the node's status changes (the agent's reboot) bring the next pass
    return undefined;
  };
}

const allPlans = (_o: StoredObject, view: { list(kind: string): StoredObject[] }) => view.list(PLAN).map((p) => p.metadata.name);
const defineUpgrader = (mistake: 'none' | 'release-first') =>
  defineController({
    name: 'node-upgrade',
    for: PLAN,
    watches: [
      { kind: NODE, map: allPlans },
      { kind: 'Pod', map: allPlans },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile: define(mistake),
  });
export const nodeUpgradeController = defineUpgrader('none');

/**
 * The node's upgrade agent (system-upgrade-controller's job on the node, in small): a target
 * version the kubelet does not run yet reboots the node (Ready False) and brings it back on that
 * version after REBOOT_MS.
 */
export const kubeletUpgrade = defineEnvironmentActor({
  name: 'kubelet-upgrade',
  description: 'a Node whose target-version annotation differs from its kubelet version reboots (Ready False) and comes back Ready 2 s later on the target of that moment',
  defaults: {},
  for: NODE,
  sync(ctx) {
    const n = ctx.object;
    const target = n?.metadata.annotations[TARGET];
    if (!n || target === undefined) return;
    const now = ctx.now();
    const r = conditionsOf(n).find((c) => c.type === 'Ready');
    const rebooting = r?.status !== 'True' && r?.reason === 'KubeletUpgrading';
    // a reboot under way finishes (on whatever the target is by then: the version it runs, when the
    // plan went back to it meanwhile); the first version left such a node NotReady for good (guided hunt, seed 201)
    if (!rebooting && target === versionOf(n)) return;
    if (!rebooting) {
      ctx.patchStatus(NODE, ctx.key, { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletUpgrading', lastTransitionTime: virtualTimestamp(now) }] } });
      return { afterMs: REBOOT_MS };
    }
    const due = fromVirtualTimestamp(r?.lastTransitionTime ?? virtualTimestamp(now)) + REBOOT_MS;
    if (now < due) return { afterMs: due - now };
    ctx.patchStatus(NODE, ctx.key, { status: { nodeInfo: { kubeletVersion: target }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastTransitionTime: virtualTimestamp(now) }] } });
    return undefined;
  },
});

/** maxUnavailable 1: at most one Node cordoned by a plan or not Ready. */
export function atMostOneUnavailable(view: WorldView): true | string {
  const down = view.list(NODE).filter((n) => n.metadata.annotations[CORDONED_BY] !== undefined || !ready(n));
  return down.length <= 1 ? true : `${down.length} nodes are unavailable at once: ${down.map((n) => `${n.metadata.name} (${n.metadata.annotations[CORDONED_BY] !== undefined ? 'cordoned' : ''}${ready(n) ? '' : ' not Ready'})`).join(', ')}`;
}

/** Settled: every plan Upgraded to its version, every Node on it, Ready, schedulable, no lock held. */
export function upgraded(view: WorldView): true | string {
  for (const plan of view.list(PLAN) as unknown as Plan[]) {
    if (plan.metadata.deletionTimestamp !== undefined) continue;
    if (plan.metadata.name !== SINGLETON) {
      if (plan.status.phase !== 'Ignored' || plan.status.observedGeneration !== plan.metadata.generation) return `plan ${plan.metadata.name} is not reported Ignored`;
      continue;
    }
    if (plan.status.phase !== 'Upgraded' || plan.status.version !== plan.spec.version || plan.status.upgrading !== undefined) return `plan ${plan.metadata.name} is ${plan.status.phase ?? 'new'} (${plan.status.version ?? '?'}, lock ${plan.status.upgrading ?? 'free'}), wants ${plan.spec.version}`;
    for (const n of view.list(NODE)) if (versionOf(n) !== plan.spec.version || !ready(n) || n.spec['unschedulable'] === true) return `node ${n.metadata.name} runs ${versionOf(n) ?? '?'}${ready(n) ? '' : ', not Ready'}${n.spec['unschedulable'] === true ? ', cordoned' : ''}; plan ${plan.metadata.name} wants ${plan.spec.version}`;
  }
  // (a node cordoned by a plan that is gone stays so: only a plan whose finalizer someone removed by hand leaves one, as in Kubernetes)
  return true;
}

const node = (name: string): NewObject => ({
  apiVersion: 'v1',
  kind: NODE,
  metadata: { name, labels: { 'kubernetes.io/hostname': name } },
  spec: {},
  status: { nodeInfo: { kubeletVersion: 'v1.29.4' }, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }] } as JsonObject,
});
const pod = (name: string, nodeName: string): NewObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName, containers: [{ name: 'app', image: 'web:1' }] } });

export const nodeUpgrade: FalsePositiveCase = {
  name: 'node-upgrade',
  description: 'a rolling node upgrade (system-upgrade-controller style, concurrency 1): one Node at a time is cordoned, drained, upgraded by its agent and uncordoned, under a lock in the plan\'s status claimed optimistically and released only after the uncordon',
  controllers: [nodeUpgradeController],
  options: {
    story: { objects: [node('node-a'), node('node-b'), node('node-c'), pod('web-a', 'node-a'), pod('web-b', 'node-b')] },
    objects: { kind: PLAN, namespace: '', names: ['cluster'], spec: [{ version: 'v1.30.1' }, { version: 'v1.31.0' }] },
    environment: [kubeletUpgrade],
  },
  // a plan deleted mid-walk leaves the Nodes where the walk had got, one node per reboot: how far
  // depends on when the controller came to each step, as a paused wave's does (corpus hunt: 4/200
  // runs with a delete ended one node short of the fault-free run after API errors or coalesced
  // events). The plan is declared timing dependent: the Nodes its controller walks without owning
  // them are judged field by field against fault-free runs of a later controller (a node left
  // cordoned, or on a version nobody asked for, is still reported); while a plan lives, `upgraded`
  // (convergence) checks every one
  properties: [
    safetyInvariants({ invariants: { 'at most one node unavailable': atMostOneUnavailable } }),
    convergence({ converged: upgraded }),
    ...endStateProperties().map((p) =>
      p.name === 'same-end-state'
        ? sameEndState({ ...(p.options as Partial<SameEndStateOptions>), timingDependent: [PLAN] })
        : p,
    ),
  ],
  buggy: {
    controllers: [defineUpgrader('release-first')],
    caughtBy: ['safety-invariants', 'convergence'],
    why: 'it releases the lock before it uncordons, and without a lock picks the next node by version alone: an uncordon refused by an API error, or cut short by a crash, after the release leaves the finished node cordoned while the next one is cordoned beside it',
  },
};
