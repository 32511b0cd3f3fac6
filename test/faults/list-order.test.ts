import { describe, expect, it } from 'vitest';
import { CLUSTER, MEMBER, clusterScenario, judgeCluster } from '../../examples/fault-targets/list-order/cluster.js';
import { clusterBuggy } from '../../examples/fault-targets/list-order/buggy.js';
import { clusterCorrect } from '../../examples/fault-targets/list-order/correct.js';
import { listOrder } from '../../faults/list-order.js';
import { faultLaws, runCase, type FaultLawCase } from '../helpers/fault-laws.js';

const lawCase: FaultLawCase = {
  fault: listOrder,
  label: 'list()[0] vs sorting by ordinal',
  scenario: clusterScenario,
  buggy: clusterBuggy,
  correct: clusterCorrect,
  judge: judgeCluster,
  // list 2 is the Member list of the scale-down pass (3 → 1); permutation 1 puts db-0 last
  breaking: { events: [{ kind: 'list-order', nth: 2, params: { order: 1 } }], background: [] },
  gen: { controllers: ['x'], kinds: [CLUSTER], keys: ['default/db'], faultWindowMs: 10_000, maxNth: 4 },
  minimalEvent: { kind: 'list-order', nth: 0, params: { order: 0 } },
  search: { numRuns: 100, shrinksTo: 1 },
};

faultLaws(lawCase);

describe('list-order', () => {
  it('list 2 is the scale-down pass (the breaking plan aims at the right list)', async () => {
    const run = await runCase(lawCase, clusterCorrect, { events: [], background: [] });
    const lists = run.trace.filter((e) => e.type === 'store:read' && e['verb'] === 'list');
    expect(lists[2]).toMatchObject({ t: 2001, kind: MEMBER, count: 3 });
  });

  it('permutes, never adds or drops items', async () => {
    const run = await runCase(lawCase, clusterCorrect, lawCase.breaking);
    const lists = run.trace.filter((e) => e.type === 'store:read' && e['verb'] === 'list');
    expect(lists[2]).toMatchObject({ count: 3 });
    expect(run.trace.find((e) => e.type === 'fault:inject')).toMatchObject({ nth: 2, count: 3, order: 1 });
  });
});
