import { describe, expect, it } from 'vitest';
import { BUCKET, POLICY, judgePolicies, policyScenario } from '../../examples/fault-targets/reordering/policy.js';
import { policyReaperBuggy } from '../../examples/fault-targets/reordering/policy-buggy.js';
import { policyReaperCorrect } from '../../examples/fault-targets/reordering/policy-correct.js';
import { SITE, judgeSite, siteScenario } from '../../examples/fault-targets/reordering/site.js';
import { siteBuggy } from '../../examples/fault-targets/reordering/buggy.js';
import { siteCorrect } from '../../examples/fault-targets/reordering/correct.js';
import { reordering } from '../../faults/reordering.js';
import { staleSnapshot } from '../../faults/stale-snapshot.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: reordering,
  label: 'deleting on a cache miss vs asking the API server first',
  scenario: policyScenario,
  buggy: policyReaperBuggy,
  correct: policyReaperCorrect,
  judge: judgePolicies,
  // the Bucket watch (delivery 0: logs' ADDED) is held 2 s while the BucketPolicy watch goes on:
  // logs-private arrives first, and the buggy reaper finds no bucket in its cache
  breaking: { events: [{ kind: 'reordering', nth: 0, params: { holdMs: 2000 } }], background: [] },
  gen: { controllers: ['x'], kinds: [BUCKET, POLICY], keys: ['default/logs', 'default/logs-private'], faultWindowMs: 10_000, maxNth: 5 },
  minimalEvent: { kind: 'reordering', nth: 0, params: { holdMs: 0 } },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('reordering', () => {
  it('one watch overtakes another; within each watch the events stay in resourceVersion order', async () => {
    const run = await runCase(lawCase, policyReaperCorrect, lawCase.breaking);
    const delivered = run.trace.filter((e) => e.type === 'watch:event' && e['decision'] === 'deliver');
    const firstBucket = delivered.find((e) => e['kind'] === BUCKET)!;
    const firstPolicy = delivered.find((e) => e['kind'] === POLICY)!;
    expect(firstPolicy.t).toBeLessThan(firstBucket.t); // the policy's event overtook its bucket's
    expect((firstPolicy['rv'] as number) > (firstBucket['rv'] as number)).toBe(true);
    for (const kind of [BUCKET, POLICY]) {
      const rvs = delivered.filter((e) => e['kind'] === kind).map((e) => e['rv'] as number);
      expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
    }
    expect(judgePolicies(run)).toBe(true);
  });

  it('holdMs 0 is no reordering: nothing fires, nothing changes', async () => {
    const run = await runCase(lawCase, policyReaperBuggy, { events: [{ kind: 'reordering', nth: 0, params: { holdMs: 0 } }], background: [] });
    const none = await runCase(lawCase, policyReaperBuggy, { events: [], background: [] });
    expect(run.hash).toBe(none.hash);
  });
});

/**
 * The Site fixture's lost update (writing back a whole cached object unconditionally) was once
 * caught by reordering one object's own events, which no API server does. The realistic history
 * that catches it is a cache that lags: the user's change is not in the cache yet when the
 * controller writes the old spec back.
 */
faultLaws({
  fault: staleSnapshot,
  label: 'unconditional full-object update vs optimistic concurrency',
  scenario: siteScenario,
  buggy: siteBuggy,
  correct: siteCorrect,
  judge: judgeSite,
  // the Site watch lags 2 s from its first event on: the user's change to 5 (t=1000) is not in
  // the cache when the annotation of the first version is written back at t=2101
  breaking: { events: [{ kind: 'stale-snapshot', nth: 0, params: { lagMs: 2000, forMs: 3000 } }], background: [] },
  gen: { controllers: ['x'], kinds: [SITE], keys: ['default/shop'], faultWindowMs: 10_000, maxNth: 5 },
  minimalEvent: { kind: 'stale-snapshot', nth: 0, params: { lagMs: 1, forMs: 1000 } },
  search: { numRuns: 100, shrinksTo: 1 },
});
