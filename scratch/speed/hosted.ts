// CPU of a hosted check: the template-hash operator (correct), 30 runs
import { check, defineProgram } from '../../src/index.js';
const deployment = (image: string, replicas: number) => ({ replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } } });
const p = defineProgram({ entry: 'examples/operators/template-hash/correct.ts', for: 'Deployment', name: 'template-hash', sample: [deployment('nginx:1.27', 1), deployment('nginx:1.28', 2)] } as never);
await check(p, { runs: 3, seed: 1 });
const c0 = process.cpuUsage();
const r = await check(p, { runs: Number(process.argv[2] ?? 30), seed: 2 });
const c = process.cpuUsage(c0);
console.log(`hosted check ${r.runs} runs ok ${r.ok} cpu ${((c.user + c.system) / 1000).toFixed(0)} ms`);
