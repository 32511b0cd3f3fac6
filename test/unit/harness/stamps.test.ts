import { describe, expect, it } from 'vitest';
import { stampsOnly } from '../../../src/harness/stamps.js';
import { virtualTimestamp, type StoredObject } from '../../../src/index.js';
import { VIRTUAL_EPOCH_MS } from '../../../src/store/object.js';

const obj = (status: Record<string, unknown>, annotations: Record<string, string> = {}): StoredObject =>
  ({ kind: 'Widget', metadata: { name: 'a', namespace: 'default', uid: 'u', resourceVersion: '2', generation: 1, creationTimestamp: virtualTimestamp(0), labels: {}, annotations, finalizers: [], ownerReferences: [] }, spec: {}, status }) as unknown as StoredObject;

describe('stampsOnly: a write that changed nothing but time stamps of its own moment', () => {
  const t = 12_345;
  it('a time of the write in RFC 3339 (to the millisecond or the second) or in Unix ms or s is a stamp', () => {
    expect(stampsOnly(obj({ checkedAt: virtualTimestamp(t) }), ['status.checkedAt'], t)).toBe(true);
    expect(stampsOnly(obj({ checkedAt: virtualTimestamp(t).replace(/\.\d+Z$/, 'Z') }), ['status.checkedAt'], t)).toBe(true);
    expect(stampsOnly(obj({ n: VIRTUAL_EPOCH_MS + t }), ['status.n'], t)).toBe(true);
    expect(stampsOnly(obj({ n: Math.floor((VIRTUAL_EPOCH_MS + t) / 1000) }), ['status.n'], t)).toBe(true);
    expect(stampsOnly(obj({}, { 'example.com/synced-at': virtualTimestamp(t) }), ['metadata.annotations.example.com/synced-at'], t)).toBe(true);
  });
  it('another time, a count, a phase or a whole array is not', () => {
    expect(stampsOnly(obj({ checkedAt: virtualTimestamp(t - 1000) }), ['status.checkedAt'], t)).toBe(false);
    expect(stampsOnly(obj({ checkedAt: virtualTimestamp(t + 1) }), ['status.checkedAt'], t)).toBe(false);
    // bare virtual ms: a counter stepped once per self-fed write (one a millisecond) would equal them
    expect(stampsOnly(obj({ n: t }), ['status.n'], t)).toBe(false);
    expect(stampsOnly(obj({ checkedAt: virtualTimestamp(t), phase: 'Ready' }), ['status.checkedAt', 'status.phase'], t)).toBe(false);
    expect(stampsOnly(obj({ conditions: [{ type: 'Ready', lastTransitionTime: virtualTimestamp(t) }] }), ['status.conditions'], t)).toBe(false);
    expect(stampsOnly(obj({ checkedAt: 'not a time at all, long enough' }), ['status.checkedAt'], t)).toBe(false);
  });
  it('a write that changed nothing, or the whole object (a create), is not', () => {
    expect(stampsOnly(obj({ at: virtualTimestamp(t) }), [], t)).toBe(false);
    expect(stampsOnly(obj({ at: virtualTimestamp(t) }), ['.'], t)).toBe(false);
  });
});
