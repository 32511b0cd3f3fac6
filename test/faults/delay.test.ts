import { describe, expect, it } from 'vitest';
import { judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { delay } from '../../faults/delay.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: delay,
  label: 'cached bookkeeping vs deterministic names',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // the App stream stalls at its status write; the Pod stream keeps flowing, and every Pod
  // ADDED makes the buggy controller create yet another Pod until the stall ends
  breaking: { events: [{ kind: 'delay', nth: 2, params: { ms: 2000 } }], background: [] },
  gen: { controllers: ['x'], kinds: ['App'], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'delay', nth: 0, params: { ms: 0 } },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('delay', () => {
  it('keeps the stalled stream in order and delivers it when the stall ends', async () => {
    const run = await runCase(lawCase, singleChildCorrect, { events: [{ kind: 'delay', nth: 0, params: { ms: 500 } }], background: [] });
    const app = run.trace.filter((e) => e.type === 'watch:event' && e['kind'] === 'App' && e['decision'] === 'deliver' && e.t < 5000);
    // web ADDED (t=100) waits until 601; the api ADDED at 201 queues behind it, not before
    expect(app.map((e) => [e.t, e['key'], e['event']])[0]).toEqual([601, 'default/web', 'ADDED']);
    const rvs = app.map((e) => e['rv'] as number);
    expect([...rvs].sort((a, b) => a - b)).toEqual(rvs);
  });
});
