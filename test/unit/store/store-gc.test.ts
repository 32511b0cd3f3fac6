import { describe, expect, it } from 'vitest';
import type { OwnerReference, StoredObject } from '../../../src/store/object.js';
import { collect, makeStore, ref, widget } from './helpers.js';

const GC = 'environment:garbage-collector';

function ownedBy(...owners: StoredObject[]): OwnerReference[] {
  // kube-apiserver takes at most one controller reference: the first owner is the controller only when it is the only one
  return owners.map((o) => ({ apiVersion: 'example.dev/v1', kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, controller: owners.length === 1 }));
}

function child(name: string, owners: StoredObject[], extra: { finalizers?: string[]; kind?: string } = {}) {
  return {
    kind: extra.kind ?? 'Part',
    metadata: { name, namespace: 'default', ownerReferences: ownedBy(...owners), ...(extra.finalizers ? { finalizers: extra.finalizers } : {}) },
    spec: {},
  };
}

const exists = (store: ReturnType<typeof makeStore>['store'], kind: string, name: string) => store.peek(kind, `default/${name}`) !== undefined;

describe('garbage collection (ownerReferences cascade)', () => {
  it('Background (default): deleting the owner deletes its dependents, as the garbage collector', () => {
    const { store, take } = makeStore();
    const owner = store.create('user', widget('owner'));
    const p1 = store.create('user', child('p1', [owner]));
    store.create('user', child('p2', [owner], { kind: 'Bolt' }));
    store.create('user', child('unrelated', []));
    take();
    store.delete('user', 'Widget', ref('owner'));
    expect(exists(store, 'Part', 'p1')).toBe(false);
    expect(exists(store, 'Bolt', 'p2')).toBe(false);
    expect(exists(store, 'Part', 'unrelated')).toBe(true);
    const w = take();
    expect(w[0]).toMatchObject({ actor: 'user', verb: 'delete', kind: 'Widget', removed: true });
    expect(w.slice(1)).toEqual([
      expect.objectContaining({ actor: GC, verb: 'delete', kind: 'Part', key: 'default/p1', uid: p1.metadata.uid, removed: true }),
      expect.objectContaining({ actor: GC, verb: 'delete', kind: 'Bolt', key: 'default/p2', removed: true }),
    ]);
  });

  it('cascades through several levels', () => {
    const { store } = makeStore();
    const owner = store.create('user', widget('owner'));
    const mid = store.create('user', child('mid', [owner]));
    const leaf = store.create('user', child('leaf', [mid], { kind: 'Leaf' }));
    store.create('user', child('leaf2', [leaf], { kind: 'Leaf' }));
    store.delete('user', 'Widget', ref('owner'));
    expect(store.list('Part').items).toEqual([]);
    expect(store.list('Leaf').items).toEqual([]);
  });

  describe('Foreground, as kube-controller-manager collects it', () => {
    const blocking = (o: StoredObject): OwnerReference[] => [{ ...ownedBy(o)[0]!, blockOwnerDeletion: true }];
    const blockingChild = (name: string, owner: StoredObject, extra: { finalizers?: string[]; kind?: string } = {}) => ({ ...child(name, [owner], extra), metadata: { ...child(name, [owner], extra).metadata, ownerReferences: blocking(owner) } });

    it('the owner stays, marked with the foregroundDeletion finalizer, until its blocking dependents are gone; then the collector removes it', () => {
      const deferred: (() => void)[] = [];
      const { store, take } = makeStore({ defer: (fn) => void deferred.push(fn) });
      const owner = store.create('user', widget('owner'));
      const p = store.create('user', blockingChild('p', owner));
      take();
      const marked = store.delete('user', 'Widget', ref('owner'), { propagationPolicy: 'Foreground' });
      expect(marked.metadata.deletionTimestamp).toBeDefined();
      expect(marked.metadata.finalizers).toEqual(['foregroundDeletion']);
      expect(take()).toEqual([expect.objectContaining({ actor: 'user', verb: 'delete', kind: 'Widget', changed: ['metadata.deletionTimestamp', 'metadata.finalizers'], markedForDeletion: true })]);
      // nothing collected before the collector runs: the children are still there, the owner too
      expect(exists(store, 'Part', 'p')).toBe(true);
      // a create of the owner's name is refused while it terminates
      expect(() => store.create('user', widget('owner'))).toThrow(/already exists/);
      while (deferred.length > 0) deferred.shift()!();
      expect(exists(store, 'Part', 'p')).toBe(false);
      expect(exists(store, 'Widget', 'owner')).toBe(false);
      const w = take().filter((x) => x.actor === GC);
      // the dependent first, then the finalizer (and with it the owner)
      expect(w.map((x) => [x.actor, x.verb, x.kind, x.removed === true])).toEqual([
        [GC, 'delete', 'Part', true],
        [GC, 'patch', 'Widget', true],
      ]);
      expect(w[0]!.uid).toBe(p.metadata.uid);
    });

    it('a blocking dependent held by its own finalizer holds the owner; a non-blocking one does not', () => {
      const { store } = makeStore();
      const owner = store.create('user', widget('owner'));
      store.create('user', blockingChild('held', owner, { finalizers: ['drain'] }));
      store.create('user', child('loose', [owner], { finalizers: ['drain'] }));
      store.delete('user', 'Widget', ref('owner'), { propagationPolicy: 'Foreground' });
      expect(store.peek('Part', 'default/held')?.metadata.deletionTimestamp).toBeDefined();
      expect(store.peek('Part', 'default/loose')?.metadata.deletionTimestamp).toBeDefined();
      expect(store.peek('Widget', 'default/owner')?.metadata.finalizers).toEqual(['foregroundDeletion']);
      // the non-blocking dependent going changes nothing; the blocking one going frees the owner
      store.patch('user', 'Part', ref('loose'), { metadata: { finalizers: null } });
      expect(exists(store, 'Widget', 'owner')).toBe(true);
      store.patch('user', 'Part', ref('held'), { metadata: { finalizers: null } });
      expect(exists(store, 'Widget', 'owner')).toBe(false);
    });

    it("the owner's own finalizers still hold it once the collector removed foregroundDeletion", () => {
      const { store } = makeStore();
      const owner = store.create('user', widget('owner', { replicas: 1 }, { finalizers: ['mine'] }));
      store.create('user', blockingChild('p', owner));
      store.delete('user', 'Widget', ref('owner'), { propagationPolicy: 'Foreground' });
      expect(exists(store, 'Part', 'p')).toBe(false);
      expect(store.peek('Widget', 'default/owner')?.metadata.finalizers).toEqual(['mine']);
      store.patch('user', 'Widget', ref('owner'), { metadata: { finalizers: null } });
      expect(exists(store, 'Widget', 'owner')).toBe(false);
    });

    it('without dependents the owner still passes through terminating: the collector removes the finalizer later', () => {
      const deferred: (() => void)[] = [];
      const { store } = makeStore({ defer: (fn) => void deferred.push(fn) });
      store.create('user', widget('owner'));
      store.delete('user', 'Widget', ref('owner'), { propagationPolicy: 'Foreground' });
      expect(store.peek('Widget', 'default/owner')?.metadata.finalizers).toEqual(['foregroundDeletion']);
      while (deferred.length > 0) deferred.shift()!();
      expect(exists(store, 'Widget', 'owner')).toBe(false);
    });

    it('a dependent created while the owner waits is deleted too; one with another live owner only loses the reference', () => {
      const deferred: (() => void)[] = [];
      const { store } = makeStore({ defer: (fn) => void deferred.push(fn) });
      const owner = store.create('user', widget('owner'));
      const other = store.create('user', widget('other'));
      store.create('user', blockingChild('held', owner, { finalizers: ['drain'] }));
      store.create('user', { ...child('shared', []), metadata: { ...child('shared', []).metadata, ownerReferences: [...blocking(owner), ...ownedBy(other).map((r) => ({ ...r, controller: false }))] } });
      store.delete('user', 'Widget', ref('owner'), { propagationPolicy: 'Foreground' });
      while (deferred.length > 0) deferred.shift()!();
      store.create('user', blockingChild('late', owner));
      while (deferred.length > 0) deferred.shift()!();
      expect(exists(store, 'Part', 'late')).toBe(false);
      expect(store.peek('Part', 'default/shared')?.metadata.ownerReferences.map((r) => r.name)).toEqual(['other']);
      expect(exists(store, 'Widget', 'owner')).toBe(true);
      store.patch('user', 'Part', ref('held'), { metadata: { finalizers: null } });
      while (deferred.length > 0) deferred.shift()!();
      expect(exists(store, 'Widget', 'owner')).toBe(false);
    });

    it('cascades in the foreground through several levels: leaves first, the root last', () => {
      const { store, take } = makeStore();
      const root = store.create('user', widget('root'));
      const mid = store.create('user', blockingChild('mid', root));
      store.create('user', blockingChild('leaf', mid, { kind: 'Leaf' }));
      take();
      store.delete('user', 'Widget', ref('root'), { propagationPolicy: 'Foreground' });
      expect(store.list('Widget').items).toEqual([]);
      expect(store.list('Part').items).toEqual([]);
      expect(store.list('Leaf').items).toEqual([]);
      const removals = take().filter((w) => w.removed === true).map((w) => w.kind);
      expect(removals).toEqual(['Leaf', 'Part', 'Widget']);
    });

    it('a repeated delete asking for Foreground adds the finalizer to an object already terminating', () => {
      const { store } = makeStore();
      const owner = store.create('user', widget('owner', { replicas: 1 }, { finalizers: ['mine'] }));
      store.create('user', blockingChild('p', owner, { finalizers: ['drain'] }));
      store.delete('user', 'Widget', ref('owner'));
      expect(store.peek('Widget', 'default/owner')?.metadata.finalizers).toEqual(['mine']);
      store.delete('user', 'Widget', ref('owner'), { propagationPolicy: 'Foreground' });
      expect(store.peek('Widget', 'default/owner')?.metadata.finalizers).toEqual(['mine', 'foregroundDeletion']);
      expect(store.peek('Part', 'default/p')?.metadata.deletionTimestamp).toBeDefined();
    });
  });

  it('a dependent with finalizers is only marked for deletion by the collector', () => {
    const { store } = makeStore();
    const owner = store.create('user', widget('owner'));
    store.create('user', child('p', [owner], { finalizers: ['keep'] }));
    store.delete('user', 'Widget', ref('owner'));
    const p = store.get('Part', ref('p'));
    expect(p.metadata.deletionTimestamp).toBeDefined();
    store.patch('user', 'Part', ref('p'), { metadata: { finalizers: null } });
    expect(exists(store, 'Part', 'p')).toBe(false);
  });

  it('Orphan: strips the ownerReference instead of deleting the dependent', () => {
    const { store, take } = makeStore();
    const owner = store.create('user', widget('owner'));
    const other = store.create('user', widget('other'));
    store.create('user', child('p', [owner]));
    store.create('user', child('q', [owner, other]));
    take();
    store.delete('user', 'Widget', ref('owner'), { propagationPolicy: 'Orphan' });
    expect(store.get('Part', ref('p')).metadata.ownerReferences).toEqual([]);
    expect(store.get('Part', ref('q')).metadata.ownerReferences).toEqual(ownedBy(owner, other).slice(1));
    expect(take().slice(1)).toEqual([
      expect.objectContaining({ actor: GC, verb: 'patch', key: 'default/p', changed: ['metadata.ownerReferences'] }),
      expect.objectContaining({ actor: GC, verb: 'patch', key: 'default/q', changed: ['metadata.ownerReferences'] }),
    ]);
    // the orphan no longer belongs to anyone: deleting `other` later does not touch p
    store.delete('user', 'Widget', ref('other'));
    expect(exists(store, 'Part', 'p')).toBe(true);
    expect(exists(store, 'Part', 'q')).toBe(false);
  });

  it('a dependent with another live owner survives; only the dead reference is removed', () => {
    const { store, take } = makeStore();
    const a = store.create('user', widget('a'));
    const b = store.create('user', widget('b'));
    store.create('user', child('shared', [a, b]));
    take();
    store.delete('user', 'Widget', ref('a'));
    const shared = store.get('Part', ref('shared'));
    expect(shared.metadata.ownerReferences).toEqual(ownedBy(a, b).slice(1));
    expect(shared.metadata.deletionTimestamp).toBeUndefined();
    expect(take().slice(1)).toEqual([expect.objectContaining({ actor: GC, verb: 'patch', changed: ['metadata.ownerReferences'] })]);
    store.delete('user', 'Widget', ref('b'));
    expect(exists(store, 'Part', 'shared')).toBe(false);
  });

  it('an owner held by finalizers keeps its dependents until it is really removed', () => {
    const { store } = makeStore();
    const owner = store.create('user', widget('owner', {}, { finalizers: ['f'] }));
    store.create('user', child('p', [owner]));
    store.delete('user', 'Widget', ref('owner'));
    expect(exists(store, 'Part', 'p')).toBe(true);
    expect(store.get('Part', ref('p')).metadata.deletionTimestamp).toBeUndefined();
    store.patch('user', 'Widget', ref('owner'), { metadata: { finalizers: [] } });
    expect(exists(store, 'Widget', 'owner')).toBe(false);
    expect(exists(store, 'Part', 'p')).toBe(false);
  });

  it('Orphan is not lost when the owner has finalizers: dependents are orphaned, not deleted', () => {
    const { store } = makeStore();
    const owner = store.create('user', widget('owner', {}, { finalizers: ['f'] }));
    store.create('user', child('p', [owner]));
    store.delete('user', 'Widget', ref('owner'), { propagationPolicy: 'Orphan' });
    expect(store.get('Part', ref('p')).metadata.ownerReferences).toEqual([]);
    store.patch('user', 'Widget', ref('owner'), { metadata: { finalizers: [] } });
    expect(exists(store, 'Widget', 'owner')).toBe(false);
    expect(exists(store, 'Part', 'p')).toBe(true);
  });

  it('a repeated delete with Orphan orphans the dependents of an owner already being deleted', () => {
    const { store } = makeStore();
    const owner = store.create('user', widget('owner', {}, { finalizers: ['f'] }));
    store.create('user', child('p', [owner]));
    store.delete('user', 'Widget', ref('owner'));
    store.delete('user', 'Widget', ref('owner'), { propagationPolicy: 'Orphan' });
    expect(store.get('Part', ref('p')).metadata.ownerReferences).toEqual([]);
    store.patch('user', 'Widget', ref('owner'), { metadata: { finalizers: [] } });
    expect(exists(store, 'Part', 'p')).toBe(true);
  });

  it('a dependent whose ownerReference was removed before the owner is deleted survives', () => {
    const { store } = makeStore();
    const owner = store.create('user', widget('owner'));
    store.create('user', child('p', [owner]));
    store.patch('user', 'Part', ref('p'), { metadata: { ownerReferences: [] } });
    store.delete('user', 'Widget', ref('owner'));
    expect(exists(store, 'Part', 'p')).toBe(true);
  });

  it('a dependent that gained an ownerReference by update is collected with the owner', () => {
    const { store } = makeStore();
    const owner = store.create('user', widget('owner'));
    store.create('user', child('p', []));
    store.patch('user', 'Part', ref('p'), { metadata: { ownerReferences: ownedBy(owner) as never } });
    store.delete('user', 'Widget', ref('owner'));
    expect(exists(store, 'Part', 'p')).toBe(false);
  });

  it('an object created with an ownerReference to an owner that is already gone is collected', () => {
    const { store, take } = makeStore();
    const owner = store.create('user', widget('owner'));
    store.delete('user', 'Widget', ref('owner'));
    take();
    const late = store.create('controller:stale/0', child('late', [owner]));
    expect(late.metadata.name).toBe('late'); // the create itself succeeds
    expect(exists(store, 'Part', 'late')).toBe(false);
    expect(take()).toEqual([
      expect.objectContaining({ actor: 'controller:stale/0', verb: 'create' }),
      expect.objectContaining({ actor: GC, verb: 'delete', key: 'default/late', removed: true }),
    ]);
  });

  it('an update that adds an ownerReference to a gone owner makes the object garbage', () => {
    const { store } = makeStore();
    const owner = store.create('user', widget('owner'));
    const other = store.create('user', widget('other'));
    store.delete('user', 'Widget', ref('owner'));
    store.create('user', child('p', [other]));
    store.patch('user', 'Part', ref('p'), { metadata: { ownerReferences: ownedBy(other, owner) as never } });
    // another owner is alive: only the dangling reference goes
    expect(store.get('Part', ref('p')).metadata.ownerReferences).toEqual(ownedBy(other, owner).slice(0, 1));
  });

  it('an ownerReference to a kind the store never held is left alone (the collector cannot resolve the kind)', () => {
    const { store } = makeStore();
    store.create('user', { kind: 'Part', metadata: { name: 'p', namespace: 'default', ownerReferences: [{ kind: 'Widget', name: 'x', uid: 'made-up' }] } });
    expect(exists(store, 'Part', 'p')).toBe(true);
  });

  it('runs through the defer option, and then also collects dependents created meanwhile', () => {
    const pending: (() => void)[] = [];
    const { store, take } = makeStore({ defer: (fn) => pending.push(fn) });
    const owner = store.create('user', widget('owner'));
    store.create('user', child('p', [owner]));
    store.delete('user', 'Widget', ref('owner'));
    expect(exists(store, 'Part', 'p')).toBe(true); // not yet
    store.create('user', child('q', [owner]));
    expect(pending.length).toBeGreaterThan(0);
    take();
    while (pending.length > 0) pending.shift()!();
    expect(exists(store, 'Part', 'p')).toBe(false);
    expect(exists(store, 'Part', 'q')).toBe(false);
    expect(take().every((w) => w.actor === GC)).toBe(true);
  });

  it('a deferred collection does not delete a recreated object of the same name without the reference', () => {
    const pending: (() => void)[] = [];
    const { store } = makeStore({ defer: (fn) => pending.push(fn) });
    const owner = store.create('user', widget('owner'));
    store.create('user', child('p', [owner]));
    store.delete('user', 'Widget', ref('owner'));
    store.delete('user', 'Part', ref('p'));
    store.create('user', child('p', []));
    for (const fn of pending.splice(0)) fn();
    expect(exists(store, 'Part', 'p')).toBe(true);
  });

  it('emits DELETED events for the collected dependents', () => {
    const { store } = makeStore();
    const owner = store.create('user', widget('owner'));
    store.create('user', child('p', [owner]));
    const c = collect();
    store.watch('Part', undefined, c.fn);
    store.delete('user', 'Widget', ref('owner'));
    expect(c.summary()).toEqual(['DELETED p@4']);
  });
});
