import { describe, it } from 'vitest';
import { expectVerdict, type Attack } from './hostile.js';

/**
 * Session 6: JavaScript lets a reconcile throw anything. Every thrown value must end in a verdict
 * that names it; one that throws when looked at (a Proxy with throwing traps, an Error whose
 * `message` getter throws) made the harness's own `instanceof` and messages throw, and the
 * verdict blamed an unhandled rejection inside steadystate instead of the reconcile.
 */
const trap = (): never => {
  throw new Error('proto trap');
};
const hostileProxy = (): object => new Proxy({}, { getPrototypeOf: trap, get: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, has: trap });
const uninspectable = /failed reconciles of default\/thing-0 by controller hostile\/0 \(Error: the code threw a value that cannot be looked at: reading it threw \(Error: proto trap\); a Proxy whose traps throw/;

const attacks: Attack[] = [
  { attack: 'throws a string', reconcile: () => Promise.reject('a string'), property: 'convergence', says: [/failed reconciles of default\/thing-0 by controller hostile\/0 \(a string\)/] },
  { attack: 'throws null', reconcile: () => Promise.reject(null), property: 'convergence', says: [/\(null\)/] },
  { attack: 'throws undefined', reconcile: () => Promise.reject(undefined), property: 'convergence', says: [/\(undefined\)/] },
  {
    attack: 'throws a Proxy whose traps throw (synchronously)',
    reconcile: () => {
      throw hostileProxy();
    },
    property: 'convergence',
    says: [uninspectable],
  },
  { attack: 'rejects with a Proxy whose traps throw', reconcile: () => Promise.reject(hostileProxy()), property: 'convergence', says: [uninspectable] },
  {
    attack: 'throws an Error whose message getter throws',
    reconcile: () => {
      const e = new Error('hidden');
      Object.defineProperty(e, 'message', { get: trap });
      throw e;
    },
    property: 'convergence',
    says: [uninspectable],
  },
  {
    attack: 'leaves a promise rejected with such a Proxy unhandled',
    reconcile: () => void Promise.reject(hostileProxy()),
    property: 'never-exits',
    says: [/a promise of the code under test rejected and nothing handled it \(Error: the code threw a value that cannot be looked at: reading it threw \(Error: proto trap\)/],
  },
];

describe('whatever a reconcile throws, the verdict names it', () => {
  for (const a of attacks) it(a.attack, () => expectVerdict(a));
});
