import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { check, defineController, simulate, type Scenario } from '../src/index.js';
import { defaultProperties } from '../src/defaults.js';
import { Trace, type TraceEntry } from '../src/sim/trace.js';
import { staleSnapshot } from '../examples/bug-zoo/stale-snapshot/scenario.js';
import { runReferenceExperiment } from '../examples/replicas/experiment.js';
import type { BenchRow } from './types.js';

/**
 * Issue 16, "a simulator that wastes nothing": the three single-thread targets measured on the
 * process's CPU time (the machine is shared; wall time there says little), the bytes allocated
 * per reconcile (V8's sampling heap profiler, counting objects the GC already collected), and
 * how two simulating threads compare with two child processes. Each of the three workloads runs
 * in a child process of its own: measured in one process after the others, a workload pays for
 * their JIT feedback and heap (the reference experiment took 1.6 s there against 1.05 s alone).
 */

/** The three workloads of {@link benchWaste}, each measured by {@link wasteRows} in its own process. */
export const WASTE_WORKLOADS = ['zoo', 'hot', 'ref'] as const;
export type WasteWorkload = (typeof WASTE_WORKLOADS)[number];

/** A controller that writes status on every reconcile: the hot loop of the store. */
const hot = defineController({
  name: 'hot',
  for: 'Thing',
  async reconcile(ctx) {
    const t = await ctx.client.tryGet<{ i: number }, { n?: number }>('Thing', ctx.key);
    if (!t) return;
    await ctx.client.updateStatus({ ...t, status: { n: ctx.clock.now() } });
  },
});

/** One Thing, watch latency 1 ms: a write per virtual millisecond for `ms`. */
function hotScenario(ms: number): Scenario {
  return {
    seed: 1,
    controllers: [{ name: 'hot' }],
    initialObjects: [],
    workload: [{ at: 0, type: 'create', object: { kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { i: 1 } } }],
    faults: { events: [], background: [] },
    options: { faultWindowMs: ms, settleMs: 0 },
  };
}

/**
 * CPU ms of this process's main thread and of all its threads, from /proc (Linux; undefined
 * elsewhere). Node 20 has no per-thread CPU clock, and V8's GC and compiler threads are what
 * keeps a second simulating thread from scaling on 2 cores.
 */
function threadCpu(): { main: number; all: number } | undefined {
  try {
    const tick = 10; // USER_HZ = 100 on Linux
    let main = 0;
    let all = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(f[11]) + Number(f[12])) * tick; // utime, stime (fields 14 and 15)
      all += ms;
      if (Number(tid) === process.pid) main = ms;
    }
    return { main, all };
  } catch {
    return undefined;
  }
}

interface Measured<T> {
  value: T;
  cpuMs: number;
  /** CPU of the main (simulating) thread, when /proc tells. */
  mainCpuMs?: number;
  /** Bytes allocated (including objects already collected), when asked. */
  bytes?: number;
  /** reconcile:start entries of every trace (counted in the run under the heap sampler only, else 0). */
  reconciles: number;
}

/** Runs `body` once, measuring process CPU and counting reconcile:start entries of every trace. */
async function measure<T>(body: () => Promise<T>, allocation: boolean): Promise<Measured<T>> {
  let reconciles = 0;
  const push = Trace.prototype.push;
  // reconciles are counted (for bytes per reconcile) only in the run under the heap sampler: the
  // CPU runs use the trace's own push
  if (allocation) {
    Trace.prototype.push = function (this: Trace, e: TraceEntry) {
      if (e.type === 'reconcile:start') reconciles++;
      push.call(this, e);
    };
  }
  let session: Session | undefined;
  try {
    if (allocation) {
      session = new Session();
      session.connect();
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    }
    const t0 = threadCpu();
    const c0 = process.cpuUsage();
    const value = await body();
    const c = process.cpuUsage(c0);
    const t1 = threadCpu();
    let bytes: number | undefined;
    if (session) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      const total = (n: { selfSize: number; children: typeof n[] }): number => n.children.reduce((sum, c) => sum + total(c), n.selfSize);
      bytes = total(profile.head);
    }
    const cpuMs = (c.user + c.system) / 1000;
    return { value, cpuMs, reconciles, ...(t0 && t1 ? { mainCpuMs: t1.main - t0.main } : {}), ...(bytes !== undefined ? { bytes } : {}) };
  } finally {
    Trace.prototype.push = push;
    session?.disconnect();
  }
}

/**
 * CPU of the median of three runs, plus one run under the heap sampler for bytes per reconcile,
 * and the CPU of the first run (it still pays for most of the JIT compiling, on helper threads).
 */
async function measured<T>(body: () => Promise<T>): Promise<Measured<T> & { bytesPerReconcile: number; firstCpuMs: number }> {
  const runs: Measured<T>[] = [];
  for (let i = 0; i < 3; i++) runs.push(await measure(body, false));
  const firstCpuMs = runs[0]!.cpuMs;
  runs.sort((a, b) => a.cpuMs - b.cpuMs);
  const mid = runs[1]!;
  const a = await measure(body, true);
  return { ...mid, bytesPerReconcile: (a.bytes ?? 0) / Math.max(1, a.reconciles), firstCpuMs };
}

/**
 * What one simulating thread costs beyond itself: V8's helper threads' CPU per main-thread CPU,
 * and the ceiling that leaves for 2 simulating threads on 2 cores (what the helpers need comes out of
 * the same 2 cores). Read from /proc, so it holds on a shared machine too, where wall-clock ratios
 * of threads do not.
 */
function threadRows(label: string, m: Measured<unknown>): BenchRow[] {
  if (m.mainCpuMs === undefined || m.mainCpuMs <= 0) return [];
  const helpers = (m.cpuMs - m.mainCpuMs) / m.mainCpuMs;
  return [
    { name: `${label}: CPU of V8's helper threads per CPU of the simulating thread`, value: helpers, unit: '×' },
    { name: `${label}: so 2 simulating threads on 2 cores reach at most`, value: Math.min(2, 2 / (1 + helpers)), unit: '×', target: '≥ 1.6×' },
  ];
}

const kb = (b: number): number => b / 1024;

export async function benchWaste(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const w of WASTE_WORKLOADS) rows.push(...(await inChild(w)));
  return rows;
}

/** {@link wasteRows} of one workload in a fresh child process (bench/waste-child.ts `waste <workload>`). */
function inChild(workload: WasteWorkload): Promise<BenchRow[]> {
  const script = fileURLToPath(new URL('./waste-child.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), script, 'waste', workload], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.once('error', reject);
    p.once('exit', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && last.startsWith('[')) resolve(JSON.parse(last) as BenchRow[]);
      else reject(new Error(`bench/waste-child.ts waste ${workload} exited ${code}: ${out.slice(-500)}`));
    });
  });
}

/** The rows of one workload, measured in this process. */
export async function wasteRows(workload: WasteWorkload): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];

  if (workload === 'zoo') {
    // zoo: the stale-snapshot ReplicaSet (correct), every fault and property, 300 scenarios
    const entry = staleSnapshot;
    const own = new Map(entry.properties.map((p) => [p.name, p]));
    const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
    await check(entry.correct, { ...entry.options, properties, runs: 50, seed: 1, shrink: false });
    const zoo = await measured(() => check(entry.correct, { ...entry.options, properties, runs: 300, seed: 2, shrink: false }));
    rows.push({ name: `zoo ReplicaSet check, ${zoo.value.runs} scenarios, one thread (CPU time)`, value: (1000 * zoo.value.runs) / zoo.cpuMs, unit: 'scen/s', target: '≥ 1,000' });
    rows.push({ name: 'zoo check: allocated per reconcile', value: kb(zoo.bytesPerReconcile), unit: 'KiB' });
    rows.push(...threadRows('zoo check', zoo));
  }

  if (workload === 'hot') {
    // hot loop: one object written on every reconcile, 70 s of virtual time
    await simulate(hotScenario(2000), { controllers: [hot] });
    const hotRun = await measured(async () => (await simulate(hotScenario(70_000), { controllers: [hot] })).run.writes.length);
    rows.push({ name: `hot-loop simulation, ${hotRun.value.toLocaleString('en-US')} store writes (CPU time)`, value: (1000 * hotRun.value) / hotRun.cpuMs, unit: 'writes/s', target: '≥ 200,000' });
    rows.push({ name: 'hot loop: allocated per reconcile', value: kb(hotRun.bytesPerReconcile), unit: 'KiB' });
    rows.push(...threadRows('hot loop', hotRun));
  }

  if (workload === 'ref') {
    // the reference experiment, 2 × 2,000 trials
    await runReferenceExperiment({ trials: 100 });
    const ref = await measured(() => runReferenceExperiment({ trials: 2000 }));
    rows.push({ name: 'reference experiment, 2 × 2,000 trials (CPU time)', value: ref.cpuMs, unit: 'ms', target: '≤ 1,000 ms' });
    rows.push({ name: 'reference experiment, its first 2 × 2,000 run (CPU time, JIT compiling included)', value: ref.firstCpuMs, unit: 'ms' });
    rows.push({ name: 'reference experiment: allocated per reconcile', value: kb(ref.bytesPerReconcile), unit: 'KiB' });
    rows.push(...threadRows('reference experiment', ref));
  }

  return rows;
}

/**
 * The same check (the workers bench's target, `runs` scenarios) once alone and twice at the same
 * time, as two worker threads of one process and as two child processes: the ratio is the
 * throughput two give over one (2.0 is perfect scaling). Measured back to back, so both see the
 * same machine load.
 */
export async function benchThreadsVersusProcesses(runs = 1000): Promise<BenchRow[]> {
  const script = fileURLToPath(new URL('./waste-child.ts', import.meta.url));
  const tsx = import.meta.resolve('tsx');
  /** Starts children, waits until all are loaded and warm, starts them together: the slowest one's check time. */
  const together = async (argvs: string[][]): Promise<number> => {
    const kids = argvs.map((argv) => {
      const p = spawn(process.execPath, ['--import', tsx, script, ...argv], { stdio: ['pipe', 'pipe', 'inherit'] });
      const lines: string[] = [];
      let waiting: (() => void) | undefined;
      let buf = '';
      p.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          lines.push(buf.slice(0, i));
          buf = buf.slice(i + 1);
          waiting?.();
        }
      });
      const line = (n: number): Promise<string> =>
        new Promise((resolve, reject) => {
          const poll = (): void => (lines.length > n ? resolve(lines[n]!) : void (waiting = poll));
          p.once('exit', (code) => (lines.length > n ? resolve(lines[n]!) : reject(new Error(`bench/waste-child.ts ${argv.join(' ')} exited ${code}`))));
          poll();
        });
      return { p, line };
    });
    await Promise.all(kids.map((k) => k.line(0)));
    for (const k of kids) k.p.stdin.end('go\n');
    return Math.max(...(await Promise.all(kids.map(async (k) => Number(await k.line(1))))));
  };
  const r = String(runs);
  const t1 = await together([['threads', '1', r]]);
  const t2 = await together([['threads', '2', r]]);
  const p1 = await together([['process', r]]);
  const p2 = await together([['process', r], ['process', r]]);
  return [
    { name: `check in 1 worker thread, ${runs} scenarios`, value: (1000 * runs) / t1, unit: '/s' },
    { name: `2 worker threads vs 1, ${runs} scenarios each (throughput)`, value: (2 * t1) / t2, unit: '×', target: '≥ 1.6×' },
    { name: `check in 1 child process, ${runs} scenarios`, value: (1000 * runs) / p1, unit: '/s' },
    { name: `2 child processes vs 1, ${runs} scenarios each (throughput)`, value: (2 * p1) / p2, unit: '×', target: '≥ 1.6×' },
  ];
}
