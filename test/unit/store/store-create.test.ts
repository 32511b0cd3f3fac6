import { describe, expect, it } from 'vitest';
import { AlreadyExistsError, InvalidError, isStoreError } from '../../../src/store/errors.js';
import { VIRTUAL_EPOCH_MS, fromVirtualTimestamp, virtualTimestamp } from '../../../src/store/object.js';
import { makeStore, ref, thrown, widget } from './helpers.js';

describe('ObjectStore.create', () => {
  it('fills the server-set metadata: uid, resourceVersion, generation 1, creationTimestamp', () => {
    const { store, clock } = makeStore();
    clock.advanceTo(1500);
    const o = store.create('user', widget('a'));
    expect(o.metadata.uid).toMatch(/^uid-[0-9a-f]{16}$/);
    expect(o.metadata.resourceVersion).toBe('1');
    expect(o.metadata.generation).toBe(1);
    expect(o.metadata.creationTimestamp).toBe(virtualTimestamp(1500));
    expect(fromVirtualTimestamp(o.metadata.creationTimestamp)).toBe(1500);
    expect(Date.parse(o.metadata.creationTimestamp)).toBe(VIRTUAL_EPOCH_MS + 1500);
    expect(o.metadata.deletionTimestamp).toBeUndefined();
  });

  it('defaults the optional collections and keeps apiVersion, kind, namespace, spec', () => {
    const { store } = makeStore();
    const o = store.create('user', { kind: 'Thing', metadata: { name: 'x' } });
    expect(o).toEqual({
      kind: 'Thing',
      metadata: {
        name: 'x',
        uid: o.metadata.uid,
        resourceVersion: o.metadata.resourceVersion,
        generation: 1,
        creationTimestamp: o.metadata.creationTimestamp,
        finalizers: [],
        ownerReferences: [],
        labels: {},
        annotations: {},
      },
      spec: {},
      status: {},
    });
    const w = store.create('user', widget('w', { replicas: 3 }, { labels: { app: 'web' } }));
    expect(w.apiVersion).toBe('example.dev/v1');
    expect(w.kind).toBe('Widget');
    expect(w.metadata.namespace).toBe('default');
    expect(w.metadata.labels).toEqual({ app: 'web' });
    expect(w.spec).toEqual({ replicas: 3 });
  });

  it('ignores a uid supplied by the caller, and refuses a resourceVersion (kube-apiserver: "should not be set on objects to be created")', () => {
    const { store } = makeStore();
    store.create('user', widget('first'));
    const o = store.create('user', widget('a', {}, { uid: 'mine' }));
    expect(o.metadata.uid).not.toBe('mine');
    expect(o.metadata.resourceVersion).toBe('2');
    expect(() => store.create('user', widget('b', {}, { resourceVersion: '999' }))).toThrow(/resourceVersion should not be set on objects to be created/);
  });

  it('gives every object a distinct uid', () => {
    const { store } = makeStore();
    const uids = new Set<string>();
    for (let i = 0; i < 50; i++) uids.add(store.create('user', widget(`w${i}`)).metadata.uid);
    uids.add(store.create('user', { kind: 'Other', metadata: { name: 'w0' } }).metadata.uid);
    expect(uids.size).toBe(51);
  });

  it('derives a uid from the object (kind, key, incarnation), not from what was created before: a run and its twin agree', () => {
    const a = makeStore().store;
    const b = makeStore().store;
    b.create('user', widget('other'));
    b.create('user', { kind: 'Gadget', metadata: { name: 'x' } });
    const first = a.create('user', widget('w')).metadata.uid;
    expect(b.create('user', widget('w')).metadata.uid).toBe(first);
    // another kind, namespace or incarnation of the name: another uid
    expect(a.create('user', { kind: 'Gadget', metadata: { name: 'w', namespace: 'default' } }).metadata.uid).not.toBe(first);
    expect(a.create('user', widget('w', {}, { namespace: 'other' })).metadata.uid).not.toBe(first);
    a.delete('user', 'Widget', ref('w'));
    const second = a.create('user', widget('w')).metadata.uid;
    expect(second).not.toBe(first);
    b.delete('user', 'Widget', ref('w'));
    expect(b.create('user', widget('w')).metadata.uid).toBe(second);
  });

  it('honours the uidPrefix option', () => {
    const { store } = makeStore({ uidPrefix: 'twin' });
    expect(store.create('user', widget('a')).metadata.uid).toMatch(/^twin-/);
  });

  it('takes resourceVersions from one global counter, increasing across kinds and namespaces', () => {
    const { store } = makeStore();
    const rvs = [
      store.create('user', widget('a')),
      store.create('user', { kind: 'Gadget', metadata: { name: 'a' } }),
      store.create('user', widget('a', {}, { namespace: 'other' })),
      store.create('user', { kind: 'Sprocket', metadata: { name: 'z' } }),
    ].map((o) => Number(o.metadata.resourceVersion));
    expect(rvs).toEqual([1, 2, 3, 4]);
    expect(store.currentResourceVersion()).toBe(4);
  });

  it('rejects a duplicate name with 409 AlreadyExists and changes nothing', () => {
    const { store, take } = makeStore();
    store.create('user', widget('a', { replicas: 1 }));
    take();
    const err = thrown(() => store.create('user', widget('a', { replicas: 2 })));
    expect(err).toBeInstanceOf(AlreadyExistsError);
    expect(isStoreError(err, 'AlreadyExists')).toBe(true);
    expect((err as AlreadyExistsError).code).toBe(409);
    expect(store.get('Widget', ref('a')).spec).toEqual({ replicas: 1 });
    expect(store.currentResourceVersion()).toBe(1);
    const [w] = take();
    expect(w).toMatchObject({ verb: 'create', key: 'default/a', error: 'AlreadyExists', noop: false, changed: [] });
    expect(w!.rv).toBeUndefined();
  });

  it('scopes names by kind and namespace', () => {
    const { store } = makeStore();
    store.create('user', widget('a'));
    expect(() => store.create('user', widget('a', {}, { namespace: 'other' }))).not.toThrow();
    expect(() => store.create('user', { kind: 'Gadget', metadata: { name: 'a', namespace: 'default' } })).not.toThrow();
    expect(() => store.create('user', { kind: 'Widget', metadata: { name: 'a' } })).not.toThrow(); // cluster-scoped "a"
    expect(store.list('Widget').items).toHaveLength(3);
  });

  it('rejects a name that still belongs to an object being deleted', () => {
    const { store } = makeStore();
    store.create('user', widget('a', {}, { finalizers: ['keep'] }));
    store.delete('user', 'Widget', ref('a'));
    expect(() => store.create('user', widget('a'))).toThrow(AlreadyExistsError);
  });

  it('generateName gives server-chosen unique names with the prefix', () => {
    const { store } = makeStore();
    const names = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const o = store.create('user', { kind: 'Widget', metadata: { generateName: 'web-', namespace: 'default' } });
      expect(o.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
      expect(o.metadata.generateName).toBe('web-');
      names.add(o.metadata.name);
    }
    expect(names.size).toBe(100);
    expect(store.list('Widget').items).toHaveLength(100);
  });

  it('generateName is deterministic across twin stores', () => {
    const names = () => {
      const { store } = makeStore();
      return Array.from({ length: 5 }, () => store.create('user', { kind: 'W', metadata: { generateName: 'x-' } }).metadata.name);
    };
    expect(names()).toEqual(names());
  });

  it('an explicit name wins over generateName', () => {
    const { store } = makeStore();
    const o = store.create('user', { kind: 'Widget', metadata: { name: 'exact', generateName: 'gen-' } });
    expect(o.metadata.name).toBe('exact');
  });

  it('rejects an object without name or generateName with 422 Invalid', () => {
    const { store, take } = makeStore();
    const err = thrown(() => store.create('user', { kind: 'Widget', metadata: {} }));
    expect(err).toBeInstanceOf(InvalidError);
    expect((err as InvalidError).code).toBe(422);
    expect((err as InvalidError).reason).toBe('Invalid');
    expect(take()).toMatchObject([{ verb: 'create', error: 'Invalid' }]);
    expect(store.currentResourceVersion()).toBe(0);
  });

  it('rejects a name containing "/" (it would collide with namespace/name keys)', () => {
    const { store } = makeStore();
    expect(() => store.create('user', { kind: 'Widget', metadata: { name: 'a/b' } })).toThrow(InvalidError);
    expect(store.list('Widget').items).toHaveLength(0);
  });

  it('rejects malformed metadata with 422 and does not consume a resourceVersion', () => {
    const { store } = makeStore();
    const bad = [
      { kind: 'W', metadata: { name: 'a', labels: { n: 1 } } },
      { kind: 'W', metadata: { name: 'a', annotations: { n: null } } },
      { kind: 'W', metadata: { name: 'a', finalizers: [''] } },
      { kind: 'W', metadata: { name: 'a', ownerReferences: [{ kind: 'X', name: 'x' }] } },
      { kind: 'W', metadata: { name: 'a' }, spec: [1] },
      { kind: 'W', metadata: { name: 'a' }, status: 'ok' },
    ];
    for (const o of bad) expect(() => store.create('user', o as never), JSON.stringify(o)).toThrow(InvalidError);
    expect(store.currentResourceVersion()).toBe(0);
    expect(store.create('user', { kind: 'W', metadata: { name: 'a' } }).metadata.uid).toBe(makeStore().store.create('user', { kind: 'W', metadata: { name: 'a' } }).metadata.uid);
  });

  it('treats an empty namespace as cluster-scoped', () => {
    const { store } = makeStore();
    const o = store.create('user', { kind: 'Widget', metadata: { name: 'a', namespace: '' } });
    expect(o.metadata.namespace).toBeUndefined();
    expect(store.get('Widget', { name: 'a' }).metadata.name).toBe('a');
    expect(() => store.create('user', { kind: 'Widget', metadata: { name: 'a' } })).toThrow(AlreadyExistsError);
  });

  it('keeps a status given at create time (seeding; later main-resource writes ignore status)', () => {
    const { store } = makeStore();
    const o = store.create('user', { ...widget('a'), status: { phase: 'Running' } });
    expect(o.status).toEqual({ phase: 'Running' });
  });

  it('records the create with actor, verb, key, uid, rv, virtual time and changed ["."]', () => {
    const { store, clock, take } = makeStore();
    clock.advanceTo(42);
    const o = store.create('controller:web/0', widget('a'));
    expect(take()).toEqual([
      { t: 42, actor: 'controller:web/0', verb: 'create', kind: 'Widget', key: 'default/a', uid: o.metadata.uid, rv: 1, changed: ['.'], noop: false },
    ]);
  });

  it('copies the input: mutating it afterwards does not change the store', () => {
    const { store } = makeStore();
    const input = widget('a', { list: [1, 2], nested: { x: 1 } }, { labels: { app: 'web' }, finalizers: ['f'] });
    store.create('user', input);
    (input.spec as { list: number[] }).list.push(3);
    (input.spec as { nested: { x: number } }).nested.x = 99;
    input.metadata.labels!.app = 'changed';
    input.metadata.finalizers!.push('g');
    const o = store.get('Widget', ref('a'));
    expect(o.spec).toEqual({ list: [1, 2], nested: { x: 1 } });
    expect(o.metadata.labels).toEqual({ app: 'web' });
    expect(o.metadata.finalizers).toEqual(['f']);
  });

  it('returns a copy: mutating the result does not change the store', () => {
    const { store } = makeStore();
    const o = store.create('user', widget('a', { replicas: 1 }));
    o.spec.replicas = 5;
    o.metadata.labels.x = 'y';
    expect(store.get('Widget', ref('a')).spec).toEqual({ replicas: 1 });
    expect(store.get('Widget', ref('a')).metadata.labels).toEqual({});
  });
});
