// CPU per thread (by name) of one workload of drive.ts (argv[2]: zoo|hot|ref): which V8/Node
// threads besides the main one cost what (from /proc, Linux).
import { readdirSync, readFileSync } from 'node:fs';
import { check, simulate } from '../../src/index.js';
import { defaultProperties } from '../../src/defaults.js';
import { staleSnapshot } from '../../examples/bug-zoo/stale-snapshot/scenario.js';
import { runReferenceExperiment } from '../../examples/replicas/experiment.js';
function perThread(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(f[11]) + Number(f[12])) * 10;
    const k = Number(tid) === process.pid ? 'main' : `${comm} ${tid}`;
    out.set(k, (out.get(k) ?? 0) + ms);
  }
  return out;
}
const w = process.argv[2] ?? 'zoo';
const entry = staleSnapshot;
const own = new Map(entry.properties.map((p) => [p.name, p]));
const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
const body = async (runs: number) => {
  if (w === 'zoo') await check(entry.correct, { ...entry.options, properties, runs, seed: 2, shrink: false });
  if (w === 'ref') await runReferenceExperiment({ trials: runs * 5 });
};
await body(50);
const a = perThread();
const rounds = Number(process.argv[3] ?? 1);
let prev = a;
for (let r = 0; r < rounds; r++) {
  await body(300);
  const b = perThread();
  let main = 0, all = 0;
  for (const [k, v] of b) { const d = v - (prev.get(k) ?? 0); all += d; if (k === 'main') main = d; }
  console.log(`round ${r + 1}: main ${main} ms, helpers ${all - main} ms`);
  prev = b;
}
