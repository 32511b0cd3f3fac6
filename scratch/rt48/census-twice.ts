// npx tsx scratch/rt48/census-twice.ts [cjs|mjs] : the census program on one scenario, twice in one process; first trace difference
import { readFileSync } from 'node:fs';
import { simulate, type Scenario } from '../../src/index.js';
import { cases } from './cases.js';
const name = process.argv[2] === 'mjs' ? 'census-esm' : 'census-pager';
const c = cases.find((x) => x.name === name)!;
const s = JSON.parse(readFileSync('scratch/rt48/census-determinism.json', 'utf8')) as Scenario;
const runs = [];
for (let i = 0; i < 3; i++) runs.push((await simulate(s, { controllers: c.controllers, ...c.options } as never)).run);
const t = runs.map((r) => (r.trace as unknown as Record<string, unknown>[]).map((e) => JSON.stringify(e)));
for (const [a, b] of [[0, 1], [1, 2]] as const) {
  const i = t[a]!.findIndex((e, k) => e !== t[b]![k]);
  console.log(`run ${a + 1} vs ${b + 1}: hashes ${runs[a]!.hash} ${runs[b]!.hash}; first difference at #${i}`);
  if (i >= 0) for (let k = Math.max(0, i - 3); k <= i; k++) console.log(' ', k, t[a]![k]!.slice(0, 260), '\n  ', k, t[b]![k]!.slice(0, 260));
}
