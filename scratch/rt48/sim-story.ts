// npx tsx scratch/rt48/sim-story.ts <case> [buggy] : the case's story without faults; writes by actor and final objects
import { simulate, type Scenario } from '../../src/index.js';
import { cases } from './cases.js';
const [name, variant] = process.argv.slice(2);
const c = cases.find((x) => x.name === name)!;
const story = (c.options as { story: { objects: unknown[]; actions: unknown[] } }).story;
const s = { seed: 0, controllers: (variant === 'buggy' ? c.buggy : c.controllers).map((x) => ({ name: x.name })), initialObjects: story.objects, workload: story.actions, faults: { events: [], background: [] } } as unknown as Scenario;
const t0 = performance.now();
const { run } = await simulate(s, { controllers: variant === 'buggy' ? c.buggy : c.controllers } as never);
console.log('ms', Math.round(performance.now() - t0), 'writes', run.writes.length);
const by = new Map<string, number>();
for (const w of run.writes) by.set(`${w.actor} ${w.verb ?? ''} ${w.kind}`, (by.get(`${w.actor} ${w.verb ?? ''} ${w.kind}`) ?? 0) + 1);
console.log([...by.entries()].slice(0, 30));
for (const o of run.finalObjects) if (o.kind !== 'Namespace' && o.kind !== 'Lease') console.log(o.kind, o.metadata.namespace, o.metadata.name, JSON.stringify((o as never as { data?: unknown }).data ?? o.status).slice(0, 200));
