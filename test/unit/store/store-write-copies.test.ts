import { describe, expect, it } from 'vitest';
import { cloneSorted, sortedInPlace } from '../../../src/store/key-order.js';
import { virtualTimestamp, VIRTUAL_EPOCH_MS, type StoredObject } from '../../../src/store/object.js';
import { objectSize, RequestTooLargeError } from '../../../src/store/storage-size.js';
import { makeStore, ref, widget } from './helpers.js';

/*
 * The write path's cuts (speed h50): what the client sent is stored without a second copy, the
 * stored sizes are kept per key instead of per object identity, timestamps are formatted without
 * a Date. Each must give exactly what the slower way gave.
 */
describe('sortedInPlace: cloneSorted of data no one else holds', () => {
  const samples: unknown[] = [
    { b: 1, a: { d: [{ z: 1, y: 2 }, 3], c: null } },
    { a: 1, b: { c: 2, d: [1, 2, { e: 'x' }] } },
    { 10: 'x', b: 1, 2: 'y', a: [] },
    [{ b: 1, a: 2 }, 'x', [{ d: 1, c: 2 }]],
    JSON.parse('{"b":1,"__proto__":{"y":1,"x":2},"a":3}'),
    'text',
    7,
    null,
  ];
  for (const [i, s] of samples.entries()) {
    it(`sample ${i}: the same keys in the same order as cloneSorted gives`, () => {
      const want = cloneSorted(structuredClone(s));
      const got = sortedInPlace(structuredClone(s));
      expect(JSON.stringify(got)).toBe(JSON.stringify(want));
      expect(got).toEqual(want);
      if (got !== null && typeof got === 'object') expect(Object.getPrototypeOf(got)).toBe(Object.getPrototypeOf(want));
    });
  }

  it('copies nothing that is in order: only an object whose own keys were out of order is rebuilt', () => {
    const inner = { a: 1, b: 2 };
    const list = [inner];
    const sorted = { a: list, b: { d: 1, c: 2 } };
    const out = sortedInPlace(sorted);
    expect(out).toBe(sorted);
    expect(out.a).toBe(list);
    expect(out.a[0]).toBe(inner);
    expect(Object.keys(out.b)).toEqual(['c', 'd']);
  });
});

describe('a status the controller client sent', () => {
  it('is stored as sent (no second copy), its keys sorted for a custom kind, as updateStatus stores a copy', () => {
    const { store } = makeStore();
    const w = store.create('user', widget('w'));
    const sent = { ...w, status: { a: 1, b: { c: [1, { e: 2, d: 1 }] } } };
    store.updateStatusSent('controller:c/0', sent);
    const stored = store.peek('Widget', 'default/w')!;
    expect(stored.status).toBe(sent.status);
    expect(Object.keys((stored.status['b'] as { c: [number, object] }).c[1])).toEqual(['d', 'e']);

    const { store: other } = makeStore();
    const v = other.create('user', widget('w'));
    other.updateStatus('controller:c/0', { ...v, status: { a: 1, b: { c: [1, { e: 2, d: 1 }] } } });
    expect(JSON.stringify(other.peek('Widget', 'default/w'))).toBe(JSON.stringify(stored));
  });

  it('of a built-in kind is stored as sent, in the order sent', () => {
    const { store } = makeStore();
    const node = store.create('user', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: {} });
    const status = { phase: 'Running', capacity: { pods: '110', cpu: '2' } };
    store.updateStatusSent('controller:c/0', { ...node, status });
    expect(store.peek('Node', 'n')!.status).toBe(status);
    expect(Object.keys(store.peek('Node', 'n')!.status)).toEqual(['phase', 'capacity']);
    expect(Object.keys(status.capacity)).toEqual(['pods', 'cpu']);
  });
});

describe('stored sizes kept per key', () => {
  it('agree with a fresh measure of the stored object after every kind of write (status, spec, labels, a refused write, deletion, a new incarnation)', () => {
    const { store } = makeStore();
    const fresh = (): number => objectSize(store.peek('Widget', 'default/w') as StoredObject);
    const agree = (): void => expect(store.storedSizeOf('Widget', 'default/w')).toBe(fresh());
    let w = store.create('user', widget('w', { replicas: 1, big: 'x'.repeat(2000) }));
    agree();
    w = store.updateStatus('controller:c/0', { ...w, status: { n: 12345 } });
    agree();
    w = store.update('user', { ...w, spec: { replicas: 2, big: 'y'.repeat(100) } });
    agree();
    w = store.update('user', { ...w, metadata: { ...w.metadata, labels: { app: 'web' }, finalizers: ['example.dev/hold'] } });
    agree();
    expect(() => store.updateStatus('controller:c/0', { ...w, status: { log: 'z'.repeat(1.6 * 1024 * 1024) } })).toThrow(RequestTooLargeError);
    agree();
    w = store.updateStatus('controller:c/0', { ...w, status: { n: 1 } });
    agree();
    store.delete('user', 'Widget', ref('w'));
    agree();
    w = store.get('Widget', ref('w'));
    store.update('user', { ...w, metadata: { ...w.metadata, finalizers: [] } });
    expect(store.storedSizeOf('Widget', 'default/w')).toBeUndefined();
    store.create('user', widget('w', { other: true }));
    agree();
  });
});

describe('virtualTimestamp', () => {
  it("is Date's toISOString of the virtual instant, on the first day and after it", () => {
    const all = [0, 1, 9, 10, 99, 100, 999, 1000, 59_999, 60_000, 3_599_999, 3_600_000, 36_000_000, 86_399_999, 86_400_000, 90_000_123, 1e10, 0.5, 1.5, -1, -1000];
    for (let ms = 0; ms < 86_400_000; ms += 86_400_000 / 4800 + 7) all.push(Math.floor(ms));
    for (const ms of all) expect(virtualTimestamp(ms)).toBe(new Date(VIRTUAL_EPOCH_MS + ms).toISOString());
  });
});
