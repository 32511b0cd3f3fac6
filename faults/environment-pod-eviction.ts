import fc from 'fast-check';
import { defineFault } from '../src/harness/fault.js';
import type { FaultEvent } from '../src/harness/fault-plan.js';
import type { World } from '../src/harness/world.js';
import type { ScheduledEvent } from '../src/sim/scheduler.js';
import { isStoreError } from '../src/store/errors.js';
import { keyOf, type StoredObject } from '../src/store/object.js';

const ACTOR = 'fault:environment-pod-eviction';
/** How often the background form rolls the dice for a node failure (virtual ms). */
const NODE_CHECK_MS = 5000;

/**
 * Node-style eviction: at a moment in the fault window a node fails or comes under pressure and
 * the node lifecycle controller (taint-based eviction) deletes the pods on it. Pods are placed
 * on nodes `node-0 … node-(n-1)` by the `pod-lifecycle` actor; the deletions are recorded as
 * actor `fault:environment-pod-eviction`.
 *
 * A correct reconciler survives it because it is level-triggered: a ReplicaSet or StatefulSet
 * (or the operator itself, when it owns pods) recreates the missing pods, and the operator
 * reports not-ready until they are Ready again.
 *
 * Events: `{ kind: 'environment-pod-eviction', at, params: { node } }` evicts every pod on
 * `node-<node>` at `at`; `{ at, nth }` evicts the nth of the running pods sorted by key (modulo
 * their count); `target` narrows to pod keys starting with it. Background: `{ rate }`: every
 * 5 s of the fault window a node fails with that probability (a seeded choice among the nodes
 * that run pods) and its pods are evicted.
 * @public
 */
export const environmentPodEviction = defineFault({
  kind: 'environment-pod-eviction',
  models: 'a node failing or under pressure: its pods are evicted (deleted) by the node lifecycle controller',
  survivedBy: 'level-triggered repair: the pods are recreated, and readiness is reported only once they are Ready again',
  actsOn: 'environment',
  arbitrary: (ctx) =>
    fc.array(fc.record({ kind: fc.constant('environment-pod-eviction'), at: fc.integer({ min: 0, max: Math.max(0, ctx.faultWindowMs - 1) }), params: fc.record({ node: fc.nat({ max: 2 }) }) }), { maxLength: 2 }),
  backgroundArbitrary: () => fc.record({ kind: fc.constant('environment-pod-eviction'), rate: fc.integer({ min: 0, max: 50 }).map((p) => p / 100) }),
  install({ world, rng, fired }, plan) {
    const evict = (at: number, victims: StoredObject[], detail: Record<string, unknown>) => {
      const evicted: string[] = [];
      for (const p of victims) {
        try {
          world.store.delete(ACTOR, 'Pod', p.metadata.namespace !== undefined ? { namespace: p.metadata.namespace, name: p.metadata.name } : { name: p.metadata.name }, { preconditions: { uid: p.metadata.uid } });
          evicted.push(keyOf(p.metadata));
        } catch (err) {
          if (!isStoreError(err)) throw err; // gone already: nothing to evict
        }
      }
      if (evicted.length > 0) fired({ at, pods: evicted, ...detail });
    };
    const rate = plan.background.reduce((r, b) => Math.max(r, b.rate), 0);
    const ticks: ScheduledEvent[] = [];
    // background: every 5 s of the fault window one node fails with probability `rate`
    if (rate > 0) {
      for (let at = NODE_CHECK_MS; at < world.options.faultWindowMs; at += NODE_CHECK_MS) {
        ticks.push(
          world.kernel.at(at, () => {
            if (world.phase !== 'faults' || !rng.chance(rate)) return;
            const nodes = [...new Set(running(world).map((p) => p.spec['nodeName']).filter((n): n is string => typeof n === 'string'))].sort();
            const node = nodes[rng.int(0, Math.max(0, nodes.length - 1))];
            if (node !== undefined) evict(at, running(world).filter((p) => p.spec['nodeName'] === node), { node, background: true });
          }),
        );
      }
    }
    const timers = plan.events
      .filter((e) => e.at !== undefined)
      .map((e) =>
        world.kernel.at(e.at!, () => {
          if (world.phase !== 'faults') return;
          evict(e.at!, pick(world, e), e.nth === undefined && e.target === undefined ? { node: nodeOf(e) } : {});
        }),
      );
    return () => {
      for (const t of [...timers, ...ticks]) t.cancelled = true;
    };
  },
});

function nodeOf(e: FaultEvent): string {
  const n = e.params?.['node'];
  return typeof n === 'string' ? n : `node-${typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : 0}`;
}

/** Pods not finished and not being deleted, sorted by key. */
function running(world: World): StoredObject[] {
  return world.store
    .peekAll('Pod')
    .filter((p) => p.metadata.deletionTimestamp === undefined && p.status['phase'] !== 'Succeeded' && p.status['phase'] !== 'Failed')
    .sort((a, b) => (keyOf(a.metadata) < keyOf(b.metadata) ? -1 : 1));
}

/** The running pods the event evicts, sorted by key. */
function pick(world: World, e: FaultEvent): StoredObject[] {
  const pods = running(world).filter((p) => e.target === undefined || keyOf(p.metadata).startsWith(e.target));
  if (e.nth !== undefined) {
    const p = pods[e.nth % Math.max(1, pods.length)];
    return p ? [p] : [];
  }
  if (e.target !== undefined && e.params?.['node'] === undefined) return pods;
  const node = nodeOf(e);
  return pods.filter((p) => p.spec['nodeName'] === node);
}
