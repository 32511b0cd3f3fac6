/**
 * Measures systematic mode's false alarms on correct controllers: `checkSystematic` (SPEC §3:
 * plans derived from a fault-free reference run by every strategy, then pairs) with every
 * default fault kind and every property (a target's configured ones in place of the built-ins)
 * over every chosen target. Unlike `checkSystematic` (which reports its first failing plan and
 * shrinks it), every plan is judged by every property and every failure is kept: the properties
 * are wrapped so they record their verdict and never fail, so the search also extends failing
 * single-fault runs into pairs (a pair whose first fault alone fails is marked so). Each recorded
 * failure is confirmed by judging its scenario again with that property alone, without early stop.
 *
 *   npx tsx bench/hunt-systematic-fp.ts [--only corpus:] [--depth 2] [--max-plans 200] [--max-runs 5000] [--strategies a,b] [--json out.json]
 *
 * Prints per target: plans run and failing plans, and per failure the property, the fault plan
 * (its events), what the realism law (test/helpers/realism.ts (a)/(b)) finds in the history, and
 * the property's summary; then totals. Not part of `npm run bench`: it measures correctness.
 */
import { writeFileSync } from 'node:fs';
import { checkSystematic, type FaultEvent, type Scenario } from '../src/index.js';
import type { SystematicStrategy } from '../src/harness/systematic-plans.js';
import { resolveCheckOptions } from '../src/harness/check-options.js';
import { ScenarioRunner } from '../src/harness/scenario-runner.js';
import { parseFlags } from './hunt-args.js';
import { recording } from './recording-property.js';
import { watchViolations } from '../test/helpers/realism.js';
import { faultsFor, huntTargets, propertiesFor, type Target } from './hunt-targets.js';

interface Args {
  only: string[];
  depth: 1 | 2;
  maxPlans: number;
  maxRuns: number;
  /** Only these strategies (default: every one). */
  strategies: SystematicStrategy[] | undefined;
  json: string | undefined;
}

function parseArgs(argv: string[]): Args {
  const { values: v } = parseFlags(argv, { only: { type: 'string' }, depth: { type: 'string' }, 'max-plans': { type: 'string' }, 'max-runs': { type: 'string' }, strategies: { type: 'string' }, json: { type: 'string' } });
  const depth = Number(v['depth'] ?? 2);
  if (depth !== 1 && depth !== 2) throw new Error(`hunt-systematic-fp: --depth must be 1 or 2, got ${v['depth']}`);
  return { only: (v['only'] ?? 'corpus:').split(',').filter(Boolean), depth, maxPlans: Number(v['max-plans'] ?? 200), maxRuns: Number(v['max-runs'] ?? 5000), strategies: v['strategies'] ? (v['strategies'].split(',') as SystematicStrategy[]) : undefined, json: v['json'] };
}

/** One confirmed failure of one plan. */
interface Failure {
  target: string;
  property: string;
  summary: string;
  /** The plan's fault events ([] for a base scenario's fault-free reference run). */
  plan: FaultEvent[];
  /** A pair whose first fault alone already failed this property. */
  firstAloneFails: boolean;
  unrealistic: string[];
  scenario: Scenario;
}

/** A fault event in one line: kind, where, when. */
function eventText(e: FaultEvent): string {
  const where = [e.target !== undefined ? e.target : '', e.nth !== undefined ? `#${e.nth}` : '', e.at !== undefined ? `@${e.at}ms` : ''].filter(Boolean).join(' ');
  return `${e.kind}${where ? ` ${where}` : ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`;
}

function planText(events: readonly FaultEvent[]): string {
  return events.length === 0 ? 'no fault (the reference run)' : events.map(eventText).join('; then ');
}

async function measure(t: Target, args: Args): Promise<{ plans: number; runs: number; truncated: boolean; failures: Failure[] }> {
  const properties = propertiesFor(t, []);
  const faults = faultsFor(t, []);
  // what a failing verdict leaves (not its run: a search can fail thousands of plans)
  const recorded: { scenario: Scenario; property: string; unrealistic: string[] }[] = [];
  const wrapped = properties.map((p) => recording(p, (run, v) => (v.ok ? undefined : recorded.push({ scenario: run.scenario, property: p.name, unrealistic: watchViolations(run.trace).slice(0, 3) }))));
  // what systematic mode takes of a check's options (the workload's shape comes from its base scenarios, which
  // make only the user actions the target allows: without them fault:duplication, whose user only re-applies,
  // failed 13/142 plans on spec edits its user never makes; and at most maxObjects of them: rt51's metric-scaler, one
  // ScaledObject per target as KEDA's webhook enforces, failed 4,496/5,000 plans on the two-object base's fight)
  const { maxActions: _ma, maxFaultEvents: _mf, maxNth: _mn, ...o } = t.options;
  const r = await checkSystematic(t.controllers, { ...o, faults, properties: wrapped, depth: args.depth, maxPlans: args.maxPlans, maxRuns: args.maxRuns, ...(args.strategies ? { strategies: args.strategies } : {}), determinism: false, shrink: false });
  const resolved = resolveCheckOptions(t.controllers, { ...o, faults, properties });
  const runner = new ScenarioRunner(
    { controllers: resolved.controllers, faults: resolved.faults, environment: resolved.environment.map((e) => e.actor), ...(resolved.downstream ? { downstream: resolved.downstream } : {}), tailMs: resolved.tailMs, traceReads: true },
    properties,
  );
  const fails = async (s: Scenario, property: string) => (await runner.judge(s, { properties: properties.filter((p) => p.name === property), earlyStop: false })).failure;
  const failures: Failure[] = [];
  const seen = new Set<string>();
  for (const { scenario, property, unrealistic } of recorded) {
    const key = `${property} ${JSON.stringify(scenario)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const confirmed = await fails(scenario, property);
    if (!confirmed) continue;
    const events = scenario.faults.events;
    const firstAloneFails = events.length > 1 && (await fails({ ...scenario, faults: { events: events.slice(0, 1), background: [] } }, property)) !== undefined;
    failures.push({ target: t.name, property, summary: confirmed.summary, plan: [...events], firstAloneFails, unrealistic, scenario });
  }
  return { plans: r.systematic.plans, runs: r.runs, truncated: r.systematic.truncated, failures };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const chosen = huntTargets.filter((t) => args.only.some((o) => t.name.includes(o)));
  if (chosen.length === 0) throw new Error(`hunt-systematic-fp: --only ${args.only.join(',')} matches no target`);
  const all: Failure[] = [];
  let plans = 0;
  const t0 = performance.now();
  for (const t of chosen) {
    const t1 = performance.now();
    const m = await measure(t, args);
    plans += m.plans;
    all.push(...m.failures);
    const props = [...new Set(m.failures.map((f) => f.property))].map((p) => `${p} ${m.failures.filter((f) => f.property === p).length}`).join(', ');
    console.log(`${m.failures.length === 0 ? 'ok  ' : 'FAIL'}  ${t.name.padEnd(34)} ${String(m.failures.length).padStart(4)}/${m.plans} plans failed${m.truncated ? ' (maxRuns reached)' : ''}${props ? ` (${props})` : ''}  ${Math.round((performance.now() - t1) / 1000)} s`);
    for (const f of m.failures.slice(0, 10)) {
      console.log(`      ${f.property}: ${planText(f.plan)}${f.firstAloneFails ? ' (its first fault alone fails)' : ''}${f.unrealistic.length ? ` [breaks realism: ${f.unrealistic[0]}]` : ''}`);
      console.log(`        ${f.summary}`);
    }
    if (m.failures.length > 10) console.log(`      … ${m.failures.length - 10} more`);
  }
  console.log(`\n${chosen.length} targets, depth ${args.depth}, ${plans} plans (${Math.round((performance.now() - t0) / 1000)} s)`);
  console.log(`failing plans: ${all.length}; targets with any failure: ${new Set(all.map((f) => f.target)).size}/${chosen.length}`);
  if (args.json) writeFileSync(args.json, JSON.stringify({ args, plans, failures: all }, null, 2));
}

await main();
