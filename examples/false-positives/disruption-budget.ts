import { defineController, defineProperty, isStoreError, podLifecycle, virtualTimestamp, fromVirtualTimestamp, type JsonObject, type NewObject, type ReconcileContext, type ReconcileResult, type RunRecord, type StoredObject, type Verdict, type WorldView } from '../../src/index.js';
import { convergence } from '../../properties/convergence.js';
import { sameEndState, type SameEndStateOptions } from '../../properties/same-end-state.js';
import type { FalsePositiveCase } from './_shared/case.js';
import { podEndStateProperties } from './_shared/masks.js';
import { podReady } from './_shared/pods.js';
import { RESYNC_MS } from './_shared/resync.js';
import { writeStatus } from './_shared/status.js';

/**
 * PodDisruptionBudgets and the eviction API (kube-controller-manager's disruption controller and
 * kube-apiserver's `pods/eviction` subresource). A `DisruptionBudget` (minAvailable, selector)
 * gets its status from the `disruption` controller: `currentHealthy` (matching Pods that are Ready,
 * not terminating and not in `disruptedPods`), `desiredHealthy`, `expectedPods`,
 * `disruptionsAllowed = max(0, currentHealthy - desiredHealthy)` and `observedGeneration`.
 *
 * An `EvictionRequest` (made by a person or a drain tool, immutable: `spec.podName`) is handled by
 * the `evictor`, which does what the eviction subresource does: it reads the Pod and the one budget
 * covering it LIVE, refuses while the budget's status is for an older generation or allows no
 * disruption (status `Denied`, tried again in 2 s, as `kubectl drain` retries a 429), and
 * otherwise first takes one disruption from the budget (a status update with the budget's
 * resourceVersion as precondition: `disruptionsAllowed - 1` and the Pod in `disruptedPods`), and
 * only then deletes the Pod (uid precondition). Two evictions racing for the last disruption: one
 * update answers 409, its eviction reads the budget again and is denied. A crash between the two
 * writes is resumed: a Pod already in `disruptedPods` was granted its disruption. The disruption
 * controller keeps a `disruptedPods` entry (the Pod does not count as healthy) until its cache
 * shows the Pod gone or terminating, or two minutes passed (the real DeletionTimeout), so a cache
 * that has not yet seen an eviction's delete never hands its disruption out again.
 *
 * An eviction whose Pod is gone or terminating is `Completed`, whoever removed it (a drain treats
 * NotFound as done): two requests for one Pod end alike in whichever order they ran.
 *
 * The case's own oracle, `budget-respected`: evictions alone never take a budget's healthy Pods
 * below minAvailable: at no write are fewer than minAvailable of its Pods Ready while some Pod of
 * it was evicted (deleted by the evictor) and every other Pod it ever had is still there and
 * Ready. (When a Pod is unready or gone for another reason, a kubelet crash or a node eviction,
 * the real API also lets an eviction through that the controller's slightly older count allowed,
 * so nothing is claimed then.)
 *
 * The two share status.disruptedPods by design (the eviction adds, the disruption controller
 * prunes), as Kubernetes does. It found a false alarm of no-fighting (stop 39): faults pushed two
 * evictions into the settle phase, and the hand-overs while that backlog drained counted as a
 * fight; no-fighting now fails only hand-overs that go on into the quiet tail.
 *
 * Its buggy twin evicts on the budget its informer cache shows and deletes the Pod without taking
 * the disruption: two requests handled before the disruption controller recounts both see
 * `disruptionsAllowed: 1`, and both Pods go. *
 * It models the eviction flow as custom kinds of its own (a controller playing the subresource,
 * so the race for the last disruption is the controller's to get right); the real
 * `pods/eviction` subresource and PodDisruptionBudget status (the `disruption` environment actor)
 * are exercised by evicting-drainer.ts.
 */
export const BUDGET = 'DisruptionBudget';
export const EVICTION = 'EvictionRequest';
const DELETION_TIMEOUT_MS = 120_000;
const DENIED_RETRY_MS = 2_000;

interface BudgetSpec {
  minAvailable: number;
  selector: { matchLabels: Record<string, string> };
}
interface BudgetStatus {
  observedGeneration?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
  disruptionsAllowed?: number;
  /** Pods an eviction was granted for, with when (the real field): not healthy until they are gone. */
  disruptedPods?: Record<string, string>;
}
interface EvictionSpec {
  podName: string;
}
interface EvictionStatus {
  phase?: 'Denied' | 'Completed';
  message?: string;
}
type Budget = StoredObject<BudgetSpec, BudgetStatus>;

const matches = (pod: StoredObject, b: { spec: BudgetSpec }) => Object.entries(b.spec.selector.matchLabels).every(([k, v]) => pod.metadata.labels[k] === v);
const terminating = (p: StoredObject) => p.metadata.deletionTimestamp !== undefined;

/** The disruption controller: a budget's status from its Pods (cached), keeping `disruptedPods` until the Pods go. */
async function reconcileBudget(ctx: ReconcileContext): Promise<ReconcileResult> {
  const b = await ctx.client.tryGet<BudgetSpec, BudgetStatus>(BUDGET, ctx.key, { live: true });
  if (!b || b.metadata.deletionTimestamp !== undefined) return undefined;
  const ns = b.metadata.namespace;
  const pods = (await ctx.client.list('Pod', { ...(ns !== undefined ? { namespace: ns } : {}) })).filter((p) => matches(p, b));
  const now = ctx.clock.now();
  const byName = new Map(pods.map((p) => [p.metadata.name, p]));
  // an entry goes once the Pod is seen gone or terminating, or after the timeout (an eviction that never deleted it)
  const disrupted: Record<string, string> = {};
  let nextExpiry: number | undefined;
  for (const [name, at] of Object.entries(b.status.disruptedPods ?? {})) {
    const p = byName.get(name);
    const expires = fromVirtualTimestamp(at) + DELETION_TIMEOUT_MS;
    if (!p || terminating(p) || expires <= now) continue;
    disrupted[name] = at;
    nextExpiry = Math.min(nextExpiry ?? expires, expires);
  }
  const healthy = pods.filter((p) => podReady(p) && disrupted[p.metadata.name] === undefined).length;
  const status: BudgetStatus = {
    observedGeneration: b.metadata.generation,
    currentHealthy: healthy,
    desiredHealthy: b.spec.minAvailable,
    expectedPods: pods.filter((p) => !terminating(p)).length,
    disruptionsAllowed: Math.max(0, healthy - b.spec.minAvailable),
    ...(Object.keys(disrupted).length > 0 ? { disruptedPods: disrupted } : {}),
  };
  // updateStatus carries the resourceVersion read: an eviction that took a disruption meanwhile makes it 409, and it counts again
  await writeStatus(ctx, b, status);
  return nextExpiry !== undefined ? { requeueAfter: nextExpiry - now } : undefined;
}

const budgetsOf = (p: StoredObject, read: { list(kind: string, options?: { namespace?: string }): StoredObject[] }) =>
  read
    .list(BUDGET, { namespace: p.metadata.namespace ?? '' })
    .filter((b) => matches(p, b as unknown as Budget))
    .map((b) => `${b.metadata.namespace ?? ''}/${b.metadata.name}`);

export const disruptionController = defineController({
  name: 'disruption',
  for: BUDGET,
  watches: [{ kind: 'Pod', map: budgetsOf }],
  leaderElection: true,
  resyncPeriodMs: RESYNC_MS,
  reconcile: reconcileBudget,
});

function defineEvictor(mistake: 'none' | 'cached-budget') {
  return async function reconcile(ctx: ReconcileContext): Promise<ReconcileResult> {
    const e = await ctx.client.tryGet<EvictionSpec, EvictionStatus>(EVICTION, ctx.key, { live: true });
    if (!e || e.metadata.deletionTimestamp !== undefined || e.status.phase === 'Completed') return undefined;
    const ns = e.metadata.namespace;
    const done = () => writeStatus(ctx, e, { phase: 'Completed', message: `pod ${e.spec.podName} evicted` });
    const deny = async (message: string): Promise<ReconcileResult> => {
      await writeStatus(ctx, e, { phase: 'Denied', message });
      return { requeueAfter: DENIED_RETRY_MS };
    };
    const pod = await ctx.client.tryGet('Pod', { namespace: ns, name: e.spec.podName }, { live: true });
    // gone or already terminating: the eviction's goal is met (the API lets a terminating Pod through)
    if (!pod || terminating(pod)) {
      await done();
      return undefined;
    }
    // BUG (cached-budget): the informer's budget decides, and nothing is taken from it
    const budgets = (await ctx.client.list<BudgetSpec, BudgetStatus>(BUDGET, { ...(ns !== undefined ? { namespace: ns } : {}), live: mistake === 'none' })).filter((b) => b.metadata.deletionTimestamp === undefined && matches(pod, b));
    if (budgets.length > 1) return deny(`pod ${pod.metadata.name} is covered by ${budgets.length} disruption budgets`);
    const b = budgets[0];
    if (b) {
      const granted = b.status.disruptedPods?.[pod.metadata.name] !== undefined; // taken before a crash, not yet deleted
      if (!granted) {
        if (b.status.observedGeneration !== b.metadata.generation) return deny(`budget ${b.metadata.name} has not observed generation ${b.metadata.generation} yet`);
        const allowed = b.status.disruptionsAllowed ?? 0;
        if (allowed <= 0) return deny(`evicting pod ${pod.metadata.name} would violate budget ${b.metadata.name}: ${b.status.currentHealthy ?? 0} healthy, ${b.spec.minAvailable} needed`);
        if (mistake === 'none') {
          try {
            await ctx.client.updateStatus({ ...b, status: { ...b.status, disruptionsAllowed: allowed - 1, disruptedPods: { ...(b.status.disruptedPods ?? {}), [pod.metadata.name]: virtualTimestamp(ctx.clock.now()) } } });
          } catch (err) {
            // another eviction (or a recount) got there first: look again
            if (isStoreError(err, 'Conflict')) return { requeue: true };
            throw err;
          }
        }
      }
    }
    try {
      await ctx.client.delete('Pod', { namespace: ns, name: pod.metadata.name }, { preconditions: { uid: pod.metadata.uid } });
    } catch (err) {
      if (!isStoreError(err, 'NotFound') && !isStoreError(err, 'Conflict')) throw err;
    }
    await done();
    return undefined;
  };
}

const defineEvictorController = (mistake: 'none' | 'cached-budget') =>
  defineController({ name: 'evictor', for: EVICTION, leaderElection: true, resyncPeriodMs: RESYNC_MS, reconcile: defineEvictor(mistake) });
export const evictorController = defineEvictorController('none');

const PROBE = 'budget-respected:pods';
interface PodFact {
  uid: string;
  ready: boolean;
}
/** Per budget uid (a budget deleted and made again is another promise, made afresh). */
type Facts = Record<string, { key: string; min: number; pods: PodFact[] }>;

/**
 * Evictions alone never take a budget below minAvailable: a probe after every write records each
 * budget's minAvailable and its Pods (uid, Ready); the judge, in write order, knows every Pod the
 * budget ever had and which ones the evictor deleted while the budget (that uid) existed, and fails
 * when fewer than minAvailable are Ready while some were evicted under it and all the others are
 * there and Ready. Evictions while no budget existed are unrestricted, as in Kubernetes (found by
 * the hunt: the recreation fault deleted the budget for a second, and two evictions went through
 * then; the first version of this judge charged them to the recreated budget). A budget made again
 * also inherits the Pods its predecessor had: the disruption controller counts the new one from a
 * cache that may still show a Pod evicted a moment ago, and the old one's disruptedPods went with
 * it, so Kubernetes lets that eviction through as well (stop 40, the guided hunt: a Pod's DELETED
 * event was late, and the recreated budget allowed one more eviction).
 */
export const budgetRespected = defineProperty<Record<string, never>>({
  name: 'budget-respected',
  description: 'evictions never take the healthy Pods of a disruption budget below its minAvailable',
  defaults: {},
  probes: () => [
    {
      name: PROBE,
      everyMs: 'write',
      phases: ['faults', 'settle', 'tail'],
      fn: (view: WorldView) => {
        const facts: Facts = {};
        for (const b of view.list(BUDGET) as unknown as Budget[]) {
          if (b.metadata.deletionTimestamp !== undefined) continue;
          const pods = view.list('Pod').filter((p) => p.metadata.namespace === b.metadata.namespace && matches(p, b));
          facts[b.metadata.uid] = { key: `${b.metadata.namespace ?? ''}/${b.metadata.name}`, min: b.spec.minAvailable, pods: pods.map((p) => ({ uid: p.metadata.uid, ready: podReady(p) })) };
        }
        return { ok: true, data: facts as unknown as JsonObject };
      },
    },
  ],
  judge: (run: RunRecord): Verdict => {
    const evictedUnder = new Map<string, Set<string>>();
    const seen = new Map<string, Set<string>>();
    /** Per budget key, the Pods of its latest incarnation. */
    const incarnations = new Map<string, Set<string>>();
    let previous: Facts = {};
    for (const sample of run.probes[PROBE] ?? []) {
      const facts = (sample.data as unknown as Facts | undefined) ?? {};
      const w = sample.write !== undefined ? run.writes[sample.write] : undefined;
      if (w && w.kind === 'Pod' && w.verb === 'delete' && w.error === undefined && w.uid !== undefined && w.actor.startsWith('controller:evictor')) {
        // charged to the budgets that covered the Pod just before and still exist just after
        for (const [uid, f] of Object.entries(previous)) {
          if (facts[uid] && f.pods.some((p) => p.uid === w.uid)) {
            const set = evictedUnder.get(uid) ?? new Set<string>();
            set.add(w.uid);
            evictedUnder.set(uid, set);
          }
        }
      }
      previous = facts;
      for (const [uid, { key, min, pods }] of Object.entries(facts)) {
        let ever = seen.get(uid);
        if (!ever) {
          // a budget made again starts with its predecessor's Pods: the new one's first count came
          // from a cache that may still show a Pod evicted under the old one, and Kubernetes loses
          // the old one's disruptedPods with it
          ever = new Set(incarnations.get(key)?.values() ?? []);
          seen.set(uid, ever);
          incarnations.set(key, ever);
        }
        for (const p of pods) ever.add(p.uid);
        const evicted = evictedUnder.get(uid) ?? new Set<string>();
        const ready = pods.filter((p) => p.ready && !evicted.has(p.uid));
        if (ready.length >= min || evicted.size === 0) continue;
        // only when the evictions explain the whole shortfall
        if ([...ever].some((u) => !evicted.has(u) && !ready.some((p) => p.uid === u))) continue;
        return {
          ok: false,
          summary: `budget ${key}: ${ready.length} Ready Pods at ${sample.t} ms, minAvailable ${min}, after ${evicted.size} evictions`,
          explanation: `At t=${sample.t} ms only ${ready.length} Pods of disruption budget ${key} were Ready, fewer than its minAvailable ${min}, and every one of its Pods that was not evicted was there and Ready: the evictor deleted ${evicted.size} Pods (${[...evicted].join(', ')}) when the budget allowed fewer. Take each disruption from the budget's live status with a resourceVersion precondition before deleting the Pod, as the eviction subresource does.`,
          evidence: { budget: key, t: sample.t, ready: ready.length, minAvailable: min, evicted: [...evicted] },
        };
      }
    }
    return { ok: true };
  },
});

/** Settled: every budget's status counts its Pods for its generation, and every request is Completed or Denied by a budget that allows nothing. */
export function budgetsSettled(view: WorldView): true | string {
  const pods = view.list('Pod');
  const budgets = view.list(BUDGET) as unknown as Budget[];
  for (const b of budgets) {
    if (b.metadata.deletionTimestamp !== undefined) continue;
    // a Pod an eviction was granted for stays out of the count until it goes or the grant times out
    // (DeletionTimeout, 2 min: longer than the settle phase), as the disruption controller counts it
    const granted = (p: StoredObject): boolean => {
      const at = b.status.disruptedPods?.[p.metadata.name];
      return at !== undefined && fromVirtualTimestamp(at) + DELETION_TIMEOUT_MS > view.now();
    };
    const healthy = pods.filter((p) => p.metadata.namespace === b.metadata.namespace && matches(p, b) && podReady(p) && !granted(p)).length;
    if (b.status.observedGeneration !== b.metadata.generation) return `budget ${b.metadata.name} has not observed generation ${b.metadata.generation}`;
    if (b.status.currentHealthy !== healthy || b.status.disruptionsAllowed !== Math.max(0, healthy - b.spec.minAvailable)) return `budget ${b.metadata.name} reports ${b.status.currentHealthy ?? '?'} healthy / ${b.status.disruptionsAllowed ?? '?'} allowed, there are ${healthy} Ready Pods`;
  }
  for (const e of view.list(EVICTION) as unknown as StoredObject<EvictionSpec, EvictionStatus>[]) {
    if (e.metadata.deletionTimestamp !== undefined || e.status.phase === 'Completed') continue;
    const pod = pods.find((p) => p.metadata.namespace === e.metadata.namespace && p.metadata.name === e.spec.podName);
    if (!pod) return `eviction ${e.metadata.name}: pod ${e.spec.podName} is gone, request not Completed`;
    const b = budgets.find((x) => x.metadata.namespace === e.metadata.namespace && matches(pod, x));
    if (!b || (b.status.disruptionsAllowed ?? 0) > 0 || e.status.phase !== 'Denied') return `eviction ${e.metadata.name} of ${e.spec.podName} is ${e.status.phase ?? 'pending'} though ${b ? `budget ${b.metadata.name} allows ${b.status.disruptionsAllowed ?? 0}` : 'no budget covers it'}`;
  }
  return true;
}

const pod = (name: string): NewObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } });

export const disruptionBudget: FalsePositiveCase = {
  name: 'disruption-budget',
  description: 'a PodDisruptionBudget status controller and the eviction flow: requests are granted only while the budget, read live, allows a disruption, which is taken (resourceVersion precondition) before the Pod is deleted; denied requests are tried again',
  controllers: [evictorController, disruptionController],
  options: {
    // three web Pods, at least two of them available; a drain asks for web-0 at 4 s; at 16 s the
    // team relaxes the budget to one (a maintenance window); generated requests evict other Pods
    story: {
      objects: [
        { apiVersion: 'policy.example.com/v1', kind: BUDGET, metadata: { name: 'web', namespace: 'default' }, spec: { minAvailable: 2, selector: { matchLabels: { app: 'web' } } } },
        pod('web-0'),
        pod('web-1'),
        pod('web-2'),
      ],
      actions: [
        { at: 4_000, type: 'create', object: { apiVersion: 'policy.example.com/v1', kind: EVICTION, metadata: { name: 'drain-web-0', namespace: 'default' }, spec: { podName: 'web-0' } } },
        { at: 16_000, type: 'patch', kind: BUDGET, key: 'default/web', patch: { spec: { minAvailable: 1 } } },
      ],
    },
    objects: [
      { kind: EVICTION, names: ['evict-web-1'], spec: [{ podName: 'web-1' }] },
      { kind: EVICTION, names: ['evict-web-2'], spec: [{ podName: 'web-2' }] },
    ],
    // an eviction names its Pod once (the real Eviction is a one-shot subresource call)
    validation: { immutable: { [EVICTION]: ['spec.podName'] } },
    environment: [podLifecycle],
    maxObjects: 2,
    // a settle phase longer than the DeletionTimeout (2 min): a grant whose Pod deletion a fault
    // refused, with the request withdrawn before the retry, stays in disruptedPods until it times out
    // (as in Kubernetes), and only then is the budget counted as the fault-free run counts it
    // (found by the hunt: the default 30 s ended the run with web-1 still granted, 1 healthy of 2 Ready)
    settleMs: 130_000,
  },
  properties: [
    budgetRespected(),
    convergence({ converged: budgetsSettled }),
    // which of several requests gets the last disruption is first come, first served (the eviction
    // API's own semantics): the one a controller happened to look at first, not state (found by the
    // hunt: three requests, two disruptions, the faulted run served drain-web-0 before evict-web-2)
    ...podEndStateProperties().map((p) => (p.name === 'same-end-state' ? sameEndState({ ...(p.options as Partial<SameEndStateOptions>), timingDependent: [EVICTION] }) : p)),
  ],
  buggy: {
    controllers: [defineEvictorController('cached-budget'), disruptionController],
    caughtBy: ['budget-respected'],
    why: 'it evicts on the budget its informer cache shows and deletes the Pod without taking the disruption: two requests handled before the disruption controller recounts both see disruptionsAllowed 1, and both Pods go',
  },
};
