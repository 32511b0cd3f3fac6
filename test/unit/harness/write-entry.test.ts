import { describe, expect, it } from 'vitest';
import { writeEntry, WRITE_ENTRY_FIELDS } from '../../../src/harness/world.js';
import type { WriteRecord } from '../../../src/store/store.js';
import { makeStore } from '../store/helpers.js';

/**
 * The `store:write` trace entry is built field by field (a spread cost five times as much on
 * every write), so it must come out exactly as `{ type, ...record, digest }` did: same keys, same
 * order, same JSON, for every shape of record the store makes; the trace hash depends on it.
 */
describe('writeEntry: the store:write trace entry', () => {
  function everyShape(): WriteRecord[] {
    const { store, writes } = makeStore();
    const tryIt = (fn: () => unknown) => {
      try {
        fn();
      } catch {
        // failed writes are records too
      }
    };
    store.create('user', { kind: 'Thing', metadata: { name: 'a', namespace: 'ns', finalizers: ['x/y'] }, spec: { n: 1 } });
    tryIt(() => store.create('user', { kind: 'Thing', metadata: { name: 'a', namespace: 'ns' }, spec: {} })); // AlreadyExists, no uid
    tryIt(() => store.create('user', { kind: 'Thing', metadata: {}, spec: {} })); // Invalid, no key
    const a = store.get('Thing', { namespace: 'ns', name: 'a' });
    store.update('u', { ...a, spec: { n: 2 } });
    store.update('u', { ...store.get('Thing', { namespace: 'ns', name: 'a' }) }); // no-op
    tryIt(() => store.update('u', { ...a, spec: { n: 3 } })); // Conflict, with uid
    store.updateStatus('u', { ...store.get('Thing', { namespace: 'ns', name: 'a' }), status: { ok: true } });
    store.patch('u', 'Thing', { namespace: 'ns', name: 'a' }, { metadata: { labels: { l: 'v' } } });
    tryIt(() => store.patch('u', 'Thing', { namespace: 'ns', name: 'gone' }, { spec: {} })); // NotFound
    store.delete('u', 'Thing', { namespace: 'ns', name: 'a' }); // marked for deletion
    store.delete('u', 'Thing', { namespace: 'ns', name: 'a' }); // no-op delete
    store.patch('u', 'Thing', { namespace: 'ns', name: 'a' }, { metadata: { finalizers: null } }); // removed by the write
    store.create('user', { kind: 'Thing', metadata: { name: 'b' }, spec: {} });
    store.delete('u', 'Thing', { name: 'b' }); // removed
    tryIt(() => store.delete('u', 'Thing', { name: 'b' })); // NotFound delete
    return writes;
  }

  it('has the keys, key order and JSON of the spread, for every shape of record the store makes', () => {
    const records = everyShape();
    const shapes = new Set(records.map((w) => Object.keys(w).join(',')));
    expect(shapes.size).toBeGreaterThanOrEqual(6);
    for (const w of records) {
      for (const digest of ['0123abcd', undefined]) {
        const spread = digest !== undefined ? { type: 'store:write', ...w, digest } : { type: 'store:write', ...w };
        const e = writeEntry(w, digest);
        expect(Object.keys(e)).toEqual(Object.keys(spread));
        expect(JSON.stringify(e)).toBe(JSON.stringify(spread));
      }
    }
  });

  it('every record the store makes has its fields in the order writeEntry copies them', () => {
    for (const w of everyShape()) {
      const keys = Object.keys(w);
      expect(keys).toEqual(WRITE_ENTRY_FIELDS.filter((k) => keys.includes(k)));
    }
  });
});
