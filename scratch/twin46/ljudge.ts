import { readFileSync, writeFileSync } from 'node:fs';
import { check, type Scenario } from '../../src/index.js';
import { falsePositiveCorpus } from '../../examples/false-positives/index.js';
import { faultsFor, huntTargets, propertiesFor } from '../../bench/hunt-targets.js';

// usage: npx tsx scratch/twin46/judge.ts <scenario.json> [--shrink] [--buggy] [--out shrunk.json]
const [file, ...rest] = process.argv.slice(2);
const c = falsePositiveCorpus.find((x) => x.name === 'lease-cron')!;
const t = huntTargets.find((x) => x.name === 'corpus:lease-cron')!;
const scenario = JSON.parse(readFileSync(file!, 'utf8')) as Scenario;
const shrink = rest.includes('--shrink');
const controllers = rest.includes('--buggy') ? c.buggy!.controllers : t.controllers;
const out = await check([...controllers], { ...t.options, faults: faultsFor(t, []), properties: propertiesFor(t, []), runs: 1, seed: 1, shrink, corpus: { scenarios: [scenario] } });
if (out.ok) console.log('passed');
else {
  console.log(`${out.property}: ${out.summary}\n${out.explanation}`);
  console.log(JSON.stringify(out.scenario));
  const o = rest.indexOf('--out');
  if (o >= 0) writeFileSync(rest[o + 1]!, JSON.stringify(out.scenario));
}
