import { describe, expect, it } from 'vitest';
import { ConflictError, InvalidError, NotFoundError } from '../../../src/store/errors.js';
import { virtualTimestamp } from '../../../src/store/object.js';
import { collect, makeStore, ref, thrown, widget } from './helpers.js';

describe('ObjectStore.delete without finalizers', () => {
  it('removes the object, bumps resourceVersion, emits DELETED and records removed: true', () => {
    const { store, take, clock } = makeStore();
    const o = store.create('user', widget('a'));
    const c = collect();
    store.watch('Widget', undefined, c.fn);
    take();
    clock.advanceTo(7);
    const gone = store.delete('user', 'Widget', ref('a'));
    expect(gone.metadata.resourceVersion).toBe('2');
    expect(gone.metadata.uid).toBe(o.metadata.uid);
    expect(() => store.get('Widget', ref('a'))).toThrow(NotFoundError);
    expect(store.currentResourceVersion()).toBe(2);
    expect(c.summary()).toEqual(['DELETED a@2']);
    expect(c.events[0]!.object.metadata.resourceVersion).toBe('2');
    expect(take()).toEqual([{ t: 7, actor: 'user', verb: 'delete', kind: 'Widget', key: 'default/a', uid: o.metadata.uid, rv: 2, changed: ['.'], noop: false, removed: true }]);
  });

  it('404 NotFound for a missing object, recorded', () => {
    const { store, take } = makeStore();
    const err = thrown(() => store.delete('user', 'Widget', ref('a')));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(take()).toMatchObject([{ verb: 'delete', key: 'default/a', error: 'NotFound', noop: false }]);
    store.create('user', widget('a'));
    store.delete('user', 'Widget', ref('a'));
    expect(() => store.delete('user', 'Widget', ref('a'))).toThrow(NotFoundError);
  });

  it('the name can be reused afterwards, with a new uid', () => {
    const { store } = makeStore();
    const a = store.create('user', widget('a'));
    store.delete('user', 'Widget', ref('a'));
    const b = store.create('user', widget('a'));
    expect(b.metadata.uid).not.toBe(a.metadata.uid);
    expect(b.metadata.generation).toBe(1);
  });

  it('returns a copy', () => {
    const { store } = makeStore();
    store.create('user', widget('a', {}, { finalizers: ['f'] }));
    const d = store.delete('user', 'Widget', ref('a'));
    d.metadata.finalizers.length = 0;
    expect(store.get('Widget', ref('a')).metadata.finalizers).toEqual(['f']);
  });
});

describe('ObjectStore.delete with finalizers', () => {
  it('only sets deletionTimestamp (from the virtual clock); the object stays', () => {
    const { store, take, clock } = makeStore();
    const o = store.create('user', widget('a', {}, { finalizers: ['example.dev/cleanup'] }));
    const c = collect();
    store.watch('Widget', undefined, c.fn);
    take();
    clock.advanceTo(2500);
    const d = store.delete('user', 'Widget', ref('a'));
    expect(d.metadata.deletionTimestamp).toBe(virtualTimestamp(2500));
    expect(d.metadata.finalizers).toEqual(['example.dev/cleanup']);
    const cur = store.get('Widget', ref('a'));
    expect(cur.metadata.deletionTimestamp).toBe(virtualTimestamp(2500));
    expect(cur.metadata.resourceVersion).toBe('2');
    expect(c.summary()).toEqual(['MODIFIED a@2']);
    expect(take()).toEqual([
      { t: 2500, actor: 'user', verb: 'delete', kind: 'Widget', key: 'default/a', uid: o.metadata.uid, rv: 2, changed: ['metadata.deletionTimestamp'], noop: false, markedForDeletion: true },
    ]);
  });

  it('marking for deletion bumps generation once, as kube-apiserver does', () => {
    const { store } = makeStore();
    store.create('user', widget('a', {}, { finalizers: ['f'] }));
    expect(store.delete('user', 'Widget', ref('a')).metadata.generation).toBe(2);
    expect(store.delete('user', 'Widget', ref('a')).metadata.generation).toBe(2);
  });

  it('a second delete is a recorded no-op: no resourceVersion bump, no event, deletionTimestamp kept', () => {
    const { store, take, clock } = makeStore();
    store.create('user', widget('a', {}, { finalizers: ['f'] }));
    clock.advanceTo(100);
    const first = store.delete('user', 'Widget', ref('a'));
    const c = collect();
    store.watch('Widget', undefined, c.fn);
    take();
    clock.advanceTo(200);
    const second = store.delete('controller:x/0', 'Widget', ref('a'));
    expect(second.metadata.deletionTimestamp).toBe(first.metadata.deletionTimestamp);
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    expect(c.events).toEqual([]);
    expect(take()).toEqual([{ t: 200, actor: 'controller:x/0', verb: 'delete', kind: 'Widget', key: 'default/a', uid: first.metadata.uid, changed: [], noop: true }]);
  });

  it('removing the last finalizer (update) removes the object with a DELETED event', () => {
    const { store, take } = makeStore();
    store.create('user', widget('a', {}, { finalizers: ['f1', 'f2'] }));
    store.delete('user', 'Widget', ref('a'));
    const c = collect();
    store.watch('Widget', undefined, c.fn);
    take();
    let o = store.get('Widget', ref('a'));
    o = store.update('user', { ...o, metadata: { ...o.metadata, finalizers: ['f2'] } });
    expect(store.get('Widget', ref('a')).metadata.finalizers).toEqual(['f2']);
    expect(c.summary()).toEqual(['MODIFIED a@3']);
    const gone = store.update('user', { ...o, metadata: { ...o.metadata, finalizers: [] } });
    expect(gone.metadata.finalizers).toEqual([]);
    expect(gone.metadata.resourceVersion).toBe('4');
    expect(() => store.get('Widget', ref('a'))).toThrow(NotFoundError);
    expect(c.summary()).toEqual(['MODIFIED a@3', 'DELETED a@4']);
    expect(store.currentResourceVersion()).toBe(4);
    expect(take()).toMatchObject([
      { verb: 'update', rv: 3, changed: ['metadata.finalizers'], noop: false },
      { verb: 'update', rv: 4, changed: ['metadata.finalizers'], noop: false, removed: true },
    ]);
  });

  it('removing the last finalizer by patch removes the object too', () => {
    const { store } = makeStore();
    store.create('user', widget('a', {}, { finalizers: ['f'] }));
    store.delete('user', 'Widget', ref('a'));
    const c = collect();
    store.watch('Widget', undefined, c.fn);
    store.patch('user', 'Widget', ref('a'), { metadata: { finalizers: null } });
    expect(store.list('Widget').items).toEqual([]);
    expect(c.summary()).toEqual(['DELETED a@3']);
  });

  it('removing finalizers from an object that is not being deleted keeps it', () => {
    const { store } = makeStore();
    store.create('user', widget('a', {}, { finalizers: ['f'] }));
    store.patch('user', 'Widget', ref('a'), { metadata: { finalizers: null } });
    expect(store.get('Widget', ref('a')).metadata.finalizers).toEqual([]);
  });

  it('no new finalizer may be added while the object is being deleted (422 Invalid)', () => {
    const { store, take } = makeStore();
    store.create('user', widget('a', {}, { finalizers: ['f1'] }));
    store.delete('user', 'Widget', ref('a'));
    take();
    const o = store.get('Widget', ref('a'));
    const err = thrown(() => store.update('user', { ...o, metadata: { ...o.metadata, finalizers: ['f1', 'f2'] } }));
    expect(err).toBeInstanceOf(InvalidError);
    expect((err as InvalidError).code).toBe(422);
    expect(() => store.patch('user', 'Widget', ref('a'), { metadata: { finalizers: ['f3'] } })).toThrow(InvalidError);
    expect(take()).toMatchObject([{ verb: 'update', error: 'Invalid' }, { verb: 'patch', error: 'Invalid' }]);
    expect(store.get('Widget', ref('a')).metadata.finalizers).toEqual(['f1']);
    // other changes while deleting are fine
    expect(store.patch('user', 'Widget', ref('a'), { metadata: { labels: { x: 'y' } } }).metadata.labels).toEqual({ x: 'y' });
  });

  it('deletionTimestamp cannot be cleared by an update or a patch', () => {
    const { store } = makeStore();
    store.create('user', widget('a', {}, { finalizers: ['f'] }));
    const d = store.delete('user', 'Widget', ref('a'));
    const { deletionTimestamp: _dt, ...meta } = d.metadata;
    expect(store.update('user', { ...d, metadata: meta, spec: { replicas: 2 } }).metadata.deletionTimestamp).toBe(d.metadata.deletionTimestamp);
    expect(store.patch('user', 'Widget', ref('a'), { metadata: { deletionTimestamp: null } }).metadata.deletionTimestamp).toBe(d.metadata.deletionTimestamp);
  });
});

describe('ObjectStore.delete preconditions', () => {
  it('uid precondition: 409 Conflict on mismatch, deletes on match', () => {
    const { store, take } = makeStore();
    const a = store.create('user', widget('a'));
    take();
    const err = thrown(() => store.delete('user', 'Widget', ref('a'), { preconditions: { uid: 'other' } }));
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).code).toBe(409);
    expect(store.get('Widget', ref('a')).metadata.uid).toBe(a.metadata.uid);
    expect(take()).toMatchObject([{ verb: 'delete', error: 'Conflict', uid: a.metadata.uid }]);
    store.delete('user', 'Widget', ref('a'), { preconditions: { uid: a.metadata.uid } });
    expect(store.list('Widget').items).toEqual([]);
  });

  it('resourceVersion precondition: 409 Conflict on mismatch, deletes on match', () => {
    const { store } = makeStore();
    const a = store.create('user', widget('a'));
    store.patch('user', 'Widget', ref('a'), { spec: { x: 1 } });
    expect(() => store.delete('user', 'Widget', ref('a'), { preconditions: { resourceVersion: a.metadata.resourceVersion } })).toThrow(ConflictError);
    expect(store.list('Widget').items).toHaveLength(1);
    store.delete('user', 'Widget', ref('a'), { preconditions: { resourceVersion: '2', uid: a.metadata.uid } });
    expect(store.list('Widget').items).toHaveLength(0);
  });

  it('a uid precondition protects a recreated object', () => {
    const { store } = makeStore();
    const old = store.create('user', widget('a'));
    store.delete('user', 'Widget', ref('a'));
    store.create('user', widget('a'));
    expect(() => store.delete('user', 'Widget', ref('a'), { preconditions: { uid: old.metadata.uid } })).toThrow(ConflictError);
    expect(store.list('Widget').items).toHaveLength(1);
  });

  it('preconditions apply to objects with finalizers and to repeated deletes too', () => {
    const { store } = makeStore();
    store.create('user', widget('a', {}, { finalizers: ['f'] }));
    expect(() => store.delete('user', 'Widget', ref('a'), { preconditions: { uid: 'x' } })).toThrow(ConflictError);
    expect(store.get('Widget', ref('a')).metadata.deletionTimestamp).toBeUndefined();
    store.delete('user', 'Widget', ref('a'));
    expect(() => store.delete('user', 'Widget', ref('a'), { preconditions: { resourceVersion: '1' } })).toThrow(ConflictError);
  });
});
