import { afterEach, describe, expect, it } from 'vitest';
import { expectVerdict, runAttack, words, type Attack } from './hostile.js';
import { snapshotIntrinsics } from '../../src/host/intrinsics.js';

/**
 * Session 7: a reconcile that replaces a built-in the harness also runs on (`Math.max = () => 0`)
 * hung the kernel in-process, or let the harness compute its verdict under the replacement. The
 * run guard puts it back at every seam where the code under test hands control back, and the
 * run fails under `never-exits` naming what was replaced.
 */
const G = globalThis as unknown as Record<string, unknown>;
const current = () => ({ max: Math.max, min: Math.min, stringify: JSON.stringify, sort: Array.prototype.sort, get: Map.prototype.get, setTimeout: G['setTimeout'], queueMicrotask: G['queueMicrotask'], nextTick: process.nextTick });
const orig = current();
const replaced = (name: string) => [new RegExp(`replaced the built-in ${name.replace(/\./g, '\\.')}`), /steadystate put it back/, /never passes/];

const attacks: Attack[] = [
  { attack: 'Math.max = () => 0 (the scheduler and the kernel use it: hung in-process)', reconcile: () => void (Math.max = () => 0), property: 'never-exits', says: replaced('Math.max') },
  { attack: 'Math.min = () => Infinity', reconcile: () => void (Math.min = () => Infinity), property: 'never-exits', says: replaced('Math.min') },
  { attack: 'Math.max replaced after an await (found when the task parks, not when it settles)', reconcile: async (ctx) => {
      await ctx.client.tryGet('Thing', ctx.key);
      Math.max = () => 0;
      await ctx.clock.sleep(1);
    }, property: 'never-exits', says: replaced('Math.max') },
  // session 7 red team: each of these passed (and leaked into every later test) or crashed the harness
  { attack: 'queueMicrotask replaced (the loop guard kept it, then left it in place)', reconcile: () => void (G['queueMicrotask'] = (f: () => void) => void f), property: 'never-exits', says: replaced('globalThis.queueMicrotask') },
  { attack: 'process.nextTick replaced', reconcile: () => void (process.nextTick = (() => undefined) as typeof process.nextTick), property: 'never-exits', says: replaced('process.nextTick') },
  { attack: 'setTimeout replaced (was put back silently)', reconcile: () => void (G['setTimeout'] = () => 0), property: 'never-exits', says: replaced('globalThis.setTimeout') },
  { attack: 'structuredClone replaced', reconcile: () => void (G['structuredClone'] = (v: unknown) => v), property: 'never-exits', says: replaced('globalThis.structuredClone') },
  { attack: 'Array.prototype.sort replaced', reconcile: () => void (Array.prototype.sort = function (this: unknown[]) { return this; } as never), property: 'never-exits', says: replaced('Array.prototype.sort') },
  { attack: "array iterators' next replaced (every for…of and spread)", reconcile: () => void ((Object.getPrototypeOf([][Symbol.iterator]()) as { next: unknown }).next = () => ({ done: true, value: undefined })), property: 'never-exits', says: replaced('%ArrayIteratorPrototype%.next') },
  { attack: 'Function.prototype.call replaced (the harness crashed)', reconcile: () => void (Function.prototype.call = function () { return undefined; } as never), property: 'never-exits', says: replaced('Function.prototype.call') },
  { attack: 'Error.captureStackTrace replaced', reconcile: () => void (Error.captureStackTrace = () => undefined), property: 'never-exits', says: replaced('Error.captureStackTrace') },
  { attack: 'Object.prototype.then added: every object a thenable (the harness crashed)', reconcile: () => void Object.defineProperty(Object.prototype, 'then', { configurable: true, writable: true, value(r: (v: unknown) => void) { r(1); } }), property: 'never-exits', says: [/Object\.prototype\.then \(added\)/] },
  { attack: 'Object.prototype.toJSON added: every JSON the harness writes forged', reconcile: () => void Object.defineProperty(Object.prototype, 'toJSON', { configurable: true, writable: true, value: () => ({ ok: true }) }), property: 'never-exits', says: [/Object\.prototype\.toJSON \(added\)/] },
  { attack: 'RegExp.prototype.test replaced', reconcile: () => void (RegExp.prototype.test = () => true), property: 'never-exits', says: replaced('RegExp.prototype.test') },
  // not writable: checked when the run ends rather than at every seam, still failing the run
  { attack: "Promise's name redefined (not writable: only defineProperty changes it)", reconcile: () => void Object.defineProperty(Promise, 'name', { configurable: true, value: 'Forged' }), property: 'never-exits', says: replaced('Promise.name') },
  { attack: 'Symbol.toStringTag of JSON redefined', reconcile: () => void Object.defineProperty(JSON, Symbol.toStringTag, { configurable: true, value: 'Forged' }), property: 'never-exits', says: [/replaced the built-in JSON\[Symbol\.toStringTag\]/, /never passes/] },
];

describe('a reconcile that replaces a built-in', () => {
  const intact = snapshotIntrinsics();
  afterEach(() => {
    // whatever the guard missed must not leak into the next test
    expect(intact.restore()).toEqual([]);
    expect(current()).toEqual(orig);
  });
  for (const a of attacks) {
    it(a.attack, () => expectVerdict(a));
  }

  it('a polyfill installed before the check is part of the module: the run passes', async () => {
    const had = Object.getOwnPropertyDescriptor(Array.prototype, 'findLast')!;
    const polyfill = function findLast(this: unknown[], f: (x: unknown) => boolean): unknown {
      return (had.value as (f: (x: unknown) => boolean) => unknown).call(this, f);
    };
    Object.defineProperty(Array.prototype, 'findLast', { ...had, value: polyfill });
    try {
      const r = await runAttack({ attack: 'polyfill', property: '', says: [] });
      expect(words(r)).toBe('(passed)');
      expect(Array.prototype.findLast).toBe(polyfill);
    } finally {
      Object.defineProperty(Array.prototype, 'findLast', had);
    }
  });
});
