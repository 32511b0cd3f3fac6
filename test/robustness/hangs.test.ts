import { describe, expect, it } from 'vitest';
import { runAttack, words, type Attack } from './hostile.js';

/**
 * Issue 17 item 6: a reconcile that never yields to the simulation ends with a verdict naming
 * the loop, in this thread, without --workers; nothing keeps running after the check. (A
 * synchronous loop and a loop on `await null` cannot be stopped in-thread: the CLI runs checks in
 * a worker under a watchdog, see test/robustness/cli-hangs.test.ts.)
 */

/** After the check: the thread's queues drain, so a macrotask runs soon (nothing left spinning). */
async function hostBreathes(): Promise<boolean> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), 2_000);
    setImmediate(() => {
      clearTimeout(t);
      resolve(true);
    });
  });
}

const attacks: Attack[] = [
  {
    attack: 'loops on await Promise.resolve() forever',
    reconcile: async () => {
      for (;;) await Promise.resolve();
    },
    property: 'busy-loop',
    says: [/reconcile of default\/thing-0 by hostile never yields to the simulation: it loops on `await Promise\.resolve\(\)`/, /200,000 calls of Promise\.resolve in a row/, /await ctx\.clock\.sleep/],
  },
  {
    attack: 'waits on a recursive process.nextTick chain that never ends',
    reconcile: () =>
      new Promise<void>(() => {
        const spin = (): void => process.nextTick(spin);
        spin();
      }),
    property: 'busy-loop',
    says: [/reconcile of default\/thing-0 by hostile never yields to the simulation: it schedules process\.nextTick from its own callback, over and over/],
  },
  {
    attack: 'starts a detached process.nextTick loop and returns (the run would otherwise pass, and the caller starve)',
    reconcile: () => {
      const spin = (): void => process.nextTick(spin);
      spin();
    },
    property: 'busy-loop',
    says: [/reconcile of default\/thing-0 by hostile never yields to the simulation: it schedules process\.nextTick/],
  },
  {
    attack: 'starts a detached queueMicrotask loop and returns',
    reconcile: () => {
      const spin = (): void => queueMicrotask(spin);
      spin();
    },
    property: 'busy-loop',
    says: [/reconcile of default\/thing-0 by hostile never yields to the simulation: it schedules queueMicrotask/],
  },
];

describe('hangs end with a verdict, in this thread', () => {
  for (const a of attacks) {
    it(a.attack, async () => {
      const r = await runAttack(a);
      expect(r.ok, words(r)).toBe(false);
      if (r.ok) return;
      expect(r.property, words(r)).toBe(a.property);
      for (const re of a.says) expect(words(r)).toMatch(re);
      expect(await hostBreathes()).toBe(true);
    }, 30_000);
  }

  it('a deep but finite chain of ticks and microtasks is not a loop', async () => {
    const r = await runAttack({
      attack: 'finite',
      reconcile: async () => {
        for (let i = 0; i < 50_000; i++) await Promise.resolve();
        await new Promise<void>((done) => {
          let n = 0;
          const step = (): void => (++n < 50_000 ? process.nextTick(step) : done());
          step();
        });
      },
      property: '',
      says: [],
    });
    expect(r.ok, words(r)).toBe(true);
  });

  it('restores the globals after every run', async () => {
    const [tick, queue, resolve] = [process.nextTick, globalThis.queueMicrotask, Promise.resolve];
    await runAttack(attacks[1]!);
    await hostBreathes();
    expect([process.nextTick, globalThis.queueMicrotask, Promise.resolve]).toEqual([tick, queue, resolve]);
  });
});
