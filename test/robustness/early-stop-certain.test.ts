import { describe, expect, it } from 'vitest';
import { check, defineController, defineProperty, simulate, type CheckOptions, type Scenario } from '../../src/index.js';
import { apiError } from '../../faults/index.js';
import { noHotLoop } from '../../properties/no-hot-loop.js';
import { virtualTimestamp } from '../../src/store/object.js';
import { markedCorpus, writer } from './writer-fixture.js';

/**
 * An early stop is a prediction. One its monitor declares certain (prefix-closed: the judge fails
 * every run with that prefix) counts at once. A guess is confirmed where the verdict could
 * otherwise depend on the shrinking budget: the scenario that first failed, once shrinking moved
 * away from it, runs again past the guess (to a certain prediction or its end). A property whose
 * monitor predicts a failure at the first write, and whose judge fails every run creating the
 * marked Widget; the corpus scenario has 3 user actions, so shrinking moves away from it.
 */

const marked = (s: Scenario) => s.workload.some((a) => a.type === 'create' && a.object.metadata.name === 'marked');

/** `seen.past`: monitor calls after that monitor already predicted (a run went on past a prediction). */
function prophet(certain: boolean, seen: { past: number }) {
  return defineProperty<Record<string, never>>({
    name: 'no-marked-widget',
    description: 'no run creates the marked Widget (its monitor predicts the failure at the first write)',
    defaults: {},
    monitor: () => {
      let predicted = false;
      return {
        afterWrite: () => {
          if (predicted) seen.past++;
          predicted = true;
          return { reason: 'marked', from: 0, certain };
        },
      };
    },
    judge: (run) => (marked(run.scenario) ? { ok: false, summary: 'the marked Widget was created', explanation: 'it was', evidence: {} } : { ok: true }),
  })();
}

const corpus = markedCorpus;
const text = JSON.stringify(corpus);

async function run(certain: boolean) {
  const seen = { past: 0, original: 0 };
  const options = { runs: 1, seed: 1, properties: [prophet(certain, seen)], faults: [], corpus: { scenarios: [corpus] }, onSimulation: (s: Scenario) => (JSON.stringify(s) === text ? seen.original++ : undefined) } as CheckOptions;
  return { r: await check(writer, options), seen };
}

describe('early stops: a certain prediction counts at once, a guess is confirmed on the scenario that found it', () => {
  it('a certain prediction: no run of the scenario found to its end, and none past the prediction', async () => {
    const { r, seen } = await run(true);
    expect(r.ok ? 'passed' : r.property).toBe('no-marked-widget');
    if (r.ok) return;
    expect(r.scenario.workload.length).toBe(1);
    // the corpus run and its determinism replay, both stopped at the prediction
    expect(seen.original).toBe(2);
    expect(seen.past).toBe(0);
  });

  it('a guess: once shrinking moved away, the scenario found runs again past the guess, and its failure stands', async () => {
    const { r, seen } = await run(false);
    expect(r.ok ? 'passed' : r.property).toBe('no-marked-widget');
    if (r.ok) return;
    expect(r.scenario.workload.length).toBe(1);
    expect(seen.original).toBe(3);
    expect(seen.past).toBeGreaterThan(0);
  });
});

describe("no-hot-loop's certain rule sees a stamping loop after an injected API error", () => {
  /** Stamps status on every reconcile: each write's event brings the next reconcile. */
  const stamper = defineController({
    name: 'stamper',
    for: 'Site',
    async reconcile(ctx) {
      const site = await ctx.client.tryGet<{ v: number }, { lastSyncTime?: string }>('Site', ctx.key);
      if (!site) return;
      await ctx.client.updateStatus({ ...site, status: { lastSyncTime: virtualTimestamp(ctx.clock.now()) } });
    },
  });

  it('stops the run at the stamping rule (certain), not at the streak guess', async () => {
    // the failed request is traced as a store:write but is no write of the store: counting it put
    // the stamp index off by one, and the monitor never saw the loop (this run went on to its end)
    const scenario = {
      seed: 1,
      controllers: [{ name: 'stamper' }],
      initialObjects: [],
      workload: [{ at: 0, type: 'create', object: { kind: 'Site', metadata: { name: 'a', namespace: 'default' }, spec: { v: 1 } } }],
      faults: { events: [{ kind: 'api-error', nth: 3, params: { status: 500 } }], background: [] },
      options: { faultWindowMs: 2_000, settleMs: 3_000 },
    } as Scenario;
    const { run } = await simulate(scenario, { controllers: [stamper], faults: [apiError], properties: [noHotLoop()], earlyStop: true });
    expect(run.trace.some((e) => e['fault'] === 'api-error')).toBe(true);
    expect(run.timing.stoppedEarly?.reason).toMatch(/changing only the time stamp status\.lastSyncTime$/);
    expect(run.timing.stoppedEarly?.certain).toBe(true);
  });
});
