import type { StoredObject } from './object.js';

/** The actor of the collector's writes in the write log. @internal */
export const GARBAGE_COLLECTOR_ACTOR = 'environment:garbage-collector';

/** How a deletion treats the dependents of the deleted object. @public */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

/**
 * The finalizer a Foreground deletion puts on the deleted object (kube-apiserver's
 * `metav1.FinalizerDeleteDependents`): the collector removes it once no dependent that blocks
 * its owner's deletion is left.
 * @public
 */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/**
 * What the collector reads and writes through: the store's own public methods, so its writes
 * are recorded, validated and watched like anyone else's.
 * @internal
 */
export interface GarbageCollectorTarget {
  peek(kind: string, key: string): StoredObject | undefined;
  /** Whether `kind` is namespaced; undefined when the store does not know (a custom kind without a CRD). */
  namespaced(kind: string): boolean | undefined;
  /** Whether `kind` ever held an object or a watcher (an owner kind nothing is known of cannot be resolved). */
  knowsKind(kind: string): boolean;
  transform(actor: string, kind: string, ref: { namespace?: string; name: string }, fn: (current: StoredObject) => StoredObject): StoredObject;
  delete(actor: string, kind: string, ref: { namespace?: string; name: string }, options: { preconditions: { uid: string }; propagationPolicy?: PropagationPolicy }): StoredObject;
}

/**
 * The garbage collector of ownerReferences (SPEC §2.1): an index owner uid → dependents, kept
 * up to date by the store on every write, and the cascade that deletes dependents whose owners
 * are all gone, or orphans them (drops the ownerReference) under `Orphan`.
 *
 * Foreground deletion, as kube-controller-manager's collector does it: the owner stays, marked
 * for deletion with the `foregroundDeletion` finalizer, while the collector deletes its
 * dependents (foreground again for a dependent that has dependents of its own; a dependent with
 * another owner that is not itself waiting only loses this ownerReference); once no dependent
 * with `blockOwnerDeletion` is left (one still held by its own finalizers blocks), the finalizer
 * goes, and with it the owner unless other finalizers hold it, at a later pass than the one that
 * deleted the last dependents (the real collector sees them gone through its informers). A
 * dependent created meanwhile is deleted too, so a controller that keeps making one for its
 * terminating owner holds the deletion up, as it does in a cluster. The order is what a controller can see: the owner, terminating, outlives its
 * children, so a create of the same name meanwhile is refused with AlreadyExists.
 * @internal
 */
export class GarbageCollector {
  /** owner uid → dependents (`kind \0 key`), for the cascade. */
  private readonly dependents = new Map<string, Set<string>>();
  /** uids of the objects in the store. */
  private readonly liveUids = new Set<string>();
  /** uids of objects removed from the store: a new ownerReference to one is garbage at once. */
  private readonly deletedUids = new Set<string>();
  /** The namespaced ones among them (a cluster-scoped dependent cannot be theirs, whatever their kind's scope). */
  private readonly deletedNamespaced = new Set<string>();
  /** Owners being deleted in the foreground (uid → where they are), until their finalizer goes. */
  private readonly waiting = new Map<string, { kind: string; key: string }>();
  /** Foreground owners with a pass of the collector scheduled, and those that changed during their pass. */
  private readonly pending = new Set<string>();
  private readonly again = new Set<string>();

  /**
   * @param target - the store the collector acts on
   * @param defer - runs the collector's work (the world delays it, as the real collector lags)
   */
  constructor(
    private readonly target: GarbageCollectorTarget,
    private readonly defer: (fn: () => void) => void,
  ) {}

  /** A new object entered the store under `key`. */
  added(obj: StoredObject, key: string): void {
    this.liveUids.add(obj.metadata.uid);
    this.indexOwners(obj, key);
  }

  /** The object under `key` left the store. */
  removed(obj: StoredObject, key: string): void {
    this.unindexOwners(obj, key);
    this.liveUids.delete(obj.metadata.uid);
    this.deletedUids.add(obj.metadata.uid);
    if (obj.metadata.namespace !== undefined) this.deletedNamespaced.add(obj.metadata.uid);
    this.waiting.delete(obj.metadata.uid);
  }

  /** Records the owners of `obj` as its dependents' index entries. */
  indexOwners(obj: StoredObject, key: string): void {
    for (const r of obj.metadata.ownerReferences) {
      let s = this.dependents.get(r.uid);
      if (!s) this.dependents.set(r.uid, (s = new Set()));
      s.add(`${obj.kind}\u0000${key}`);
      // a new dependent of an owner deleted in the foreground, or one whose reference changed
      if (this.waiting.size > 0 && this.waiting.has(r.uid)) this.schedule(r.uid);
    }
  }

  /** Forgets the index entries of the owners of `obj`. */
  unindexOwners(obj: StoredObject, key: string): void {
    for (const r of obj.metadata.ownerReferences) {
      const s = this.dependents.get(r.uid);
      if (!s) continue;
      s.delete(`${obj.kind}\u0000${key}`);
      if (s.size === 0) this.dependents.delete(r.uid);
      // a dependent gone (or no longer this owner's): the owner may stop waiting
      if (this.waiting.size > 0 && this.waiting.has(r.uid)) this.schedule(r.uid);
    }
  }

  /** The objects that name `uid` as an owner, as `Kind key`, in key order. */
  dependentsOf(uid: string): string[] {
    return [...(this.dependents.get(uid) ?? [])].map((t) => t.replace('\u0000', ' ')).sort();
  }

  /** Whether `uid` has dependents in the store. */

  hasDependents(uid: string): boolean {
    return (this.dependents.get(uid)?.size ?? 0) > 0;
  }

  /**
   * The object `uid` (under `kind`/`key`) was marked for deletion in the foreground: the
   * collector deletes its dependents, then removes its `foregroundDeletion` finalizer.
   */
  foreground(uid: string, kind: string, key: string): void {
    this.waiting.set(uid, { kind, key });
    this.schedule(uid);
  }

  /** One pass of the collector for a foreground owner, later (through `defer`), at most one pending per owner. */
  private schedule(uid: string): void {
    if (this.pending.has(uid)) {
      this.again.add(uid);
      return;
    }
    this.pending.add(uid);
    this.defer(() => {
      this.again.delete(uid);
      this.foregroundPass(uid);
      this.pending.delete(uid);
      // what changed while the pass ran (its own deletes, mostly) is looked at by another pass, a little later
      if (this.again.delete(uid) && this.waiting.has(uid)) this.schedule(uid);
    });
  }

  private foregroundPass(uid: string): void {
    const w = this.waiting.get(uid);
    if (!w) return;
    const owner = this.target.peek(w.kind, w.key);
    if (!owner || owner.metadata.uid !== uid || !owner.metadata.finalizers.includes(FOREGROUND_FINALIZER)) {
      this.waiting.delete(uid);
      return;
    }
    let blocked = false;
    let deleted = false;
    for (const t of [...(this.dependents.get(uid) ?? [])]) {
      const i = t.indexOf('\u0000');
      const kind = t.slice(0, i);
      const key = t.slice(i + 1);
      const obj = this.target.peek(kind, key);
      if (!obj || !obj.metadata.ownerReferences.some((r) => r.uid === uid)) continue;
      const ref = refOf(obj);
      // another owner that exists and is not itself waiting keeps the dependent: only this reference goes
      const solid = obj.metadata.ownerReferences.some((r) => r.uid !== uid && this.liveUids.has(r.uid) && !this.waiting.has(r.uid));
      try {
        if (solid) {
          this.target.transform(GARBAGE_COLLECTOR_ACTOR, kind, ref, (c) => ({ ...c, metadata: { ...c.metadata, ownerReferences: c.metadata.ownerReferences.filter((r) => r.uid !== uid) } }));
          continue;
        }
        if (obj.metadata.deletionTimestamp === undefined) {
          this.target.delete(GARBAGE_COLLECTOR_ACTOR, kind, ref, { preconditions: { uid: obj.metadata.uid }, propagationPolicy: this.hasDependents(obj.metadata.uid) ? 'Foreground' : 'Background' });
          deleted = true;
        }
      } catch {
        // changed under us: the next pass looks again
      }
      const still = this.target.peek(kind, key);
      if (still?.metadata.uid === obj.metadata.uid && still.metadata.ownerReferences.some((r) => r.uid === uid && r.blockOwnerDeletion === true)) blocked = true;
    }
    if (blocked) return;
    // the real collector learns that what it deleted is gone from its informers, a little later: the owner's finalizer
    // goes at a later pass, and a controller that made a dependent again meanwhile (the deletion event woke it) is seen
    if (deleted) {
      this.schedule(uid);
      return;
    }
    this.waiting.delete(uid);
    try {
      this.target.transform(GARBAGE_COLLECTOR_ACTOR, w.kind, refOf(owner), (c) => ({ ...c, metadata: { ...c.metadata, finalizers: c.metadata.finalizers.filter((f) => f !== FOREGROUND_FINALIZER) } }));
    } catch {
      // gone meanwhile
    }
  }

  /**
   * Runs the collector for the dependents of `ownerUid` (through `defer`). The dependents are
   * looked up when the collector runs, so ones created meanwhile are included.
   */
  cascade(ownerUid: string, policy: PropagationPolicy): void {
    if (!this.dependents.get(ownerUid)?.size) return;
    this.defer(() => this.collect(ownerUid, policy));
  }

  /**
   * A new ownerReference to an owner that is absent makes the object garbage: one already
   * deleted (at once), or one that kube-controller-manager's collector cannot find where it
   * looks: by kind and name in the dependent's namespace (a cluster-scoped owner kind by name),
   * with the reference's uid. So an owner in another namespace, a uid that never existed and the
   * right uid under the wrong name are all absent (event OwnerRefInvalidNamespace for the first).
   * The collector verifies later (through `defer`), as the real one does with a live GET.
   */
  collectDangling(obj: StoredObject, before: StoredObject | undefined): void {
    let unresolved = false;
    for (const r of obj.metadata.ownerReferences) {
      if (this.deletedUids.has(r.uid)) {
        if (!before?.metadata.ownerReferences.some((o) => o.uid === r.uid)) this.cascade(r.uid, 'Background');
        continue;
      }
      if (before?.metadata.ownerReferences.some((o) => o.uid === r.uid && o.name === r.name && o.kind === r.kind)) continue;
      if (this.ownerState(obj, r) === 'absent') unresolved = true;
    }
    if (!unresolved) return;
    const kind = obj.kind;
    const uid = obj.metadata.uid;
    const ref = refOf(obj);
    const key = ref.namespace !== undefined ? `${ref.namespace}/${ref.name}` : ref.name;
    this.defer(() => this.collectUnresolved(kind, key, uid));
  }

  /**
   * Whether the owner `r` of `dep` exists where kube-controller-manager's collector looks for it:
   * 'absent' (collectable), 'present', or 'unresolvable' (a namespaced owner of a cluster-scoped
   * dependent, or an owner kind nothing is known of: the real collector keeps such a dependent).
   */
  private ownerState(dep: StoredObject, r: { kind: string; name: string; uid: string }): 'present' | 'absent' | 'unresolvable' {
    if (!this.target.knowsKind(r.kind)) return 'unresolvable';
    const scope = this.target.namespaced(r.kind);
    const ns = dep.metadata.namespace;
    const at = (key: string): boolean => this.target.peek(r.kind, key)?.metadata.uid === r.uid;
    if (scope === false) return at(r.name) ? 'present' : 'absent';
    if (ns === undefined) {
      if (scope === true) return 'unresolvable';
      // a custom kind of unknown scope: cluster-scoped if found by name; a live namespaced owner of a cluster-scoped dependent is unresolvable
      if (at(r.name)) return 'present';
      return this.liveUids.has(r.uid) ? 'unresolvable' : 'absent';
    }
    if (at(`${ns}/${r.name}`)) return 'present';
    // a custom kind of unknown scope may be a cluster-scoped owner
    if (scope === undefined && at(r.name)) return 'present';
    return 'absent';
  }

  /** The collector's look at a dependent with an absent owner: deleted when no owner is left, else the absent references go. */
  private collectUnresolved(kind: string, key: string, uid: string): void {
    const obj = this.target.peek(kind, key);
    if (!obj || obj.metadata.uid !== uid || obj.metadata.deletionTimestamp !== undefined) return;
    const absent = obj.metadata.ownerReferences.filter((r) => this.ownerState(obj, r) === 'absent');
    if (absent.length === 0) return;
    const ref = refOf(obj);
    const solid = obj.metadata.ownerReferences.some((r) => this.ownerState(obj, r) !== 'absent');
    try {
      if (solid) {
        const gone = new Set(absent.map((r) => r.uid));
        this.target.transform(GARBAGE_COLLECTOR_ACTOR, kind, ref, (c) => ({ ...c, metadata: { ...c.metadata, ownerReferences: c.metadata.ownerReferences.filter((r) => !gone.has(r.uid)) } }));
      } else {
        this.target.delete(GARBAGE_COLLECTOR_ACTOR, kind, ref, { preconditions: { uid }, propagationPolicy: 'Background' });
      }
    } catch {
      // changed under us: the next write of its owners looks again
    }
  }

  private collect(ownerUid: string, policy: PropagationPolicy): void {
    // deleting dependents only once the owner is gone; orphaning may happen while it is deleting
    if (policy !== 'Orphan' && this.liveUids.has(ownerUid)) return;
    const deps = this.dependents.get(ownerUid);
    if (!deps) return;
    for (const t of [...deps]) {
      const i = t.indexOf('\u0000');
      const kind = t.slice(0, i);
      const key = t.slice(i + 1);
      const obj = this.target.peek(kind, key);
      if (!obj) continue;
      const refs = obj.metadata.ownerReferences;
      const mine = refs.find((r) => r.uid === ownerUid);
      if (!mine) continue;
      // a cluster-scoped dependent of a namespaced owner: kube-controller-manager's collector cannot
      // resolve the reference (event OwnerRefInvalidNamespace) and leaves the dependent, reference and all
      if (policy !== 'Orphan' && obj.metadata.namespace === undefined && (this.deletedNamespaced.has(ownerUid) || this.ownerState(obj, mine) === 'unresolvable')) continue;
      const ref = refOf(obj);
      const remaining = refs.filter((r) => r.uid !== ownerUid && this.liveUids.has(r.uid));
      try {
        if (policy === 'Orphan' || remaining.length > 0) {
          this.target.transform(GARBAGE_COLLECTOR_ACTOR, kind, ref, (c) => ({ ...c, metadata: { ...c.metadata, ownerReferences: c.metadata.ownerReferences.filter((r) => r.uid !== ownerUid) } }));
        } else {
          this.target.delete(GARBAGE_COLLECTOR_ACTOR, kind, ref, { preconditions: { uid: obj.metadata.uid }, propagationPolicy: 'Background' });
        }
      } catch {
        // already gone or changed under us: the collector looks again on the next cascade
      }
    }
  }
}

function refOf(obj: StoredObject): { namespace?: string; name: string } {
  return { ...(obj.metadata.namespace !== undefined ? { namespace: obj.metadata.namespace } : {}), name: obj.metadata.name };
}
