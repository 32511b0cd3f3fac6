import { defineController, virtualTimestamp, type JsonObject, type NewObject, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { specStatusOwnership } from '../../properties/spec-status-ownership.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { sameEndState, type SameEndStateOptions } from '../../properties/same-end-state.js';
import { RESYNC_MS } from './_shared/resync.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';

/**
 * A scheduler, kube-scheduler's core loop without its plugins: it binds each pending Pod
 * (`spec.nodeName` empty) to a Node with room for the Pod's CPU requests (`status.allocatable.cpu`
 * minus the requests of the Pods bound there), the node with the most room left (LeastAllocated),
 * ties by name; a cordoned node (`spec.unschedulable`) takes none. Pending Pods are placed in the
 * scheduling queue's order, oldest first (creationTimestamp, then namespace/name): a Pod's
 * reconcile binds every pending Pod older than it that fits before it places itself, so the
 * placement is the same whichever Pod's event comes first, and a younger Pod never takes the room
 * an older one is waiting for. (The first version only planned the older Pods, reserving their
 * room, and left their binding to their own reconciles; found by the hunt: with an older Pod's
 * event lost, a younger Pod was bound next to the room reserved for it, the older one's own
 * reconcile then planned again from the new state and went elsewhere, and the CPU left was split
 * over two nodes: a fourth Pod that fits in the fault-free run stayed Unschedulable.) A Pod that
 * fits nowhere stays pending with `PodScheduled=False, reason Unschedulable`; every Pod and Node
 * event enqueues the pending Pods, so one is placed as soon as a Pod leaves and makes room.
 *
 * Binding is the one write that matters and it is made once, as kube-scheduler makes it: a
 * Binding posted to the Pod's `pods/binding` subresource (an update may not set `spec.nodeName`),
 * carrying the Pod's uid and resourceVersion as preconditions (another writer meanwhile: a 409,
 * and the reconcile plans again); the API server sets PodScheduled=True with it and never lets
 * the node change after. What is bound where is counted from a LIVE
 * list of the Pods, never the informer cache: a cache that has not yet seen the binding made a
 * moment ago (its event delayed or lost, a lagging replica answering the relist after a restart)
 * shows the node emptier than it is, and a Pod bound on that view overcommits it for good (the
 * kubelet would reject or evict it). One worker and leader election keep bindings serial.
 *
 * Its buggy twin counts the CPU bound on each node from its informer cache (the queue and the Pods
 * it binds still come from the live list), as a first scheduler does: a stale snapshot overcommits.
 */
export const NODE = 'Node';
export const POD = 'Pod';
const SCHEDULER = 'example-scheduler';

interface PodCondition {
  type: string;
  status: 'True' | 'False';
  reason?: string;
  message?: string;
  lastTransitionTime: string;
}

/** A CPU quantity in millicores ('1' → 1000, '1500m' → 1500, '0.5' → 500); undefined when unreadable. */
export function milliCpu(q: unknown): number | undefined {
  if (typeof q === 'number') return Math.round(q * 1000);
  if (typeof q !== 'string') return undefined;
  const m = /^(\d+(?:\.\d+)?)(m?)$/.exec(q.trim());
  if (!m) return undefined;
  return m[2] === 'm' ? Math.round(Number(m[1])) : Math.round(Number(m[1]) * 1000);
}

/** The Pod's CPU request: the sum over its containers. */
export function podCpu(p: StoredObject): number {
  const containers = Array.isArray(p.spec['containers']) ? (p.spec['containers'] as JsonObject[]) : [];
  return containers.reduce((n, c) => n + (milliCpu(((c['resources'] as JsonObject | undefined)?.['requests'] as JsonObject | undefined)?.['cpu']) ?? 0), 0);
}

const nodeNameOf = (p: StoredObject): string | undefined => {
  const n = p.spec['nodeName'];
  return typeof n === 'string' && n !== '' ? n : undefined;
};
const terminated = (p: StoredObject) => p.status['phase'] === 'Succeeded' || p.status['phase'] === 'Failed';
/** A node's allocatable CPU (capacity when it reports no allocatable). */
export const allocatable = (n: StoredObject): number => milliCpu((n.status['allocatable'] as JsonObject | undefined)?.['cpu'] ?? (n.status['capacity'] as JsonObject | undefined)?.['cpu']) ?? 0;
const schedulable = (n: StoredObject) => n.spec['unschedulable'] !== true && n.metadata.deletionTimestamp === undefined;
const podKey = (p: StoredObject) => (p.metadata.namespace !== undefined ? `${p.metadata.namespace}/${p.metadata.name}` : p.metadata.name);
const olderFirst = (a: StoredObject, b: StoredObject) => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || podKey(a).localeCompare(podKey(b));

/** CPU requested on each node by the Pods bound there (terminating ones still hold theirs; finished ones do not). */
export function usedByNode(pods: readonly StoredObject[]): Map<string, number> {
  const used = new Map<string, number>();
  for (const p of pods) {
    const n = nodeNameOf(p);
    if (n !== undefined && !terminated(p)) used.set(n, (used.get(n) ?? 0) + podCpu(p));
  }
  return used;
}

/** The node with the most room left after placing `cpu`, ties by name; undefined when none has room. */
function pick(nodes: readonly StoredObject[], used: ReadonlyMap<string, number>, cpu: number): string | undefined {
  let best: { name: string; left: number } | undefined;
  for (const n of [...nodes].filter(schedulable).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
    const left = allocatable(n) - (used.get(n.metadata.name) ?? 0) - cpu;
    if (left >= 0 && (!best || left > best.left)) best = { name: n.metadata.name, left };
  }
  return best?.name;
}

/** `conditions` with PodScheduled set (lastTransitionTime kept while the status stays). */
function withScheduled(pod: StoredObject, c: Omit<PodCondition, 'lastTransitionTime'>, now: number): PodCondition[] {
  const list = ((pod.status['conditions'] ?? []) as unknown as PodCondition[]).filter((x) => x.type !== 'PodScheduled');
  const prev = ((pod.status['conditions'] ?? []) as unknown as PodCondition[]).find((x) => x.type === 'PodScheduled');
  return [...list, { ...c, lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : virtualTimestamp(now) }];
}

async function setScheduled(ctx: ReconcileContext, pod: StoredObject, c: Omit<PodCondition, 'lastTransitionTime'>): Promise<void> {
  const status = { ...pod.status, conditions: withScheduled(pod, c, ctx.clock.now()) } as unknown as JsonObject;
  if (sameJson(pod.status, status)) return;
  await ctx.client.updateStatus({ ...pod, status });
}

/**
 * Binds `pod` to `node` through the `pods/binding` subresource, as kube-scheduler does, with the
 * Pod's uid and resourceVersion as preconditions (409 when it changed since it was read).
 */
export async function bindPod(ctx: ReconcileContext, pod: StoredObject, node: string): Promise<void> {
  const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid, resourceVersion: pod.metadata.resourceVersion }, target: { kind: 'Node', name: node } };
  await ctx.client.create(binding as unknown as NewObject);
}

function define(mistake: 'none' | 'cached-usage') {
  async function reconcile(ctx: ReconcileContext): Promise<void> {
    const pods = await ctx.client.list(POD, { live: true });
    const pod = pods.find((p) => podKey(p) === ctx.key);
    if (!pod || pod.metadata.deletionTimestamp !== undefined || terminated(pod)) return;
    if (pod.spec['schedulerName'] !== undefined && pod.spec['schedulerName'] !== SCHEDULER) return;
    const bound = nodeNameOf(pod);
    if (bound !== undefined) {
      await setScheduled(ctx, pod, { type: 'PodScheduled', status: 'True' });
      return;
    }
    const nodes = await ctx.client.list(NODE);
    // the scheduling queue's order: every pending Pod older than this one is placed (and bound) first
    // BUG (cached-usage): the informer's view decides where there is room
    const used = usedByNode(mistake === 'none' ? pods : await ctx.client.list(POD));
    const pending = pods.filter((p) => nodeNameOf(p) === undefined && p.metadata.deletionTimestamp === undefined && !terminated(p) && (p.spec['schedulerName'] === undefined || p.spec['schedulerName'] === SCHEDULER)).sort(olderFirst);
    for (const p of pending) {
      const n = pick(nodes, used, podCpu(p));
      if (n === undefined) {
        if (p !== pod) continue; // it waits, with its own reconcile's condition
        const fit = nodes.filter(schedulable).length;
        await setScheduled(ctx, pod, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: `0/${nodes.length} nodes are available: ${fit} Insufficient cpu, ${nodes.length - fit} unschedulable` });
        return; // a Pod leaving or a Node changing brings it back
      }
      // the binding: once, with the resourceVersion it was planned on (it sets PodScheduled=True too)
      await bindPod(ctx, p, n);
      used.set(n, (used.get(n) ?? 0) + podCpu(p));
      if (p === pod) return;
    }
  }
  /** Every pending Pod (from the cache): a Pod bound or gone, or a Node changed, may make room. */
  const pendingPods = (_o: StoredObject, view: { list(kind: string): StoredObject[] }) => view.list(POD).filter((p) => nodeNameOf(p) === undefined && p.metadata.deletionTimestamp === undefined).map(podKey);
  return defineController({
    name: 'pod-scheduler',
    for: POD,
    watches: [
      { kind: POD, map: pendingPods },
      { kind: NODE, map: pendingPods },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const podSchedulerController = define('none');

/** No node holds Pods requesting more CPU than it has (true, or which node and by how much). */
export function noNodeOvercommitted(view: WorldView): true | string {
  const used = usedByNode(view.list(POD));
  for (const n of view.list(NODE)) {
    const u = used.get(n.metadata.name) ?? 0;
    if (u > allocatable(n)) return `node ${n.metadata.name} holds Pods requesting ${u}m CPU, it has ${allocatable(n)}m`;
  }
  return true;
}

/** After every write: no node holds Pods requesting more CPU than it has. */
export const noOvercommit = safetyInvariants({ invariants: { 'no node is overcommitted': noNodeOvercommitted } });

/**
 * Converged, for the scheduler: every bound Pod reports PodScheduled=True, every pending one
 * PodScheduled=False, and no pending Pod fits on any node as the nodes are now.
 */
export function scheduled(view: WorldView): true | string {
  const pods = view.list(POD).filter((p) => p.metadata.deletionTimestamp === undefined && !terminated(p));
  const nodes = view.list(NODE);
  const used = usedByNode(pods);
  for (const p of pods) {
    const c = ((p.status['conditions'] ?? []) as unknown as PodCondition[]).find((x) => x.type === 'PodScheduled');
    const bound = nodeNameOf(p) !== undefined;
    if (c?.status !== (bound ? 'True' : 'False')) return `Pod ${podKey(p)} is ${bound ? 'bound' : 'pending'} and reports PodScheduled ${c?.status ?? 'absent'}`;
    if (!bound) {
      const n = pick(nodes, used, podCpu(p));
      if (n !== undefined) return `Pod ${podKey(p)} is pending while node ${n} has room for its ${podCpu(p)}m CPU`;
    }
  }
  return true;
}

const node = (name: string, cpu: string) => ({ apiVersion: 'v1', kind: NODE, metadata: { name, labels: { 'kubernetes.io/hostname': name } }, spec: {}, status: { capacity: { cpu, pods: '110' }, allocatable: { cpu, pods: '110' } } });
const podSpec = (image: string, cpu: string) => ({ schedulerName: SCHEDULER, containers: [{ name: 'app', image, resources: { requests: { cpu } } }] });

export const podScheduler: FalsePositiveCase = {
  name: 'pod-scheduler',
  description: 'a scheduler binds pending Pods oldest first to the Node with the most CPU left (one resourceVersion-checked Binding through pods/binding), counting what is bound from a live list, never overcommitting; Pods that fit nowhere stay pending as Unschedulable',
  controllers: [podSchedulerController],
  options: {
    // the cluster's two nodes (3 CPUs) are there from the start; the workload makes and deletes Pods (an update may only change an image)
    story: { objects: [node('node-a', '2'), node('node-b', '1')] },
    objects: [
      { kind: POD, name: 'web', spec: [podSpec('web:1', '1'), podSpec('web:2', '1')] },
      { kind: POD, name: 'batch', spec: [podSpec('batch:1', '1500m')] },
      { kind: POD, name: 'probe', spec: [podSpec('probe:1', '500m')] },
    ],
    maxObjects: 4,
  },
  // spec.nodeName is the scheduler's to set, once (kube-scheduler writes it through the binding subresource)
  // which pending Pod gets room another one freed depends on which the scheduler had seen when it
  // looked: first come, first served is timing by design, declared to same-end-state (hunt seed 97
  // run 83: web-1's ADDED event lost, so the scheduler first looked again when web-0 left, and bound
  // the older batch-0 into that room, where the fault-free run had bound web-1 at once)
  properties: [noOvercommit, convergence({ converged: scheduled }), specStatusOwnership({ allowSpecPaths: ['spec.nodeName'] }), ...podEndStateProperties().map((p) => (p.name === 'same-end-state' ? sameEndState({ ...(p.options as Partial<SameEndStateOptions>), timingDependent: [POD] }) : p))],
  buggy: {
    controllers: [define('cached-usage')],
    caughtBy: ['safety-invariants'],
    world: { maxObjects: 4, maxActions: 2 },
    why: 'it counts what is bound where from its informer cache: a cache that has not yet seen a binding made a moment ago shows the node emptier than it is, and the next Pod bound there overcommits it',
  },
};
