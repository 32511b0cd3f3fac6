import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../../src/store/errors.js';
import { collect, makeStore, ref, widget } from './helpers.js';

describe('status subresource', () => {
  it('updateStatus changes only status: spec and metadata in the request are ignored', () => {
    const { store, take } = makeStore();
    const o = store.create('user', widget('a', { replicas: 1 }, { labels: { app: 'web' } }));
    take();
    const s = store.updateStatus('user', {
      ...o,
      spec: { replicas: 50 },
      metadata: { ...o.metadata, labels: { app: 'other' }, finalizers: ['sneaky'], annotations: { a: 'b' } },
      status: { ready: 1 },
    });
    expect(s.status).toEqual({ ready: 1 });
    expect(s.spec).toEqual({ replicas: 1 });
    expect(s.metadata.labels).toEqual({ app: 'web' });
    expect(s.metadata.finalizers).toEqual([]);
    expect(s.metadata.annotations).toEqual({});
    expect(s.metadata.resourceVersion).toBe('2');
    expect(take()).toMatchObject([{ verb: 'updateStatus', changed: ['status.ready'], rv: 2, noop: false }]);
  });

  it('never bumps generation', () => {
    const { store } = makeStore();
    let o = store.create('user', widget('a'));
    for (let i = 0; i < 3; i++) o = store.updateStatus('user', { ...o, status: { n: i } });
    expect(o.metadata.generation).toBe(1);
    expect(o.metadata.resourceVersion).toBe('4');
  });

  it('replaces the whole status', () => {
    const { store } = makeStore();
    let o = store.create('user', widget('a'));
    o = store.updateStatus('user', { ...o, status: { a: 1, b: 2 } });
    o = store.updateStatus('user', { ...o, status: { b: 3 } });
    expect(o.status).toEqual({ b: 3 });
  });

  it('409 Conflict on a stale resourceVersion; empty resourceVersion is unconditional', () => {
    const { store, take } = makeStore();
    const o = store.create('user', widget('a'));
    store.update('user', { ...o, spec: { replicas: 2 } });
    take();
    expect(() => store.updateStatus('user', { ...o, status: { x: 1 } })).toThrow(ConflictError);
    expect(take()).toMatchObject([{ verb: 'updateStatus', error: 'Conflict' }]);
    const s = store.updateStatus('user', { ...o, metadata: { ...o.metadata, resourceVersion: '' }, status: { x: 1 } });
    expect(s.status).toEqual({ x: 1 });
    expect(s.spec).toEqual({ replicas: 2 });
  });

  it('404 NotFound for a missing object', () => {
    const { store, take } = makeStore();
    expect(() => store.updateStatus('user', widget('none') as never)).toThrow(NotFoundError);
    expect(take()).toMatchObject([{ verb: 'updateStatus', error: 'NotFound' }]);
  });

  it('a no-op status write is recorded but emits no event and keeps the resourceVersion', () => {
    const { store, take } = makeStore();
    let o = store.create('user', widget('a'));
    o = store.updateStatus('user', { ...o, status: { ready: 1 } });
    const c = collect();
    store.watch('Widget', undefined, c.fn);
    take();
    const same = store.updateStatus('user', { ...o, status: { ready: 1 } });
    expect(same.metadata.resourceVersion).toBe(o.metadata.resourceVersion);
    expect(c.events).toEqual([]);
    expect(take()).toMatchObject([{ verb: 'updateStatus', noop: true, changed: [] }]);
  });

  it('a status patch changes only status and never bumps generation', () => {
    const { store, take } = makeStore();
    store.create('user', widget('a', { replicas: 1 }));
    take();
    const p = store.patch('user', 'Widget', ref('a'), { spec: { replicas: 9 }, metadata: { labels: { x: 'y' } }, status: { phase: 'Ready' } }, { subresource: 'status' });
    expect(p.status).toEqual({ phase: 'Ready' });
    expect(p.spec).toEqual({ replicas: 1 });
    expect(p.metadata.labels).toEqual({});
    expect(p.metadata.generation).toBe(1);
    expect(take()).toMatchObject([{ verb: 'patchStatus', changed: ['status.phase'], noop: false }]);
  });

  it('a status patch merges into the existing status (null deletes)', () => {
    const { store } = makeStore();
    store.create('user', { ...widget('a'), status: { a: 1, b: { c: 2, d: 3 } } });
    const p = store.patch('user', 'Widget', ref('a'), { status: { a: null, b: { c: 20 }, e: [1] } }, { subresource: 'status' });
    expect(p.status).toEqual({ b: { c: 20, d: 3 }, e: [1] });
  });

  it('a status patch honours the resourceVersion precondition', () => {
    const { store } = makeStore();
    store.create('user', widget('a'));
    expect(() => store.patch('user', 'Widget', ref('a'), { status: { x: 1 } }, { subresource: 'status', resourceVersion: '5' })).toThrow(ConflictError);
    expect(store.patch('user', 'Widget', ref('a'), { status: { x: 1 } }, { subresource: 'status', resourceVersion: '1' }).status).toEqual({ x: 1 });
  });
});

describe('built-in kinds without a status subresource (red team rt46 R-4)', () => {
  it('a status write to a ConfigMap, a Secret or a Lease is 404, as kube-apiserver serves no /status for them', () => {
    const { store } = makeStore();
    const cm = store.create('user', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { a: '1' } } as never);
    expect(() => store.updateStatus('controller:x/0', { ...cm, status: { ready: true } } as never)).toThrow(/ConfigMap "default\/c"\/status: ConfigMap has no status subresource/);
    expect(() => store.patch('controller:x/0', 'ConfigMap', ref('c'), { status: { ready: true } }, { subresource: 'status' })).toThrow(NotFoundError);
    const lease = store.create('user', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'default' }, spec: { holderIdentity: 'a' } });
    expect(() => store.updateStatus('controller:x/0', { ...lease, status: { held: true } })).toThrow(NotFoundError);
    // a custom kind of a built-in's name in another group (corpus service-account-tokens) keeps its status
    const sa = store.create('user', { apiVersion: 'tokens.example.com/v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: 'default' }, spec: { rotateAfterSeconds: 60 } });
    expect(store.updateStatus('controller:x/0', { ...sa, status: { tokens: 1 } }).status).toMatchObject({ tokens: 1 });
    // a Deployment has one
    const d = store.create('user', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'd', image: 'd' }] } } } });
    expect(store.updateStatus('controller:x/0', { ...d, status: { replicas: 0 } }).status).toMatchObject({ replicas: 0 });
  });
});

describe('finalizer names (red team rt46 R-4)', () => {
  it('a finalizer that is not a qualified name is refused (422), as apimachinery validates it', () => {
    const { store } = makeStore();
    expect(() => store.create('user', widget('a', { replicas: 1 }, { finalizers: ['Bad Finalizer!'] }))).toThrow(/metadata\.finalizers\[0\]: Invalid value: "Bad Finalizer!"/);
    const o = store.create('user', widget('b', { replicas: 1 }, { finalizers: ['example.com/cleanup', 'kubernetes'] }));
    expect(o.metadata.finalizers).toEqual(['example.com/cleanup', 'kubernetes']);
    expect(() => store.update('controller:x/0', { ...o, metadata: { ...o.metadata, finalizers: [...o.metadata.finalizers, 'a/b/c'] } })).toThrow(/metadata\.finalizers\[2\]/);
  });
});
