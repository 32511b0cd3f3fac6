// npx tsx scratch/rt46/sim-summary.ts <case> <scenario.json> [buggy]: counts of writes per actor/verb/kind, and the final objects of interest
import { readFileSync } from 'node:fs';
import { simulate } from '../../src/index.js';
import { cases } from './fixtures/controllers.js';
const [name, file, buggy] = process.argv.slice(2);
const c = cases.find((x) => x.name === name)!;
const t0 = performance.now();
const r = await simulate(JSON.parse(readFileSync(file!, 'utf8')), { controllers: buggy ? c.buggy! : c.controllers, ...(c.options.downstream ? { downstream: c.options.downstream } : {}), ...(c.options.environment ? { environment: c.options.environment } : {}) } as never);
const run = r.run as unknown as { writes: { t: number; actor: string; verb: string; kind: string; key: string; error?: string }[]; finalObjects: { kind: string; metadata: { name: string; deletionTimestamp?: string; finalizers: string[] } }[]; timing: unknown };
const counts = new Map<string, number>();
for (const w of run.writes) counts.set(`${w.actor} ${w.verb} ${w.kind}${w.error ? ' ERR' : ''}`, (counts.get(`${w.actor} ${w.verb} ${w.kind}${w.error ? ' ERR' : ''}`) ?? 0) + 1);
console.log([...counts].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => `${v}\t${k}`).join('\n'));
console.log('final:', run.finalObjects.filter((o) => !['Namespace', 'Lease'].includes(o.kind)).map((o) => `${o.kind}/${o.metadata.name}${o.metadata.deletionTimestamp ? ' (deleting ' + o.metadata.finalizers.join(',') + ')' : ''}`).join(' '));
console.log('timing', JSON.stringify(run.timing), Math.round(performance.now() - t0), 'ms');
