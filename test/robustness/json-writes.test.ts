import { describe, expect, it } from 'vitest';
import { ObjectStore } from '../../src/store/store.js';
import { InvalidError } from '../../src/store/errors.js';
import { VirtualClock } from '../../src/sim/clock.js';
import { runAttack, words, type Attack } from './hostile.js';

/**
 * Issue 17 item 8: the store holds what the apiserver would hold, JSON. A value JSON cannot carry
 * (NaN, Infinity, a bigint, a function, a Date or Map instance, undefined in a list) is refused
 * as Invalid, naming its path, instead of being stored and compared as a change forever.
 */
const bad: { name: string; value: unknown; says: RegExp }[] = [
  { name: 'NaN', value: NaN, says: /status\.v: Invalid value: NaN: must be JSON \(NaN and Infinity are not numbers in JSON\)/ },
  { name: 'Infinity', value: Infinity, says: /status\.v: Invalid value: Infinity/ },
  { name: '-Infinity deep in a list', value: { deep: [1, -Infinity] }, says: /status\.v\.deep\[1\]: Invalid value: -Infinity/ },
  { name: 'a bigint', value: 10n, says: /status\.v: Invalid value: a bigint/ },
  { name: 'a function', value: () => 1, says: /status\.v: Invalid value: a function/ },
  { name: 'a Date', value: new Date(0), says: /status\.v: Invalid value: a Date: .*toISOString\(\)/ },
  { name: 'a Map', value: new Map([['a', 1]]), says: /status\.v: Invalid value: a Map/ },
  { name: 'undefined in a list', value: [1, undefined], says: /status\.v\[1\]: Invalid value: undefined/ },
];

function store(): ObjectStore {
  const s = new ObjectStore({ clock: new VirtualClock() });
  s.create('user', { kind: 'Thing', metadata: { name: 'a' }, spec: {} });
  return s;
}

describe('writes carry JSON, as the apiserver stores it (issue 17 item 8)', () => {
  for (const b of bad) {
    it(`refuses ${b.name} in status and in spec, at create and at update`, () => {
      const s = store();
      const cur = s.get('Thing', { name: 'a' });
      expect(() => s.updateStatus('c', { ...cur, status: { v: b.value } } as never)).toThrow(InvalidError);
      expect(() => s.updateStatus('c', { ...cur, status: { v: b.value } } as never)).toThrow(b.says);
      expect(() => s.update('c', { ...cur, spec: { v: b.value } } as never)).toThrow(b.says.source.startsWith('status') ? new RegExp(b.says.source.replace(/^status/, 'spec')) : b.says);
      expect(() => s.create('c', { kind: 'Thing', metadata: { name: 'b' }, status: { v: b.value } } as never)).toThrow(InvalidError);
      expect(s.get('Thing', { name: 'a' }).metadata.resourceVersion).toBe(cur.metadata.resourceVersion);
    });
  }

  it('refuses them in any other top-level field too (a custom kind\'s own fields)', () => {
    const s = store();
    expect(() => s.create('c', { kind: 'Thing', metadata: { name: 'b' }, extra: { v: NaN } } as never)).toThrow(/extra\.v: Invalid value: NaN/);
  });

  it('undefined object members are absent, as in JSON (not a change)', () => {
    const s = store();
    const cur = s.get('Thing', { name: 'a' });
    const after = s.updateStatus('c', { ...cur, status: { v: undefined } } as never);
    expect(after.metadata.resourceVersion).toBe(cur.metadata.resourceVersion);
  });

  // through a client, NaN goes on the wire as JSON.stringify sends it: null (src/runtime/wire-form.ts)
  const attack: Attack = {
    attack: 'a reconcile that writes NaN into status every time',
    reconcile: async (ctx) => {
      const t = await ctx.client.tryGet('Thing', ctx.key);
      if (t) await ctx.client.updateStatus({ ...t, status: { ...t.status, ratio: 0 / 0 } }).catch(() => undefined);
    },
    // each reconcile still makes a write (NaN arrives as null, a no-op after the first), which the quiet tail sees
    property: 'idempotence',
    says: [/updateStatus Thing default\/thing-0 by controller hostile\/0 at t=60\.0 s \(a no-op: it changed nothing\)/],
  };
  it(`${attack.attack}: NaN arrives as null (no endless "changes"), the unconditional write is caught, and the check ends fast`, async () => {
    const started = performance.now();
    const r = await runAttack(attack);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.property).toBe(attack.property);
    for (const re of attack.says) expect(words(r)).toMatch(re);
  });
});
