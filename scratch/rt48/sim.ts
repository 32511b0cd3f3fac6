// npx tsx scratch/rt48/sim.ts <case> <scenario-json-file> [buggy] : one scenario; downstream requests and final objects
import { readFileSync } from 'node:fs';
import { simulate, type Scenario } from '../../src/index.js';
import { cases } from './cases.js';
const [name, file, variant] = process.argv.slice(2);
const c = cases.find((x) => x.name === name)!;
const s = JSON.parse(readFileSync(file!, 'utf8')) as Scenario;
const { run } = await simulate(s, { controllers: variant === 'buggy' ? c.buggy : c.controllers, ...c.options } as never);
for (const r of run.requests ?? []) console.log(String(r.t).padStart(7), r.method, r.url, r.status, r.outcome, r.fault ?? '');
for (const o of run.finalObjects) console.log(o.kind, o.metadata.name, JSON.stringify(o.status).slice(0, 300));
