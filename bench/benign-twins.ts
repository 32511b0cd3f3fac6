/**
 * What the benign twins cost: time per scenario of judging generated scenarios with every default
 * property, with the differential properties learning masks (`learn: true`, the default) and
 * without (`learn: false`), on a path-dependent correct controller (the allocator: learning is
 * needed) and on hunt targets (learning is rarely needed). Both sides judge the same scenarios in
 * the same process; the ratio is what learning adds.
 *
 *   npx tsx bench/benign-twins.ts [--runs 300] [--seed 1] [--only allocator,zoo:stale]
 */
import { parseArgs } from 'node:util';
import { checkScenarios } from '../src/harness/check.js';
import { resolveCheckOptions } from '../src/harness/check-options.js';
import { ScenarioRunner } from '../src/harness/scenario-runner.js';
import fc from 'fast-check';
import type { Property, Scenario } from '../src/index.js';
import { defaultProperties } from '../properties/index.js';
import { noExtraDestructiveActions, recovery, sameEndState } from '../properties/index.js';
import { allocator, CLAIM } from '../examples/property-targets/allocator.js';
import { faultsFor, huntTargets, propertiesFor, type Target } from './hunt-targets.js';

const { values: v } = parseArgs({ options: { runs: { type: 'string', default: '300' }, seed: { type: 'string', default: '1' }, only: { type: 'string', default: 'allocator,zoo:stale-snapshot,prop:pods,fault:list-order,fault:coalescing' } } });
const runs = Number(v.runs);
const seed = Number(v.seed);
const only = v.only.split(',').filter(Boolean);

const allocatorTarget: Target = { name: 'allocator', controllers: [allocator('allocator', { stamp: true })], options: { objects: { kind: CLAIM, spec: [{ size: 1 }, { size: 2 }, { size: 3 }] }, maxObjects: 3 } };

function withLearning(ps: readonly Property[], learn: boolean): Property[] {
  return ps.map((p) => (p.name === 'same-end-state' ? sameEndState({ ...(p.options as object), learn }) : p.name === 'recovery' ? recovery({ ...(p.options as object), learn }) : p.name === 'no-extra-destructive-actions' ? noExtraDestructiveActions({ ...(p.options as object), learn }) : p));
}

async function side(t: Target, scenarios: readonly Scenario[], learn: boolean) {
  const properties = withLearning(t.name === 'allocator' ? defaultProperties() : propertiesFor(t, []), learn);
  const o = resolveCheckOptions(t.controllers, { ...t.options, faults: faultsFor(t, []), properties, runs, seed });
  const runner = new ScenarioRunner({ controllers: o.controllers, faults: o.faults, environment: o.environment.map((e) => e.actor), ...(o.downstream ? { downstream: o.downstream } : {}), tailMs: o.tailMs, traceReads: o.traceReads }, o.properties);
  let failing = 0;
  const examples: string[] = [];
  const t0 = performance.now();
  for (const s of scenarios) {
    const f = (await runner.judge(s, { all: true, twinWhenFaultsFired: true })).failures.find((x) => ['same-end-state', 'recovery', 'no-extra-destructive-actions'].includes(x.property));
    if (!f) continue;
    failing++;
    if (examples.length < 3) examples.push(`${f.property}: ${f.summary}`);
  }
  return { ms: performance.now() - t0, failing, examples, simulations: runner.simulations, benign: runner.twins.benignSimulations, masks: runner.learned.summary() };
}

for (const t of [allocatorTarget, ...huntTargets].filter((x) => only.some((n) => x.name.includes(n)))) {
  const o = resolveCheckOptions(t.controllers, { ...t.options, faults: faultsFor(t, []), properties: defaultProperties(), runs, seed });
  const scenarios: Scenario[] = [];
  await fc.check(fc.property(checkScenarios(o), (s) => (scenarios.push(s), true)), { seed, numRuns: runs });
  const off = await side(t, scenarios, false);
  const on = await side(t, scenarios, true);
  const per = (x: { ms: number }) => (x.ms / scenarios.length).toFixed(2);
  console.log(`${t.name.padEnd(24)} ${scenarios.length} scenarios: without learning ${per(off)} ms/scenario (${off.failing} differential failures, ${off.simulations} sims); with ${per(on)} ms/scenario (${on.failing} failures, ${on.simulations} sims, ${on.benign} benign); +${(((on.ms - off.ms) / off.ms) * 100).toFixed(1)}%`);
  for (const e of on.examples) console.log(`    still failing: ${e.slice(0, 240)}`);
  for (const m of on.masks) console.log(`    ${m.property}: ${m.masks.slice(0, 8).join('; ')}${m.masks.length > 8 ? `; … ${m.masks.length} in all` : ''}`);
}
