import { describe, expect, it } from 'vitest';
import { cloneJson, fromVirtualTimestamp, jsonEqual, keyOf, parseKey, virtualTimestamp, VIRTUAL_EPOCH_MS } from '../../../src/store/object.js';

describe('object helpers', () => {
  it('keyOf / parseKey round-trip namespace/name and cluster-scoped names', () => {
    expect(keyOf({ namespace: 'ns', name: 'a' })).toBe('ns/a');
    expect(keyOf({ name: 'a' })).toBe('a');
    expect(keyOf({ namespace: '', name: 'a' })).toBe('a');
    expect(keyOf({ namespace: undefined, name: 'a' })).toBe('a');
    expect(parseKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(parseKey('a')).toEqual({ name: 'a' });
  });

  it('virtual timestamps are RFC 3339 from the virtual epoch and invert', () => {
    expect(virtualTimestamp(0)).toBe(new Date(VIRTUAL_EPOCH_MS).toISOString());
    expect(virtualTimestamp(1234)).toBe('2026-01-01T00:00:01.234Z');
    expect(fromVirtualTimestamp(virtualTimestamp(98765))).toBe(98765);
  });

  it('cloneJson deep-copies and drops undefined members', () => {
    const src = { a: { b: [1, { c: 2 }] }, u: undefined, n: null };
    const copy = cloneJson(src);
    expect(copy).toEqual({ a: { b: [1, { c: 2 }] }, n: null });
    expect('u' in copy).toBe(false);
    (copy.a.b[1] as { c: number }).c = 3;
    expect((src.a.b[1] as { c: number }).c).toBe(2);
  });

  it('jsonEqual compares structurally', () => {
    expect(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(null, null)).toBe(true);
    expect(jsonEqual('1', 1)).toBe(false);
  });
});
