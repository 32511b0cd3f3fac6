/**
 * Picks a seed for each named corpus case's buggy twin (examples/false-positives/, its `buggy.seed`):
 * the one in 1..N whose check, as the CI's twin test runs it (test/helpers/false-positives.ts
 * `buggyTwins`: FIND_RUNS runs, no shrinking, no determinism self-check), finds the twin by one of
 * its `caughtBy` properties at the least CPU. A change to generation or to a fault moves which run
 * finds a twin; a twin found only near its FIND_RUNS limit is the first to break, and this finds it
 * a seed again (stop 50: 15 twins, 33 s of CPU to 9 s).
 *
 *   npx tsx bench/twin-seeds.ts <max seed> <case> [<case> …]
 *
 * Prints one JSON line per case: the current seed's runs and CPU, the best seed's, and every seed
 * that found it (`seed:runs`). Not part of `npm run bench`.
 */
import { check } from '../src/index.js';
import { falsePositiveCorpus } from '../examples/false-positives/index.js';
import { FIND_RUNS, gateOptions } from '../test/helpers/false-positives.js';

const [maxSeedArg, ...names] = process.argv.slice(2);
const maxSeed = Number(maxSeedArg);
if (!Number.isInteger(maxSeed) || maxSeed < 1 || names.length === 0) {
  console.error('usage: npx tsx bench/twin-seeds.ts <max seed> <case> [<case> …]');
  process.exit(2);
}
for (const name of names) {
  const c = falsePositiveCorpus.find((x) => x.name === name);
  const twin = c?.buggy;
  if (!c || !twin) {
    console.error(`${name}: no corpus case of that name with a buggy twin`);
    process.exitCode = 2;
    continue;
  }
  if (twin.search === 'systematic') {
    console.error(`${name}: its twin test searches systematically (no seed to pick)`);
    continue;
  }
  const run = async (seed: number | undefined, runs: number) => {
    const before = process.cpuUsage();
    const r = await check(twin.controllers, { ...gateOptions(c, runs), ...twin.world, ...(seed !== undefined ? { seed } : twin.seed !== undefined ? { seed: twin.seed } : {}), shrink: false, determinism: false });
    const used = process.cpuUsage(before);
    return { property: r.ok ? 'passed' : r.property, runs: r.runs, cpu: (used.user + used.system) / 1e6 };
  };
  const current = await run(undefined, FIND_RUNS);
  let best = { seed: twin.seed ?? 11, ...current };
  const found: string[] = [];
  for (let seed = 1; seed <= maxSeed; seed++) {
    const r = await run(seed, Math.min(FIND_RUNS, best.runs));
    if (!twin.caughtBy.includes(r.property)) continue;
    found.push(`${seed}:${r.runs}`);
    if (r.cpu < best.cpu) best = { seed, ...r };
  }
  const show = (x: { property: string; runs: number; cpu: number }) => ({ runs: x.runs, property: x.property, cpu: Number(x.cpu.toFixed(2)) });
  console.log(JSON.stringify({ name, current: { seed: twin.seed ?? 11, ...show(current) }, best: { seed: best.seed, ...show(best) }, found: found.join(' ') }));
}
