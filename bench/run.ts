/**
 * `npm run bench`: every measurement in one process, printed as one table. Ratios are measured
 * in the same run; nothing here gates CI.
 */
import type { BenchRow } from './types.js';

type Bench = () => Promise<BenchRow[]>;

async function optional(path: string, name: string): Promise<Bench | undefined> {
  try {
    const mod = (await import(path)) as Record<string, unknown>;
    const fn = mod[name];
    return typeof fn === 'function' ? (fn as Bench) : undefined;
  } catch (err) {
    console.error(`(skipping ${path}: ${err instanceof Error ? err.message : String(err)})`);
    return undefined;
  }
}

/** Benches that run only when named (`npm run bench hostedexamples`): minutes, not seconds. */
const onRequest = new Set(['benchHostedExamples']);

const benches: [string, string][] = [
  ['./reconciles-per-second.js', 'benchReconcilesPerSecond'],
  ['./reference-experiment.js', 'benchReferenceExperiment'],
  ['./reconciles-per-second.js', 'benchWorldSize'],
  ['./check.js', 'benchCheck'],
  ['./hot-loop.js', 'benchHotLoop'],
  ['./downstream.js', 'benchDownstream'],
  ['./kube-rest.js', 'benchKubeRest'],
  ['./hosted-examples.js', 'benchHostedExamples'],
  ['./workers.js', 'benchWorkers'],
  ['./waste.js', 'benchWaste'],
  ['./waste.js', 'benchThreadsVersusProcesses'],
  ['./cli.js', 'benchCli'],
  ['./startup.js', 'benchStartup'],
  ['./heap.js', 'benchHeap'],
  ['./search.js', 'benchSearch'],
];

const filter = process.argv[2];
const rows: BenchRow[] = [];
for (const [path, name] of benches) {
  if (filter ? !name.toLowerCase().includes(filter.toLowerCase()) : onRequest.has(name)) continue;
  const fn = await optional(path, name);
  if (!fn) continue;
  process.stderr.write(`running ${name}…\n`);
  rows.push(...(await fn()));
}

const fmt = (v: number) => (v >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(2));
const w = Math.max(...rows.map((r) => r.name.length), 10);
console.log(`${'measure'.padEnd(w)}  ${'value'.padStart(14)}  target`);
console.log(`${'-'.repeat(w)}  ${'-'.repeat(14)}  ------`);
for (const r of rows) console.log(`${r.name.padEnd(w)}  ${(fmt(r.value) + ' ' + r.unit).padStart(14)}  ${r.target ?? ''}`);
