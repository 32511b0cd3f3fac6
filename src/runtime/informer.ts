import type { ScheduledEvent } from '../sim/scheduler.js';
import { GoneError } from '../store/errors.js';
import { keyOf, type StoredObject } from '../store/object.js';
import { KeyOrderedMap } from '../store/key-ordered-map.js';
import type { Watch, WatchEvent } from '../store/store.js';
import type { RuntimeEnv } from './env.js';

/** An event as handlers see it. SYNC is a resync; `tombstone` marks a deletion seen only at relist. @public */
export interface InformerEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'SYNC';
  object: StoredObject;
  old?: StoredObject;
  tombstone?: boolean;
  /**
   * `keyOf(object.metadata)` when the informer made it already (a watch event, a list): handlers
   * take this one rather than joining another copy of the string per event, which the work queue,
   * the trace entries and the reconcile's context would keep alive until the run is judged.
   */
  key?: string;
}

/** One event on its way through this informer's watch stream. */
interface StreamEvent {
  ev: WatchEvent;
  seq: number;
  /** `keyOf(ev.object.metadata)`, made once per event. */
  key: string;
}

/** Events a stream keeps for replays (duplication): enough for any replay a plan asks for. */
const REPLAYABLE = 8;

export interface InformerOptions {
  controller: string;
  replica: number;
  kind: string;
  resyncPeriodMs: number;
}

/**
 * client-go's shared informer, reduced to what a controller observes: list, then watch from the
 * list's resourceVersion; re-watch from the last seen version after a disconnect; relist on
 * 410 Gone (replacing the cache and emitting the differences, deletions as tombstones); periodic
 * resync. Faults act on the watch deliveries through `seams.onWatchEvent`.
 *
 * The watch stream is one ordered stream, as kube-apiserver sends it: whatever a fault decides
 * (delay, lag, duplicate), events reach the cache in resourceVersion order, so the cache's view of
 * an object only moves forward. It moves back only at a (re)list from a lagging API server
 * replica, which is recorded as `informer:time-travel`.
 * @internal
 */
export class Informer {
  /** By key, iterated in key order: a cached list comes in the order a live one does (client-go's indexer is a hash map, any order is real; the list-order fault permutes it). */
  private readonly cache = new KeyOrderedMap<StoredObject>();
  /** When the first list filled the cache: no reconcile reads an informer before it synced. */
  private syncedAt: number | undefined;
  private readonly handlers: ((ev: InformerEvent) => void)[] = [];
  private watch: Watch | undefined;
  private lastRv = 0;
  /** Until this virtual time, watch deliveries wait (a lagging replica catching up). */
  private stallUntil = 0;
  private stopped = false;
  private resyncTimer: ScheduledEvent | undefined;
  /** Bumped on each (re)watch so deliveries scheduled for an old stream are discarded. */
  private generation = 0;
  /** When the current watch stream was opened (a clean close needs it to have been open a while). */
  private openedAt = 0;
  /** Virtual time of the last delivery scheduled on the current stream: later ones never come earlier. */
  private tail = 0;
  /** Events held back by a lag of `holdVersions` events (stale-snapshot), oldest first. */
  private held: StreamEvent[] = [];
  private holdVersions = 0;
  private holdTimer: ScheduledEvent | undefined;
  /** Deliveries scheduled on the current stream and not yet made, oldest first (kept only under watch hooks, for `prompt`). */
  private pending: { e: StreamEvent; replay: boolean; handle: ScheduledEvent }[] = [];
  /** The last events scheduled on the current stream (for replays), and each key's newest seq. */
  private recent: StreamEvent[] = [];
  private readonly newestSeq = new Map<string, number>();
  private readonly actor: string;

  constructor(
    private readonly env: RuntimeEnv,
    private readonly options: InformerOptions,
  ) {
    this.actor = `controller:${options.controller}/${options.replica}`;
  }

  get kind(): string {
    return this.options.kind;
  }

  addHandler(fn: (ev: InformerEvent) => void): void {
    this.handlers.push(fn);
  }

  /** Cached object (immutable snapshot). */
  get(key: string): StoredObject | undefined {
    return this.cache.get(key);
  }

  values(): IterableIterator<StoredObject> {
    return this.cache.values();
  }

  get size(): number {
    return this.cache.size;
  }

  start(): void {
    this.list('list');
    this.startResync();
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.watch?.stop();
    this.watch = undefined;
    if (this.resyncTimer) this.resyncTimer.cancelled = true;
  }

  /**
   * Forces a relist now. The settle phase does this once with `notifyUnchanged: false`: the
   * cache is repaired and differences are delivered, unchanged objects are not re-enqueued.
   */
  relist(notifyUnchanged = true): void {
    if (this.stopped) return;
    this.watch?.stop();
    this.watch = undefined;
    this.list('relist', notifyUnchanged);
  }

  private list(reason: 'list' | 'relist', notifyUnchanged = reason === 'relist'): void {
    const { store, trace, kernel, seams } = this.env;
    let items = store.select(this.options.kind);
    let rv = store.currentResourceVersion();
    let lagging: number | undefined;
    if (seams.hasInformerListHooks) {
      // client-go relists with resourceVersion = the last one it observed, which an API server
      // answers with data at least that fresh: a lagging replica may be behind the API server but
      // never behind this informer. Only a new process's first list (resourceVersion=0) can go
      // back in time (the Sieve case).
      const floor = reason === 'relist' ? this.lastRv : 0;
      const d = seams.decideInformerList({ t: kernel.now(), controller: this.options.controller, replica: this.options.replica, kind: this.options.kind, reason, seq: seams.informerListSeq++, rv, notOlderThan: floor });
      const at = d.type === 'lagging' ? Math.max(0, floor, rv - d.versionsBack) : rv;
      const snap = d.type === 'lagging' && at < rv ? store.snapshotAt(this.options.kind, at) : undefined;
      if (d.type === 'lagging' && snap) {
        // a lagging API server replica: an old list, and a watch that catches up only later
        items = snap;
        lagging = rv - at;
        if (reason === 'list') trace.push({ t: kernel.now(), type: 'informer:time-travel', controller: this.options.controller, replica: this.options.replica, kind: this.options.kind, reason: 'restart', fromRv: rv, toRv: at, cachedRv: this.lastRv });
        rv = at;
        this.stallUntil = kernel.now() + d.catchUpMs;
      }
    }
    trace.push({ t: kernel.now(), type: reason === 'list' ? 'informer:list' : 'informer:relist', controller: this.options.controller, replica: this.options.replica, kind: this.options.kind, count: items.length, rv, ...(lagging !== undefined ? { lagging } : {}) });
    const seen = new Set<string>();
    const emits: InformerEvent[] = [];
    for (const obj of items) {
      const key = keyOf(obj.metadata);
      seen.add(key);
      const old = this.cache.get(key);
      this.cache.set(key, obj);
      if (!old) emits.push({ type: 'ADDED', object: obj, key });
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) emits.push({ type: 'MODIFIED', object: obj, old, key });
      // client-go's Replace notifies every listed object (OnUpdate with old == new), which is
      // why a relist after 410 repairs lost notifications too. The settle phase's forced relist
      // repairs only the cache: it heals the data path without poking the controller, so a
      // controller that needed a lost event still shows it.
      else if (notifyUnchanged) emits.push({ type: 'SYNC', object: obj, old, key });
    }
    for (const [key, old] of [...this.cache.entries()]) {
      if (seen.has(key)) continue;
      this.cache.delete(key);
      emits.push({ type: 'DELETED', object: old, tombstone: true, key });
    }
    this.lastRv = rv;
    this.syncedAt ??= kernel.now();
    this.startWatch();
    for (const ev of emits) this.emit(ev);
  }

  private startWatch(): void {
    if (this.stopped) return;
    const gen = ++this.generation;
    this.resetStream();
    this.openedAt = this.env.kernel.now();
    try {
      const w = this.env.store.watch(this.options.kind, this.lastRv, (ev) => this.onStoreEvent(ev, gen));
      // a fault can end the stream during the replay the store sends synchronously; its re-watch is
      // scheduled, and it must find no watch, or the informer would hold a dead stream for good
      if (gen !== this.generation) w.stop();
      else this.watch = w;
    } catch (err) {
      if (err instanceof GoneError) {
        this.list('relist');
        return;
      }
      throw err;
    }
  }

  /** A new stream: nothing scheduled, held or replayable on it yet. */
  private resetStream(): void {
    this.tail = 0;
    this.held = [];
    this.holdVersions = 0;
    if (this.holdTimer) this.holdTimer.cancelled = true;
    this.holdTimer = undefined;
    this.recent = [];
    this.pending = [];
    this.newestSeq.clear();
  }

  private onStoreEvent(ev: WatchEvent, gen: number): void {
    if (gen !== this.generation || ev.type === 'BOOKMARK') return;
    const { seams, kernel, trace } = this.env;
    const seq = seams.watchSeq++;
    const d = seams.hasWatchHooks
      ? seams.decideWatch({ t: kernel.now(), controller: this.options.controller, replica: this.options.replica, kind: this.options.kind, event: ev, seq, openedAt: this.openedAt })
      : undefined;
    const now = kernel.now();
    const at = now + this.env.watchLatencyMs + (this.stallUntil > now ? this.stallUntil - now : 0);
    const e: StreamEvent = { ev, seq, key: keyOf(ev.object.metadata) };
    if (d === undefined || d.type === 'deliver') {
      this.enqueue(e, gen, at);
      return;
    }
    const detail = d.type === 'delay' ? { ms: d.ms } : d.type === 'lag' ? { versions: d.versions, untilMs: d.untilMs } : d.type === 'duplicate' ? { replay: d.replay ?? 1, afterMs: d.afterMs ?? 0 } : d.type === 'error' ? { status: d.status } : {};
    trace.push({ t: now, type: 'watch:event', controller: this.options.controller, replica: this.options.replica, kind: this.options.kind, key: e.key, event: ev.type, rv: ev.rv, decision: d.type, seq, ...detail });
    switch (d.type) {
      case 'drop':
        return;
      case 'duplicate':
        this.enqueue(e, gen, at);
        this.replay(gen, at + (d.afterMs ?? 0), Math.max(1, d.replay ?? 1));
        return;
      case 'delay':
        this.enqueue(e, gen, at + d.ms);
        return;
      case 'prompt':
        this.expedite(gen, at);
        this.enqueue(e, gen, at);
        return;
      case 'lag':
        this.holdVersions = Math.max(0, d.versions);
        if (this.holdTimer) this.holdTimer.cancelled = true;
        this.holdTimer = kernel.at(Math.max(now, d.untilMs), () => {
          if (gen !== this.generation) return;
          this.holdVersions = 0;
          this.release(gen);
        });
        this.held.push(e);
        this.release(gen);
        return;
      case 'disconnect':
      case 'gone':
      case 'close':
      case 'error': {
        this.watch?.stop();
        this.watch = undefined;
        this.generation++;
        this.resetStream();
        if (d.type === 'gone') this.env.store.compact(this.options.kind);
        // a clean close (timeoutSeconds) is re-watched at once, as the reflector does; errors after a back-off
        kernel.after(d.type === 'close' ? 0 : this.env.rewatchDelayMs, () => {
          if (!this.stopped && this.watch === undefined) this.startWatch();
        });
        return;
      }
    }
  }

  /**
   * Schedules an event on the stream in order: never before one scheduled earlier. While a lag
   * holds events back, new ones queue behind them.
   */
  private enqueue(e: StreamEvent, gen: number, at: number, replay = false, released = false): void {
    if (!replay && !released && this.held.length > 0) {
      this.held.push(e);
      this.release(gen);
      return;
    }
    const when = Math.max(at, this.tail);
    this.tail = when;
    if (!replay) {
      this.recent.push(e);
      if (this.recent.length > REPLAYABLE) this.recent.shift();
      this.newestSeq.set(e.key, e.seq);
    }
    if (!this.env.seams.hasWatchHooks) this.env.kernel.at(when, () => this.deliver(e, gen, replay));
    else this.schedule(e, gen, when, replay);
  }

  /** `prompt`: every delivery still waiting on the stream, and every held event, comes at `at` (in order). */
  private expedite(gen: number, at: number): void {
    const waiting = this.pending.filter((p) => !p.handle.cancelled && p.handle.at > at);
    if (waiting.length === 0 && this.held.length === 0) return;
    this.pending = this.pending.filter((p) => !waiting.includes(p));
    for (const p of waiting) p.handle.cancelled = true;
    this.tail = Math.min(this.tail, at);
    for (const p of waiting) this.schedule(p.e, gen, at, p.replay);
    this.holdVersions = 0;
    const held = this.held;
    this.held = [];
    for (const e of held) this.enqueue(e, gen, at, false, true);
  }

  /** Schedules one delivery of an event already recorded on the stream. */
  private schedule(e: StreamEvent, gen: number, at: number, replay: boolean): void {
    const when = Math.max(at, this.tail);
    this.tail = when;
    const entry = { e, replay, handle: undefined as unknown as ScheduledEvent };
    entry.handle = this.env.kernel.at(when, () => {
      const i = this.pending.indexOf(entry);
      if (i >= 0) this.pending.splice(i, 1);
      this.deliver(e, gen, replay);
    });
    this.pending.push(entry);
  }

  /** Releases held events, oldest first, until at most `holdVersions` remain held. */
  private release(gen: number): void {
    const now = this.env.kernel.now();
    while (this.held.length > this.holdVersions) {
      const e = this.held.shift()!;
      this.enqueue(e, gen, now + this.env.watchLatencyMs, false, true);
    }
  }

  /**
   * A replay after a reconnect from an older resourceVersion: the last `count` events of the
   * stream again, in order, each only while it is still its object's newest on the stream (a
   * replay never shows an object older than the stream already did).
   */
  private replay(gen: number, at: number, count: number): void {
    for (const e of this.recent.slice(-count)) {
      if (this.newestSeq.get(e.key) !== e.seq) continue;
      this.enqueue(e, gen, at, true);
    }
  }

  /**
   * `replay`: the copy of an event this stream already applied (duplication): handlers see it
   * again, the cache and the resume point stay as they are.
   */
  private deliver(e: StreamEvent, gen: number, replay = false): void {
    if (this.stopped || gen !== this.generation) return;
    const { ev, seq, key } = e;
    const old = this.cache.get(key);
    if (!replay) {
      if (ev.type === 'DELETED') this.cache.delete(key);
      else this.cache.set(key, ev.object);
      this.lastRv = ev.rv;
    }
    const t = this.env.kernel.now();
    const { controller, replica, kind } = this.options;
    // two literals, not a conditional spread: this entry is written for every event delivered
    this.env.trace.push(
      replay
        ? { t, type: 'watch:event', controller, replica, kind, key, event: ev.type, rv: ev.rv, decision: 'deliver', seq, replay: true }
        : { t, type: 'watch:event', controller, replica, kind, key, event: ev.type, rv: ev.rv, decision: 'deliver', seq },
    );
    // a replay is of the object's newest version on the stream, so it shows the cache as it is (old === new)
    const type = ev.type === 'ADDED' && old ? 'MODIFIED' : (ev.type as InformerEvent['type']);
    this.emit(old ? { type, object: ev.object, old, key } : { type, object: ev.object, key });
  }

  private emit(ev: InformerEvent): void {
    for (const h of this.handlers) h(ev);
  }

  private startResync(): void {
    const period = this.options.resyncPeriodMs;
    if (period <= 0) return;
    this.resyncTimer = this.env.kernel.after(period, this.resync);
  }

  /** What a resync timer runs: one function per informer, not a closure per period. */
  private readonly resync = (): void => {
    if (this.stopped) return;
    this.env.trace.push({ t: this.env.kernel.now(), type: 'informer:resync', controller: this.options.controller, replica: this.options.replica, kind: this.options.kind, count: this.cache.size });
    for (const obj of [...this.cache.values()]) this.emit({ type: 'SYNC', object: obj, old: obj });
    this.startResync();
  };
}
