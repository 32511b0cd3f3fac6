import { describe, expect, it } from 'vitest';
import { isStoreError } from '../../../src/store/errors.js';
import type { Json } from '../../../src/store/object.js';
import { ETCD_REQUEST_LIMIT, RequestTooLargeError, storedSize } from '../../../src/store/storage-size.js';
import { makeStore, widget } from './helpers.js';

/*
 * etcd refuses a request over `--max-request-bytes` (1.5 MiB by default) with "etcdserver: request
 * is too large", and kube-apiserver answers that write with a 500 (kubernetes/kubernetes#74600,
 * #112152): an object cannot grow without bound (red team round 9, L-1).
 */
const MiB = 1024 * 1024;

describe('etcd request size limit (1.5 MiB)', () => {
  it('refuses a custom resource whose JSON is over 1.5 MiB with a 500, recorded as a refused write, and keeps the stored one', () => {
    const { store, take } = makeStore();
    const w = store.create('user', widget('w'));
    take();
    let err: unknown;
    try {
      store.updateStatus('controller:c/0', { ...w, status: { log: 'x'.repeat(1.5 * MiB) } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RequestTooLargeError);
    expect(isStoreError(err, 'InternalError')).toBe(true);
    expect((err as RequestTooLargeError).code).toBe(500);
    expect((err as Error).message).toBe('etcdserver: request is too large');
    expect(take()).toMatchObject([{ verb: 'updateStatus', error: 'InternalError', noop: false }]);
    expect(store.peek('Widget', 'default/w')!.status).toEqual({});
    expect(store.peek('Widget', 'default/w')!.metadata.resourceVersion).toBe(w.metadata.resourceVersion);
  });

  it('takes an object just under the limit, and refuses the write that grows it past it (create, update, patch alike)', () => {
    const { store } = makeStore();
    const w = store.create('user', widget('w', { blob: 'x'.repeat(1.4 * MiB) }));
    expect(storedSize(store.peek('Widget', 'default/w')!)).toBeLessThan(ETCD_REQUEST_LIMIT);
    expect(() => store.patch('controller:c/0', 'Widget', { namespace: 'default', name: 'w' }, { spec: { more: 'y'.repeat(0.2 * MiB) } })).toThrow('etcdserver: request is too large');
    expect(() => store.update('user', { ...w, spec: { blob: 'x'.repeat(1.6 * MiB) } })).toThrow(RequestTooLargeError);
    expect(() => store.create('user', widget('v', { blob: 'x'.repeat(1.6 * MiB) }))).toThrow(RequestTooLargeError);
    expect(store.peek('Widget', 'default/v')).toBeUndefined();
    // a refused create hands out no uid: the next create of that name gets the first incarnation's
    expect(store.create('user', widget('v')).metadata.uid).toBe(makeStore().store.create('user', widget('v')).metadata.uid);
  });

  it('a list that grows by one entry per write is refused once the object is over 1.5 MiB, and only then', () => {
    const { store } = makeStore();
    let w = store.create('user', widget('w'));
    const entry = { at: '2026-01-01T00:00:00Z', message: 'm'.repeat(64 * 1024) };
    let n = 0;
    // bounded: without the limit the list would grow for ever
    for (let i = 0; i < 40; i++) {
      try {
        w = store.updateStatus('controller:c/0', { ...w, status: { history: [...((w.status['history'] as Json[] | undefined) ?? []), entry] } });
        n++;
      } catch (e) {
        expect(e).toBeInstanceOf(RequestTooLargeError);
        break;
      }
    }
    const stored = store.peek('Widget', 'default/w')!;
    const json = new TextEncoder().encode(JSON.stringify(stored)).length;
    expect(json).toBeLessThanOrEqual(ETCD_REQUEST_LIMIT + 100);
    expect(json + JSON.stringify(entry).length + 1).toBeGreaterThan(ETCD_REQUEST_LIMIT);
    expect(n).toBe(23);
  });

  it('never counts more than the JSON of a custom resource (the stored one also has managedFields), so it never refuses what etcd stores', () => {
    const { store } = makeStore();
    const w = store.create('user', widget('w', { s: 'é"\n\u0001', n: [1, 2.5, -3, null, true, false, { a: {} }], big: 123456789012 }, { labels: { a: 'b' }, annotations: { x: 'y' } }));
    const o = store.peek('Widget', 'default/w')!;
    const json = new TextEncoder().encode(JSON.stringify(o)).length;
    expect(storedSize(o)).toBeLessThanOrEqual(json);
    expect(storedSize(o)).toBeGreaterThan(json - 60);
    // after a status write, counted from the stored version's size
    store.updateStatus('controller:c/0', { ...w, status: { ok: 'yes' } });
    const p = store.peek('Widget', 'default/w')!;
    expect(storedSize(p)).toBeLessThanOrEqual(new TextEncoder().encode(JSON.stringify(p)).length);
    expect(storedSize(p) - storedSize(o)).toBe(JSON.stringify({ ok: 'yes' }).length - JSON.stringify({}).length);
  });

  it('counts a built-in kind as protobuf carries it (the bytes of its strings, Secret data decoded): a Secret of 1 MiB with 256 KiB of annotations is stored', () => {
    const { store } = makeStore();
    store.create('user', { kind: 'Namespace', metadata: { name: 'a' } } as never);
    // base64 of 1 MiB is 1.33 MiB of JSON, plus the annotations: over 1.5 MiB as JSON, under it as protobuf
    const data = { k: btoa('x'.repeat(1024 * 1024 - 8)) };
    const s = store.create('user', { kind: 'Secret', metadata: { name: 's', namespace: 'a', annotations: { big: 'y'.repeat(256 * 1024 - 8) } }, data } as never);
    expect(JSON.stringify(s).length).toBeGreaterThan(ETCD_REQUEST_LIMIT);
    expect(storedSize(store.peek('Secret', 'a/s')!)).toBeLessThan(ETCD_REQUEST_LIMIT);
  });
});
