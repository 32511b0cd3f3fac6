import { AlreadyExistsError, defineController, defineProperty, isStoreError, type RunRecord, type Verdict, virtualTimestamp, fromVirtualTimestamp, type Json, type JsonObject, type ReconcileContext, type ReconcileResult, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { noExtraDestructiveActions } from '../../properties/no-extra-destructive-actions.js';
import { sameEndState, type SameEndStateOptions } from '../../properties/same-end-state.js';
import { safetyInvariants } from '../../properties/safety-invariants.js';
import { specStatusOwnership } from '../../properties/spec-status-ownership.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';
import { allocatable, milliCpu, NODE, noNodeOvercommitted, POD, podCpu, podSchedulerController, scheduled, usedByNode } from './pod-scheduler.js';

/**
 * A cluster autoscaler (cluster-autoscaler with its kwok cloud provider, which makes Node objects
 * itself instead of cloud machines), sharing the world with the pod-scheduler case's scheduler.
 * A `NodePool` declares a node size (`spec.cpu`) and `spec.minNodes`/`spec.maxNodes`; its Nodes
 * are named `<pool>-<ordinal>` (the lowest free ordinals), labelled with the pool (the pool's Nodes
 * are those with its label, as a node group's: no ownerReference, so a pool deleted and made again
 * finds its Nodes, and the garbage collector never deletes Nodes under their Pods: found by the
 * gate, the first version owned its Nodes and a recreation of the pool had them collected under
 * their Pods), and registered
 * ready with their capacity (as kwok's provider does).
 *
 * Scale-up: Pods the scheduler marked `PodScheduled=False, reason Unschedulable` (and that would
 * fit an empty node of the pool) are packed, oldest first, first-fit, into the room the schedulable
 * Nodes have left, then into Nodes this autoscaler cordoned for removal (uncordoned instead of
 * replaced), then into new Nodes up to `maxNodes` (cluster-autoscaler's binpacking estimator):
 * as many Nodes are created as the leftover Pods need. A Pod whose mark is stale (room appeared
 * since) fits somewhere and asks for nothing.
 *
 * Scale-down, only while no Pod is pending: a Node with no bound unfinished Pod is marked with the
 * time it was first seen empty (annotation EMPTY_SINCE, cleared when a Pod lands); once empty for
 * SCALE_DOWN_DELAY_MS and while the pool is above `minNodes`, it is cordoned (`spec.unschedulable`
 * plus annotation CORDONED_AT, so a person's cordon is never undone), and deleted CORDON_GRACE_MS
 * later if it is still empty, with its uid and resourceVersion as preconditions. Highest ordinals
 * go first. The grace is what keeps the scheduler's binding and the deletion apart: the scheduler
 * reads Nodes from its informer cache and skips cordoned ones, so a cache that saw the cordon
 * binds nothing there, and a Pod bound just before is seen by the live re-check.
 *
 * Every decision is on LIVE reads (Pods, Nodes, the pool): a cache that has not yet seen a Pod
 * bound to an empty-looking Node would delete the Node under it, and one that has not seen the
 * Node made a moment ago would make another. Creates use fixed names, so a create whose answer
 * was lost, replayed, is an AlreadyExists, never a second Node; writes to Nodes carry their
 * resourceVersion (a concurrent change is a 409 and a requeue). The timestamps live in the Nodes'
 * annotations, so a restart keeps every delay running. A Node of the pool that a person deleted
 * under its Pods is made again under its name (a cloud's node auto-repair; this world has no pod
 * garbage collector to delete Pods bound to a Node that is gone, nor owners to recreate them: found
 * by the hunt, a drift deletion of a Node left its Pod bound to nothing for good). Pod events map to every pool, Node events
 * to their pool.
 *
 * Its buggy twin counts the pool's Nodes from its informer cache and lets the cloud name new ones
 * (`<pool>-<random>`, generateName, as cloud instances are named): a cache that does not yet show
 * the Node it made a moment ago (its event late or lost, a relist from a lagging replica after a
 * restart) makes it add another for the same pending Pods, past `maxNodes` (safety-invariants),
 * and the spare is deleted empty 10 s later (which no-extra-destructive-actions does not count
 * here: how many Nodes come and go follows placement). With fixed ordinal names
 * the second create would be an AlreadyExists; the live list is what makes either safe. (A first
 * twin judged emptiness from the cache: the cordon grace and the re-check before the delete make
 * that one need a cache more than 2 s behind a binding made within the 10 s of emptiness, and 600
 * gate-size runs never showed it.)
 */
export const NODE_POOL = 'NodePool';
export const POOL_LABEL = 'autoscaling.example.com/pool';
export const EMPTY_SINCE = 'autoscaling.example.com/empty-since';
export const CORDONED_AT = 'autoscaling.example.com/cordoned-at';
/** How long a Node stays empty before it goes (cluster-autoscaler's --scale-down-unneeded-time defaults to 10 min). */
export const SCALE_DOWN_DELAY_MS = 10_000;
/** Between the cordon and the deletion. */
export const CORDON_GRACE_MS = 2_000;

interface PoolSpec {
  cpu: string;
  minNodes: number;
  maxNodes: number;
}
interface PoolStatus {
  nodes?: number;
  pending?: number;
  observedGeneration?: number;
}

const nodeNameOf = (p: StoredObject): string | undefined => (typeof p.spec['nodeName'] === 'string' && p.spec['nodeName'] !== '' ? p.spec['nodeName'] : undefined);
const terminated = (p: StoredObject) => p.status['phase'] === 'Succeeded' || p.status['phase'] === 'Failed';
const podKey = (p: StoredObject) => `${p.metadata.namespace ?? ''}/${p.metadata.name}`;
const olderFirst = (a: StoredObject, b: StoredObject) => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || podKey(a).localeCompare(podKey(b));
const ordinalOf = (n: StoredObject) => Number(/-(\d+)$/.exec(n.metadata.name)?.[1] ?? -1);
const cordonedByUs = (n: StoredObject) => n.metadata.annotations[CORDONED_AT] !== undefined;
const unschedulable = (p: StoredObject) => ((p.status['conditions'] ?? []) as { type?: string; status?: string; reason?: string }[]).some((c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable');
/** Pods waiting for a node: unbound, not going away. */
const waiting = (pods: readonly StoredObject[]) => pods.filter((p) => nodeNameOf(p) === undefined && p.metadata.deletionTimestamp === undefined && !terminated(p));
/** A pool's Nodes are those labelled with its name (a node group's, as in cluster-autoscaler: no ownerReference, which would have the garbage collector delete them with the pool). */
const inPool = (n: StoredObject, pool: StoredObject<unknown, unknown>) => n.metadata.labels[POOL_LABEL] === pool.metadata.name;
const boundTo = (pods: readonly StoredObject[], node: string) => pods.some((p) => nodeNameOf(p) === node && !terminated(p));

function nodeFor(pool: StoredObject<PoolSpec, PoolStatus>, ordinal: number) {
  const name = `${pool.metadata.name}-${ordinal}`;
  const cpu = pool.spec.cpu;
  return {
    apiVersion: 'v1',
    kind: NODE,
    metadata: { name, labels: { 'kubernetes.io/hostname': name, [POOL_LABEL]: pool.metadata.name } },
    spec: {},
    // registered ready with its capacity, as cluster-autoscaler's kwok provider does
    status: { capacity: { cpu, pods: '110' }, allocatable: { cpu, pods: '110' } },
  };
}

/** The buggy twin's Node: named by the cloud, as an instance is (`<pool>-<random>`). */
const cloudNamed = (n: ReturnType<typeof nodeFor>) => ({ ...n, metadata: { generateName: `${n.metadata.labels[POOL_LABEL]}-`, labels: { [POOL_LABEL]: n.metadata.labels[POOL_LABEL] } } });

function define(mistake: 'none' | 'cached-nodes') {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const pool = await ctx.client.tryGet<PoolSpec, PoolStatus>(NODE_POOL, ctx.key, { live: true });
    if (!pool || pool.metadata.deletionTimestamp !== undefined) return;
    const now = ctx.clock.now();
    const size = milliCpu(pool.spec.cpu) ?? 0;
    // BUG (cached-nodes): the informer's Nodes, which may not show the Node made a moment ago
    const allNodes = await ctx.client.list(NODE, mistake === 'none' ? { live: true } : {});
    const nodes = allNodes.filter((n) => inPool(n, pool) && n.metadata.deletionTimestamp === undefined).sort((a, b) => ordinalOf(a) - ordinalOf(b));
    const pods = await ctx.client.list(POD, { live: true });
    const used = usedByNode(pods);
    const patchNode = (n: StoredObject, patch: JsonObject) => ctx.client.patch(NODE, n.metadata.name, patch, { resourceVersion: n.metadata.resourceVersion });
    const timers: number[] = [];

    // repair: a Node of the pool that Pods are bound to but that is gone (a person deleted it) is made again under its name, as a cloud's node auto-repair recreates a machine
    const taken = new Set(allNodes.map((n) => n.metadata.name));
    const ours = new RegExp(`^${pool.metadata.name}-(\\d+)$`);
    const missing = [...new Set(pods.filter((p) => !terminated(p) && p.metadata.deletionTimestamp === undefined).map(nodeNameOf))].filter((n): n is string => n !== undefined && !taken.has(n) && ours.test(n)).sort();
    let repaired = 0;
    for (const name of missing) {
      if (nodes.length + repaired >= pool.spec.maxNodes) break;
      repaired++;
      try {
        await ctx.client.create(nodeFor(pool, Number(ours.exec(name)![1])) as never);
      } catch (err) {
        if (!(err instanceof AlreadyExistsError)) throw err;
      }
    }
    if (repaired > 0) return { requeue: true };

    // a Pod landed: the Node is no longer a candidate (and is given back if we had cordoned it)
    for (const n of nodes) {
      if (!boundTo(pods, n.metadata.name)) continue;
      if (n.metadata.annotations[EMPTY_SINCE] === undefined && !cordonedByUs(n)) continue;
      await patchNode(n, { metadata: { annotations: { [EMPTY_SINCE]: null, [CORDONED_AT]: null } }, ...(cordonedByUs(n) ? { spec: { unschedulable: null } } : {}) } as JsonObject);
      return { requeue: true };
    }

    // scale up: pack the Unschedulable Pods (that fit a node of the pool) into the room there is, then into new Nodes
    const pending = waiting(pods).filter((p) => podCpu(p) <= size).sort(olderFirst);
    const room = [...nodes.filter((n) => n.spec['unschedulable'] !== true), ...nodes.filter((n) => n.spec['unschedulable'] === true && cordonedByUs(n))].map((n) => ({ node: n as StoredObject | undefined, left: allocatable(n) - (used.get(n.metadata.name) ?? 0) }));
    let fresh = 0;
    const reclaim = new Set<StoredObject>();
    for (const p of pending.filter(unschedulable)) {
      let slot = room.find((r) => r.left >= podCpu(p));
      if (!slot && nodes.length + fresh < pool.spec.maxNodes) {
        slot = { node: undefined, left: size };
        room.push(slot);
        fresh++;
      }
      if (!slot) continue; // at maxNodes: it waits
      slot.left -= podCpu(p);
      if (slot.node && slot.node.spec['unschedulable'] === true) reclaim.add(slot.node);
    }
    // below the minimum: make it up
    fresh = Math.max(fresh, pool.spec.minNodes - nodes.length);
    for (const n of reclaim) await patchNode(n, { metadata: { annotations: { [EMPTY_SINCE]: null, [CORDONED_AT]: null } }, spec: { unschedulable: null } } as JsonObject);
    for (let i = 0, made = 0; made < fresh; i++) {
      const name = `${pool.metadata.name}-${i}`;
      if (taken.has(name)) continue;
      made++;
      try {
        await ctx.client.create((mistake === 'none' ? nodeFor(pool, i) : cloudNamed(nodeFor(pool, i))) as never);
      } catch (err) {
        // made by an earlier pass whose answer was lost: the next live list counts it
        if (!(err instanceof AlreadyExistsError)) throw err;
      }
    }
    if (reclaim.size > 0 || fresh > 0) {
      await writeStatus(ctx, pool, { nodes: nodes.length + fresh, pending: pending.length, observedGeneration: pool.metadata.generation });
      return;
    }

    // scale down, while nothing waits for room
    const quiet = pending.length === 0;
    const above = nodes.length - pool.spec.minNodes;
    const candidates: StoredObject[] = [];
    for (const n of nodes) {
      const empty = !boundTo(pods, n.metadata.name);
      const since = n.metadata.annotations[EMPTY_SINCE];
      if (!quiet || !empty || above <= 0) {
        // at the minimum (or needed again): no mark, no cordon of ours
        if (quiet && above <= 0 && (since !== undefined || cordonedByUs(n))) await patchNode(n, { metadata: { annotations: { [EMPTY_SINCE]: null, [CORDONED_AT]: null } }, ...(cordonedByUs(n) ? { spec: { unschedulable: null } } : {}) } as JsonObject);
        continue;
      }
      if (since === undefined) {
        await patchNode(n, { metadata: { annotations: { [EMPTY_SINCE]: virtualTimestamp(now) } } });
        timers.push(SCALE_DOWN_DELAY_MS);
        continue;
      }
      const due = fromVirtualTimestamp(since) + SCALE_DOWN_DELAY_MS;
      if (due > now) timers.push(due - now);
      else candidates.push(n);
    }
    const going = candidates.sort((a, b) => ordinalOf(b) - ordinalOf(a)).slice(0, Math.max(0, above));
    for (const n of candidates) {
      if (going.includes(n) || !cordonedByUs(n)) continue;
      await patchNode(n, { metadata: { annotations: { [CORDONED_AT]: null } }, spec: { unschedulable: null } } as JsonObject);
    }
    let deleted = 0;
    for (const n of going) {
      const cordoned = n.metadata.annotations[CORDONED_AT];
      if (cordoned === undefined) {
        // a person's cordon is theirs: ours is marked
        await patchNode(n, { metadata: { annotations: { [CORDONED_AT]: virtualTimestamp(now) } }, spec: { unschedulable: true } });
        timers.push(CORDON_GRACE_MS);
        continue;
      }
      const due = fromVirtualTimestamp(cordoned) + CORDON_GRACE_MS;
      if (due > now) {
        timers.push(due - now);
        continue;
      }
      try {
        await ctx.client.delete(NODE, n.metadata.name, { preconditions: { uid: n.metadata.uid, resourceVersion: n.metadata.resourceVersion } });
        deleted++;
      } catch (err) {
        if (!isStoreError(err, 'NotFound')) throw err;
      }
    }
    await writeStatus(ctx, pool, { nodes: nodes.length - deleted, pending: pending.length, observedGeneration: pool.metadata.generation });
    return timers.length > 0 ? { requeueAfter: Math.max(1, Math.min(...timers)) } : undefined;
  }
  return defineController({
    name: 'node-autoscaler',
    for: NODE_POOL,
    watches: [
      // any Pod may need room or free a Node
      { kind: POD, map: (_p, view) => view.list(NODE_POOL).map((p) => p.metadata.name) },
      { kind: NODE, map: (n) => (n.metadata.labels[POOL_LABEL] !== undefined ? [n.metadata.labels[POOL_LABEL]] : []) },
    ],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const nodeAutoscalerController = define('none');

const poolOf = (view: WorldView) => view.list(NODE_POOL) as unknown as StoredObject<PoolSpec, PoolStatus>[];

/** After every write: no Node is overcommitted, no pool above its maximum. */
export const autoscalerSafety = safetyInvariants({
  invariants: {
    'no node is overcommitted': noNodeOvercommitted,
    'no pool holds more than maxNodes': (view) => {
      for (const pool of poolOf(view)) {
        const n = view.list(NODE).filter((x) => inPool(x, pool)).length;
        if (n > pool.spec.maxNodes) return `pool ${pool.metadata.name} holds ${n} nodes, at most ${pool.spec.maxNodes}`;
      }
      return true;
    },
  },
});

const PROBE = 'scale-down-safety:bound';

/**
 * The autoscaler never deletes a Node a Pod is bound to: a probe after every write records which
 * unfinished Pods are bound to each Node name, and the judge looks, for each deletion of a Node by
 * the autoscaler, at what was bound to it right after. Only the autoscaler's own deletions count:
 * a person (drift) may delete a Node under its Pods, and a scheduler that binds to a Node after it
 * went (its cache behind) did so after the deletion, not before.
 */
export const scaleDownSafety = defineProperty<{ controller: string }>({
  name: 'scale-down-safety',
  description: 'the autoscaler never deletes a Node an unfinished Pod is bound to',
  defaults: { controller: 'node-autoscaler' },
  probes: () => [
    {
      name: PROBE,
      everyMs: 'write',
      phases: ['faults', 'settle', 'tail'],
      fn: (view: WorldView) => {
        const data: Record<string, string[]> = {};
        for (const p of view.list(POD)) {
          const n = nodeNameOf(p);
          if (n !== undefined && !terminated(p)) (data[n] ??= []).push(podKey(p));
        }
        return { ok: true, data };
      },
    },
  ],
  judge: (run: RunRecord, o): Verdict => {
    for (const sample of run.probes[PROBE] ?? []) {
      const w = sample.write !== undefined ? run.writes[sample.write] : undefined;
      if (!w || w.kind !== NODE || w.verb !== 'delete' || !w.removed || !w.actor.startsWith(`controller:${o.controller}/`)) continue;
      const bound = ((sample.data ?? {}) as Record<string, string[]>)[w.key] ?? [];
      if (bound.length > 0)
        return {
          ok: false,
          summary: `${w.actor} deleted Node ${w.key} at ${w.t} ms while Pod ${bound.join(', ')} was bound to it`,
          explanation: `At t=${w.t} ms ${w.actor} deleted Node ${w.key}, to which ${bound.length === 1 ? 'Pod' : 'Pods'} ${bound.join(', ')} ${bound.length === 1 ? 'was' : 'were'} bound: the scale-down judged the Node empty on a view that did not show the binding (a cache behind the scheduler's write).`,
          evidence: { node: w.key, t: w.t, pods: bound },
        };
    }
    return { ok: true };
  },
});

/**
 * Converged: scheduled (the scheduler's predicate), and for each pool: its status observed,
 * between min and max Nodes, none of them empty while above the minimum, none marked or cordoned
 * by the autoscaler, and no pending Pod that a new Node would take while below the maximum.
 */
export function autoscaled(view: WorldView): true | string {
  const s = scheduled(view);
  if (s !== true) return s;
  const pods = view.list(POD);
  for (const pool of poolOf(view)) {
    if (pool.status.observedGeneration !== pool.metadata.generation) return `pool ${pool.metadata.name} has not observed generation ${pool.metadata.generation}`;
    const nodes = view.list(NODE).filter((n) => inPool(n, pool));
    if (nodes.length < pool.spec.minNodes || nodes.length > pool.spec.maxNodes) return `pool ${pool.metadata.name} has ${nodes.length} nodes, wants ${pool.spec.minNodes}..${pool.spec.maxNodes}`;
    for (const n of nodes) {
      if (n.metadata.annotations[EMPTY_SINCE] !== undefined || cordonedByUs(n)) return `node ${n.metadata.name} is still marked for scale-down`;
      if (nodes.length > pool.spec.minNodes && !boundTo(pods, n.metadata.name)) return `node ${n.metadata.name} is empty while pool ${pool.metadata.name} is above its minimum`;
    }
    const size = milliCpu(pool.spec.cpu) ?? 0;
    const waits = waiting(pods).filter((p) => podCpu(p) <= size);
    if (waits.length > 0 && nodes.length < pool.spec.maxNodes) return `Pod ${podKey(waits[0]!)} is pending while pool ${pool.metadata.name} could add a node`;
  }
  return true;
}

const SCHEDULER = 'example-scheduler';
const podSpec = (image: string, cpu: string) => ({ schedulerName: SCHEDULER, containers: [{ name: 'app', image, resources: { requests: { cpu } } }] });
const nodePool = { apiVersion: 'autoscaling.example.com/v1', kind: NODE_POOL, metadata: { name: 'pool' }, spec: { cpu: '2', minNodes: 1, maxNodes: 3 } as unknown as Json };

export const nodeAutoscaler: FalsePositiveCase = {
  name: 'node-autoscaler',
  description: 'a cluster autoscaler adds Nodes of a NodePool for Pods the scheduler (pod-scheduler) marked Unschedulable and cordons then deletes Nodes empty for 10 s (never below the minimum), deciding on live reads with its timestamps in the Nodes\' annotations',
  controllers: [nodeAutoscalerController, podSchedulerController],
  options: {
    // the pool is the cluster admin's, there from the start; the workload makes and deletes Pods (an update may only change an image)
    story: { objects: [nodePool as never] },
    objects: [
      { kind: POD, name: 'web', spec: [podSpec('web:1', '1'), podSpec('web:2', '1')] },
      { kind: POD, name: 'batch', spec: [podSpec('batch:1', '1500m')] },
      { kind: POD, name: 'probe', spec: [podSpec('probe:1', '500m')] },
    ],
    maxObjects: 4,
  },
  // spec.nodeName is the scheduler's to set, once. Which Nodes a pool ends with, and how many,
  // follows where the scheduler placed Pods, which is timing: greedy placement in the order Pods
  // were seen, and no consolidation (cluster-autoscaler's neither), so batch + probe and web + web
  // fit two Nodes where web + probe first needs a third, and a Node whose ADDED event reached the
  // scheduler late gets nothing and goes (hunts, stops 37-38: 5 in 4,500 runs). The design
  // promises what `autoscaled` checks (every Pod placed, the count within bounds, no empty Node
  // above the minimum), so the end state leaves the Nodes (and the pool's count of them) out, and
  // no-extra-destructive-actions does not count their creates and deletes: scale-down-safety
  // judges each deletion instead (nothing bound to it), safety-invariants the pool's bound
  properties: [
    autoscalerSafety,
    scaleDownSafety(),
    convergence({ converged: autoscaled }),
    specStatusOwnership({ allowSpecPaths: ['spec.nodeName'] }),
    ...podEndStateProperties('status.nodes').map((p) => (p.name === 'same-end-state' ? sameEndState({ ...(p.options as Partial<SameEndStateOptions>), ignoreKinds: [...(p.options['ignoreKinds'] as string[]), NODE] }) : p)),
    noExtraDestructiveActions({ masks: [`${NODE} *`] }),
  ],
  buggy: {
    controllers: [define('cached-nodes'), podSchedulerController],
    // the spare Node is no end state or count this case compares (see properties): the pool's bound catches it
    caughtBy: ['safety-invariants'],
    // Pods enough for a scale-up
    world: { maxObjects: 4, maxActions: 2 },
    why: 'it counts the Nodes from its informer cache and lets the cloud name new ones: a cache that does not yet show the Node it just made adds another for the same pending Pods, past maxNodes, and deletes the spare 10 s later',
  },
};
