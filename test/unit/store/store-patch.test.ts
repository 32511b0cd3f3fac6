import { describe, expect, it } from 'vitest';
import { ConflictError, InvalidError, NotFoundError } from '../../../src/store/errors.js';
import type { JsonObject } from '../../../src/store/object.js';
import { collect, makeStore, ref, thrown, widget } from './helpers.js';

describe('ObjectStore.patch (RFC 7386 merge patch of the main resource)', () => {
  it('merges objects recursively and replaces scalars and arrays', () => {
    const { store } = makeStore();
    store.create('user', widget('a', { replicas: 1, template: { image: 'v1', ports: [80, 443] }, keep: 'me' }));
    const p = store.patch('user', 'Widget', ref('a'), { spec: { replicas: 3, template: { ports: [8080] } } });
    expect(p.spec).toEqual({ replicas: 3, template: { image: 'v1', ports: [8080] }, keep: 'me' });
    expect(store.get('Widget', ref('a')).spec).toEqual(p.spec);
  });

  it('null deletes a member, at any depth', () => {
    const { store } = makeStore();
    store.create('user', widget('a', { replicas: 1, template: { image: 'v1', tag: 'x' } }, { labels: { a: '1', b: '2' } }));
    const p = store.patch('user', 'Widget', ref('a'), { spec: { replicas: null, template: { tag: null } }, metadata: { labels: { a: null } } });
    expect(p.spec).toEqual({ template: { image: 'v1' } });
    expect(p.metadata.labels).toEqual({ b: '2' });
  });

  it('patches labels, annotations, finalizers and ownerReferences', () => {
    const { store } = makeStore();
    const owner = store.create('user', widget('owner'));
    store.create('user', widget('a'));
    const ownerRef = { kind: 'Widget', name: 'owner', uid: owner.metadata.uid };
    const p = store.patch('user', 'Widget', ref('a'), {
      metadata: { labels: { app: 'web' }, annotations: { n: 'v' }, finalizers: ['f'], ownerReferences: [ownerRef] },
    });
    expect(p.metadata.labels).toEqual({ app: 'web' });
    expect(p.metadata.annotations).toEqual({ n: 'v' });
    expect(p.metadata.finalizers).toEqual(['f']);
    expect(p.metadata.ownerReferences).toEqual([ownerRef]);
    const cleared = store.patch('user', 'Widget', ref('a'), { metadata: { finalizers: null } });
    expect(cleared.metadata.finalizers).toEqual([]);
  });

  it('ignores status and server-set metadata in a main-resource patch', () => {
    const { store } = makeStore();
    const o = store.create('user', { ...widget('a'), status: { ready: 1 } });
    const p = store.patch('user', 'Widget', ref('a'), {
      status: { ready: 99 },
      metadata: { name: 'renamed', namespace: 'elsewhere', generation: 77, creationTimestamp: 'x', deletionTimestamp: 'y' },
      spec: { replicas: 2 },
    });
    expect(p.status).toEqual({ ready: 1 });
    expect(p.metadata.name).toBe('a');
    expect(p.metadata.namespace).toBe('default');
    expect(p.metadata.generation).toBe(2);
    expect(p.metadata.creationTimestamp).toBe(o.metadata.creationTimestamp);
    expect(p.metadata.deletionTimestamp).toBeUndefined();
    expect(store.list('Widget').items).toHaveLength(1);
  });

  it('bumps generation on spec changes only', () => {
    const { store } = makeStore();
    store.create('user', widget('a', { replicas: 1 }));
    expect(store.patch('user', 'Widget', ref('a'), { metadata: { labels: { x: 'y' } } }).metadata.generation).toBe(1);
    expect(store.patch('user', 'Widget', ref('a'), { spec: { replicas: 2 } }).metadata.generation).toBe(2);
  });

  it('without a precondition, applies to the current version (no 409)', () => {
    const { store } = makeStore();
    store.create('user', widget('a'));
    store.patch('user', 'Widget', ref('a'), { spec: { x: 1 } });
    expect(store.patch('user', 'Widget', ref('a'), { spec: { y: 2 } }).spec).toEqual({ replicas: 1, x: 1, y: 2 });
  });

  it('resourceVersion precondition in the options: 409 on mismatch, applied when current', () => {
    const { store, take } = makeStore();
    store.create('user', widget('a'));
    store.patch('user', 'Widget', ref('a'), { spec: { x: 1 } }); // rv 2
    take();
    const err = thrown(() => store.patch('user', 'Widget', ref('a'), { spec: { x: 2 } }, { resourceVersion: '1' }));
    expect(err).toBeInstanceOf(ConflictError);
    expect(store.get('Widget', ref('a')).spec.x).toBe(1);
    expect(take()).toMatchObject([{ verb: 'patch', error: 'Conflict' }]);
    expect(store.patch('user', 'Widget', ref('a'), { spec: { x: 3 } }, { resourceVersion: '2' }).spec.x).toBe(3);
  });

  it('a resourceVersion in the patch body is a precondition too (optimistic lock), and is not stored', () => {
    const { store } = makeStore();
    store.create('user', widget('a'));
    store.patch('user', 'Widget', ref('a'), { spec: { x: 1 } }); // rv 2
    expect(() => store.patch('user', 'Widget', ref('a'), { metadata: { resourceVersion: '1' }, spec: { x: 2 } })).toThrow(ConflictError);
    const p = store.patch('user', 'Widget', ref('a'), { metadata: { resourceVersion: '2' }, spec: { x: 3 } });
    expect(p.spec.x).toBe(3);
    expect(p.metadata.resourceVersion).toBe('3');
  });

  it('a uid in the patch body is a precondition (409 when it names another object)', () => {
    const { store } = makeStore();
    const a = store.create('user', widget('a'));
    expect(() => store.patch('user', 'Widget', ref('a'), { metadata: { uid: 'someone-else' }, spec: { x: 1 } })).toThrow(ConflictError);
    expect(store.patch('user', 'Widget', ref('a'), { metadata: { uid: a.metadata.uid }, spec: { x: 1 } }).spec.x).toBe(1);
  });

  it('404 NotFound for a missing object, recorded', () => {
    const { store, take } = makeStore();
    expect(() => store.patch('user', 'Widget', ref('ghost'), { spec: {} })).toThrow(NotFoundError);
    expect(take()).toMatchObject([{ verb: 'patch', key: 'default/ghost', error: 'NotFound' }]);
  });

  it('a no-op patch does not bump resourceVersion, emits no event, and is recorded with noop: true', () => {
    const { store, take, clock } = makeStore();
    store.create('user', widget('a', { replicas: 1 }, { labels: { app: 'web' } }));
    const c = collect();
    store.watch('Widget', 1, c.fn);
    take();
    clock.advanceTo(5);
    const p = store.patch('controller:x/1', 'Widget', ref('a'), { spec: { replicas: 1 }, metadata: { labels: { app: 'web', gone: null } } });
    expect(p.metadata.resourceVersion).toBe('1');
    expect(store.currentResourceVersion()).toBe(1);
    expect(c.events).toEqual([]);
    expect(take()).toEqual([{ t: 5, actor: 'controller:x/1', verb: 'patch', kind: 'Widget', key: 'default/a', uid: p.metadata.uid, changed: [], noop: true }]);
  });

  it('an empty patch is a recorded no-op', () => {
    const { store, take } = makeStore();
    store.create('user', widget('a'));
    take();
    store.patch('user', 'Widget', ref('a'), {});
    expect(take()).toMatchObject([{ noop: true }]);
  });

  it('rejects a patch that makes spec or metadata malformed with 422 Invalid', () => {
    const { store, take } = makeStore();
    store.create('user', widget('a'));
    take();
    for (const body of [{ spec: 5 }, { spec: [1, 2] }, { metadata: { labels: { a: 1 } } }, { metadata: { finalizers: 'f' } }, { metadata: { ownerReferences: [{ name: 'x' }] } }] as JsonObject[]) {
      const err = thrown(() => store.patch('user', 'Widget', ref('a'), body));
      expect(err, JSON.stringify(body)).toBeInstanceOf(InvalidError);
    }
    expect(take().every((w) => w.error === 'Invalid')).toBe(true);
    expect(store.get('Widget', ref('a')).spec).toEqual({ replicas: 1 });
    expect(store.currentResourceVersion()).toBe(1);
  });

  it('`spec: null` resets spec to an empty object', () => {
    const { store } = makeStore();
    store.create('user', widget('a', { replicas: 1 }));
    expect(store.patch('user', 'Widget', ref('a'), { spec: null }).spec).toEqual({});
  });

  it('does not alias the caller\'s patch: mutating it afterwards does not change the store', () => {
    const { store } = makeStore();
    store.create('user', widget('a'));
    const body = { spec: { ports: [80], nested: { list: ['a'] } }, metadata: { finalizers: ['f'] } };
    store.patch('user', 'Widget', ref('a'), body);
    body.spec.ports.push(443);
    body.spec.nested.list.push('b');
    body.metadata.finalizers.push('g');
    const o = store.get('Widget', ref('a'));
    expect(o.spec).toEqual({ replicas: 1, ports: [80], nested: { list: ['a'] } });
    expect(o.metadata.finalizers).toEqual(['f']);
  });

  it('returns a copy', () => {
    const { store } = makeStore();
    store.create('user', widget('a'));
    const p = store.patch('user', 'Widget', ref('a'), { spec: { list: [1] } });
    (p.spec.list as number[]).push(2);
    expect(store.get('Widget', ref('a')).spec.list).toEqual([1]);
  });

  it('records changed paths', () => {
    const { store, take } = makeStore();
    store.create('user', widget('a', { replicas: 1 }));
    take();
    store.patch('user', 'Widget', ref('a'), { spec: { replicas: 4 }, metadata: { annotations: { k: 'v' } } });
    expect(take()[0]!.changed).toEqual(['metadata.annotations.k', 'spec.replicas']);
  });
});

describe('ObjectStore.transform', () => {
  it('keeps only spec and the writable metadata of the result, with the same rules as patch', () => {
    const { store } = makeStore();
    store.create('user', { ...widget('a'), status: { s: 1 } });
    const t = store.transform('user', 'Widget', ref('a'), (c) => ({ ...c, spec: { replicas: 7 }, status: { s: 2 }, metadata: { ...c.metadata, name: 'b', labels: { l: 'v' } } }));
    expect(t.spec).toEqual({ replicas: 7 });
    expect(t.status).toEqual({ s: 1 });
    expect(t.metadata.name).toBe('a');
    expect(t.metadata.labels).toEqual({ l: 'v' });
  });

  it('hands the function a copy and copies its result', () => {
    const { store } = makeStore();
    store.create('user', widget('a', { list: [1] }));
    const shared = { list: [9] };
    store.transform('user', 'Widget', ref('a'), (c) => {
      (c.spec.list as number[]).push(2); // mutating the argument must not leak into the store
      return { ...c, spec: shared };
    });
    shared.list.push(10);
    expect(store.get('Widget', ref('a')).spec).toEqual({ list: [9] });
  });

  it('rejects a result that is not an object with 422 Invalid', () => {
    const { store, take } = makeStore();
    store.create('user', widget('a'));
    take();
    expect(() => store.transform('user', 'Widget', ref('a'), () => null as never)).toThrow(InvalidError);
    expect(take()).toMatchObject([{ verb: 'patch', error: 'Invalid' }]);
  });
});
