import type { StoredObject } from './object.js';

/** The actor of the collector's writes in the write log. @internal */
export const GARBAGE_COLLECTOR_ACTOR = 'environment:garbage-collector';

/** How a deletion treats the dependents of the deleted object. @public */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

/**
 * What the collector reads and writes through: the store's own public methods, so its writes
 * are recorded, validated and watched like anyone else's.
 * @internal
 */
export interface GarbageCollectorTarget {
  peek(kind: string, key: string): StoredObject | undefined;
  transform(actor: string, kind: string, ref: { namespace?: string; name: string }, fn: (current: StoredObject) => StoredObject): StoredObject;
  delete(actor: string, kind: string, ref: { namespace?: string; name: string }, options: { preconditions: { uid: string } }): StoredObject;
}

/**
 * The garbage collector of ownerReferences (SPEC §2.1): an index owner uid → dependents, kept
 * up to date by the store on every write, and the cascade that deletes dependents whose owners
 * are all gone, or orphans them (drops the ownerReference) under `Orphan`.
 * @internal
 */
export class GarbageCollector {
  /** owner uid → dependents (`kind \0 key`), for the cascade. */
  private readonly dependents = new Map<string, Set<string>>();
  /** uids of the objects in the store. */
  private readonly liveUids = new Set<string>();
  /** uids of objects removed from the store: a new ownerReference to one is garbage at once. */
  private readonly deletedUids = new Set<string>();

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
  }

  /** Records the owners of `obj` as its dependents' index entries. */
  indexOwners(obj: StoredObject, key: string): void {
    for (const r of obj.metadata.ownerReferences) {
      let s = this.dependents.get(r.uid);
      if (!s) this.dependents.set(r.uid, (s = new Set()));
      s.add(`${obj.kind}\u0000${key}`);
    }
  }

  /** Forgets the index entries of the owners of `obj`. */
  unindexOwners(obj: StoredObject, key: string): void {
    for (const r of obj.metadata.ownerReferences) {
      const s = this.dependents.get(r.uid);
      if (!s) continue;
      s.delete(`${obj.kind}\u0000${key}`);
      if (s.size === 0) this.dependents.delete(r.uid);
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

  /** A new ownerReference to an owner that is already gone makes the object garbage at once. */
  collectDangling(obj: StoredObject, before: StoredObject | undefined): void {
    for (const r of obj.metadata.ownerReferences) {
      if (!this.deletedUids.has(r.uid)) continue;
      if (before?.metadata.ownerReferences.some((o) => o.uid === r.uid)) continue;
      this.cascade(r.uid, 'Background');
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
      if (!refs.some((r) => r.uid === ownerUid)) continue;
      const ref = { ...(obj.metadata.namespace !== undefined ? { namespace: obj.metadata.namespace } : {}), name: obj.metadata.name };
      const remaining = refs.filter((r) => r.uid !== ownerUid && this.liveUids.has(r.uid));
      try {
        if (policy === 'Orphan' || remaining.length > 0) {
          this.target.transform(GARBAGE_COLLECTOR_ACTOR, kind, ref, (c) => ({ ...c, metadata: { ...c.metadata, ownerReferences: c.metadata.ownerReferences.filter((r) => r.uid !== ownerUid) } }));
        } else {
          this.target.delete(GARBAGE_COLLECTOR_ACTOR, kind, ref, { preconditions: { uid: obj.metadata.uid } });
        }
      } catch {
        // already gone or changed under us: the collector looks again on the next cascade
      }
    }
  }
}
