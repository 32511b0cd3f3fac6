import type { ScheduledEvent } from '../sim/scheduler.js';
import { GoneError } from '../store/errors.js';
import { keyOf, type StoredObject } from '../store/object.js';
import type { Watch, WatchEvent } from '../store/store.js';
import type { RuntimeEnv } from './env.js';

/** An event as handlers see it. SYNC is a resync; `tombstone` marks a deletion seen only at relist. @public */
export interface InformerEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'SYNC';
  object: StoredObject;
  old?: StoredObject;
  tombstone?: boolean;
}

/** How stale a cached read is: `versionsBack` versions, or as the cache was `ageMs` ago. */
export type StaleRead = { versionsBack: number } | { ageMs: number };

/** A kept version of an object and the virtual time it reached the cache. */
interface KeptVersion {
  object: StoredObject;
  at: number;
}

export interface InformerOptions {
  controller: string;
  replica: number;
  kind: string;
  resyncPeriodMs: number;
  /** Keep the last few versions of each object (needed by stale-snapshot faults). */
  keepVersions: number;
}

/**
 * client-go's shared informer, reduced to what a controller observes: list, then watch from the
 * list's resourceVersion; re-watch from the last seen version after a disconnect; relist on
 * 410 Gone (replacing the cache and emitting the differences, deletions as tombstones); periodic
 * resync. Faults act on the watch deliveries through `seams.onWatchEvent`.
 * @internal
 */
export class Informer {
  private readonly cache = new Map<string, StoredObject>();
  private readonly versions = new Map<string, KeptVersion[]>();
  /** Keys whose oldest versions were dropped (keepVersions reached): the oldest kept stands in for them. */
  private readonly truncated = new Set<string>();
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

  /** Cached object (immutable snapshot), optionally `versionsBack` versions older. */
  get(key: string, versionsBack = 0): StoredObject | undefined {
    if (versionsBack > 0) {
      const vs = this.versions.get(key);
      if (vs && vs.length > 0) return vs[Math.max(0, vs.length - 1 - versionsBack)]!.object;
    }
    return this.cache.get(key);
  }

  /**
   * A cached object as a stale read sees it. For `ageMs`: the newest version that reached the
   * cache at least `ageMs` ago (never before the first list), or undefined when the cache did
   * not hold the object yet; once older versions were dropped, the oldest kept one. Objects
   * deleted since are not resurrected (deletions drop their history).
   */
  getStale(key: string, stale: StaleRead): StoredObject | undefined {
    if ('versionsBack' in stale) return this.get(key, stale.versionsBack);
    const vs = this.versions.get(key);
    if (!vs || vs.length === 0 || stale.ageMs <= 0) return this.cache.get(key);
    const asOf = Math.max(this.env.kernel.now() - stale.ageMs, this.syncedAt ?? 0);
    for (let i = vs.length - 1; i >= 0; i--) if (vs[i]!.at <= asOf) return vs[i]!.object;
    return this.truncated.has(key) ? vs[0]!.object : undefined;
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
      const d = seams.decideInformerList({ t: kernel.now(), controller: this.options.controller, replica: this.options.replica, kind: this.options.kind, reason, seq: seams.informerListSeq++ });
      const at = d.type === 'lagging' ? Math.max(0, rv - d.versionsBack) : rv;
      const snap = d.type === 'lagging' ? store.snapshotAt(this.options.kind, at) : undefined;
      if (d.type === 'lagging' && snap) {
        // a lagging API server replica: an old list, and a watch that catches up only later
        items = snap;
        lagging = rv - at;
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
      this.put(key, obj);
      if (!old) emits.push({ type: 'ADDED', object: obj });
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) emits.push({ type: 'MODIFIED', object: obj, old });
      // client-go's Replace notifies every listed object (OnUpdate with old == new), which is
      // why a relist after 410 repairs lost notifications too. The settle phase's forced relist
      // repairs only the cache: it heals the data path without poking the controller, so a
      // controller that needed a lost event still shows it.
      else if (notifyUnchanged) emits.push({ type: 'SYNC', object: obj, old });
    }
    for (const [key, old] of [...this.cache]) {
      if (seen.has(key)) continue;
      this.cache.delete(key);
      this.versions.delete(key);
      this.truncated.delete(key);
      emits.push({ type: 'DELETED', object: old, tombstone: true });
    }
    this.lastRv = rv;
    this.syncedAt ??= kernel.now();
    this.startWatch();
    for (const ev of emits) this.emit(ev);
  }

  private startWatch(): void {
    if (this.stopped) return;
    const gen = ++this.generation;
    try {
      this.watch = this.env.store.watch(this.options.kind, this.lastRv, (ev) => this.onStoreEvent(ev, gen));
    } catch (err) {
      if (err instanceof GoneError) {
        this.list('relist');
        return;
      }
      throw err;
    }
  }

  private onStoreEvent(ev: WatchEvent, gen: number): void {
    if (gen !== this.generation || ev.type === 'BOOKMARK') return;
    const { seams, kernel, trace } = this.env;
    const seq = seams.watchSeq++;
    const d = seams.hasWatchHooks
      ? seams.decideWatch({ t: kernel.now(), controller: this.options.controller, replica: this.options.replica, kind: this.options.kind, event: ev, seq })
      : undefined;
    const now = kernel.now();
    const latency = this.env.watchLatencyMs + (this.stallUntil > now ? this.stallUntil - now : 0);
    if (d === undefined || d.type === 'deliver') {
      kernel.after(latency, () => this.deliver(ev, gen, seq));
      return;
    }
    trace.push({ t: kernel.now(), type: 'watch:event', controller: this.options.controller, replica: this.options.replica, kind: this.options.kind, key: keyOf(ev.object.metadata), event: ev.type, rv: ev.rv, decision: d.type, seq });
    switch (d.type) {
      case 'drop':
        return;
      case 'duplicate':
        kernel.after(latency, () => this.deliver(ev, gen, seq));
        kernel.after(latency + (d.afterMs ?? 0), () => this.deliver(ev, gen, seq, true));
        return;
      case 'delay':
        kernel.after(latency + d.ms, () => this.deliver(ev, gen, seq));
        return;
      case 'disconnect':
      case 'gone': {
        this.watch?.stop();
        this.watch = undefined;
        this.generation++;
        if (d.type === 'gone') this.env.store.compact(this.options.kind);
        kernel.after(this.env.rewatchDelayMs, () => {
          if (!this.stopped && this.watch === undefined) this.startWatch();
        });
        return;
      }
    }
  }

  /**
   * `replay`: the copy of an event this stream already applied (duplication): handlers see it
   * again, the cache and the resume point stay as they are.
   */
  private deliver(ev: WatchEvent, gen: number, seq: number, replay = false): void {
    if (this.stopped || gen !== this.generation) return;
    const key = keyOf(ev.object.metadata);
    const old = this.cache.get(key);
    if (!replay) {
      if (ev.type === 'DELETED') {
        this.cache.delete(key);
        this.versions.delete(key);
        this.truncated.delete(key);
      } else {
        this.put(key, ev.object);
      }
      this.lastRv = ev.rv;
    }
    this.env.trace.push({ t: this.env.kernel.now(), type: 'watch:event', controller: this.options.controller, replica: this.options.replica, kind: this.options.kind, key, event: ev.type, rv: ev.rv, decision: 'deliver', seq });
    const type = ev.type === 'ADDED' && old ? 'MODIFIED' : (ev.type as InformerEvent['type']);
    this.emit(old ? { type, object: ev.object, old } : { type, object: ev.object });
  }

  private put(key: string, obj: StoredObject): void {
    this.cache.set(key, obj);
    const keep = this.options.keepVersions;
    if (keep > 0) {
      let vs = this.versions.get(key);
      if (!vs) this.versions.set(key, (vs = []));
      vs.push({ object: obj, at: this.env.kernel.now() });
      if (vs.length > keep) {
        vs.shift();
        this.truncated.add(key);
      }
    }
  }

  private emit(ev: InformerEvent): void {
    for (const h of this.handlers) h(ev);
  }

  private startResync(): void {
    const period = this.options.resyncPeriodMs;
    if (period <= 0) return;
    this.resyncTimer = this.env.kernel.after(period, () => {
      if (this.stopped) return;
      this.env.trace.push({ t: this.env.kernel.now(), type: 'informer:resync', controller: this.options.controller, replica: this.options.replica, kind: this.options.kind, count: this.cache.size });
      for (const obj of [...this.cache.values()]) this.emit({ type: 'SYNC', object: obj, old: obj });
      this.startResync();
    });
  }
}
