import { defineController, isStoreError, virtualTimestamp, type JsonObject, type NewObject, type ReconcileContext, type StoredObject, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { specStatusOwnership } from '../../properties/spec-status-ownership.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { sameEndState, type SameEndStateOptions } from '../../properties/same-end-state.js';
import { RESYNC_MS } from './_shared/resync.js';
import { allocatable, bindPod, NODE, noOvercommit, POD, podCpu, usedByNode } from './pod-scheduler.js';
import { sameJson } from '../bug-zoo/shared/same-json.js';

/**
 * A scheduler with priority and preemption, kube-scheduler's DefaultPreemption in small. Pending
 * Pods (`spec.nodeName` empty) are placed in the scheduling queue's order: higher `spec.priority`
 * first (admission resolves a priorityClassName into it), then older first, then by name. Each is
 * bound to the node with the most CPU left that has room for its requests. A Pod that fits
 * nowhere preempts: on each node, every bound Pod of LOWER priority is a candidate (never one of
 * equal or higher priority); if the node has room with all of them gone, candidates are then
 * reprieved from the most important down (highest priority, then oldest) as long as the Pod still
 * fits, and the rest are the victims, so no victim could have been spared. Among the nodes, the
 * one with the fewest victims wins, then the lowest highest victim priority, then the lowest sum
 * of victim priorities, then the name. Victims are deleted (evicted) with their uid as a
 * precondition (a Pod recreated under the same name is another Pod); a 404 is fine (gone
 * already: the room is free). Pods are deleted at once here (no graceful termination), so the
 * preemptor is bound right after, on a new look; a Pod that cannot fit even with every lower one
 * gone stays pending with `PodScheduled=False, reason Unschedulable`.
 *
 * Every decision, binding or eviction, is made on a LIVE list of Pods and Nodes, taken afresh
 * after each action: an eviction is the one write that destroys something, so it is never decided
 * on a view the cache may hold back (a Pod already gone still shown on a node makes the node look
 * fuller than it is, and a Pod that did not need to die is evicted to make room that was already
 * there). Evicting is part of the product (the preemptor's priority says it matters more), so the
 * no-extra-destructive-actions property applies as it is: under faults, no Pod may be evicted
 * that the fault-free run did not evict, unless the eviction was decided on reads that all went to
 * the API server (another legal timing: which Pods were bound when the preemptor came).
 *
 * Each reconcile walks the whole queue, not only the Pods ahead of its own: a Pod whose events the
 * informer has not seen (lost, coalesced) is still placed by the next reconcile of any Pod, so a
 * Pod or Node event needs to enqueue only the first pending Pod (each Pod's own events bring it
 * back to report its condition). (The first version placed only the Pods ahead of its own, as
 * pod-scheduler does; found by the gate: a Pod whose ADDED event the informer lost was left out of
 * the reconciles of the higher-priority Pods that came next, stayed pending until a relist, and
 * found its room taken, where the fault-free run had bound it at once.) Which Pods a preemptor finds bound still depends on
 * when the scheduler first came to them: a Pod it first sees only after a higher-priority Pod took
 * the room is left pending, where the fault-free run bound it and then evicted it. Both are the
 * ends of a correct scheduler (a fault-free one busy for a few seconds ends the same way), and
 * same-end-state accepts the second as the end of a fault-free run that was late there (Pods are
 * declared timing dependent). So too when one walk of the queue is cut short after some of its
 * bindings (a crash right after binding report-0; restarted a second later, the scheduler found a
 * higher-priority Pod created meanwhile and evicted report-0 for it, where the fault-free walk had
 * bound report-1 too before that Pod came): a fault-free scheduler whose binding was answered a
 * second late ends the same (src/harness/twin.ts pausePoints; systematic mode, crash after the
 * 8th write).
 *
 * Its buggy twin plans preemption from its informer cache (usage and candidates), binding still
 * on a live look: a cache behind a Pod's deletion shows the node fuller than it is, and it evicts
 * a lower-priority Pod that did not need to go (a Pod the cache still shows, already gone, is a
 * 404; the one evicted next is one too many).
 */
const SCHEDULER = 'priority-scheduler';

interface PodCondition {
  type: string;
  status: 'True' | 'False';
  reason?: string;
  message?: string;
  lastTransitionTime: string;
}

export const priorityOf = (p: StoredObject): number => (typeof p.spec['priority'] === 'number' ? (p.spec['priority'] as number) : 0);
const nodeNameOf = (p: StoredObject): string | undefined => {
  const n = p.spec['nodeName'];
  return typeof n === 'string' && n !== '' ? n : undefined;
};
const terminated = (p: StoredObject) => p.status['phase'] === 'Succeeded' || p.status['phase'] === 'Failed';
const ours = (p: StoredObject) => p.spec['schedulerName'] === undefined || p.spec['schedulerName'] === SCHEDULER;
const schedulable = (n: StoredObject) => n.spec['unschedulable'] !== true && n.metadata.deletionTimestamp === undefined;
const podKey = (p: StoredObject) => `${p.metadata.namespace ?? ''}/${p.metadata.name}`;
const older = (a: StoredObject, b: StoredObject) => a.metadata.creationTimestamp.localeCompare(b.metadata.creationTimestamp) || podKey(a).localeCompare(podKey(b));
/** The scheduling queue's order: higher priority first, then older, then by name. */
const queueOrder = (a: StoredObject, b: StoredObject) => priorityOf(b) - priorityOf(a) || older(a, b);
const pendingOf = (pods: readonly StoredObject[]) => pods.filter((p) => nodeNameOf(p) === undefined && p.metadata.deletionTimestamp === undefined && !terminated(p) && ours(p)).sort(queueOrder);

/** The node with the most room left after placing `cpu`, ties by name; undefined when none has room. */
function pick(nodes: readonly StoredObject[], used: ReadonlyMap<string, number>, cpu: number): string | undefined {
  let best: { name: string; left: number } | undefined;
  for (const n of [...nodes].filter(schedulable).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
    const left = allocatable(n) - (used.get(n.metadata.name) ?? 0) - cpu;
    if (left >= 0 && (!best || left > best.left)) best = { name: n.metadata.name, left };
  }
  return best?.name;
}

const lexLess = (a: readonly number[], b: readonly number[]): boolean => {
  const i = a.findIndex((x, j) => x !== b[j]);
  return i >= 0 && a[i]! < b[i]!;
};

export interface Preemption {
  node: string;
  victims: StoredObject[];
}

/** Where `pod` fits by evicting the fewest lower-priority Pods (see the file's comment), or undefined when nowhere. */
export function preemptionFor(pod: StoredObject, nodes: readonly StoredObject[], pods: readonly StoredObject[]): Preemption | undefined {
  const used = usedByNode(pods);
  const cpu = podCpu(pod);
  let best: (Preemption & { score: number[] }) | undefined;
  for (const n of [...nodes].filter(schedulable).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
    const name = n.metadata.name;
    const lower = pods.filter((p) => nodeNameOf(p) === name && !terminated(p) && p.metadata.deletionTimestamp === undefined && priorityOf(p) < priorityOf(pod));
    let room = allocatable(n) - (used.get(name) ?? 0) + lower.reduce((s, p) => s + podCpu(p), 0) - cpu;
    if (room < 0) continue;
    // reprieve the most important first: what still fits stays
    const victims: StoredObject[] = [];
    for (const p of [...lower].sort(queueOrder)) {
      if (podCpu(p) <= room) room -= podCpu(p);
      else victims.push(p);
    }
    if (victims.length === 0) continue; // it fits without preemption: not this function's case
    const score = [victims.length, Math.max(...victims.map(priorityOf)), victims.reduce((s, p) => s + priorityOf(p), 0)];
    // lexicographic: fewer victims, then a lower highest priority, then a lower sum; nodes come by name, so ties keep the first
    if (!best || lexLess(score, best.score)) best = { node: name, victims, score };
  }
  return best ? { node: best.node, victims: best.victims } : undefined;
}

/** `conditions` with PodScheduled set (lastTransitionTime kept while the status stays). */
async function setScheduled(ctx: ReconcileContext, pod: StoredObject, c: Omit<PodCondition, 'lastTransitionTime'>): Promise<void> {
  const list = ((pod.status['conditions'] ?? []) as unknown as PodCondition[]).filter((x) => x.type !== 'PodScheduled');
  const prev = ((pod.status['conditions'] ?? []) as unknown as PodCondition[]).find((x) => x.type === 'PodScheduled');
  const status = { ...pod.status, conditions: [...list, { ...c, lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : virtualTimestamp(ctx.clock.now()) }] } as unknown as JsonObject;
  if (sameJson(pod.status, status)) return;
  await ctx.client.updateStatus({ ...pod, status });
}

function define(mistake: 'none' | 'cached-victims') {
  async function reconcile(ctx: ReconcileContext): Promise<{ requeueAfter: number } | undefined> {
    // each pass: a fresh live look, then one action (a binding, or one preemption's evictions) for the first Pod of the
    // whole queue that can take one; when none can, this Pod's own condition
    for (let pass = 0; pass < 32; pass++) {
      const pods = await ctx.client.list(POD, { live: true });
      const me = pods.find((p) => podKey(p) === ctx.key);
      const nodes = await ctx.client.list(NODE, { live: true });
      const used = usedByNode(pods);
      let acted = false;
      for (const p of pendingOf(pods)) {
        const n = pick(nodes, used, podCpu(p));
        if (n !== undefined) {
          // the binding (pods/binding): once, with the resourceVersion it was planned on
          await bindPod(ctx, p, n);
          acted = true;
          break;
        }
        // BUG (cached-victims): the informer's view decides whom to evict
        const plan = preemptionFor(p, nodes, mistake === 'none' ? pods : await ctx.client.list(POD));
        if (plan) {
          for (const v of plan.victims) {
            try {
              await ctx.client.delete(POD, { namespace: v.metadata.namespace, name: v.metadata.name }, { preconditions: { uid: v.metadata.uid } });
            } catch (err) {
              if (!isStoreError(err, 'NotFound')) throw err;
            }
          }
          acted = true;
          break;
        }
        // this one waits: the next one may fit elsewhere
      }
      if (acted) continue;
      if (!me || me.metadata.deletionTimestamp !== undefined || terminated(me) || !ours(me)) return undefined;
      if (nodeNameOf(me) !== undefined) {
        await setScheduled(ctx, me, { type: 'PodScheduled', status: 'True' });
      } else {
        const fit = nodes.filter(schedulable).length;
        await setScheduled(ctx, me, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: `0/${nodes.length} nodes are available: ${fit} Insufficient cpu, ${nodes.length - fit} unschedulable; preemption: no node has enough lower-priority Pods` });
      }
      return undefined; // a Pod leaving or a Node changing brings a pending one back
    }
    return { requeueAfter: 1000 };
  }
  /**
   * The first pending Pod of the queue (from the cache): a Pod bound, evicted or gone, or a Node
   * changed, may make room, and any reconcile walks the whole queue (each Pod's own events bring
   * it back to report its condition).
   */
  const pendingPods = (_o: StoredObject, view: { list(kind: string): StoredObject[] }) => pendingOf(view.list(POD)).slice(0, 1).map(podKey);
  return defineController({
    name: 'priority-scheduler',
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

export const priorityPreemptionController = define('none');

/**
 * Converged, for the preempting scheduler: every bound Pod reports PodScheduled=True, every
 * pending one PodScheduled=False, and no pending Pod fits on a node or could preempt its way onto one.
 */
export function scheduledWithPreemption(view: WorldView): true | string {
  const pods = view.list(POD).filter((p) => p.metadata.deletionTimestamp === undefined && !terminated(p));
  const nodes = view.list(NODE);
  const used = usedByNode(pods);
  for (const p of pods) {
    const c = ((p.status['conditions'] ?? []) as unknown as PodCondition[]).find((x) => x.type === 'PodScheduled');
    const bound = nodeNameOf(p) !== undefined;
    if (c?.status !== (bound ? 'True' : 'False')) return `Pod ${podKey(p)} is ${bound ? 'bound' : 'pending'} and reports PodScheduled ${c?.status ?? 'absent'}`;
    if (bound || !ours(p)) continue;
    const n = pick(nodes, used, podCpu(p));
    if (n !== undefined) return `Pod ${podKey(p)} is pending while node ${n} has room for its ${podCpu(p)}m CPU`;
    const plan = preemptionFor(p, nodes, pods);
    if (plan) return `Pod ${podKey(p)} (priority ${priorityOf(p)}) is pending while evicting ${plan.victims.map((v) => `${v.metadata.name} (priority ${priorityOf(v)})`).join(', ')} from ${plan.node} would make room`;
  }
  return true;
}

const node = (name: string, cpu: string): NewObject => ({ apiVersion: 'v1', kind: NODE, metadata: { name, labels: { 'kubernetes.io/hostname': name } }, spec: {}, status: { capacity: { cpu, pods: '110' }, allocatable: { cpu, pods: '110' } } });
const podSpec = (image: string, cpu: string, priority: number) => ({ schedulerName: SCHEDULER, priority, containers: [{ name: 'app', image, resources: { requests: { cpu } } }] });
const storyPod = (name: string, image: string, cpu: string, priority: number): NewObject => ({ apiVersion: 'v1', kind: POD, metadata: { name, namespace: 'default' }, spec: podSpec(image, cpu, priority) as never });

export const priorityPreemption: FalsePositiveCase = {
  name: 'priority-preemption',
  description: 'a scheduler with priorities: pending Pods bound highest priority first; one that fits nowhere evicts the fewest lower-priority Pods (never equal or higher, each eviction uid-preconditioned, decided on a live list) and is then bound',
  controllers: [priorityPreemptionController],
  options: {
    // the cluster (3 CPUs) filled by three Pods; web goes and api (web's priority) takes its room 20 ms later;
    // then critical comes and must evict the lowest-priority Pod that makes room
    story: {
      objects: [node('node-a', '2'), node('node-b', '1'), storyPod('web', 'web:1', '1', 100), storyPod('batch', 'batch:1', '1', 0), storyPod('logs', 'fluentbit:2', '1', 0)],
      actions: [
        { at: 5000, type: 'delete', kind: POD, key: 'default/web' },
        { at: 5020, type: 'create', object: storyPod('api', 'api:1', '1', 100) },
        { at: 12_000, type: 'create', object: storyPod('critical', 'gateway:1', '1', 1000) },
      ],
      jitterMs: 10,
    },
    // more Pods (an update may only change an image; priority is set at admission)
    objects: [
      { kind: POD, name: 'report', spec: [podSpec('report:1', '500m', 0), podSpec('report:2', '500m', 0)] },
      { kind: POD, name: 'ingest', spec: [podSpec('ingest:1', '1', 500)] },
      { kind: POD, name: 'probe', spec: [podSpec('probe:1', '500m', 100)] },
    ],
    maxObjects: 3,
  },
  // spec.nodeName is the scheduler's to set, once (kube-scheduler writes it through the binding subresource)
  // which Pods are left depends on which competitor the scheduler looked at first (a Pod bound,
  // then evicted by a critical one created later; or, first seen after that one, left pending):
  // timing by design, declared to same-end-state (src/harness/twin.ts firstLookAfterNext)
  properties: [noOvercommit, convergence({ converged: scheduledWithPreemption }), specStatusOwnership({ allowSpecPaths: ['spec.nodeName'] }), ...podEndStateProperties().map((p) => (p.name === 'same-end-state' ? sameEndState({ ...(p.options as Partial<SameEndStateOptions>), timingDependent: [POD] }) : p))],
  buggy: {
    controllers: [define('cached-victims')],
    caughtBy: ['no-extra-destructive-actions'],
    why: 'it plans preemption (node usage and candidates) from its informer cache: a cache behind a Pod\'s deletion shows the node fuller than it is, and it evicts a lower-priority Pod that did not need to go',
    // the test's seed: the CI's twin test finds it at run 1 (the seed before took 16; bench/hunt-fp-rate.ts measures how often it shows)
    seed: 35,
  },
};
