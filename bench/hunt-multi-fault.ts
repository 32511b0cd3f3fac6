/**
 * Checks the claims of a multi-fault exhibit (issue 16) by hunting, beyond what its tests can
 * afford: the buggy version is not found by a single-fault hunt (one fault event per run, no
 * background faults), is found by plain swarm search, and its fixed twin passes every built-in
 * property over a swarm of runs. `repro` re-judges the hand-written reproduction (both versions,
 * and each of its faults alone), as the exhibit tests do.
 *
 *   npx tsx bench/hunt-multi-fault.ts --exhibit foreign-child [--do repro,single,swarm,correct]
 *        [--single-runs 1500] [--swarm-runs 1000] [--swarm-seeds 1,2,3,4,5] [--correct-runs 300] [--correct-seeds 1,2]
 *
 * Not part of `npm run bench`: it measures bug-finding power, not speed.
 */
import { allFaults, check, type FaultModule } from '../src/index.js';
import { multiFault } from '../examples/multi-fault/index.js';
import { everyProperty, judge, withFaults } from '../examples/multi-fault/judge.js';
import { parseFlags } from './hunt-args.js';

const { values: v } = parseFlags(process.argv.slice(2), {
  exhibit: { type: 'string' },
  do: { type: 'string' },
  'single-runs': { type: 'string' },
  'swarm-runs': { type: 'string' },
  'swarm-seeds': { type: 'string' },
  'correct-runs': { type: 'string' },
  'correct-seeds': { type: 'string' },
});
const ex = multiFault.find((e) => e.name === v['exhibit']);
if (!ex) {
  console.error(`--exhibit must name one of: ${multiFault.map((e) => e.name).join(', ')}`);
  process.exit(2);
}
const what = new Set((v['do'] ?? 'repro,single,swarm,correct').split(','));
const seeds = (s: string | undefined, d: string): number[] => (s ?? d).split(',').map(Number);
const faults = allFaults.filter((f) => !f.kind.startsWith('environment-'));
const show = (r: Awaited<ReturnType<typeof judge>>): string => r.failures.map((f) => `${f.property}: ${f.verdict.summary}`).join('; ') || 'pass';
const elapsed = (t0: number): string => `${Math.round(performance.now() - t0)} ms`;

if (what.has('repro')) {
  console.log('buggy, reproduction:', show(await judge(ex, 'buggy', ex.reproduction)));
  console.log('correct, reproduction, every property:', show(await judge(ex, 'correct', ex.reproduction, everyProperty(ex))));
  for (const e of ex.reproduction.faults.events) console.log(`buggy, ${e.kind} alone:`, show(await judge(ex, 'buggy', withFaults(ex, [e]))));
}
if (what.has('single')) {
  const runs = Number(v['single-runs'] ?? 1500);
  const noBackground = faults.map((f): FaultModule => {
    const { backgroundArbitrary: _background, ...rest } = f;
    return rest;
  });
  const t0 = performance.now();
  const r = await check(ex.buggy, { ...ex.options, faults: noBackground, properties: [ex.property()], runs, seed: 7, maxFaultEvents: 1, determinism: false });
  console.log(`single-fault hunt (${runs} runs, 1 event, no background):`, r.ok ? 'not found' : `FOUND at run ${r.failedAtRun}: ${JSON.stringify(r.scenario.faults)} ${r.summary}`, elapsed(t0));
}
if (what.has('swarm')) {
  const runs = Number(v['swarm-runs'] ?? 1000);
  for (const seed of seeds(v['swarm-seeds'], '1,2,3,4,5')) {
    const t0 = performance.now();
    const r = await check(ex.buggy, { ...ex.options, faults, properties: [ex.property()], runs, seed, determinism: false });
    console.log(`swarm, buggy, seed ${seed}:`, r.ok ? `not found in ${runs}` : `found at run ${r.failedAtRun}, shrunk to ${JSON.stringify(r.scenario.faults)}`, elapsed(t0));
  }
}
if (what.has('correct')) {
  const runs = Number(v['correct-runs'] ?? 300);
  for (const seed of seeds(v['correct-seeds'], '1,2')) {
    const t0 = performance.now();
    const c = await check(ex.correct, { ...ex.options, faults, properties: everyProperty(ex), runs, seed });
    console.log(`swarm, correct twin, every property, seed ${seed}:`, c.ok ? `pass (${runs} runs)` : `${c.property}: ${c.summary}\n${c.explanation}\n${JSON.stringify(c.scenario)}`, elapsed(t0));
  }
}
