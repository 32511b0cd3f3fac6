// npx tsx scratch/rt/replay.ts <case> <scenario.json> [buggy]: a saved scenario of a fixture case, judged by check with the case's options
import { readFileSync } from 'node:fs';
import { check, type Scenario } from '../../src/index.js';
import { cases } from './fixtures/controllers.js';
const [name, file, buggy] = process.argv.slice(2);
const c = cases.find((x) => x.name === name)!;
const s = JSON.parse(readFileSync(file!, 'utf8')) as Scenario;
const r = await check(buggy ? c.buggy! : c.controllers, { ...c.options, corpus: { scenarios: [s] }, runs: 1, seed: 1, shrink: false } as never);
console.log(r.ok ? 'PASS' : `FAIL ${r.property}: ${r.summary}`);
