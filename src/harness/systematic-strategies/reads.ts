import { permuteList } from '../../runtime/list-permutation.js';
import { DerivationBuilder, type Derivation, type Strategy } from './strategy.js';
import { controllerActor, type ReadAt, type TraceIndex } from './trace-index.js';

/** Whether a step of the read's reconcile comes after the read. */
function writesAfter(r: ReadAt): boolean {
  return r.reconcile !== undefined && r.reconcile.steps.some((s) => s.at.index > r.index);
}

/** Whether the object (or, for a list, any object of the kind) had two or more versions before the read. */
function olderVersionBefore(ix: TraceIndex, read: ReadAt): boolean {
  const e = read.entry;
  const twoBefore = (versions: readonly { index: number }[] | undefined) => (versions?.filter((v) => v.index < read.index).length ?? 0) >= 2;
  if (e['verb'] === 'get') return twoBefore(ix.versions.get(`${String(e['kind'])} ${String(e['key'])}`));
  for (const [id, versions] of ix.versions) if (id.startsWith(`${String(e['kind'])} `) && twoBefore(versions)) return true;
  return false;
}

/**
 * A stale read of every object read before a write of the same reconcile (Sieve's stale state):
 * the cached get or list of each read returns what the cache held one version earlier. Pruned: a
 * read after which the reconcile made no change, and a read of objects that had no earlier version.
 */
export const staleReadBeforeWrite: Strategy = {
  name: 'stale-read-before-write',
  kind: 'stale-snapshot',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('stale-read-before-write');
    for (const r of ix.cachedReads) {
      if (!writesAfter(r)) {
        b.prune('no change follows it in its reconcile');
        continue;
      }
      if (!olderVersionBefore(ix, r)) {
        b.prune('nothing older to show: the object had one version');
        continue;
      }
      const e = r.entry;
      b.add({
        target: `cached ${String(e['verb'])} #${r.seq} of ${String(e['kind'])}${e['key'] !== undefined ? ` ${String(e['key'])}` : ''} by ${String(e['actor'])} at t=${e.t} ms, one version stale, before its reconcile's changes`,
        events: [{ kind: 'stale-snapshot', nth: r.seq, params: { versionsBack: 1 } }],
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
