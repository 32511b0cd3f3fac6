/**
 * Measures how well the faults find the bugs they exist for: every bug-zoo exhibit (its buggy
 * version, checked with every fault kind and the property that names its bug) and every
 * fault-target pair (the buggy version, checked with every fault kind and every property, and
 * with its paired fault kind alone), for several seeds. Per check it prints the run at which the
 * bug was found and the size of the shrunk reproduction (fault events + user actions), so a change
 * to the fault model can be compared before/after on the same seeds (issue 11: "nothing the
 * faults exist for is lost").
 *
 *   npx tsx bench/hunt-exhibits.ts [--runs 300] [--seeds 1,2,3] [--only zoo:,fault:] [--json out.json]
 *
 * Not part of `npm run bench`: it measures bug-finding power, not speed.
 */
import { writeFileSync } from 'node:fs';
import { parseFlags as parseArgs_ } from './hunt-args.js';
import { allFaults, check, type FaultModule, type Property } from '../src/index.js';
import { bugZoo } from '../examples/bug-zoo/index.js';
import { buggyFaultTargets } from './hunt-targets.js';
import { propertiesFor } from './hunt-targets.js';

interface Args {
  runs: number;
  seeds: number[];
  only: string[];
  json: string | undefined;
}

function parseArgs(argv: string[]): Args {
  const { values: v } = parseArgs_(argv, { runs: { type: 'string' }, seeds: { type: 'string' }, only: { type: 'string' }, json: { type: 'string' } });
  return { runs: Number(v['runs'] ?? 300), seeds: (v['seeds'] ?? '1,2,3').split(',').map(Number), only: (v['only'] ?? '').split(',').filter(Boolean), json: v['json'] };
}

/** One exhibit checked one way. */
interface Job {
  name: string;
  run: (seed: number, runs: number) => ReturnType<typeof check>;
  /** The property expected to catch it (undefined: any property counts). */
  expect?: string;
}

interface Row {
  name: string;
  seed: number;
  caught: boolean;
  property: string | null;
  foundAtRun: number | null;
  faultEvents: number | null;
  actions: number | null;
  ms: number;
}

function jobs(): Job[] {
  const out: Job[] = [];
  for (const e of bugZoo) {
    const faults: FaultModule[] = [...e.extraFaults, ...allFaults];
    out.push({ name: `zoo:${e.name}`, expect: e.caughtBy, run: (seed, runs) => check(e.buggy, { ...e.options, faults, properties: [e.property()], runs, seed }) });
  }
  for (const t of buggyFaultTargets) {
    const props: Property[] = propertiesFor(t, []);
    out.push({ name: `${t.name} (all faults)`, run: (seed, runs) => check(t.controllers, { ...t.options, faults: [...allFaults], properties: props, runs, seed }) });
    for (const set of [t.pairedFaults, ...(t.alsoPaired ?? [])]) {
      const paired = allFaults.filter((f) => set.includes(f.kind));
      out.push({ name: `${t.name} (${set.join('+')})`, run: (seed, runs) => check(t.controllers, { ...t.options, faults: paired, properties: props, runs, seed }) });
    }
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const chosen = jobs().filter((j) => args.only.length === 0 || args.only.some((o) => j.name.includes(o)));
  const rows: Row[] = [];
  for (const j of chosen) {
    for (const seed of args.seeds) {
      const t0 = performance.now();
      const r = await j.run(seed, args.runs);
      const ms = Math.round(performance.now() - t0);
      const row: Row = r.ok
        ? { name: j.name, seed, caught: false, property: null, foundAtRun: null, faultEvents: null, actions: null, ms }
        : {
            name: j.name,
            seed,
            caught: j.expect === undefined || r.property === j.expect,
            property: r.property,
            foundAtRun: r.failedAtRun,
            faultEvents: r.scenario.faults.events.length + r.scenario.faults.background.length,
            actions: r.scenario.workload.length,
            ms,
          };
      rows.push(row);
      console.log(
        `${(row.caught ? 'caught' : 'MISSED').padEnd(7)} ${j.name.padEnd(44)} seed ${seed}: ${row.property ?? '-'} at run ${row.foundAtRun ?? '-'}, reproduction ${row.faultEvents ?? '-'} fault event(s) + ${row.actions ?? '-'} action(s) (${ms} ms)`,
      );
    }
  }
  const missed = rows.filter((r) => !r.caught);
  console.log(`\n${rows.length} checks, ${missed.length} missed`);
  for (const r of missed) console.log(`  missed: ${r.name} seed ${r.seed} (${r.property ?? 'passed'})`);
  if (args.json) writeFileSync(args.json, JSON.stringify(rows, null, 2));
}

await main();
