/**
 * Verdict fingerprint (issue 16, sims45): the bug zoo (buggy and correct, all faults, a few seeds)
 * and some hunt targets, printed as verdicts + shrunk counterexamples + replay seed/path. Must be
 * byte-identical before and after a change to the check loop. Simulation counts go to stderr.
 * Usage: npx tsx scratch/sims45/verdicts.mts [runs=60] > out.txt
 */
import { check } from '../../src/check.js';
import { allFaults } from '../../src/index.js';
import { defaultProperties } from '../../properties/index.js';
import { bugZoo } from '../../examples/bug-zoo/index.js';
import { huntTargets, buggyFaultTargets, propertiesFor, faultsFor, type Target } from '../../bench/hunt-targets.js';
import { createHash } from 'node:crypto';
import { defineController } from '../../src/runtime/define-controller.js';
import { REPLICAS_KIND, type ReplicasSpec } from '../../examples/replicas/replicas.js';
import { eventLoss } from '../../faults/event-loss.js';
import { convergence } from '../../properties/convergence.js';
import fc from 'fast-check';

const runs = Number(process.argv[2] ?? 60);
const seeds = [11, 12];
const h = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);
let sims = 0;
async function one(label: string, controllers: Target['controllers'], opts: object): Promise<void> {
  for (const seed of seeds) {
    const r = await check(controllers, { ...opts, runs, seed, shrink: { maxSteps: 200, maxMinimizeTests: 150 } } as never);
    sims += r.simulations ?? 0;
    process.stderr.write(`${label} seed ${seed}: runs ${r.runs} simulations ${r.simulations}\n`);
    if (r.ok) console.log(`${label} seed ${seed}: PASS runs=${r.runs}`);
    else {
      const f = r as unknown as { property: string; summary?: string; scenario: unknown; path: string; seed: number; runNumber?: number; explanation?: string; failedAtRun?: number };
      console.log(`${label} seed ${seed}: FAIL ${f.property} runs=${r.runs} seed=${f.seed} path=${f.path}`);
      console.log(`  summary: ${f.summary}`);
      console.log(`  scenario: ${JSON.stringify(f.scenario)}`);
      console.log(`  explanation#${h(String(f.explanation))}`);
    }
  }
}

for (const e of bugZoo) {
  const own = new Map(e.properties.map((p) => [p.name, p]));
  const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
  for (const p of e.properties) if (!properties.some((x) => x.name === p.name)) properties.push(p);
  const faults = [...e.extraFaults, ...allFaults.filter((f) => !e.extraFaults.some((x) => x.kind === f.kind))];
  await one(`zoo:${e.name}:buggy`, e.buggy, { ...e.options, faults, properties });
  await one(`zoo:${e.name}:correct`, e.correct, { ...e.options, faults, properties });
}
const picks = [...huntTargets.filter((t) => /^(prop:|fault:|corpus:)/.test(t.name)).filter((_, i) => i % 4 === 0), ...buggyFaultTargets];
for (const t of picks) await one(t.name, t.controllers, { ...t.options, faults: faultsFor(t, []), properties: propertiesFor(t, []) });
// nondeterministic controllers (the determinism self-check must still name them, with the same words)
function stamping(name: string, stamp: () => unknown) {
  return defineController({
    name,
    for: REPLICAS_KIND,
    async reconcile(ctx) {
      const rs = await ctx.client.tryGet<ReplicasSpec, Record<string, unknown>>(REPLICAS_KIND, ctx.key);
      if (!rs || rs.status['observedGeneration'] === rs.metadata.generation) return;
      await ctx.client.updateStatus({ ...rs, status: { replicas: rs.spec.replicas, observedGeneration: rs.metadata.generation, stamp: String(stamp()) } });
    },
  });
}
const replicaObjects = { kind: REPLICAS_KIND, spec: fc.record({ replicas: fc.integer({ min: 1, max: 5 }) }), status: { replicas: 0 } };
let calls = 0;
const nondeterministic: [string, () => unknown][] = [['random', () => Math.random()], ['clock', () => Date.now()], ['new-date', () => new Date().getTime()], ['uuid', () => globalThis.crypto.randomUUID()], ['hrtime', () => process.hrtime.bigint()], ['warm-up', () => (++calls > 40 ? 'late' : 'early')]];
for (const [name, stamp] of nondeterministic) {
  const r = await check(stamping(name, stamp), { faults: [eventLoss], properties: [convergence()], objects: replicaObjects, runs: 30, seed: 5 });
  if (r.ok) console.log(`nondeterministic:${name}: PASS runs=${r.runs}`);
  else {
    const f = r as unknown as { property: string; failedAtRun?: number; explanation: string };
    // the hashes and the diverging values are random: the words around them are not
    const words = f.explanation.replace(/hash [0-9a-f]+/g, 'hash H').replace(/"stamp":"[^"]*"/g, '"stamp":S').replace(/\(hash [^)]*\)/g, '').replace(/\("[0-9a-f]+" in the first run, "[0-9a-f]+" in the second\)/g, '(D1 in the first run, D2 in the second)');
    console.log(`nondeterministic:${name}: FAIL ${f.property} at run ${f.failedAtRun}\n  ${words.split('\n').join('\n  ')}`);
  }
}
process.stderr.write(`total simulations ${sims}\n`);
