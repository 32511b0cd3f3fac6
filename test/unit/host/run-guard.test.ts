import { describe, expect, it } from 'vitest';
import { check, defineController, simulate, type Scenario } from '../../../src/index.js';

/** One object, no faults: the reconcile runs at t=0 and the run lasts a few virtual seconds. */
const scenario: Scenario = {
  seed: 1,
  controllers: [{ name: 'web' }],
  initialObjects: [{ kind: 'WebApp', metadata: { name: 'a', namespace: 'default' }, spec: { replicas: 1 } }],
  workload: [],
  faults: { events: [], background: [] },
  options: { faultWindowMs: 1000, settleMs: 1000 },
};

function controller(reconcile: () => Promise<unknown> | unknown) {
  return defineController({ name: 'web', for: 'WebApp', resyncPeriodMs: 0, async reconcile() {
    await reconcile();
  } });
}

const globals = () => ({ exit: process.exit, abort: process.abort, setTimeout: globalThis.setTimeout, setInterval: globalThis.setInterval, setImmediate: globalThis.setImmediate, clearTimeout: globalThis.clearTimeout, uncaught: process.listeners('uncaughtException'), unhandled: process.listeners('unhandledRejection') });

describe('the run guard (simulate)', () => {
  it('turns process.exit(0) inside a reconcile into a recorded escape, never a host exit', async () => {
    const before = globals();
    const { run } = await simulate(scenario, { controllers: [controller(() => process.exit(0))], tailMs: 0 });
    expect(run.escapes?.[0]).toMatchObject({ kind: 'exit', code: 0, message: 'process.exit(0)' });
    expect(run.escapes?.[0]?.stack).toContain('run-guard.test.ts');
    expect(globals()).toEqual(before);
  });

  it('records an exception thrown from a real timer with its stack, and clears pending timers at the end', async () => {
    let ticks = 0;
    const { run } = await simulate(scenario, {
      controllers: [
        controller(async () => {
          setTimeout(() => {
            throw new Error('boom from a timer');
          }, 0);
          setInterval(() => ticks++, 1);
          setTimeout(() => ticks++, 60_000);
          // let the throwing timer come due, then give the event loop two turns (check, timers, check)
          const until = performance.now() + 3;
          while (performance.now() < until);
          await new Promise((r) => globalThis.setImmediate(r));
          await new Promise((r) => globalThis.setImmediate(r));
        }),
      ],
      tailMs: 0,
    });
    expect(run.escapes?.[0]).toMatchObject({ kind: 'uncaught', message: 'Error: boom from a timer', where: 'a setTimeout callback (a real timer)' });
    expect(run.escapes?.[0]?.stack).toContain('run-guard.test.ts');
    expect(run.realTimers).toMatchObject({ setInterval: 1 });
    expect(run.realTimers!.setTimeout).toBeGreaterThanOrEqual(2);
    expect(run.realTimers!.setImmediate).toBeGreaterThanOrEqual(2);
    // the interval and the long timeout were still pending: cleared when the run ended
    expect(run.realTimers!.clearedAtEnd).toBeGreaterThanOrEqual(2);
    const after = ticks;
    await new Promise((r) => setTimeout(r, 30));
    expect(ticks).toBe(after);
  });

  it('records an unhandled rejection of the run and keeps it from vitest and Node', async () => {
    const { run } = await simulate(scenario, {
      controllers: [
        controller(async () => {
          void Promise.reject(new Error('nobody awaits me'));
          await new Promise((r) => globalThis.setImmediate(r));
        }),
      ],
      tailMs: 0,
    });
    expect(run.escapes?.[0]).toMatchObject({ kind: 'unhandled-rejection', code: 1, message: 'Error: nobody awaits me' });
  });

  it('restores every global after a run that throws', async () => {
    const before = globals();
    await expect(simulate({ ...scenario, controllers: [{ name: 'nobody' }] }, { controllers: [controller(() => undefined)] })).rejects.toThrow(/no controller of that name/);
    expect(globals()).toEqual(before);
  });

  it('gives a native run no async context (its promise hook would slow every reconcile)', async () => {
    const { hostContext } = await import('../../../src/host/host-context.js');
    const seen: unknown[] = [];
    await simulate(scenario, { controllers: [controller(() => void seen.push(hostContext.getStore()))], tailMs: 0 });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s === undefined)).toBe(true);
  });

  it('leaves a correct run without escapes or real timers', async () => {
    const { run } = await simulate(scenario, { controllers: [controller(() => undefined)], tailMs: 0 });
    expect(run.escapes).toEqual([]);
    expect(run.realTimers).toBeUndefined();
  });

  it('never calls through to itself when a wrapper of its own timers was left as the global (a timed-out check still running)', async () => {
    const real = { setTimeout: globalThis.setTimeout, setImmediate: globalThis.setImmediate, clearTimeout: globalThis.clearTimeout };
    // a wrapper taken of the guard's timers during a run (the determinism self-check's host probe
    // wraps the globals around its re-run) and put back after the run by the check that kept it
    let guards: typeof real | undefined;
    await simulate(scenario, { controllers: [controller(() => void (guards ??= { setTimeout: globalThis.setTimeout, setImmediate: globalThis.setImmediate, clearTimeout: globalThis.clearTimeout }))], tailMs: 0 });
    const wrapped = {
      setTimeout: ((...a: Parameters<typeof setTimeout>) => guards!.setTimeout(...a)) as typeof setTimeout,
      setImmediate: ((...a: Parameters<typeof setImmediate>) => guards!.setImmediate(...a)) as typeof setImmediate,
      clearTimeout: ((t: Parameters<typeof clearTimeout>[0]) => guards!.clearTimeout(t)) as typeof clearTimeout,
    };
    Object.assign(globalThis, wrapped);
    try {
      let fired = 0;
      const { run } = await simulate(scenario, { controllers: [controller(async () => {
        clearTimeout(setTimeout(() => fired++, 60_000));
        await new Promise<void>((resolve) => setImmediate(resolve));
        fired++;
      })], tailMs: 0 });
      expect(run.escapes).toEqual([]);
      expect(fired).toBeGreaterThan(0);
      // outside a run too
      await new Promise<void>((resolve) => setTimeout(resolve, 1));
    } finally {
      Object.assign(globalThis, real);
    }
  });
});

describe('check with a controller that exits', () => {
  it('fails never-exits whatever properties were asked for', async () => {
    const exits = controller(() => process.exit(0));
    const result = await check(exits, { runs: 3, seed: 7, properties: [], faults: [], objects: { kind: 'WebApp', spec: { replicas: 1 } } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.property).toBe('never-exits');
    expect(result.summary).toMatch(/called process\.exit\(0\)/);
    expect(result.explanation).toMatch(/^Let: the code under test call process\.exit\(0\)/);
    expect(result.explanation).toMatch(/Stack, innermost call first:\n {2}at /);
  });
});

describe('the settle phase', () => {
  it('records the relist it does for the native runtime, and the report notes say so', async () => {
    const { runNotes } = await import('../../../src/report/result.js');
    const { run } = await simulate(scenario, { controllers: [controller(() => undefined)], tailMs: 0 });
    expect(run.trace.filter((e) => e.type === 'settle:relist')).toEqual([{ t: 1000, type: 'settle:relist', controllers: ['web'] }]);
    expect(runNotes(run).join('\n')).toMatch(/When the settle phase began \(t=1\.000s\) steadystate relisted every informer of web once/);
  });
});
