import { readFileSync } from 'node:fs';
import { check, type Scenario } from '../../src/index.js';
import { falsePositiveCorpus } from '../../examples/false-positives/index.js';
import { propertiesOf } from '../../test/helpers/false-positives.js';
// usage: npx tsx scratch/twin46/judge.ts <case> <scenario.json> [--buggy]: judged as the regression test does
const [name, file, ...rest] = process.argv.slice(2);
const c = falsePositiveCorpus.find((x) => x.name === name)!;
const scenario = JSON.parse(readFileSync(file!, 'utf8')) as Scenario;
const controllers = rest.includes('--buggy') ? c.buggy!.controllers : c.controllers;
const t0 = process.cpuUsage();
const out = await check(controllers, { ...c.options, properties: propertiesOf(c), runs: 1, seed: 1, shrink: false, corpus: { scenarios: [scenario] } });
console.log(out.ok ? 'passed' : `${out.property}: ${out.summary}`, `cpu ${((process.cpuUsage(t0).user) / 1e6).toFixed(1)}s`);
