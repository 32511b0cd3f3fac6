import { describe, expect, it } from 'vitest';
import { APP, judgeSingleChild, singleChildScenario } from '../../examples/fault-targets/single-child/app.js';
import { singleChildBuggy } from '../../examples/fault-targets/single-child/buggy.js';
import { singleChildCorrect } from '../../examples/fault-targets/single-child/correct.js';
import { drift } from '../../faults/drift.js';
import { ORDER, judgeShop, shopDownstream, shopScenario } from '../../examples/fault-targets/flaky-downstream/shop.js';
import { shopBuggy } from '../../examples/fault-targets/flaky-downstream/buggy.js';
import { shopCorrect } from '../../examples/fault-targets/flaky-downstream/correct.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: drift,
  label: 'create-once vs level-triggered repair (owned objects)',
  scenario: singleChildScenario,
  buggy: singleChildBuggy,
  correct: singleChildCorrect,
  judge: judgeSingleChild,
  // someone deletes a Pod: the buggy controller's status says "done", so it never recreates it
  breaking: { events: [{ kind: 'drift', at: 1000, params: { action: 'delete', pick: 0 } }], background: [] },
  gen: { controllers: ['x'], kinds: [APP], keys: ['default/web', 'default/api'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'drift', at: 0, params: { action: 'delete', pick: 0, external: false } },
  search: { numRuns: 50, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('drift of owned objects', () => {
  it('an edit of a managed field is repaired by the correct reconciler and left alone by the buggy one', async () => {
    const plan = { events: [{ kind: 'drift', at: 1000, params: { action: 'modify', pick: 1 } }], background: [] };
    const buggy = await runCase(lawCase, singleChildBuggy, plan);
    expect(judgeSingleChild(buggy)).toMatch(/runs nginx:1-drifted, App web wants nginx:1/);
    const correct = await runCase(lawCase, singleChildCorrect, plan);
    expect(judgeSingleChild(correct)).toBe(true);
    const edit = correct.writes.find((w) => w.actor === 'environment:drift')!;
    expect(edit).toMatchObject({ verb: 'patch', kind: 'Pod', changed: ['spec.image'] });
    const repair = correct.writes.find((w) => w.t >= edit.t && w.actor.startsWith('controller:') && w.kind === 'Pod');
    expect(repair).toMatchObject({ verb: 'patch', key: edit.key, changed: ['spec.image'] });
  });

  it('is a no-op when there is nothing to drift yet', async () => {
    const run = await runCase(lawCase, singleChildBuggy, { events: [{ kind: 'drift', at: 0, params: { action: 'delete' } }], background: [] });
    expect(run.trace.some((e) => e.type === 'fault:inject')).toBe(false);
  });
});

const lawCaseExternal: FaultLawCase = {
  fault: drift,
  label: 'record-once vs periodic re-check (external resources)',
  scenario: shopScenario,
  buggy: shopBuggy,
  correct: shopCorrect,
  judge: judgeShop,
  // someone cancels alice's order in the shop's console: no event tells the controller
  breaking: { events: [{ kind: 'drift', at: 3000, params: { action: 'delete', pick: 0, external: true } }], background: [] },
  gen: { controllers: ['x'], kinds: [ORDER], keys: ['default/alice', 'default/bob'], faultWindowMs: 10_000, maxNth: 8 },
  minimalEvent: { kind: 'drift', at: 0, params: { action: 'delete', pick: 0, external: false } },
  options: { downstream: shopDownstream },
};

faultLaws(lawCaseExternal);

describe('drift of external resources', () => {
  it('an edit in the external service is found by the periodic re-check and patched back', async () => {
    const run = await runCase(lawCaseExternal, shopCorrect, { events: [{ kind: 'drift', at: 3000, params: { action: 'modify', pick: 1, external: true } }], background: [] });
    expect(run.trace.find((e) => e.type === 'fault:inject')).toMatchObject({ external: true, service: 'shop', collection: 'orders' });
    const patch = run.requests.find((r) => r.method === 'PATCH');
    expect(patch).toMatchObject({ status: 200 });
    expect(patch!.t).toBeGreaterThan(3000);
    expect(judgeShop(run)).toBe(true);
  });
});
