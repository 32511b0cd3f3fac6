import { defineController, defineProperty, type JsonObject, type NewObject, type ReconcileContext, type ReconcileResult, type RunRecord, type StoredObject, type Verdict, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { sameEndState, type SameEndStateOptions } from '../../properties/same-end-state.js';
import { specStatusOwnership } from '../../properties/spec-status-ownership.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';
import { allocatable, bindPod, noOvercommit, podCpu, usedByNode } from './pod-scheduler.js';

/**
 * Gang scheduling (the coscheduling plugin's PodGroup, Volcano's minMember, Kueue's all-or-nothing
 * admission), in small. Pods labelled with a `PodGroup` are placed only together: nothing of a
 * group runs until `minMember` of its Pods can all be placed at once, so a training job never
 * holds half its GPUs while waiting for the rest (the deadlock gangs exist to prevent).
 *
 * The scheduler reconciles a group: its Pods and the Nodes, bound Pods counted from a LIVE list
 * (what is bound where decides where there is room: a cache behind a binding made a moment ago
 * overcommits a node). A group without quorum waits (`Pending`). A group with quorum is planned:
 * its pending Pods placed oldest first on the node with the most CPU left (LeastAllocated), counting
 * the room other groups have reserved; if fewer than minMember fit, it waits `Unschedulable`.
 * Otherwise the plan is recorded first, in one status write with the resourceVersion of the live
 * read (`phase: Scheduled, placement: {pod: node}`: the admission, and the reservation other groups
 * count), and only then are the Pods bound, each one Binding posted to `pods/binding` with the
 * Pod's resourceVersion (an update may not set `spec.nodeName`). A crash or a refused write
 * between two bindings leaves the rest reserved: the next pass binds them to the nodes of the
 * plan, whatever came meanwhile. An admitted group's later Pods (a replacement for a member that went) are placed one by one, reserved the same way. Every
 * Pod and Node event enqueues every group of the namespace, so a waiting gang is placed as soon as
 * room is freed.
 *
 * The case's oracles: `gang-all-or-nothing` (a Pod of a group is bound only to the node its group's
 * recorded placement names, and a group not admitted yet records a placement only for a whole
 * quorum, its members already bound counted) and pod-scheduler's `no node is overcommitted` (after every write).
 *
 * Its buggy twin counts what is bound where from its informer cache, as a first scheduler does:
 * a cache that has not seen the other gang's bindings yet shows room that is taken, the gang is
 * admitted into it, and binding it overcommits a node.
 */
export const POD_GROUP = 'PodGroup';
const GROUP_LABEL = 'scheduling.x-k8s.io/pod-group';

interface GroupSpec {
  minMember: number;
}
interface GroupStatus {
  phase?: 'Pending' | 'Unschedulable' | 'Scheduled';
  /** Pods reserved a node and not bound yet (the plan being carried out). */
  placement?: Record<string, string>;
  /** Members bound (running or about to). */
  scheduled?: number;
  message?: string;
}
type Group = StoredObject<GroupSpec, GroupStatus>;

const nodeNameOf = (p: StoredObject) => (typeof p.spec['nodeName'] === 'string' && p.spec['nodeName'] !== '' ? p.spec['nodeName'] : undefined);
const finished = (p: StoredObject) => p.status['phase'] === 'Succeeded' || p.status['phase'] === 'Failed';
const live = (p: StoredObject) => p.metadata.deletionTimestamp === undefined && !finished(p);
const groupOf = (p: StoredObject) => p.metadata.labels[GROUP_LABEL];
const olderFirst = (a: StoredObject, b: StoredObject) => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || a.metadata.name.localeCompare(b.metadata.name);
const schedulable = (n: StoredObject) => n.spec['unschedulable'] !== true && n.metadata.deletionTimestamp === undefined;

/** CPU reserved on each node by the plans of other groups (their reserved Pods still pending). */
function reservedByNode(groups: readonly Group[], pods: readonly StoredObject[], except: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const g of groups) {
    if (g.metadata.name === except) continue;
    for (const [pod, node] of Object.entries(g.status.placement ?? {})) {
      const p = pods.find((x) => x.metadata.name === pod && groupOf(x) === g.metadata.name && live(x) && nodeNameOf(x) === undefined);
      if (p) out.set(node, (out.get(node) ?? 0) + podCpu(p));
    }
  }
  return out;
}

/** Places `pending` (in order) on the node with the most room left each; the placement, for as many as fit. */
function plan(nodes: readonly StoredObject[], taken: Map<string, number>, pending: readonly StoredObject[]): Record<string, string> {
  const placement: Record<string, string> = {};
  const left = new Map(nodes.filter(schedulable).map((n) => [n.metadata.name, allocatable(n) - (taken.get(n.metadata.name) ?? 0)]));
  for (const p of pending) {
    let best: [string, number] | undefined;
    for (const [name, room] of [...left].sort((a, b) => a[0].localeCompare(b[0]))) if (room >= podCpu(p) && (!best || room > best[1])) best = [name, room];
    if (!best) continue;
    placement[p.metadata.name] = best[0];
    left.set(best[0], best[1] - podCpu(p));
  }
  return placement;
}

function define(mistake: 'none' | 'cached-usage') {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    let g: Group | undefined = await ctx.client.tryGet<GroupSpec, GroupStatus>(POD_GROUP, ctx.key, { live: true });
    if (!g || g.metadata.deletionTimestamp !== undefined) return undefined;
    const ns = g.metadata.namespace;
    const pods = await ctx.client.list('Pod', { ...(ns !== undefined ? { namespace: ns } : {}), live: true });
    const members = pods.filter((p) => groupOf(p) === g!.metadata.name && live(p));
    const bound = members.filter((p) => nodeNameOf(p) !== undefined);
    const pending = members.filter((p) => nodeNameOf(p) === undefined).sort(olderFirst);
    const admitted = g.status.phase === 'Scheduled';
    // the plan being carried out: its Pods still pending (one gone, or bound by someone else, drops out)
    let placement = Object.fromEntries(Object.entries(g.status.placement ?? {}).filter(([pod]) => pending.some((p) => p.metadata.name === pod)));
    if (Object.keys(placement).length === 0 && pending.length > 0) {
      const quorum = admitted ? 1 : g.spec.minMember;
      if (bound.length + pending.length < quorum) {
        await writeStatus(ctx, g, { phase: 'Pending', scheduled: bound.length, message: `waiting for ${quorum - bound.length - pending.length} more of ${g.spec.minMember} members` });
        return undefined;
      }
      const nodes = await ctx.client.list('Node');
      const groups = await ctx.client.list<GroupSpec, GroupStatus>(POD_GROUP, { ...(ns !== undefined ? { namespace: ns } : {}), live: true });
      // BUG (cached-usage): the informer's Pods decide what is bound where
      const counted = mistake === 'none' ? pods : await ctx.client.list('Pod', { ...(ns !== undefined ? { namespace: ns } : {}) });
      const taken = usedByNode(counted.filter((p) => live(p)));
      for (const [n, cpu] of reservedByNode(groups, pods, g.metadata.name)) taken.set(n, (taken.get(n) ?? 0) + cpu);
      const planned = plan(nodes, taken, pending);
      if (bound.length + Object.keys(planned).length < quorum) {
        await writeStatus(ctx, g, { ...(admitted ? { phase: 'Scheduled' as const } : { phase: 'Unschedulable' as const }), scheduled: bound.length, message: `${Object.keys(planned).length} of ${pending.length} pending members fit, ${quorum - bound.length} needed` });
        return undefined; // a Pod leaving or a Node changing brings it back
      }
      // the admission and the reservation, before any binding
      g = await ctx.client.updateStatus({ ...g, status: { phase: 'Scheduled', placement: planned, scheduled: bound.length } });
      placement = planned;
    }
    let n = bound.length;
    for (const p of pending) {
      const node = placement[p.metadata.name];
      if (node === undefined) continue;
      await bindPod(ctx, p, node);
      n += 1;
    }
    await writeStatus(ctx, g, { phase: admitted || n > 0 ? 'Scheduled' : 'Pending', scheduled: n, ...(pending.length > Object.keys(placement).length ? { message: `${pending.length - Object.keys(placement).length} members wait for room` } : {}) });
    return pending.length > Object.keys(placement).length ? { requeue: true } : undefined;
  };
}

/** Every group of the namespace: a Pod or Node change may complete a quorum or free room. */
const groupsOf = (o: StoredObject, view: { list(kind: string, options?: { namespace?: string }): StoredObject[] }) =>
  view.list(POD_GROUP, o.kind === 'Pod' ? { namespace: o.metadata.namespace ?? '' } : {}).map((g) => `${g.metadata.namespace ?? ''}/${g.metadata.name}`);

const defineGangScheduler = (mistake: 'none' | 'cached-usage') =>
  defineController({
    name: 'gang-scheduler',
    for: POD_GROUP,
    watches: [
      { kind: 'Pod', map: groupsOf },
      { kind: 'Node', map: groupsOf },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile: define(mistake),
  });
export const gangSchedulerController = defineGangScheduler('none');

const PROBE = 'gang-all-or-nothing:groups';
interface GroupFact {
  key: string;
  min: number;
  phase: string;
  placement: Record<string, string>;
}
/** Per group uid. */
type Facts = { groups: Record<string, GroupFact>; pods: Record<string, { group?: string; node?: string }> };

/**
 * All or nothing: a Pod of a group is bound only as its group's recorded placement says, and a
 * group not admitted yet records a placement only for a whole quorum (with its members already
 * bound: minMember) (see the file's comment).
 */
export const gangAllOrNothing = defineProperty<Record<string, never>>({
  name: 'gang-all-or-nothing',
  description: 'a gang is admitted only with a placement for minMember Pods, and its Pods are bound only as that placement says',
  defaults: {},
  probes: () => [
    {
      name: PROBE,
      everyMs: 'write',
      phases: ['faults', 'settle', 'tail'],
      fn: (view: WorldView) => {
        const facts: Facts = { groups: {}, pods: {} };
        for (const g of view.list(POD_GROUP) as unknown as Group[]) facts.groups[g.metadata.uid] = { key: `${g.metadata.namespace ?? ''}/${g.metadata.name}`, min: g.spec.minMember, phase: g.status.phase ?? '', placement: g.status.placement ?? {} };
        for (const p of view.list('Pod')) {
          const group = groupOf(p);
          const node = nodeNameOf(p);
          facts.pods[`${p.metadata.namespace ?? ''}/${p.metadata.name}`] = { ...(group !== undefined ? { group } : {}), ...(node !== undefined ? { node } : {}) };
        }
        return { ok: true, data: facts as unknown as JsonObject };
      },
    },
  ],
  judge: (run: RunRecord): Verdict => {
    let before: Facts | undefined;
    for (const sample of run.probes[PROBE] ?? []) {
      const f = sample.data as unknown as Facts | undefined;
      if (!f) continue;
      // a new plan for a group not admitted yet: with the members already bound, a whole quorum
      // (a group made again finds its members bound: they count; one admitted places later Pods one by one)
      for (const [uid, g] of Object.entries(f.groups)) {
        const prev = before?.groups[uid];
        const size = Object.keys(g.placement).length;
        if (size === 0 || (prev !== undefined && (Object.keys(prev.placement).length > 0 || prev.phase === 'Scheduled'))) continue;
        const [ns, name] = [g.key.slice(0, g.key.indexOf('/')), g.key.slice(g.key.indexOf('/') + 1)];
        const bound = Object.entries(f.pods).filter(([k, p]) => k.startsWith(`${ns}/`) && p.group === name && p.node !== undefined && g.placement[k.slice(ns.length + 1)] === undefined).length;
        if (bound + size < g.min) {
          return { ok: false, summary: `PodGroup ${g.key} admitted at ${sample.t} ms with a placement of ${size} Pods and ${bound} bound, minMember ${g.min}`, explanation: `At t=${sample.t} ms PodGroup ${g.key} recorded a placement for ${size} Pods while ${bound} of its members were bound, fewer than its minMember ${g.min}: a gang is admitted only when all of its quorum can be placed at once.`, evidence: { group: g.key, t: sample.t, placement: g.placement, bound } };
        }
      }
      const w = sample.write !== undefined ? run.writes[sample.write] : undefined;
      if (w && before && w.kind === 'Pod' && w.actor.startsWith('controller:gang-scheduler') && w.error === undefined && !w.noop && w.changed.includes('spec.nodeName')) {
        const pod = f.pods[w.key];
        const name = w.key.slice(w.key.indexOf('/') + 1);
        const ns = w.key.slice(0, w.key.indexOf('/'));
        // the group as it was recorded when the binding was made (the write before this one)
        const g = Object.values(before.groups).find((x) => x.key === `${ns}/${pod?.group ?? ''}`);
        if (pod?.node !== undefined && (!g || g.phase !== 'Scheduled' || g.placement[name] !== pod.node)) {
          return { ok: false, summary: `Pod ${w.key} bound to ${pod.node} at ${sample.t} ms outside its gang's placement`, explanation: `At t=${sample.t} ms the scheduler bound Pod ${w.key} to node ${pod.node}, but its PodGroup ${g ? `${g.key} was ${g.phase || 'new'} with placement ${JSON.stringify(g.placement)}` : `${ns}/${pod.group ?? '?'} did not exist`}: a gang's Pods are bound only after the whole gang's placement is recorded, and only where it says.`, evidence: { pod: w.key, node: pod.node, t: sample.t } };
        }
      }
      before = f;
    }
    return { ok: true };
  },
});

/** Settled: no plan half carried out, and no waiting gang (or admitted group's Pod) that would fit now. */
export function gangsSettled(view: WorldView): true | string {
  const pods = view.list('Pod');
  const groups = view.list(POD_GROUP) as unknown as Group[];
  const taken = usedByNode(pods.filter(live));
  for (const g of groups) {
    if (g.metadata.deletionTimestamp !== undefined) continue;
    const members = pods.filter((p) => p.metadata.namespace === g.metadata.namespace && groupOf(p) === g.metadata.name && live(p));
    const pending = members.filter((p) => nodeNameOf(p) === undefined).sort(olderFirst);
    const boundN = members.length - pending.length;
    if (pending.some((p) => g.status.placement?.[p.metadata.name] !== undefined)) return `PodGroup ${g.metadata.name} has reserved Pods not bound yet`;
    if (pending.length === 0) continue;
    const quorum = g.status.phase === 'Scheduled' ? 1 : g.spec.minMember;
    const fits = Object.keys(plan(view.list('Node'), taken, pending)).length;
    if (boundN + pending.length >= quorum && boundN + fits >= quorum) return `PodGroup ${g.metadata.name}: ${fits} of its ${pending.length} pending Pods fit now (quorum ${quorum}), none bound`;
  }
  return true;
}

const node = (name: string, cpu: string): NewObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } }, spec: {}, status: { capacity: { cpu, pods: '110' }, allocatable: { cpu, pods: '110' } } });
const group = (name: string, minMember: number): NewObject => ({ apiVersion: 'scheduling.x-k8s.io/v1alpha1', kind: POD_GROUP, metadata: { name, namespace: 'default' }, spec: { minMember } });
const podSpec = (image: string, cpu: string) => ({ containers: [{ name: 'worker', image, resources: { requests: { cpu } } }] });
const member = (name: string, g: string, cpu: string): NewObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { [GROUP_LABEL]: g } }, spec: podSpec('infer:1', cpu) });

export const gangScheduler: FalsePositiveCase = {
  name: 'gang-scheduler',
  description: 'coscheduling / Volcano style gangs: a PodGroup\'s Pods are bound only once minMember of them fit at once, after the placement is recorded in the group\'s status (optimistic) as a reservation other gangs count; half-bound plans are finished after a crash',
  controllers: [gangSchedulerController],
  options: {
    // 5 CPUs: the inference gang (2 × 1 CPU) runs from the start and leaves 3, on two nodes (2 + 1):
    // one 1.5-CPU trainer fits, a gang of two does not, until the inference gang is scaled down at 8 s
    story: {
      objects: [node('node-a', '3'), node('node-b', '2'), group('infer', 2), group('train', 2), member('infer-0', 'infer', '1'), member('infer-1', 'infer', '1')],
      actions: [{ at: 8_000, type: 'delete', kind: 'Pod', key: 'default/infer-1' }],
    },
    objects: [{ kind: 'Pod', name: 'train', labels: { [GROUP_LABEL]: 'train' }, spec: [podSpec('train:1', '1500m'), podSpec('train:2', '1500m')] }],
  },
  // spec.nodeName is the scheduler's to set, once; which gang gets freed room first is first come,
  // first served (the one whose quorum the scheduler saw first), declared timing to same-end-state
  properties: [
    gangAllOrNothing(),
    noOvercommit,
    convergence({ converged: gangsSettled }),
    specStatusOwnership({ allowSpecPaths: ['spec.nodeName'] }),
    ...podEndStateProperties().map((p) => (p.name === 'same-end-state' ? sameEndState({ ...(p.options as Partial<SameEndStateOptions>), timingDependent: [POD_GROUP] }) : p)),
  ],
  buggy: {
    controllers: [defineGangScheduler('cached-usage')],
    caughtBy: ['safety-invariants'],
    // a cache behind the inference gang's bindings while the training gang is planned: seed 2 of a world with four actions finds one in 29 runs
    world: { maxActions: 4 },
    seed: 2,
    why: 'it counts what is bound where from its informer cache: a cache that has not seen the inference gang bound shows its room free, the training gang is admitted into it, and binding it overcommits a node',
  },
};
