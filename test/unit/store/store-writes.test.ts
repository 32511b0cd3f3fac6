import { describe, expect, it } from 'vitest';
import type { WriteRecord } from '../../../src/store/store.js';
import { makeStore, ref, widget } from './helpers.js';

describe('write records (onWrite)', () => {
  it('records every write verb with actor, verb, kind, key, uid, rv and virtual time', () => {
    const { store, clock, take } = makeStore();
    clock.advanceTo(10);
    const a = store.create('user', widget('a', { replicas: 1 }, { finalizers: ['f'] }));
    clock.advanceTo(20);
    store.update('controller:web/0', { ...a, spec: { replicas: 2 } });
    clock.advanceTo(30);
    store.updateStatus('controller:web/1', { ...a, metadata: { ...a.metadata, resourceVersion: '2' }, status: { ready: 2 } });
    clock.advanceTo(40);
    store.patch('environment:kubelet', 'Widget', ref('a'), { metadata: { labels: { l: 'v' } } });
    clock.advanceTo(50);
    store.patch('fault:api-conflict', 'Widget', ref('a'), { status: { ready: 3 } }, { subresource: 'status' });
    clock.advanceTo(60);
    store.delete('user', 'Widget', ref('a'));
    clock.advanceTo(70);
    store.patch('controller:web/0', 'Widget', ref('a'), { metadata: { finalizers: null } });
    const uid = a.metadata.uid;
    expect(take()).toEqual<WriteRecord[]>([
      { t: 10, actor: 'user', verb: 'create', kind: 'Widget', key: 'default/a', uid, rv: 1, changed: ['.'], noop: false },
      { t: 20, actor: 'controller:web/0', verb: 'update', kind: 'Widget', key: 'default/a', uid, rv: 2, changed: ['spec.replicas'], noop: false },
      { t: 30, actor: 'controller:web/1', verb: 'updateStatus', kind: 'Widget', key: 'default/a', uid, rv: 3, changed: ['status.ready'], noop: false },
      { t: 40, actor: 'environment:kubelet', verb: 'patch', kind: 'Widget', key: 'default/a', uid, rv: 4, changed: ['metadata.labels.l'], noop: false },
      { t: 50, actor: 'fault:api-conflict', verb: 'patchStatus', kind: 'Widget', key: 'default/a', uid, rv: 5, changed: ['status.ready'], noop: false },
      { t: 60, actor: 'user', verb: 'delete', kind: 'Widget', key: 'default/a', uid, rv: 6, changed: ['metadata.deletionTimestamp'], noop: false, markedForDeletion: true },
      { t: 70, actor: 'controller:web/0', verb: 'patch', kind: 'Widget', key: 'default/a', uid, rv: 7, changed: ['metadata.finalizers'], noop: false, removed: true },
    ]);
  });

  it('records the key as name for cluster-scoped objects', () => {
    const { store, take } = makeStore();
    store.create('user', { kind: 'Node', metadata: { name: 'n1' } });
    expect(take()[0]!.key).toBe('n1');
  });

  it('records no-ops with noop: true, no rv and no changed paths, for every verb', () => {
    const { store, take } = makeStore();
    const a = store.create('user', { ...widget('a', {}, { finalizers: ['f'] }), status: { s: 1 } });
    store.delete('user', 'Widget', ref('a'));
    const cur = store.get('Widget', ref('a'));
    take();
    store.update('u', cur);
    store.updateStatus('u', cur);
    store.patch('u', 'Widget', ref('a'), { spec: {} });
    store.patch('u', 'Widget', ref('a'), { status: { s: 1 } }, { subresource: 'status' });
    store.delete('u', 'Widget', ref('a'));
    const ws = take();
    expect(ws.map((w) => w.verb)).toEqual(['update', 'updateStatus', 'patch', 'patchStatus', 'delete']);
    for (const w of ws) {
      expect(w).toMatchObject({ noop: true, changed: [], uid: a.metadata.uid });
      expect(w.rv).toBeUndefined();
      expect(w.error).toBeUndefined();
    }
    expect(store.currentResourceVersion()).toBe(2);
  });

  it('records failed writes with the error reason and without rv', () => {
    const { store, take, clock } = makeStore();
    const a = store.create('user', widget('a'));
    store.patch('user', 'Widget', ref('a'), { spec: { x: 1 } });
    take();
    clock.advanceTo(99);
    const attempts: (() => unknown)[] = [
      () => store.create('c', widget('a')),
      () => store.update('c', a),
      () => store.updateStatus('c', a),
      () => store.patch('c', 'Widget', ref('a'), {}, { resourceVersion: '1' }),
      () => store.delete('c', 'Widget', ref('a'), { preconditions: { uid: 'nope' } }),
      () => store.update('c', widget('missing') as never),
      () => store.patch('c', 'Widget', ref('missing'), {}),
      () => store.delete('c', 'Widget', ref('missing')),
      () => store.create('c', { kind: 'Widget', metadata: {} }),
    ];
    for (const attempt of attempts) expect(attempt).toThrow();
    const ws = take();
    expect(ws.map((w) => [w.verb, w.error])).toEqual([
      ['create', 'AlreadyExists'],
      ['update', 'Conflict'],
      ['updateStatus', 'Conflict'],
      ['patch', 'Conflict'],
      ['delete', 'Conflict'],
      ['update', 'NotFound'],
      ['patch', 'NotFound'],
      ['delete', 'NotFound'],
      ['create', 'Invalid'],
    ]);
    for (const w of ws) {
      expect(w).toMatchObject({ t: 99, actor: 'c', noop: false, changed: [] });
      expect(w.rv).toBeUndefined();
    }
    expect(ws[1]!.uid).toBe(a.metadata.uid); // known when the object exists
    expect(ws[5]!.uid).toBeUndefined();
  });

  it('the recorded rv is the object\'s new resourceVersion', () => {
    const { store, take } = makeStore();
    const a = store.create('user', widget('a'));
    const b = store.patch('user', 'Widget', ref('a'), { spec: { y: 1 } });
    const [w1, w2] = take();
    expect(String(w1!.rv)).toBe(a.metadata.resourceVersion);
    expect(String(w2!.rv)).toBe(b.metadata.resourceVersion);
  });

  it('changed paths name the fields, stop at four segments, and skip resourceVersion/generation', () => {
    const { store, take } = makeStore();
    store.create('user', widget('a', { template: { spec: { containers: [{ image: 'v1' }], deep: { er: 1 } } } }));
    take();
    store.patch('user', 'Widget', ref('a'), {
      spec: { template: { spec: { containers: [{ image: 'v2' }], deep: { er: 2 } } } },
      metadata: { labels: { 'app.kubernetes.io/name': 'web' } },
    });
    expect(take()[0]!.changed).toEqual(['metadata.labels.app.kubernetes.io/name', 'spec.template.spec.containers', 'spec.template.spec.deep']);
  });

  it('records the garbage collector\'s writes with actor environment:garbage-collector', () => {
    const { store, take } = makeStore();
    const owner = store.create('user', widget('owner'));
    store.create('user', { kind: 'Part', metadata: { name: 'p', namespace: 'default', ownerReferences: [{ kind: 'Widget', name: 'owner', uid: owner.metadata.uid }] } });
    take();
    store.delete('user', 'Widget', ref('owner'));
    expect(take().map((w) => `${w.actor} ${w.verb} ${w.kind}`)).toEqual(['user delete Widget', 'environment:garbage-collector delete Part']);
  });

  it('works without an onWrite callback', () => {
    const { store } = makeStore();
    expect(() => store.create('user', widget('a'))).not.toThrow();
  });
});
