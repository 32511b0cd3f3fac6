import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineProgram, simulate, type Scenario } from '../../../src/index.js';
import type { TraceEntry } from '../../../src/sim/trace.js';
import { runOnce } from './programs/hash-scenario.js';

const program = (file: string) => fileURLToPath(new URL(`./programs/${file}`, import.meta.url));

function scenario(over: Partial<Scenario> = {}): Scenario {
  return { seed: 3, controllers: [{ name: 'p' }], initialObjects: [], workload: [], faults: { events: [], background: [] }, options: { faultWindowMs: 5_000, settleMs: 5_000 }, ...over };
}

const writes = (trace: TraceEntry[]) => trace.filter((e) => e.type === 'store:write' && e['verb'] === 'create' && e['kind'] === 'ConfigMap');
const configMap = (run: { finalObjects: { kind: string; metadata: { name: string }; data?: Record<string, string> }[] }, name: string) => run.finalObjects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name)?.data;

describe('a hosted program: timers, clocks, env, argv, console', () => {
  it('fires its timers at their virtual times, never on the real clock, with Date and performance on the simulated clock', async () => {
    const p = defineProgram({ entry: program('timer.ts'), for: 'ConfigMap', name: 'p', args: ['--verbose'], requestLatencyMs: 5 });
    const { run } = await simulate(scenario(), { controllers: [p], tailMs: 0 });
    // nothing waited on the host's clock: every timer was virtual
    expect(run.realTimers).toBeUndefined();
    const at = Object.fromEntries(writes(run.trace).map((w) => [String(w['key']).split('/')[1] ?? '', w.t]));
    // the interval ran twice, the timeout made a third step, so the interval's third tick cleared it
    expect(at).toEqual({ 'p-0-tick-0': 1_005, 'p-0-tick-1': 2_005, 'p-0-timeout': 2_505, 'p-0-slept': 4_005 });
    const data = configMap(run, 'p-0-timeout')!;
    expect(data['date']).toBe(new Date(Date.UTC(2026, 0, 1) + 2_500).toISOString());
    expect(data['perf']).toBe('2500');
    expect(data['loadedAt']).toBe(String(Date.UTC(2026, 0, 1)));
    expect(data['host']).toBe('p-0');
    expect(data['args']).toBe('--verbose');
    const logs = run.trace.filter((e) => e.type === 'log').map((e) => `${String(e['level'])} ${String(e['message'])}`);
    expect(logs).toEqual(['info started as p-0 with --verbose', 'error done sleeping']);
    expect(run.escapes).toEqual([]);
  });

  it('keeps the timers of two replicas apart (ids, clears, environment)', async () => {
    const p = defineProgram({ entry: program('timer.ts'), for: 'ConfigMap', name: 'p' });
    const { run } = await simulate(scenario({ controllers: [{ name: 'p', replicas: 2 }] }), { controllers: [p], tailMs: 0 });
    const names = writes(run.trace).map((w) => String(w['key']).split('/')[1] ?? '').sort();
    for (const r of ['p-0', 'p-1']) expect(names.filter((n) => n.startsWith(`${r}-`))).toEqual([`${r}-slept`, `${r}-tick-0`, `${r}-tick-1`, `${r}-timeout`]);
    expect(configMap(run, 'p-1-slept')!['host']).toBe('p-1');
  });

  it('restores every global it replaced, after a run and after a run that failed', async () => {
    const before = { Date: globalThis.Date, now: Date.now, perf: performance.now, env: process.env, argv: process.argv, log: console.log, write: process.stdout.write, setTimeout: globalThis.setTimeout, exit: process.exit, hrtime: process.hrtime };
    const p = defineProgram({ entry: program('timer.ts'), for: 'ConfigMap', name: 'p' });
    await simulate(scenario(), { controllers: [p], tailMs: 0 });
    await expect(simulate(scenario({ controllers: [{ name: 'p' }, { name: 'missing' }] }), { controllers: [p], tailMs: 0 })).rejects.toThrow(/missing/);
    const after = { Date: globalThis.Date, now: Date.now, perf: performance.now, env: process.env, argv: process.argv, log: console.log, write: process.stdout.write, setTimeout: globalThis.setTimeout, exit: process.exit, hrtime: process.hrtime };
    expect(after).toEqual(before);
    expect(Object.keys(after).filter((k) => after[k as keyof typeof after] !== before[k as keyof typeof before])).toEqual([]);
  });
});

describe('a hosted program: deaths and restarts', () => {
  for (const [how, kind, code, message] of [
    ['exit', 'exit', 3, 'process.exit(3)'],
    ['throw', 'uncaught', 1, 'Error: thrown from a timer'],
    ['reject', 'unhandled-rejection', 1, 'Error: nobody handles this'],
  ] as const) {
    it(`${how}: a recorded exit, then a restart after CrashLoopBackOff that re-evaluates the module`, async () => {
      const p = defineProgram({ entry: program('restarts.ts'), for: 'ConfigMap', name: 'p', env: { EXIT_HOW: how } });
      const before = (globalThis as { __steadystateLoads?: number }).__steadystateLoads ?? 0;
      const { run } = await simulate(scenario({ options: { faultWindowMs: 20_000, settleMs: 20_000 } }), { controllers: [p], tailMs: 0 });
      const exits = run.trace.filter((e) => e.type === 'process:exit');
      expect(exits.map((e) => [e.t, e['kind'], e['code'], e['message'], e['restartInMs'], e['incarnation']])).toEqual([
        [1_005, kind, code, message, 10_000, 1],
        [12_010, kind, code, message, 20_000, 2],
        [33_015, kind, code, message, 40_000, 3],
      ]);
      expect(exits[0]!['lastOutput']).toBe(`wrote load-${before + 1}`);
      expect(String(exits[0]!['at'] ?? exits[0]!['stack'])).toMatch(/restarts\.ts:\d+/);
      // each incarnation evaluated the module afresh: its module-level counter starts at 1 again
      expect(configMap(run, `load-${before + 1}`)).toMatchObject({ moduleLoads: '1', at: '2026-01-01T00:00:00.000Z' });
      expect(configMap(run, `load-${before + 2}`)).toMatchObject({ moduleLoads: '1', at: '2026-01-01T00:00:11.005Z' });
      expect(run.trace.filter((e) => e.type === 'controller:start').map((e) => e.t)).toEqual([0, 11_005, 32_010]);
      expect(run.escapes).toEqual([]);
    });
  }

  it('a CommonJS program gets a fresh module instance per incarnation too', async () => {
    const p = defineProgram({ entry: program('restarts.cjs'), for: 'ConfigMap', name: 'p', restartBackoff: { initialMs: 1_000 } });
    const { run } = await simulate(scenario(), { controllers: [p], tailMs: 0 });
    const loads = run.finalObjects.filter((o) => o.kind === 'ConfigMap').map((o) => o.data?.['loads']);
    expect(loads.length).toBeGreaterThanOrEqual(3);
    expect(new Set(loads)).toEqual(new Set(['1']));
  });
});

describe('a hosted program: determinism', () => {
  it('the same scenario gives the same trace hash twice in this process and in another process', async () => {
    const { spawnSync } = await import('node:child_process');
    const other = spawnSync(process.execPath, ['--import', 'tsx', program('print-hash.ts')], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(other.status, other.stderr).toBe(0);
    const { run } = await runOnce();
    const again = await runOnce();
    expect(again.run.hash).toBe(run.hash);
    expect(run.trace.some((e) => e.type === 'process:exit')).toBe(true);
    expect(`${run.hash} ${run.trace.length}`).toBe(other.stdout.trim());
  });

  it('a CommonJS program is deterministic from its first run in a process, though a library it requires sets a timer at its first evaluation only (red team round 9 CJS-1)', async () => {
    // the library's timer ended the load hold while the program still imported its client (its
    // first run never wrote), and took the id its schedules are named by; a process of its own,
    // so the library is evaluated in the first run
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, ['--import', 'tsx', program('run-cjs-first-load.ts')], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' }, timeout: 120_000 });
    expect({ status: r.status, out: r.stdout.trim() }, r.stderr).toEqual({ status: 0, out: 'default/tick-1@1.1 default/tick-2@1.1 default/tick-3@1.1\ndeterministic' });
  }, 150_000);
});
