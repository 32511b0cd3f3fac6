import type { TraceEntry } from '../../sim/trace.js';
import type { FaultEvent } from '../fault-plan.js';
import { DerivationBuilder, type Derivation, type Strategy } from './strategy.js';
import { objectId, type ReconcileSpan, type TraceIndex } from './trace-index.js';

/** A state a later write cancels: touches one of its fields, restores an earlier content, or removes the object. */
interface Cancelled {
  write: TraceEntry;
  by: TraceEntry;
}

function cancelledStates(ix: TraceIndex): Cancelled[] {
  const out: Cancelled[] = [];
  for (const versions of ix.versions.values()) {
    for (let i = 0; i + 1 < versions.length; i++) {
      const w = versions[i]!.entry;
      const next = versions[i + 1]!.entry;
      const changed = new Set((w['changed'] as string[] | undefined) ?? []);
      const overlaps = ((next['changed'] as string[] | undefined) ?? []).some((p) => changed.has(p));
      const restores = i > 0 && next['digest'] !== undefined && next['digest'] === versions[i - 1]!.entry['digest'];
      if (next['removed'] === true || overlaps || restores) out.push({ write: w, by: next });
    }
  }
  return out.sort((a, b) => a.write.t - b.write.t || Number(a.write['rv']) - Number(b.write['rv']));
}

/** Removals (the last version of an object, gone). */
function removals(ix: TraceIndex): TraceEntry[] {
  const out: TraceEntry[] = [];
  for (const versions of ix.versions.values()) for (const v of versions) if (v.entry['removed'] === true) out.push(v.entry);
  return out.sort((a, b) => a.t - b.t);
}

/** Each index's deliveries (decision 'deliver') by object and resourceVersion, built once per index. */
const deliveriesByVersion = new WeakMap<TraceIndex, Map<string, TraceEntry[]>>();

const versionKey = (e: TraceEntry): string => `${objectId(e)}\u0000${typeof e['rv']}:${String(e['rv'])}`;

/** The deliveries of the version a write made, in trace order (a map lookup: a long run has many states). */
function deliveriesOf(ix: TraceIndex, w: TraceEntry): TraceEntry[] {
  let byVersion = deliveriesByVersion.get(ix);
  if (!byVersion) {
    byVersion = new Map();
    for (const e of ix.deliveries) {
      if (e['decision'] !== 'deliver') continue;
      const k = versionKey(e);
      const list = byVersion.get(k);
      if (list) list.push(e);
      else byVersion.set(k, [e]);
    }
    deliveriesByVersion.set(ix, byVersion);
  }
  return byVersion.get(versionKey(w)) ?? [];
}

function stateWords(w: TraceEntry, by: TraceEntry): string {
  const what = by['removed'] === true ? 'removed it' : `${String(by['verb'])} by ${String(by['actor'])} changed ${((by['changed'] as string[] | undefined) ?? []).join(', ') || 'it'}`;
  return `the state of ${objectId(w)} written by ${String(w['actor'])} (${String(w['verb'])}, rv ${String(w['rv'])}) at t=${w.t} ms, cancelled at t=${by.t} ms (${what})`;
}

const streamOf = (e: TraceEntry) => `${String(e['controller'])}/${String(e['replica'])}/${String(e['kind'])}`;

/**
 * Sieve's unobserved states: the watch events of each state a later write cancels are lost, so the
 * controller never sees it (its cache skips it until a relist); and each deletion's events, so
 * the controller sees the object gone only after a relist. Pruned: states no controller was sent.
 */
export const unobservedState: Strategy = {
  name: 'unobserved-state',
  kind: 'watch-event-loss',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('unobserved-state');
    const drop = (events: TraceEntry[]): FaultEvent[] => [...new Set(events.map((e) => e['seq'] as number))].map((nth) => ({ kind: 'watch-event-loss', nth }));
    for (const { write, by } of cancelledStates(ix)) {
      const seen = deliveriesOf(ix, write);
      if (seen.length === 0) b.prune('no controller was sent that state');
      else b.add({ target: stateWords(write, by), events: drop(seen), at: ix.position.get(seen[0]!)! });
    }
    for (const gone of removals(ix)) {
      const seen = deliveriesOf(ix, gone);
      if (seen.length === 0) b.prune('no controller was sent that deletion');
      else b.add({ target: `the deletion of ${objectId(gone)} at t=${gone.t} ms by ${String(gone['actor'])}, seen only after a relist`, events: drop(seen), at: ix.position.get(seen[0]!)! });
    }
    return b.result();
  },
};

/** The notifications each cancelled state's delivery caused are dropped: the cache sees it, nothing reconciles it. */
export const unnotifiedState: Strategy = {
  name: 'unnotified-state',
  kind: 'event-loss',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('unnotified-state');
    for (const { write, by } of cancelledStates(ix)) {
      const seqs: number[] = [];
      let first = -1;
      for (const d of deliveriesOf(ix, write)) {
        // the handler runs synchronously after the delivery: its notifications follow at once
        for (let j = ix.position.get(d)! + 1; j < ix.end; j++) {
          const n = ix.trace[j]!;
          if (n.type !== 'informer:notify') break;
          if (n['controller'] === d['controller'] && n['replica'] === d['replica'] && n['decision'] === 'deliver' && typeof n['seq'] === 'number') {
            seqs.push(n['seq']);
            if (first < 0) first = j;
          }
        }
      }
      if (seqs.length === 0) b.prune('no notification came of it');
      else b.add({ target: stateWords(write, by), events: [...new Set(seqs)].map((nth) => ({ kind: 'event-loss', nth })), at: first });
    }
    return b.result();
  },
};

/**
 * A watch that falls behind over each cancelled state: from the state's event until just past
 * the cancelling one, each informer's stream skips its events and then relists, so only the latest
 * version arrives; and over each deletion (seen as a tombstone from the relist, 3 s later).
 */
export const coalescedState: Strategy = {
  name: 'coalesced-state',
  kind: 'coalescing',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('coalesced-state');
    for (const { write, by } of cancelledStates(ix)) {
      const seen = deliveriesOf(ix, write);
      if (seen.length === 0) {
        b.prune('no controller was sent that state');
        continue;
      }
      const later = deliveriesOf(ix, by);
      const events: FaultEvent[] = seen.map((d) => {
        const cancel = later.find((x) => streamOf(x) === streamOf(d));
        return { kind: 'coalescing', nth: d['seq'] as number, params: { ms: Math.max(1, (cancel ? cancel.t : d.t + 1000) - d.t + 1) } };
      });
      b.add({ target: `${stateWords(write, by)}, skipped by a watch that fell behind`, events, at: ix.position.get(seen[0]!)! });
    }
    for (const gone of removals(ix)) {
      const seen = deliveriesOf(ix, gone);
      if (seen.length === 0) b.prune('no controller was sent that deletion');
      else b.add({ target: `the deletion of ${objectId(gone)} at t=${gone.t} ms, seen as a tombstone from a relist 3 s later`, events: seen.map((d) => ({ kind: 'coalescing', nth: d['seq'] as number, params: { ms: 3000 } })), at: ix.position.get(seen[0]!)! });
    }
    return b.result();
  },
};

/** Per reconcile, the last delivery of each stream of its controller replica before it started, built once per index in one sweep. */
const freshestByReconcile = new WeakMap<TraceIndex, Map<ReconcileSpan, TraceEntry[]>>();

/** The last delivery of each stream of the controller before the reconcile started. */
function freshestBefore(ix: TraceIndex, r: ReconcileSpan): TraceEntry[] {
  let byReconcile = freshestByReconcile.get(ix);
  if (!byReconcile) {
    byReconcile = new Map();
    /** Per controller replica, its streams' last deliveries so far. */
    const last = new Map<string, Map<string, TraceEntry>>();
    let next = 0;
    for (const span of [...ix.reconciles].sort((a, b) => a.startIndex - b.startIndex)) {
      for (; next < ix.deliveries.length && ix.position.get(ix.deliveries[next]!)! <= span.startIndex; next++) {
        const d = ix.deliveries[next]!;
        if (d['decision'] !== 'deliver') continue;
        const replica = `${String(d['controller'])}/${String(d['replica'])}`;
        let streams = last.get(replica);
        if (!streams) last.set(replica, (streams = new Map()));
        streams.set(streamOf(d), d);
      }
      byReconcile.set(span, [...(last.get(`${span.controller}/${span.replica}`)?.values() ?? [])]);
    }
    freshestByReconcile.set(ix, byReconcile);
  }
  return [...(byReconcile.get(r) ?? [])];
}

/**
 * A delayed event before each reconcile that changes something: each of the controller's watch
 * streams stalls for 3 s from its last event before the reconcile, so the reconcile decides on
 * the state before it. Pruned: reconciles that change nothing, and events already delayed for an
 * earlier reconcile.
 */
export const delayedEvent: Strategy = {
  name: 'delayed-event',
  kind: 'delay',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('delayed-event');
    const done = new Set<number>();
    for (const r of ix.reconciles) {
      if (r.steps.length === 0) {
        b.prune('a reconcile that changed nothing');
        continue;
      }
      for (const d of freshestBefore(ix, r)) {
        const seq = d['seq'] as number;
        if (done.has(seq)) {
          b.prune('the same event as for an earlier reconcile');
          continue;
        }
        done.add(seq);
        b.add({ target: `the ${String(d['event'])} of ${objectId(d)} (rv ${String(d['rv'])}) to ${streamOf(d)} at t=${d.t} ms, delayed 3 s, before the reconcile of ${r.key} at t=${r.start.t} ms`, events: [{ kind: 'delay', nth: seq, params: { ms: 3000 } }], at: ix.position.get(d)! });
      }
    }
    return b.result();
  },
};

/**
 * A duplicated event before each reconcile that changes something: the last event the controller
 * got before it is delivered again 1 ms after the reconcile's first change, so the controller
 * reconciles again at once, on a cache that may not have its own writes yet.
 */
export const duplicatedEvent: Strategy = {
  name: 'duplicated-event',
  kind: 'duplication',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('duplicated-event');
    const done = new Set<number>();
    for (const r of ix.reconciles) {
      const first = r.steps[0];
      if (!first) {
        b.prune('a reconcile that changed nothing');
        continue;
      }
      const before = freshestBefore(ix, r).sort((x, y) => ix.position.get(y)! - ix.position.get(x)!)[0];
      if (!before) {
        b.prune('no event before it');
        continue;
      }
      const seq = before['seq'] as number;
      if (done.has(seq)) {
        b.prune('the same event as for an earlier reconcile');
        continue;
      }
      done.add(seq);
      b.add({ target: `the ${String(before['event'])} of ${objectId(before)} to ${streamOf(before)} at t=${before.t} ms, delivered again at t=${first.at.entry.t + 1} ms, right after the reconcile of ${r.key} made its first change`, events: [{ kind: 'duplication', nth: seq, params: { afterMs: Math.max(0, first.at.entry.t - before.t) + 1 } }], at: ix.position.get(before)! });
    }
    return b.result();
  },
};

/**
 * A change held back behind a queued reconcile: when another actor's change of an object reaches a
 * controller while a reconcile of that object is already queued (an earlier event of it arrived,
 * the reconcile has not started), that event's watch is held back until just after the reconcile
 * starts while the controller's other watches go on (reordering), so the reconcile decides on the
 * state the change replaced, as it does when one watch stream falls behind. A reconciler that
 * writes with the resourceVersion it read gets a 409; one that writes back what it cached undoes
 * the change. Pruned: reconciles that change nothing, changes that are the controller's own writes
 * (stale-read-before-write's case), and events already held for an earlier reconcile.
 */
export const heldChange: Strategy = {
  name: 'held-change',
  kind: 'reordering',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('held-change');
    // who wrote each version (a controller's name; '' for the user and other actors)
    const writerOf = new Map<string, string>();
    for (const [id, versions] of ix.versions) for (const v of versions) writerOf.set(`${id}\u0000${String(v.entry['rv'])}`, String(v.entry['actor']).startsWith('controller:') ? String(v.entry['actor']).slice('controller:'.length).replace(/\/\d+$/, '') : '');
    // per controller replica and key, its deliveries in order
    const byKey = new Map<string, TraceEntry[]>();
    for (const d of ix.deliveries) {
      if (d['decision'] !== 'deliver' || d['replay'] === true) continue;
      const k = `${String(d['controller'])}/${String(d['replica'])}\u0000${String(d['key'])}`;
      const list = byKey.get(k);
      if (list) list.push(d);
      else byKey.set(k, [d]);
    }
    // per controller replica and key, the first of its deliveries not yet before a reconcile (reconciles in start order: one sweep)
    const next = new Map<string, number>();
    const done = new Set<number>();
    for (const r of [...ix.reconciles].sort((x, y) => x.startIndex - y.startIndex)) {
      const k = `${r.controller}/${r.replica}\u0000${r.key}`;
      // the events of the object since the previous reconcile of it: the first queued this one, later ones came while it was queued
      const all = byKey.get(k) ?? [];
      const from = next.get(k) ?? 0;
      let to = from;
      while (to < all.length && ix.position.get(all[to]!)! < r.startIndex) to++;
      next.set(k, to);
      if (r.steps.length === 0) {
        b.prune('a reconcile that changed nothing');
        continue;
      }
      const came = all.slice(from, to);
      const late = came.slice(1).filter((d) => writerOf.get(`${objectId(d)}\u0000${String(d['rv'])}`) !== r.controller);
      const d = late.at(-1);
      if (!d) {
        b.prune(came.length < 2 ? 'no change reached it while its reconcile was queued' : "the change is the controller's own write");
        continue;
      }
      const seq = d['seq'] as number;
      if (done.has(seq)) {
        b.prune('the same event as for an earlier reconcile');
        continue;
      }
      done.add(seq);
      b.add({
        target: `the ${String(d['event'])} of ${objectId(d)} (rv ${String(d['rv'])}) to ${streamOf(d)} at t=${d.t} ms, held back until just after the reconcile of ${r.key} queued before it started at t=${r.start.t} ms`,
        events: [{ kind: 'reordering', nth: seq, target: r.controller, params: { holdMs: Math.max(1, r.start.t - d.t + 1) } }],
        at: ix.position.get(d)!,
      });
    }
    return b.result();
  },
};
