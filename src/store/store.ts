import type { Clock } from '../sim/clock.js';
import { AlreadyExistsError, ConflictError, GoneError, InvalidError, NotFoundError, type StoreErrorReason, StoreError } from './errors.js';
import { changedPaths } from './field-diff.js';
import { applyMergePatch } from './merge-patch.js';
import { cloneJson, jsonEqual, keyOf, virtualTimestamp, type Json, type JsonObject, type NewObject, type ObjectRef, type StoredObject } from './object.js';
import { matchesSelector, parseSelector, type LabelSelector } from './selector.js';

/** The write verbs the store records. @public */
export type WriteVerb = 'create' | 'update' | 'updateStatus' | 'patch' | 'patchStatus' | 'delete';

/**
 * One write request, recorded whether or not it changed anything: a no-op costs API QPS too,
 * and the hot-loop and idempotence properties count it.
 * @public
 */
export interface WriteRecord {
  /** Virtual time (ms). */
  t: number;
  /** Who wrote: `user`, `controller:<name>/<replica>`, `environment:<name>`, `fault:<kind>`. */
  actor: string;
  verb: WriteVerb;
  kind: string;
  key: string;
  /** uid of the object written (absent when the write failed before finding one). */
  uid?: string;
  /** resourceVersion after the write (absent for no-ops and errors). */
  rv?: number;
  /** Field paths the write changed (`spec.replicas`, `metadata.finalizers`). */
  changed: string[];
  /** The write was accepted but changed nothing (no resourceVersion bump, no watch event). */
  noop: boolean;
  /** The object was removed from the store by this write. */
  removed?: boolean;
  /** The write marked the object for deletion (finalizers present). */
  markedForDeletion?: boolean;
  /** Set when the write failed. */
  error?: StoreErrorReason;
}

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

/** Options of {@link ObjectStore}. @public */
export interface StoreOptions {
  clock: Clock;
  /**
   * Watch events retained per kind; a watch from an older resourceVersion gets 410 Gone.
   * @defaultValue 1000
   */
  historyLimit?: number;
  /** Receives every write request (also no-ops and failures). */
  onWrite?: (w: WriteRecord) => void;
  /** Runs the garbage collector's work; defaults to running it at once. */
  defer?: (fn: () => void) => void;
  /** Prefix of generated uids (keeps uids of twin runs apart when needed). @defaultValue 'uid' */
  uidPrefix?: string;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: LabelSelector;
  /** Only `metadata.name=` and `metadata.namespace=` are supported, as most clients need. */
  fieldSelector?: string;
}

export interface WriteOptions {
  /** Precondition: fail with 409 unless the object is at this resourceVersion. */
  resourceVersion?: string;
}

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  /** @defaultValue 'Background' */
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

interface KindState {
  objects: Map<string, StoredObject>;
  history: WatchEvent[];
  historyStart: number;
  /** Highest resourceVersion evicted from the history. */
  compactedRv: number;
  watchers: Set<Watcher>;
}

interface Watcher {
  namespace: string | undefined;
  fn: (ev: WatchEvent) => void;
  /** Events up to this resourceVersion were replayed or predate the watch: never sent live. */
  since: number;
}

const GC_ACTOR = 'environment:garbage-collector';

/**
 * The simulated API server: a versioned object store with Kubernetes semantics (SPEC §2.1).
 * Stored objects are immutable snapshots; every write stores a new one. Reads through the public
 * methods return deep copies, so a caller can mutate what it got and send it back.
 *
 * Known limits (stated, as controller-runtime's fake client does): no admission, no defaulting
 * beyond server-set metadata, no validation of spec shapes, every kind has a status subresource,
 * Foreground propagation behaves like Background.
 * @public
 */
export class ObjectStore {
  private rv = 0;
  private uidCounter = 0;
  private readonly kinds = new Map<string, KindState>();
  /** owner uid → dependents (kind + key), for the cascade. */
  private readonly dependents = new Map<string, Set<string>>();
  /** uids of the objects in the store. */
  private readonly liveUids = new Set<string>();
  /** uids of objects removed from the store: a new ownerReference to one is garbage at once. */
  private readonly deletedUids = new Set<string>();
  /** Watch events waiting to be dispatched, in resourceVersion order. */
  private queue: { ks: KindState; ev: WatchEvent }[] = [];
  private queueHead = 0;
  private dispatching = false;
  private readonly clock: Clock;
  private readonly historyLimit: number;
  private readonly onWrite: ((w: WriteRecord) => void) | undefined;
  private readonly defer: (fn: () => void) => void;
  private readonly uidPrefix: string;

  constructor(options: StoreOptions) {
    this.clock = options.clock;
    this.historyLimit = options.historyLimit ?? 1000;
    this.onWrite = options.onWrite;
    this.defer = options.defer ?? ((fn) => fn());
    this.uidPrefix = options.uidPrefix ?? 'uid';
  }

  /** The global resourceVersion counter. */
  currentResourceVersion(): number {
    return this.rv;
  }

  /** Kinds that have ever held an object or a watcher. */
  kindNames(): string[] {
    return [...this.kinds.keys()];
  }

  private kind(kind: string): KindState {
    let k = this.kinds.get(kind);
    if (!k) {
      k = { objects: new Map(), history: [], historyStart: 0, compactedRv: 0, watchers: new Set() };
      this.kinds.set(kind, k);
    }
    return k;
  }

  // ---------------------------------------------------------------- reads

  /** Immutable snapshot or undefined; for the simulation's own consumers (no copy). @internal */
  peek(kind: string, key: string): StoredObject | undefined {
    return this.kinds.get(kind)?.objects.get(key);
  }

  /** Immutable snapshots of every object of a kind, in insertion order (no copy). @internal */
  peekAll(kind: string): StoredObject[] {
    const k = this.kinds.get(kind);
    return k ? [...k.objects.values()] : [];
  }

  /** @throws NotFoundError */
  get<S = JsonObject, T = JsonObject>(kind: string, ref: { namespace?: string | undefined; name: string }): StoredObject<S, T> {
    const obj = this.peek(kind, keyOf(ref));
    if (!obj) throw new NotFoundError(`${kind} "${keyOf(ref)}" not found`);
    return cloneJson(obj) as unknown as StoredObject<S, T>;
  }

  /** Lists objects (deep copies) with the list's resourceVersion. */
  list<S = JsonObject, T = JsonObject>(kind: string, options: ListOptions = {}): { items: StoredObject<S, T>[]; resourceVersion: string } {
    const items: StoredObject<S, T>[] = [];
    for (const o of this.select(kind, options)) items.push(cloneJson(o) as unknown as StoredObject<S, T>);
    return { items, resourceVersion: String(this.rv) };
  }

  /** Like list, without copies. @internal */
  select(kind: string, options: ListOptions = {}): StoredObject[] {
    const k = this.kinds.get(kind);
    if (!k) return [];
    const reqs = parseSelector(options.labelSelector);
    const fields = parseFieldSelector(options.fieldSelector);
    const out: StoredObject[] = [];
    for (const o of k.objects.values()) {
      if (options.namespace && o.metadata.namespace !== options.namespace) continue;
      if (reqs.length > 0 && !matchesSelector(reqs, o.metadata.labels)) continue;
      if (fields.name !== undefined && o.metadata.name !== fields.name) continue;
      if (fields.namespace !== undefined && o.metadata.namespace !== fields.namespace) continue;
      out.push(o);
    }
    return out;
  }

  // ---------------------------------------------------------------- writes

  /** Creates an object; `generateName` gives a server-chosen unique name. @throws AlreadyExistsError, InvalidError */
  create<S = JsonObject, T = JsonObject>(actor: string, input: NewObject<S, T>): StoredObject<S, T> {
    const ks = this.kind(input.kind);
    // an empty namespace is no namespace (cluster-scoped), as keyOf already treats it
    const namespace = input.metadata.namespace ? input.metadata.namespace : undefined;
    let name = input.metadata.name;
    if (!name && input.metadata.generateName) {
      do name = `${input.metadata.generateName}${this.suffix()}`;
      while (ks.objects.has(keyOf({ namespace, name })));
    }
    if (!name) {
      this.recordError(actor, 'create', input.kind, '', 'Invalid');
      throw new InvalidError(`${input.kind}: metadata.name or metadata.generateName is required`);
    }
    const key = keyOf({ namespace, name });
    const badName = invalidName(name, namespace);
    if (badName !== undefined) {
      this.recordError(actor, 'create', input.kind, key, 'Invalid');
      throw new InvalidError(`${input.kind} "${key}": ${badName}`);
    }
    if (ks.objects.has(key)) {
      this.recordError(actor, 'create', input.kind, key, 'AlreadyExists');
      throw new AlreadyExistsError(`${input.kind} "${key}" already exists`);
    }
    const now = this.clock.now();
    const meta = input.metadata;
    const obj: StoredObject = {
      ...(input.apiVersion !== undefined ? { apiVersion: input.apiVersion } : {}),
      kind: input.kind,
      metadata: {
        name,
        ...(namespace !== undefined ? { namespace } : {}),
        ...(meta.generateName !== undefined ? { generateName: meta.generateName } : {}),
        uid: `${this.uidPrefix}-${++this.uidCounter}`,
        resourceVersion: '',
        generation: 1,
        creationTimestamp: virtualTimestamp(now),
        finalizers: cloneJson(meta.finalizers ?? []),
        ownerReferences: cloneJson(meta.ownerReferences ?? []),
        labels: cloneJson(meta.labels ?? {}),
        annotations: cloneJson(meta.annotations ?? {}),
      },
      spec: cloneJson((input.spec ?? {}) as unknown as JsonObject),
      status: cloneJson((input.status ?? {}) as unknown as JsonObject),
    };
    const invalid = invalidObject(obj);
    if (invalid !== undefined) {
      this.uidCounter--; // the uid was never handed out
      this.recordError(actor, 'create', input.kind, key, 'Invalid');
      throw new InvalidError(`${input.kind} "${key}": ${invalid}`);
    }
    const rv = ++this.rv;
    obj.metadata.resourceVersion = String(rv);
    ks.objects.set(key, obj);
    this.liveUids.add(obj.metadata.uid);
    this.indexOwners(obj, key);
    this.emit(ks, { type: 'ADDED', object: obj, rv });
    this.record({ t: now, actor, verb: 'create', kind: obj.kind, key, uid: obj.metadata.uid, rv, changed: ['.'], noop: false });
    this.collectDangling(obj, undefined);
    this.flush();
    return cloneJson(obj) as unknown as StoredObject<S, T>;
  }

  /**
   * Replaces spec and metadata (labels, annotations, finalizers, ownerReferences) through the
   * main resource; status in the request is ignored. 409 when `metadata.resourceVersion` is set
   * and not current; an empty resourceVersion is an unconditional update. 409 too when
   * `metadata.uid` is set and names another object (one deleted and recreated under the name).
   */
  update<S = JsonObject, T = JsonObject>(actor: string, obj: NewObject<S, T> & { metadata: { name: string } }): StoredObject<S, T> {
    return this.write(actor, 'update', obj.kind, keyOf(obj.metadata as ObjectRef), obj.metadata.resourceVersion, (cur) => ({
      ...checkUid(cur, obj.metadata.uid),
      spec: cloneJson((obj.spec ?? {}) as unknown as JsonObject),
      metadata: {
        ...cur.metadata,
        labels: cloneJson(obj.metadata.labels ?? {}),
        annotations: cloneJson(obj.metadata.annotations ?? {}),
        finalizers: cloneJson(obj.metadata.finalizers ?? []),
        ownerReferences: cloneJson(obj.metadata.ownerReferences ?? []),
      },
    })) as unknown as StoredObject<S, T>;
  }

  /** Writes status only, through the status subresource; never bumps generation. */
  updateStatus<S = JsonObject, T = JsonObject>(actor: string, obj: NewObject<S, T> & { metadata: { name: string } }): StoredObject<S, T> {
    return this.write(actor, 'updateStatus', obj.kind, keyOf(obj.metadata as ObjectRef), obj.metadata.resourceVersion, (cur) => ({
      ...checkUid(cur, obj.metadata.uid),
      status: cloneJson((obj.status ?? {}) as unknown as JsonObject),
    })) as unknown as StoredObject<S, T>;
  }

  /**
   * RFC 7386 merge patch of the main resource (spec + metadata) or, with
   * `subresource: 'status'`, of status. Optional resourceVersion precondition, given either as
   * `options.resourceVersion` or, as kube-apiserver does, as `metadata.resourceVersion` (and
   * `metadata.uid`) in the patch body.
   */
  patch<S = JsonObject, T = JsonObject>(
    actor: string,
    kind: string,
    ref: { namespace?: string | undefined; name: string },
    patch: JsonObject,
    options: WriteOptions & { subresource?: 'status' } = {},
  ): StoredObject<S, T> {
    const status = options.subresource === 'status';
    // transform copies the result, so the stored object shares no array with the caller's patch
    return this.transform(actor, kind, ref, (cur) => applyMergePatch(cur as unknown as Json, patch) as unknown as StoredObject, { ...options, ...(status ? { subresource: 'status' as const } : {}) }) as unknown as StoredObject<S, T>;
  }

  /**
   * Applies any pure transformation of the current object (merge, JSON or strategic patch) with
   * the same rules as update/updateStatus: only the allowed part of the result is kept.
   * @internal
   */
  transform(
    actor: string,
    kind: string,
    ref: { namespace?: string | undefined; name: string },
    fn: (current: StoredObject) => StoredObject,
    options: WriteOptions & { subresource?: 'status' } = {},
  ): StoredObject {
    const status = options.subresource === 'status';
    const verb: WriteVerb = status ? 'patchStatus' : 'patch';
    return this.write(actor, verb, kind, keyOf(ref), options.resourceVersion, (cur) => {
      const result = fn(cloneJson(cur));
      if (result === null || typeof result !== 'object' || Array.isArray(result)) throw new InvalidError(`${kind} "${keyOf(ref)}": patch result is not an object`);
      const next = cloneJson(result); // fn may hand back parts of its own inputs
      const m = (next.metadata !== null && typeof next.metadata === 'object' ? next.metadata : {}) as Partial<StoredObject['metadata']>;
      // a resourceVersion or uid in the patched object is a precondition, as in kube-apiserver
      if (typeof m.resourceVersion === 'string' && m.resourceVersion !== '' && m.resourceVersion !== cur.metadata.resourceVersion) {
        throw new ConflictError(
          `Operation cannot be fulfilled on ${kind} "${keyOf(ref)}": the object has been modified; please apply your changes to the latest version and try again`,
        );
      }
      checkUid(cur, m.uid);
      if (status) return { ...cur, status: (next.status ?? {}) as JsonObject };
      return {
        ...cur,
        spec: (next.spec ?? {}) as JsonObject,
        metadata: {
          ...cur.metadata,
          labels: m.labels ?? {},
          annotations: m.annotations ?? {},
          finalizers: m.finalizers ?? [],
          ownerReferences: m.ownerReferences ?? [],
        },
      };
    });
  }

  /**
   * Deletes an object. With finalizers it only sets deletionTimestamp; the object goes when
   * the last finalizer is removed. Dependents are garbage-collected unless `Orphan`.
   */
  delete(actor: string, kind: string, ref: { namespace?: string | undefined; name: string }, options: DeleteOptions = {}): StoredObject {
    const ks = this.kind(kind);
    const key = keyOf(ref);
    const cur = ks.objects.get(key);
    const now = this.clock.now();
    if (!cur) {
      this.recordError(actor, 'delete', kind, key, 'NotFound');
      throw new NotFoundError(`${kind} "${key}" not found`);
    }
    const pre = options.preconditions;
    if (pre?.uid !== undefined && pre.uid !== cur.metadata.uid) {
      this.recordError(actor, 'delete', kind, key, 'Conflict', cur.metadata.uid);
      throw new ConflictError(`${kind} "${key}": precondition failed: uid ${pre.uid} is not ${cur.metadata.uid}`);
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== cur.metadata.resourceVersion) {
      this.recordError(actor, 'delete', kind, key, 'Conflict', cur.metadata.uid);
      throw new ConflictError(`${kind} "${key}": precondition failed: resourceVersion ${pre.resourceVersion} is not ${cur.metadata.resourceVersion}`);
    }
    if (cur.metadata.finalizers.length > 0) {
      if (cur.metadata.deletionTimestamp !== undefined) {
        this.record({ t: now, actor, verb: 'delete', kind, key, uid: cur.metadata.uid, changed: [], noop: true });
        if (options.propagationPolicy === 'Orphan') this.cascade(cur.metadata.uid, 'Orphan');
        this.flush();
        return cloneJson(cur);
      }
      const rv = ++this.rv;
      const next: StoredObject = {
        ...cur,
        metadata: { ...cur.metadata, deletionTimestamp: virtualTimestamp(now), generation: cur.metadata.generation + 1, resourceVersion: String(rv) },
      };
      ks.objects.set(key, next);
      this.emit(ks, { type: 'MODIFIED', object: next, rv });
      this.record({ t: now, actor, verb: 'delete', kind, key, uid: cur.metadata.uid, rv, changed: ['metadata.deletionTimestamp'], noop: false, markedForDeletion: true });
      // Orphan must not be lost while finalizers hold the object: the garbage collector orphans
      // the dependents now (kube-apiserver does it through the `orphan` finalizer); the other
      // policies collect them when the object is finally removed.
      if (options.propagationPolicy === 'Orphan') this.cascade(cur.metadata.uid, 'Orphan');
      this.flush();
      return cloneJson(next);
    }
    const removed = this.remove(ks, key, cur);
    this.record({ t: now, actor, verb: 'delete', kind, key, uid: cur.metadata.uid, rv: removed.rv, changed: ['.'], noop: false, removed: true });
    this.cascade(cur.metadata.uid, options.propagationPolicy ?? 'Background');
    this.flush();
    return cloneJson(removed.object);
  }

  // ---------------------------------------------------------------- watch

  /**
   * Watches a kind from a resourceVersion: replays retained events newer than it, then streams
   * live ones. Without a version, only live events. @throws GoneError when `fromRv` is older
   * than the retained history (the client must relist).
   */
  watch(kind: string, fromRv: number | undefined, fn: (ev: WatchEvent) => void, options: { namespace?: string } = {}): Watch {
    const ks = this.kind(kind);
    if (fromRv !== undefined && fromRv < ks.compactedRv) {
      throw new GoneError(`too old resource version: ${fromRv} (${ks.compactedRv})`);
    }
    const namespace = options.namespace ? options.namespace : undefined;
    // live events start after both the current version and the requested one
    const since = Math.max(fromRv ?? this.rv, this.rv);
    const w: Watcher = { namespace, fn, since };
    const replay: WatchEvent[] = [];
    if (fromRv !== undefined) {
      for (let i = ks.historyStart; i < ks.history.length; i++) {
        const ev = ks.history[i]!;
        if (ev.rv > fromRv && (namespace === undefined || ev.object.metadata.namespace === namespace)) replay.push(ev);
      }
    }
    ks.watchers.add(w);
    // Writes made by the callback during the replay are queued behind it, so the watcher sees
    // every event once and in resourceVersion order.
    const outer = this.dispatching;
    this.dispatching = true;
    try {
      for (const ev of replay) fn(ev);
    } catch (err) {
      ks.watchers.delete(w);
      throw err;
    } finally {
      if (!outer) this.dispatching = false;
    }
    this.flush();
    return { stop: () => ks.watchers.delete(w) };
  }

  /** Sends a BOOKMARK with the current resourceVersion to every watcher of a kind. */
  bookmark(kind: string): void {
    const ks = this.kind(kind);
    const ev: WatchEvent = { type: 'BOOKMARK', object: { kind, metadata: { resourceVersion: String(this.rv) } } as StoredObject, rv: this.rv };
    if (ks.watchers.size === 0) return;
    this.queue.push({ ks, ev });
    this.flush();
  }

  /** Drops retained watch history so that watches from older versions get 410 (fault hook). */
  compact(kind?: string): void {
    for (const [name, ks] of this.kinds) {
      if (kind !== undefined && name !== kind) continue;
      ks.history = [];
      ks.historyStart = 0;
      ks.compactedRv = this.rv;
    }
  }

  /**
   * The objects of a kind as they were at resourceVersion `rv`: what a lagging API server
   * replica would list (stale-snapshot faults). Rebuilt from the retained watch history;
   * undefined when the history no longer reaches back that far. No copies.
   * @internal
   */
  snapshotAt(kind: string, rv: number): StoredObject[] | undefined {
    const ks = this.kinds.get(kind);
    if (!ks) return [];
    if (rv < ks.compactedRv) return undefined;
    const h = ks.history;
    // version at rv of every key changed after rv (null: it did not exist then)
    const then = new Map<string, StoredObject | null>();
    for (let i = ks.historyStart; i < h.length; i++) {
      const ev = h[i]!;
      if (ev.rv <= rv || ev.type === 'BOOKMARK') continue;
      const key = keyOf(ev.object.metadata);
      if (then.has(key)) continue;
      if (ev.type === 'ADDED') {
        then.set(key, null);
        continue;
      }
      let j = i - 1;
      while (j >= ks.historyStart && (h[j]!.type === 'BOOKMARK' || keyOf(h[j]!.object.metadata) !== key)) j--;
      if (j < ks.historyStart) return undefined; // its earlier version was compacted away
      then.set(key, h[j]!.type === 'DELETED' ? null : h[j]!.object);
    }
    const out: StoredObject[] = [];
    for (const [key, o] of ks.objects) {
      const old = then.get(key);
      if (old === undefined) out.push(o);
      else if (old !== null) out.push(old);
    }
    for (const [key, old] of then) if (old !== null && !ks.objects.has(key)) out.push(old);
    return out;
  }

  // ---------------------------------------------------------------- internals

  private write(actor: string, verb: WriteVerb, kind: string, key: string, expectedRv: string | undefined, build: (cur: StoredObject) => StoredObject): StoredObject {
    const ks = this.kind(kind);
    const cur = ks.objects.get(key);
    const now = this.clock.now();
    if (!cur) {
      this.recordError(actor, verb, kind, key, 'NotFound');
      throw new NotFoundError(`${kind} "${key}" not found`);
    }
    if (expectedRv !== undefined && expectedRv !== '' && expectedRv !== cur.metadata.resourceVersion) {
      this.recordError(actor, verb, kind, key, 'Conflict', cur.metadata.uid);
      throw new ConflictError(
        `Operation cannot be fulfilled on ${kind} "${key}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    let next: StoredObject;
    try {
      next = build(cur);
    } catch (err) {
      if (err instanceof StoreError) this.recordError(actor, verb, kind, key, err.reason, cur.metadata.uid);
      throw err;
    }
    const invalid = invalidObject(next);
    if (invalid !== undefined) {
      this.recordError(actor, verb, kind, key, 'Invalid', cur.metadata.uid);
      throw new InvalidError(`${kind} "${key}": ${invalid}`);
    }
    if (cur.metadata.deletionTimestamp !== undefined) {
      const added = next.metadata.finalizers.filter((f) => !cur.metadata.finalizers.includes(f));
      if (added.length > 0) {
        this.recordError(actor, verb, kind, key, 'Invalid', cur.metadata.uid);
        throw new InvalidError(`${kind} "${key}": Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`);
      }
    }
    const changed = changedPaths(cur, next);
    if (changed.length === 0) {
      this.record({ t: now, actor, verb, kind, key, uid: cur.metadata.uid, changed, noop: true });
      return cloneJson(cur);
    }
    const rv = ++this.rv;
    const specChanged = !jsonEqual(cur.spec, next.spec);
    next = {
      ...next,
      metadata: { ...next.metadata, resourceVersion: String(rv), generation: cur.metadata.generation + (specChanged ? 1 : 0) },
    };
    if (next.metadata.deletionTimestamp !== undefined && next.metadata.finalizers.length === 0) {
      this.rv--; // the removal takes the version
      this.unindexOwners(cur, key); // the index holds cur's owners, which this write may have changed
      const removed = this.remove(ks, key, next);
      this.record({ t: now, actor, verb, kind, key, uid: cur.metadata.uid, rv: removed.rv, changed, noop: false, removed: true });
      this.cascade(cur.metadata.uid, 'Background');
      this.flush();
      return cloneJson(removed.object);
    }
    ks.objects.set(key, next);
    const ownersChanged = !jsonEqual(cur.metadata.ownerReferences, next.metadata.ownerReferences);
    if (ownersChanged) {
      this.unindexOwners(cur, key);
      this.indexOwners(next, key);
    }
    this.emit(ks, { type: 'MODIFIED', object: next, rv });
    this.record({ t: now, actor, verb, kind, key, uid: cur.metadata.uid, rv, changed, noop: false });
    if (ownersChanged) this.collectDangling(next, cur);
    this.flush();
    return cloneJson(next);
  }

  private remove(ks: KindState, key: string, cur: StoredObject): { rv: number; object: StoredObject } {
    const rv = ++this.rv;
    const gone: StoredObject = { ...cur, metadata: { ...cur.metadata, resourceVersion: String(rv) } };
    ks.objects.delete(key);
    this.unindexOwners(cur, key);
    this.liveUids.delete(cur.metadata.uid);
    this.deletedUids.add(cur.metadata.uid);
    this.emit(ks, { type: 'DELETED', object: gone, rv });
    return { rv, object: gone };
  }

  /**
   * Runs the garbage collector for the dependents of `ownerUid` (through `defer`). The
   * dependents are looked up when the collector runs, so ones created meanwhile are included.
   */
  private cascade(ownerUid: string, policy: 'Background' | 'Foreground' | 'Orphan'): void {
    if (!this.dependents.get(ownerUid)?.size) return;
    this.defer(() => this.collect(ownerUid, policy));
  }

  private collect(ownerUid: string, policy: 'Background' | 'Foreground' | 'Orphan'): void {
    // deleting dependents only once the owner is gone; orphaning may happen while it is deleting
    if (policy !== 'Orphan' && this.liveUids.has(ownerUid)) return;
    const deps = this.dependents.get(ownerUid);
    if (!deps) return;
    for (const t of [...deps]) {
      const i = t.indexOf('\u0000');
      const kind = t.slice(0, i);
      const key = t.slice(i + 1);
      const obj = this.peek(kind, key);
      if (!obj) continue;
      const refs = obj.metadata.ownerReferences;
      if (!refs.some((r) => r.uid === ownerUid)) continue;
      const ref = { ...(obj.metadata.namespace !== undefined ? { namespace: obj.metadata.namespace } : {}), name: obj.metadata.name };
      const remaining = refs.filter((r) => r.uid !== ownerUid && this.liveUids.has(r.uid));
      try {
        if (policy === 'Orphan' || remaining.length > 0) {
          this.transform(GC_ACTOR, kind, ref, (c) => ({ ...c, metadata: { ...c.metadata, ownerReferences: c.metadata.ownerReferences.filter((r) => r.uid !== ownerUid) } }));
        } else {
          this.delete(GC_ACTOR, kind, ref, { preconditions: { uid: obj.metadata.uid } });
        }
      } catch {
        // already gone or changed under us: the collector looks again on the next cascade
      }
    }
  }

  /** A new ownerReference to an owner that is already gone makes the object garbage at once. */
  private collectDangling(obj: StoredObject, before: StoredObject | undefined): void {
    for (const r of obj.metadata.ownerReferences) {
      if (!this.deletedUids.has(r.uid)) continue;
      if (before?.metadata.ownerReferences.some((o) => o.uid === r.uid)) continue;
      this.cascade(r.uid, 'Background');
    }
  }

  private indexOwners(obj: StoredObject, key: string): void {
    for (const r of obj.metadata.ownerReferences) {
      let s = this.dependents.get(r.uid);
      if (!s) this.dependents.set(r.uid, (s = new Set()));
      s.add(`${obj.kind}\u0000${key}`);
    }
  }

  private unindexOwners(obj: StoredObject, key: string): void {
    for (const r of obj.metadata.ownerReferences) {
      const s = this.dependents.get(r.uid);
      if (!s) continue;
      s.delete(`${obj.kind}\u0000${key}`);
      if (s.size === 0) this.dependents.delete(r.uid);
    }
  }

  /** Appends an event to the kind's history and queues it for the watchers; see {@link flush}. */
  private emit(ks: KindState, ev: WatchEvent): void {
    ks.history.push(ev);
    if (ks.history.length - ks.historyStart > this.historyLimit) {
      ks.compactedRv = ks.history[ks.historyStart]!.rv;
      ks.historyStart++;
      if (ks.historyStart > 1024 && ks.historyStart * 2 > ks.history.length) {
        ks.history = ks.history.slice(ks.historyStart);
        ks.historyStart = 0;
      }
    }
    // a watcher that starts later begins after this event's version, so none needs it
    if (ks.watchers.size > 0) this.queue.push({ ks, ev });
  }

  /**
   * Delivers queued events. Not re-entrant: a write made by a watcher (or by onWrite) while
   * events are being delivered queues its event behind the others, so every watcher sees events
   * in resourceVersion order, and a watcher started meanwhile gets no event twice.
   */
  private flush(): void {
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      while (this.queueHead < this.queue.length) {
        const { ks, ev } = this.queue[this.queueHead++]!;
        const bookmark = ev.type === 'BOOKMARK';
        for (const w of [...ks.watchers]) {
          if (!ks.watchers.has(w)) continue; // stopped by an earlier callback
          if (bookmark ? ev.rv < w.since : ev.rv <= w.since) continue;
          if (!bookmark && w.namespace !== undefined && ev.object.metadata.namespace !== w.namespace) continue;
          w.fn(ev);
        }
      }
    } finally {
      this.dispatching = false;
      if (this.queueHead >= this.queue.length) {
        this.queue = [];
        this.queueHead = 0;
      }
    }
  }

  private record(w: WriteRecord): void {
    this.onWrite?.(w);
  }

  private recordError(actor: string, verb: WriteVerb, kind: string, key: string, error: StoreErrorReason, uid?: string): void {
    this.record({ t: this.clock.now(), actor, verb, kind, key, ...(uid !== undefined ? { uid } : {}), changed: [], noop: false, error });
  }

  private suffix(): string {
    // deterministic, name-safe, 5 chars like Kubernetes' generateName suffixes
    const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
    let n = ++this.uidCounter * 7919 + this.rv;
    let s = '';
    for (let i = 0; i < 5; i++) {
      s += alphabet[n % alphabet.length];
      n = Math.floor(n / alphabet.length) + 13 * i;
    }
    return s;
  }
}

/** Why a name cannot be stored, or undefined. Keys are `namespace/name`, so no `/`. */
function invalidName(name: string, namespace: string | undefined): string | undefined {
  if (name.includes('/')) return `metadata.name: Invalid value: "${name}": may not contain '/'`;
  if (namespace !== undefined && namespace.includes('/')) return `metadata.namespace: Invalid value: "${namespace}": may not contain '/'`;
  return undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function isStringMap(v: unknown): boolean {
  return isPlainObject(v) && Object.values(v).every((x) => typeof x === 'string');
}

/** Why an object cannot be stored (the shapes the store itself relies on), or undefined. */
function invalidObject(o: StoredObject): string | undefined {
  const m = o.metadata;
  if (!isStringMap(m.labels)) return 'metadata.labels: Invalid value: must map strings to strings';
  if (!isStringMap(m.annotations)) return 'metadata.annotations: Invalid value: must map strings to strings';
  if (!Array.isArray(m.finalizers) || !m.finalizers.every((f) => typeof f === 'string' && f !== '')) return 'metadata.finalizers: Invalid value: must be a list of non-empty strings';
  if (!Array.isArray(m.ownerReferences) || !m.ownerReferences.every((r) => isPlainObject(r) && typeof r.uid === 'string' && r.uid !== '' && typeof r.kind === 'string' && typeof r.name === 'string')) {
    return 'metadata.ownerReferences: Invalid value: each needs kind, name and uid';
  }
  if (!isPlainObject(o.spec)) return 'spec: Invalid value: must be an object';
  if (!isPlainObject(o.status)) return 'status: Invalid value: must be an object';
  return undefined;
}

/** Returns `cur` unless the request names another uid: then 409, as kube-apiserver does. */
function checkUid(cur: StoredObject, uid: unknown): StoredObject {
  if (typeof uid === 'string' && uid !== '' && uid !== cur.metadata.uid) {
    throw new ConflictError(`Operation cannot be fulfilled on ${cur.kind} "${keyOf(cur.metadata)}": Precondition failed: UID in precondition: ${uid}, UID in object meta: ${cur.metadata.uid}`);
  }
  return cur;
}

function parseFieldSelector(sel: string | undefined): { name?: string; namespace?: string } {
  const out: { name?: string; namespace?: string } = {};
  if (!sel) return out;
  for (const part of sel.split(',')) {
    const m = part.trim().match(/^metadata\.(name|namespace)\s*==?\s*(.*)$/);
    if (!m) throw new InvalidError(`field selector "${part}" is not supported (only metadata.name= and metadata.namespace=)`);
    out[m[1] as 'name' | 'namespace'] = m[2]!;
  }
  return out;
}
