import { GoneError } from './errors.js';
import { keyOf, type StoredObject } from './object.js';

/** A watch event. BOOKMARK carries only a resourceVersion. @public */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  /** Immutable snapshot: never mutate it; clone before handing it to user code. */
  object: StoredObject;
  rv: number;
}

/** A running watch. @public */
export interface Watch {
  stop(): void;
}

/** One registered watch callback. */
interface Watcher {
  namespace: string | undefined;
  fn: (ev: WatchEvent) => void;
  /** Events up to this resourceVersion were replayed or predate the watch: never sent live. */
  since: number;
}

/** Sends a queued event to one watcher, unless the watcher started after it or watches another namespace. */
function deliverTo(w: Watcher, ev: WatchEvent, bookmark: boolean): void {
  if (bookmark ? ev.rv < w.since : ev.rv <= w.since) return;
  if (!bookmark && w.namespace !== undefined && ev.object.metadata.namespace !== w.namespace) return;
  w.fn(ev);
}

/** Stops a watcher (a second stop changes nothing). */
function unwatch(kw: KindWatch, w: Watcher): boolean {
  if (!kw.watchers.delete(w)) return false;
  kw.list = [...kw.watchers];
  return true;
}

/**
 * The watch state of one kind: its bounded event history and its watchers. The store keeps one
 * per kind beside the objects and hands it to {@link WatchHub}.
 * @internal
 */
export interface KindWatch {
  /** Retained events from `historyStart` on (the prefix is evicted, kept only to trim in bulk). */
  history: WatchEvent[];
  historyStart: number;
  /** A watch from before this resourceVersion gets 410 Gone (evicted, or compacted by a fault). */
  compactedRv: number;
  /** Highest resourceVersion evicted from the history: what a lagging replica's list can reach back to. */
  evictedRv: number;
  watchers: Set<Watcher>;
  /** `[...watchers]`, replaced (never changed in place) whenever a watcher starts or stops. */
  list: readonly Watcher[];
}

/**
 * The store's watch machinery (SPEC §2.1): a bounded history per kind, watches that replay
 * from a resourceVersion or answer 410 Gone past the history, bookmarks, compaction, and one
 * delivery queue shared by all kinds so every watcher sees events in resourceVersion order.
 * Knows nothing about writes: the store emits events and tells it the current resourceVersion.
 * @internal
 */
export class WatchHub {
  /** Watch events waiting to be dispatched, in resourceVersion order. */
  // two parallel lists, kept and reused from one write to the next (no pair object per event, no new list per flush);
  // slots before `queueHead` are emptied as they are delivered, so nothing delivered is kept alive
  private queueKinds: (KindWatch | undefined)[] = [];
  private queueEvents: (WatchEvent | undefined)[] = [];
  private queueHead = 0;
  private queueLength = 0;

  private enqueue(kw: KindWatch, ev: WatchEvent): void {
    this.queueKinds[this.queueLength] = kw;
    this.queueEvents[this.queueLength] = ev;
    this.queueLength++;
  }
  private dispatching = false;

  /** @param historyLimit - watch events retained per kind */
  constructor(private readonly historyLimit: number) {}

  /** Fresh watch state for a kind the store has not seen yet. */
  createKind(): KindWatch {
    return { history: [], historyStart: 0, compactedRv: 0, evictedRv: 0, watchers: new Set(), list: [] };
  }

  /** Appends an event to the kind's history and queues it for the watchers; see {@link flush}. */
  emit(kw: KindWatch, ev: WatchEvent): void {
    kw.history.push(ev);
    if (kw.history.length - kw.historyStart > this.historyLimit) {
      kw.evictedRv = kw.history[kw.historyStart]!.rv;
      kw.compactedRv = Math.max(kw.compactedRv, kw.evictedRv);
      kw.historyStart++;
      if (kw.historyStart > 1024 && kw.historyStart * 2 > kw.history.length) {
        kw.history = kw.history.slice(kw.historyStart);
        kw.historyStart = 0;
      }
    }
    // a watcher that starts later begins after this event's version, so none needs it
    if (kw.watchers.size > 0) this.enqueue(kw, ev);
  }

  /**
   * Delivers queued events. Not re-entrant: a write made by a watcher (or by onWrite) while
   * events are being delivered queues its event behind the others, so every watcher sees events
   * in resourceVersion order, and a watcher started meanwhile gets no event twice.
   */
  flush(): void {
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      while (this.queueHead < this.queueLength) {
        const kw = this.queueKinds[this.queueHead]!;
        const ev = this.queueEvents[this.queueHead]!;
        this.queueKinds[this.queueHead] = undefined;
        this.queueEvents[this.queueHead] = undefined;
        this.queueHead++;
        const bookmark = ev.type === 'BOOKMARK';
        // the watchers as they were when delivery of this event began (copy-on-write: a watch
        // started or stopped meanwhile replaces the list), with no copy of the set per event
        const list = kw.list;
        for (let i = 0; i < list.length; i++) {
          const w = list[i]!;
          if (!kw.watchers.has(w)) continue; // stopped by an earlier callback
          deliverTo(w, ev, bookmark);
        }
      }
    } finally {
      this.dispatching = false;
      if (this.queueHead >= this.queueLength) {
        this.queueHead = 0;
        this.queueLength = 0;
      }
    }
  }

  /**
   * Starts a watch at store version `rv`; see {@link ObjectStore.watch}.
   * @throws GoneError when `fromRv` is older than the retained history
   */
  watch(kw: KindWatch, rv: number, fromRv: number | undefined, fn: (ev: WatchEvent) => void, namespace: string | undefined): Watch {
    if (fromRv !== undefined && fromRv < kw.compactedRv) {
      throw new GoneError(`too old resource version: ${fromRv} (${kw.compactedRv})`);
    }
    // live events start after both the current version and the requested one
    const since = Math.max(fromRv ?? rv, rv);
    const w: Watcher = { namespace, fn, since };
    const replay: WatchEvent[] = [];
    if (fromRv !== undefined) {
      for (let i = kw.historyStart; i < kw.history.length; i++) {
        const ev = kw.history[i]!;
        if (ev.rv > fromRv && (namespace === undefined || ev.object.metadata.namespace === namespace)) replay.push(ev);
      }
    }
    kw.watchers.add(w);
    kw.list = [...kw.watchers];
    // Writes made by the callback during the replay are queued behind it, so the watcher sees
    // every event once and in resourceVersion order.
    const outer = this.dispatching;
    this.dispatching = true;
    try {
      for (const ev of replay) fn(ev);
    } catch (err) {
      unwatch(kw, w);
      throw err;
    } finally {
      if (!outer) this.dispatching = false;
    }
    this.flush();
    return { stop: () => unwatch(kw, w) };
  }

  /** Sends a BOOKMARK at store version `rv` to every watcher of a kind. */
  bookmark(kw: KindWatch, kind: string, rv: number): void {
    const ev: WatchEvent = { type: 'BOOKMARK', object: { kind, metadata: { resourceVersion: String(rv) } } as StoredObject, rv };
    if (kw.watchers.size === 0) return;
    this.enqueue(kw, ev);
    this.flush();
  }

  /**
   * Compacts the kind's watch history at store version `rv` (etcd compaction): watches from
   * before it get 410. The events stay known to {@link snapshotAt}, as another API server
   * replica's older state does.
   */
  compact(kw: KindWatch, rv: number): void {
    kw.compactedRv = Math.max(kw.compactedRv, rv);
  }

  /**
   * The objects of a kind as they were at resourceVersion `rv`, rebuilt from the current
   * `objects` (in key order) and the retained history, in key order; undefined when the history no longer reaches back
   * that far. No copies.
   */
  snapshotAt(kw: KindWatch, objects: ReadonlyMap<string, StoredObject>, rv: number): StoredObject[] | undefined {
    if (rv < kw.evictedRv) return undefined;
    const h = kw.history;
    // version at rv of every key changed after rv (null: it did not exist then)
    const then = new Map<string, StoredObject | null>();
    for (let i = kw.historyStart; i < h.length; i++) {
      const ev = h[i]!;
      if (ev.rv <= rv || ev.type === 'BOOKMARK') continue;
      const key = keyOf(ev.object.metadata);
      if (then.has(key)) continue;
      if (ev.type === 'ADDED') {
        then.set(key, null);
        continue;
      }
      let j = i - 1;
      while (j >= kw.historyStart && (h[j]!.type === 'BOOKMARK' || keyOf(h[j]!.object.metadata) !== key)) j--;
      if (j < kw.historyStart) return undefined; // its earlier version was compacted away
      then.set(key, h[j]!.type === 'DELETED' ? null : h[j]!.object);
    }
    const out: StoredObject[] = [];
    for (const [key, o] of objects) {
      const old = then.get(key);
      if (old === undefined) out.push(o);
      else if (old !== null) out.push(old);
    }
    let added = false;
    for (const [key, old] of then) {
      if (old === null || objects.has(key)) continue;
      out.push(old);
      added = true;
    }
    // in key order, as a list from that replica comes: objects deleted since go back to their place
    if (added) out.sort((a, b) => compare(keyOf(a.metadata), keyOf(b.metadata)));
    return out;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
