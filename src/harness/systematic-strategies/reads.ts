import { permuteList } from '../../runtime/list-permutation.js';
import type { TraceEntry } from '../../sim/trace.js';
import { DerivationBuilder, type Derivation, type Strategy } from './strategy.js';
import { controllerActor, objectId, type ReadAt, type ReconcileSpan, type TraceIndex } from './trace-index.js';

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
      if (!countedList(e, crashed)) continue;
      const nth = n++;
      if (e.type !== 'informer:list') continue;
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

/**
 * Whether stale-snapshot counts a list among those it may lag (its `nth`): a native informer's
 * relist or its list after a restart, and a hosted program's cache-servable list (`program:list`)
 * that is a relist or comes after a restart. `crashed`: controllers that crashed before it.
 */
function countedList(e: TraceEntry, crashed: ReadonlySet<string>): boolean {
  if (e.type === 'informer:relist') return true;
  if (e.type === 'informer:list') return crashed.has(String(e['controller']));
  return e.type === 'program:list' && (e['reason'] === 'relist' || crashed.has(String(e['controller'])));
}

/** The most versions a lagging replica's list is behind, as stale-snapshot's generator draws it. */
const MAX_VERSIONS_BACK = 8;

/**
 * Sieve's time travel, whole: the controller crashes right after a reconcile that followed an
 * object's creation (each of its reconciles of that object that changed something, else the first
 * to end), and its restarted informer lists that object's kind from an API server
 * replica lagging behind it (the newest object of the kind before the crash missing, the watch
 * catching up 3 s later). One plan carries both faults, so a run without a restart yields it
 * (`stale-list-after-restart` needs the restart in the run already: depth 2). Pruned: creations
 * of kinds the controller does not list, with no reconcile of it ending after them within the
 * fault window, behind a newer creation of the kind before the same crash point, or more versions
 * before the crash than the fault's generator lets a replica lag (8).
 */
export const restartFromStaleReplica: Strategy = {
  name: 'restart-from-stale-replica',
  kind: 'stale-snapshot',
  needs: ['crash-restart'],
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('restart-from-stale-replica');
    const windowEnd = ix.run.timing.faultWindowEnd;
    // per controller, the kinds its first start lists, in order: what a restart lists again
    const kindsOf = new Map<string, string[]>();
    // per trace index, the lists the stale-snapshot fault counts before it (relists, and lists after a restart) and the store's resourceVersion
    const counted: number[] = [];
    const rvAt: number[] = [];
    const crashed = new Set<string>();
    let n = 0;
    let rv = 0;
    for (let i = 0; i < ix.trace.length; i++) {
      counted[i] = n;
      rvAt[i] = rv;
      const e = ix.trace[i]!;
      if (e.type === 'store:write' && typeof e['rv'] === 'number') rv = Math.max(rv, e['rv']);
      else if (e.type === 'controller:crash') crashed.add(String(e['controller']));
      else if (e.type === 'informer:relist' || e.type === 'program:list') n += countedList(e, crashed) ? 1 : 0;
      else if (e.type === 'informer:list') {
        const c = String(e['controller']);
        if (crashed.has(c)) n++;
        else if (e['replica'] === 0) {
          const ks = kindsOf.get(c) ?? [];
          if (!ks.includes(String(e['kind']))) ks.push(String(e['kind']));
          kindsOf.set(c, ks);
        }
      }
    }
    // per crash point (controller, kind, the reconcile it follows): the newest creation before it
    const points = new Map<string, { controller: string; kind: string; position: number; span: ReconcileSpan; created: number; key: string }>();
    for (const [id, versions] of ix.versions) {
      const created = versions.find((v) => v.entry['verb'] === 'create');
      if (!created || created.index >= ix.end) continue;
      const kind = id.slice(0, id.indexOf(' '));
      const createdRv = Number(created.entry['rv']);
      let listed = false;
      for (const [controller, kinds] of kindsOf) {
        const position = kinds.indexOf(kind);
        if (position < 0) continue;
        listed = true;
        // after each of its reconciles of the object itself that changed something (a finalizer
        // added, then what it makes for the object: each a state to restart into), else after the first one that ends
        const after = (r: ReconcileSpan) => r.controller === controller && r.endEntry !== undefined && r.endIndex > created.index && r.endEntry.t + 1 < windowEnd;
        const objectKey = id.slice(id.indexOf(' ') + 1);
        const own = ix.reconciles.filter((r) => after(r) && r.key === objectKey && r.steps.length > 0);
        const first = ix.reconciles.find(after);
        const spans = own.length > 0 ? own : first ? [first] : [];
        if (spans.length === 0) b.prune('no reconcile of the controller ends after the creation within the fault window');
        for (const span of spans) {
          const point = `${controller} ${kind} ${span.endIndex}`;
          const had = points.get(point);
          if (had) b.prune('a newer object of the kind was created before the same crash point');
          if (!had || had.created < createdRv) points.set(point, { controller, kind, position, span, created: createdRv, key: objectKey });
        }
      }
      if (!listed) b.prune('no controller lists the kind');
    }
    for (const p of [...points.values()].sort((x, y) => x.span.endIndex - y.span.endIndex || (x.kind < y.kind ? -1 : 1))) {
      const t = p.span.endEntry!.t + 1;
      const behind = rvAt[p.span.endIndex]! - p.created + 1;
      // no further behind than the fault's own generator draws (a replica a few versions behind)
      if (behind > MAX_VERSIONS_BACK) {
        b.prune(`the object was created more than ${MAX_VERSIONS_BACK} versions before the crash`);
        continue;
      }
      // a margin of a few versions (writes between the crash and the restarted list move the API server on), within that bound
      const versionsBack = Math.min(MAX_VERSIONS_BACK, behind + 2);
      b.add({
        target: `${p.controller} crashing at t=${t} ms, after its reconcile of ${p.span.key}, its restart listing ${p.kind} from a replica from before ${p.key} was created, catching up 3 s later`,
        events: [
          { kind: 'crash-restart', at: t, target: p.controller },
          { kind: 'stale-snapshot', nth: counted[p.span.endIndex]! + p.position, target: p.controller, params: { versionsBack, list: true, catchUpMs: 3000 } },
        ],
        at: p.span.endIndex,
      });
    }
    return b.result();
  },
};

/** The most events a lagging cache is behind, and its shortest lag window, as stale-snapshot's generator draws them. */
const MAX_VERSIONS_BEHIND = 8;
const MIN_LAG_FOR_MS = 1000;

/**
 * A controller that reacts late to a state somebody else already replaced (Sieve's stale state,
 * across another actor's change): for each change of an object by another actor (the user, an
 * environment actor, another controller) after a version the controller reacted to, its watch of
 * the kind lags from that version's delivery on (kept behind by as many events as reach it
 * before the change, within what stale-snapshot's generator draws), so the version reaches its
 * cache only once the change was made, and it acts on the state the change replaced. A
 * reconciler that writes with the resourceVersion it read gets a 409 and decides again; one that
 * writes back what it cached undoes the change. `stale-read-before-write` does not reach this:
 * there the held delivery shows what the cache held before it, which the controller had already
 * acted on. Pruned: changes no controller had a delivery of the object before, deliveries after
 * which the controller changed nothing before the change, deliveries an earlier plan lags, and
 * lags more events behind than the generator draws (8).
 */
export const staleAcrossChange: Strategy = {
  name: 'stale-across-change',
  kind: 'stale-snapshot',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('stale-across-change');
    const windowMs = ix.run.timing.faultWindowEnd;
    // who wrote each version (a controller's name; '' for the user and other actors)
    const writerOf = new Map<string, string>();
    for (const [id, versions] of ix.versions) for (const v of versions) writerOf.set(`${id}\u0000${String(v.entry['rv'])}`, controllerActor(v.entry['actor'])?.controller ?? '');
    const writer = (d: TraceEntry) => writerOf.get(`${objectId(d)}\u0000${String(d['rv'])}`) ?? '';
    // per stream (controller/replica/kind) its deliveries in order, and per stream and object the positions among them
    const streams = new Map<string, TraceEntry[]>();
    const byObject = new Map<string, Map<string, number[]>>();
    for (const d of ix.deliveries) {
      if (d['decision'] !== 'deliver' || d['replay'] === true) continue;
      const s = `${String(d['controller'])}/${String(d['replica'])}/${String(d['kind'])}`;
      let list = streams.get(s);
      if (!list) streams.set(s, (list = []));
      const id = objectId(d);
      let objects = byObject.get(id);
      if (!objects) byObject.set(id, (objects = new Map()));
      let at = objects.get(s);
      if (!at) objects.set(s, (at = []));
      at.push(list.length);
      list.push(d);
    }
    // per controller, the trace indices of its writes made in a reconcile (sorted)
    const writesOf = new Map<string, number[]>();
    for (const x of ix.writes) {
      if (x.reconcile === undefined) continue;
      const list = writesOf.get(x.controller);
      if (list) list.push(x.index);
      else writesOf.set(x.controller, [x.index]);
    }
    const lagged = new Set<unknown>();
    const changes = [...ix.versions.entries()].flatMap(([id, vs]) => vs.map((v) => ({ id, ...v }))).sort((x, y) => x.index - y.index);
    for (const change of changes) {
      const w = change.entry;
      if (w['verb'] === 'create') continue;
      const by = controllerActor(w['actor'])?.controller ?? '';
      const objects = byObject.get(change.id);
      if (!objects) {
        b.prune('no controller had a delivery of the object before the change');
        continue;
      }
      for (const [stream, positions] of objects) {
        const deliveries = streams.get(stream)!;
        const controller = stream.slice(0, stream.indexOf('/'));
        if (by === controller) {
          b.prune("the change is the controller's own write");
          continue;
        }
        // the last delivery of the object before the change of a version the stream's controller did not write
        let k = -1;
        for (let j = lastAtOrBelow(positions, (p) => ix.position.get(deliveries[p]!)!, change.index); j >= 0; j--) {
          if (writer(deliveries[positions[j]!]!) === controller) continue;
          k = positions[j]!;
          break;
        }
        if (k < 0) continue;
        const d = deliveries[k]!;
        const pos = ix.position.get(d)!;
        const mine = writesOf.get(controller) ?? [];
        const next = firstAbove(mine, pos);
        if (next === undefined || next > change.index) {
          b.prune('the controller changed nothing after that delivery before the change');
          continue;
        }
        if (lagged.has(d['seq'])) {
          b.prune('an earlier plan lags the same delivery');
          continue;
        }
        // the events of other writers that reach the stream before the change push the held one out: stay behind all of them
        let behind = 1;
        for (let j = k + 1; j < deliveries.length && ix.position.get(deliveries[j]!)! < change.index && behind <= MAX_VERSIONS_BEHIND; j++) if (writer(deliveries[j]!) !== controller) behind++;
        if (behind > MAX_VERSIONS_BEHIND) {
          b.prune(`more than ${MAX_VERSIONS_BEHIND} events reach the watch before the change`);
          continue;
        }
        lagged.add(d['seq']);
        const gap = w.t - d.t;
        // behind until a second after the change (within the fault window, as the generator's lags are)
        const forMs = Math.max(MIN_LAG_FOR_MS, Math.min(gap + 1000, Math.max(gap + 1, windowMs)));
        b.add({
          target: `${objectId(d)} (rv ${String(d['rv'])}) reaching ${stream} only after ${String(w['actor'])} changed it at t=${w.t} ms (${String(w['verb'])}, rv ${String(w['rv'])}): its watch kept ${behind} event${behind === 1 ? '' : 's'} behind from t=${d.t} ms`,
          events: [{ kind: 'stale-snapshot', nth: Number(d['seq']), target: controller, params: { versionsBehind: behind, forMs } }],
          at: pos,
        });
      }
    }
    return b.result();
  },
};

/** The last index of a list sorted by `key` whose key is at most `x` (-1: none). */
function lastAtOrBelow(list: readonly number[], key: (v: number) => number, x: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(list[mid]!) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** The first value above `x` in a sorted list. */
function firstAbove(sorted: readonly number[], x: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! > x) hi = mid;
    else lo = mid + 1;
  }
  return sorted[lo];
}

/**
 * A hosted program's list that an API server may answer from its watch cache (`resourceVersion=0`)
 * coming from a replica that lags behind, just before the program acts on it (red team round 10
 * M-1): a GC that lists what owns things and deletes what nothing it listed owns. For each such
 * list the stale-snapshot fault can lag (a relist, or a list after a restart: `program:list`),
 * followed by a write of the same program before its next list of the kind, the list misses the
 * newest object of its kind created before it (never older than the client asked for). Pruned:
 * lists the fault does not lag (a process's first list of a kind), lists no write follows, kinds
 * with no creation before the list, a creation older than the client's floor or more versions
 * back than the fault's generator draws (8), and a creation an earlier plan's list already misses.
 */
export const staleProgramList: Strategy = {
  name: 'stale-program-list',
  kind: 'stale-snapshot',
  derive(ix: TraceIndex): Derivation {
    const b = new DerivationBuilder('stale-program-list');
    const windowEnd = ix.run.timing.faultWindowEnd;
    // creations in order: trace index, kind, resourceVersion
    const creations: { index: number; kind: string; rv: number }[] = [];
    for (const [id, versions] of ix.versions) {
      const c = versions.find((v) => v.entry['verb'] === 'create');
      if (c) creations.push({ index: c.index, kind: id.slice(0, id.indexOf(' ')), rv: Number(c.entry['rv']) });
    }
    const crashed = new Set<string>();
    const missed = new Set<string>();
    let n = 0;
    for (let i = 0; i < ix.end; i++) {
      const e = ix.trace[i]!;
      if (e.type === 'controller:crash') crashed.add(String(e['controller']));
      if (!countedList(e, crashed)) {
        if (e.type === 'program:list') b.prune("the process's first list of the kind (the fault lags only relists and lists after a restart)");
        continue;
      }
      const nth = n++;
      if (e.type !== 'program:list' || e.t >= windowEnd) continue;
      const kind = String(e['kind']);
      const actor = e['actor'];
      // the program's next write, before its next list of the kind
      let write: TraceEntry | undefined;
      for (let j = i + 1; j < ix.end && !write; j++) {
        const x = ix.trace[j]!;
        if (x.type === 'program:list' && x['actor'] === actor && x['kind'] === kind) break;
        if (x.type === 'store:write' && x['actor'] === actor && x['error'] === undefined && x['noop'] !== true && ['delete', 'update', 'patch'].includes(String(x['verb']))) write = x;
      }
      if (!write) {
        b.prune('no write of the program follows it before its next list of the kind');
        continue;
      }
      let newest: number | undefined;
      for (const c of creations) if (c.kind === kind && c.index < i) newest = Math.max(newest ?? 0, c.rv);
      const rv = Number(e['rv']);
      if (newest === undefined || !(rv >= newest)) {
        b.prune('no object of the kind was created before it');
        continue;
      }
      const versionsBack = rv - newest + 1;
      if (newest - 1 < Number(e['notOlderThan'] ?? 0)) {
        b.prune('the client asked for data not older than the newest creation');
        continue;
      }
      if (versionsBack > MAX_VERSIONS_BACK) {
        b.prune(`the newest creation is more than ${MAX_VERSIONS_BACK} versions before it`);
        continue;
      }
      if (missed.has(`${kind} ${newest}`)) {
        b.prune('an earlier plan lags a list behind the same creation');
        continue;
      }
      missed.add(`${kind} ${newest}`);
      b.add({
        target: `the list of ${kind} by ${String(actor)} at t=${e.t} ms (resourceVersion=${String(e['notOlderThan'])}), from a replica lagging ${versionsBack} versions behind (before the newest ${kind}), before its ${String(write['verb'])} of ${String(write['kind'])} ${String(write['key'])} at t=${write.t} ms`,
        events: [{ kind: 'stale-snapshot', nth, target: String(e['controller']), params: { versionsBack, list: true, catchUpMs: 0 } }],
        at: i,
      });
    }
    return b.result();
  },
};
