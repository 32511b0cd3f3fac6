/**
 * Prints the trace hash (and verdict) of a fixed set of simulations and checks, to show a change
 * of the per-step path left behaviour byte-identical: run at the base commit and after, diff.
 * Every trace made (also inside checks: twins, determinism reruns, shrinking) is hashed at the
 * end of its check by its own JSON text (sha1), independent of src/sim/trace.ts's hash.
 */
import { createHash } from 'node:crypto';
import { check, simulate, allFaults, type FaultPlan, type Scenario } from '../../src/index.js';
import { defaultProperties } from '../../src/defaults.js';
import { Trace, type TraceEntry } from '../../src/sim/trace.js';
import { bugZoo } from '../../examples/bug-zoo/index.js';
import { corpusTargets, propertiesFor, faultsFor } from '../../bench/hunt-targets.js';

let traces: Trace[] = [];
const seen = new WeakSet<Trace>();
const push = Trace.prototype.push;
Trace.prototype.push = function (this: Trace, e: TraceEntry) {
  if (!seen.has(this)) {
    seen.add(this);
    traces.push(this);
  }
  push.call(this, e);
};
const sha = (s: string) => createHash('sha1').update(s).digest('hex').slice(0, 16);
/** One hash over every trace made since the last call, in creation order, and how many. */
function allTraces(): string {
  const h = createHash('sha1');
  for (const t of traces) h.update(JSON.stringify(t.entries)).update('\n');
  const out = `${traces.length} traces ${h.digest('hex').slice(0, 16)}`;
  traces = [];
  return out;
}
const only = process.argv[2];
const out = (s: string) => console.log(s);

for (const entry of bugZoo) {
  if (only && !entry.name.includes(only)) continue;
  const own = new Map(entry.properties.map((p) => [p.name, p]));
  const properties = defaultProperties().map((p) => own.get(p.name) ?? p);
  for (const [which, controllers] of [['correct', entry.correct], ['buggy', entry.buggy]] as const) {
    for (const seed of [1, 2]) {
      const r = await check(controllers, { ...entry.options, properties, faults: [...entry.extraFaults, ...allFaults], runs: 12, seed, shrink: which === 'buggy' && seed === 1 });
      const verdict = r.ok ? 'ok' : `FAIL ${r.property} at ${r.failedAtRun} shrinks ${r.shrinks} hash ${r.run.hash} ${sha(JSON.stringify(r.scenario))} ${sha(r.explanation)}`;
      const judged = sha(JSON.stringify([r.learnedMasks ?? null, r.couldNotJudge ?? null, (r.propertyRuns ?? []).map((p) => [p.name, p.judged, p.unjudged, p.reason])]));
      out(`zoo ${entry.name} ${which} seed ${seed}: ${verdict} runs ${r.runs} stats ${sha(JSON.stringify(r.stats))} cov ${sha(JSON.stringify(r.coverage))} judged ${judged} | ${allTraces()}`);
    }
    // the reproduction, plain and with a crash-restart and a second replica added
    const plans: [string, FaultPlan][] = [
      ['repro', entry.reproduction.faults],
      ['+crash', { events: [...entry.reproduction.faults.events, { kind: 'crash-restart', nth: 1, params: { point: 'after-write' } }], background: entry.reproduction.faults.background }],
      ['+second', { events: [...entry.reproduction.faults.events, { kind: 'second-replica', at: 0 }], background: entry.reproduction.faults.background }],
    ];
    for (const [label, faults] of plans) {
      const scenario: Scenario = { ...entry.reproduction, faults };
      try {
        const { run } = await simulate(scenario, { controllers, faults: [...entry.extraFaults, ...allFaults], properties, ...(entry.options.downstream ? { downstream: entry.options.downstream as never } : {}) });
        const verdicts = properties.map((p) => { try { const v = p.judge(run); return `${p.name}:${JSON.stringify(v)}`; } catch (e) { return `${p.name}:threw`; } });
        out(`sim ${entry.name} ${which} ${label}: ${run.hash} writes ${run.writes.length} final ${sha(JSON.stringify(run.finalObjects))} probes ${sha(JSON.stringify(run.probes))} ${sha(verdicts.join(','))} | ${allTraces()}`);
      } catch (err) {
        out(`sim ${entry.name} ${which} ${label}: threw ${err instanceof Error ? err.message.slice(0, 80) : String(err)} | ${allTraces()}`);
      }
    }
  }
}

const picks = corpusTargets.filter((_, i) => i % 5 === 0).slice(0, 8);
for (const t of picks) {
  if (only && !t.name.includes(only)) continue;
  for (const seed of [1, 2]) {
    const r = await check(t.controllers, { ...t.options, properties: propertiesFor(t, []), faults: faultsFor(t, []), runs: 10, seed, shrink: false });
    const verdict = r.ok ? 'ok' : `FAIL ${r.property} at ${r.failedAtRun} hash ${r.run.hash}`;
    const judged = sha(JSON.stringify([r.learnedMasks ?? null, r.couldNotJudge ?? null, (r.propertyRuns ?? []).map((p) => [p.name, p.judged, p.unjudged, p.reason])]));
    out(`${t.name} seed ${seed}: ${verdict} runs ${r.runs} stats ${sha(JSON.stringify(r.stats))} judged ${judged} | ${allTraces()}`);
  }
}

// bench targets: the hot loop (a status write per reconcile) and the reference experiment
{
  const { defineController } = await import('../../src/index.js');
  const hot = defineController({
    name: 'hot',
    for: 'Thing',
    async reconcile(ctx) {
      const t = await ctx.client.tryGet<{ i: number }, { n?: number }>('Thing', ctx.key);
      if (!t) return;
      await ctx.client.updateStatus({ ...t, status: { n: ctx.clock.now() } });
    },
  });
  const scenario: Scenario = { seed: 1, controllers: [{ name: 'hot' }], initialObjects: [], workload: [{ at: 0, type: 'create', object: { kind: 'Thing', metadata: { name: 't', namespace: 'default' }, spec: { i: 1 } } }], faults: { events: [], background: [] }, options: { faultWindowMs: 5000, settleMs: 0 } };
  const { run } = await simulate(scenario, { controllers: [hot] });
  out(`hot: ${run.hash} writes ${run.writes.length} final ${sha(JSON.stringify(run.finalObjects))} | ${allTraces()}`);
  const { runReferenceExperiment } = await import('../../examples/replicas/experiment.js');
  const r = await runReferenceExperiment({ trials: 200 });
  out(`ref: ${sha(JSON.stringify(r))} | ${allTraces()}`);
}
