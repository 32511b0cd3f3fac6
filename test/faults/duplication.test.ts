import { describe, expect, it } from 'vitest';
import { AUDIT, CONFIG, auditScenario, judgeAudit } from '../../examples/fault-targets/duplication/audit.js';
import { auditBuggy } from '../../examples/fault-targets/duplication/buggy.js';
import { auditCorrect } from '../../examples/fault-targets/duplication/correct.js';
import { duplication } from '../../faults/duplication.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: duplication,
  label: 'a side effect per reconcile vs an idempotent one',
  scenario: auditScenario,
  buggy: auditBuggy,
  correct: auditCorrect,
  judge: judgeAudit,
  // the Config's ADDED is replayed half a second later: one more reconcile, one more entry
  breaking: { events: [{ kind: 'duplication', nth: 0, params: { afterMs: 500 } }], background: [] },
  gen: { controllers: ['x'], kinds: [CONFIG], keys: ['default/app-config'], faultWindowMs: 10_000, maxNth: 3 },
  minimalEvent: { kind: 'duplication', nth: 0, params: { replay: 1, afterMs: 0 } },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('duplication', () => {
  it('a copy right behind the original collapses in the workqueue (one reconcile)', async () => {
    const run = await runCase(lawCase, auditBuggy, { events: [{ kind: 'duplication', nth: 0, params: { afterMs: 0 } }], background: [] });
    expect(run.finalObjects.filter((o) => o.kind === AUDIT)).toHaveLength(2);
    expect(judgeAudit(run)).toBe(true);
  });

  it('a late copy never rolls the cache back: the replayed old version does not hide the newer spec', async () => {
    // replay generation 1's ADDED after the update to generation 2 was delivered
    const run = await runCase(lawCase, auditCorrect, { events: [{ kind: 'duplication', nth: 0, params: { afterMs: 3000 } }], background: [] });
    const late = run.trace.filter((e) => e.type === 'watch:event' && e['decision'] === 'deliver' && e['event'] === 'ADDED');
    expect(late.map((e) => e.t)).toEqual([101, 3101]);
    const entries = run.finalObjects.filter((o) => o.kind === AUDIT).map((o) => (o.spec as { generation: number }).generation);
    // the replay reconciled generation 2 again (no new entry), never generation 1
    expect(entries.sort()).toEqual([1, 2]);
  });
});
