import { describe, expect, it } from 'vitest';
import { check, checkSystematic, defineProperty, type CheckOptions, type Scenario } from '../../src/index.js';
import { markedCorpus, writer } from './writer-fixture.js';

/**
 * A verdict must not depend on the machine's load (SPEC §6). An early stop is a prediction; it
 * used to be confirmed only on the shrunk scenario, so the shrinking budget (wall time) decided
 * the verdict when the prediction was wrong for the scenario found: shrinking cut at once kept
 * that scenario, whose full run passed (the check then ran again without early stops: pass);
 * shrinking given time reached a smaller scenario whose full run failed (a failure). Found on
 * rt46's deploy-putter, seed 9, run 20: "1 failure", then a pass on the same inputs (h47).
 * Here a property whose monitor predicts a failure at the first write of every run, and whose
 * judge fails only a run of fewer than 3 user actions naming `marked`: the corpus scenario has 3
 * (a wrong prediction), its shrunk versions fewer (a right one). The wall clock is faked: never
 * moving (shrinking is never cut), or racing (every budget is over at once).
 */

const prophet = defineProperty<Record<string, never>>({
  name: 'few-marked-actions',
  description: 'a run with a user action on Widget marked has at least 3 user actions (its monitor guesses otherwise at the first write)',
  defaults: {},
  monitor: () => ({ afterWrite: () => ({ reason: 'guessed', from: 0 }) }),
  judge: (run) => {
    const marked = run.scenario.workload.some((a) => (a.type === 'create' ? a.object.metadata.name === 'marked' : 'key' in a && a.key === 'default/marked'));
    return marked && run.scenario.workload.length < 3 ? { ok: false, summary: `${run.scenario.workload.length} user actions`, explanation: 'fewer than 3 user actions', evidence: {} } : { ok: true };
  },
});

const corpus = markedCorpus;

function options(wallClock: () => number): CheckOptions {
  return { runs: 1, seed: 1, properties: [prophet()], faults: [], corpus: { scenarios: [corpus] }, shrinkTimeLimitMs: 1000, wallClock } as CheckOptions;
}

describe('a wrong early stop: the verdict does not depend on the wall clock (h47)', () => {
  it('is the same whether shrinking is never cut or cut at once', async () => {
    let racing = 0;
    const calm = await check(writer, options(() => 0));
    const loaded = await check(writer, options(() => (racing += 1e6)));
    expect(calm.ok, calm.ok ? '' : `${calm.property}: ${calm.summary}`).toBe(loaded.ok);
    // the scenario found passes when run to its end: that is the verdict
    expect(calm.ok, calm.ok ? "" : `${calm.property}: ${calm.summary}`).toBe(true);
  });
});

describe('a wrong early stop in systematic mode: the verdict does not depend on shrinking', () => {
  // systematic mode has no wall-clock budget, but the same structure: the plan that found the
  // failure stopped at a guess, and only the shrunk plan was run to its end
  const systematic = (shrink: false | { maxMinimizeTests: number }) => checkSystematic(writer, { properties: [prophet()], faults: [], scenarios: [corpus], depth: 1, maxPlans: 5, shrink });
  it('is the same whether shrinking runs or not', async () => {
    const shrunk = await systematic({ maxMinimizeTests: 400 });
    const asFound = await systematic(false);
    expect(shrunk.ok, shrunk.ok ? '' : `${shrunk.property}: ${shrunk.summary}`).toBe(asFound.ok);
    // the plan found passes when run to its end: that is the verdict
    expect(shrunk.ok, shrunk.ok ? '' : `${shrunk.property}: ${shrunk.summary}`).toBe(true);
  });
  it('a right guess still fails: the plan found, run to its end, fails too', async () => {
    const always = defineProperty<Record<string, never>>({
      name: 'no-user-actions',
      description: 'no run has a user action (its monitor guesses so at the first write: rightly)',
      defaults: {},
      monitor: () => ({ afterWrite: () => ({ reason: 'guessed', from: 0 }) }),
      judge: (run) => (run.scenario.workload.length > 0 ? { ok: false, summary: 'a user action', explanation: 'a user action', evidence: {} } : { ok: true }),
    });
    const r = await checkSystematic(writer, { properties: [always()], faults: [], scenarios: [corpus], depth: 1, maxPlans: 5 });
    expect(r.ok).toBe(false);
    expect(r.ok ? undefined : r.property).toBe('no-user-actions');
  });
});
