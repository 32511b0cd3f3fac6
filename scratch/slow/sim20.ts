// npx tsx scratch/slow/sim20.ts <case> <scenario.json> [early]: one simulation of the scenario with the default properties (early stops only with `early`), CPU, counts, verdicts
import { readFileSync } from 'node:fs';
import { simulate } from '../../src/index.js';
import { defaultProperties } from '../../src/defaults.js';
import { cases } from './fixtures/controllers.js';
const [name, file, early] = process.argv.slice(2);
const c = cases.find((x) => x.name === name)!;
const cpu = () => (process.cpuUsage().user + process.cpuUsage().system) / 1000;
const c0 = cpu();
const properties = defaultProperties();
const r = await simulate(JSON.parse(readFileSync(file!, 'utf8')), { controllers: c.controllers, properties, earlyStop: early === 'early', ...(c.options.environment ? { environment: c.options.environment } : {}) } as never);
const c1 = cpu();
const run = r.run as unknown as { trace: { type: string; t: number }[]; writes: { t: number; actor: string; verb: string; kind: string; key: string; error?: string }[]; timing: unknown };
const counts = new Map<string, number>();
for (const w of run.writes) counts.set(`${w.actor} ${w.verb} ${w.kind}${w.error ? ' ERR' : ''}`, (counts.get(`${w.actor} ${w.verb} ${w.kind}${w.error ? ' ERR' : ''}`) ?? 0) + 1);
const types = new Map<string, number>();
for (const e of run.trace) types.set(e.type, (types.get(e.type) ?? 0) + 1);
console.log('sim cpu ms', Math.round(c1 - c0), 'trace', run.trace.length, 'writes', run.writes.length, 'timing', JSON.stringify(run.timing));
console.log([...counts].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([k, v]) => `${v}\t${k}`).join('\n'));
console.log([...types].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([k, v]) => `${v}\t${k}`).join('\n'));
// writes per 5 s of virtual time
const per = new Map<number, number>();
for (const w of run.writes) per.set(Math.floor(w.t / 5000) * 5, (per.get(Math.floor(w.t / 5000) * 5) ?? 0) + 1);
console.log('writes per 5 s:', [...per].map(([k, v]) => `${k}s:${v}`).join(' '));
for (const p of properties) {
  if (p.needsTwin) continue;
  const c2 = cpu();
  let v: unknown;
  try { v = p.judge(r.run as never); } catch (e) { v = `threw ${String(e)}`; }
  const ok = typeof v === 'object' && v !== null && 'ok' in v ? (v as { ok: boolean; summary?: string; why?: string }) : undefined;
  console.log('judge', p.name, Math.round(cpu() - c2), 'ms', ok ? (ok.ok ? 'ok' : `FAIL ${ok.summary}`) : String(v), ok && 'why' in ok ? ok.why : '');
}
