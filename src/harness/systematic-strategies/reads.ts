import { permuteList } from '../../runtime/list-permutation.js';
import type { TraceEntry } from '../../sim/trace.js';
import { DerivationBuilder, type Derivation, type Strategy } from './strategy.js';
import { controllerActor, type ReadAt, type TraceIndex } from './trace-index.js';

/** Whether a step of the read's reconcile comes after the read. */
function writesAfter(r: ReadAt): boolean {
  return r.reconcile !== undefined && r.reconcile.steps.some((s) => s.at.index > r.index);
}

/**
 * The watch delivery a cached read rests on: the last one before it that brought the read object
 * (a get) or any object of the kind (a list) to the reading replica's cache.
 */
function deliveryBefore(ix: TraceIndex, r: ReadAt): TraceEntry | undefined {
  const who = controllerActor(r.entry['actor']);
  if (!who) return undefined;
  const key = r.entry['verb'] === 'get' ? r.entry['key'] : undefined;
  let found: TraceEntry | undefined;
  for (const d of ix.deliveries) {
    if ((ix.position.get(d) ?? Infinity) > r.index) break;
    if (d['decision'] !== 'deliver' || d['replay'] === true) continue;
    if (d['controller'] !== who.controller || d['replica'] !== who.replica || d['kind'] !== r.entry['kind']) continue;
    if (key !== undefined && d['key'] !== key) continue;
    found = d;
  }
  return found;
}

/**
 * A stale read of every object read before a write of the same reconcile (Sieve's stale state),
 * the way a real cache is stale: the watch delivery the cached get or list rests on is held back
 * (a lagging watch, in order) until just after the reconcile's first change, so the read shows
 * what the cache held before it (an older version, or for a new object nothing). Pruned: a read
 * after which the reconcile made no change, a read no delivery brought, and a read resting on a
 * delivery already held back.
 */
export const staleReadBeforeWrite: Strategy = {
  name: 'stale-read-before-write',
  kind: 'stale-snapshot',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('stale-read-before-write');
    const held = new Set<unknown>();
    for (const r of ix.cachedReads) {
      if (!writesAfter(r)) {
        b.prune('no change follows it in its reconcile');
        continue;
      }
      // what the cache held before that delivery is older (for a first version: nothing)
      const d = deliveryBefore(ix, r);
      if (!d || held.has(d['seq'])) {
        b.prune(d ? 'it rests on a delivery an earlier plan holds back' : 'no watch delivery brought what it read');
        continue;
      }
      held.add(d['seq']);
      const change = r.reconcile!.steps.find((s) => s.at.index > r.index)!;
      const e = r.entry;
      b.add({
        target: `cached ${String(e['verb'])} #${r.seq} of ${String(e['kind'])}${e['key'] !== undefined ? ` ${String(e['key'])}` : ''} by ${String(e['actor'])} at t=${e.t} ms, one delivery behind (held back until just after its reconcile's first change)`,
        events: [{ kind: 'stale-snapshot', nth: Number(d['seq']), target: String(d['controller']), params: { lagMs: change.at.entry.t - d.t + 1, forMs: 1 } }],
        at: r.index,
      });
    }
    return b.result();
  },
};

/** The smallest seed ≥ 1 whose permutation of `count` items moves the first item. */
export function seedMovingFirst(count: number): number {
  for (let seed = 1; seed < 1000; seed++) {
    const perm = permuteList(Array.from({ length: count }, (_, i) => i), seed);
    if (perm[0] !== 0) return seed;
  }
  return 1;
}

/**
 * A permuted list for every list of two or more items before a change of the same reconcile:
 * the list comes back with another item first (what a different API server replica, a resumed
 * pagination or a hash-ordered cache returns). Pruned: lists of fewer than two items, lists no
 * change follows.
 */
export const permutedList: Strategy = {
  name: 'permuted-list',
  kind: 'list-order',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('permuted-list');
    for (const l of ix.lists) {
      const count = Number(l.entry['count'] ?? 0);
      if (count < 2) {
        b.prune('fewer than two items');
        continue;
      }
      if (!writesAfter(l)) {
        b.prune('no change follows it in its reconcile');
        continue;
      }
      const who = controllerActor(l.entry['actor']);
      b.add({
        target: `list #${l.seq} of ${String(l.entry['kind'])} (${count} items) by ${String(l.entry['actor'])} at t=${l.entry.t} ms, another item first`,
        events: [{ kind: 'list-order', nth: l.seq, ...(who ? { target: who.controller } : {}), params: { order: seedMovingFirst(count) } }],
        at: l.index,
      });
    }
    return b.result();
  },
};

/**
 * Sieve's stale state after a restart: a restarted controller's informer lists from an API server
 * replica that lags behind, so its first view misses the newest object of the kind (versionsBack
 * reaches just before that object's creation) until the watch catches up 3 s later. Only lists
 * after a crash count (a first start has nothing older to see); pruned: lists of kinds with no
 * object created before the restart.
 */
export const staleListAfterRestart: Strategy = {
  name: 'stale-list-after-restart',
  kind: 'stale-snapshot',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('stale-list-after-restart');
    const crashed = new Set<string>();
    let n = 0;
    for (let i = 0; i < ix.end; i++) {
      const e = ix.trace[i]!;
      if (e.type === 'controller:crash') crashed.add(String(e['controller']));
      if (e.type !== 'informer:list' || !crashed.has(String(e['controller']))) continue;
      const nth = n++;
      const kind = String(e['kind']);
      // the newest creation of the kind before this list
      let newest: number | undefined;
      for (const [id, versions] of ix.versions) {
        if (!id.startsWith(`${kind} `)) continue;
        const created = versions.find((v) => v.entry['verb'] === 'create' && v.index < i);
        if (created) newest = Math.max(newest ?? 0, Number(created.entry['rv']));
      }
      const at = Number(e['rv']);
      if (newest === undefined || !(at >= newest)) {
        b.prune('no object of the kind was created before the restart');
        continue;
      }
      b.add({
        target: `the list of ${kind} by ${String(e['controller'])} after its restart at t=${e.t} ms, from a replica lagging ${at - newest + 1} versions behind (before the newest ${kind}), catching up 3 s later`,
        events: [{ kind: 'stale-snapshot', nth, target: String(e['controller']), params: { versionsBack: at - newest + 1, list: true, catchUpMs: 3000 } }],
        at: i,
      });
    }
    return b.result();
  },
};
