import { noExtraDestructiveActions } from '../../properties/no-extra-destructive-actions.js';
import { defineController, defineProperty, disruption, isStoreError, podLifecycle, type JsonObject, type NewObject, type ReconcileContext, type ReconcileResult, type RunRecord, type StoredObject, type Verdict, type WorldView } from '../../src/index.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';
import { boundTo, evictable, NODE, type NodeSpec, type NodeStatus } from './node-drainer.js';

/**
 * The node-maintenance operator of node-drainer.ts, drained the way `kubectl drain`,
 * cluster-autoscaler and node upgraders do: each Pod on a cordoned `MaintenanceNode` is evicted
 * through the `pods/eviction` subresource (a policy/v1 Eviction, the Pod's uid as precondition),
 * so its PodDisruptionBudget decides. A 429 (the budget allows no disruption now, or the API
 * server is busy) leaves the Pod and the drain is tried again 5 s later, as `kubectl drain`
 * retries; a Pod gone already (404) or replaced (409) is done. The budget's status comes from the
 * `disruption` environment actor (kube-controller-manager's disruption controller).
 *
 * The story: a web tier of three Ready Pods under a budget of minAvailable 2, web-0 and web-1 on
 * node-0, web-2 on node-1; node-0 is cordoned at 4 s: web-0 is evicted, web-1 is refused (429)
 * until the team lifts the budget for the maintenance window at 16 s (minAvailable 0).
 *
 * The case's own oracle, `budget-honoured`: no controller deletes a Ready, Running Pod that a
 * PodDisruptionBudget protects while that budget, as the API serves it just before the delete,
 * allows no disruption and granted none for that Pod (`status.disruptedPods`, which an eviction
 * writes before its delete). An eviction never does that; a plain DELETE can.
 *
 * Its buggy twin deletes the Pod directly when the eviction answers 429 ("the budget is in the
 * way, the node must go"): web-1 goes at 4 s and the web tier is left with one Ready Pod of the
 * two its budget promises.
 */
const DRAIN_RETRY_MS = 5_000;
const PDB = 'PodDisruptionBudget';

function define(mistake: 'none' | 'delete-on-429') {
  async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    // the cordon read live: one the user lifted meanwhile evicts nothing
    const node = await ctx.client.tryGet<NodeSpec, NodeStatus>(NODE, ctx.key, { live: true });
    if (!node) return undefined;
    const bound = (await ctx.client.list('Pod')).filter((p) => boundTo(p, node.metadata.name));
    let refused = false;
    const gone = new Set<string>();
    if (node.spec.unschedulable) {
      for (const p of bound.filter(evictable)) {
        const ref = { namespace: p.metadata.namespace, name: p.metadata.name };
        try {
          await ctx.client.create({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: ref, deleteOptions: { preconditions: { uid: p.metadata.uid } } } as unknown as NewObject);
          gone.add(p.metadata.uid);
        } catch (err) {
          // gone already, or a new Pod under that name (its own event brings it back here)
          if (isStoreError(err, 'NotFound') || isStoreError(err, 'Conflict')) {
            gone.add(p.metadata.uid);
            continue;
          }
          if (!isStoreError(err, 'TooManyRequests')) throw err;
          if (mistake === 'none') {
            refused = true;
            continue;
          }
          // BUG (delete-on-429): the budget said no, the Pod is deleted anyway
          await ctx.client.delete('Pod', ref, { preconditions: { uid: p.metadata.uid } }).catch((e: unknown) => {
            if (!isStoreError(e, 'NotFound') && !isStoreError(e, 'Conflict')) throw e;
          });
          gone.add(p.metadata.uid);
        }
      }
    }
    const left = bound.filter((p) => !gone.has(p.metadata.uid)).length;
    await writeStatus(ctx, node, { drained: node.spec.unschedulable && left === 0, podsLeft: left });
    return refused ? { requeueAfter: DRAIN_RETRY_MS } : undefined;
  }
  return defineController({
    name: 'evicting-drainer',
    for: NODE,
    watches: [{ kind: 'Pod', map: (p) => (typeof p.spec['nodeName'] === 'string' ? [p.spec['nodeName']] : []) }],
    leaderElection: true,
    resyncPeriodMs: RESYNC_MS,
    reconcile,
  });
}

export const evictingDrainerController = define('none');

const PROBE = 'budget-honoured:budgets';
/** Per budget, as the API serves it: the disruptions it allows, the Pods it granted one, the Pods it protects. */
type Facts = Record<string, { allowed: number; granted: string[]; protects: string[] }>;

const isRecord = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
const ready = (p: StoredObject) => Array.isArray(p.status['conditions']) && p.status['conditions'].some((c) => isRecord(c) && c['type'] === 'Ready' && c['status'] === 'True');
function selects(b: StoredObject, p: StoredObject): boolean {
  const sel = b.spec['selector'];
  if (p.metadata.namespace !== b.metadata.namespace || !isRecord(sel) || !isRecord(sel['matchLabels'])) return false;
  return Object.entries(sel['matchLabels']).every(([k, v]) => p.metadata.labels[k] === v);
}

/**
 * No controller takes a Pod its PodDisruptionBudget protects past the budget: at a controller's
 * delete of a Ready, Running, not terminating Pod, the budget selecting it (as the state just
 * before that write shows it) either allowed a disruption (for its current generation) or had
 * granted this Pod one in `disruptedPods`, which the eviction subresource writes before it
 * deletes. A budget protects only what the API makes it protect: Pending, unready, finished and
 * terminating Pods are not judged (the eviction API lets them go too).
 */
export const budgetHonoured = defineProperty<Record<string, never>>({
  name: 'budget-honoured',
  description: 'no controller deletes a healthy Pod its PodDisruptionBudget protects while the budget allows no disruption and granted it none',
  defaults: {},
  probes: () => [
    {
      name: PROBE,
      everyMs: 'write',
      phases: ['faults', 'settle', 'tail'],
      fn: (view: WorldView) => {
        const facts: Facts = {};
        const pods = view.list('Pod');
        for (const b of view.list(PDB)) {
          if (b.apiVersion !== 'policy/v1' || b.metadata.deletionTimestamp !== undefined) continue;
          const current = b.status['observedGeneration'] === b.metadata.generation;
          const allowed = current && typeof b.status['disruptionsAllowed'] === 'number' ? b.status['disruptionsAllowed'] : 0;
          const granted = isRecord(b.status['disruptedPods']) ? Object.keys(b.status['disruptedPods']) : [];
          const protects = pods.filter((p) => selects(b, p) && p.metadata.deletionTimestamp === undefined && p.status['phase'] === 'Running' && ready(p)).map((p) => p.metadata.uid);
          facts[`${b.metadata.namespace ?? ''}/${b.metadata.name}`] = { allowed, granted, protects };
        }
        return { ok: true, data: facts as unknown as JsonObject };
      },
    },
  ],
  judge: (run: RunRecord): Verdict => {
    let before: Facts = {};
    for (const sample of run.probes[PROBE] ?? []) {
      const w = sample.write !== undefined ? run.writes[sample.write] : undefined;
      if (w && w.kind === 'Pod' && w.verb === 'delete' && w.error === undefined && (w.removed === true || w.markedForDeletion === true) && w.actor.startsWith('controller:') && w.uid !== undefined) {
        const name = w.key.slice(w.key.indexOf('/') + 1);
        for (const [key, f] of Object.entries(before)) {
          if (!f.protects.includes(w.uid) || f.allowed > 0 || f.granted.includes(name)) continue;
          return {
            ok: false,
            summary: `${w.actor} deleted Pod ${w.key} at ${w.t} ms while its disruption budget ${key} allowed no disruption`,
            explanation: `At t=${w.t} ms ${w.actor} deleted the Ready Pod ${w.key}, which PodDisruptionBudget ${key} protects, while the budget allowed no disruption and had granted this Pod none: the application is taken below what its budget promises. Evict through the pods/eviction subresource and, on its 429, try again later; never fall back to a plain delete.`,
            evidence: { budget: key, pod: w.key, t: w.t, actor: w.actor },
          };
        }
      }
      before = (sample.data as unknown as Facts | undefined) ?? {};
    }
    return { ok: true };
  },
});

const pod = (name: string, node: string): NewObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'web' } }, spec: { nodeName: node, containers: [{ name: 'web', image: 'nginx:1.27' }] } });

export const evictingDrainer: FalsePositiveCase = {
  name: 'evicting-drainer',
  description: 'a node-maintenance operator drains a cordoned node through the eviction subresource, so a PodDisruptionBudget decides which Pods go; a 429 is tried again 5 s later',
  controllers: [evictingDrainerController],
  options: {
    story: {
      objects: [
        { apiVersion: 'example.com/v1', kind: NODE, metadata: { name: 'node-0' }, spec: { unschedulable: false } },
        { apiVersion: 'policy/v1', kind: PDB, metadata: { name: 'web', namespace: 'default' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } },
        pod('web-0', 'node-0'),
        pod('web-1', 'node-0'),
        pod('web-2', 'node-1'),
      ],
      actions: [
        { at: 4_000, type: 'patch', kind: NODE, key: 'node-0', patch: { spec: { unschedulable: true } } },
        { at: 16_000, type: 'patch', kind: PDB, key: 'default/web', patch: { spec: { minAvailable: 0 } } },
      ],
    },
    // another Pod of the tier, on either node, that a drain may also have to take
    objects: [{ kind: 'Pod', names: ['web-3'], labels: { app: 'web' }, spec: [{ nodeName: 'node-0', containers: [{ name: 'web', image: 'nginx:1.27' }] }, { nodeName: 'node-1', containers: [{ name: 'web', image: 'nginx:1.27' }] }] }],
    environment: [podLifecycle, disruption],
    maxObjects: 1,
  },
  // Which Pods a drain takes before the budget says no is first come, first served: the order it
  // comes to them (a list's order, which Kubernetes leaves unspecified; kubectl drain takes them as
  // listed). So no-extra-destructive-actions does not count the Pods' deletes by object (found by
  // the hunt, seed 733: a shuffled list evicted web-3 where the fault-free run evicted web-1, and
  // the user's later delete of web-3 made it look like one extra delete): budget-honoured judges
  // each deletion instead, as scale-down-safety does for node-autoscaler's Nodes
  properties: [budgetHonoured(), noExtraDestructiveActions({ masks: ['Pod default/*'] }), ...podEndStateProperties()],
  buggy: {
    controllers: [define('delete-on-429')],
    caughtBy: ['budget-honoured'],
    why: 'it deletes the Pod directly when the eviction answers 429: the second Pod of the cordoned node goes at once and the web tier is left with one Ready Pod of the two its budget promises',
  },
};
