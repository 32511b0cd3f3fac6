import { noExtraDestructiveActions } from '../../properties/no-extra-destructive-actions.js';
import { ScenarioRunner } from '../../src/harness/scenario-runner.js';
import { allFaults } from '../../faults/index.js';
import { clusterScenario } from '../../examples/fault-targets/list-order/cluster.js';
import { clusterBuggy } from '../../examples/fault-targets/list-order/buggy.js';
import { clusterCorrect } from '../../examples/fault-targets/list-order/correct.js';

for (const c of [clusterBuggy, clusterCorrect]) {
  for (const order of [1, 2, 3, 7, 11]) {
    const s = clusterScenario(c.name, { events: [{ kind: 'list-order', nth: 2, params: { order } }], background: [] });
    for (const learn of [false, true]) {
      const r = new ScenarioRunner({ controllers: [c], faults: allFaults }, [noExtraDestructiveActions({ learn })]);
      const out = await r.judge(s);
      console.log(c.name, order, learn ? 'learn' : 'nolearn', out.failure?.summary ?? 'pass', learn ? JSON.stringify(r.learned.summary().map((x) => x.masks)) : '');
    }
  }
}
