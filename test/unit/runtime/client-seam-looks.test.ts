import { afterEach, describe, expect, it } from 'vitest';
import { defineController, simulate, type Scenario } from '../../../src/index.js';
import { kernelHooks } from '../../../src/sim/kernel.js';

/**
 * The client's seams look at the built-ins (the run guard's quick check) before a call and after
 * it; the look after a cached read is skipped only when no code of the caller's can have run in
 * between (a string key, no options). speed43.
 */
const scenario: Scenario = {
  seed: 1,
  controllers: [{ name: 'web' }],
  initialObjects: [{ kind: 'WebApp', metadata: { name: 'a', namespace: 'default' }, spec: { replicas: 1 } }],
  workload: [],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 100, settleMs: 100 },
};

/** Counts the guard's looks (kernelHooks.userCodeReturned calls) while installed. */
function countLooks(): { looks: () => number; restore: () => void } {
  let n = 0;
  let fn: (() => void) | undefined;
  const own = Object.getOwnPropertyDescriptor(kernelHooks, 'userCodeReturned')!;
  Object.defineProperty(kernelHooks, 'userCodeReturned', {
    configurable: true,
    enumerable: true,
    get: () =>
      fn === undefined
        ? undefined
        : () => {
            n++;
            fn!();
          },
    set: (f: (() => void) | undefined) => {
      fn = f;
    },
  });
  return {
    looks: () => n,
    restore: () => {
      Object.defineProperty(kernelHooks, 'userCodeReturned', { ...own, value: fn });
    },
  };
}

let undo: (() => void) | undefined;
afterEach(() => {
  undo?.();
  undo = undefined;
});

describe('the built-ins looks of a cached read', () => {
  it('a string key with no options: one look (before the call), the object still read', async () => {
    const c = countLooks();
    undo = c.restore;
    const seen: { looks: number; name: unknown }[] = [];
    const web = defineController({
      name: 'web',
      for: 'WebApp',
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        if (seen.length > 0) return;
        const n0 = c.looks();
        const p = ctx.client.tryGet('WebApp', 'default/a');
        seen.push({ looks: c.looks() - n0, name: (await p)?.metadata.name });
      },
    });
    const { run } = await simulate(scenario, { controllers: [web], tailMs: 0 });
    expect(seen).toEqual([{ looks: 1, name: 'a' }]);
    expect(run.escapes ?? []).toEqual([]);
  });

  it("a key object (its getters are the caller's code) or options: read into plain data before the one look, which puts back a built-in a getter replaced", async () => {
    const c = countLooks();
    undo = c.restore;
    const get = Map.prototype.get;
    const seen: { looks: number; restored?: boolean }[] = [];
    const web = defineController({
      name: 'web',
      for: 'WebApp',
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        if (seen.length > 0) return;
        let n0 = c.looks();
        let p: Promise<unknown> = ctx.client.tryGet('WebApp', 'default/a', {});
        seen.push({ looks: c.looks() - n0 });
        await p;
        const key = {
          namespace: 'default',
          get name() {
            Map.prototype.get = function (this: Map<unknown, unknown>, k: unknown) {
              return get.call(this, k);
            };
            return 'a';
          },
        };
        n0 = c.looks();
        p = ctx.client.tryGet('WebApp', key);
        seen.push({ looks: c.looks() - n0, restored: Map.prototype.get === get });
        await p;
      },
    });
    try {
      const { run } = await simulate(scenario, { controllers: [web], tailMs: 0 });
      expect(seen).toEqual([{ looks: 1 }, { looks: 1, restored: true }]);
      expect(run.escapes?.map((e) => e.message)).toEqual(['Map.prototype.get']);
    } finally {
      Map.prototype.get = get;
    }
  });
});

describe('the built-ins looks of a write', () => {
  it('one look (before the call): only the harness runs in the call, so there is no look after it (speed h50)', async () => {
    const c = countLooks();
    undo = c.restore;
    const seen: number[] = [];
    const web = defineController({
      name: 'web',
      for: 'WebApp',
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        if (seen.length > 0) return;
        const a = await ctx.client.tryGet('WebApp', 'default/a');
        const n0 = c.looks();
        const p = ctx.client.updateStatus({ ...a!, status: { seen: 1 } });
        seen.push(c.looks() - n0);
        await p;
      },
    });
    const { run } = await simulate(scenario, { controllers: [web], tailMs: 0 });
    expect(seen).toEqual([1]);
    expect(run.escapes ?? []).toEqual([]);
    expect(run.writes.filter((w) => w.verb === 'updateStatus' && !w.noop)).toHaveLength(1);
  });

  it('a built-in replaced inside the call (by a probe run after every write) is put back at the next seam, and fails the run', async () => {
    const min = Math.min;
    let armed = false;
    const web = defineController({
      name: 'web',
      for: 'WebApp',
      resyncPeriodMs: 0,
      async reconcile(ctx) {
        const a = await ctx.client.tryGet<object, { seen?: number }>('WebApp', 'default/a');
        if (a === undefined || a.status.seen === 1) return;
        armed = true;
        await ctx.client.updateStatus({ ...a, status: { seen: 1 } });
      },
    });
    const probe = {
      name: 'tamper',
      everyMs: 'write' as const,
      phases: ['faults' as const, 'settle' as const, 'tail' as const],
      fn: () => {
        if (armed) {
          armed = false;
          Math.min = () => Infinity;
        }
        return true;
      },
    };
    try {
      const { run } = await simulate(scenario, { controllers: [web], tailMs: 0, probes: [probe] });
      expect(run.escapes?.map((e) => e.message)).toEqual(['Math.min']);
      expect(Math.min).toBe(min);
    } finally {
      Math.min = min;
    }
  });
});
