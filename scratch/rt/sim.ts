// npx tsx scratch/rt46/sim.ts <case> <scenario.json> : prints the requests and the controller's writes of one run
import { readFileSync } from 'node:fs';
import { simulate } from '../../src/index.js';
import { cases } from './fixtures/controllers.js';
const [name, file, buggy] = process.argv.slice(2);
const c = cases.find((x) => x.name === name)!;
const scenario = JSON.parse(readFileSync(file!, 'utf8'));
const r = await simulate(scenario, { controllers: buggy ? c.buggy! : c.controllers, ...(c.options.downstream ? { downstream: c.options.downstream } : {}), ...(c.options.environment ? { environment: c.options.environment } : {}) } as never);
const run = r.run as unknown as { requests: { method: string; url: string; status: number; at: number }[]; writes: { at: number; actor: string; verb?: string; kind: string; key: string; outcome?: string }[] };
for (const q of run.requests ?? []) console.log("REQ", JSON.stringify(q).slice(0, 300));
for (const t of ((r.run as unknown as {trace: unknown[]}).trace ?? []).slice(0, Number(process.env.TRACE ?? 0))) console.log("T", JSON.stringify(t).slice(0, 300));
console.log(Object.keys(r.run));
const rr = r.run as unknown as Record<string, unknown[]>;
console.log('trace', rr['trace']?.length, 'writes', rr['writes']?.length, 'requests', rr['requests']?.length);
for (const w of (rr['writes'] ?? []).slice(0, Number(process.env.W ?? 30))) console.log('W', JSON.stringify(w).slice(0, 250));
