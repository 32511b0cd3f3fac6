/**
 * Hunts false positives: runs `check` (every built-in property, every built-in fault kind, swarm
 * testing) on every controller the project calls correct, for several seeds, and prints each
 * failure with its property, summary, explanation and shrunk scenario. SPEC §5: "a property
 * must stay quiet on a correct controller under every fault", so every line it prints is either
 * a property that is too strict, a fault or harness that mis-models Kubernetes, or a real bug in
 * a "correct" controller.
 *
 *   npx tsx bench/hunt-false-positives.ts [--runs 300] [--seeds 1,2,3] [--only zoo:,dns,story:] [--skip recovery]
 *     [--without event-loss] [--max-objects 3 --max-actions 8 --max-fault-events 8] [--no-shrink] [--json out.json]
 *
 * `--only story:` hunts the corpus controllers checked through a story (examples/stories/), e.g.
 * `--only story: --runs 1000 --seeds 1`.
 *
 * Not part of `npm run bench`: it measures correctness, not speed.
 */
import { writeFileSync } from 'node:fs';
import { parseFlags } from './hunt-args.js';
import { check, type CheckFailed } from '../src/index.js';
import { faultsFor, huntTargets as targets, propertiesFor } from './hunt-targets.js';

interface Args {
  runs: number;
  seeds: number[];
  only: string[];
  skip: string[];
  /** Fault kinds left out of every check (to look past a known failure). */
  without: string[];
  shrink: boolean;
  json: string | undefined;
  /** Bigger worlds than the defaults (maxObjects, maxActions, maxFaultEvents), when given. */
  size: { maxObjects?: number; maxActions?: number; maxFaultEvents?: number };
}

function parseArgs(argv: string[]): Args {
  const { values: v, booleans } = parseFlags(argv, {
    runs: { type: 'string' },
    seeds: { type: 'string' },
    only: { type: 'string' },
    skip: { type: 'string' },
    without: { type: 'string' },
    'max-objects': { type: 'string' },
    'max-actions': { type: 'string' },
    'max-fault-events': { type: 'string' },
    'no-shrink': { type: 'boolean' },
    json: { type: 'string' },
  });
  const list = (k: string) => (v[k] ?? '').split(',').filter(Boolean);
  const size: Args['size'] = {};
  if (v['max-objects'] !== undefined) size.maxObjects = Number(v['max-objects']);
  if (v['max-actions'] !== undefined) size.maxActions = Number(v['max-actions']);
  if (v['max-fault-events'] !== undefined) size.maxFaultEvents = Number(v['max-fault-events']);
  return { runs: Number(v['runs'] ?? 300), seeds: (v['seeds'] ?? '1,2,3').split(',').map(Number), only: list('only'), skip: list('skip'), without: list('without'), shrink: !booleans['no-shrink'], json: v['json'], size };
}

interface Row {
  target: string;
  seed: number;
  runs: number;
  ms: number;
  property: string | null;
  summary: string | null;
  explanation?: string;
  scenario?: unknown;
  failedAtRun?: number;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const chosen = targets.filter((t) => args.only.length === 0 || args.only.some((o) => t.name.includes(o)));
  if (chosen.length === 0) throw new Error(`hunt-false-positives: --only ${args.only.join(',')} matches no target (targets: ${targets.map((t) => t.name).join(', ')})`);
  const rows: Row[] = [];
  const t00 = performance.now();
  for (const t of chosen) {
    for (const seed of args.seeds) {
      const t0 = performance.now();
      const size = { ...args.size, ...(t.maxObjects !== undefined && (args.size.maxObjects ?? 0) > t.maxObjects ? { maxObjects: t.maxObjects } : {}) };
      const r = await check(t.controllers, { ...t.options, ...size, faults: faultsFor(t, args.without), properties: propertiesFor(t, args.skip), runs: args.runs, seed, ...(args.shrink ? { shrink: { maxSteps: 300, maxMinimizeTests: 200 } } : { shrink: false }) });
      const ms = Math.round(performance.now() - t0);
      if (r.ok) {
        rows.push({ target: t.name, seed, runs: r.runs, ms, property: null, summary: null });
        const fired = r.coverage.filter((c) => c.injected > 0);
        const changed = r.coverage.filter((c) => c.changedBehaviour > 0).length;
        console.log(`ok    ${t.name.padEnd(28)} seed ${seed}: ${r.runs} runs quiet (${ms} ms; ${fired.length}/${r.coverage.length} fault kinds fired, ${changed} changed behaviour; ${r.stats.reconciles} reconciles)`);
        continue;
      }
      const f = r as CheckFailed;
      rows.push({ target: t.name, seed, runs: f.runs, ms, property: f.property, summary: f.summary, explanation: f.explanation, scenario: f.scenario, failedAtRun: f.failedAtRun });
      console.log(`FAIL  ${t.name.padEnd(28)} seed ${seed}: ${f.property} at run ${f.failedAtRun} (${ms} ms)`);
      console.log(`  summary: ${f.summary}`);
      console.log(`  ${f.explanation.replace(/\n/g, '\n  ')}`);
      console.log(`  shrunk scenario: ${JSON.stringify(f.scenario)}`);
    }
  }
  const failed = rows.filter((r) => r.property !== null);
  const runs = rows.reduce((n, r) => n + r.runs, 0);
  console.log(`\n${chosen.length} targets × ${args.seeds.length} seeds × ≤${args.runs} runs: ${runs} runs, ${failed.length} failing checks (${Math.round((performance.now() - t00) / 1000)} s)`);
  for (const r of failed) console.log(`  ${r.target} seed ${r.seed}: ${r.property}: ${r.summary}`);
  if (args.json) writeFileSync(args.json, JSON.stringify(rows, null, 2));
  process.exitCode = failed.length > 0 ? 1 : 0;
}

await main();
