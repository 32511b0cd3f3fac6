import { describe, expect, it } from 'vitest';
import { SITE, judgeSite, siteScenario } from '../../examples/fault-targets/reordering/site.js';
import { siteBuggy } from '../../examples/fault-targets/reordering/buggy.js';
import { siteCorrect } from '../../examples/fault-targets/reordering/correct.js';
import { reordering } from '../../faults/reordering.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: reordering,
  label: 'unconditional full-object update vs optimistic concurrency',
  scenario: siteScenario,
  buggy: siteBuggy,
  correct: siteCorrect,
  judge: judgeSite,
  // the Site's ADDED (replicas 3) arrives after the user's change to 5: the cache goes back in
  // time and the buggy controller writes replicas 3 back
  breaking: { events: [{ kind: 'reordering', nth: 0, params: { holdMs: 2000 } }], background: [] },
  gen: { controllers: ['x'], kinds: [SITE], keys: ['default/shop'], faultWindowMs: 10_000, maxNth: 5 },
  minimalEvent: { kind: 'reordering', nth: 0, params: { holdMs: 0 } },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('reordering', () => {
  it('later events overtake the held one, and the cache regresses when it lands', async () => {
    const run = await runCase(lawCase, siteCorrect, lawCase.breaking);
    const delivered = run.trace.filter((e) => e.type === 'watch:event' && e['decision'] === 'deliver' && e.t < 5000).map((e) => e['rv'] as number);
    expect(delivered[delivered.length - 1]).toBe(1); // the oldest version arrived last
    // the correct controller's stale write was refused, not applied
    expect(run.writes.some((w) => w.actor.startsWith('controller:') && w.error === 'Conflict')).toBe(true);
  });

  it('holdMs 0 is FIFO: nothing fires, nothing changes', async () => {
    const run = await runCase(lawCase, siteBuggy, { events: [{ kind: 'reordering', nth: 0, params: { holdMs: 0 } }], background: [] });
    const none = await runCase(lawCase, siteBuggy, { events: [], background: [] });
    expect(run.hash).toBe(none.hash);
  });
});
