/**
 * Measures how well the faults find the bugs they exist for: every bug-zoo exhibit (its buggy
 * version, checked with every fault kind and the property that names its bug) and every
 * fault-target pair (the buggy version, checked with every fault kind and every property, and
 * with its paired fault kind alone), for several seeds. Per check it prints the run at which the
 * bug was found and the size of the shrunk reproduction (fault events + user actions), so a change
 * to the fault model can be compared before/after on the same seeds (issue 11: "nothing the
 * faults exist for is lost").
 *
 * `--search swarm,aimed,guided,systematic` checks each exhibit with each search mode (`aimed`: swarm
 * with `aimFaults: true`; systematic mode is
 * deterministic and runs once, from its default base scenarios); with more than one seed, a table
 * of the median runs to first failure per mode follows (issue 16's table; a seed that found nothing
 * counts as more than the cap, so a median of "> cap" means half the seeds or more missed).
 *
 *   npx tsx bench/hunt-exhibits.ts [--runs 300] [--seeds 1,2,3] [--only zoo:,fault:] [--search swarm,aimed] [--json out.json]
 *
 * Not part of `npm run bench`: it measures bug-finding power, not speed.
 */
import { writeFileSync } from 'node:fs';
import { parseFlags as parseArgs_, parseSeeds } from './hunt-args.js';
import { allFaults, check, checkSystematic, type CheckOptions, type CheckResult, type ControllerDefinition, type FaultModule, type Property } from '../src/index.js';
import { bugZoo } from '../examples/bug-zoo/index.js';
import { buggyFaultTargets } from './hunt-targets.js';
import { propertiesFor } from './hunt-targets.js';

type Mode = 'swarm' | 'aimed' | 'guided' | 'systematic';

interface Args {
  runs: number;
  seeds: number[];
  only: string[];
  modes: Mode[];
  json: string | undefined;
}

function parseArgs(argv: string[]): Args {
  const { values: v } = parseArgs_(argv, { runs: { type: 'string' }, seeds: { type: 'string' }, only: { type: 'string' }, search: { type: 'string' }, json: { type: 'string' } });
  const modes = (v['search'] ?? 'swarm').split(',').filter(Boolean) as Mode[];
  for (const m of modes) if (m !== 'swarm' && m !== 'aimed' && m !== 'guided' && m !== 'systematic') throw new Error(`--search: ${m} is not swarm, aimed, guided or systematic`);
  return { runs: Number(v['runs'] ?? 300), seeds: parseSeeds(v['seeds'] ?? '1,2,3'), only: (v['only'] ?? '').split(',').filter(Boolean), modes, json: v['json'] };
}

/** One exhibit checked one way. */
interface Job {
  name: string;
  controllers: readonly ControllerDefinition[];
  options: CheckOptions;
  /** The property expected to catch it (undefined: any property counts). */
  expect?: string;
}

interface Row {
  name: string;
  mode: Mode;
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
    out.push({ name: `zoo:${e.name}`, expect: e.caughtBy, controllers: e.buggy, options: { ...e.options, faults, properties: [e.property()] } });
  }
  for (const t of buggyFaultTargets) {
    const props: Property[] = propertiesFor(t, []);
    out.push({ name: `${t.name} (all faults)`, controllers: t.controllers, options: { ...t.options, faults: [...allFaults], properties: props } });
    for (const set of [t.pairedFaults, ...(t.alsoPaired ?? [])]) {
      const paired = allFaults.filter((f) => set.includes(f.kind));
      out.push({ name: `${t.name} (${set.join('+')})`, controllers: t.controllers, options: { ...t.options, faults: paired, properties: props } });
    }
  }
  return out;
}

async function runJob(j: Job, mode: Mode, seed: number, runs: number): Promise<CheckResult> {
  if (mode === 'aimed') return check(j.controllers, { ...j.options, runs, seed, search: 'swarm', aimFaults: true });
  if (mode !== 'systematic') return check(j.controllers, { ...j.options, runs, seed, search: mode });
  // systematic mode derives its plans from its own base scenarios: the generators' bounds do not apply
  const { maxObjects: _mo, maxActions: _ma, maxFaultEvents: _mf, maxNth: _mn, swarm: _sw, search: _se, runs: _r, seed: _s, path: _p, shard: _sh, corpus: _c, timeLimitMs: _t, shrinkTimeLimitMs: _st, requireAllFaultsFired: _rf, determinismEvery: _de, coverage: _cv, story: _story, ...o } = j.options as CheckOptions & Record<string, unknown>;
  return checkSystematic(j.controllers, { ...(o as Parameters<typeof checkSystematic>[1]), stopOnFailure: true });
}

/** Median of runs to first failure, a seed that found nothing counting as infinitely many. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Infinity;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const chosen = jobs().filter((j) => args.only.length === 0 || args.only.some((o) => j.name.includes(o)));
  const rows: Row[] = [];
  for (const j of chosen) {
    for (const mode of args.modes) {
      for (const seed of mode === 'systematic' ? [0] : args.seeds) {
        const t0 = performance.now();
        const r = await runJob(j, mode, seed, args.runs);
        const ms = Math.round(performance.now() - t0);
        const row: Row = r.ok
          ? { name: j.name, mode, seed, caught: false, property: null, foundAtRun: null, faultEvents: null, actions: null, ms }
          : {
              name: j.name,
              mode,
              seed,
              caught: j.expect === undefined || r.property === j.expect,
              property: r.property,
              foundAtRun: r.failedAtRun,
              faultEvents: r.scenario.faults.events.length + r.scenario.faults.background.length,
              actions: r.scenario.workload.length,
              ms,
            };
        rows.push(row);
        const label = mode === 'swarm' ? j.name : `${j.name} [${mode}]`;
        console.log(
          `${(row.caught ? 'caught' : 'MISSED').padEnd(7)} ${label.padEnd(44)} seed ${seed}: ${row.property ?? '-'} at run ${row.foundAtRun ?? '-'}, reproduction ${row.faultEvents ?? '-'} fault event(s) + ${row.actions ?? '-'} action(s) (${ms} ms)`,
        );
      }
    }
  }
  const missed = rows.filter((r) => !r.caught);
  console.log(`\n${rows.length} checks, ${missed.length} missed`);
  for (const r of missed) console.log(`  missed: ${r.name}${r.mode === 'swarm' ? '' : ` [${r.mode}]`} seed ${r.seed} (${r.property ?? 'passed'})`);
  if (args.seeds.length > 1 || args.modes.length > 1) {
    console.log(`\nruns to first failure, median over ${args.seeds.length} seed(s) (cap ${args.runs}; systematic: its plans run, once)`);
    console.log(`| check | ${args.modes.join(' | ')} |`);
    console.log(`|---|${args.modes.map(() => '---').join('|')}|`);
    for (const j of chosen) {
      const cells = args.modes.map((m) => {
        const rs = rows.filter((r) => r.name === j.name && r.mode === m);
        const med = median(rs.map((r) => (r.caught ? r.foundAtRun! : Infinity)));
        const found = rs.filter((r) => r.caught).length;
        if (m === 'systematic') return found ? String(rs[0]!.foundAtRun) : 'none';
        return `${Number.isFinite(med) ? String(med) : `> ${args.runs}`} (${found}/${rs.length})`;
      });
      console.log(`| ${j.name} | ${cells.join(' | ')} |`);
    }
  }
  if (args.json) writeFileSync(args.json, JSON.stringify(rows, null, 2));
}

await main();
