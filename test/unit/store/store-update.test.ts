import { describe, expect, it } from 'vitest';
import { ConflictError, InvalidError, NotFoundError } from '../../../src/store/errors.js';
import { makeStore, ref, thrown, widget } from './helpers.js';

describe('ObjectStore.update', () => {
  it('replaces spec and bumps resourceVersion (global counter) and generation', () => {
    const { store } = makeStore();
    const a = store.create('user', widget('a', { replicas: 1 }));
    store.create('user', { kind: 'Gadget', metadata: { name: 'g' } }); // rv 2
    const b = store.update('user', { ...a, spec: { replicas: 2 } });
    expect(b.spec).toEqual({ replicas: 2 });
    expect(b.metadata.resourceVersion).toBe('3');
    expect(b.metadata.generation).toBe(2);
    expect(b.metadata.uid).toBe(a.metadata.uid);
    expect(b.metadata.creationTimestamp).toBe(a.metadata.creationTimestamp);
    expect(store.get('Widget', ref('a'))).toEqual(b);
  });

  it('fails with 409 Conflict when the resourceVersion is stale, and changes nothing', () => {
    const { store, take } = makeStore();
    const a = store.create('user', widget('a', { replicas: 1 }));
    store.update('user', { ...a, spec: { replicas: 2 } });
    take();
    const err = thrown(() => store.update('user', { ...a, spec: { replicas: 3 } }));
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).code).toBe(409);
    expect((err as ConflictError).reason).toBe('Conflict');
    expect(store.get('Widget', ref('a')).spec).toEqual({ replicas: 2 });
    expect(store.currentResourceVersion()).toBe(2);
    const [w] = take();
    expect(w).toMatchObject({ verb: 'update', key: 'default/a', uid: a.metadata.uid, error: 'Conflict', noop: false, changed: [] });
    expect(w!.rv).toBeUndefined();
  });

  it('fails with 409 Conflict for a resourceVersion from the future too', () => {
    const { store } = makeStore();
    const a = store.create('user', widget('a'));
    expect(() => store.update('user', { ...a, metadata: { ...a.metadata, resourceVersion: '99' }, spec: { replicas: 9 } })).toThrow(ConflictError);
  });

  it('an empty or absent resourceVersion is an unconditional update', () => {
    const { store } = makeStore();
    const a = store.create('user', widget('a', { replicas: 1 }));
    store.update('user', { ...a, spec: { replicas: 2 } });
    const b = store.update('user', { ...a, metadata: { ...a.metadata, resourceVersion: '' }, spec: { replicas: 3 } });
    expect(b.spec).toEqual({ replicas: 3 });
    const { resourceVersion: _drop, ...meta } = b.metadata;
    const c = store.update('user', { kind: 'Widget', metadata: meta, spec: { replicas: 4 } });
    expect(c.spec).toEqual({ replicas: 4 });
  });

  it('fails with 409 Conflict when the request names another uid (a recreated object)', () => {
    const { store } = makeStore();
    const old = store.create('user', widget('a'));
    store.delete('user', 'Widget', ref('a'));
    store.create('user', widget('a', { replicas: 7 }));
    const err = thrown(() => store.update('user', { ...old, metadata: { ...old.metadata, resourceVersion: '' }, spec: { replicas: 1 } }));
    expect(err).toBeInstanceOf(ConflictError);
    expect(store.get('Widget', ref('a')).spec).toEqual({ replicas: 7 });
  });

  it('fails with 404 NotFound for a missing object, recorded with the error', () => {
    const { store, take } = makeStore();
    const err = thrown(() => store.update('user', widget('ghost') as never));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(take()).toMatchObject([{ verb: 'update', key: 'default/ghost', error: 'NotFound' }]);
    expect(store.currentResourceVersion()).toBe(0);
  });

  it('bumps generation only when spec changes', () => {
    const { store } = makeStore();
    let o = store.create('user', widget('a', { replicas: 1 }));
    o = store.update('user', { ...o, metadata: { ...o.metadata, labels: { app: 'web' } } });
    expect(o.metadata.generation).toBe(1);
    expect(o.metadata.resourceVersion).toBe('2');
    o = store.update('user', { ...o, metadata: { ...o.metadata, annotations: { note: 'x' }, finalizers: ['f'] } });
    expect(o.metadata.generation).toBe(1);
    o = store.update('user', { ...o, spec: { replicas: 2 } });
    expect(o.metadata.generation).toBe(2);
    o = store.update('user', { ...o, spec: { replicas: 2, paused: true } });
    expect(o.metadata.generation).toBe(3);
    o = store.updateStatus('user', { ...o, status: { ready: 1 } });
    expect(o.metadata.generation).toBe(3);
  });

  it('never changes status through the main resource', () => {
    const { store, take } = makeStore();
    let o = store.create('user', widget('a'));
    o = store.updateStatus('user', { ...o, status: { ready: 1 } });
    take();
    const updated = store.update('user', { ...o, spec: { replicas: 5 }, status: { ready: 99, extra: true } });
    expect(updated.status).toEqual({ ready: 1 });
    expect(store.get('Widget', ref('a')).status).toEqual({ ready: 1 });
    expect(take()[0]!.changed).toEqual(['spec.replicas']);
    // a request without status does not clear it either
    const { status: _s, ...noStatus } = store.get('Widget', ref('a'));
    expect(store.update('user', { ...noStatus, spec: { replicas: 6 } }).status).toEqual({ ready: 1 });
  });

  it('replaces labels, annotations, finalizers and ownerReferences (PUT semantics)', () => {
    const { store } = makeStore();
    const owner = store.create('user', widget('owner'));
    const o = store.create('user', widget('a', {}, { labels: { a: '1', b: '2' }, annotations: { x: 'y' } }));
    const ownerRef = { kind: 'Widget', name: 'owner', uid: owner.metadata.uid, controller: true };
    const u = store.update('user', {
      ...o,
      metadata: { ...o.metadata, labels: { b: '3' }, annotations: {}, finalizers: ['f1'], ownerReferences: [ownerRef] },
    });
    expect(u.metadata.labels).toEqual({ b: '3' });
    expect(u.metadata.annotations).toEqual({});
    expect(u.metadata.finalizers).toEqual(['f1']);
    expect(u.metadata.ownerReferences).toEqual([ownerRef]);
  });

  it('ignores the server-set metadata in the request (uid aside): name, creationTimestamp, generation, deletionTimestamp', () => {
    const { store } = makeStore();
    const o = store.create('user', widget('a'));
    const u = store.update('user', {
      ...o,
      metadata: { ...o.metadata, generation: 40, creationTimestamp: 'yesterday', deletionTimestamp: 'now' } as never,
      spec: { replicas: 3 },
    });
    expect(u.metadata.generation).toBe(2);
    expect(u.metadata.creationTimestamp).toBe(o.metadata.creationTimestamp);
    expect(u.metadata.deletionTimestamp).toBeUndefined();
  });

  it('a no-op update does not bump resourceVersion or generation but is recorded with noop: true', () => {
    const { store, take, clock } = makeStore();
    const o = store.create('user', widget('a', { replicas: 1 }, { labels: { app: 'web' } }));
    take();
    clock.advanceTo(10);
    const same = store.update('controller:c/0', { ...o, spec: { replicas: 1 } });
    expect(same.metadata.resourceVersion).toBe(o.metadata.resourceVersion);
    expect(same.metadata.generation).toBe(1);
    expect(store.currentResourceVersion()).toBe(1);
    expect(take()).toEqual([{ t: 10, actor: 'controller:c/0', verb: 'update', kind: 'Widget', key: 'default/a', uid: o.metadata.uid, changed: [], noop: true }]);
  });

  it('a no-op update with a stale resourceVersion is still a 409', () => {
    const { store } = makeStore();
    const o = store.create('user', widget('a', { replicas: 1 }));
    store.update('user', { ...o, metadata: { ...o.metadata, labels: { x: 'y' } } });
    expect(() => store.update('user', { ...o, metadata: { ...o.metadata, labels: { x: 'y' } } })).toThrow(ConflictError);
  });

  it('records the changed field paths', () => {
    const { store, take } = makeStore();
    const o = store.create('user', widget('a', { replicas: 1, template: { image: 'v1', port: 80 } }));
    take();
    store.update('user', { ...o, spec: { replicas: 2, template: { image: 'v2', port: 80 } }, metadata: { ...o.metadata, labels: { app: 'web' } } });
    expect(take()[0]!.changed).toEqual(['metadata.labels.app', 'spec.replicas', 'spec.template.image']);
  });

  it('rejects malformed metadata with 422 Invalid', () => {
    const { store, take } = makeStore();
    const o = store.create('user', widget('a'));
    take();
    expect(() => store.update('user', { ...o, metadata: { ...o.metadata, labels: { n: 5 as never } } })).toThrow(InvalidError);
    expect(take()).toMatchObject([{ verb: 'update', error: 'Invalid' }]);
    expect(store.get('Widget', ref('a')).metadata.labels).toEqual({});
  });

  it('does not keep references to the request, and returns a copy', () => {
    const { store } = makeStore();
    const o = store.create('user', widget('a'));
    const req = { ...o, spec: { list: [1] } as Record<string, unknown> };
    const res = store.update('user', req as never);
    (req.spec.list as number[]).push(2);
    (res.spec as { list: number[] }).list.push(3);
    expect(store.get('Widget', ref('a')).spec).toEqual({ list: [1] });
  });
});
