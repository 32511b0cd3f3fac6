// npx tsx scratch/slow/dump20.ts <case> <run> <seed> [big]: writes the scenario of that run (1-based) to scratch/slow/run<run>.json and exits
import { writeFileSync } from 'node:fs';
import { check } from '../../src/index.js';
import { cases } from './fixtures/controllers.js';
const [name, run, seed, big] = process.argv.slice(2);
const c = cases.find((x) => x.name === name)!;
const seen: number[] = [];
await check(c.controllers, { ...c.options, ...(big ? { maxObjects: 4, maxActions: 8 } : {}), runs: Number(run), seed: Number(seed), shrink: false, onSimulation: (s: unknown, i: number | undefined) => {
  if (i === undefined) return;
  if (!seen.includes(i)) seen.push(i);
  if (seen.length === Number(run)) { writeFileSync(new URL(`./run${run}.json`, import.meta.url), JSON.stringify(s, null, 1)); console.log('index', i); process.exit(0); }
} } as never);
